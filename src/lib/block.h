/* block.h - the block of batch mode (private): its arrays, and the sweeps
 * block.c chooses between (block_sweep.c, compiled once for the baseline
 * and once for AVX2 by block_avx2.c). */
#ifndef AD_BLOCK_H
#define AD_BLOCK_H

#include "tape.h"

/* AVX2 sweeps are built with GCC on x86-64 where glibc tells the CPU's
 * features (sys/platform/x86.h, glibc 2.33 on) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(HAVE_SYS_PLATFORM_X86_H)
#define ADI_BLOCK_AVX2 1
#endif

struct ad_block {
    double *val, *adj, *zero;
    double *bad;   /* per point: nonzero once the block cannot finish it */
    const double **col;   /* the adjoint row of each derivative column */
    size_t colcap;
    double *part;         /* kept partials: rows of B points, S apart */
    size_t partcap;
    long *prow;           /* node -> its row in part, or -1 */
    size_t prowcap;
    unsigned char *chk;   /* node's values need checking for inf and nan */
    size_t chkcap;
    long *arow;           /* node -> the node whose adjoint row it uses */
    size_t arowcap;
    int *fz;              /* node -> its fused[] pair as the outer, FZ_INNER, or -1 */
    size_t fzcap;
    size_t cap, B, S;   /* values: n rows of B points, S apart */
    unsigned char *act, *set;
    size_t actcap, setcap;
    long *xcol;           /* where each tape input is in the caller's rows (derive.c) */
    double *fixed;        /* ...or its value when it is in none */
    size_t xcolcap, fixedcap;
    const ad_plan *jit_plan;   /* the plan whose rows jit computes (ad_block_use) */
    ad_block_fn *jit;
};

/* chk[i] (t->n of them): node i's values are checked for inf and nan in
 * the forward sweep, unless every consumer carries them on to its own
 * result (CARRIES in ops.def) and the node is no output: then a failing
 * point shows further down, at the first node that is checked */
void adi_block_checks(const ad_tape *t, unsigned char *chk);

/* ad_block_run_rows for one instruction set: the baseline (SSE2 on
 * x86-64), and AVX2 where block_avx2.c is built (ADI_BLOCK_AVX2) */
int adi_block_sweep_base(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                         const double *x, size_t xstride, const long *xcol, const double *fixed,
                         const long *cols, size_t nd, double *out, size_t stride, unsigned char *flags);
int adi_block_sweep_avx2(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                         const double *x, size_t xstride, const long *xcol, const double *fixed,
                         const long *cols, size_t nd, double *out, size_t stride, unsigned char *flags);

#endif
