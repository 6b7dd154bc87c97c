/* forward.c - forward mode: one sweep of dual numbers of width k.  Each
 * node carries its value and k tangents; an operation's tangents are its
 * local partials (from ops.def) times its operands' tangents. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"

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
    size_t over = SIZE_MAX;
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
        if (!isfinite(y)) return adi_err_domain(t, w, i, ADI_INF_REASON, d);

        double p[2];
        unsigned char st[2];
        adi_op_partials((int)c.op, a, b, y, p, st);
        for (int j = 0; j < 2; j++)
            if (st[j] == ADI_OVERFLOW) {   /* inf here; in long double below */
                st[j] = ADI_OK;
                if (over == SIZE_MAX && (j ? ab : aa)) over = i;
            }
        unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, &nd);
        if (zero & 1) p[0] = 0;
        if (zero & 2) p[1] = 0;
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
        /* finite partials and tangents whose products overflowed: the
         * first such node is where a derivative that is not finite at the
         * end first appeared (a nan from a kink or singular partial is the
         * policy's, noted above) */
        for (size_t j = 0; j < k && over == SIZE_MAX && (!aa || isfinite(p[0])) && (!ab || isfinite(p[1])); j++)
            if (!isfinite(ti[j]) && (!aa || isfinite(ta[j])) && (!ab || isfinite(tb[j]))) over = i;
    }
    /* an output's derivative that overflowed: the sweep again in a wider
     * type (wide.c), and singular where it began when even that does not
     * fit a double (an overflow that only met zero partials later is gone,
     * rightly) */
    int overflowed = 0, widened = 0;
    for (size_t r = 0; r < t->nout; r++)
        for (size_t j = 0; j < k; j++)
            if (act[t->outs[r]] && !isfinite(T[(size_t)t->outs[r] * k + j])) overflowed = 1;
    /* (a derivative the policy noted as singular or a kink fails anyway) */
    if (overflowed && nd.sing == SIZE_MAX && nd.kink == SIZE_MAX) {
        int rc = adi_forward_wide(t, w, seeds, k, pol, out);
        if (rc < 0) return adi_err_nomem(d);
        /* where it began: the first product that overflowed, else the
         * first tangent that is not finite */
        for (size_t i = ni + nc; over == SIZE_MAX && i < n; i++)
            for (size_t j = 0; j < k; j++)
                if (act[i] && !isfinite(T[i * k + j])) over = i;
        if (over == SIZE_MAX) over = (size_t)t->outs[0];   /* (not reached: a term overflowed) */
        if (rc > 0) adi_nondiff_note(&nd, over, ADI_OVERFLOW);
        widened = rc == 0;
    }
    ad_errclass e = adi_nondiff_verdict(t, w, &nd, d);
    if (e || widened) return e;
    for (size_t r = 0; r < t->nout; r++) {
        size_t o = (size_t)t->outs[r];
        for (size_t j = 0; j < k; j++) out[r * k + j] = act[o] ? T[o * k + j] : 0;
    }
    return AD_E_NONE;
}
