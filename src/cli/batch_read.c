/* batch_read.c - the input of batch mode: the header line that names the
 * columns (and the separator it uses), chunks of whole text lines or of
 * binary rows, and the numbers of a text line. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "names.h"
#include "report.h"

/* ---- the header ---- */

static int name_char(char c) { return c && c != ',' && c != ' ' && c != '\t' && c != '\r'; }

/* the next line of f (without its newline) into *buf; -1 at the end, -2
 * when reading failed (errno says why) */
static long next_line(FILE *f, char **buf, size_t *cap)
{
    errno = 0;
    ssize_t n = getline(buf, cap, f);
    if (ferror(f)) return -2;   /* a line the failure cut short included */
    if (n < 0) return -1;
    if (n > 0 && (*buf)[n - 1] == '\n') (*buf)[--n] = 0;
    return n;
}

/* an error in the header line: its exit status */
static int header_error(const cli_batch_plan *P, long hline, ad_errclass cls, const char *msg)
{
    cli_error(P->o, &(cli_where){.file = P->name, .line = hline}, cls, "%s", msg);
    return cli_exit_code(cls);
}

/* one column name b[0..len) of the header, checked */
static int header_name(cli_batch_plan *P, long hline, const char *b, size_t len)
{
    const cli_options *o = P->o;
    char msg[300];
    if (!cli_is_name(b, len) || ad_reserved(b, len)) {
        snprintf(msg, sizeof msg, "header column %zu: '%.60s' is not a variable name (the first line names the "
                                  "columns; or give --vars)", P->ncol + 1, b);
        return header_error(P, hline, AD_E_SYNTAX, msg);
    }
    (void)o;
    return 0;
}

/* a column named twice, or also given by -at: the exit status of the
 * error (n log n, for headers of 10^5 columns) */
static int header_unique(cli_batch_plan *P, long hline)
{
    const cli_options *o = P->o;
    char msg[300];
    size_t at;
    cli_nameset set;
    if (cli_first_repeat((const char *const *)P->colnames, NULL, P->ncol, &at) < 0 ||
        cli_nameset_init(&set, (const char *const *)o->at.names, o->at.n) < 0)
        return -1;
    size_t k = 0;   /* the first column given by -at too */
    while (k < P->ncol && cli_nameset_find(&set, P->colnames[k], strlen(P->colnames[k])) == (size_t)-1) k++;
    cli_nameset_free(&set);
    /* the first column at fault, column by column */
    if (at < P->ncol && at <= k) {
        snprintf(msg, sizeof msg, "column '%.60s' named twice", P->colnames[at]);
        return header_error(P, hline, AD_E_SYNTAX, msg);
    }
    if (k < P->ncol) {
        snprintf(msg, sizeof msg, "'%.60s' is given both by -at and by the points", P->colnames[k]);
        return header_error(P, hline, AD_E_USAGE, msg);
    }
    return 0;
}

/* splits the header hdr (NUL-terminated in place) into column names */
static int header_names(cli_batch_plan *P, char *hdr, long hline)
{
    size_t cap = 0;
    char *s = hdr;
    while (*s) {
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (!*s) break;
        char *b = s;
        while (name_char(*s)) s++;
        size_t len = (size_t)(s - b);
        char save = *s;
        *s = 0;
        int status = header_name(P, hline, b, len);
        if (status) return status;
        if (P->ncol == cap) {
            size_t nc = cap ? 2 * cap : 16;
            char **nn = realloc(P->colnames, nc * sizeof *nn);
            if (!nn) return -1;
            P->colnames = nn;
            cap = nc;
        }
        P->colnames[P->ncol++] = b;   /* terminated below, once all are read */
        *s = save;
        while (*s == ' ' || *s == '\t' || *s == '\r') s++;
        if (*s == ',') *s++ = ' ';
    }
    /* the names point into hdr: NUL-terminate them in place */
    for (size_t k = 0; k < P->ncol; k++) {
        char *q = P->colnames[k];
        while (name_char(*q)) q++;
        *q = 0;
    }
    if (P->ncol == 0) return header_error(P, hline, AD_E_SYNTAX, "the header names no columns");
    return header_unique(P, hline);
}

