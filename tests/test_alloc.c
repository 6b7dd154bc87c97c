/* test_alloc.c - alloc.c: arrays grown by adi_grow keep their contents, and
 * a large block is asked to be backed by huge pages without being cut in
 * pieces.
 *
 * The advice changes a mapping's flags, and the kernel splits a mapping
 * where a range of other flags begins and ends.  A block that malloc
 * mapped for itself must stay one mapping, or realloc cannot move it with
 * mremap and copies it instead (the first version of the hint advised only
 * the block's whole 2 MB extents: every growth past 32 MB was a copy).  So
 * on Linux, for blocks from adi_malloc, adi_calloc and every growth of an
 * adi_grow array past ADI_LARGE: the block lies in one mapping of
 * /proc/self/smaps, and when the kernel has transparent huge pages, that
 * mapping is flagged "hg" (MADV_HUGEPAGE). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "unit.h"

static int have_smaps, have_thp;

/* the flags of the one mapping that holds [p, p+n): 1 and its VmFlags in
 * flags, or 0 when no single mapping holds it all */
static int one_mapping(const void *p, size_t n, char *flags, size_t fsz)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int inside = 0, found = 0;
    uintptr_t lo = (uintptr_t)p, hi = lo + n;
    flags[0] = 0;
    while (fgets(line, sizeof line, f)) {
        uintptr_t a, b;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = a <= lo && hi <= b;
            found |= inside;
        } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            size_t l = strlen(line + 8);
            if (l >= fsz) l = fsz - 1;
            memcpy(flags, line + 8, l);
            flags[l] = 0;
            inside = 0;
        }
    }
    fclose(f);
    return found;
}

/* a block of n bytes at p, from an allocation that asked for huge pages */
static void check_block(const char *what, const void *p, size_t n)
{
    if (!have_smaps) return;
    char flags[256];
    int one = one_mapping(p, n, flags, sizeof flags);
    CHECK(one == 1, "%s: %zu bytes at %p are not within one mapping", what, n, p);
    if (one == 1 && have_thp) CHECK(strstr(flags, " hg") != NULL, "%s: %zu bytes: no hg among VmFlags:%s", what, n, flags);
}

int main(void)
{
#ifdef __linux__
    have_smaps = access("/proc/self/smaps", R_OK) == 0;
    have_thp = access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
#endif
    if (!have_smaps) printf("# no /proc/self/smaps: the mappings are not checked, only the contents\n");
    else if (!have_thp) printf("# no transparent huge pages in this kernel: the hg flag is not checked\n");

    /* an array grown one element at a time to 64 MB keeps every element */
    uint32_t *a = NULL;
    size_t cap = 0, last = 0;
    const size_t total = (size_t)16 << 20;
    for (size_t i = 0; i < total; i++) {
        if (adi_grow((void **)&a, &cap, i + 1, sizeof *a) < 0) {
            printf("FAIL: adi_grow to %zu elements failed\n", i + 1);
            return 1;
        }
        a[i] = (uint32_t)(i * 2654435761u);
        if (cap != last) {
            last = cap;
            if (cap * sizeof *a >= ADI_LARGE) check_block("adi_grow", a, cap * sizeof *a);
            size_t bad = 0;
            for (size_t k = 0; k <= i; k++) bad += a[k] != (uint32_t)(k * 2654435761u);
            CHECK(bad == 0, "adi_grow to %zu elements: %zu elements changed", cap, bad);
        }
    }
    CHECK(cap >= total, "capacity %zu below %zu", cap, total);
    free(a);

    /* one large block each way */
    size_t n = (size_t)9 << 20;
    unsigned char *m = adi_malloc(n);
    CHECK(m != NULL, "adi_malloc(%zu) failed", n);
    if (m) {
        memset(m, 7, n);
        check_block("adi_malloc", m, n);
        m = adi_realloc(m, 4 * n);
        CHECK(m != NULL, "adi_realloc(%zu) failed", 4 * n);
        if (m) {
            size_t bad = 0;
            for (size_t k = 0; k < n; k++) bad += m[k] != 7;
            CHECK(bad == 0, "adi_realloc: %zu bytes changed", bad);
            check_block("adi_realloc", m, 4 * n);
        }
    }
    free(m);
    double *z = adi_calloc((size_t)1 << 20, sizeof *z);
    CHECK(z != NULL, "adi_calloc failed");
    if (z) {
        size_t bad = 0;
        for (size_t k = 0; k < ((size_t)1 << 20); k++) bad += z[k] != 0;
        CHECK(bad == 0, "adi_calloc: %zu elements not zero", bad);
        check_block("adi_calloc", z, ((size_t)1 << 20) * sizeof *z);
    }
    free(z);
    /* the hint takes any pointer and size, and NULL */
    adi_hint_large(NULL, (size_t)64 << 20);
    char small[64];
    adi_hint_large(small, sizeof small);

    return unit_done();
}
