/* block_sweep.c - the sweeps of batch mode over a block of points.
 *
 * The same tape, swept for up to B points at once: each node's values
 * (and adjoints) for the B points lie side by side, so one instruction is
 * dispatched once per block and its rule (from ops.def, the same
 * expressions the scalar engines use, so every number is bit-identical to
 * theirs) runs in a tight loop the compiler can vectorise.  A point the
 * block cannot finish alone -- a domain error, an overflow, a kink or a
 * singular point on a differentiated path, a partial that underflowed --
 * is flagged, and the caller
 * recomputes it with the scalar engines, which say exactly what happened.
 *
 * This file is compiled twice: as itself for the baseline (SSE2), and by
 * block_avx2.c for AVX2; block.c picks one per call.  ADI_BLOCK_SWEEP is
 * the name of the entry each compilation defines.
 *
 * In this file, in order: the per-op kernels (generated from ops.def),
 * the kernels that keep a partial (KEEP), the fused pairs (FUSE), the two
 * sweeps, the check of the gradient, the copies between the caller's rows
 * and the block's, the plan for a tape (which values to check: block.c;
 * which pairs to fuse; which adjoint rows to share: PASSES), and
 * ADI_BLOCK_SWEEP, which puts them together. */
#if defined(ADI_BLOCK_FOR_AVX2)
#pragma GCC target("avx2")
#define ADI_BLOCK_SWEEP adi_block_sweep_avx2
#else
#define ADI_BLOCK_SWEEP adi_block_sweep_base
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* the block loops are what -O3's vectoriser and loop unswitching are for.
 * no-trapping-math only lets the compiler evaluate both arms of a select
 * (the zero tests of the chain rule) without branching: nothing here reads
 * the floating-point exception flags, and every result stays IEEE and
 * bit-identical to the scalar engines (no -ffast-math, no reassociation,
 * no contraction under -std=c11) */
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "block.h"
#include "work.h"
#include "rules.h"
#include "alloc.h"


/* In the block, sin and cos take the branch-free path for every lane and
 * give nan beyond the range of its argument reduction (adi_trig_ok): the
 * nan flags the point, and the scalar engines compute it with adi_sin and
 * adi_cos, the same functions, which fall back to the C library there. */
static inline double block_sin(double x) { return adi_trig_ok(x) ? adi_sin_core(x) : NAN; }
static inline double block_cos(double x) { return adi_trig_ok(x) ? adi_cos_core(x) : NAN; }
#define adi_sin block_sin
#define adi_cos block_cos

/* sin and cos come out of one argument reduction (KEEP in ops.def), so a
 * differentiated sin or cos node keeps its partial (cos a, or -sin a) from
 * the forward sweep in a row of its own instead of reducing again in the reverse sweep: the
 * same bits as block_cos and -block_sin (tests/test_vmath checks
 * adi_sincos_core against the cores). */
static inline void block_sincos(double x, double *s, double *c)
{
    double sv, cv;
    adi_sincos_core(x, &sv, &cv);
    *s = adi_trig_ok(x) ? sv : NAN;
    *c = adi_trig_ok(x) ? cv : NAN;
}


/* one chain-rule term: the plain product.  The scalar engines' adi_term
 * is 0 where either factor is 0, so that 0 * inf and 0 * nan are 0; here
 * the product is nan there.  A nan adjoint reaches the adjoint rows of the
 * inputs (any product or sum with a nan is nan), and flag_nan_grads then
 * hands the point to the scalar engines.  Elsewhere the two differ only in
 * the sign of a zero term, which changes no sum and no first write
 * (0 + -0 is 0). */
static inline double term(double p, double g) { return p * g; }

/* ---- the kernels: one op over the points of a block ----
 *
 * Generated from ops.def, each op's loops a function of its own: with a
 * case per op inside one function, GCC 12 ran short of registers and
 * spilled inside the loops -- an extra store and reload per four points,
 * on loops that are mostly loads and stores.  The sweeps below call them
 * through one table indexed by opcode.
 *
 * The flags are doubles, one per point, set by a select, so that a loop
 * over doubles updates them lane for lane: GCC 12 does not vectorise the
 * loop for SSE2 when it has to turn a comparison into a byte or an
 * integer. */

/* Y = the value; F flags a result beyond lim (when chk) and a domain error */
typedef void fwd_fn(const double *restrict A, const double *restrict Bv, double *restrict Y,
                    double *restrict F, size_t np, double lim, int chk);
/* GA (+)= the chain-rule term of one operand (a: d/da, b: d/db, ab: both,
 * for op(a, a)); acc 0 is the first contribution: GA = 0 + term, no -0.
 * 1 when a partial with a WIDE rule (ops.def) was below DBL_MIN at a point:
 * it may have underflowed, and under_fn says where it did */
