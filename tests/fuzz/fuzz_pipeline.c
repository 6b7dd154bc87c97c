/* fuzz_pipeline.c - libFuzzer target over the whole pipeline: option
 * parsing of -at values, parsing and recording, the primal sweep, forward
 * and reverse mode, the tape dump in every format and the result printers.
 *
 * Input: byte 0 picks the options (policy, seeds, dump format); then the
 * -at text up to the first newline; the rest is the expression.  Besides
 * the sanitizers, it checks one invariant: forward and reverse mode agree
 * on the outcome class and, when they succeed, on the value to the bit.
 * Build: make fuzz (clang with -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"
#include "options.h"
#include "output.h"
#include "run.h"

static FILE *sink(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

static ad_errclass one(int argc, char **argv, ad_tape *t, ad_work *w, double *value,
                       int dumpit)
{
    ad_options o;
    ad_diag d;
    ad_errclass e = ad_options_parse(&o, argc, argv, &d);
    if (e) {
        ad_print_error(sink(), &o, NULL, &d);
        ad_options_free(&o);
        return e;
    }
    ad_result r;
    ad_result_init(&r);
    e = ad_run(&o, &o.src[0], t, w, &r, &d);
    if (e) {
        ad_print_error(sink(), &o, &o.src[0], &d);
    } else {
        *value = r.value;
        ad_print_result(sink(), &o, &o.src[0], &r, 1);
        if (dumpit)
            for (int f = 0; f < 3; f++)
                ad_dump(sink(), t, w, r.diff, o.policy, r.has_adjoints, (ad_dump_format)f,
                        o.src[0].src, o.src[0].len);
    }
    ad_result_free(&r);
    ad_options_free(&o);
    return e;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t flags = data[0];
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    const char *nl = memchr(rest, '\n', n);
    size_t atlen = nl ? (size_t)(nl - rest) : 0;
    char *at = malloc(atlen + 1), *expr = malloc(n - (nl ? atlen + 1 : 0) + 1);
    memcpy(at, rest, atlen);
    at[atlen] = 0;
    size_t elen = n - (nl ? atlen + 1 : 0);
    memcpy(expr, nl ? nl + 1 : rest, elen);
    expr[elen] = 0;   /* argv strings end at the first NUL, as on a real command line */

    const char *policy = (flags & 1) ? "zero-subgrad" : "strict";
    const char *fmt = (flags & 2) ? "json" : "text";
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    double vf = 0, vr = 0;
    char *fw[16] = {"adcalc", "-e", expr, "--grad", "--mode", "forward", "--nondiff", (char *)policy,
                    "--format", (char *)fmt};
    char *rv[16] = {"adcalc", "-e", expr, "--grad", "--mode", "reverse", "--nondiff", (char *)policy,
                    "--format", (char *)fmt};
    int argc = 10;
    if (atlen) {
        fw[argc] = rv[argc] = "-at";
        argc++;
        fw[argc] = rv[argc] = at;
        argc++;
    }
    ad_errclass ef = one(argc, fw, t, w, &vf, 0);
    ad_errclass er = one(argc, rv, t, w, &vr, (flags & 4) != 0);
    if (ef != er) {
        fprintf(stderr, "forward and reverse disagree: %s vs %s\n", ad_err_tag(ef), ad_err_tag(er));
        abort();
    }
    if (!ef && memcmp(&vf, &vr, sizeof vf) != 0 && !(vf != vf && vr != vr)) {
        fprintf(stderr, "values differ: %.17g vs %.17g\n", vf, vr);
        abort();
    }
    if (flags & 8) {
        /* a seed on every -at variable: the directional derivative path */
        char *sv[16] = {"adcalc", "-e", expr, "--seed", at, "--nondiff", (char *)policy};
        double v = 0;
        if (atlen) {
            sv[7] = "-at";
            sv[8] = at;
            one(9, sv, t, w, &v, 0);
        }
    }
    ad_tape_free(t);
    ad_work_free(w);
    free(at);
    free(expr);
    return 0;
}
