/* alloc.c - growing arrays, and the hint that a large block be backed by
 * huge pages.
 *
 * A tape of millions of nodes lives in a few arrays of tens or hundreds of
 * megabytes.  Touched a 4 KB page at a time, each page is a page fault:
 * 257 000 faults for a gradient over 10^6 variables, about a third of its
 * time on this project's test machine (88 000 with the hint).  Linux's
 * transparent huge pages, when set to "madvise" (the common default), back
 * a range with 2 MB pages only when asked: adi_hint_large asks, for a
 * block of at least 4 MB.  It is a hint: refused or unsupported, the block
 * is used as it is, and errno is as it was.
 *
 * A grown block keeps the advice, but realloc moves it (mremap) to an
 * address that need not be 2 MB-aligned as before, and the kernel splits
 * the huge pages the move misaligns: a block grown by doubling ends about
 * half in huge pages. */
#define _GNU_SOURCE 1   /* madvise's MADV_HUGEPAGE */
#include <errno.h>
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
    uintptr_t page = (uintptr_t)ps;
    if (bytes > UINTPTR_MAX - (uintptr_t)p - page) return;   /* (no live block is so placed) */
    uintptr_t lo = (uintptr_t)p & ~(page - 1), hi = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
    int saved = errno;
    madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    errno = saved;
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

int adi_reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    if (need > ((size_t)-1) / elem) return -1;
    if (*cap <= ((size_t)-1) / 2 / elem && need < *cap * 2) need = *cap * 2;
    void *np = adi_realloc(*p, need * elem);
    if (!np) return -1;
    *p = np;
    *cap = need;
    return 0;
}
