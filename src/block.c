/* block.c - replay over a block of points at a time (batch mode).
 *
 * The same tape, swept for up to B points at once: each node's values
 * (and adjoints) for the B points lie side by side, so one instruction is
 * dispatched once per block and its rule (from ops.def, the same
 * expressions the scalar engines use, so every number is bit-identical to
 * theirs) runs in a tight loop the compiler can vectorise.  A point the
 * block cannot finish alone -- a domain error, an overflow, a kink or a
 * singular point on a differentiated path -- is flagged, and the caller
 * recomputes it with the scalar engines, which say exactly what happened. */
#if defined(__GNUC__) && !defined(__clang__)
/* the block loops are what -O3's vectoriser and loop unswitching are for;
 * the arithmetic stays IEEE (no -ffast-math, no contraction under -std=c11) */
#pragma GCC optimize("O3")
#endif
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "alloc.h"

struct ad_block {
    double *val, *adj, *zero;
    size_t cap, B;
    unsigned char *act, *set;
    size_t actcap, setcap;
};

ad_block *ad_block_new(void)
{
    ad_block *b = ad_malloc(sizeof *b);
    if (b) memset(b, 0, sizeof *b);
    return b;
}

void ad_block_free(ad_block *b)
{
    if (!b) return;
    free(b->val);
    free(b->adj);
    free(b->zero);
    free(b->act);
    free(b->set);
    free(b);
}

size_t ad_block_width(const ad_tape *t)
{
    /* about 8 MB of values and adjoints, at most 256 points */
    size_t n = t->n ? t->n : 1, B = ((size_t)8 << 20) / (16 * n);
    return B < 1 ? 1 : B > 256 ? 256 : B;
}

/* one chain-rule term, branch-free so the loops vectorise: p * g, but 0
 * where either factor is 0 (as ad_term) */
static inline double term(double p, double g)
{
    double t = p * g;
    int zero = (p == 0) | (g == 0);   /* no short circuit: a vector blend */
    return zero ? 0.0 : t;
}

static void forward(const ad_tape *t, ad_block *bk, size_t np, unsigned char *F)
{
    const size_t B = bk->B;
    double *V = bk->val;
    const unsigned char *act = bk->act;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const double *A = V + (size_t)c.a * B, *Bv = c.b >= 0 ? V + (size_t)c.b * B : bk->zero;
        double *Y = V + i * B;
        /* an infinite value on a differentiated path, and any nan, are the
         * scalar engines' to report */
        const double lim = act[i] ? DBL_MAX : INFINITY;
        switch (c.op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc)      \
        case AD_OP_##E:                                                                       \
            for (size_t j = 0; j < np; j++) {                                                 \
                double a = A[j], b = Bv[j];                                                   \
                (void)a; (void)b;                                                             \
                double y = (val);                                                             \
                Y[j] = y;                                                                     \
                F[j] |= !(fabs(y) <= lim);                                                    \
            }                                                                                 \
            if (!ad_op_has_domain(AD_OP_##E)) break;                                          \
            for (size_t j = 0; j < np; j++) {                                                 \
                double a = A[j], b = Bv[j];                                                   \
                (void)a; (void)b;                                                             \
                if ((dom) != NULL) F[j] = 1;                                                  \
            }                                                                                 \
            break;
#define DERIVED(...)
#include "ops.def"
#undef OP
#undef DERIVED
        }
    }
}

