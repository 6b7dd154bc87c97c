/* options.c - parsing and checking the command line against the table of
 * options (options.def): each word is found by its spelling in the table,
 * its value read by the kind the table gives, stored (store), and once all
 * are read the table's rules are checked in order.  Every mistake is a
 * usage error naming its culprit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "libs.h"
#include "names.h"
#include "options.h"
#include "point_file.h"

const cli_optinfo cli_optinfos[] = {
#define SECTION(title) {-1, NULL, NULL, title, CLI_ARG_NONE},
#define OPT(ID, names, arg, repeat, lo, hi, expect, meta, help) \
    {CLI_OPT_##ID, names, meta, help, CLI_ARG_##arg},
#include "options.def"
};
const size_t cli_noptinfos = sizeof cli_optinfos / sizeof cli_optinfos[0];

/* what the parser needs of each option, by its index */
enum { REP_ADD, REP_SAME, REP_ONCE, REP_FLAG };
static const struct {
    const char *names, *meta, *expect;
    cli_arg arg;
    int repeat;
    long lo, hi;
} opt[CLI_OPT_COUNT] = {
#define OPT(ID, names, arg, repeat, lo, hi, expect, meta, help) \
    [CLI_OPT_##ID] = {names, meta, expect, CLI_ARG_##arg, REP_##repeat, lo, hi},
#include "options.def"
};

/* ---- messages ---- */

static ad_errclass usage(ad_diag *d, const char *fmt, const char *a, const char *b)
{
    char q1[80], q2[80];
    snprintf(q1, sizeof q1, "%s", a ? a : "");
    snprintf(q2, sizeof q2, "%s", b ? b : "");
    if (strlen(a ? a : "") >= sizeof q1) strcpy(q1 + sizeof q1 - 4, "...");
    if (strlen(b ? b : "") >= sizeof q2) strcpy(q2 + sizeof q2 - 4, "...");
    char m[300];
    snprintf(m, sizeof m, fmt, q1, q2);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s", m);
}

static ad_errclass nomem(ad_diag *d) { return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }

/* the name messages show: the option's first spelling */
static const char *shown(int id, char *buf, size_t n)
{
    size_t len = strcspn(opt[id].names, "|");
    snprintf(buf, n, "%.*s", (int)len, opt[id].names);
    return buf;
}

/* "forward, reverse or auto" from "forward|reverse|auto" */
static void word_list(const char *words, char *buf, size_t n)
{
    size_t k = 0, nw = 1;
    for (const char *p = words; *p; p++) nw += *p == '|';
    buf[0] = 0;
    for (size_t w = 0; w < nw; w++) {
        size_t len = strcspn(words, "|");
        k += (size_t)snprintf(buf + k, n > k ? n - k : 0, "%s%.*s", w == 0 ? "" : w + 1 == nw ? " or " : ", ",
                              (int)len, words);
        if (k >= n) return;
        words += len + 1;
    }
}

/* the index of v among the '|'-separated words, or -1 */
static int word_index(const char *words, const char *v)
{
    for (int i = 0;; i++) {
        size_t len = strcspn(words, "|");
        if (strlen(v) == len && strncmp(words, v, len) == 0) return i;
        if (!words[len]) return -1;
        words += len + 1;
    }
}

/* ---- values ---- */

int cli_parse_number(const char *s, size_t len, double *out, const char **why)
{
    size_t i = 0, digits = 0;
    if (i < len && (s[i] == '+' || s[i] == '-')) i++;
    while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; digits++; }
    }
    if (digits == 0) { *why = "is not a number"; return -1; }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) i++;
        size_t ed = 0;
        while (i < len && s[i] >= '0' && s[i] <= '9') { i++; ed++; }
        if (ed == 0) { *why = "is not a number"; return -1; }
    }
    if (i != len) { *why = "is not a number"; return -1; }
    char buf[64], *copy = buf;
    if (len >= sizeof buf) {
        copy = malloc(len + 1);
        if (!copy) { *why = "could not be read (out of memory)"; return -2; }
    }
    memcpy(copy, s, len);
    copy[len] = 0;
    errno = 0;
    double x = strtod(copy, NULL);
    if (copy != buf) free(copy);
    if (errno == ERANGE && isinf(x)) { *why = "is too large for a double"; return -1; }
    *out = x;
    return 0;
}

int cli_is_name(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static char *dupn(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) { memcpy(p, s, n); p[n] = 0; }
    return p;
}

const char *cli_name_problem(const char *s, size_t n)
{
    if (!cli_is_name(s, n)) return "is not a variable name";
    switch (ad_reserved(s, n)) {
    case AD_RESERVED_CONSTANT: return "is a constant, not a variable";
    case AD_RESERVED_FUNCTION: return "is a function, not a variable";
    case AD_RESERVED_KEYWORD: return "is a keyword, not a variable";
    }
    return NULL;
}

/* checks one variable name given on the command line */
static ad_errclass check_name(const char *o, const char *s, size_t n, ad_diag *d)
{
    const char *why = cli_name_problem(s, n);
    if (!why) return AD_E_NONE;
    char q[80];
    snprintf(q, sizeof q, "%.*s", (int)(n > 60 ? 60 : n), s);
    if (n > 60) strcat(q, "...");
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%s' %s", o, q, why);
}

/* a variable of a list given twice (a number's name, or a vector's, whose
 * elements x[1], x[2]... are its names): an error naming the first repeat */
static ad_errclass unique(const char *o, char *const *names, size_t n, ad_diag *d)
{
    size_t at, len;
    /* a variable twice (x=3 and x=[1, 2]: a vector is one variable), or
     * a name twice (x[2] in --wrt x,x[2]) */
    if (cli_first_repeat_var((const char *const *)names, n, &at) < 0) return nomem(d);
    if (at < n) {
        len = cli_var_len(names[at]);
    } else {
        if (cli_first_repeat((const char *const *)names, NULL, n, &at) < 0) return nomem(d);
        if (at == n) return AD_E_NONE;
        len = strlen(names[at]);
    }
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: variable '%.*s' given twice", o, (int)(len > 60 ? 60 : len), names[at]);
}

/* unique for the bindings of -at and --seed: their elements x[k] come
 * from vectors only (a binding's name is a variable's), so when no
 * variable is given twice no name is, and the names' own check (a sort of
 * every element) is needed only if some element came otherwise */
static ad_errclass unique_bindings(const char *o, const cli_bindings *b, ad_diag *d)
{
    size_t at, elements = 0, of_vectors = 0;
    if (cli_first_repeat_var((const char *const *)b->names, b->n, &at) < 0) return nomem(d);
    for (size_t i = 0; i < b->n; i++) elements += b->names[i][cli_var_len(b->names[i])] == '[';
    for (size_t v = 0; v < b->nvecs; v++) of_vectors += b->vecs[v].len;
    if (at == b->n && elements == of_vectors) return AD_E_NONE;
    return unique(o, b->names, b->n, d);
}

/* s[0..*n) without the blanks around it: its new start, *n its length */
static const char *trim(const char *s, size_t *n)
{
    while (*n && (*s == ' ' || *s == '\t')) s++, (*n)--;
    while (*n && (s[*n - 1] == ' ' || s[*n - 1] == '\t')) (*n)--;
    return s;
}

/* the end of the item of a comma-separated list that starts at p: the
 * first comma outside parentheses and brackets, or the end */
static const char *item_end(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '(' || *p == '[') depth++;
        else if ((*p == ')' || *p == ']') && depth > 0) depth--;
        else if (*p == ',' && depth == 0) break;
    }
    return p;
}

