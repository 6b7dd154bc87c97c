/* inject_alloc.c - an LD_PRELOAD shim that makes the N-th allocation fail
 * (ADCALC_FAIL_ALLOC=N, counted from the shim's constructor, i.e. from just
 * before main), so tests/oom.test can check that every allocation failure
 * ends in a clean "out of memory" error with exit status 5, never a crash.
 * With ADCALC_ALLOC_REPORT=1 it writes the number of allocations made to
 * stderr at exit, which tells the test how far to count.
 *
 * ADCALC_SWEEP=lines (or rows:B for binary rows of B bytes) does the whole
 * sweep in one process: before main, the shim forks a complete run, then
 * one run for each N from 1 to the number of allocations it made, each
 * with the N-th failing, and judges each against the complete run (below,
 * judge()).  A fork costs a tenth of a fork and exec and a shell's checks,
 * which made the sweeps a quarter of an hour of the suite.  It prints one
 * line, "inject_alloc: N allocations, all handled" or what went wrong at
 * which N, and exits 0 or 1 without running main itself.
 * Modelled on jq's tests/inject_errors.  Test-only: never installed. */
#define _GNU_SOURCE
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static long fail_at = -1, count = 0;
static int armed = 0;
static int count_fd = -1;   /* a sweep's complete run writes its count here */

static void sweep(const char *mode);

__attribute__((constructor)) static void arm(void)
{
    const char *s = getenv("ADCALC_FAIL_ALLOC");
    if (s) fail_at = atol(s);
    armed = 1;
    s = getenv("ADCALC_SWEEP");
    if (s) sweep(s);             /* returns only in a run, to go on to main */
}

__attribute__((destructor)) static void report(void)
{
    const char *s = getenv("ADCALC_ALLOC_REPORT");
    if (count_fd >= 0 && write(count_fd, &count, sizeof count) < 0) return;
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

/* ---- the sweep (ADCALC_SWEEP) ---- */

struct buf { char *d; size_t n; };

static int slurp(int fd, struct buf *b)  /* the whole of memfd fd */
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end < 0 || lseek(fd, 0, SEEK_SET) < 0) return -1;
    b->n = (size_t)end;
    b->d = __libc_malloc(b->n + 1);
    if (!b->d) return -1;
    for (size_t got = 0; got < b->n;) {
        ssize_t r = read(fd, b->d + got, b->n - got);
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    b->d[b->n] = 0;
    return 0;
}

static int prefix(const struct buf *a, const struct buf *b) { return a->n <= b->n && memcmp(a->d, b->d, a->n) == 0; }
static int same(const struct buf *a, const struct buf *b) { return a->n == b->n && memcmp(a->d, b->d, a->n) == 0; }

static int out_fd, err_fd;
static off_t in_at;             /* where stdin starts, when it is a file */

/* run one: 1 in the child (go on to main, the N-th allocation failing),
 * 0 in the parent with its status in *rc, -1 if it could not be run */
static int run(long n, int *rc, int want_count, long *total)
{
    int p[2] = {-1, -1};
    if (ftruncate(out_fd, 0) || ftruncate(err_fd, 0) || lseek(out_fd, 0, SEEK_SET) < 0 ||
        lseek(err_fd, 0, SEEK_SET) < 0 || (in_at >= 0 && lseek(0, in_at, SEEK_SET) < 0) ||
        (want_count && pipe(p)))
        return -1;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0) _exit(127);
        close(out_fd); close(err_fd);
        if (want_count) { close(p[0]); count_fd = p[1]; }
        fail_at = n; count = 0;
        return 1;
    }
    int st;
    if (want_count) close(p[1]);
    if (waitpid(pid, &st, 0) != pid) return -1;
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (want_count) {
        ssize_t r = read(p[0], total, sizeof *total);
        close(p[0]);
        if (r != (ssize_t)sizeof *total) *total = -1;
    }
    return 0;
}

