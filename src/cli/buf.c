/* buf.c - the command's output buffer, and its arrays' growth (buf.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "buf.h"
#include "adcalc.h"

void cli_buf_free(cli_buf *b)
{
    if (!b->lent) free(b->p);
    memset(b, 0, sizeof *b);
}

void cli_buf_lend(cli_buf *b, char *storage, size_t n)
{
    memset(b, 0, sizeof *b);
    b->p = storage;
    b->cap = n;
    b->lent = 1;
}

char *cli_buf_room(cli_buf *b, size_t n)
{
    if (b->nomem) return NULL;
    if (b->cap - b->len <= n) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc - b->len <= n) {
            if (nc > ((size_t)-1) / 2) { b->nomem = 1; return NULL; }
            nc *= 2;
        }
        char *np = b->lent ? malloc(nc) : realloc(b->p, nc);
        if (!np) { b->nomem = 1; return NULL; }
        if (b->lent) memcpy(np, b->p, b->len);
        b->lent = 0;
        b->p = np;
        b->cap = nc;
    }
    return b->p + b->len;
}

void cli_buf_put(cli_buf *b, const void *s, size_t n)
{
    char *at = cli_buf_room(b, n);
    if (!at) return;
    memcpy(at, s, n);
    b->len += n;
}

void cli_buf_puts(cli_buf *b, const char *s) { cli_buf_put(b, s, strlen(s)); }
void cli_buf_putc(cli_buf *b, char c) { cli_buf_put(b, &c, 1); }

void cli_buf_printf(cli_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) { b->nomem = 1; return; }
    if ((size_t)n < sizeof small) { cli_buf_put(b, small, (size_t)n); return; }
    char *at = cli_buf_room(b, (size_t)n + 1);
    if (!at) return;
    va_start(ap, fmt);
    vsnprintf(at, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void cli_buf_number(cli_buf *b, double x, int prec)
{
    char num[40];
    cli_buf_puts(b, ad_fmt_number(num, sizeof num, x, prec));
}

void cli_buf_json_number(cli_buf *b, double x, int prec)
{
    char num[40];
    cli_buf_puts(b, ad_fmt_json_number(num, sizeof num, x, prec));
}

void cli_buf_json_string(cli_buf *b, const char *s, size_t n)
{
    cli_buf_putc(b, '"');
    if (n > ((size_t)-1) / 8) { b->nomem = 1; return; }
    char *at = cli_buf_room(b, 6 * n);
    if (!at) return;
    b->len += ad_json_escape(at, s, n);
    cli_buf_putc(b, '"');
}

int cli_buf_flush(cli_buf *b, FILE *f)
{
    int bad = b->nomem;
    if (!bad && b->len && fwrite(b->p, 1, b->len, f) != b->len) bad = 1;
    b->len = 0;
    b->nomem = 0;
    return bad ? -1 : 0;
}

int cli_buf_write(cli_buf *b, FILE *f)
{
    int bad = b->nomem || fflush(f) != 0;
    int fd = fileno(f);
    size_t at = 0;
    while (!bad && at < b->len) {
        ssize_t k = write(fd, b->p + at, b->len - at);
        if (k > 0) at += (size_t)k;
        else if (k < 0 && errno == EINTR) continue;
        else break;
    }
    /* what write(2) did not take goes through stdio: written if the
     * failure has passed, else the stream holds the error (ferror), which
     * main's last check reports, as for every other write */
    if (!bad && at < b->len && (fwrite(b->p + at, 1, b->len - at, f) != b->len - at || fflush(f) != 0)) bad = 1;
    b->len = 0;
    b->nomem = 0;
    return bad ? -1 : 0;
}

int cli_room(void **p, size_t n, size_t *cap, size_t elem)
{
    if (n < *cap) return 0;
    size_t nc = *cap ? 2 * *cap : 8;
    void *np = nc < ((size_t)-1) / elem ? realloc(*p, nc * elem) : NULL;
    if (!np) return -1;
    *p = np;
    *cap = nc;
    return 0;
}
