/* jit.c - --jit: batch mode's block replay compiled to machine code.
 *
 * The engine writes the plan's block replay as C (ad_emit_block_c); this
 * file compiles it with the system's C compiler ($CC, else cc) into a
 * shared object, keeps that in a cache, loads it and hands its function
 * to the blocks (ad_block_use).  The compiler keeps IEEE semantics: no
 * -ffast-math, and -ffp-contract=off so that no a*b+c is fused.  Whatever
 * goes wrong -- no compiler, a compiler error, no cache, a damaged entry
 * -- the interpreter replays the rows, and --stats says why.
 *
 * The cache is $XDG_CACHE_HOME/adcalc (else ~/.cache/adcalc): one file per
 * key, the key a hash of the C text (its runtime, the same for every
 * tape, as its checksum), the compiler's command and adcalc's version.
 * An entry is written under a temporary name and renamed into place, so
 * no run sees half of one, and two runs compiling the same tape
 * at once both end with a whole entry.  An entry ends with a trailer, a
 * checksum of its bytes, checked before it is loaded; the object defines
 * its key, checked after.  A damaged or foreign entry is compiled again
 * and replaced.  Without a cache directory the object is built in a
 * temporary directory and removed once loaded. */
#define _GNU_SOURCE 1   /* mkstemps */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_DLOPEN
#include <dlfcn.h>
#include <spawn.h>
#endif
#include "jit.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

/* the compiler's options after its command ($CC may hold options too):
 * -O3 for the lane loops' vectoriser; no-trapping-math only lets it
 * compute both arms of a choice (nothing reads the exception flags): the
 * block replay's own options (block_sweep.c).  Not -fno-math-errno: with
 * it GCC rewrites pow(x, -1) as 1/x, not the C library's last bit; and
 * -fno-fast-math after $CC's words, which may hold -ffast-math, and
 * before the others, which it would undo (it turns trapping math on).
 * -fopenmp-simd honours emit_block.c's `omp simd` marks (no OpenMP
 * runtime, no threads). */
static const char *const cflags[] = {"-std=c99", "-O3", "-fno-fast-math", "-fno-trapping-math", "-ffp-contract=off",
                                     "-fopenmp-simd", "-fPIC", "-shared", NULL};

/* FNV-1a's step, 64 bits, from seed h, eight bytes at a time (a byte at a
 * time was a tenth of a --jit run's start-up), the high half folded back
 * down so that every byte reaches every bit.  Each step is a bijection of
 * h (xor, a product with an odd number, x ^ x >> 32), so a change within
 * one eight-byte word (a damaged byte, say) always changes the sum; wider
 * changes collide as in any 64-bit hash, rarely.  The sum depends on
 * where the steps fall: hash whole texts. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, sizeof w);
        h = (h ^ w) * 0x100000001b3u;
        h ^= h >> 32;
    }
    for (; i < n; i++) h = (h ^ s[i]) * 0x100000001b3u;
    return h;
}

/* the checksum (fnv from seed h) of the first n bytes of the file at
 * fd, read from where it stands in pieces of a multiple of 8 bytes (so
 * the steps fall as over the whole text), into *h; 0, or -1 (a read
 * error, a file shorter than n).  Not a buffer of the whole object: its
 * fresh pages, a page fault each, cost a warm run more than the reads. */
static int file_sum(int fd, size_t n, uint64_t *h)
{
    unsigned char piece[4096];
    while (n > 0) {
        ssize_t k = read(fd, piece, n < sizeof piece ? n : sizeof piece);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return errno = k < 0 ? errno : EIO, -1;
        *h = fnv(*h, piece, (size_t)k);
        n -= (size_t)k;
        /* (a short read that splits a word: taken as damaged, compiled again) */
        if (n > 0 && k % 8) return errno = EIO, -1;
    }
    return 0;
}
#define FNV_SEED 0xcbf29ce484222325u

/* the trailer of an entry: its bytes' checksum, TRAILER_LEN bytes */
#define TRAILER "\nadcalc-jit %016llx\n"
#define TRAILER_LEN (int)(sizeof "\nadcalc-jit \n" - 1 + 16)
/* the line defining the object's key, after the C text */
#define KEY_LINE 80

void cli_jit_free(cli_jit *J)
{
#ifdef HAVE_DLOPEN
    if (J->handle) dlclose(J->handle);
#endif
    J->handle = NULL;
    J->fn = NULL;
}

