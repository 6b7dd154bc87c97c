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

/* ---- fields: RFC 4180 quoting ---- */

static int blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* The field of s[0..n) that starts at *i: its text s[*b..*e), quoted or
 * not (a quoted one may hold the separator, and "" for a quote; it ends
 * on its line).  Blanks around a field are not part of it, unless the
 * separator is blanks, which then end an unquoted field.  *i moves past
 * the field and its separator; *last says it was the line's last.  0, or
 * -1 with a message in why. */
int cli_batch_field(char sep, const char *s, size_t n, size_t *i, size_t *b, size_t *e, int *quoted, int *last,
                    char *why, size_t whyn)
{
    size_t k = *i;
    while (k < n && blank(s[k]) && (sep == ' ' || s[k] != sep)) k++;
    *quoted = k < n && s[k] == '"';
    if (*quoted) {
        size_t q = ++k;
        while (q < n && !(s[q] == '"' && (q + 1 >= n || s[q + 1] != '"'))) q += s[q] == '"' ? 2 : 1;
        if (q >= n) {
            snprintf(why, whyn, "a quoted field without its closing quote");
            return -1;
        }
        *b = k;
        *e = q;
        k = q + 1;
        /* then the separator, or the end (blanks may come before a ',') */
        if (sep != ' ')
            while (k < n && blank(s[k]) && s[k] != sep) k++;
        if (k < n && s[k] != sep && !(sep == ' ' && blank(s[k]))) {
            snprintf(why, whyn, "text after the closing quote of a field");
            return -1;
        }
    } else {
        *b = k;
        while (k < n && s[k] != sep && !(sep == ' ' && blank(s[k]))) k++;
        *e = k;
        while (*e > *b && blank(s[*e - 1])) (*e)--;
    }
    /* past the separator (blanks: all of them); a separator at the end
     * of the line is followed by an empty field */
    int more = 0;
    if (sep == ' ')
        while (k < n && blank(s[k])) k++;
    else if (k < n)
        k++, more = 1;
    *last = k >= n && !more;
    *i = k;
    return 0;
}

/* the value of a field: quoted text with "" as ", in place; its length */
static size_t unquote(char *t, size_t len)
{
    size_t w = 0;
    for (size_t r = 0; r < len; r++) {
        t[w++] = t[r];
        if (t[r] == '"' && r + 1 < len && t[r + 1] == '"') r++;
    }
    return w;
}

/* ---- the header ---- */

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

/* a column named twice (a variable's or one passed through: JSON rows
 * name them), or also given by -at: the exit status of the error (n log
 * n, for headers of 10^5 columns) */
static int header_unique(cli_batch_plan *P, long hline)
{
    const cli_options *o = P->o;
    char msg[300];
    size_t at;
    cli_nameset set;
    if (cli_first_repeat((const char *const *)P->fieldnames, NULL, P->nfields, &at) < 0 ||
        cli_nameset_init(&set, (const char *const *)o->at.names, o->at.n) < 0)
        return -1;
    size_t k = 0;   /* the first column given by -at too */
    while (k < P->nfields && cli_nameset_find(&set, P->fieldnames[k], strlen(P->fieldnames[k])) == (size_t)-1) k++;
    cli_nameset_free(&set);
    /* the first column at fault, column by column */
    if (at < P->nfields && at <= k) {
        snprintf(msg, sizeof msg, "column '%.60s' named twice", P->fieldnames[at]);
        return header_error(P, hline, AD_E_SYNTAX, msg);
    }
    if (k < P->nfields) {
        snprintf(msg, sizeof msg, "'%.60s' is given both by -at and by the points", P->fieldnames[k]);
        return header_error(P, hline, AD_E_USAGE, msg);
    }
    return 0;
}

/* room for one more field */
static int add_field(cli_batch_plan *P, size_t *cap)
{
    if (P->nfields < *cap) return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    char **nn = realloc(P->fieldnames, nc * sizeof *nn);
    if (nn) P->fieldnames = nn;
    long *nk = realloc(P->field_col, nc * sizeof *nk);
    if (nk) P->field_col = nk;
    if (!nn || !nk) return -1;
    *cap = nc;
    return 0;
}

/* splits the header hdr (NUL-terminated, changed in place) into field
 * names, unquoted */
static int header_fields(cli_batch_plan *P, char *hdr, long hline)
{
    size_t cap = 0, n = strlen(hdr), i = 0;
    char why[120];
    while (i < n) {
        size_t b, e;
        int quoted, last;
        if (cli_batch_field(P->sep, hdr, n, &i, &b, &e, &quoted, &last, why, sizeof why) < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "header column %zu: %s", P->nfields + 1, why);
            return header_error(P, hline, AD_E_SYNTAX, msg);
        }
        if (e == b && !quoted && P->sep == ' ') break;   /* trailing blanks */
        if (add_field(P, &cap) < 0) return -1;
        P->fieldnames[P->nfields++] = hdr + b;
        hdr[quoted ? unquote(hdr + b, e - b) + b : e] = 0;
        if (last) break;
    }
    if (P->nfields == 0) return header_error(P, hline, AD_E_SYNTAX, "the header names no columns");
    return 0;
}

/* a name of the tape's inputs, of --wrt or of --seed: a variable */
static int variable(const cli_batch_plan *P, const cli_nameset *inputs, const char *name)
{
    const cli_options *o = P->o;
    if (cli_nameset_find(inputs, name, strlen(name)) != (size_t)-1) return 1;
    for (size_t k = 0; k < o->nwrt; k++)
        if (strcmp(o->wrt[k], name) == 0) return 1;
    for (size_t k = 0; k < o->seed.n; k++)
        if (strcmp(o->seed.names[k], name) == 0) return 1;
    return 0;
}

