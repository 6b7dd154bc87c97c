/* help.h - the text of --help. */
#ifndef CLI_HELP_H
#define CLI_HELP_H

#include "buf.h"

void cli_help(cli_buf *b);

#endif