#ifndef HAVE_DLOPEN
int cli_jit_load(cli_jit *J, const ad_plan *p, const ad_tape *t)
{
    (void)p;
    (void)t;
    J->fn = NULL;
    snprintf(J->note, sizeof J->note, "not used: this adcalc was built without dlopen");
    return 0;
}
#else

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* the compiler's command split at blanks into argv[0..), then the flag of
 * the lanes' instruction set: *n words (0: a blank command), *lanes */
static char **compiler(char **buf, size_t *n, int *lanes)
{
    const char *cc = getenv("CC");
    if (!cc || !*cc) cc = "cc";
    size_t len = strlen(cc), words = 0;
    *buf = malloc(len + 1);
    char **argv = malloc((len / 2 + 2 + sizeof cflags / sizeof *cflags + 6) * sizeof *argv);
    if (!*buf || !argv) {
        free(*buf);
        free(argv);
        return NULL;
    }
    memcpy(*buf, cc, len + 1);
    for (char *s = *buf; *s;) {
        while (*s == ' ' || *s == '\t') *s++ = 0;
        if (!*s) break;
        argv[words++] = s;
        while (*s && *s != ' ' && *s != '\t') s++;
    }
    /* the lanes' instruction set: AVX2 where the block replay uses it */
    *lanes = strcmp(ad_block_isa(), "avx2") == 0 ? 4 : 2;
    if (words && *lanes == 4) argv[words++] = "-mavx2";
    *n = words;
    return argv;
}

/* the object at path, loaded when it is a whole entry with this key;
 * else NULL, with why (a static text) */
static void *load(const char *path, const char *key, const char **why)
{
    /* never blocking (a FIFO), never through a symbolic link, a regular file */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        *why = errno == ENOENT ? "absent" : "damaged";
        return NULL;
    }
    /* its bytes' checksum, then the trailer that must hold it, then its end */
    uint64_t h = FNV_SEED;
    char want[TRAILER_LEN + 1], have[TRAILER_LEN + 1];
    int bad = fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < TRAILER_LEN || st.st_size > ((off_t)128 << 20) ||
              file_sum(fd, (size_t)st.st_size - TRAILER_LEN, &h) < 0 ||
              read(fd, have, sizeof have) != TRAILER_LEN;
    if (!bad) snprintf(want, sizeof want, TRAILER, (unsigned long long)h);
    if (bad || memcmp(want, have, TRAILER_LEN) != 0) {
        close(fd);
        *why = "damaged";
        return NULL;
    }
    /* the very file checked, through its descriptor; by its name only
     * where /proc is absent (entries are renamed into place whole).  The
     * test of /proc comes after a failure, not before every load: it is
     * a path lookup that cost a warm run 7.5% of its time */
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    void *lib = dlopen(self, RTLD_NOW | RTLD_LOCAL);
    if (!lib && access(self, F_OK) != 0) lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    const char *k2 = lib ? dlsym(lib, "adcalc_jit_key") : NULL;
    if (!lib || !k2 || strcmp(k2, key) != 0 || !dlsym(lib, "adcalc_jit")) {
        if (lib) dlclose(lib);
        *why = "not loadable";
        return NULL;
    }
    return lib;
}

/* runs argv; its exit status, -1 with errno when it cannot start, or -2
 * when it ran out of time */
static int run(char *const argv[])
{
    extern char **environ;
    posix_spawn_file_actions_t fa;
    /* (its output never reaches ours: stdin, stdout and stderr /dev/null) */
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    pid_t pid;
    if ((rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0)) == 0 &&
        (rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0)) == 0 &&
        (rc = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)) == 0)
        rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* waited for CLI_JIT_TIMEOUT seconds at most, then killed */
    int st;
    double end = now() + CLI_JIT_TIMEOUT;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) return -1;
        if (now() > end) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
            return -2;
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* appends the trailer to the object at path; 0 or -1 */
static int seal(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    uint64_t h = FNV_SEED;
    char t[TRAILER_LEN + 1];
    int bad = fstat(fd, &st) != 0 || st.st_size > ((off_t)128 << 20) || file_sum(fd, (size_t)st.st_size, &h) < 0 ||
              snprintf(t, sizeof t, TRAILER, (unsigned long long)h) != TRAILER_LEN ||
              write(fd, t, TRAILER_LEN) != TRAILER_LEN;
    return close(fd) != 0 || bad ? -1 : 0;
}

