/* check.c - the gradient check (--check): the AD gradient of both engines
 * against central finite differences, component by component.
 *
 * Finite differences only check the answer, never give it.  Where they are
 * themselves unreliable at a point, the report says so rather than blame
 * the AD value: a second, larger step and its Richardson extrapolation are
 * tried before a component fails, a component whose difference quotients
 * disagree among themselves is "fd-unreliable", one whose stencil crosses
 * a kink (a min/max/abs branch changes) is "kink", and one whose stencil
 * leaves the domain is "fd-undefined". */
#include <float.h>
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "alloc.h"

/* which way each op with a kink goes at the current point (BRANCH in
 * ops.def: a number, as floor's side is the whole number floor(a)) */
static void branches(const ad_tape *t, const double *v, double *sig)
{
    for (size_t i = 0; i < t->ninputs + t->nconsts; i++) sig[i] = 0;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        if (t->feeds && !t->feeds[i]) {
            sig[i] = 0;   /* used by guards only: no kink of the function */
            continue;
        }
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        (void)a;
        (void)b;
        switch (c.op) {
#define BRANCH(E, side) case AD_OP_##E: sig[i] = (side); break;
#include "ops.def"
        default: sig[i] = 0;
        }
    }
}

/* f at x with x[i] moved by delta; 0, or -1 outside the domain.  *crossed
 * is set when a branch differs from sig0 (1: a kink's; 2: a guard does
 * not hold, the point takes another path). */
static int f_at(const ad_tape *t, ad_work *w, double *x, size_t i, double delta,
                const double *sig0, double *sig, int *crossed, double *f)
{
    double keep = x[i];
    x[i] = keep + delta;
    ad_errclass e = ad_eval(t, w, x, NULL);
    x[i] = keep;
    if (e == AD_E_PATH) *crossed = 2;
    if (e) return -1;
    *f = ad_value(t, w);
    branches(t, w->val, sig);
    /* (compared as numbers: round's side is -0 below 0 and 0 above, one piece) */
    for (size_t k = 0; k < t->n && !*crossed; k++)
        if (sig[k] != sig0[k]) *crossed = 1;
    return 0;
}

/* central difference quotient with step h; 0 or -1 */
static int central(const ad_tape *t, ad_work *w, double *x, size_t i, double h,
                   const double *sig0, double *sig, int *crossed, double *q)
{
    /* use the steps the doubles actually take */
    double up = (x[i] + h) - x[i], dn = x[i] - (x[i] - h);
    double fp, fm;
    if (f_at(t, w, x, i, up, sig0, sig, crossed, &fp) < 0 ||
        f_at(t, w, x, i, -dn, sig0, sig, crossed, &fm) < 0)
        return -1;
    *q = (fp - fm) / (up + dn);
    return 0;
}

