/* inject_read.c - an LD_PRELOAD shim that makes reading fail part way:
 * once the program has read ADCALC_FAIL_READ_AFTER bytes (or more) from
 * standard input through fread, getline or fgetc, the descriptor under
 * stdin is replaced by a directory's, so the next read(2) stdio makes
 * fails (EISDIR) and stdio sets the stream's error flag, as a disk error
 * or a connection reset does.  Used by tests/readerr.test. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

static long after = -1, seen = 0;
static int done = 0;

__attribute__((constructor)) static void arm(void)
{
    const char *s = getenv("ADCALC_FAIL_READ_AFTER");
    if (s) after = atol(s);
}

static void count(FILE *f, long n)
{
    if (f != stdin || after < 0 || done) return;
    seen += n;
    if (seen < after) return;
    int fd = open("/", O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        dup2(fd, fileno(stdin));
        close(fd);
    }
    done = 1;
}

size_t fread(void *p, size_t size, size_t n, FILE *f)
{
    static size_t (*real)(void *, size_t, size_t, FILE *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "fread");
    count(f, 0);
    size_t got = real(p, size, n, f);
    count(f, (long)(got * size));
    return got;
}

ssize_t getline(char **line, size_t *cap, FILE *f)
{
    static ssize_t (*real)(char **, size_t *, FILE *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "getline");
    count(f, 0);
    ssize_t got = real(line, cap, f);
    if (got > 0) count(f, got);
    return got;
}

int fgetc(FILE *f)
{
    static int (*real)(FILE *);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "fgetc");
    int c = real(f);
    if (c != EOF) count(f, 1);
    return c;
}
