/* reverse.c - reverse mode: after the primal sweep (ad_eval), walk the
 * tape backwards accumulating adjoints (+=) through the local partials
 * from ops.def.  Constants and nodes that do not depend on a differentiated
 * input get no adjoint. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"

ad_errclass ad_reverse(const ad_tape *t, ad_work *w, const unsigned char *diff,
                       ad_policy pol, double *grad, ad_diag *d)
{
    return ad_reverse_outputs(t, w, diff, pol, NULL, grad, d);
}

static ad_errclass sweep(const ad_tape *t, ad_work *w, const unsigned char *diff, ad_policy pol,
                         const double *wout, int magnitudes, double *grad, ad_diag *d);

ad_errclass ad_reverse_outputs(const ad_tape *t, ad_work *w, const unsigned char *diff,
                               ad_policy pol, const double *wout, double *grad, ad_diag *d)
{
    return sweep(t, w, diff, pol, wout, 0, grad, d);
}

ad_errclass ad_reverse_magnitudes(const ad_tape *t, ad_work *w, const unsigned char *diff,
                                  ad_policy pol, double *grad, ad_diag *d)
{
    return sweep(t, w, diff, pol, NULL, 1, grad, d);
}

/* node i's partials for the backward pass (|partial| with magnitudes) */
ADI_HOT_INLINE void partials(const ad_tape *t, const double *v, const unsigned char *act, size_t i,
                             ad_policy pol, int magnitudes, adi_nondiff *nd, double p[2], int *wide)
{
    const ad_instr c = t->code[i];
    adi_sweep_partials(t, v, i, act[c.a], c.b >= 0 && act[c.b], pol, nd, p, wide);
    if (magnitudes) {
        p[0] = fabs(p[0]);
        p[1] = fabs(p[1]);
    }
}

/* the adjoints at the start: the outputs' weights */
static void seed(const ad_tape *t, double *adj, const double *wout)
{
    memset(adj, 0, t->n * sizeof *adj);
    for (size_t o = 0; o < t->nout; o++)
        adj[t->outs[o]] += wout ? wout[o] : (o == 0);
}

/* The backward pass over the activity in w->act: the adjoints in w->adj
 * (with magnitudes, of |partial| instead of the partials: then they sum
 * the products' magnitudes over all paths, the scale against which two
 * summation orders of the gradient can differ), the policy's points in
 * nd. */
static int backward(const ad_tape *t, ad_work *w, ad_policy pol, const double *wout, int magnitudes,
                    adi_nondiff *nd)
{
    int met = 0;   /* an overflowed or underflowed partial met an adjoint */
    const double *v = w->val;
    double *adj = w->adj;
    const unsigned char *act = w->act;
    seed(t, adj, wout);
    adi_nondiff_init(nd);
    for (size_t i = t->n; i-- > t->ninputs + t->nconsts;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        double p[2];
        int wide;
        partials(t, v, act, i, pol, magnitudes, nd, p, &wide);
        double g = adj[i];
        if (g == 0) continue;   /* it passes nothing on (even where a partial overflowed) */
        met |= wide;
        if (act[c.a]) adj[c.a] += adi_term(p[0], g);
        if (c.b >= 0 && act[c.b]) adj[c.b] += adi_term(p[1], g);
    }
    return met;
}

/* The same pass again, after it left a gradient that is not finite even
 * in long double: where that began, the node nearest the inputs whose
 * finite partials and adjoints gave a product that overflowed, or whose
 * partial overflowed; the tests cost a pass, so only this one makes them */
static size_t locate_overflow(const ad_tape *t, ad_work *w, ad_policy pol, const double *wout)
{
    const double *v = w->val;
    double *adj = w->adj;
    const unsigned char *act = w->act;
    adi_nondiff nd;
    size_t over = (size_t)t->outs[0];   /* (a fallback never needed: a term overflowed) */
    seed(t, adj, wout);
    for (size_t i = t->n; i-- > t->ninputs + t->nconsts;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        int aa = act[c.a], ab = c.b >= 0 && act[c.b], wide;
        double p[2], g = adj[i];
        partials(t, v, act, i, pol, 0, &nd, p, &wide);
        if (g == 0) continue;
        /* (only the partials of differentiated operands count: pow's for
         * a constant exponent is nan at a negative base) */
        int fin = isfinite(g) && (!aa || (isfinite(p[0]) && isfinite(adj[c.a]))) &&
                  (!ab || (isfinite(p[1]) && isfinite(adj[c.b])));
        if (aa) adj[c.a] += adi_term(p[0], g);
        if (ab) adj[c.b] += adi_term(p[1], g);
        if (wide & ADI_WIDE_OVER || (fin && ((aa && !isfinite(adj[c.a])) || (ab && !isfinite(adj[c.b]))))) over = i;
    }
    return over;
}

static ad_errclass sweep(const ad_tape *t, ad_work *w, const unsigned char *diff, ad_policy pol,
                         const double *wout, int magnitudes, double *grad, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    if (adi_work_reserve(w, n, 0, 1) < 0) return adi_err_nomem(d);
    const double *v = w->val, *adj = w->adj;
    unsigned char *act = w->act;

    /* activity: which nodes depend on a differentiated input */
    for (size_t i = 0; i < ni; i++) act[i] = diff[i] != 0;
    memset(act + ni, 0, nc);
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        act[i] = (unsigned char)(act[c.a] || (c.b >= 0 && act[c.b]));
        if (act[i] && !isfinite(v[i]) && adi_feeds(t, i)) return adi_err_domain(t, w, i, ADI_INF_REASON, d);
    }
    adi_nondiff nd;
    int met = backward(t, w, pol, wout, magnitudes, &nd);
    w->has_adj = 1;
    /* a gradient that is not finite (and not the policy's error): the
     * sweep again in a wider type (wide.c), and when even that does not
     * fit a double, an error where it began (the magnitudes are only a
     * scale).  So too where an overflowed or underflowed partial met an
     * adjoint: d/dx 1/(1/x) at x = 1e200 is 1e400 times 1e-400, not inf
     * times 0, and d/dx 1e300*(1/x) at 1e160 is -1e-320 with 17 digits
     * times 1e300, not with 3 */
    int overflowed = met;
    for (size_t i = 0; i < ni; i++) {
        double g = act[i] ? adj[i] : 0;
        grad[i] = g;
        overflowed |= g - g != 0;   /* inf or nan (on an error grad is not the answer) */
    }
    if (overflowed && !magnitudes && nd.sing == SIZE_MAX && nd.kink == SIZE_MAX) {
        int rc = adi_reverse_wide(t, w, wout, pol, grad);
        if (rc < 0) return adi_err_nomem(d);
        if (rc > 0) adi_nondiff_note(&nd, locate_overflow(t, w, pol, wout), ADI_OVERFLOW);
    }
    return adi_nondiff_verdict(t, w, &nd, d);
}