/* the cache directory, made (0700) when absent, into dir; 0 or -1 (errno,
 * or 0: a directory not the user's own, or that others may write to) */
static int cache_dir(char *dir, size_t size)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/') n = snprintf(dir, size, "%s/adcalc", xdg);
    else if (home && home[0] == '/') n = snprintf(dir, size, "%s/.cache/adcalc", home);
    else return snprintf(dir, size, "$HOME/.cache/adcalc"), errno = ENOENT, -1;
    if (n < 0 || (size_t)n >= size) return errno = ENAMETOOLONG, -1;
    /* when absent: each missing directory on the way, then the last (a
     * warm run makes no mkdir calls: four failing ones were a tenth of its
     * --jit start-up) */
    struct stat st;
    if (stat(dir, &st) < 0) {
        for (char *s = dir + 1; *s; s++) {
            if (*s != '/') continue;
            *s = 0;
            int rc = mkdir(dir, 0700);
            *s = '/';
            if (rc < 0 && errno != EEXIST) return -1;
        }
        if (mkdir(dir, 0700) < 0 && errno != EEXIST) return -1;
        if (stat(dir, &st) < 0) return -1;
    }
    /* the code loaded from it runs as this user: only a directory of this
     * user's that no one else may write to */
    if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) return errno = 0, -1;
    return 0;
}

/* what emit (ad_emit_block_c or ad_emit_block_key) writes for plan p, into
 * *src (malloc'd, *len bytes), or -1 with *src NULL */
static int emit_text(int (*emit)(FILE *, const ad_plan *, const char *, int), const ad_plan *p, int lanes,
                     char **src, size_t *len)
{
    *src = NULL;
    FILE *f = open_memstream(src, len);
    if (!f) return -1;
    int rc = emit(f, p, "adcalc_jit", lanes);
    if (fclose(f) != 0 || rc != 0) {
        free(*src);
        *src = NULL;
        return -1;
    }
    return 0;
}

/* the key's two sums, taken as the key's text is written: on a cache
 * hit no text is kept (keeping the whole of it, 70 KB for F2, cost a
 * warm --jit run more than its compiled rows saved, in page faults).
 * fnv's steps fall where they would over the whole text: a word split
 * between two writes waits in tail. */
typedef struct {
    uint64_t h1, h2;
    unsigned char tail[8];
    size_t ntail;
} text_sums;

static ssize_t sums_write(void *cookie, const char *buf, size_t n)
{
    text_sums *S = cookie;
    size_t i = 0;
    while (S->ntail > 0 && S->ntail < 8 && i < n) S->tail[S->ntail++] = (unsigned char)buf[i++];
    if (S->ntail == 8) {
        S->h1 = fnv(S->h1, S->tail, 8);
        S->h2 = fnv(S->h2, S->tail, 8);
        S->ntail = 0;
    }
    size_t words = (n - i) & ~(size_t)7;
    S->h1 = fnv(S->h1, buf + i, words);
    S->h2 = fnv(S->h2, buf + i, words);
    for (i += words; i < n; i++) S->tail[S->ntail++] = (unsigned char)buf[i];
    return (ssize_t)n;
}

/* the key of plan p's C text (the runtime in it as its checksum:
 * ad_emit_block_key), compiled by argv[0..nw) with cflags, into key (33
 * bytes); 0 or -1 */
static int text_key(const ad_plan *p, int lanes, char *const *argv, size_t nw, char *key)
{
    text_sums S = {FNV_SEED, FNV_SEED ^ 0x9e3779b97f4a7c15u, {0}, 0};
#ifdef HAVE_FOPENCOOKIE
    FILE *f = fopencookie(&S, "w", (cookie_io_functions_t){NULL, sums_write, NULL, NULL});
    if (!f) return -1;
    char buf[4096];   /* (stdio's own would be a page fault of start-up) */
    setvbuf(f, buf, _IOFBF, sizeof buf);
    int rc = ad_emit_block_key(f, p, "adcalc_jit", lanes);
    if (fclose(f) != 0 || rc != 0) return -1;
#else
    char *src = NULL;
    size_t len;
    if (emit_text(ad_emit_block_key, p, lanes, &src, &len) < 0) return -1;
    sums_write(&S, src, len);
    free(src);
#endif
    uint64_t h1 = fnv(S.h1, S.tail, S.ntail), h2 = fnv(S.h2, S.tail, S.ntail);
    for (size_t i = 0; i < nw; i++) h1 = fnv(h1, argv[i], strlen(argv[i]) + 1);
    for (size_t i = 0; cflags[i]; i++) h1 = fnv(h1, cflags[i], strlen(cflags[i]) + 1);
    h1 = fnv(h1, PACKAGE_VERSION, sizeof PACKAGE_VERSION);
    snprintf(key, 33, "%016llx%016llx", (unsigned long long)h1, (unsigned long long)h2);
    return 0;
}