static void line(const struct buf *b, size_t at, char *to, size_t cap)  /* the line at b->d[at] */
{
    size_t k = 0;
    while (at + k < b->n && b->d[at + k] != '\n' && k + 1 < cap) { to[k] = b->d[at + k]; k++; }
    to[k] = 0;
}

/* judge a run whose N-th allocation failed, against the complete run:
 * NULL when it is handled, else what is wrong.  Handled: the run is the
 * complete run's (the failure was absorbed, e.g. inside stdio), or it
 *  - exits with status 5,
 *  - has on stdout only what the complete run prints first: whole lines
 *    (or whole rows of B bytes),
 *  - and on stderr an out-of-memory message, after nothing but what the
 *    complete run prints first (a failed expression's own diagnostic
 *    precedes the failed allocation of its record). */
static const char *judge(int rc, const struct buf *out, const struct buf *err, int base_rc,
                         const struct buf *bout, const struct buf *berr, long rows, regex_t *memory,
                         char *why, size_t cap)
{
    char l[512];
    if (rc == base_rc && same(out, bout) && same(err, berr)) return NULL;
    line(err, 0, l, sizeof l);
    if (rc != 5) { snprintf(why, cap, "rc=%d stderr='%s'", rc, l); return why; }
    if (!prefix(out, bout) || (rows ? out->n % (size_t)rows != 0 : out->n && out->d[out->n - 1] != '\n')) {
        snprintf(why, cap, "stdout is not whole %s of the complete run (%zu bytes)", rows ? "rows" : "lines", out->n);
        return why;
    }
    for (size_t at = 0; at < err->n;) {
        line(err, at, l, sizeof l);
        if (regexec(memory, l, 0, NULL, 0) == 0) {
            struct buf before = {err->d, at};
            if (prefix(&before, berr)) return NULL;
            snprintf(why, cap, "stderr before the memory error is not the complete run's");
            return why;
        }
        const char *nl = memchr(err->d + at, '\n', err->n - at);
        at = nl ? (size_t)(nl - err->d) + 1 : err->n;
    }
    line(err, 0, l, sizeof l);
    snprintf(why, cap, "no out-of-memory message: '%s'", l);
    return why;
}

static void sweep(const char *mode)
{
    long rows = strncmp(mode, "rows:", 5) == 0 ? atol(mode + 5) : 0;
    regex_t memory;
    char why[800];
    int base_rc, rc;
    long total = -1, ignored;
    struct buf bout, berr, out, err;
    unsetenv("ADCALC_SWEEP");   /* not for the runs, nor for what they run */
    in_at = lseek(0, 0, SEEK_CUR);
    out_fd = memfd_create("out", 0);
    err_fd = memfd_create("err", 0);
    if (out_fd < 0 || err_fd < 0 ||
        regcomp(&memory, "^adcalc: .*memory.*\\[ad/io\\]$|^\\{\"error\": \\{\"tag\": \"ad/io\", \"message\": \"[^\"]*memory",
                REG_EXTENDED | REG_NOSUB))
        { dprintf(2, "inject_alloc: cannot set up the sweep\n"); _exit(1); }
    int r = run(0, &base_rc, 1, &total);
    if (r == 1) return;                      /* the complete run */
    if (r < 0 || total <= 0 || slurp(out_fd, &bout) || slurp(err_fd, &berr))
        { dprintf(2, "inject_alloc: the complete run: no count of allocations (%ld)\n", total); _exit(1); }
    for (long n = 1; n <= total; n++) {
        r = run(n, &rc, 0, &ignored);
        if (r == 1) return;                  /* the run whose N-th allocation fails */
        if (r < 0 || slurp(out_fd, &out) || slurp(err_fd, &err))
            { dprintf(2, "inject_alloc: N=%ld: could not run\n", n); _exit(1); }
        const char *bad = judge(rc, &out, &err, base_rc, &bout, &berr, rows, &memory, why, sizeof why);
        free(out.d); free(err.d);
        if (bad) { dprintf(2, "inject_alloc: N=%ld: %s\n", n, bad); _exit(1); }
    }
    dprintf(2, "inject_alloc: %ld allocations, all handled\n", total);
    _exit(0);
}