/* appends name = v to b: 0, or -1 when out of memory (name is b's then) */
static int bind_one(cli_bindings *b, char *name, double v)
{
    size_t cap = b->cap;
    if (!name || cli_room((void **)&b->names, b->n, &cap, sizeof *b->names) < 0 ||
        cli_room((void **)&b->values, b->n, &b->cap, sizeof *b->values) < 0) {
        free(name);
        return -1;
    }
    b->names[b->n] = name;
    b->values[b->n++] = v;
    return 0;
}

/* records that the bindings first .. first + len - 1 of b are the
 * vector name: 0, or -1 when out of memory */
static int add_vector(cli_bindings *b, const char *name, size_t nl, size_t first, size_t len)
{
    cli_vector vec = {dupn(name, nl), first, len};
    if (!vec.name || cli_room((void **)&b->vecs, b->nvecs, &b->veccap, sizeof *b->vecs) < 0) {
        free(vec.name);
        return -1;
    }
    b->vecs[b->nvecs++] = vec;
    return 0;
}

int cli_bind(cli_bindings *b, const char *name, size_t nl, double v)
{
    return bind_one(b, dupn(name, nl), v);
}

int cli_bind_vector(cli_bindings *b, const char *name, size_t nl, const double *v, size_t len)
{
    size_t first = b->n;
    for (size_t k = 0; k < len; k++)
        if (bind_one(b, cli_element_name(name, nl, k + 1), v[k]) < 0) return -1;
    return add_vector(b, name, nl, first, len);
}

/* the value of name (nl bytes) in a list: val[0..vl) */
static ad_errclass bad_value(const char *o, const char *name, size_t nl, const char *val, size_t vl, const char *why,
                             ad_diag *d)
{
    char q[80];
    snprintf(q, sizeof q, "%.*s", (int)(vl > 60 ? 60 : vl), val);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: value of '%.*s' %s: '%s'", o, (int)(nl > 60 ? 60 : nl), name, why, q);
}

/* name=[v1, v2, ...]: the elements name[1], name[2], ... */
static ad_errclass bind_vector(const char *o, const char *name, size_t nl, const char *val, size_t vl,
                               cli_bindings *b, ad_diag *d)
{
    if (vl < 2 || val[vl - 1] != ']')
        return bad_value(o, name, nl, val, vl, "is a vector without its closing ']'", d);
    const char *p = val + 1, *end = val + vl - 1;
    size_t first = b->n, k = 0;
    if (p == end || (size_t)(end - p) == strspn(p, " \t"))
        return bad_value(o, name, nl, val, vl, "is an empty vector (a vector variable has at least one element)", d);
    for (;;) {
        const char *c = memchr(p, ',', (size_t)(end - p));
        size_t len = (size_t)((c ? c : end) - p);
        const char *item = trim(p, &len);
        double v;
        const char *why;
        if (cli_parse_number(item, len, &v, &why) < 0) {
            char w[120];
            snprintf(w, sizeof w, "(element %zu) %s", k + 1, why);
            return bad_value(o, name, nl, item, len, w, d);
        }
        if (k >= AD_VECTOR_MAX)
            return bad_value(o, name, nl, val, 20, "has too many elements (at most 100000000)", d);
        if (bind_one(b, cli_element_name(name, nl, ++k), v) < 0) return nomem(d);
        if (!c) break;
        p = c + 1;
    }
    return add_vector(b, name, nl, first, k) < 0 ? nomem(d) : AD_E_NONE;
}

static ad_errclass stdin_once(const cli_stdin_words *w, ad_diag *d);

/* -at @FILE (path[0..len)): the JSON object in it (point_file.c) as
 * bindings of b; an error in its text is at opts->at_file's line and
 * column (the diagnostic's) */
static ad_errclass at_file(cli_options *opts, const char *o, const char *path, size_t len, cli_bindings *b,
                           ad_diag *d)
{
    if (len == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected a file name after '@'", o);
    char *name = dupn(path, len), *text;
    size_t n;
    if (!name) return nomem(d);
    int from_stdin = strcmp(name, "-") == 0;
    opts->at_stdin += from_stdin;
    /* the other readers of stdin, from the words: refused before reading */
    ad_errclass e = from_stdin ? stdin_once(&opts->stdin_words, d) : AD_E_NONE;
    if (!e) e = cli_read_file(name, &text, &n, d);
    if (!e) {
        e = cli_point_file_bind(text, n, b, d);
        free(text);
    }
    if (e == AD_E_SYNTAX) {
        free(opts->at_file);
        opts->at_file = from_stdin ? dupn("<stdin>", 7) : name;
        if (!opts->at_file) e = nomem(d);
        if (!from_stdin) name = NULL;
    }
    free(name);
    return e;
}

/* NAME=VALUE items, and with opts @FILE items (-at), added to b */
static ad_errclass add_items(const char *o, const char *arg, cli_bindings *b, cli_options *opts, ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NAME=VALUE[,NAME=VALUE...])", o);
    const char *p = arg;
    for (;;) {
        const char *end = item_end(p);   /* x=[1, 2], y=3: a vector's commas are its own */
        size_t len = (size_t)(end - p);
        const char *item = trim(p, &len);   /* 'x=1, y=2': blanks around an item */
        p = item;
        if (opts && len && *p == '@') {
            ad_errclass e = at_file(opts, o, p + 1, len - 1, b, d);
            if (e) return e;
            if (!*end) break;
            p = end + 1;
            continue;
        }
        const char *eq = memchr(p, '=', len);
        if (!eq) {
            char q[80];
            snprintf(q, sizeof q, "%.*s", (int)(len > 60 ? 60 : len), p);
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected NAME=VALUE, got '%s'", o, q);
        }
        size_t nl = (size_t)(eq - p), vl = len - nl - 1;
        trim(p, &nl);
        const char *val = trim(eq + 1, &vl);
        size_t base, k;
        if (cli_element(p, nl, &base, &k))
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.*s' is an element: give the vector whole, as %.*s=[...]", o,
                               (int)(nl > 60 ? 60 : nl), p, (int)(base > 60 ? 60 : base), p);
        ad_errclass e = check_name(o, p, nl, d);
        if (e) return e;
        if (vl && val[0] == '[') {
            if ((e = bind_vector(o, p, nl, val, vl, b, d))) return e;
        } else {
            double v;
            const char *why;
            if (cli_parse_number(val, vl, &v, &why) < 0) return bad_value(o, p, nl, val, vl, why, d);
            if (bind_one(b, dupn(p, nl), v) < 0) return nomem(d);
        }
        if (!*end) break;
        p = end + 1;
    }
    return unique_bindings(o, b, d);
}

ad_errclass cli_add_bindings(const char *o, const char *arg, cli_bindings *b, ad_diag *d)
{
    return add_items(o, arg, b, NULL, d);
}

int cli_declare_vectors(const cli_bindings *b, ad_tape *t)
{
    for (size_t i = 0; i < b->nvecs; i++)
        if (ad_tape_set_vector(t, b->vecs[i].name, strlen(b->vecs[i].name), b->vecs[i].len) < 0) return -1;
    return 0;
}

void cli_bindings_free(cli_bindings *b)
{
    for (size_t i = 0; i < b->n; i++) free(b->names[i]);
    for (size_t i = 0; i < b->nvecs; i++) free(b->vecs[i].name);
    free(b->names);
    free(b->values);
    free(b->vecs);
    memset(b, 0, sizeof *b);
}

