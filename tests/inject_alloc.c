/* inject_alloc.c - an LD_PRELOAD shim that makes the N-th allocation fail
 * (ADCALC_FAIL_ALLOC=N, counted from the shim's constructor, i.e. from just
 * before main), so tests/oom.test can check that every allocation failure
 * ends in a clean "out of memory" error with exit status 5, never a crash.
 * With ADCALC_ALLOC_REPORT=1 it writes the number of allocations made to
 * stderr at exit, which tells the test how far to count.
 * Modelled on jq's tests/inject_errors.  Test-only: never installed. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long fail_at = -1, count = 0;
static int armed = 0;

__attribute__((constructor)) static void arm(void)
{
    const char *s = getenv("ADCALC_FAIL_ALLOC");
    if (s) fail_at = atol(s);
    armed = 1;
}

__attribute__((destructor)) static void report(void)
{
    const char *s = getenv("ADCALC_ALLOC_REPORT");
    if (s && *s == '1') {
        char buf[64];
        int n = snprintf(buf, sizeof buf, "inject_alloc: %ld allocations\n", count);
        if (write(2, buf, (size_t)n) < 0) return;
    }
}

static int should_fail(void)
{
    if (!armed) return 0;
    return ++count == fail_at;
}

void *malloc(size_t n)
{
    if (should_fail()) { errno = ENOMEM; return NULL; }
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    if (should_fail()) { errno = ENOMEM; return NULL; }
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    if (should_fail()) { errno = ENOMEM; return NULL; }
    return __libc_realloc(p, n);
}
