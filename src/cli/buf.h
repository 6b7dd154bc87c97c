/* buf.h - a growing byte buffer that everything the command prints is
 * composed in before it is written: a result, a batch chunk, a diagnostic.
 * A failed allocation is remembered (nomem), so a printer never checks
 * each call, and a result that could not be composed whole is never
 * written in part.  Also the growth of the command's arrays (cli_room). */
#ifndef CLI_BUF_H
#define CLI_BUF_H

#include <stddef.h>
#include <stdio.h>

typedef struct {
    char *p;
    size_t len, cap;
    int nomem;   /* an append failed: the contents are incomplete */
    int lent;    /* p is the caller's storage (cli_buf_lend), not the heap's */
} cli_buf;

/* starts b on the caller's storage, moving to the heap only when it
 * outgrows it (so a diagnostic needs no allocation) */
void cli_buf_lend(cli_buf *b, char *storage, size_t n);

void cli_buf_free(cli_buf *b);
void cli_buf_put(cli_buf *b, const void *s, size_t n);
void cli_buf_puts(cli_buf *b, const char *s);
void cli_buf_putc(cli_buf *b, char c);
void cli_buf_printf(cli_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* n more bytes at the end, to be filled by the caller (then len += n);
 * NULL when out of memory */
char *cli_buf_room(cli_buf *b, size_t n);
/* a number in the shortest form that reads back (or %.{prec}g) */
void cli_buf_number(cli_buf *b, double x, int prec);
/* JSON values: a number (inf and nan as strings) and a string */
void cli_buf_json_number(cli_buf *b, double x, int prec);
void cli_buf_json_string(cli_buf *b, const char *s, size_t n);
/* makes room for one more element in the array *p of elements of elem
 * bytes (n used, *cap allocated), doubling it: 0, or -1 when out of memory */
int cli_room(void **p, size_t n, size_t *cap, size_t elem);
/* writes the contents to f and empties the buffer: 0, or -1 when they
 * are incomplete (nothing is written then) or the write failed */
int cli_buf_flush(cli_buf *b, FILE *f);
/* the same straight to f's descriptor, after what f holds: a batch
 * chunk in one write(2), where stdio's fwrite and fflush made two (F2's
 * 10^6 rows: 245 calls, not 490, at about a microsecond each); on a
 * failure f's error indicator is set, as cli_buf_flush leaves it */
int cli_buf_write(cli_buf *b, FILE *f);

#endif
