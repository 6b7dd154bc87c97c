/* run_joint.c - all -e expressions as the outputs of one tape: the
 * Jacobian (--jacobian), the vector-Jacobian product (--adjoint) and the
 * Jacobian-vector product (--seed) of the whole set.  --mode auto (the
 * default here) takes the cheaper engine for the Jacobian: one forward
 * sweep of width n when n <= m, else m reverse sweeps. */
#include <string.h>
#include "run.h"
#include "alloc.h"

void cli_joint_init(cli_joint *j) { memset(j, 0, sizeof *j); }

void cli_joint_free(cli_joint *j)
{
    free(j->values);
    free(j->cols.names);
    free(j->cols.in);
    free(j->jac);
    free(j->vjp);
    free(j->jvp);
    cli_joint_init(j);
}

ad_errclass cli_run_joint(const cli_options *o, ad_tape *t, ad_work *w, cli_joint *J, ad_diag *d)
{
    size_t m = o->nsrc;
    const char **srcs = adi_malloc(m * sizeof *srcs);
    size_t *lens = adi_malloc(m * sizeof *lens);
    if (!srcs || !lens) {
        free(srcs);
        free(lens);
        return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < m; i++) {
        srcs[i] = o->src[i].src;
        lens[i] = o->src[i].len;
    }
    size_t failed = 0;
    ad_errclass e = ad_parse_many(t, srcs, lens, m, &failed, d);
    free(srcs);
    free(lens);
    if (e) {
        if (d) d->src = (int)failed;
        return e;
    }
    if ((e = cli_prepare(o, t, d))) return e;
    size_t ni = ad_tape_ninputs(t), nat = o->nat, nc;
    double *x = adi_malloc((ni ? ni : 1) * sizeof *x), *g = adi_malloc((ni ? ni : 1) * sizeof *g);
    double *wout = adi_malloc(m * sizeof *wout), *seeds = NULL, *fo = NULL;
    long *in_of = adi_malloc((nat ? nat : 1) * sizeof *in_of);
    unsigned char *diff = adi_malloc(ni ? ni : 1);
    J->m = m;
    J->values = adi_malloc(m * sizeof *J->values);
    if (!x || !g || !wout || !in_of || !diff || !J->values) goto nomem;
    if ((e = cli_bind(o, t, x, in_of, d))) goto out;
    if ((e = cli_columns(o, in_of, ni, &J->cols, diff, d))) goto out;
    nc = J->cols.n;

    if ((e = ad_eval(t, w, x, d))) goto out;
    for (size_t r = 0; r < m; r++) J->values[r] = ad_output_value(t, w, r);

    if (o->jacobian) {
        J->jac = adi_malloc((m * nc > 0 ? m * nc : 1) * sizeof *J->jac);
        if (!J->jac) goto nomem;
        size_t k = 0;
        for (size_t c = 0; c < nc; c++) k += J->cols.in[c] >= 0;
        int forward = o->mode == AD_MODE_FORWARD ||
                      ((o->mode == AD_MODE_AUTO || o->mode == AD_MODE_DEFAULT) && k <= m);
        if (forward) {
            seeds = adi_malloc((ni * k > 0 ? ni * k : 1) * sizeof *seeds);
            fo = adi_malloc((m * k > 0 ? m * k : 1) * sizeof *fo);
            if (!seeds || !fo) goto nomem;
            memset(seeds, 0, ni * k * sizeof *seeds);
            for (size_t c = 0, col = 0; c < nc; c++)
                if (J->cols.in[c] >= 0) seeds[(size_t)J->cols.in[c] * k + col++] = 1;
            if ((e = ad_forward(t, w, x, diff, seeds, k, o->policy, fo, d))) goto out;
            for (size_t r = 0; r < m; r++)
                for (size_t c = 0, col = 0; c < nc; c++)
                    J->jac[r * nc + c] = J->cols.in[c] >= 0 ? fo[r * k + col++] : 0;
        } else {
            /* one reverse sweep per output */
            for (size_t r = 0; r < m; r++) {
                for (size_t q = 0; q < m; q++) wout[q] = q == r;
                if ((e = ad_reverse_outputs(t, w, diff, o->policy, wout, g, d))) goto out;
                for (size_t c = 0; c < nc; c++)
                    J->jac[r * nc + c] = J->cols.in[c] >= 0 ? g[J->cols.in[c]] : 0;
            }
        }
        J->has_jac = 1;
    }
    if (o->adjoint) {
        J->vjp = adi_malloc((nc ? nc : 1) * sizeof *J->vjp);
        if (!J->vjp) goto nomem;
        if ((e = ad_reverse_outputs(t, w, diff, o->policy, o->adjoint, g, d))) goto out;
        for (size_t c = 0; c < nc; c++) J->vjp[c] = J->cols.in[c] >= 0 ? g[J->cols.in[c]] : 0;
        J->has_vjp = 1;
    }
    if (o->nseed) {
        /* J v: forward mode with the --seed direction, width 1 */
        free(seeds);
        seeds = adi_malloc((ni ? ni : 1) * sizeof *seeds);
        J->jvp = adi_malloc(m * sizeof *J->jvp);
        if (!seeds || !J->jvp) goto nomem;
        unsigned char *sd = adi_malloc(ni ? ni : 1);
        if (!sd) goto nomem;
        memset(sd, 0, ni);
        for (size_t i = 0; i < ni; i++) seeds[i] = 0;
        for (size_t s = 0; s < o->nseed; s++)
            for (size_t j = 0; j < nat; j++)
                if (strcmp(o->at[j].name, o->seed[s].name) == 0 && in_of[j] >= 0) {
                    seeds[in_of[j]] = o->seed[s].value;
                    sd[in_of[j]] = 1;
                }
        e = ad_forward(t, w, x, sd, seeds, 1, o->policy, J->jvp, d);
        free(sd);
        if (e) goto out;
        J->has_jvp = 1;
    }
    goto out;
nomem:
    e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
out:
    free(x);
    free(g);
    free(wout);
    free(seeds);
    free(fo);
    free(in_of);
    free(diff);
    return e;
}