/* checks one name of a list (opt names it in errors) */
typedef ad_errclass name_check(const char *opt, const char *s, size_t n, ad_diag *d);

/* --wrt, --cov: a variable, or one element of a vector, NAME[K] */
static ad_errclass check_var_name(const char *o, const char *s, size_t n, ad_diag *d)
{
    size_t base, k;
    if (cli_element(s, n, &base, &k)) return check_name(o, s, base, d);
    if (n && s[n - 1] == ']' && memchr(s, '[', n))
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.*s' is not an element NAME[K] (K a whole number from 1)", o,
                           (int)(n > 60 ? 60 : n), s);
    return check_name(o, s, n, d);
}

/* NAME[N] in --vars (name[0..*nl)): *nl becomes NAME's length and *len N;
 * *len 0 for a plain name */
static ad_errclass vector_len(const char *o, const char *name, size_t *nl, size_t *len, ad_diag *d)
{
    *len = 0;
    int rc = cli_parse_element(name, *nl, nl, len);
    if (rc >= 0) return AD_E_NONE;
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected NAME or NAME[N] (a vector of N from 1 to %d), got '%.*s'", o,
                       AD_VECTOR_MAX, (int)(*nl > 60 ? 60 : *nl), name);
}

/* appends name (malloc'd, NULL when that failed) to a list: 0 or -1 */
static int push_name(char ***list, size_t *n, size_t *cap, char *name)
{
    if (!name || cli_room((void **)list, *n, cap, sizeof **list) < 0) {
        free(name);
        return -1;
    }
    (*list)[(*n)++] = name;
    return 0;
}

/* NAME,...: with vectors (--vars), NAME[N] is a vector of N, its names
 * NAME[1] .. NAME[N] */
static ad_errclass names_list(const char *o, const char *arg, int vectors, char ***list, size_t *n, size_t *cap,
                              name_check *check,
                              ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NAME[,NAME...])", o);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p), count = 0;
        const char *name = trim(p, &len);   /* 'x, y' */
        size_t nl = len;
        ad_errclass e = vectors ? vector_len(o, name, &nl, &count, d) : AD_E_NONE;
        if (!e) e = check(o, name, nl, d);
        if (e) return e;
        if (!count && push_name(list, n, cap, dupn(name, len)) < 0) return nomem(d);
        for (size_t k = 1; k <= count; k++)
            if (push_name(list, n, cap, cli_element_name(name, nl, k)) < 0) return nomem(d);
        if (!end) break;
        p = end + 1;
    }
    return unique(o, *list, *n, d);
}

/* --wrt x for a vector x of -at: its elements x[1] .. x[n] in its place
 * (batch mode does the same for the points' columns: batch.c) */
static ad_errclass expand_wrt(cli_options *o, ad_diag *d)
{
    cli_nameset at;
    char **wrt;
    size_t n;
    if (!o->nwrt) return AD_E_NONE;
    if (cli_nameset_init(&at, (const char *const *)o->at.names, o->at.n) < 0) return nomem(d);
    int r = cli_nameset_expand(&at, (const char *const *)o->wrt, o->nwrt, &wrt, &n);
    cli_nameset_free(&at);
    if (r < 0) return nomem(d);
    cli_names_free(o->wrt, o->nwrt);
    o->wrt = wrt;
    o->nwrt = o->wrtcap = n;
    return unique("--wrt", o->wrt, o->nwrt, d);
}

/* "d/dx=y+cos(x), d/dy=x": the user's formulas for partial derivatives
 * (a formula's own commas are inside its parentheses) */
static ad_errclass expect_list(cli_options *o, const char *opt, const char *arg, ad_diag *d)
{
    const char *p = arg;
    for (;;) {
        const char *end = item_end(p), *b = p;
        while (b < end && (*b == ' ' || *b == '\t')) b++;
        const char *eq = memchr(b, '=', (size_t)(end - b));
        if ((size_t)(end - b) < 4 || strncmp(b, "d/d", 3) != 0 || !eq)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected d/dNAME=EXPR, got '%.*s'", opt,
                               (int)(end - b > 60 ? 60 : end - b), b);
        const char *n = b + 3, *ne = eq;
        while (ne > n && (ne[-1] == ' ' || ne[-1] == '\t')) ne--;
        ad_errclass e = check_var_name(opt, n, (size_t)(ne - n), d);
        if (e) return e;
        const char *x = eq + 1;
        while (x < end && (*x == ' ' || *x == '\t')) x++;
        if (x == end) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: d/d%.*s has no formula after '='", opt,
                                         (int)(ne - n > 60 ? 60 : ne - n), n);
        for (size_t k = 0; k < o->nexpect; k++)
            if (strlen(o->expect[k].var) == (size_t)(ne - n) && strncmp(o->expect[k].var, n, (size_t)(ne - n)) == 0)
                return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: d/d%s given twice", opt, o->expect[k].var);
        if (cli_room((void **)&o->expect, o->nexpect, &o->expectcap, sizeof *o->expect) < 0) return nomem(d);
        cli_expect_item *it = &o->expect[o->nexpect];
        memset(it, 0, sizeof *it);
        it->var = dupn(n, (size_t)(ne - n));
        it->src.src = dupn(x, (size_t)(end - x));
        it->src.len = (size_t)(end - x);
        o->nexpect++;
        if (!it->var || !it->src.src) return nomem(d);
        if (!*end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

/* "x:y=2e-4,x:x=0.01": entries of the inputs' covariance (--cov) */
static ad_errclass cov_list(cli_options *o, const char *opt, const char *arg, ad_diag *d)
{
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        p = trim(p, &len);   /* ' x:y = 0.1' */
        const char *colon = memchr(p, ':', len), *eq = memchr(p, '=', len);
        if (!colon || !eq || eq < colon)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: expected NAME:NAME=VALUE, got '%.*s'", opt,
                               (int)(len > 60 ? 60 : len), p);
        size_t la = (size_t)(colon - p), lb = (size_t)(eq - colon - 1), lv = len - (size_t)(eq + 1 - p);
        const char *a = trim(p, &la), *b = trim(colon + 1, &lb), *val = trim(eq + 1, &lv);
        ad_errclass e = check_var_name(opt, a, la, d);
        if (!e) e = check_var_name(opt, b, lb, d);
        if (e) return e;
        double v;
        const char *why;
        if (cli_parse_number(val, lv, &v, &why) < 0)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: value of '%.*s' %s: '%.*s'", opt, (int)(eq - p > 60 ? 60 : eq - p),
                               p, why, (int)(lv > 60 ? 60 : lv), val);
        if (cli_room((void **)&o->cov, o->ncov, &o->covcap, sizeof *o->cov) < 0) return nomem(d);
        cli_cov *c = &o->cov[o->ncov];
        c->a = dupn(a, la);
        c->b = dupn(b, lb);
        c->c = v;
        o->ncov++;
        if (!c->a || !c->b) return nomem(d);
        if (!end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

/* "0.5,1,-2" */
static ad_errclass numbers_list(const char *o, const char *arg, double **list, size_t *n, ad_diag *d)
{
    if (*arg == 0) return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: empty list (expected NUMBER[,NUMBER...])", o);
    const char *p = arg;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        double v;
        const char *why;
        p = trim(p, &len);   /* '1, 2' */
        if (cli_parse_number(p, len, &v, &why) < 0)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.*s' %s", o, (int)(len > 60 ? 60 : len), p, why);
        double *nl = realloc(*list, (*n + 1) * sizeof **list);
        if (!nl) return nomem(d);
        *list = nl;
        nl[(*n)++] = v;
        if (!end) break;
        p = end + 1;
    }
    return AD_E_NONE;
}

