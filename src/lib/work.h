/* work.h - the evaluation workspace (private): primal values, adjoints,
 * tangents and activity flags of one sweep, plus helpers shared by the
 * sweeps for growing it and for wording their errors. */
#ifndef AD_WORK_H
#define AD_WORK_H

#include "tape.h"
#include "rules.h"

struct ad_work {
    double *val;          /* primal value of every node */
    double *adj;          /* adjoint of every node (reverse mode) */
    double *tan;          /* n x k tangents (forward mode) */
    double *tadj;         /* n x k tangents of the adjoints (Hessian) */
    unsigned char *act;   /* 1 when the node depends on a differentiated input */
    double *scratch;      /* the derivation step's per-point arrays (derive.c) */
    size_t valcap, adjcap, tancap, actcap, tadjcap, scratchcap;
    size_t n;             /* nodes of the tape last swept */
    int has_adj;          /* adj holds the adjoints of the last sweep */
    const ad_tape *tape;  /* the tape of the last point derived (ad_work_tape) */
    struct adi_paths *paths;   /* the paths of a program with control flow (path.c) */
};

/* frees a workspace's paths (path.c) */
void adi_paths_free(struct adi_paths *P);

/* 1 when an output depends on node i (with guards, the others feed
 * conditions only and take no part in any derivative: tape.h's feeds) */
static inline int adi_feeds(const ad_tape *t, size_t i) { return !t->feeds || t->feeds[i]; }

/* makes room for n nodes (and n*k tangents when k > 0); 0 or -1 */
int adi_work_reserve(ad_work *w, size_t n, size_t k, int need_adj);
/* the block's arrays for binding ni tape inputs to the caller's rows
 * (ad_block_run_rows' xcol and fixed); 0 or -1 */
int adi_block_bind(ad_block *b, size_t ni, long **xcol, double **fixed);
/* n doubles of scratch, kept between calls; NULL when out of memory */
double *adi_work_scratch(ad_work *w, size_t n);

/* inputs are finite, so a nan can only come from an operation on an
 * infinity that overflowed upstream (inf - inf, 0 * inf, sin(inf)...) */
#define ADI_NAN_REASON "undefined result (nan) from an overflow to infinity upstream"
/* a value that overflowed has no derivative we could trust */
#define ADI_INF_REASON "overflowed to infinity, so derivatives through it are undefined"

/* the diagnostics of the sweeps, positioned at node i */
ad_errclass adi_err_domain(const ad_tape *t, const ad_work *w, size_t i, const char *why, ad_diag *d);
ad_errclass adi_err_point(const ad_tape *t, const ad_work *w, size_t i, int status, ad_diag *d);
ad_errclass adi_err_nomem(ad_diag *d);


/* After a sweep whose finite products overflowed: the same derivatives in
 * long double (wide.c), into out (k tangents of each output) or grad (the
 * inputs' adjoints).  0 when they fit a double, 1 when they do not (or
 * long double is no wider), -1 when out of memory. */
int adi_forward_wide(const ad_tape *t, const ad_work *w, const double *seeds, size_t k, ad_policy pol,
                     double *out);
int adi_reverse_wide(const ad_tape *t, const ad_work *w, const double *wout, ad_policy pol, double *grad);

/* 0 when the kink at min/max node i is a tie between arguments of an n-ary
 * min(a, b, c, ...) (or max) that are not the overall extremum, so not a kink
 * of the function at all; 1 otherwise.  See eval.c. */
int adi_tie_is_kink(const ad_tape *t, const double *v, size_t i);

/* The points where a derivative sweep met a singular derivative or a kink
 * under the strict policy: the one nearest the inputs of each kind
 * (policy.c). */
typedef struct {
    size_t sing, kink;    /* node index, or SIZE_MAX for none */
    int sing_status, kink_status;
} adi_nondiff;

