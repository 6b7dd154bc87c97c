/* main.c - the adcalc command: parse the options, run each expression
 * through the engine, print results or the tape, and exit with the status
 * of the first failure. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "adcalc.h"
#include "options.h"
#include "output.h"
#include "run.h"
#include "repl.h"
#include "batch.h"
#include <unistd.h>

/* --check found a derivative that disagrees with finite differences */
#define CLI_EXIT_CHECK_FAILED 6

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

static int finish(int status)
{
    /* a result that could not be written is an error, never silent */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "adcalc: error: cannot write output: %s [ad/io]\n", strerror(errno ? errno : EIO));
        return ad_exit_code(AD_E_IO);
    }
    return status;
}

int main(int argc, char **argv)
{
    cli_options o;
    ad_diag d;
    ad_errclass e = cli_options_parse(&o, argc, argv, &d);
    if (e) {
        cli_print_error(stderr, &o, NULL, &d);
        cli_options_free(&o);
        return ad_exit_code(e);
    }
    if (o.help || o.version) {
        if (o.help) cli_print_help(stdout);
        else printf("adcalc %s (tape format %d)\n", PACKAGE_VERSION, AD_TAPE_FORMAT_VERSION);
        cli_options_free(&o);
        return finish(0);
    }

    if (o.points) {
        int status = cli_batch(&o);
        cli_options_free(&o);
        return finish(status);
    }
    if (o.nsrc == 0) {
        /* statements from stdin: a session on a terminal, a stream otherwise */
        int status = cli_repl(&o, isatty(0));
        cli_options_free(&o);
        return finish(status);
    }

    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    if (!t || !w) {
        fprintf(stderr, "adcalc: error: out of memory [ad/io]\n");
        return ad_exit_code(AD_E_IO);
    }
    int status = 0;
    if (o.jacobian || o.adjoint) {
        /* all expressions are the outputs of one tape */
        cli_joint J;
        cli_joint_init(&J);
        e = cli_run_joint(&o, t, w, &J, &d);
        if (e) {
            cli_print_error(stderr, &o, &o.src[d.src >= 0 && (size_t)d.src < o.nsrc ? d.src : 0], &d);
            status = ad_exit_code(e);
        } else {
            cli_print_joint(stdout, &o, &J);
        }
        cli_joint_free(&J);
        goto done;
    }
    for (size_t i = 0; i < o.nsrc; i++) {
        cli_result r;
        cli_result_init(&r);
        e = cli_run(&o, &o.src[i], t, w, &r, &d);
        if (e) {
            cli_print_error(stderr, &o, &o.src[i], &d);
            if (!status) status = ad_exit_code(e);
            if (e == AD_E_IO) {   /* out of memory is fatal: stop here */
                cli_result_free(&r);
                status = ad_exit_code(e);
                break;
            }
        } else if (o.dump) {
            if (r.check_failed && !status) status = CLI_EXIT_CHECK_FAILED;
            if (ad_dump(stdout, t, w, r.diff, o.policy, r.has_adjoints, o.dumpfmt,
                        o.src[i].src, o.src[i].len) < 0)
                break;
        } else {
            cli_print_result(stdout, &o, &o.src[i], &r, o.nsrc > 1);
            if (r.check_failed && !status) status = CLI_EXIT_CHECK_FAILED;
        }
        cli_result_free(&r);
        if (ferror(stdout)) break;
    }
done:
    ad_tape_free(t);
    ad_work_free(w);
    cli_options_free(&o);
    return finish(status);
}