/* the C text of the plan: into *src (malloc'd, room for the key's line
 * after it), or -1 */
static int source(const ad_plan *p, int lanes, char **src, size_t *len)
{
    if (emit_text(ad_emit_block_c, p, lanes, src, len) < 0) return -1;
    char *more = realloc(*src, *len + KEY_LINE);
    if (!more) {
        free(*src);
        *src = NULL;
        return -1;
    }
    *src = more;
    return 0;
}

/* the temporary files a compilation left in dir when its adcalc was
 * killed (jit-KEY-XXXXXX.c and .so, as build names them), removed once
 * they are older than any live compilation can be: ten times the
 * compiler's time limit.  Best effort: a file that cannot be removed
 * stays. */
static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    time_t old = time(NULL) - 10 * CLI_JIT_TIMEOUT;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        size_t len = strlen(n), hex = 0;
        while (hex < 32 && len > 4 + hex && strchr("0123456789abcdef", n[4 + hex])) hex++;
        /* jit- (4), the key (32), -XXXXXX (7), then .c or .so */
        int temp = strncmp(n, "jit-", 4) == 0 && hex == 32 && len > 43 && n[36] == '-' &&
                   (strcmp(n + 43, ".c") == 0 || strcmp(n + 43, ".so") == 0);
        char path[4400];
        struct stat st;
        if (temp && (size_t)snprintf(path, sizeof path, "%s/%s", dir, n) < sizeof path && lstat(path, &st) == 0 &&
            S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_mtime < old)
            unlink(path);
    }
    closedir(d);
}

/* compiles src into the entry path (dir: where its temporary files go);
 * 0, or the note's text in J and 1 */
static int build(cli_jit *J, char **argv, size_t nw, const char *dir, const char *key, const char *src, size_t len,
                 const char *path, double *secs)
{
    char csrc[4200], obj[4200];
    sweep(dir);
    snprintf(csrc, sizeof csrc, "%s/jit-%s-XXXXXX.c", dir, key);
    snprintf(obj, sizeof obj, "%s/jit-%s-XXXXXX.so", dir, key);
    int fc = mkstemps(csrc, 2), fo = fc < 0 ? -1 : mkstemps(obj, 3);
    if (fc < 0 || fo < 0) {
        snprintf(J->note, sizeof J->note, "not used: cannot create a file in %.200s: %s", dir, strerror(errno));
        if (fc >= 0) close(fc), unlink(csrc);
        return 1;
    }
    close(fo);
    FILE *f = fdopen(fc, "wb");
    int bad = !f || fwrite(src, 1, len, f) != len;
    if (f ? fclose(f) != 0 : close(fc) != 0) bad = 1;
    if (bad) {
        snprintf(J->note, sizeof J->note, "not used: cannot write %.200s", csrc);
        unlink(csrc), unlink(obj);
        return 1;
    }
    size_t a = nw;
    for (size_t i = 0; cflags[i]; i++) argv[a++] = (char *)cflags[i];
    argv[a++] = "-o";
    argv[a++] = obj;
    argv[a++] = csrc;
    argv[a++] = "-lm";
    argv[a] = NULL;
    double t0 = now();
    int st = run(argv);
    *secs = now() - t0;
    unlink(csrc);
    if (st != 0) {
        if (st == -2)
            snprintf(J->note, sizeof J->note, "not used: %s took more than %d s, and was stopped", argv[0], CLI_JIT_TIMEOUT);
        else if (st < 0) snprintf(J->note, sizeof J->note, "not used: cannot run %s: %s", argv[0], strerror(errno));
        else snprintf(J->note, sizeof J->note, "not used: %s failed (exit status %d)", argv[0], st);
        unlink(obj);
        return 1;
    }
    if (seal(obj) < 0 || rename(obj, path) < 0) {
        snprintf(J->note, sizeof J->note, "not used: cannot write %.200s: %s", path, strerror(errno));
        unlink(obj);
        return 1;
    }
    return 0;
}

