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

/* the reverse sweep; with magnitudes, of |partial| instead of the partials:
 * then grad[i] is the sum over all paths of the products' magnitudes, the
 * scale against which two summation orders of the gradient can differ */
static ad_errclass sweep(const ad_tape *t, ad_work *w, const unsigned char *diff, ad_policy pol,
                         const double *wout, int magnitudes, double *grad, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    if (adi_work_reserve(w, n, 0, 1) < 0) return adi_err_nomem(d);
    const double *v = w->val;
    double *adj = w->adj;
    unsigned char *act = w->act;

    /* activity: which nodes depend on a differentiated input */
    for (size_t i = 0; i < ni; i++) act[i] = diff[i] != 0;
    memset(act + ni, 0, nc);
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        act[i] = (unsigned char)(act[c.a] || (c.b >= 0 && act[c.b]));
        if (act[i] && !isfinite(v[i])) return adi_err_domain(t, w, i, ADI_INF_REASON, d);
    }
    memset(adj, 0, n * sizeof *adj);
    for (size_t o = 0; o < t->nout; o++)
        adj[t->outs[o]] += wout ? wout[o] : (o == 0);

    adi_nondiff nd;
    adi_nondiff_init(&nd);
    size_t over = SIZE_MAX;
    for (size_t i = n; i-- > ni + nc;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        double p[2];
        unsigned char st[2];
        adi_op_partials((int)c.op, a, b, v[i], p, st);
        int wide = 0;
        for (int j = 0; j < 2; j++)
            if (st[j] == ADI_OVERFLOW) {   /* inf here; in long double below */
                st[j] = ADI_OK;
                wide |= j ? ab : aa;
            }
        unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, &nd);
        if (zero & 1) p[0] = 0;
        if (zero & 2) p[1] = 0;
        double g = adj[i];
        if (g == 0) continue;
        if (wide) over = i;
        if (magnitudes) {
            p[0] = fabs(p[0]);
            p[1] = fabs(p[1]);
        }   /* it passes nothing on (even where a partial overflowed) */
        /* finite partials and adjoints whose products overflow: the last
         * such node (nearest the inputs) is where a gradient that is not
         * finite at the end appeared (a nan from a kink or singular
         * partial is the policy's, noted above) */
        int fin = isfinite(g) && (!aa || (isfinite(p[0]) && isfinite(adj[c.a]))) &&
                  (!ab || (isfinite(p[1]) && isfinite(adj[c.b])));
        if (aa) adj[c.a] += adi_term(p[0], g);
        if (ab) adj[c.b] += adi_term(p[1], g);
        if (fin && ((aa && !isfinite(adj[c.a])) || (ab && !isfinite(adj[c.b])))) over = i;
    }
    w->has_adj = 1;
    /* a gradient that overflowed: the sweep again in a wider type
     * (wide.c), and singular where it began when even that does not fit a
     * double (the magnitudes are only a scale; an overflow that only met
     * zero partials is gone) */
    int overflowed = 0, widened = 0;
    for (size_t i = 0; !magnitudes && i < ni; i++)
        if (act[i] && !isfinite(adj[i])) overflowed = 1;
    /* (a derivative the policy noted as singular or a kink fails anyway) */
    if (overflowed && nd.sing == SIZE_MAX && nd.kink == SIZE_MAX) {
        int rc = adi_reverse_wide(t, w, wout, pol, grad);
        if (rc < 0) return adi_err_nomem(d);
        /* where it began: the product that overflowed nearest the inputs,
         * else the first operation whose adjoint is not finite */
        for (size_t i = ni + nc; over == SIZE_MAX && i < n; i++)
            if (act[i] && !isfinite(adj[i])) over = i;
        if (over == SIZE_MAX) over = (size_t)t->outs[0];   /* (not reached: a term overflowed) */
        if (rc > 0) adi_nondiff_note(&nd, over, ADI_OVERFLOW);
        widened = rc == 0;
    }
    ad_errclass e = adi_nondiff_verdict(t, w, &nd, d);
    if (e || widened) return e;
    for (size_t i = 0; i < ni; i++) grad[i] = act[i] ? adj[i] : 0;
    return AD_E_NONE;
}
