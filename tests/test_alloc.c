/* test_alloc.c - alloc.c: arrays grown by adi_grow and adi_reserve keep
 * their contents, adi_reserve makes the room asked for (or twice the
 * capacity, when that is more, so a run of reservations copies no more
 * than doubling would), and
 * a large block is asked to be backed by huge pages without being cut in
 * pieces.
 *
 * The advice changes a mapping's flags, and the kernel splits a mapping
 * where a range of other flags begins and ends.  A block that malloc
 * mapped for itself must stay one mapping, or realloc cannot move it with
 * mremap and copies it instead (the first version of the hint advised only
 * the block's whole 2 MB extents: every growth past 32 MB was a copy).  So
 * on Linux, for blocks from adi_malloc, adi_calloc and every growth of an
 * adi_grow array past ADI_LARGE: a block that malloc mapped for itself
 * lies in one mapping of /proc/self/smaps, and when the kernel has
 * transparent huge pages, the block's mapping is flagged "hg"
 * (MADV_HUGEPAGE). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "alloc.h"
#include "unit.h"

static int have_smaps, have_thp;

/* the mapping of /proc/self/smaps that holds address p: its bounds into
 * *lo, *hi and its VmFlags into flags; 1, 0 if none holds p, -1 if smaps
 * cannot be read */
static int mapping_of(const void *p, uintptr_t *lo, uintptr_t *hi, char *flags, size_t fsz)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char *line = NULL;
    size_t cap = 0;
    int inside = 0, found = 0;
    flags[0] = 0;
    while (getline(&line, &cap, f) > 0) {
        uintptr_t a, b;
        char sep;
        /* a mapping's first line: "start-end perms ...", in hex; the other
         * lines are "Name:  value" */
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR "%c", &a, &b, &sep) == 3 && sep == ' ') {
            inside = a <= (uintptr_t)p && (uintptr_t)p < b;
            if (inside) {
                *lo = a;
                *hi = b;
                found = 1;
            }
        } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
            snprintf(flags, fsz, "%.*s", (int)(fsz - 1), line + 8);
            inside = 0;
        }
    }
    free(line);
    fclose(f);
    return found;
}

/* a block of n bytes at p, from an allocation that asked for huge pages:
 * it is flagged hg and, when malloc mapped it for itself (its mapping
 * starts in p's page), that mapping holds all of it.  (A block in malloc's
 * heap shares the heap's mappings, which the advice may leave in pieces:
 * harmless there, where realloc never mremaps.) */
static void check_block(const char *what, const void *p, size_t n)
{
    if (!have_smaps) return;
    char flags[256];
    uintptr_t lo = 0, hi = 0, page = (uintptr_t)sysconf(_SC_PAGESIZE);
    int r = mapping_of(p, &lo, &hi, flags, sizeof flags);
    CHECK(r >= 0, "%s: cannot read /proc/self/smaps", what);
    CHECK(r != 0, "%s: no mapping holds %p", what, p);
    if (r != 1) return;
    if (lo == ((uintptr_t)p & ~(page - 1)))
        CHECK((uintptr_t)p + n <= hi, "%s: %zu bytes at %p are not within their own mapping (it ends %zu bytes in)",
              what, n, p, (size_t)(hi - (uintptr_t)p));
    if (have_thp) CHECK(strstr(flags, " hg") != NULL, "%s: %zu bytes: no hg among VmFlags:%s", what, n, flags);
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

    /* adi_reserve: the room asked for, or twice the old when that is more
     * (a run of small reservations does not copy at every one); the
     * contents kept */
    uint32_t *r = NULL;
    size_t rcap = 0;
    CHECK(adi_grow((void **)&r, &rcap, 100, sizeof *r) == 0 && rcap == 128, "adi_grow to 100: capacity %zu", rcap);
    if (r) {
        for (size_t i = 0; i < 100; i++) r[i] = (uint32_t)i;
        CHECK(adi_reserve((void **)&r, &rcap, 120, sizeof *r) == 0 && rcap == 128,
              "adi_reserve within the capacity changed it to %zu", rcap);
        CHECK(adi_reserve((void **)&r, &rcap, 129, sizeof *r) == 0 && rcap == 256,
              "adi_reserve(129) from 128: capacity %zu, not 256", rcap);
        size_t big = (ADI_LARGE / sizeof *r) * 3 + 5;
        CHECK(adi_reserve((void **)&r, &rcap, big, sizeof *r) == 0 && rcap == big,
              "adi_reserve(%zu) from 256: capacity %zu, not exactly that", big, rcap);
        size_t bad = 0;
        for (size_t i = 0; i < 100; i++) bad += r[i] != (uint32_t)i;
        CHECK(bad == 0, "adi_reserve: %zu of 100 elements changed", bad);
        r[big - 1] = 1;   /* (the room is there: ASan and valgrind would see it otherwise) */
        check_block("adi_reserve", r, big * sizeof *r);
        uint32_t *keep = r;
        CHECK(adi_reserve((void **)&r, &rcap, (size_t)-1 / 2, sizeof *r) < 0 && r == keep && rcap == big,
              "adi_reserve of an impossible size: not -1 with the array kept");
    }
    free(r);

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
