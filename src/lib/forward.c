/* forward.c - forward mode: one sweep of dual numbers of width k.  Each
 * node carries its value and k tangents; an operation's tangents are its
 * local partials (from ops.def) times its operands' tangents. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"

/* The tangents again over the first sweep's values, after they left a
 * derivative that is not finite even in long double: where that began,
 * the first node whose finite partials and tangents gave a product that
 * overflowed, or whose partial overflowed; the tests cost k per node, so
 * only this pass makes them */
static size_t locate_overflow(const ad_tape *t, ad_work *w, size_t k, ad_policy pol)
{
    const double *v = w->val;
    double *T = w->tan;
    const unsigned char *act = w->act;
    adi_nondiff nd;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        int aa = act[c.a], ab = c.b >= 0 && act[c.b], wide;
        double p[2];
        adi_sweep_partials(t, v, i, aa, ab, pol, &nd, p, &wide);
        if (wide & ADI_WIDE_OVER) return i;
        double *ti = T + i * k;
        const double *ta = T + (size_t)c.a * k, *tb = ab ? T + (size_t)c.b * k : NULL;
        for (size_t j = 0; j < k; j++) {
            ti[j] = (aa ? adi_term(p[0], ta[j]) : 0) + (ab ? adi_term(p[1], tb[j]) : 0);
            /* (only the partials of differentiated operands count: pow's
             * for a constant exponent is nan at a negative base) */
            if (!isfinite(ti[j]) && (!aa || (isfinite(p[0]) && isfinite(ta[j]))) &&
                (!ab || (isfinite(p[1]) && isfinite(tb[j]))))
                return i;
        }
    }
    return (size_t)t->outs[0];   /* (a fallback never needed: a term overflowed) */
}

ad_errclass ad_forward(const ad_tape *t, ad_work *w, const double *inputs,
                       const unsigned char *diff, const double *seeds, size_t k,
                       ad_policy pol, double *out, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    if (adi_work_reserve(w, n, k ? k : 1, 0) < 0) return adi_err_nomem(d);
    w->n = n;
    w->has_adj = 0;
    double *v = w->val, *T = w->tan;
    unsigned char *act = w->act;
    for (size_t i = 0; i < ni; i++) {
        v[i] = inputs[i];
        act[i] = diff[i] != 0;
        if (act[i]) memcpy(T + i * k, seeds + i * k, k * sizeof *T);
    }
    for (size_t i = ni; i < ni + nc; i++) {
        v[i] = t->cval[i - ni];
        act[i] = 0;
    }
    adi_nondiff nd;
    adi_nondiff_init(&nd);
    int met = 0;   /* a partial overflowed or underflowed on the differentiated path */
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        const char *why = adi_op_domain((int)c.op, a, b);
        if (why) return adi_err_domain(t, w, i, why, d);
        double y = v[i] = adi_op_value((int)c.op, a, b);
        if (isnan(y)) return adi_err_domain(t, w, i, ADI_NAN_REASON, d);
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        act[i] = (unsigned char)(aa || ab);
        if (!act[i]) continue;
        if (!isfinite(y) && adi_feeds(t, i)) return adi_err_domain(t, w, i, ADI_INF_REASON, d);
        double p[2];
        int wide;
        adi_sweep_partials(t, v, i, aa, ab, pol, &nd, p, &wide);
        met |= wide;
        double *ti = T + i * k;
        const double *ta = T + (size_t)c.a * k, *tb = ab ? T + (size_t)c.b * k : NULL;
        /* an operand that does not move in a direction contributes nothing
         * to it, even where its partial overflowed (adi_term) */
        if (aa && ab) {
            for (size_t j = 0; j < k; j++) ti[j] = adi_term(p[0], ta[j]) + adi_term(p[1], tb[j]);
        } else if (aa) {
            for (size_t j = 0; j < k; j++) ti[j] = adi_term(p[0], ta[j]);
        } else {
            for (size_t j = 0; j < k; j++) ti[j] = adi_term(p[1], tb[j]);
        }
    }
    /* an output's derivative that is not finite (and not the policy's
     * error): the sweep again in a wider type (wide.c), and when even that
     * does not fit a double, an error where it began.  So too where a
     * partial overflowed or underflowed: d/dx 1/(1/x) at x = 1e200 is
     * 1e-400 times 1e400, not 0 times inf, and d/dx 1e300*(1/x) at 1e160
     * is 1e300 times -1e-320 with 17 digits, not 3; an overflow that only
     * met exact zeros is gone in long double too */
    int overflowed = met;
    for (size_t r = 0; r < t->nout; r++) {
        size_t o = (size_t)t->outs[r];
        for (size_t j = 0; j < k; j++) {
            double x = act[o] ? T[o * k + j] : 0;
            out[r * k + j] = x;
            overflowed |= x - x != 0;   /* inf or nan (on an error out is not the answer) */
        }
    }
    if (overflowed && nd.sing == SIZE_MAX && nd.kink == SIZE_MAX) {
        int rc = adi_forward_wide(t, w, seeds, k, pol, out);
        if (rc < 0) return adi_err_nomem(d);
        if (rc > 0) adi_nondiff_note(&nd, locate_overflow(t, w, k, pol), ADI_OVERFLOW);
    }
    return adi_nondiff_verdict(t, w, &nd, d);
}