int cli_jit_load(cli_jit *J, const ad_plan *p, const ad_tape *t)
{
    J->fn = NULL;
    J->handle = NULL;
    if (ad_tape_size(t) > CLI_JIT_MAX_NODES) {
        snprintf(J->note, sizeof J->note, "not used: the tape has %zu nodes, more than --jit compiles (%d)",
                 ad_tape_size(t), CLI_JIT_MAX_NODES);
        return 0;
    }
    /* the compiled function keeps a value and an adjoint per node in its
     * frame (16 bytes a node measured for F5, 83 for a tape of calls):
     * at most a quarter of the stack every thread has (ulimit -s, which
     * glibc's threads get too; 2 MB when it is unlimited) */
    struct rlimit rl;
    size_t stack = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (size_t)rl.rlim_cur : (size_t)2 << 20;
    if (ad_tape_size(t) * CLI_JIT_FRAME_PER_NODE > stack / 4) {
        snprintf(J->note, sizeof J->note, "not used: the tape's %zu nodes need about %zu KB of stack, more than a quarter of"
                 " the %zu KB of ulimit -s", ad_tape_size(t), ad_tape_size(t) * CLI_JIT_FRAME_PER_NODE / 1024, stack / 1024);
        return 0;
    }
    char *ccbuf, *src = NULL;
    size_t nw, len;
    int lanes;
    char **argv = compiler(&ccbuf, &nw, &lanes);
    if (!argv) return -1;
    int rc = -1;
    if (nw == 0) {
        snprintf(J->note, sizeof J->note, "not used: $CC is blank");
        rc = 0;
        goto done;
    }
    /* the key: the text, the compiler's command and options, adcalc's version */
    char key[40];
    if (text_key(p, lanes, argv, nw, key) < 0) goto done;
    rc = 0;
    char dir[4096], path[4200];
    int cached = cache_dir(dir, sizeof dir) == 0;
    char nocache[300] = "";
    if (!cached)
        snprintf(nocache, sizeof nocache, "%.200s: %s", dir,
                 errno ? strerror(errno) : "not this user's own, or others may write to it");
    if (!cached) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/adcalc-jit-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            snprintf(J->note, sizeof J->note, "not used: no cache, and cannot create %.200s: %s", dir, strerror(errno));
            goto done;
        }
    }
    snprintf(path, sizeof path, "%s/jit-%s.so", dir, key);
    const char *why = "absent";
    if (cached && (J->handle = load(path, key, &why)) != NULL) {
        snprintf(J->note, sizeof J->note, "loaded %.300s", path);
    } else {
        double secs = 0;
        /* the text again, kept this time, with the key's line after it */
        if (source(p, lanes, &src, &len) < 0) rc = -1;
        else len += (size_t)snprintf(src + len, KEY_LINE, "const char adcalc_jit_key[] = \"%s\";\n", key);
        if (rc == 0 && build(J, argv, nw, dir, key, src, len, path, &secs) == 0) {
            const char *why2;
            J->handle = load(path, key, &why2);
            if (J->handle && cached)
                snprintf(J->note, sizeof J->note, "compiled in %.3f s (%s), cached as %.200s%s", secs, argv[0], path,
                         strcmp(why, "absent") ? " (the entry there was damaged)" : "");
            else if (J->handle)
                snprintf(J->note, sizeof J->note, "compiled in %.3f s (%s), not cached: %s", secs, argv[0], nocache);
            else snprintf(J->note, sizeof J->note, "not used: the compiled object is %s", why2);
        }
        if (!cached) {
            unlink(path);
            rmdir(dir);
        }
    }
    if (J->handle) {
        /* (ISO C has no cast from void * to a function pointer: POSIX's way) */
        void *sym = dlsym(J->handle, "adcalc_jit");
        memcpy(&J->fn, &sym, sizeof sym);
    }
done:
    free(src);
    free(argv);
    free(ccbuf);
    return rc;
}
#endif