ad_errclass ad_check_gradient(const ad_tape *t, ad_work *w, const double *inputs,
                              const unsigned char *diff, ad_policy pol, double step_scale,
                              double rtol, double atol, ad_check_item *items,
                              double *fwd_rev, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs;
    double *g = adi_malloc((ni ? ni : 1) * sizeof *g), *gf = adi_malloc((ni ? ni : 1) * sizeof *gf);
    double *x = adi_malloc((ni ? ni : 1) * sizeof *x);
    double *seeds = adi_malloc((ni > 0 ? ni * ni : 1) * sizeof *seeds);
    double *sig0 = adi_malloc((n ? n : 1) * sizeof *sig0), *sig = adi_malloc((n ? n : 1) * sizeof *sig);
    ad_errclass e = AD_E_NONE;
    if (!g || !gf || !x || !seeds || !sig0 || !sig) { e = adi_err_nomem(d); goto out; }

    /* the AD gradient from both engines */
    memset(seeds, 0, ni * ni * sizeof *seeds);
    for (size_t i = 0; i < ni; i++) seeds[i * ni + i] = 1;
    if ((e = ad_forward(t, w, inputs, diff, seeds, ni, pol, gf, d))) goto out;
    /* both engines sum the same terms in other orders: measure their
     * difference against the sum of the terms' magnitudes (x - x + ...
     * cancels, and then rounding differs a lot relative to the result) */
    if ((e = ad_eval(t, w, inputs, d)) || (e = ad_reverse_magnitudes(t, w, diff, pol, x, d))) goto out;
    if ((e = ad_reverse(t, w, diff, pol, g, d))) goto out;
    branches(t, w->val, sig0);
    *fwd_rev = 0;
    for (size_t i = 0; i < ni; i++) {
        double scale = fmax(x[i], fmax(fabs(g[i]), fabs(gf[i])));
        double rel = scale > 0 ? fabs(g[i] - gf[i]) / scale : 0;
        if (rel > *fwd_rev || isnan(rel)) *fwd_rev = rel;
    }

    memcpy(x, inputs, ni * sizeof *x);
    for (size_t i = 0; i < ni; i++) {
        ad_check_item *it = &items[i];
        memset(it, 0, sizeof *it);
        it->ad = g[i];
        if (!diff[i]) { it->status = AD_CHECK_SKIPPED; continue; }
        double mag = fmax(1, fabs(x[i]));
        double h = step_scale * sqrt(DBL_EPSILON) * mag;
        double h3 = step_scale * cbrt(DBL_EPSILON) * mag;   /* balances truncation and rounding */
        int crossed = 0;
        it->h = h;
        if (central(t, w, x, i, h, sig0, sig, &crossed, &it->fd) < 0) {
            it->status = crossed == 2 ? AD_CHECK_BRANCH : AD_CHECK_FD_UNDEFINED;
            it->fd = it->refined = it->diff = NAN;
            continue;
        }
        it->diff = fabs(it->ad - it->fd);
        double tol = atol + rtol * fabs(it->ad);
        it->refined = it->fd;
        if (!isfinite(it->ad) || !isfinite(it->fd)) {
            /* inf <= inf would pass: a value that is not finite never does */
            it->status = AD_CHECK_FAIL;
            continue;
        }
        if (it->diff <= tol && !crossed) { it->status = AD_CHECK_PASS; continue; }
        /* a second opinion: a larger step, and Richardson's extrapolation
         * from it and its half, which cancels the h^2 error term */
        double q3, q3h;
        if (central(t, w, x, i, h3, sig0, sig, &crossed, &q3) < 0 ||
            central(t, w, x, i, h3 / 2, sig0, sig, &crossed, &q3h) < 0) {
            it->status = crossed == 2 ? AD_CHECK_BRANCH : crossed ? AD_CHECK_KINK : AD_CHECK_FD_UNDEFINED;
            if (!crossed) it->refined = NAN;
            continue;
        }
        double rich = (4 * q3h - q3) / 3;
        if (crossed) { it->status = crossed == 2 ? AD_CHECK_BRANCH : AD_CHECK_KINK; continue; }
        double best = fabs(it->ad - rich) < fabs(it->ad - q3) ? rich : q3;
        it->refined = best;
        if (fabs(it->ad - best) <= tol) { it->status = AD_CHECK_PASS; continue; }
        /* the difference quotients disagree among themselves by more than
         * the tolerance: they cannot judge the AD value here */
        double spread = fmax(fabs(it->fd - q3), fabs(q3 - rich));
        it->status = spread > tol ? AD_CHECK_FD_UNRELIABLE : AD_CHECK_FAIL;
    }
out:
    free(g);
    free(gf);
    free(x);
    free(seeds);
    free(sig0);
    free(sig);
    return e;
}

const char *ad_check_status_name(int status)
{
    switch (status) {
    case AD_CHECK_PASS: return "pass";
    case AD_CHECK_FAIL: return "FAIL";
    case AD_CHECK_KINK: return "kink";
    case AD_CHECK_FD_UNRELIABLE: return "fd-unreliable";
    case AD_CHECK_FD_UNDEFINED: return "fd-undefined";
    case AD_CHECK_SKIPPED: return "skipped";
    case AD_CHECK_BRANCH: return "branch";
    }
    return "?";
}
