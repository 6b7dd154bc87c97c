/* help.h - the text of --help, and the table of --completion-table. */
#ifndef CLI_HELP_H
#define CLI_HELP_H

#include "buf.h"

void cli_help(cli_buf *b);
/* the options and function names for the shell completions */
void cli_completion_table(cli_buf *b);

#endif