/* "12": digits only, within [lo, hi]; 0 or -1 */
static int whole_number(const char *v, long lo, long hi, long *out)
{
    if (*v < '0' || *v > '9') return -1;
    char *end;
    errno = 0;
    long p = strtol(v, &end, 10);
    if (*end || errno || p < lo || p > hi) return -1;
    *out = p;
    return 0;
}

static ad_errclass add_source(cli_source **list, size_t *n, const char *name, char *text, size_t len, ad_diag *d)
{
    cli_source *ns = realloc(*list, (*n + 1) * sizeof **list);
    if (!ns) { free(text); return nomem(d); }
    *list = ns;
    ns[(*n)++] = (cli_source){.name = name, .src = text, .len = len};
    return AD_E_NONE;
}

ad_errclass cli_read_file(const char *path, char **text, size_t *n, ad_diag *d)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    const char *shown = f == stdin ? "<stdin>" : path;
    *text = NULL;
    *n = 0;
    if (!f) return errno == ENOMEM ? nomem(d) : ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': %s", path, strerror(errno));
    /* the text is read into buf with no stdio buffer between (a page
     * fault less at start-up) */
    if (f != stdin) setvbuf(f, NULL, _IONBF, 0);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    if (!buf) { if (f != stdin) fclose(f); return nomem(d); }
    errno = 0;
    for (;;) {
        if (len == cap) {
            char *nb = cap < ((size_t)1 << 31) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                if (f != stdin) fclose(f);
                return cap < ((size_t)1 << 31) ? nomem(d)
                                               : ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': file larger than 2 GiB", shown);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (f != stdin) fclose(f);
    if (err) { free(buf); return err == ENOMEM ? nomem(d) : ad_diag_set(d, AD_E_IO, 0, 0, "cannot read '%s': %s", shown, strerror(err)); }
    *text = buf;
    *n = len;
    return AD_E_NONE;
}

/* -f FILE and --lib FILE: its text, a source of the list */
static ad_errclass read_source(cli_source **list, size_t *n, const char *path, ad_diag *d)
{
    char *text;
    size_t len;
    ad_errclass e = cli_read_file(path, &text, &len, d);
    return e ? e : add_source(list, n, strcmp(path, "-") == 0 ? "<stdin>" : path, text, len, d);
}

/* ---- storing what each option says ---- */

/* what the words of options.def stand for, in their order there */
static const ad_mode modes[] = {AD_MODE_FORWARD, AD_MODE_REVERSE, AD_MODE_AUTO};   /* forward|reverse|auto */
static const ad_policy policies[] = {AD_STRICT, AD_ZERO_SUBGRAD};                 /* strict|zero-subgrad */
static const cli_format formats[] = {CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_TSV};    /* text|json|tsv */
static const int on_errors[] = {CLI_ON_ERROR_STOP, CLI_ON_ERROR_SKIP, CLI_ON_ERROR_NAN};   /* stop|skip|nan */
static const ad_dump_format dumps[] = {AD_DUMP_TEXT, AD_DUMP_TSV, AD_DUMP_JSON, AD_DUMP_DOT}; /* text|tsv|json|dot */
/* the sets of options of the rules are bits of a uint64_t */
_Static_assert(CLI_OPT_COUNT <= 64, "options.def has more options than a rule's set holds");

/* the value of an option read by its kind: number, index of a word, or text */
typedef struct {
    const char *text;
    long num;
    double real;
} optval;

/* an option given again: SAME options only with the value they have */
static ad_errclass again(cli_options *o, int id, const char *typed, long num, double real, const char *text,
                         ad_diag *d)
{
    if (!o->given[id] || opt[id].repeat == REP_ADD || opt[id].repeat == REP_FLAG) return AD_E_NONE;
    if (opt[id].repeat == REP_ONCE) return usage(d, "option '%s' given twice", typed, NULL);
    int same = 1;
    switch (id) {
    case CLI_OPT_ORDER: same = o->order == num; break;
    case CLI_OPT_MAX_NODES: same = o->max_nodes == num; break;
    case CLI_OPT_MAX_ITERATIONS: same = o->max_iterations == num; break;
    case CLI_OPT_JOBS: same = o->jobs == num; break;
    case CLI_OPT_PRECISION: same = o->precision == num; break;
    case CLI_OPT_MODE: same = o->mode == modes[num]; break;
    case CLI_OPT_NONDIFF: same = o->policy == policies[num]; break;
    case CLI_OPT_FORMAT: same = o->format == formats[num]; break;
    case CLI_OPT_ON_ERROR: same = o->on_error == on_errors[num]; break;
    case CLI_OPT_DUMP_TAPE: same = o->dumpfmt == dumps[num]; break;
    case CLI_OPT_EMIT_C: same = o->emit == (text ? 2 : 1); break;
    case CLI_OPT_EMIT_NAME: same = strcmp(o->emit_name, text) == 0; break;
    case CLI_OPT_STEP_SCALE: same = o->step_scale == real; break;
    case CLI_OPT_RTOL: same = o->rtol == real; break;
    case CLI_OPT_ATOL: same = o->atol == real; break;
    case CLI_OPT_POINTS: same = strcmp(o->points, text) == 0; break;
    }
    return same ? AD_E_NONE : usage(d, "option '%s' given twice with different values", typed, NULL);
}

static ad_errclass store(cli_options *o, int id, const char *typed, const optval *v, ad_diag *d)
{
    ad_errclass e = again(o, id, typed, v->num, v->real, v->text, d);
    if (e) return e;
    switch (id) {
    case CLI_OPT_EXPR: {
        char *copy = dupn(v->text, strlen(v->text));
        return copy ? add_source(&o->src, &o->nsrc, NULL, copy, strlen(v->text), d) : nomem(d);
    }
    case CLI_OPT_FILE: return read_source(&o->src, &o->nsrc, v->text, d);
    case CLI_OPT_LIB: return read_source(&o->pre.lib, &o->pre.nlib, v->text, d);
    case CLI_OPT_AT: return add_items(typed, v->text, &o->at, o, d);
    case CLI_OPT_SEED: return cli_add_bindings(typed, v->text, &o->seed, d);
    case CLI_OPT_EXPECT: return expect_list(o, typed, v->text, d);
    case CLI_OPT_SIGMA: return cli_add_bindings(typed, v->text, &o->sigma, d);
    case CLI_OPT_COV: return cov_list(o, typed, v->text, d);
    case CLI_OPT_WRT: o->grad = 1; return names_list(typed, v->text, 0, &o->wrt, &o->nwrt, &o->wrtcap, check_var_name, d);
    case CLI_OPT_VARS: return names_list(typed, v->text, 1, &o->vars, &o->nvars, &o->varscap, check_name, d);
    case CLI_OPT_ADJOINT: return numbers_list(typed, v->text, &o->adjoint, &o->nadjoint, d);
    case CLI_OPT_GRAD: o->grad = 1; break;
    case CLI_OPT_JACOBIAN: o->jacobian = 1; break;
    case CLI_OPT_HESSIAN: o->hessian = 1; break;
    case CLI_OPT_CHECK: o->check = 1; break;
    case CLI_OPT_BINARY: o->binary = 1; break;
    case CLI_OPT_JIT: o->jit = 1; break;
    case CLI_OPT_ECHO: o->echo = 1; break;
    case CLI_OPT_STATS: o->stats = 1; break;
    case CLI_OPT_HEADER: o->header = 1; break;
    case CLI_OPT_NO_OPTIMIZE: o->no_optimize = 1; break;
    case CLI_OPT_NO_INIT: o->no_init = 1; break;
    case CLI_OPT_HELP: o->help = 1; break;
    case CLI_OPT_VERSION: o->version = 1; break;
    case CLI_OPT_COMPLETION_TABLE: o->completion_table = 1; break;
    case CLI_OPT_ORDER: o->order = (int)v->num; break;
    case CLI_OPT_MAX_NODES: o->max_nodes = v->num; break;
    case CLI_OPT_MAX_ITERATIONS: o->max_iterations = v->num; break;
    case CLI_OPT_JOBS: o->jobs = (int)v->num; break;
    case CLI_OPT_PRECISION: o->precision = (int)v->num; break;
    case CLI_OPT_MODE: o->mode = modes[v->num]; break;
    case CLI_OPT_NONDIFF: o->policy = policies[v->num]; break;
    case CLI_OPT_FORMAT: o->format = formats[v->num]; break;
    case CLI_OPT_ON_ERROR: o->on_error = on_errors[v->num]; break;
    case CLI_OPT_DUMP_TAPE: o->dump = 1; o->dumpfmt = dumps[v->num]; break;
    case CLI_OPT_EMIT_C: o->emit = v->text ? 2 : 1; break;
    case CLI_OPT_EMIT_NAME: o->emit_name = v->text; break;
    case CLI_OPT_EMIT_HEADER: o->emit_header = 1; break;
    case CLI_OPT_STEP_SCALE: o->step_scale = v->real; break;
    case CLI_OPT_RTOL: o->rtol = v->real; break;
    case CLI_OPT_ATOL: o->atol = v->real; break;
    case CLI_OPT_POINTS: o->points = v->text; break;
    }
    return AD_E_NONE;
}

/* reads the value text of option id by its kind into v */
static ad_errclass read_value(int id, const char *typed, const char *label, const char *text, optval *v,
                              ad_diag *d)
{
    char name[32], what[120], fmt[200];
    v->text = text;
    cli_arg kind = opt[id].arg;
    if (kind == CLI_ARG_WORD || (kind == CLI_ARG_OPTWORD && text)) {
        v->num = word_index(opt[id].meta, text);
        if (v->num >= 0) return AD_E_NONE;
        word_list(opt[id].meta, what, sizeof what);
    } else if (kind == CLI_ARG_INT) {
        if (whole_number(text, opt[id].lo, opt[id].hi, &v->num) == 0) return AD_E_NONE;
        snprintf(what, sizeof what, "%s", opt[id].expect);
    } else if (kind == CLI_ARG_POSITIVE || kind == CLI_ARG_NONNEG) {
        const char *why;
        int pos = kind == CLI_ARG_POSITIVE;
        if (cli_parse_number(text, strlen(text), &v->real, &why) == 0 && v->real >= 0 && !(pos && v->real == 0))
            return AD_E_NONE;
        return usage(d, pos ? "%s: expected a positive number, got '%s'" : "%s: expected a number >= 0, got '%s'",
                     typed, text);
    } else {
        return AD_E_NONE;
    }
    snprintf(fmt, sizeof fmt, "%s: expected %s, got '%%s'", label ? label : shown(id, name, sizeof name), what);
    return usage(d, fmt, text, NULL);
}

/* ---- reading the words ---- */

/* the option spelled s[0..len) (one of options.def's names), or -1 */
static int lookup(const char *s, size_t len)
{
    for (int id = 0; id < CLI_OPT_COUNT; id++) {
        const char *p = opt[id].names;
        for (;;) {
            size_t n = strcspn(p, "|");
            if (n == len && strncmp(p, s, len) == 0) return id;
            if (!p[n]) break;
            p += n + 1;
        }
    }
    return -1;
}

/* arg as an option: its index (-1: none), the spelling given (typed) and
 * a value given with it (--mode=auto, -at=x=1, -j4) */
static int split(const char *arg, char *typed, size_t n, const char **val)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    *val = NULL;
    int id = lookup(arg, len);
    if (arg[1] == '-' || (id >= 0 && len > 2)) {
        /* --name[=value], and names like -at that are more than one letter */
        snprintf(typed, n, "%.*s", (int)len, arg);
        if (eq) *val = eq + 1;
        return id;
    }
    /* -x, with its value attached or not */
    snprintf(typed, n, "%.2s", arg);
    if (arg[2]) *val = arg + 2;
    return lookup(arg, 2);
}

