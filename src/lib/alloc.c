/* alloc.c - growing arrays, and the hint that a large block be backed by
 * huge pages.
 *
 * A tape of millions of nodes lives in a few arrays of tens or hundreds of
 * megabytes.  Touched a 4 KB page at a time, each is one page fault per
 * page: 255 000 faults for a gradient over 10^6 variables, a third of its
 * time on this project's test machine.  Linux's transparent huge pages
 * (when set to "madvise", the common default) back a range with 2 MB
 * pages only when asked: adi_hint_large asks, for a block of at least
 * 4 MB.  It is a hint: refused or unsupported, the
 * block is used as it is. */
#define _GNU_SOURCE 1   /* madvise's MADV_HUGEPAGE */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "alloc.h"

void adi_hint_large(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* the block's pages whole, not its 2 MB extents: the advice splits a
     * mapping where it starts and ends, and a block that malloc mapped for
     * itself must stay one mapping, or realloc cannot mremap it and copies */
    long ps = sysconf(_SC_PAGESIZE);
    if (!p || bytes < ADI_LARGE || ps <= 0) return;
    uintptr_t page = (uintptr_t)ps, lo = (uintptr_t)p & ~(page - 1);
    uintptr_t hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

int adi_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > ((size_t)-1) / 2 / elem) return -1;
        nc *= 2;
    }
    void *np = adi_realloc(*p, nc * elem);
    if (!np) return -1;
    *p = np;
    *cap = nc;
    return 0;
}
