/* batch_read.c - the input of batch mode: the header line that names the
 * columns (and the separator it uses) or the first JSON row, the vectors
 * among the columns (x[1] .. x[n]), which columns are variables, chunks
 * of whole text lines or of binary rows, and the numbers of a text line
 * or of a JSON row (point_file.c reads the object). */
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

/* an error in the header line (at column col, 0: none): its exit status */
static int header_error_at(const cli_batch_plan *P, long hline, long col, ad_errclass cls, const char *msg)
{
    cli_error(P->o, &(cli_where){.file = P->name, .line = hline, .col = col}, cls, "%s", msg);
    return cli_exit_code(cls);
}

static int header_error(const cli_batch_plan *P, long hline, ad_errclass cls, const char *msg)
{
    return header_error_at(P, hline, 0, cls, msg);
}

/* the length of the variable field f is of: an element's vector, or the
 * field's whole name */
static size_t var_len(const cli_batch_plan *P, size_t f)
{
    return P->field_vec[f] >= 0 ? cli_var_len(P->fieldnames[f]) : strlen(P->fieldnames[f]);
}

/* a column named twice (a variable's or one passed through: JSON rows
 * name them), or a variable also given by -at (a vector by any of its
 * columns): the exit status of the error (n log n, for headers of 10^5
 * columns) */