typedef int rev_fn(const double *restrict A, const double *restrict Bv, const double *restrict Y,
                    const double *restrict G, double *restrict GA, size_t np, int acc);
/* F flags a kink or a singular point of a partial (operand a when aa, b when ab) */
typedef void stat_fn(const double *restrict A, const double *restrict Bv, double *restrict F, size_t np,
                     int aa, int ab);
/* F flags a partial that underflowed (rules.h's ADI_UNDERFLOW: digits lost
 * below DBL_MIN, which the scalar engines redo in long double), point by
 * point; run only on a block whose reverse kernel found a candidate */
typedef void under_fn(const double *restrict A, const double *restrict Bv, const double *restrict Y,
                      double *restrict F, size_t np, int aa, int ab);

#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc)          \
    static void fwd_##E(const double *restrict A, const double *restrict Bv,          \
                                        double *restrict Y, double *restrict F, size_t np,            \
                                        double lim, int chk)                                         \
    {                                                                                                 \
        if (chk) {                                                                                    \
            for (size_t j = 0; j < np; j++) {                                                         \
                double a = A[j], b = Bv[j];                                                           \
                (void)a; (void)b;                                                                     \
                double y = (val);                                                                     \
                Y[j] = y;                                                                             \
                F[j] = fabs(y) <= lim ? F[j] : 1.0;                                                   \
            }                                                                                         \
        } else {                                                                                      \
            for (size_t j = 0; j < np; j++) {                                                         \
                double a = A[j], b = Bv[j];                                                           \
                (void)a; (void)b;                                                                     \
                Y[j] = (val);                                                                         \
            }                                                                                         \
        }                                                                                             \
        if (!adi_op_has_domain(AD_OP_##E)) return;                                                     \
        for (size_t j = 0; j < np; j++) {                                                             \
            double a = A[j], b = Bv[j];                                                               \
            (void)a; (void)b;                                                                         \
            F[j] = (dom) != NULL ? 1.0 : F[j];                                                        \
        }                                                                                             \
    }                                                                                                 \
    REV_KERNEL(rev_a_##E, SMALL(E, 1, da), GA[j] += term((da), g), GA[j] = 0.0 + term((da), g))      \
    REV_KERNEL(rev_b_##E, SMALL(E, 2, db), GA[j] += term((db), g), GA[j] = 0.0 + term((db), g))      \
    REV_KERNEL(rev_ab_##E, SMALL(E, 1, da) || SMALL(E, 2, db), (GA[j] += term((da), g), GA[j] += term((db), g)), \
               GA[j] = (0.0 + term((da), g)) + term((db), g))                                        \
    static void stat_##E(const double *restrict A, const double *restrict Bv,         \
                                         double *restrict F, size_t np, int aa, int ab)               \
    {                                                                                                 \
        for (size_t j = 0; j < np; j++) {                                                             \
            double a = A[j], b = Bv[j];                                                               \
            (void)a; (void)b;                                                                         \
            int st = (aa && (sa) != ADI_OK) | (ab && (sb) != ADI_OK);                                   \
            F[j] = st ? 1.0 : F[j];                                                                   \
        }                                                                                             \
    }                                                                                                 \
    static void under_##E(const double *restrict A, const double *restrict Bv,                        \
                          const double *restrict Y, double *restrict F, size_t np, int aa, int ab)    \
    {                                                                                                 \
        const unsigned ws = adi_op_wide_slots(AD_OP_##E) & ((unsigned)aa | (unsigned)ab << 1);       \
        if (!ws) return;                                                                              \
        for (size_t j = 0; j < np; j++) {                                                             \
            double d[2];                                                                              \
            unsigned char st[2];                                                                      \
            adi_op_partials(AD_OP_##E, A[j], Bv[j], Y[j], d, st);                                     \
            int u = (ws & 1 && st[0] == ADI_UNDERFLOW) || (ws & 2 && st[1] == ADI_UNDERFLOW);         \
            F[j] = u ? 1.0 : F[j];                                                                    \
        }                                                                                             \
    }
/* a reverse kernel: the statement add when acc, else first (the first
 * contribution: 0 + term, so no -0, as the scalar engines' 0 += term);
 * small, the test for a candidate underflow (0 for an op without a WIDE
 * rule, and then no test is compiled) */
#define REV_KERNEL(fn, small, add, first)                                                             \
    static int fn(const double *restrict A, const double *restrict Bv,                                \
                  const double *restrict Y, const double *restrict G,                                 \
                  double *restrict GA, size_t np, int acc)                                            \
    {                                                                                                 \
        double any = 0;                                                                               \
        if (acc) {                                                                                    \
            for (size_t j = 0; j < np; j++) {                                                         \
                double a = A[j], b = Bv[j], v = Y[j], g = G[j];                                       \
                (void)a; (void)b; (void)v;                                                            \
                add;                                                                                  \
                any = (small) ? 1.0 : any;                                                            \
            }                                                                                         \
        } else {                                                                                      \
            for (size_t j = 0; j < np; j++) {                                                         \
                double a = A[j], b = Bv[j], v = Y[j], g = G[j];                                       \
                (void)a; (void)b; (void)v;                                                            \
                first;                                                                                \
                any = (small) ? 1.0 : any;                                                            \
            }                                                                                         \
        }                                                                                             \
        return any != 0;                                                                              \
    }
/* op E's partial d (slot bit 1: d/da, 2: d/db) below DBL_MIN, where it has
 * a WIDE rule */
#define SMALL(E, bit, d) ((adi_op_wide_slots(AD_OP_##E) & (bit)) && fabs((double)(d)) < DBL_MIN)
#include "ops.def"
#undef REV_KERNEL
#undef SMALL

/* every op's kernels, by opcode */
static const struct {
    fwd_fn *fwd;
    rev_fn *rev_a, *rev_b, *rev_ab;
    stat_fn *stat;
    under_fn *under;
} kernel[] = {
#define OP(E, ...) [AD_OP_##E] = {fwd_##E, rev_a_##E, rev_b_##E, rev_ab_##E, stat_##E, under_##E},
#include "ops.def"
};

/* the value and partial of a KEEP op (ops.def), one point at a time */
static inline void keep_sin(double x, double *y, double *p) { block_sincos(x, y, p); }
static inline void keep_cos(double x, double *y, double *p)
{
    double s;
    block_sincos(x, &s, y);
    *p = -s;
}

/* a differentiated KEEP op: the value, and its partial kept in P */
typedef void kept_fn(const double *restrict A, double *restrict Y, double *restrict P, double *restrict F,
                     size_t np, double lim);
#define KEEP(E, both)                                                                                    \
    static void fwd_kept_##E(const double *restrict A, double *restrict Y,               \
                                             double *restrict P, double *restrict F, size_t np, double lim) \
    {                                                                                                    \
        for (size_t j = 0; j < np; j++) {                                                                \
            both(A[j], &Y[j], &P[j]);                                                                    \
            F[j] = fabs(Y[j]) <= lim ? F[j] : 1.0;                                                       \
        }                                                                                                \
    }
#include "ops.def"
static kept_fn *const kept[AD_OP_COUNT] = {
#define KEEP(E, both) [AD_OP_##E] = fwd_kept_##E,
#include "ops.def"
};

/* GA (+)= term(P, G): the chain rule through a kept partial */
static void rev_kept(const double *restrict P, const double *restrict G, double *restrict GA,
                                     size_t np, int acc)
{
    if (acc)
        for (size_t j = 0; j < np; j++) GA[j] += term(P[j], G[j]);
    else
        for (size_t j = 0; j < np; j++) GA[j] = 0.0 + term(P[j], G[j]);
}

/* ---- fused pairs (FUSE in ops.def) ----
 *
 * An inner node used only by one outer node is computed inside the outer's
 * kernel and never stored: forward computes d = I(a, b) and the outer's
 * value from it; reverse computes d again, the outer's partials at it and
 * the inner's, and adds both steps' terms.  Every expression is the
 * engines' own (adi_op_value, adi_op_partials: ops.def's rules), so the bits
 * are those of the two nodes swept one by one. */

/* inline the rules' switches, so that with the opcodes constant they fold
 * to the pair's expressions and the loops vectorise */
#if defined(__GNUC__)
#define FLATTEN __attribute__((flatten))
#else
#define FLATTEN
#endif

#define FUSE(O, I, slot)                                                                              \
    FLATTEN static void ffwd_##O##_##I(const double *restrict A,                      \
                                                       const double *restrict Bv,                     \
                                                       const double *restrict C, double *restrict Y,  \
                                                       double *restrict F, size_t np, double lim,     \
                                                       int chk)                                       \
    {                                                                                                 \
        if (chk) {                                                                                    \
            for (size_t j = 0; j < np; j++) {                                                         \
                double d = adi_op_value(AD_OP_##I, A[j], Bv[j]);                                       \
                double y = (slot) ? adi_op_value(AD_OP_##O, C[j], d) : adi_op_value(AD_OP_##O, d, C[j]);\
                Y[j] = y;                                                                             \
                F[j] = fabs(y) <= lim ? F[j] : 1.0;                                                   \
            }                                                                                         \
        } else {                                                                                      \
            for (size_t j = 0; j < np; j++) {                                                         \
                double d = adi_op_value(AD_OP_##I, A[j], Bv[j]);                                       \
                Y[j] = (slot) ? adi_op_value(AD_OP_##O, C[j], d) : adi_op_value(AD_OP_##O, d, C[j]);    \
            }                                                                                         \
        }                                                                                             \
    }                                                                                                 \
    FREV(O, I, slot, 0, 0, 0) FREV(O, I, slot, 0, 0, 1) FREV(O, I, slot, 0, 1, 0)                    \
    FREV(O, I, slot, 0, 1, 1) FREV(O, I, slot, 1, 0, 0) FREV(O, I, slot, 1, 0, 1)                    \
    FREV(O, I, slot, 1, 1, 0) FREV(O, I, slot, 1, 1, 1)
/* the reverse step of a pair, writing the adjoint rows of the inner node's
 * operands a (when wa) and b (wb) and of the outer's other operand (wc):
 * a function for each choice, so that no loop tests it; acc_x: add to the
 * row, else write it first (0 + term, as REV_KERNEL) */
#define FREV(O, I, slot, wa, wb, wc)                                                                  \
    FLATTEN static void frev_##O##_##I##_##wa##wb##wc(                                \
        const double *restrict A, const double *restrict Bv, const double *restrict C,                \
        const double *restrict Y, const double *restrict G, double *restrict GA, int acc_a,           \
        double *restrict GB, int acc_b, double *restrict GC, int acc_c, size_t np)                    \
    {                                                                                                 \
        (void)GA; (void)GB; (void)GC; (void)acc_a; (void)acc_b; (void)acc_c;                          \
        for (size_t j = 0; j < np; j++) {                                                             \
            double a = A[j], b = Bv[j], c = C[j], y = Y[j], g = G[j], po[2], pi[2];                   \
            unsigned char st[2];                                                                      \
            double d = adi_op_value(AD_OP_##I, a, b);                                                  \
            if (slot) adi_op_partials(AD_OP_##O, c, d, y, po, st);                                     \
            else adi_op_partials(AD_OP_##O, d, c, y, po, st);                                          \
            double gd = term(po[slot], g);                                                            \
            adi_op_partials(AD_OP_##I, a, b, d, pi, st);                                               \
            if (wc) GC[j] = (acc_c ? GC[j] : 0.0) + term(po[1 - (slot)], g);                          \
            if (wa) GA[j] = (acc_a ? GA[j] : 0.0) + term(pi[0], gd);                                  \
            if (wb) GB[j] = (acc_b ? GB[j] : 0.0) + term(pi[1], gd);                                  \
        }                                                                                             \
    }
#include "ops.def"

typedef void ffwd_fn(const double *restrict A, const double *restrict Bv, const double *restrict C,
                     double *restrict Y, double *restrict F, size_t np, double lim, int chk);
typedef void frev_fn(const double *restrict A, const double *restrict Bv, const double *restrict C,
                     const double *restrict Y, const double *restrict G, double *restrict GA, int acc_a,
                     double *restrict GB, int acc_b, double *restrict GC, int acc_c, size_t np);
static const struct {
    int outer, inner, slot;
    ffwd_fn *fwd;
    frev_fn *rev[8];   /* by wa * 4 + wb * 2 + wc */
} fused[] = {
#define FUSE(O, I, slot)                                                                             \
    {AD_OP_##O, AD_OP_##I, slot, ffwd_##O##_##I,                                                     \
     {frev_##O##_##I##_000, frev_##O##_##I##_001, frev_##O##_##I##_010, frev_##O##_##I##_011,        \
      frev_##O##_##I##_100, frev_##O##_##I##_101, frev_##O##_##I##_110, frev_##O##_##I##_111}},
#include "ops.def"
#undef FREV
};
#define NFUSED (sizeof fused / sizeof fused[0])
enum { FZ_INNER = -2 };   /* fz[] of a node computed inside its consumer */

/* ---- the sweeps: one kernel call per node ---- */

static void forward(const ad_tape *t, ad_block *bk, size_t np)
{
    double *F = bk->bad;
    const size_t S = bk->S;
    double *V = bk->val;
    const unsigned char *act = bk->act, *chk = bk->chk;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const double *A = V + (size_t)c.a * S, *Bv = c.b >= 0 ? V + (size_t)c.b * S : bk->zero;
        double *Y = V + i * S;
        /* an infinite value on a differentiated path, and any nan, are the
         * scalar engines' to report */
        const double lim = act[i] ? DBL_MAX : INFINITY;
        const int fz = bk->fz[i];
        if (fz == FZ_INNER) continue;   /* computed inside its consumer */
        if (fz >= 0) {
            const ad_instr in = t->code[fused[fz].slot ? c.b : c.a];
            long other = fused[fz].slot ? c.a : c.b;
            fused[fz].fwd(V + (size_t)in.a * S, in.b >= 0 ? V + (size_t)in.b * S : bk->zero,
                          other >= 0 ? V + (size_t)other * S : bk->zero, Y, F, np, lim, chk[i]);
        } else if (bk->prow[i] >= 0) {
            double *P = bk->part + (size_t)bk->prow[i] * S;
            kept[c.op](A, Y, P, F, np, lim);
        } else {
            kernel[c.op].fwd(A, Bv, Y, F, np, lim, chk[i]);
        }
        /* a guard's tie on a differentiated path fails the point whether
         * or not the output depends on it (the reverse sweep may not
         * reach it) */
        if (act[i] && adi_op_is_guard(c.op)) kernel[c.op].stat(A, Bv, F, np, act[c.a], c.b >= 0 && act[c.b]);
    }
}

static void reverse(const ad_tape *t, ad_block *bk, size_t np, size_t out)
{
    double *F = bk->bad;
    const size_t S = bk->S, first = t->ninputs + t->nconsts;
    const double *V = bk->val;
    double *G = bk->adj;
    const unsigned char *act = bk->act;
    /* an adjoint row is written by its first contribution and added to by
     * the others, so no row needs clearing; a row nothing wrote is 0 */
    unsigned char *set = bk->set;
    memset(set, 0, t->n);
    if (!act[t->outs[out]]) return;
    for (size_t j = 0; j < np; j++) G[(size_t)t->outs[out] * S + j] = 1;
    set[t->outs[out]] = 1;
    for (size_t i = t->n; i-- > first;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        const int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        const double *A = V + (size_t)c.a * S, *Bv = c.b >= 0 ? V + (size_t)c.b * S : bk->zero;
        const long *arow = bk->arow;
        const double *Y = V + i * S, *Gi = G + (size_t)arow[i] * S;
        double *GA = G + (size_t)arow[c.a] * S, *GB = c.b >= 0 ? G + (size_t)arow[c.b] * S : NULL;
        if (bk->fz[i] >= 0) {   /* a fused pair: this node and its inner one */
            if (!set[i]) continue;
            const int fz = bk->fz[i];
            const long k = fused[fz].slot ? c.b : c.a, other = fused[fz].slot ? c.a : c.b;
            const ad_instr in = t->code[k];
            const int wa = act[k] && act[in.a], wb = act[k] && in.b >= 0 && act[in.b];
            const int wc = other >= 0 && act[other];
            double *G1 = G + (size_t)arow[in.a] * S;
            double *G2 = in.b >= 0 ? G + (size_t)arow[in.b] * S : NULL;
            double *G3 = other >= 0 ? G + (size_t)arow[other] * S : NULL;
            fused[fz].rev[wa * 4 + wb * 2 + wc](V + (size_t)in.a * S, in.b >= 0 ? V + (size_t)in.b * S : bk->zero,
                                                other >= 0 ? V + (size_t)other * S : bk->zero, Y, Gi,
                                                G1, wa && set[in.a], G2, wb && set[in.b], G3,
                                                wc && set[other], np);
            if (wa) set[in.a] = 1;
            if (wb) set[in.b] = 1;
            if (wc) set[other] = 1;
            continue;
        }
        if (bk->prow[i] >= 0) {   /* the partial kept by forward (KEEP) */
            if (!set[i]) continue;
            rev_kept(bk->part + (size_t)bk->prow[i] * S, Gi, GA, np, set[c.a]);
            set[c.a] = 1;
            continue;
        }
        if (adi_op_has_status(c.op) && !adi_op_is_guard(c.op)) kernel[c.op].stat(A, Bv, F, np, aa, ab);
        if (!set[i]) continue;   /* its adjoint is 0: it passes nothing on */
        /* an operand that shares this node's adjoint row (see share_rows)
         * already holds its adjoint */
        const int sa = aa && arow[c.a] == arow[i], sb = ab && arow[c.b] == arow[i];
        int small = 0;   /* a partial that may have underflowed */
        if (aa && ab && c.a == c.b) {
            small = kernel[c.op].rev_ab(A, Bv, Y, Gi, GA, np, set[c.a]);
        } else {
            if (aa && !sa) small |= kernel[c.op].rev_a(A, Bv, Y, Gi, GA, np, set[c.a]);
            if (ab && !sb) small |= kernel[c.op].rev_b(A, Bv, Y, Gi, GB, np, set[c.b]);
        }
        if (small) kernel[c.op].under(A, Bv, Y, F, np, aa, ab);
        if (aa) set[c.a] = 1;
        if (ab) set[c.b] = 1;
    }
}

/* flags the points with a nan or inf in an input's adjoint: where term's
 * plain product made a nan of 0 * inf, and where the scalar engines fail
 * too (a partial or a product that overflowed); they say which */
static void flag_nan_rows(const double *restrict G, double *restrict F, size_t np)
{
    for (size_t j = 0; j < np; j++) F[j] = fabs(G[j]) <= DBL_MAX ? F[j] : 1.0;   /* nan or inf */
}

static void flag_nan_grads(const ad_tape *t, ad_block *bk, size_t np)
{
    for (size_t i = 0; i < t->ninputs; i++)
        if (bk->act[i] && bk->set[i]) flag_nan_rows(bk->adj + i * bk->S, bk->bad, np);
}

/* ---- turning rows into columns ----
 * A block holds one number of every point side by side; the caller's rows
 * hold every number of one point.  The copies between the two move 4x4
 * tiles (4 vector loads, a transpose in registers, 4 vector stores) and
 * fetch the rows 8 points ahead: one number at a time, waiting for
 * memory, they were a quarter of F5's time (100 inputs, 100 gradient
 * columns).  GCC and clang spell the shuffle differently; other compilers
 * get the plain loop. */
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#define PREFETCH_W(p) __builtin_prefetch(p, 1)
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4i __attribute__((vector_size(32)));
#if defined(__clang__)
#define SHUF(x, y, i0, i1, i2, i3) __builtin_shufflevector(x, y, i0, i1, i2, i3)
#else
#define SHUF(x, y, i0, i1, i2, i3) __builtin_shuffle(x, y, (v4i){i0, i1, i2, i3})
#endif

/* a 4x4 tile: dst[m][q] = src[q][m] (4 numbers from each of 4 rows) */
static inline void tile4(const double *const src[4], double *const dst[4])
{
    v4d r0, r1, r2, r3;
    memcpy(&r0, src[0], sizeof r0);
    memcpy(&r1, src[1], sizeof r1);
    memcpy(&r2, src[2], sizeof r2);
    memcpy(&r3, src[3], sizeof r3);
    v4d t0 = SHUF(r0, r1, 0, 4, 2, 6), t1 = SHUF(r0, r1, 1, 5, 3, 7);
    v4d t2 = SHUF(r2, r3, 0, 4, 2, 6), t3 = SHUF(r2, r3, 1, 5, 3, 7);
    v4d o0 = SHUF(t0, t2, 0, 1, 4, 5), o1 = SHUF(t1, t3, 0, 1, 4, 5);
    v4d o2 = SHUF(t0, t2, 2, 3, 6, 7), o3 = SHUF(t1, t3, 2, 3, 6, 7);
    memcpy(dst[0], &o0, sizeof o0);
    memcpy(dst[1], &o1, sizeof o1);
    memcpy(dst[2], &o2, sizeof o2);
    memcpy(dst[3], &o3, sizeof o3);
}
#else
#define PREFETCH(p) ((void)(p))
#define PREFETCH_W(p) ((void)(p))
static inline void tile4(const double *const src[4], double *const dst[4])
{
    for (int m = 0; m < 4; m++)
        for (int q = 0; q < 4; q++) dst[m][q] = src[q][m];
}
#endif

/* the points' rows (x, xstride apart) into the block's input rows: input
 * i from column xcol[i] (NULL: column i), or fixed[i] where that is -1.
 * Four inputs in consecutive columns go as one tile. */
static void load_inputs(double *restrict V, size_t S, size_t ni, const double *restrict x,
                                        size_t xstride, const long *restrict xcol, const double *restrict fixed,
                                        size_t np)
{
    for (size_t i = 0; i < ni; i++)
        if (xcol && xcol[i] < 0)
            for (size_t j = 0; j < np; j++) V[i * S + j] = fixed[i];
    size_t j = 0;
    for (; j + 4 <= np; j += 4) {
        const double *xj = x + j * xstride;
        /* the rows 8 points on, fetched while these are copied: the
         * copy waited for memory most of its time */
        if (j + 12 <= np)
            for (size_t m = 0; m < 4 * xstride; m += 8) PREFETCH(xj + 8 * xstride + m);
        for (size_t i = 0; i < ni;) {
            long c = xcol ? xcol[i] : (long)i;
            if (i + 4 <= ni && c >= 0 && (!xcol || (xcol[i + 1] == c + 1 && xcol[i + 2] == c + 2 && xcol[i + 3] == c + 3))) {
                const double *src[4] = {xj + c, xj + xstride + c, xj + 2 * xstride + c, xj + 3 * xstride + c};
                double *const dst[4] = {V + i * S + j, V + (i + 1) * S + j, V + (i + 2) * S + j, V + (i + 3) * S + j};
                tile4(src, dst);
                i += 4;
                continue;
            }
            if (c >= 0)
                for (size_t m = 0; m < 4; m++) V[i * S + j + m] = xj[m * xstride + (size_t)c];
            i++;
        }
    }
    for (; j < np; j++)
        for (size_t i = 0; i < ni; i++) {
            long c = xcol ? xcol[i] : (long)i;
            if (c >= 0) V[i * S + j] = x[j * xstride + (size_t)c];
        }
}

/* the gradient columns (col[k]: a row of the block) into the output rows,
 * stride apart: out[j * stride + k] = col[k][j] */
static void store_grads(double *restrict out, size_t stride, const double *const *restrict col,
                                        size_t nd, size_t np)
{
    size_t j = 0;
    for (; j + 4 <= np; j += 4) {
        double *o = out + j * stride;
        if (j + 13 <= np)   /* as load_inputs, for writing (rows start at out's column 1 or later) */
            for (size_t m = 0; m < 4 * stride; m += 8) PREFETCH_W(o + 8 * stride + m);
        size_t k = 0;
        for (; k + 4 <= nd; k += 4) {
            const double *src[4] = {col[k] + j, col[k + 1] + j, col[k + 2] + j, col[k + 3] + j};
            double *const dst[4] = {o + k, o + stride + k, o + 2 * stride + k, o + 3 * stride + k};
            tile4(src, dst);
        }
        for (; k < nd; k++)
            for (size_t m = 0; m < 4; m++) o[m * stride + k] = col[k][j + m];
    }
    for (; j < np; j++)
        for (size_t k = 0; k < nd; k++) out[j * stride + k] = col[k][j];
}

/* ops.def's PASSES table by opcode and operand (0: a, 1: b); ops not
 * listed have 0: the partial is exactly 1 */
static const unsigned char passes_tab[AD_OP_COUNT][2] = {
#define PASSES(E, pa, pb) [AD_OP_##E] = {pa, pb},
#include "ops.def"
};

/* uses[i]: how many operand slots read node i, 2 standing for 2 or more;
 * an output counts as used twice */
static void count_uses(const ad_tape *t, unsigned char *uses)
{
    memset(uses, 0, t->n);
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        uses[c.a] = uses[c.a] < 2 ? uses[c.a] + 1 : 2;
        if (c.b >= 0) uses[c.b] = uses[c.b] < 2 ? uses[c.b] + 1 : 2;
    }
    for (size_t r = 0; r < t->nout; r++) uses[t->outs[r]] = 2;
}

/* fz[i]: the fused[] pair node i is the outer node of, FZ_INNER when it is
 * computed inside its consumer, else -1.  A pair is fused when ops.def
 * lists it (FUSE), the inner node is the one before, used only there and checked
 * nowhere (chk), neither node has a domain, status or kept partial, and
 * the rows the pair writes belong to distinct nodes.  uses: count_uses. */
static void find_fusions(const ad_tape *t, const ad_block *bk, int *fz, const unsigned char *uses)
{
    size_t first = t->ninputs + t->nconsts;
    for (size_t i = 0; i < t->n; i++) fz[i] = -1;
    for (size_t i = first; i < t->n; i++) {
        const ad_instr c = t->code[i];
        for (size_t f = 0; f < NFUSED; f++) {
            long k = fused[f].slot ? c.b : c.a, other = fused[f].slot ? c.a : c.b;
            if (fused[f].outer != (int)c.op || k < (long)first || (int)t->code[k].op != fused[f].inner) continue;
            const ad_instr in = t->code[k];
            if (uses[k] != 1 || fz[k] != -1 || bk->chk[k] || bk->prow[k] >= 0 || bk->prow[i] >= 0) continue;
            /* the inner node just before: the pair adds the inner node's
             * terms at the outer's step, which is the scalar engines'
             * order only when no node between reads its operands */
            if ((size_t)k + 1 != i) continue;
            if (adi_op_has_domain(c.op) || adi_op_has_status(c.op) || adi_op_has_domain(in.op) ||
                adi_op_has_status(in.op))
                continue;
            if (in.a == in.b || in.a == other || (in.b >= 0 && in.b == other)) continue;
            fz[i] = (int)f;
            fz[k] = FZ_INNER;
            break;
        }
    }
}

/* arow[i]: the node whose adjoint row node i uses.  An operation whose only
 * consumer passes its adjoint on unchanged (PASSES: a + b, a - b) needs no
 * row of its own: its adjoint is the consumer's, so it reads the
 * consumer's row, and the consumer writes nothing for it.  A sum of many
 * terms then costs nothing in the reverse sweep.  The bits are the same:
 * the copy the scalar engines make, 0 + term(1, g), differs from g only
 * for g = -0, and a zero's sign changes no result (see term).  Inputs and
 * outputs keep their own rows.  uses: count_uses. */
static void share_rows(const ad_tape *t, long *arow, const int *fz, const unsigned char *uses)
{
    size_t first = t->ninputs + t->nconsts;
    for (size_t i = 0; i < t->n; i++) arow[i] = (long)i;
    for (size_t i = t->n; i-- > first;) {
        const ad_instr c = t->code[i];
        if (fz[i] != -1) continue;   /* a fused pair writes its operands' rows itself */
        if (passes_tab[c.op][0] && (size_t)c.a >= first && uses[c.a] == 1) arow[c.a] = arow[i];
        if (c.b >= 0 && passes_tab[c.op][1] && (size_t)c.b >= first && uses[c.b] == 1) arow[c.b] = arow[i];
    }
}

int ADI_BLOCK_SWEEP(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                    const double *x, size_t xstride, const long *xcol, const double *fixed,
                    const long *cols, size_t nd, double *out, size_t stride, unsigned char *flags)
{
    /* rows B + 8 doubles apart: 256 points would put every row 2 KB from
     * the next, and rows a multiple of 4 KB apart compete for the same
     * few sets of the L1 cache */
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts, B = ad_block_width(t), S = B + 8;
    if (np > B) return -1;
    if (bk->B != B || bk->cap < n * S) {
        free(bk->val);
        free(bk->adj);
        free(bk->zero);
        free(bk->bad);
        bk->val = adi_malloc(n * S * sizeof *bk->val);
        bk->adj = adi_malloc(n * S * sizeof *bk->adj);
        bk->zero = adi_malloc(B * sizeof *bk->zero);
        bk->bad = adi_malloc(B * sizeof *bk->bad);
        if (!bk->val || !bk->adj || !bk->zero || !bk->bad) {
            bk->cap = 0;
            return -1;
        }
        bk->cap = n * S;
        bk->B = B;
        bk->S = S;
        memset(bk->zero, 0, B * sizeof *bk->zero);
    }
    if (adi_grow((void **)&bk->act, &bk->actcap, n, 1) < 0 ||
        adi_grow((void **)&bk->set, &bk->setcap, n, 1) < 0 ||
        adi_grow((void **)&bk->col, &bk->colcap, nd ? nd : 1, sizeof *bk->col) < 0)
        return -1;
    unsigned char *act = bk->act;
    for (size_t i = 0; i < ni; i++) act[i] = grad && diff[i];
    memset(act + ni, 0, nc);
    for (size_t i = ni + nc; i < n; i++)
        act[i] = (unsigned char)(act[t->code[i].a] || (t->code[i].b >= 0 && act[t->code[i].b]));
    if (adi_grow((void **)&bk->prow, &bk->prowcap, n, sizeof *bk->prow) < 0) return -1;
    size_t nparts = 0;
    for (size_t i = 0; i < n; i++) {
        int op = t->code[i].op;
        bk->prow[i] = i >= ni + nc && act[i] && kept[op] ? (long)nparts++ : -1;
    }
    if (nparts && adi_grow((void **)&bk->part, &bk->partcap, nparts * S, sizeof *bk->part) < 0) return -1;
    if (adi_grow((void **)&bk->chk, &bk->chkcap, n, 1) < 0) return -1;
    adi_block_checks(t, bk->chk);
    if (adi_grow((void **)&bk->arow, &bk->arowcap, n, sizeof *bk->arow) < 0) return -1;
    if (adi_grow((void **)&bk->fz, &bk->fzcap, n, sizeof *bk->fz) < 0) return -1;
    count_uses(t, bk->set);   /* set is scratch until the reverse sweep */
    find_fusions(t, bk, bk->fz, bk->set);
    share_rows(t, bk->arow, bk->fz, bk->set);

    double *V = bk->val;
    load_inputs(V, S, ni, x, xstride, xcol, fixed, np);
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < np; j++) V[(ni + i) * S + j] = t->cval[i];
    memset(bk->bad, 0, np * sizeof *bk->bad);
    forward(t, bk, np);
    size_t per = 1 + (grad ? nd : 0);
    for (size_t r = 0; r < t->nout; r++) {
        const double *Y = V + (size_t)t->outs[r] * S;
        for (size_t j = 0; j < np; j++) out[j * stride + r * per] = Y[j];
        if (!grad) continue;
        reverse(t, bk, np, r);
        flag_nan_grads(t, bk, np);
        const double **col = bk->col;
        for (size_t k = 0; k < nd; k++) {
            long in = cols[k];
            col[k] = in >= 0 && act[in] && bk->set[in] ? bk->adj + (size_t)in * S : bk->zero;
        }
        store_grads(out + r * per + 1, stride, col, nd, np);
    }
    for (size_t j = 0; j < np; j++) flags[j] = bk->bad[j] != 0;
    return 0;
}