/* the spelling of an option nearest to arg (its value cut off), within 2
 * edits (1 for names of 4 characters or fewer; none for -x) into near:
 * 1, else 0 */
static int suggest(const char *arg, char *near, size_t n)
{
    size_t len = strcspn(arg, "="), best = len <= 4 ? 1 : 2;
    int found = 0;
    if (len <= 2) return 0;   /* -q: any one letter is one edit away */
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        for (const char *p = opt[id].names;;) {
            size_t k = strcspn(p, "|");
            size_t dist = ad_edit_distance(arg, len, p, k);
            if (dist <= best && (!found || dist < best)) {
                snprintf(near, n, "%.*s", (int)k, p);
                best = dist;
                found = 1;
            }
            if (!p[k]) break;
            p += k + 1;
        }
    return found;
}

/* 1 when option id takes its value from the next word when none is attached */
static int takes_next(int id) { return opt[id].arg != CLI_ARG_NONE && opt[id].arg != CLI_ARG_OPTWORD; }

/* the items "@-" of a -at value */
static unsigned stdin_items(const char *p)
{
    unsigned n = 0;
    for (;;) {
        const char *end = item_end(p);
        size_t len = (size_t)(end - p);
        const char *item = trim(p, &len);
        n += len == 2 && memcmp(item, "@-", 2) == 0;
        if (!*end) return n;
        p = end + 1;
    }
}

/* what the words of the command line say before any is read: errors
 * found while reading the options are printed in the format asked for,
 * wherever --format appears, and -at @- knows the other readers of
 * stdin before it reads */
static void prescan(cli_options *o, int argc, char **argv)
{
    memset(&o->stdin_words, 0, sizeof o->stdin_words);
    o->stdin_words.session = 1;
    for (int i = 1; i < argc; i++) {
        char typed[64];
        const char *val;
        if (argv[i][0] != '-' || !argv[i][1]) continue;
        int id = split(argv[i], typed, sizeof typed, &val);
        if (id < 0 || !takes_next(id)) continue;
        if (!val && i + 1 < argc) val = argv[++i];   /* skip the value: an expression may read "--format" */
        if (!val) continue;
        int dash = strcmp(val, "-") == 0;
        if (id == CLI_OPT_FORMAT && strcmp(val, "json") == 0) o->format = CLI_FMT_JSON;
        if (id == CLI_OPT_EXPR || id == CLI_OPT_FILE || id == CLI_OPT_POINTS) o->stdin_words.session = 0;
        o->stdin_words.f += id == CLI_OPT_FILE && dash;
        o->stdin_words.lib += id == CLI_OPT_LIB && dash;
        o->stdin_words.points |= id == CLI_OPT_POINTS && dash;
        if (id == CLI_OPT_AT) o->stdin_words.at += stdin_items(val);
    }
}

