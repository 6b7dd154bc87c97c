/* wide.c - a forward or reverse sweep again in long double, after finite
 * partials times finite tangents (or adjoints) overflowed a double, or a
 * partial on the path overflowed or underflowed (ops.h's ADI_OVERFLOW,
 * ADI_UNDERFLOW): the
 * chain rule's intermediate products can leave double's range where the
 * derivative itself does not (d/dy log(x^y) at x = 1e308, y = 1 is
 * 709.196, though d(x^y)/dy = x^y log x is 7.1e310).  On x86-64 a long
 * double has a 15-bit exponent, so the products fit, and a 64-bit
 * significand, so the result is rounded once, to double, at the end.
 * The partials are the first sweep's, except where a double overflowed
 * or underflowed and ops.def's WIDE rule gives the partial in long
 * double.  Where long
 * double is no wider than double the retry cannot help and says so (the
 * sweep then reports the derivative as beyond a double).  The values,
 * activity and --nondiff decisions are the first sweep's. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include "work.h"
#include "rules.h"
#include "alloc.h"

typedef adi_wide wide;

/* a chain-rule term as adi_term: a zero factor contributes nothing */
static wide term(wide p, wide x) { return (p == 0 || x == 0) ? 0 : p * x; }

/* node i's partials as the first sweep took them (its policy; the errors
 * are noted there), with ops.def's WIDE rules where a double overflowed */
static void partials(const ad_tape *t, const double *v, size_t i, int aa, int ab, ad_policy pol, wide p[2])
{
    const ad_instr c = t->code[i];
    double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0, d[2];
    unsigned char st[2];
    adi_nondiff nd;
    adi_nondiff_init(&nd);
    adi_op_partials((int)c.op, a, b, v[i], d, st);
    wide w[2] = {d[0], d[1]};
    adi_op_wide_partials((int)c.op, a, b, v[i], w);
    for (int j = 0; j < 2; j++) {
        /* (a partial below double's normal range lost digits, or all of
         * them: d/dx 1/x at x = 1e200 is -1e-400, 0 in a double) */
        int beyond = st[j] == ADI_OVERFLOW || st[j] == ADI_UNDERFLOW;
        p[j] = beyond ? w[j] : d[j];
        if (beyond) st[j] = ADI_OK;
    }
    unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, &nd);
    if (zero & 1) p[0] = 0;
    if (zero & 2) p[1] = 0;
}

/* x as a double, or -1 when it does not fit one; one that rounds to zero
 * is +0, as a sum from +0 in the double sweeps (0 + -0 is +0) */
static int narrow(wide x, double *out)
{
    if (!(x == x) || x > DBL_MAX || x < -DBL_MAX) return -1;
    *out = (double)x + 0.0;
    return 0;
}

int adi_forward_wide(const ad_tape *t, const ad_work *w, const double *seeds, size_t k, ad_policy pol,
                     double *out)
{
    if (!ADI_WIDE_USEFUL) return 1;
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    const double *v = w->val;
    const unsigned char *act = w->act;
    if (k && n > ((size_t)-1) / k / sizeof(wide)) return -1;
    wide *T = adi_malloc((n * k > 0 ? n * k : 1) * sizeof *T);
    if (!T) return -1;
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < k; j++) T[i * k + j] = act[i] ? seeds[i * k + j] : 0;
    for (size_t i = ni + nc; i < n; i++) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        wide p[2];
        partials(t, v, i, aa, ab, pol, p);
        for (size_t j = 0; j < k; j++)
            T[i * k + j] = (aa ? term(p[0], T[(size_t)c.a * k + j]) : 0) + (ab ? term(p[1], T[(size_t)c.b * k + j]) : 0);
    }
    int rc = 0;
    for (size_t r = 0; r < t->nout && !rc; r++) {
        size_t o = (size_t)t->outs[r];
        for (size_t j = 0; j < k && !rc; j++) rc = act[o] ? narrow(T[o * k + j], &out[r * k + j]) : (out[r * k + j] = 0, 0);
    }
    free(T);
    return rc ? 1 : 0;
}

int adi_reverse_wide(const ad_tape *t, const ad_work *w, const double *wout, ad_policy pol, double *grad)
{
    if (!ADI_WIDE_USEFUL) return 1;
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    const double *v = w->val;
    const unsigned char *act = w->act;
    wide *A = adi_malloc((n ? n : 1) * sizeof *A);
    if (!A) return -1;
    for (size_t i = 0; i < n; i++) A[i] = 0;
    for (size_t o = 0; o < t->nout; o++) A[t->outs[o]] += wout ? wout[o] : (o == 0);
    for (size_t i = n; i-- > ni + nc;) {
        if (!act[i] || A[i] == 0) continue;
        const ad_instr c = t->code[i];
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        wide p[2];
        partials(t, v, i, aa, ab, pol, p);
        if (aa) A[c.a] += term(p[0], A[i]);
        if (ab) A[c.b] += term(p[1], A[i]);
    }
    int rc = 0;
    for (size_t i = 0; i < ni && !rc; i++) rc = act[i] ? narrow(A[i], &grad[i]) : (grad[i] = 0, 0);
    free(A);
    return rc ? 1 : 0;
}