static void reverse(const ad_tape *t, ad_block *bk, size_t np, size_t out, unsigned char *F)
{
    const size_t B = bk->B, first = t->ninputs + t->nconsts;
    const double *V = bk->val;
    double *G = bk->adj;
    const unsigned char *act = bk->act;
    /* an adjoint row is written by its first contribution and added to by
     * the others, so no row needs clearing; a row nothing wrote is 0 */
    unsigned char *set = bk->set;
    memset(set, 0, t->n);
    if (!act[t->outs[out]]) return;
    for (size_t j = 0; j < np; j++) G[(size_t)t->outs[out] * B + j] = 1;
    set[t->outs[out]] = 1;
    for (size_t i = t->n; i-- > first;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        const int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        const double *A = V + (size_t)c.a * B, *Bv = c.b >= 0 ? V + (size_t)c.b * B : bk->zero;
        const double *Y = V + i * B, *Gi = G + i * B;
        double *GA = G + (size_t)c.a * B, *GB = c.b >= 0 ? G + (size_t)c.b * B : NULL;
        switch (c.op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc)      \
        case AD_OP_##E:                                                                       \
            if (ad_op_has_status(AD_OP_##E)) {                                                \
                for (size_t j = 0; j < np; j++) {                                             \
                    double a = A[j], b = Bv[j];                                               \
                    (void)a; (void)b;                                                         \
                    if ((aa && (sa) != AD_OK) || (ab && (sb) != AD_OK)) F[j] = 1;             \
                }                                                                             \
            }                                                                                 \
            if (!set[i]) break;   /* its adjoint is 0: it passes nothing on */              \
            if (aa && ab && c.a == c.b && set[c.a]) {                                         \
                for (size_t j = 0; j < np; j++) {                                             \
                    double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                          \
                    (void)a; (void)b; (void)v;                                                \
                    GA[j] += term((da), g);                                                   \
                    GA[j] += term((db), g);                                                   \
                }                                                                             \
            } else if (aa && ab && c.a == c.b) {                                              \
                for (size_t j = 0; j < np; j++) {                                             \
                    double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                          \
                    (void)a; (void)b; (void)v;                                                \
                    double ta = 0.0 + term((da), g);                                          \
                    GA[j] = ta + term((db), g);                                               \
                }                                                                             \
            } else {                                                                          \
                if (aa) {                                                                     \
                    if (set[c.a]) {                                                           \
                        for (size_t j = 0; j < np; j++) {                                     \
                            double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                  \
                            (void)a; (void)b; (void)v;                                        \
                            GA[j] += term((da), g);                                           \
                        }                                                                     \
                    } else {                                                                  \
                        for (size_t j = 0; j < np; j++) {                                     \
                            double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                  \
                            (void)a; (void)b; (void)v;                                        \
                            GA[j] = 0.0 + term((da), g);  /* as 0 += t: no -0 */             \
                        }                                                                     \
                    }                                                                         \
                }                                                                             \
                if (ab) {                                                                     \
                    if (set[c.b]) {                                                           \
                        for (size_t j = 0; j < np; j++) {                                     \
                            double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                  \
                            (void)a; (void)b; (void)v;                                        \
                            GB[j] += term((db), g);                                           \
                        }                                                                     \
                    } else {                                                                  \
                        for (size_t j = 0; j < np; j++) {                                     \
                            double a = A[j], b = Bv[j], v = Y[j], g = Gi[j];                  \
                            (void)a; (void)b; (void)v;                                        \
                            GB[j] = 0.0 + term((db), g);                                      \
                        }                                                                     \
                    }                                                                         \
                }                                                                             \
            }                                                                                 \
            if (aa) set[c.a] = 1;                                                             \
            if (ab) set[c.b] = 1;                                                             \
            break;
#define DERIVED(...)
#include "ops.def"
#undef OP
#undef DERIVED
        }
    }
}

int ad_block_run(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                 const double *x, const long *cols, size_t nd, double *out, size_t stride,
                 unsigned char *flags)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts, B = ad_block_width(t);
    if (np > B) return -1;
    if (bk->B != B || bk->cap < n * B) {
        free(bk->val);
        free(bk->adj);
        free(bk->zero);
        bk->val = ad_malloc(n * B * sizeof *bk->val);
        bk->adj = ad_malloc(n * B * sizeof *bk->adj);
        bk->zero = ad_malloc(B * sizeof *bk->zero);
        if (!bk->val || !bk->adj || !bk->zero) {
            bk->cap = 0;
            return -1;
        }
        bk->cap = n * B;
        bk->B = B;
        memset(bk->zero, 0, B * sizeof *bk->zero);
    }
    if (ad_grow((void **)&bk->act, &bk->actcap, n, 1) < 0 ||
        ad_grow((void **)&bk->set, &bk->setcap, n, 1) < 0)
        return -1;
    unsigned char *act = bk->act;
    for (size_t i = 0; i < ni; i++) act[i] = grad && diff[i];
    memset(act + ni, 0, nc);
    for (size_t i = ni + nc; i < n; i++)
        act[i] = (unsigned char)(act[t->code[i].a] || (t->code[i].b >= 0 && act[t->code[i].b]));

    double *V = bk->val;
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < np; j++) V[i * B + j] = x[j * ni + i];
    for (size_t i = 0; i < nc; i++)
        for (size_t j = 0; j < np; j++) V[(ni + i) * B + j] = t->cval[i];
    memset(flags, 0, np);
    forward(t, bk, np, flags);
    size_t per = 1 + (grad ? nd : 0);
    for (size_t r = 0; r < t->nout; r++) {
        const double *Y = V + (size_t)t->outs[r] * B;
        for (size_t j = 0; j < np; j++) out[j * stride + r * per] = Y[j];
        if (!grad) continue;
        reverse(t, bk, np, r, flags);
        for (size_t k = 0; k < nd; k++) {
            long in = cols[k];
            const double *Gk = in >= 0 && act[in] && bk->set[in] ? bk->adj + (size_t)in * B : bk->zero;
            for (size_t j = 0; j < np; j++) out[j * stride + r * per + 1 + k] = Gk[j];
        }
    }
    return 0;
}