/* one option word (and the next, when it is the value); *i moves past them */
static ad_errclass one_option(cli_options *o, int argc, char **argv, int *i, ad_diag *d)
{
    const char *arg = argv[*i], *val;
    char typed[64];
    int id = split(arg, typed, sizeof typed, &val);
    if (id < 0) {
        char near[40];
        if (suggest(arg, near, sizeof near))
            return usage(d, "unknown option '%s' (did you mean '%s'?)", arg, near);
        return usage(d, "unknown option '%s'", arg, NULL);
    }
    if (opt[id].arg == CLI_ARG_NONE && val) return usage(d, "option '%s' takes no value", typed, NULL);
    if (takes_next(id) && !val) {
        if (*i + 1 >= argc) return ad_diag_set(d, AD_E_USAGE, 0, 0, "option '%s' needs a value", typed);
        val = argv[++*i];
    }
    optval v = {NULL, 0, 0};
    ad_errclass e = read_value(id, typed, NULL, val, &v, d);
    if (!e) e = store(o, id, typed, &v, d);
    o->given[id]++;
    return e;
}

/* "-e", or "-e#1", "-e#2"... when there are several */
static void name_sources(cli_options *o)
{
    size_t ne = 0;
    for (size_t i = 0; i < o->nsrc; i++) ne += o->src[i].name == NULL;
    for (size_t i = 0, k = 0; i < o->nsrc; i++) {
        if (o->src[i].name) continue;
        k++;
        if (ne == 1) {
            o->src[i].name = "-e";
        } else {
            snprintf(o->src[i].label, sizeof o->src[i].label, "-e#%zu", k);
            o->src[i].name = o->src[i].label;
        }
    }
    for (size_t k = 0; k < o->nexpect; k++) {
        cli_source *s = &o->expect[k].src;
        if (o->nexpect == 1) {
            s->name = "--expect";
        } else {
            snprintf(s->label, sizeof s->label, "--expect#%zu", k + 1);
            s->name = s->label;
        }
    }
}

/* ---- the rules between options (options.def's RULE and VALUES) ---- */

typedef ad_errclass check_fn(const cli_options *o, ad_diag *d);

ad_errclass cli_adjoint_weights(const cli_options *o, size_t outputs, int vectors, ad_diag *d)
{
    if (!o->adjoint || o->nadjoint == outputs) return AD_E_NONE;
    if (vectors)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "--adjoint: %zu weight%s for %zu outputs (one weight per -e, "
                                                "and per element of a vector value)",
                           o->nadjoint, o->nadjoint == 1 ? "" : "s", outputs);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "--adjoint: %zu weight%s for %zu expression%s (one weight per -e)",
                       o->nadjoint, o->nadjoint == 1 ? "" : "s", outputs, outputs == 1 ? "" : "s");
}

/* every expression has an output at least (a vector value one per
 * element): fewer weights are wrong before any is recorded */
static ad_errclass check_adjoint_weights(const cli_options *o, ad_diag *d)
{
    return o->nadjoint < o->nsrc ? cli_adjoint_weights(o, o->nsrc, 0, d) : AD_E_NONE;
}

/* standard input is read once: by -f -, --lib -, -at @-, --points - or
 * a session (w: how many of each) */
static ad_errclass stdin_once(const cli_stdin_words *w, ad_diag *d)
{
    const char *readers[5];
    size_t n = 0;
    for (unsigned i = 0; i < w->f && n < 2; i++) readers[n++] = "-f -";
    for (unsigned i = 0; i < w->lib && n < 2; i++) readers[n++] = "--lib -";
    for (unsigned i = 0; i < w->at && n < 2; i++) readers[n++] = "-at @-";
    if (w->points) readers[n++] = "--points -";
    if (w->session) readers[n++] = "a session";
    if (n < 2) return AD_E_NONE;
    if (readers[0] == readers[1]) return usage(d, "%s given twice: stdin can be read once", readers[0], NULL);
    return usage(d, "%s and %s cannot both read stdin", readers[0], readers[1]);
}

static ad_errclass check_stdin_once(const cli_options *o, ad_diag *d)
{
    cli_stdin_words w = {0, 0, o->at_stdin, o->points && strcmp(o->points, "-") == 0, !o->nsrc && !o->points};
    for (size_t i = 0; i < o->nsrc; i++) w.f += strcmp(o->src[i].name, "<stdin>") == 0;
    for (size_t i = 0; i < o->pre.nlib; i++) w.lib += strcmp(o->pre.lib[i].name, "<stdin>") == 0;
    return stdin_once(&w, d);
}

static ad_errclass check_binary_format(const cli_options *o, ad_diag *d)
{
    if (o->binary && o->format != CLI_FMT_TEXT)
        return usage(d, o->format == CLI_FMT_JSON ? "--binary cannot be combined with --format json"
                                                  : "--binary cannot be combined with --format tsv", NULL, NULL);
    return AD_E_NONE;
}

/* --sigma: uncertainties are numbers >= 0, and so are --cov's variances
 * (repeats are found where the names become columns, sigma.c) */
static ad_errclass check_sigma_values(const cli_options *o, ad_diag *d)
{
    for (size_t k = 0; k < o->sigma.n; k++)
        if (!(o->sigma.values[k] >= 0))
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "--sigma: the uncertainty of '%.60s' is negative", o->sigma.names[k]);
    for (size_t k = 0; k < o->ncov; k++)
        if (strcmp(o->cov[k].a, o->cov[k].b) == 0 && o->cov[k].c < 0)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "--cov: the variance %.60s:%.60s is negative", o->cov[k].a,
                               o->cov[k].b);
    return AD_E_NONE;
}

/* --expect compares the gradient of one expression */
static ad_errclass check_expect_one(const cli_options *o, ad_diag *d)
{
    if (o->nexpect && o->nsrc > 1)
        return usage(d, "--expect takes one expression (its formulas are for the partial derivatives of that one)",
                     NULL, NULL);
    return AD_E_NONE;
}

/* --emit-name: a C identifier that the emitted runtime does not use */
static ad_errclass check_emit_name(const cli_options *o, ad_diag *d)
{
    static const char *const taken[] = {"adi_", "adc_", "rule_", "psi_", "series_", "bern_", "ADI_", "ADC_", "AD_",
                                        "M_", "PSI_", "REFLECT_"};
    static const char *const keywords[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum",
        "extern", "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return",
        "short", "signed", "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void",
        "volatile", "while", "main", "FAIL", "x", "out", "st", "PI"};
    const char *s = o->emit_name;
    if (!s) return AD_E_NONE;
    size_t n = strlen(s), ok = n > 0 && n <= 60 && !(s[0] >= '0' && s[0] <= '9') && s[0] != '_';
    for (size_t i = 0; i < n && ok; i++)
        ok = s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9');
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords && ok; k++) ok = strcmp(s, keywords[k]) != 0;
    if (!ok)
        return usage(d, "--emit-name: expected a C identifier (letters, digits and '_', at most 60, not a keyword "
                        "nor main, FAIL, PI, x, out or st), got '%.60s'", s, NULL);
    for (size_t k = 0; k < sizeof taken / sizeof *taken; k++)
        if (strncmp(s, taken[k], strlen(taken[k])) == 0)
            return usage(d, "--emit-name: '%.60s' may clash with the emitted code's own names (adi_, adc_, rule_, "
                            "psi_, series_, bern_, ADI_, ADC_, AD_, M_, PSI_, REFLECT_)", s, NULL);
    return AD_E_NONE;
}

