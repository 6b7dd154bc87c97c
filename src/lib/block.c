/* block.c - the block of batch mode: its arrays, its width, which values
 * a block checks, and what replays a block of points: a compilation of
 * the sweeps (block_sweep.c), or the plan's compiled code (--jit). */
#include <string.h>
#include "block.h"
#include "work.h"
#include "alloc.h"

#ifdef ADI_BLOCK_AVX2
#include <sys/platform/x86.h>
#endif

ad_block *ad_block_new(void)
{
    ad_block *b = adi_malloc(sizeof *b);
    if (b) memset(b, 0, sizeof *b);
    return b;
}

void ad_block_free(ad_block *b)
{
    if (!b) return;
    free(b->val);
    free(b->adj);
    free(b->zero);
    free(b->bad);
    free((void *)b->col);
    free(b->part);
    free(b->prow);
    free(b->chk);
    free(b->arow);
    free(b->fz);
    free(b->act);
    free(b->set);
    free(b->xcol);
    free(b->fixed);
    free(b);
}

int adi_block_bind(ad_block *b, size_t ni, long **xcol, double **fixed)
{
    if (adi_grow((void **)&b->xcol, &b->xcolcap, ni ? ni : 1, sizeof *b->xcol) < 0 ||
        adi_grow((void **)&b->fixed, &b->fixedcap, ni ? ni : 1, sizeof *b->fixed) < 0)
        return -1;
    *xcol = b->xcol;
    *fixed = b->fixed;
    return 0;
}

/* ops.def's CARRIES by opcode and operand (0: a, 1: b): an inf or nan in
 * the operand reaches the result; ops not listed carry nothing */
static const unsigned char carries_tab[AD_OP_COUNT][2] = {
#define CARRIES(E, ca, cb) [AD_OP_##E] = {ca, cb},
#include "ops.def"
};

void adi_block_checks(const ad_tape *t, unsigned char *chk)
{
    /* 2: some consumer carries it, 1: checked, 0: no consumer yet */
    memset(chk, 0, t->n);
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        if (!carries_tab[c.op][0]) chk[c.a] = 1;
        else if (!chk[c.a]) chk[c.a] = 2;
        if (c.b >= 0) {
            if (!carries_tab[c.op][1]) chk[c.b] = 1;
            else if (!chk[c.b]) chk[c.b] = 2;
        }
    }
    for (size_t r = 0; r < t->nout; r++) chk[t->outs[r]] = 1;
    for (size_t i = 0; i < t->n; i++) chk[i] = chk[i] != 2;
}

void ad_block_use(ad_block *b, const ad_plan *p, ad_block_fn *fn)
{
    b->jit_plan = fn ? p : NULL;
    b->jit = fn;
}

size_t ad_block_width(const ad_tape *t)
{
    /* about 8 MB of values and adjoints, at most 256 points */
    size_t n = t->n ? t->n : 1, B = ((size_t)8 << 20) / (16 * n);
    return B < 1 ? 1 : B > 256 ? 256 : B;
}

int ad_block_run(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                 const double *x, const long *cols, size_t nd, double *out, size_t stride,
                 unsigned char *flags)
{
    return ad_block_run_rows(t, bk, diff, grad, np, x, t->ninputs, NULL, NULL, cols, nd, out, stride, flags);
}

/* The AVX2 sweeps when the CPU and the kernel support them.  glibc's
 * dynamic loader has read the CPU's features already, and this reads its
 * table: GCC's target_clones would ask libgcc, whose constructor runs
 * about twenty cpuid instructions in every process -- each one a trap to
 * the hypervisor in a virtual machine, a tenth of a one-shot run's time.
 * Without glibc 2.33's sys/platform/x86.h (older glibc, musl) the
 * baseline sweeps run everywhere. */
static int use_avx2(void)
{
#ifdef ADI_BLOCK_AVX2
    return CPU_FEATURE_ACTIVE(AVX2);
#else
    return 0;
#endif
}

const char *ad_block_isa(void) { return use_avx2() ? "avx2" : "baseline"; }

int ad_block_run_rows(const ad_tape *t, ad_block *bk, const unsigned char *diff, int grad, size_t np,
                      const double *x, size_t xstride, const long *xcol, const double *fixed,
                      const long *cols, size_t nd, double *out, size_t stride, unsigned char *flags)
{
#ifdef ADI_BLOCK_AVX2
    if (use_avx2())
        return adi_block_sweep_avx2(t, bk, diff, grad, np, x, xstride, xcol, fixed, cols, nd, out, stride, flags);
#endif
    return adi_block_sweep_base(t, bk, diff, grad, np, x, xstride, xcol, fixed, cols, nd, out, stride, flags);
}
