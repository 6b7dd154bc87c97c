/* output.h - what the CLI prints: results as text or JSON Lines, and
 * diagnostics with the source line and a caret. */
#ifndef AD_OUTPUT_H
#define AD_OUTPUT_H

#include <stdio.h>
#include "options.h"
#include "run.h"

/* one expression's result; header names the expression when several are printed */
void cli_print_result(FILE *f, const cli_options *o, const cli_source *s, const cli_result *r,
                     int several);
/* the joint outputs of --jacobian / --adjoint */
void cli_print_joint(FILE *f, const cli_options *o, const cli_joint *J);
/* a diagnostic: text with source echo and caret, or a JSON object */
void cli_print_error(FILE *f, const cli_options *o, const cli_source *s, const ad_diag *d);
void cli_print_help(FILE *f);

#endif
