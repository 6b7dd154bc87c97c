/* main.c - the adcalc command: parse the options, hand them to the mode
 * they ask for (an expression at a point, batch rows, a session of
 * statements), and exit with the status of the first failure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "adcalc.h"
#include "batch.h"
#include "buf.h"
#include "help.h"
#include "libs.h"
#include "options.h"
#include "repl.h"
#include "report.h"
#include "run.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

/* a result that could not be written is an error, never silent */
static int finish(const cli_options *o, int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cli_error(o, NULL, AD_E_IO, "cannot write output: %s", strerror(errno ? errno : EIO));
        return cli_exit_code(AD_E_IO);
    }
    return status;
}

/* --help, --version and --completion-table */
static int about(const cli_options *o)
{
    cli_buf b = {0};
    if (o->help) cli_help(&b);
    else if (o->completion_table) cli_completion_table(&b);
    else cli_buf_printf(&b, "adcalc %s (tape format %d)\n", PACKAGE_VERSION, AD_TAPE_FORMAT_VERSION);
    if (b.nomem) {
        cli_buf_free(&b);
        cli_error(o, NULL, AD_E_IO, "out of memory");
        return cli_exit_code(AD_E_IO);
    }
    cli_buf_flush(&b, stdout);
    cli_buf_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    cli_options o;
    ad_diag d;
    ad_errclass e = cli_options_parse(&o, argc, argv, &d);
    const cli_source *lib = NULL;
    int status;
    if (e) {
        /* an error in the text of -at @FILE is at a line and column of it */
        cli_report(&o, o.at_file ? &(cli_where){.file = o.at_file, .line = d.line, .col = d.col} : NULL, &d);
        status = cli_exit_code(e);
    } else if (o.nsrc && !o.help && !o.version && !o.completion_table && (e = cli_prelude_check(&o, &lib, &d))) {
        /* a library at fault fails every expression: said once */
        cli_report(&o, lib ? &(cli_where){.src = lib} : NULL, &d);
        status = cli_exit_code(e);
    } else if (o.help || o.version || o.completion_table) {
        status = finish(&o, about(&o));
    } else if (o.points) {
        status = finish(&o, cli_batch(&o));
    } else if (o.nsrc == 0) {
        /* statements from stdin: a session on a terminal, a stream otherwise */
        status = finish(&o, cli_repl(&o, isatty(0)));
    } else {
        status = finish(&o, cli_run(&o));
    }
    cli_options_free(&o);
    return status;
}