static int header_unique(cli_batch_plan *P, long hline)
{
    const cli_options *o = P->o;
    char msg[300];
    size_t at;
    cli_nameset set;
    if (cli_first_repeat((const char *const *)P->fieldnames, NULL, P->nfields, &at) < 0 ||
        cli_nameset_vars(&set, (const char *const *)o->at.names, o->at.n) < 0)
        return -1;
    size_t k = 0;   /* the first column given by -at too */
    while (k < P->nfields && cli_nameset_find(&set, P->fieldnames[k], var_len(P, k)) == (size_t)-1) k++;
    cli_nameset_free(&set);
    /* the first column at fault, column by column */
    if (at < P->nfields && at <= k) {
        snprintf(msg, sizeof msg, "column '%.60s' named twice", P->fieldnames[at]);
        return header_error(P, hline, AD_E_SYNTAX, msg);
    }
    if (k < P->nfields) {
        size_t vl = var_len(P, k);
        snprintf(msg, sizeof msg, "'%.*s' is given both by -at and by the points", (int)(vl > 60 ? 60 : vl),
                 P->fieldnames[k]);
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

/* ---- vectors: the columns x[1] .. x[n] ---- */

/* a column that is an element NAME[K]: NAME, and K as the key's at (so
 * that the keys sort by vector, then by index) */
typedef struct {
    cli_name key;
    size_t field;
} element;

static int same_vector(const element *a, const element *b)
{
    return a->key.len == b->key.len && memcmp(a->key.name, b->key.name, a->key.len) == 0;
}

/* the columns that are elements into e (room for every field), sorted,
 * and marked in P->field_vec (0, else -1): their count, or the exit
 * status of an error, negated */
static long elements(cli_batch_plan *P, element *e, long hline)
{
    long n = 0;
    for (size_t f = 0; f < P->nfields; f++) {
        P->field_vec[f] = -1;
        const char *name = P->fieldnames[f];
        size_t nl, k;
        int rc = cli_parse_element(name, strlen(name), &nl, &k);
        if (rc == -2 && !cli_name_problem(name, cli_var_len(name))) {
            char msg[200];
            snprintf(msg, sizeof msg, "column '%.60s': an element's index is a whole number from 1 to %d, "
                                      "without leading zeros", name, AD_VECTOR_MAX);
            return -header_error(P, hline, AD_E_SYNTAX, msg);
        }
        if (rc == 1 && !cli_name_problem(name, nl)) {
            e[n++] = (element){{name, nl, k}, f};
            P->field_vec[f] = 0;
        }
    }
    qsort(e, (size_t)n, sizeof *e, cli_name_cmp);   /* key is e's first member */
    return n;
}

/* element x of a vector, where x[j] should be: the error (the exit
 * status) of an index past a missing column, or of a column x beside
 * x[1] (cols: the columns' names) */
static int element_error(const cli_batch_plan *P, const cli_nameset *cols, const element *x, size_t j, long hline)
{
    char msg[400];
    int nl = (int)(x->key.len > 60 ? 60 : x->key.len);
    const char *v = x->key.name, *column = P->fieldnames[x->field];
    if (x->key.at != j)
        snprintf(msg, sizeof msg, "column '%.80s': the vector %.*s has no column '%.*s[%zu]' "
                                  "(its columns are %.*s[1] to %.*s[N], none missing)",
                 column, nl, v, nl, v, j, nl, v, nl, v);
    else if (j == 1 && cli_nameset_find(cols, v, x->key.len) != (size_t)-1)
        snprintf(msg, sizeof msg, "columns '%.*s' and '%.80s': %.*s cannot be both a number and a vector", nl, v, column,
                 nl, v);
    else
        return 0;
    return header_error(P, hline, AD_E_SYNTAX, msg);
}

/* the vectors of the sorted elements e[0..n) of columns named once:
 * each x[1] .. x[len], none missing, and no column x beside them; into
 * P->vecs, P->field_vec */
static int vectors(cli_batch_plan *P, const element *e, size_t n, long hline)
{
    cli_nameset cols;
    if (!n) return 0;
    P->vecs = malloc(n * sizeof *P->vecs);
    if (!P->vecs || cli_nameset_init(&cols, (const char *const *)P->fieldnames, P->nfields) < 0) return -1;
    int status = 0;
    for (size_t i = 0, first = 0; !status && i < n; i++) {
        if (!same_vector(&e[i], &e[first])) first = i;
        if ((status = element_error(P, &cols, &e[i], i - first + 1, hline))) break;
        if (i == first) P->vecs[P->nvecs++] = (cli_batch_vec){e[i].key.name, e[i].key.len, 0};
        P->vecs[P->nvecs - 1].len++;
        P->field_vec[e[i].field] = (long)P->nvecs - 1;
    }
    cli_nameset_free(&cols);
    return status;
}

/* ---- JSON rows: the first row names the columns ---- */

/* the fields of the first row's members (x[1] .. x[n] for a vector) and
 * the storage of their names and of the keys */
static int json_fields(cli_batch_plan *P)
{
    cli_batch_json *J = P->json;
    const cli_jpoint *F = &J->first;
    size_t bytes = 0, cap = 0;
    for (size_t j = 0; j < F->nm; j++)   /* the key, and each name[k]: at most 9 digits */
        bytes += (F->m[j].len + 1) * (F->m[j].vector ? F->m[j].n + 1 : 2) + 12 * F->m[j].n;
    J->text = malloc(bytes);
    J->keys = malloc((F->nm ? F->nm : 1) * sizeof *J->keys);
    if (!J->text || !J->keys) return -1;
    char *p = J->text;
    for (size_t j = 0; j < F->nm; j++) {
        const cli_jmember *m = &F->m[j];
        J->keys[j] = p;
        p += sprintf(p, "%.*s", (int)m->len, m->name) + 1;
        for (size_t k = 1; k <= m->n; k++) {
            if (add_field(P, &cap) < 0) return -1;
            if (!m->vector) {
                P->fieldnames[P->nfields++] = J->keys[j];
                continue;
            }
            P->fieldnames[P->nfields++] = p;
            p += sprintf(p, "%.*s[%zu]", (int)m->len, m->name, k) + 1;
        }
    }
    return cli_nameset_init(&J->set, (const char *const *)J->keys, F->nm);
}

/* the first JSON row, line[0..n): its members, every row's columns */
static int json_header(cli_batch_plan *P, const char *line, size_t n, long hline)
{
    const cli_options *o = P->o;
    if (o->nvars)
        return header_error(P, hline, AD_E_USAGE, "--vars: the points are JSON rows, which name their variables");
    if (o->echo) return header_error(P, hline, AD_E_USAGE, "--echo takes text rows, and the points are JSON rows");
    if (!(P->json = calloc(1, sizeof *P->json))) return -1;
    cli_jpoint *F = &P->json->first;
    if (cli_jpoint_read_point(F, line, n) < 0)
        return F->nomem ? -1 : header_error_at(P, hline, (long)F->err_at + 1, AD_E_SYNTAX, F->why);
    if (F->nm == 0) return header_error(P, hline, AD_E_SYNTAX, "the first JSON row names no variables");
    P->sep = ',';
    return json_fields(P);
}

/* 1 when the line s[0..n) is a JSON row: its first byte but blanks is '{' */
static int json_row(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && isspace((unsigned char)s[i])) i++;
    return i < n && s[i] == '{';
}

/* ---- which fields are variables ---- */

/* a name of the tape's inputs, of --wrt or of --seed: a variable (x[2]
 * is one when --wrt names its vector x) */
static int variable(const cli_batch_plan *P, const cli_nameset *inputs, const char *name)
{
    const cli_options *o = P->o;
    if (cli_nameset_find(inputs, name, strlen(name)) != (size_t)-1) return 1;
    size_t var = cli_var_len(name);
    for (size_t k = 0; k < o->nwrt; k++)
        if (strcmp(o->wrt[k], name) == 0 || (strlen(o->wrt[k]) == var && memcmp(o->wrt[k], name, var) == 0)) return 1;
    for (size_t k = 0; k < o->seed.n; k++)
        if (strcmp(o->seed.names[k], name) == 0) return 1;
    return 0;
}

/* the kinds of the fields given the tape's inputs: a field whose name is
 * a variable of the expressions (or of --wrt, --seed) is one, and so are
 * all the columns of a vector one of whose elements is; binary and JSON
 * rows are all numbers.  used: room for a flag per vector */
static void kinds(cli_batch_plan *P, const cli_nameset *inputs, unsigned char *used)
{
    int all = P->o->binary || P->json;
    memset(used, 0, P->nvecs);
    for (size_t f = 0; f < P->nfields; f++)
        if (P->field_vec[f] >= 0 && variable(P, inputs, P->fieldnames[f])) used[P->field_vec[f]] = 1;
    P->ncol = 0;
    for (size_t f = 0; f < P->nfields; f++) {
        const char *name = P->fieldnames[f];
        int var = all || (P->field_vec[f] >= 0 ? used[P->field_vec[f]]
                                                : cli_is_name(name, strlen(name)) && !ad_reserved(name, strlen(name)) &&
                                                      variable(P, inputs, name));
        P->field_col[f] = var ? (long)P->ncol : -1;
        if (var) P->colnames[P->ncol++] = P->fieldnames[f];
        else P->passed++;
    }
}

int cli_batch_field_kinds(cli_batch_plan *P)
{
    size_t ni = ad_tape_ninputs(P->t);
    const char **in = malloc((ni ? ni : 1) * sizeof *in);
    char **names = malloc((ni ? ni : 1) * sizeof *names);
    unsigned char *used = malloc(P->nvecs ? P->nvecs : 1);
    P->colnames = malloc((P->nfields ? P->nfields : 1) * sizeof *P->colnames);
    cli_nameset inputs = {0};
    int rc = -1;
    if (!in || !names || !used || !P->colnames) goto out;
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
        kinds(P, &inputs, used);
        rc = 0;
    }
    cli_nameset_free(&inputs);
    for (size_t k = 0; k < ni; k++) free(names[k]);
out:
    free(in);
    free(names);
    free(used);
    return rc;
}

