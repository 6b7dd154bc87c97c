/* fuzz_pipeline.c - libFuzzer target over the whole pipeline: option
 * parsing of -at values, parsing and recording, the primal sweep, forward
 * and reverse mode, the tape dump in every format and the result printers.
 *
 * Input: byte 0 picks the options (policy, output format, dump, seeds,
 * Hessian, Taylor order, Jacobian); then the -at text up to the first
 * newline; the rest is the expression (for the Jacobian, split in two at
 * the first ';').  Besides
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
    if (o.jacobian || o.adjoint) {
        ad_joint J;
        ad_joint_init(&J);
        e = ad_run_joint(&o, t, w, &J, &d);
        if (e) ad_print_error(sink(), &o, &o.src[d.src], &d);
        else ad_print_joint(sink(), &o, &J);
        ad_joint_free(&J);
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
    if (flags & 16) {
        char *hv[16] = {"adcalc", "-e", expr, "--hessian", "--nondiff", (char *)policy, "--format", (char *)fmt};
        double v = 0;
        int n = 8;
        if (atlen) { hv[n++] = "-at"; hv[n++] = at; }
        if (flags & 8 && atlen) { hv[n++] = "--seed"; hv[n++] = at; }
        one(n, hv, t, w, &v, 0);
    }
    if (flags & 32) {
        char ord[8];
        snprintf(ord, sizeof ord, "%d", 1 + flags % 7 * 3);
        char *ov[16] = {"adcalc", "-e", expr, "--order", ord, "--nondiff", (char *)policy, "--format", (char *)fmt};
        double v = 0;
        int n = 9;
        if (atlen) { ov[n++] = "-at"; ov[n++] = at; ov[n++] = "--seed"; ov[n++] = at; }
        one(n, ov, t, w, &v, 0);
        char *cv[16] = {"adcalc", "-e", expr, "--check", "--nondiff", (char *)policy};
        n = 6;
        if (atlen) { cv[n++] = "-at"; cv[n++] = at; }
        one(n, cv, t, w, &v, 0);
    }
    if (flags & 64) {
        /* two outputs of one tape */
        char *semi = strchr(expr, ';');
        char *e2 = semi ? semi + 1 : expr;
        if (semi) *semi = 0;
        char *jv[20] = {"adcalc", "-e", expr, "-e", e2, "--jacobian", "--adjoint", "1,-2", "--mode",
                        (flags & 128) ? "reverse" : "auto", "--format", (char *)fmt};
        double v = 0;
        int n = 12;
        if (atlen) { jv[n++] = "-at"; jv[n++] = at; jv[n++] = "--seed"; jv[n++] = at; }
        one(n, jv, t, w, &v, 0);
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