int cli_batch_read_header(cli_batch_plan *P, FILE *in, char **hdr, size_t *hdrcap, long *hline, char **first)
{
    const cli_options *o = P->o;
    *first = NULL;
    *hline = 0;
    if (!o->binary) {
        long n;
        while ((n = next_line(in, hdr, hdrcap)) >= 0) {
            ++*hline;
            size_t i = 0;
            while (i < (size_t)n && isspace((unsigned char)(*hdr)[i])) i++;
            if (i < (size_t)n && (*hdr)[i] != '#') break;
        }
        if (n == -2 || (n == -1 && errno == ENOMEM)) {
            cli_error(o, NULL, AD_E_IO, "cannot read '%s': %s", P->name, strerror(errno ? errno : EIO));
            return cli_exit_code(AD_E_IO);
        }
        if (n >= 0 && memchr(*hdr, 0, (size_t)n)) {
            char msg[80];
            snprintf(msg, sizeof msg, "a NUL byte at column %zu", (size_t)((char *)memchr(*hdr, 0, (size_t)n) - *hdr) + 1);
            return header_error(P, *hline, AD_E_SYNTAX, msg);
        }
        if (n < 0) {
            if (!o->nvars) {
                cli_error(o, &(cli_where){.file = P->name}, AD_E_SYNTAX,
                          "no header line naming the columns (or give --vars)");
                return cli_exit_code(AD_E_SYNTAX);
            }
            free(*hdr);   /* getline allocates even at the end */
            *hdr = NULL;
        }
        /* the separator: a tab, else a comma, else blanks */
        P->sep = *hdr && strchr(*hdr, '\t') ? '\t' : *hdr && strchr(*hdr, ',') ? ',' : ' ';
        if (!*hdr) P->sep = ',';
        if (o->nvars) *first = *hdr;
    }
    if (o->nvars) {
        P->ncol = o->nvars;
        P->colnames = o->vars;
        return 0;
    }
    if (o->binary) return 0;
    int status = header_names(P, *hdr, *hline);
    if (status < 0) {
        cli_error(o, NULL, AD_E_IO, "out of memory");
        return cli_exit_code(AD_E_IO);
    }
    return status;
}

/* ---- rows ---- */

static int blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* With a comma or tab separator, blanks may surround a value but not
 * separate two; with blanks, any run of them separates. */
int cli_batch_parse_line(const cli_batch_plan *P, const char *s, size_t n, double *cols, char *why, size_t whyn)
{
    const char sep = P->sep;
    size_t k = 0, i = 0;
    /* the blanks that may surround a value (with blanks as separator: all) */
#define SKIP() while (i < n && blank(s[i]) && (sep == ' ' || s[i] != sep)) i++
    SKIP();
    for (;;) {
        if (k == P->ncol) {
            snprintf(why, whyn, "more than %zu columns", P->ncol);
            return -1;
        }
        size_t b = i;
        while (i < n && !blank(s[i]) && s[i] != ',') i++;
        const char *e;
        if (i == b) {
            snprintf(why, whyn, "an empty column %zu", k + 1);
            return -1;
        }
        if (cli_parse_number(s + b, i - b, &cols[k], &e) < 0) {
            snprintf(why, whyn, "column %zu (%s): '%.*s' %s", k + 1, P->colnames[k], (int)(i - b > 40 ? 40 : i - b),
                     s + b, e);
            return -1;
        }
        k++;
        SKIP();
        if (i >= n) break;
        if (sep == ' ') {
            if (s[i] == ',') {
                snprintf(why, whyn, "a ',' where the separator is a space");
                return -1;
            }
            continue;   /* blanks were the separator */
        }
        if (s[i] != sep) {
            snprintf(why, whyn, s[i] == ',' ? "a ',' where the separator is a tab" : "a blank where the separator is '%s'",
                     sep == ',' ? "," : "\\t");
            return -1;
        }
        i++;
        SKIP();
    }
#undef SKIP
    if (k != P->ncol) {
        snprintf(why, whyn, "%zu column%s where %zu are expected", k, k == 1 ? "" : "s", P->ncol);
        return -1;
    }
    return 0;
}