/* ---- the header ---- */

/* the first line that is neither blank nor a comment into *hdr (its
 * length, -1 at the end, -2 when reading failed); *hline counts the lines */
static long first_line(FILE *in, char **hdr, size_t *hdrcap, long *hline)
{
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
    return n;
}

/* the columns of text rows: the header, the first JSON row, or --vars
 * (then *first is the first line, data) */
static int text_columns(cli_batch_plan *P, FILE *in, char **hdr, size_t *hdrcap, long *hline, char **first)
{
    const cli_options *o = P->o;
    long n = first_line(in, hdr, hdrcap, hline);
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
    if (n >= 0 && json_row(*hdr, (size_t)n)) {
        *first = *hdr;
        return json_header(P, *hdr, (size_t)n, *hline);
    }
    P->sep = *hdr ? cli_batch_separator(*hdr) : ',';
    if (o->nvars) *first = *hdr;
    return o->nvars ? 0 : header_fields(P, *hdr, *hline);
}

int cli_batch_read_header(cli_batch_plan *P, FILE *in, char **hdr, size_t *hdrcap, long *hline, char **first)
{
    const cli_options *o = P->o;
    *first = NULL;
    *hline = 0;
    int status = o->binary ? 0 : text_columns(P, in, hdr, hdrcap, hline, first);
    if (!status && o->nvars) {
        size_t cap = 0;
        for (size_t k = 0; !status && k < o->nvars; k++) {
            if (add_field(P, &cap) < 0) status = -1;
            else P->fieldnames[P->nfields++] = o->vars[k];
        }
    }
    /* the vectors' columns, checked once no column is named twice */
    element *e = status ? NULL : malloc((P->nfields ? P->nfields : 1) * sizeof *e);
    P->field_vec = status ? NULL : malloc((P->nfields ? P->nfields : 1) * sizeof *P->field_vec);
    if (!status && (!e || !P->field_vec)) status = -1;
    long n = status ? 0 : elements(P, e, *hline);
    if (n < 0) status = (int)-n;
    if (!status) status = header_unique(P, *hline);
    if (!status) status = vectors(P, e, (size_t)n, *hline);
    free(e);
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

/* the member of the first JSON row that m of a later row is (at r among
 * its members), or (size_t)-1 */
static size_t json_member(const cli_batch_json *J, const cli_jmember *m, size_t r)
{
    if (r < J->first.nm && J->first.m[r].len == m->len && memcmp(J->first.m[r].name, m->name, m->len) == 0)
        return r;   /* the first row's order */
    return cli_nameset_find(&J->set, m->name, m->len);
}

/* member m of a row, the first row's member f: the same kind and length */
static int json_shape(const cli_jmember *m, const cli_jmember *f, char *why, size_t whyn)
{
    int nl = (int)(m->len > 60 ? 60 : m->len);
    if (m->vector == f->vector && m->n == f->n) return 0;
    if (!f->vector)
        snprintf(why, whyn, "'%.*s' is a vector where the first row has a number", nl, m->name);
    else if (!m->vector)
        snprintf(why, whyn, "'%.*s' is a number where the first row has a vector of %zu", nl, m->name, f->n);
    else
        snprintf(why, whyn, "'%.*s' has %zu element%s where the first row has %zu", nl, m->name, m->n,
                 m->n == 1 ? "" : "s", f->n);
    return -1;
}

int cli_batch_parse_json(const cli_batch_plan *P, cli_jpoint *row, unsigned char *hit, const char *s, size_t n,
                         double *cols, long *col, char *why, size_t whyn)
{
    const cli_batch_json *J = P->json;
    const cli_jpoint *F = &J->first;
    *col = 0;
    if (cli_jpoint_read_all(row, s, n) < 0) {
        snprintf(why, whyn, "%s", row->why);
        *col = row->nomem ? 0 : (long)row->err_at + 1;
        return row->nomem ? -2 : -1;
    }
    memset(hit, 0, F->nm);
    for (size_t r = 0; r < row->nm; r++) {
        const cli_jmember *m = &row->m[r];
        size_t j = json_member(J, m, r);
        int nl = (int)(m->len > 60 ? 60 : m->len);
        *col = (long)m->at + 1;
        if (j == (size_t)-1) snprintf(why, whyn, "'%.*s' is not a variable of the first row", nl, m->name);
        else if (hit[j]) snprintf(why, whyn, "variable '%.*s' given twice", nl, m->name);
        if (j == (size_t)-1 || hit[j] || json_shape(m, &F->m[j], why, whyn) < 0) return -1;
        hit[j] = 1;
        memcpy(cols + F->m[j].first, row->v + m->first, m->n * sizeof *cols);
    }
    *col = 0;
    for (size_t j = 0; j < F->nm; j++)
        if (!hit[j]) {
            snprintf(why, whyn, "'%.*s' is missing (every row has the first row's variables)",
                     (int)(F->m[j].len > 60 ? 60 : F->m[j].len), F->m[j].name);
            return -1;
        }
    return 0;
}

/* ---- the first row, read ahead ---- */

/* A->bytes += s[0..n) and a newline (text) */
static int ahead_put(cli_batch_ahead *A, const char *s, size_t n, int newline)
{
    char *nb = realloc(A->bytes, A->len + n + 2);
    if (!nb) return -1;
    A->bytes = nb;
    memcpy(A->bytes + A->len, s, n);
    A->len += n;
    if (newline) A->bytes[A->len++] = '\n';
    return 0;
}

/* the numbers of the row s[0..n): every field that reads as one (which
 * fields are variables is known only once the program is recorded) */
static int ahead_numbers(const cli_batch_plan *P, const char *s, size_t n, cli_batch_ahead *A)
{
    A->names = malloc((P->nfields ? P->nfields : 1) * sizeof *A->names);
    A->values = malloc((P->nfields ? P->nfields : 1) * sizeof *A->values);
    if (!A->names || !A->values) return -1;
    if (P->json) {
        for (size_t f = 0; f < P->nfields && f < P->json->first.nv; f++) {
            A->names[A->n] = P->fieldnames[f];
            A->values[A->n++] = P->json->first.v[f];
        }
        return 0;
    }
    size_t i = 0, f = 0;
    int last = n == 0;
    while (!last && f < P->nfields) {
        size_t b, e;
        int quoted;
        char why[200];
        const char *err;
        if (cli_batch_field(P->sep, s, n, &i, &b, &e, &quoted, &last, why, sizeof why) < 0) break;
        if (e > b && cli_parse_number(s + b, e - b, &A->values[A->n], &err) == 0) A->names[A->n++] = P->fieldnames[f];
        f++;
    }
    return 0;
}

int cli_batch_read_ahead(const cli_batch_plan *P, FILE *in, const char *first, long hline, cli_batch_ahead *A)
{
    memset(A, 0, sizeof *A);
    if (P->o->binary) {
        size_t rowbytes = P->nfields * sizeof(double);
        if (!(A->bytes = malloc(rowbytes ? rowbytes : 1))) return -1;
        errno = 0;
        A->len = fread(A->bytes, 1, rowbytes, in);
        A->line = 1;
        if (ferror(in)) return -2;
        if (A->len < rowbytes || !rowbytes) return 0;   /* no whole row: the reader says so */
        A->names = malloc(P->nfields * sizeof *A->names);
        A->values = malloc(P->nfields * sizeof *A->values);
        if (!A->names || !A->values) return -1;
        memcpy(A->values, A->bytes, rowbytes);
        for (A->n = 0; A->n < P->nfields; A->n++) A->names[A->n] = P->fieldnames[A->n];
        return 0;
    }
    if (first) {
        A->line = hline;
        return ahead_put(A, first, strlen(first), 1) < 0 ? -1 : ahead_numbers(P, first, strlen(first), A);
    }
    /* after the header: the lines up to the first that is neither blank
     * nor a comment */
    A->line = hline + 1;
    char *line = NULL;
    size_t cap = 0;
    long n;
    int rc = 0;
    while ((n = next_line(in, &line, &cap)) >= 0) {
        size_t i = 0;
        while (i < (size_t)n && isspace((unsigned char)line[i])) i++;
        int row = i < (size_t)n && line[i] != '#';
        /* the last line may have no newline: given back as read */
        if (ahead_put(A, line, (size_t)n, !feof(in)) < 0) { rc = -1; break; }
        if (row) {
            rc = ahead_numbers(P, line, (size_t)n, A);
            break;
        }
    }
    if (n == -2) rc = -2;
    if (n == -1 && errno == ENOMEM) rc = -1;   /* (getline's failure, not the end) */
    free(line);
    return rc;
}

void cli_batch_ahead_free(cli_batch_ahead *A)
{
    free(A->bytes);
    free(A->names);
    free(A->values);
    memset(A, 0, sizeof *A);
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
    /* a row read ahead (batch.c) comes first */
    size_t have = R->carrylen < want ? R->carrylen : want;
    if (have) memcpy(c->in, R->carry, have);
    R->carrylen = 0;
    errno = 0;
    size_t got = have + (R->eof ? 0 : fread(c->in + have, 1, want - have, R->in));
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