/* which fields are variables (numbers, in P->colnames) and which are
 * passed through as text: a field whose name is a variable of the
 * expressions (or of --wrt, --seed) is one; binary rows are all numbers */
static int field_kinds(cli_batch_plan *P)
{
    size_t ni = ad_tape_ninputs(P->t);
    const char **in = malloc((ni ? ni : 1) * sizeof *in);
    char **names = malloc((ni ? ni : 1) * sizeof *names);
    P->colnames = malloc((P->nfields ? P->nfields : 1) * sizeof *P->colnames);
    cli_nameset inputs = {0};
    int rc = -1;
    if (!in || !names || !P->colnames) goto out;
    for (size_t k = 0; k < ni; k++) {
        size_t len;
        const char *s = ad_tape_input_name(P->t, k, &len);
        if (!(names[k] = malloc(len + 1))) {
            for (size_t j = 0; j < k; j++) free(names[j]);
            goto out;
        }
        memcpy(names[k], s, len);
        names[k][len] = 0;
        in[k] = names[k];
    }
    if (cli_nameset_init(&inputs, in, ni) == 0) {
        P->ncol = 0;
        for (size_t f = 0; f < P->nfields; f++) {
            const char *name = P->fieldnames[f];
            int var = P->o->binary ||
                      (cli_is_name(name, strlen(name)) && !ad_reserved(name, strlen(name)) && variable(P, &inputs, name));
            P->field_col[f] = var ? (long)P->ncol : -1;
            if (var) P->colnames[P->ncol++] = P->fieldnames[f];
            else P->passed++;
        }
        rc = 0;
    }
    cli_nameset_free(&inputs);
    for (size_t k = 0; k < ni; k++) free(names[k]);
out:
    free(in);
    free(names);
    return rc;
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
            if (*hline == 1 && n >= 3 && memcmp(*hdr, "\xef\xbb\xbf", 3) == 0) {
                /* a UTF-8 byte order mark (what spreadsheets write) is not a name */
                memmove(*hdr, *hdr + 3, (size_t)n - 2);
                n -= 3;
            }
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
        P->sep = *hdr ? cli_batch_separator(*hdr) : ',';
        if (o->nvars) *first = *hdr;
    }
    int status = 0;
    if (o->nvars) {
        size_t cap = 0;
        for (size_t k = 0; !status && k < o->nvars; k++) {
            if (add_field(P, &cap) < 0) status = -1;
            else P->fieldnames[P->nfields++] = o->vars[k];
        }
    } else if (!o->binary) {
        status = header_fields(P, *hdr, *hline);
    }
    if (!status && field_kinds(P) < 0) status = -1;
    if (!status) status = header_unique(P, *hline);
    if (status < 0) {
        cli_error(o, NULL, AD_E_IO, "out of memory");
        return cli_exit_code(AD_E_IO);
    }
    return status;
}

char cli_batch_separator(const char *line)
{
    int inq = 0, comma = 0, semi = 0;
    for (const char *p = line; *p; p++) {
        if (*p == '"') inq = !inq;
        else if (!inq && *p == '\t') return '\t';
        else if (!inq) comma |= *p == ',', semi |= *p == ';';
    }
    return comma ? ',' : semi ? ';' : ' ';
}

/* ---- rows ---- */

/* a field's separator for the messages */
static const char *sep_name(char sep) { return sep == ',' ? "," : sep == ';' ? ";" : "\\t"; }

/* The numbers of the variable fields into cols; the text fields are only
 * checked for their quoting.  An unquoted number ends at a blank or a
 * comma, and only blanks may follow it before the separator. */
int cli_batch_parse_line(const cli_batch_plan *P, const char *s, size_t n, double *cols, char *why, size_t whyn)
{
    const char sep = P->sep;
    size_t i = 0, f = 0;
    int last = n == 0;
    while (!last) {
        if (f == P->nfields) {
            snprintf(why, whyn, "more than %zu columns", P->nfields);
            return -1;
        }
        size_t b, e;
        int quoted;
        if (cli_batch_field(sep, s, n, &i, &b, &e, &quoted, &last, why, whyn) < 0) return -1;
        if (sep == ' ' && e == b && !quoted && last) break;   /* trailing blanks */
        long c = P->field_col[f++];
        if (c < 0) continue;   /* text, passed through */
        if (e == b) {
            snprintf(why, whyn, "an empty column %zu", f);
            return -1;
        }
        const char *err;
        if (cli_parse_number(s + b, e - b, &cols[c], &err) < 0) {
            /* a number cut by a blank or a comma: the separator is likely wrong */
            size_t t = b;
            while (t < e && !blank(s[t]) && s[t] != ',' && s[t] != ';') t++;
            if (t < e && t > b && !quoted) {
                if (sep == ' ') snprintf(why, whyn, "a '%c' where the separator is a space", s[t]);
                else if (blank(s[t])) snprintf(why, whyn, "a blank where the separator is '%s'", sep_name(sep));
                else snprintf(why, whyn, "a '%c' where the separator is %s%s%s", s[t], sep == '\t' ? "a tab" : "'",
                              sep == '\t' ? "" : sep_name(sep), sep == '\t' ? "" : "'");
                return -1;
            }
            snprintf(why, whyn, "column %zu (%s): '%.*s' %s", f, P->colnames[c], (int)(e - b > 40 ? 40 : e - b), s + b,
                     err);
            return -1;
        }
    }
    if (f != P->nfields) {
        snprintf(why, whyn, "%zu column%s where %zu are expected", f, f == 1 ? "" : "s", P->nfields);
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
