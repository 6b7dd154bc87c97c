/* policy.c - the --nondiff policy at kinks and singular derivatives, for
 * every engine: under strict a sweep notes the point nearest the inputs
 * and fails there once it is done; under zero-subgrad the local partial is
 * taken as 0.  A tie inside an n-ary min or max that is not the extremum
 * is no kink at all (adi_tie_is_kink). */
#include <stdint.h>
#include "work.h"
#include "ops.h"

/* the point nearest the inputs wins; at one node, the last note (a sweep
 * backwards notes each node once, a sweep forwards keeps the first) */
static void note(size_t *at, int *status, size_t i, int st)
{
    if (i > *at && *at != SIZE_MAX) return;
    *at = i;
    *status = st;
}

void adi_nondiff_note(adi_nondiff *nd, size_t i, int status) { note(&nd->sing, &nd->sing_status, i, status); }

unsigned adi_policy_point(const ad_tape *t, const double *v, size_t i, const unsigned char st[2], int aa,
                          int ab, ad_policy pol, adi_nondiff *nd)
{
    unsigned zero = 0;
    /* a node that only a guard uses (a loop's test |r| > tol) has no part
     * in any derivative: only the guard's own tie counts */
    if (t->feeds && !t->feeds[i] && !adi_op_is_guard(t->code[i].op)) return 0;
    for (int j = 0; j < 2; j++) {
        /* (an underflowed partial is a number, the sweeps' to redo) */
        if (!(j == 0 ? aa : ab) || st[j] == ADI_OK || st[j] == ADI_UNDERFLOW) continue;
        if (st[j] == ADI_KINK && !adi_tie_is_kink(t, v, i)) continue;
        if (st[j] == ADI_OVERFLOW) {
            /* not a kink or a singular point: no policy takes it as 0 (the
             * sweeps that can redo it in long double never get here) */
            note(&nd->sing, &nd->sing_status, i, st[j]);
            continue;
        }
        if (pol == AD_ZERO_SUBGRAD) zero |= 1u << j;
        else if (st[j] == ADI_KINK) note(&nd->kink, &nd->kink_status, i, st[j]);
        else note(&nd->sing, &nd->sing_status, i, st[j]);
    }
    return zero;
}

int adi_policy_higher(ad_policy pol, adi_nondiff *nd, size_t i, int status)
{
    if (pol == AD_ZERO_SUBGRAD) return 1;
    adi_nondiff_note(nd, i, status);
    return 0;
}

ad_errclass adi_nondiff_error(const ad_tape *t, const ad_work *w, const adi_nondiff *nd, ad_diag *d)
{
    if (nd->sing != SIZE_MAX) return adi_err_point(t, w, nd->sing, nd->sing_status, d);
    if (nd->kink != SIZE_MAX) return adi_err_point(t, w, nd->kink, nd->kink_status, d);
    return AD_E_NONE;
}