static inline void adi_nondiff_init(adi_nondiff *nd)
{
    nd->sing = nd->kink = SIZE_MAX;
    nd->sing_status = nd->kink_status = ADI_OK;
}
/* The policy at node i, whose partials have statuses st and whose operands
 * a and b depend on a differentiated input when aa, ab: under zero-subgrad
 * the operands (bit 0: a, bit 1: b) whose partials it takes as 0; under
 * strict it notes the point in nd and returns 0.  The one place every
 * engine (and the tape listing) applies --nondiff. */
unsigned adi_policy_point(const ad_tape *t, const double *v, size_t i, const unsigned char st[2], int aa,
                          int ab, ad_policy pol, adi_nondiff *nd);
/* ...which most nodes, whose differentiated operands' partials are fine,
 * need not call */
static inline unsigned adi_policy(const ad_tape *t, const double *v, size_t i, const unsigned char st[2], int aa,
                                  int ab, ad_policy pol, adi_nondiff *nd)
{
    return (!aa || st[0] == ADI_OK) && (!ab || st[1] == ADI_OK) ? 0 : adi_policy_point(t, v, i, st, aa, ab, pol, nd);
}
/* A derivative of a higher order that is not finite at node i (status:
 * ADI_SINGULAR or ADI_SINGULAR_HIGHER): 1 when the policy takes it as 0
 * (zero-subgrad), else noted as the point to fail at, and 0 */
int adi_policy_higher(ad_policy pol, adi_nondiff *nd, size_t i, int status);
/* notes a singular (or higher-order singular) point at node i */
void adi_nondiff_note(adi_nondiff *nd, size_t i, int status);
/* the sweep's verdict: the error at the singular point, else at the kink */
ad_errclass adi_nondiff_error(const ad_tape *t, const ad_work *w, const adi_nondiff *nd, ad_diag *d);
static inline ad_errclass adi_nondiff_verdict(const ad_tape *t, const ad_work *w, const adi_nondiff *nd, ad_diag *d)
{
    return nd->sing == SIZE_MAX && nd->kink == SIZE_MAX ? AD_E_NONE : adi_nondiff_error(t, w, nd, d);
}

/* node i's partials as a forward or reverse sweep uses them: after the
 * policy (nd notes its points), with *wide the ways a partial of a
 * differentiated operand is not the answer a long double gives (wide.c):
 * ADI_WIDE_OVER where it only overflowed (ADI_OVERFLOW: inf here),
 * ADI_WIDE_UNDER where it underflowed (ADI_UNDERFLOW) */
enum { ADI_WIDE_OVER = 1, ADI_WIDE_UNDER = 2 };
ADI_HOT_INLINE void adi_sweep_partials(const ad_tape *t, const double *v, size_t i, int aa, int ab,
                                       ad_policy pol, adi_nondiff *nd, double p[2], int *wide)
{
    const ad_instr c = t->code[i];
    unsigned char st[2];
    adi_op_partials((int)c.op, v[c.a], c.b >= 0 ? v[c.b] : 0, v[i], p, st);
    *wide = 0;
    if (st[0] | st[1]) {
        for (int j = 0; j < 2; j++) {
            if (!(j ? ab : aa)) continue;
            if (st[j] == ADI_OVERFLOW) *wide |= ADI_WIDE_OVER;
            if (st[j] == ADI_UNDERFLOW) *wide |= ADI_WIDE_UNDER;
        }
        for (int j = 0; j < 2; j++)
            if (st[j] == ADI_OVERFLOW || st[j] == ADI_UNDERFLOW) st[j] = ADI_OK;
    }
    unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, nd);
    if (zero & 1) p[0] = 0;
    if (zero & 2) p[1] = 0;
}

/* for the sweeps with no long-double retry (hessian.c, taylor.c): a
 * differentiated partial at node i that underflowed (ops.c) lost digits
 * they would pass silently on; where the node feeds the output, the point
 * fails under either policy */
static inline void adi_note_underflow(const ad_tape *t, size_t i, const unsigned char st[2], int aa, int ab,
                                      adi_nondiff *nd)
{
    if (((aa && st[0] == ADI_UNDERFLOW) || (ab && st[1] == ADI_UNDERFLOW)) && adi_feeds(t, i))
        adi_nondiff_note(nd, i, ADI_UNDERFLOW);
}

#endif