static ad_errclass check_header_tsv(const cli_options *o, ad_diag *d)
{
    if (o->header && o->format != CLI_FMT_TSV)
        return usage(d, "--header needs --format tsv (text output has its own labels)", NULL, NULL);
    return AD_E_NONE;
}

/* the first of names (n of them) that is not (or, with in, that is) one
 * of -at's, or n; with vars, by variable (x[2] is of the vector x) */
static size_t first_at(const cli_options *o, char *const *names, size_t n, int in, int vars, ad_errclass *e,
                       ad_diag *d)
{
    cli_nameset at;
    const char *const *given = (const char *const *)o->at.names;
    if (!n) return 0;   /* nothing to look for: -at's million names are not sorted */
    if ((vars ? cli_nameset_vars(&at, given, o->at.n) : cli_nameset_init(&at, given, o->at.n)) < 0) {
        *e = nomem(d);
        return 0;
    }
    size_t i = 0;
    for (; i < n; i++) {
        size_t len = vars ? cli_var_len(names[i]) : strlen(names[i]);
        if ((cli_nameset_find(&at, names[i], len) != (size_t)-1) == in) break;
    }
    cli_nameset_free(&at);
    return i;
}

static ad_errclass check_points_names(const cli_options *o, ad_diag *d)
{
    ad_errclass e = AD_E_NONE;
    if (!o->points) return e;
    size_t i = first_at(o, o->vars, o->nvars, 1, 1, &e, d);
    if (!e && i < o->nvars)
        e = ad_diag_set(d, AD_E_USAGE, 0, 0, "'%.*s' is given both by -at and by the points",
                        (int)(cli_var_len(o->vars[i]) > 60 ? 60 : cli_var_len(o->vars[i])), o->vars[i]);
    return e;
}

const char *cli_spelling(const cli_options *o, const char *opt)
{
    static const char *const words[][2] = {
        {"-at", ":at"}, {"--seed", ":seed"}, {"--sigma", ":sigma"}, {"--wrt", ":wrt"}, {"--order", ":order"},
    };
    for (size_t i = 0; o->session && i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(opt, words[i][0])) return words[i][1];
    return opt;
}

/* why name, which opt (--seed, --wrt) gives, has no value in -at: an
 * element beyond its vector's length, an element of a number, a vector
 * given as a number, or a name -at does not give */
static ad_errclass not_at(const cli_options *o, const char *opt, const char *name, ad_diag *d)
{
    const char *given = cli_spelling(o, "-at");
    opt = cli_spelling(o, opt);
    cli_nameset at;
    if (cli_nameset_init(&at, (const char *const *)o->at.names, o->at.n) < 0) return nomem(d);
    size_t len = strlen(name), base = len, k;
    int element = cli_element(name, len, &base, &k);
    size_t n = cli_nameset_vector(&at, name, base);
    int number = cli_nameset_find(&at, name, base) != (size_t)-1;
    cli_nameset_free(&at);
    int bl = (int)(base > 60 ? 60 : base);
    if (element && n)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' is beyond the %zu element%s of %.*s in %s", opt, name, n,
                           n == 1 ? "" : "s", bl, name, given);
    if (element && number)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' is an element, but %s gives %.*s a number", opt, name,
                           given, bl, name);
    if (n)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' is a vector of %zu element%s in %s: give %.60s=[...]", opt,
                           name, n, n == 1 ? "" : "s", given, name);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' has no value in %s", opt, name, given);
}

/* --seed x=[...] and --sigma x=[...] (b, of option opt): as many
 * elements as the set `at` (of names[], given by where) gives x (a short
 * --sigma would leave the rest exact) */
static ad_errclass vector_lengths(const cli_bindings *b, const cli_nameset *at, const char *opt, const char *where,
                                  ad_diag *d)
{
    for (size_t v = 0; v < b->nvecs; v++) {
        const cli_vector *x = &b->vecs[v];
        size_t n = cli_nameset_vector(at, x->name, strlen(x->name));
        if (n && n != x->len)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: %.60s has %zu element%s, but %zu in %s", opt, x->name,
                               x->len, x->len == 1 ? "" : "s", n, where);
    }
    return AD_E_NONE;
}

ad_errclass cli_vector_lengths(const cli_options *o, const char *const *names, size_t n, const char *where,
                               ad_diag *d)
{
    cli_nameset at;
    if (!o->seed.nvecs && !o->sigma.nvecs) return AD_E_NONE;
    if (cli_nameset_init(&at, names, n) < 0) return nomem(d);
    where = cli_spelling(o, where);
    ad_errclass e = vector_lengths(&o->seed, &at, cli_spelling(o, "--seed"), where, d);
    if (!e) e = vector_lengths(&o->sigma, &at, cli_spelling(o, "--sigma"), where, d);
    cli_nameset_free(&at);
    return e;
}

/* --seed and --wrt may only name variables that -at gives (in batch mode
 * the points give them too: checked once the header is read, as are the
 * lengths of --seed's and --sigma's vectors against the points') */
static ad_errclass check_at_names(const cli_options *o, ad_diag *d)
{
    ad_errclass e = cli_vector_lengths(o, (const char *const *)o->at.names, o->at.n, "-at", d);
    if (e || o->points) return e;
    size_t i = first_at(o, o->seed.names, o->seed.n, 0, 0, &e, d);
    if (!e && i < o->seed.n) return not_at(o, "--seed", o->seed.names[i], d);
    if (!e) i = first_at(o, o->wrt, o->nwrt, 0, 0, &e, d);
    if (!e && i < o->nwrt) return not_at(o, "--wrt", o->wrt[i], d);
    return e;
}

/* --order differentiates along one line: a --seed direction, or one
 * variable (by element: -at x=[1,2] is two, and so is --wrt x there) */
static ad_errclass check_order_direction(const cli_options *o, ad_diag *d)
{
    if (!o->order || o->seed.n) return AD_E_NONE;
    size_t n = o->at.n;
    if (o->nwrt) {
        cli_nameset at;
        if (cli_nameset_init(&at, (const char *const *)o->at.names, o->at.n) < 0) return nomem(d);
        n = 0;
        for (size_t i = 0; i < o->nwrt; i++) {
            size_t k = cli_nameset_vector(&at, o->wrt[i], strlen(o->wrt[i]));
            n += k ? k : 1;
        }
        cli_nameset_free(&at);
    }
    if (n == 1) return AD_E_NONE;
    return ad_diag_set(d, AD_E_USAGE, 0, 0,
                       "%s needs a function of one variable (one %s variable, or %s NAME) or a %s direction",
                       cli_spelling(o, "--order"), cli_spelling(o, "-at"), cli_spelling(o, "--wrt"),
                       cli_spelling(o, "--seed"));
}

/* a session's settings, checked against its point before each
 * expression (the command line's are checked once, by the rules below) */
ad_errclass cli_check_settings(const cli_options *o, ad_diag *d)
{
    ad_errclass e = check_at_names(o, d);
    return e ? e : check_order_direction(o, d);
}

enum { RULE_NEEDS_EXPR, RULE_ONLY_WITH, RULE_NOT_WITH, RULE_VALUES };
static const struct {
    int kind;
    uint64_t group, other;
    const char *text;
    check_fn *fn;
} rules[] = {
#define B(ID) ((uint64_t)1 << CLI_OPT_##ID)
#define OPT(...)
#define RULE(kind, group, other, text) {RULE_##kind, group, other, text, NULL},
#define VALUES(name) {RULE_VALUES, 0, 0, NULL, check_##name},
#include "options.def"
#undef B
};

