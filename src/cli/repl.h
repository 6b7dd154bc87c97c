/* repl.h - reading statements from standard input: the interactive session
 * (a terminal: readline, a prompt, history) or a stream of statements. */
#ifndef AD_REPL_H
#define AD_REPL_H

#include "options.h"

/* runs the session; returns the exit status (that of the first error when
 * reading a stream, 0 after an interactive session) */
int cli_repl(const cli_options *o, int interactive);

#endif