/* ---- chunks ---- */

static int read_binary(cli_batch_reader *R, cli_batch_chunk *c)
{
    /* about a text chunk's bytes of rows, up to CLI_BATCH_CHUNK_ROWS of them */
    size_t rowbytes = R->P->ncol * sizeof(double), rows = CLI_BATCH_CHUNK_BYTES / rowbytes;
    size_t want = rowbytes * (rows < 1 ? 1 : rows > CLI_BATCH_CHUNK_ROWS ? CLI_BATCH_CHUNK_ROWS : rows);
    if (c->incap < want) {
        char *nb = realloc(c->in, want);
        if (!nb) return -1;
        c->in = nb;
        c->incap = want;
    }
    errno = 0;
    size_t got = fread(c->in, 1, want, R->in);
    if (got < want) R->eof = 1;
    if (ferror(R->in)) {
        c->read_err = errno ? errno : EIO;
        got -= got % rowbytes;   /* a row the failure cut is not the input's */
    }
    if (got % rowbytes) {
        c->cut = got % rowbytes;   /* reported after the rows before it */
        got -= c->cut;
        R->eof = 1;
    }
    c->inlen = got;
    R->next += (long)(got / rowbytes);
    return 0;
}

/* a line longer than a chunk: read on until its end */
static int read_long_line(FILE *in, char **buf, size_t *len, size_t *cap, int *eof)
{
    int ch;
    errno = 0;
    while ((ch = fgetc(in)) != EOF) {
        if (*len + 1 >= *cap) {
            char *nb = realloc(*buf, *cap * 2);
            if (!nb) return -1;
            *buf = nb;
            *cap *= 2;
        }
        (*buf)[(*len)++] = (char)ch;
        if (ch == '\n') break;
    }
    if (ch == EOF) *eof = 1;
    return 0;
}

/* text: whole lines, about CLI_BATCH_CHUNK_BYTES */
static int read_text(cli_batch_reader *R, cli_batch_chunk *c)
{
    size_t cap = CLI_BATCH_CHUNK_BYTES + R->carrylen + 1;
    char *buf = malloc(cap);
    if (!buf) return -1;
    if (R->carrylen) memcpy(buf, R->carry, R->carrylen);
    size_t len = R->carrylen;
    R->carrylen = 0;
    errno = 0;
    size_t want = cap - 1 - len, got = fread(buf + len, 1, want, R->in);
    len += got;
    if (got < want) R->eof = 1;
    if (ferror(R->in)) c->read_err = errno ? errno : EIO;
    /* keep the partial last line for the next chunk; after a failed read
     * it is not the input's last line but a piece of one: dropped */
    size_t cut = len;
    if (c->read_err) {
        while (cut > 0 && buf[cut - 1] != '\n') cut--;
        len = cut;
    } else if (!R->eof) {
        char *nl = NULL;
        for (size_t q = len; q > 0; q--)
            if (buf[q - 1] == '\n') { nl = buf + q - 1; break; }
        if (!nl) {
            if (read_long_line(R->in, &buf, &len, &cap, &R->eof) < 0) { free(buf); return -1; }
            if (ferror(R->in)) c->read_err = errno ? errno : EIO;
            cut = len;
        } else {
            cut = (size_t)(nl - buf) + 1;
        }
    }
    if (cut < len) {
        free(R->carry);
        R->carrylen = len - cut;
        R->carry = malloc(R->carrylen + 1);
        if (!R->carry) { free(buf); return -1; }
        memcpy(R->carry, buf + cut, R->carrylen);
    }
    free(c->in);
    c->in = buf;
    c->inlen = cut;
    c->incap = cap;
    for (size_t q = 0; q < cut; q++) R->next += buf[q] == '\n';
    if (cut && buf[cut - 1] != '\n') R->next++;
    return 0;
}

int cli_batch_read_chunk(cli_batch_reader *R, cli_batch_chunk *c)
{
    c->out.len = c->nerr = c->rows = c->cut = 0;
    memset(c->failed, 0, sizeof c->failed);
    c->stopped = c->read_err = 0;
    c->first_line = R->next;
    return R->P->o->binary ? read_binary(R, c) : read_text(R, c);
}