/* the first option of set that was given (in the order of options.def), or -1 */
static int first_given(const cli_options *o, uint64_t set)
{
    for (int id = 0; id < CLI_OPT_COUNT; id++)
        if ((set >> id & 1) && o->given[id]) return id;
    return -1;
}

/* the first option of set (in the order of options.def) */
static int first_of(uint64_t set)
{
    int id = 0;
    while (id < CLI_OPT_COUNT - 1 && !(set >> id & 1)) id++;
    return id;
}

static ad_errclass check_rules(const cli_options *o, ad_diag *d)
{
    for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
        if (rules[r].kind == RULE_VALUES) {
            ad_errclass e = rules[r].fn(o, d);
            if (e) return e;
            continue;
        }
        int g = first_given(o, rules[r].group), x = first_given(o, rules[r].other);
        char gn[32], xn[32], m[200];
        if (g < 0) continue;
        if (rules[r].kind == RULE_NEEDS_EXPR && o->nsrc == 0)
            snprintf(m, sizeof m, "needs expressions given with -e or -f");
        else if (rules[r].kind == RULE_ONLY_WITH && x < 0)
            snprintf(m, sizeof m, "only applies with %s", shown(first_of(rules[r].other), xn, sizeof xn));
        else if (rules[r].kind == RULE_NOT_WITH && x >= 0)
            snprintf(m, sizeof m, "cannot be combined with %s", shown(x, xn, sizeof xn));
        else
            continue;
        return usage(d, "%s %s", shown(g, gn, sizeof gn), rules[r].text ? rules[r].text : m);
    }
    return AD_E_NONE;
}

ad_errclass cli_options_parse(cli_options *o, int argc, char **argv, ad_diag *d)
{
    memset(o, 0, sizeof *o);
    o->step_scale = 1;
    o->rtol = 1e-5;
    o->atol = 1e-7;
    o->jobs = 1;
    o->max_nodes = AD_TAPE_DEFAULT_LIMIT;
    o->max_iterations = AD_TAPE_DEFAULT_ITERATIONS;
    prescan(o, argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] != '-' || arg[1] == 0) {
            if (i > 1 && strcmp(argv[i - 1], "--dump-tape") == 0 && word_index(opt[CLI_OPT_DUMP_TAPE].meta, arg) >= 0)
                return usage(d, "--dump-tape takes its format after '=': --dump-tape=%s", arg, NULL);
            return usage(d, "unexpected argument '%s' (expressions go after -e)", arg, NULL);
        }
        if (strcmp(arg, "--") == 0) {
            if (i + 1 < argc) return usage(d, "unexpected argument '%s' (expressions go after -e)", argv[i + 1], NULL);
            break;
        }
        ad_errclass e = one_option(o, argc, argv, &i, d);
        if (e) {
            prescan(o, argc, argv);   /* the error in the format asked for anywhere */
            return e;
        }
    }
    name_sources(o);
    ad_errclass e = cli_prelude_build(o, d);
    if (e) return e;
    o->no_block = getenv("ADCALC_NO_BLOCK") != NULL;
    if (o->points && getenv("ADCALC_JIT")) o->jit = 1;
    if (o->help || o->version || o->completion_table) return AD_E_NONE;
    if ((e = expand_wrt(o, d))) return e;
    return check_rules(o, d);
}

void cli_options_free(cli_options *o)
{
    for (size_t i = 0; i < o->nsrc; i++) free((char *)o->src[i].src);
    cli_bindings_free(&o->at);
    free(o->at_file);
    cli_bindings_free(&o->seed);
    for (size_t i = 0; i < o->nwrt; i++) free(o->wrt[i]);
    for (size_t i = 0; i < o->nvars; i++) free(o->vars[i]);
    for (size_t k = 0; k < o->nexpect; k++) {
        free(o->expect[k].var);
        free((char *)o->expect[k].src.src);
    }
    free(o->expect);
    cli_bindings_free(&o->sigma);
    for (size_t k = 0; k < o->ncov; k++) {
        free(o->cov[k].a);
        free(o->cov[k].b);
    }
    free(o->cov);
    free(o->src);
    cli_prelude_free(&o->pre);
    free(o->wrt);
    free(o->adjoint);
    free(o->vars);
}

/* forgets what option id says, as if it had not been given */
static void forget(cli_options *o, int id)
{
    switch (id) {
    case CLI_OPT_GRAD: o->grad = 0; break;
    case CLI_OPT_HESSIAN: o->hessian = 0; break;
    case CLI_OPT_ORDER: o->order = 0; break;
    case CLI_OPT_PRECISION: o->precision = 0; break;
    case CLI_OPT_FORMAT: o->format = CLI_FMT_TEXT; break;
    case CLI_OPT_MODE: o->mode = AD_MODE_DEFAULT; break;
    case CLI_OPT_NONDIFF: o->policy = AD_STRICT; break;
    case CLI_OPT_WRT:
        for (size_t i = 0; i < o->nwrt; i++) free(o->wrt[i]);
        o->nwrt = 0;
        break;
    case CLI_OPT_SEED:
        for (size_t i = 0; i < o->seed.n; i++) free(o->seed.names[i]);
        for (size_t v = 0; v < o->seed.nvecs; v++) free(o->seed.vecs[v].name);
        o->seed.n = o->seed.nvecs = 0;
        break;
    }
    o->given[id] = 0;
}

ad_errclass cli_option_set(cli_options *o, const char *name, const char *label, const char *value, ad_diag *d)
{
    int id = lookup(name, strlen(name));
    if (id < 0) return usage(d, "unknown option '%s'", name, NULL);
    optval v = {NULL, 0, 0};
    ad_errclass e = value ? read_value(id, label, label, value, &v, d) : AD_E_NONE;
    if (e) return e;
    forget(o, id);
    if (!value) return AD_E_NONE;
    if ((e = store(o, id, label, &v, d)) || (id == CLI_OPT_WRT && (e = expand_wrt(o, d)))) {
        forget(o, id);
        return e;
    }
    o->given[id] = 1;
    return AD_E_NONE;
}

void cli_request(const cli_options *o, int joint, ad_request *rq)
{
    memset(rq, 0, sizeof *rq);
    rq->vars = (const char *const *)o->at.names;
    rq->nvars = o->at.n;
    rq->cols = (const char *const *)(o->nwrt ? o->wrt : o->at.names);
    rq->ncols = o->nwrt ? o->nwrt : o->at.n;
    rq->seed_vars = (const char *const *)o->seed.names;
    rq->seed = o->seed.values;
    rq->nseed = o->seed.n;
    rq->weights = o->adjoint;
    /* the outputs of one tape have a Jacobian only when asked; --grad
     * (or --wrt) and, in batch mode, --jacobian ask for first derivatives;
     * --emit-c writes several -e as the outputs of one tape, each with the
     * gradient --grad gives it alone */
    rq->grad = joint && !o->emit ? o->jacobian : o->grad || o->jacobian || o->sigma.n || o->ncov;
    rq->jacobian = o->jacobian;
    rq->hessian = o->hessian;
    rq->order = o->order;
    rq->check = o->check || o->nexpect;   /* --expect shows the check's finite differences */
    rq->step_scale = o->step_scale;
    rq->rtol = o->rtol;
    rq->atol = o->atol;
    rq->mode = o->mode;
    rq->policy = o->policy;
}
