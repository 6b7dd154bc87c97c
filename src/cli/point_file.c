/* point_file.c - points written as JSON objects (point_file.h): the reader
 * of one object of names and numbers or arrays of numbers, shared by -at
 * @FILE and batch mode's JSON rows, and -at @FILE's bindings.  One pass
 * over the text, into arrays that grow by doubling: time and memory
 * linear in the text. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buf.h"
#include "names.h"
#include "point_file.h"

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void skip_blanks(const char *s, size_t n, size_t *i)
{
    while (*i < n && blank(s[*i])) ++*i;
}

/* an error at offset at: -1 */
static int fail(cli_jpoint *p, size_t at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(cli_jpoint *p, size_t at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, sizeof p->why, fmt, ap);
    va_end(ap);
    p->err_at = at;
    return -1;
}

static int out_of_memory(cli_jpoint *p, size_t at)
{
    p->nomem = 1;
    return fail(p, at, "out of memory");
}

/* "expected WHAT, found ..." at s[i] (or at the end) */
static int expected(cli_jpoint *p, const char *s, size_t n, size_t i, const char *what)
{
    if (i >= n) return fail(p, i, "expected %s, found the end", what);
    unsigned char c = (unsigned char)s[i];
    if (c < 32 || c >= 127) return fail(p, i, "expected %s, found the byte 0x%02x", what, c);
    return fail(p, i, "expected %s, found '%c'", what, c);
}

/* the string at s[*i] (its opening quote): its text s[*b..*e), escapes
 * stepped over, not read; *i moves past its closing quote */
static int string(cli_jpoint *p, const char *s, size_t n, size_t *i, size_t *b, size_t *e)
{
    size_t j = *i + 1;
    while (j < n && s[j] != '"') {
        if ((unsigned char)s[j] < 32)
            return fail(p, j, "a control character (byte 0x%02x) in a string", (unsigned char)s[j]);
        j += s[j] == '\\' ? 2 : 1;
    }
    if (j >= n) return fail(p, *i, "a string without its closing quote");
    *b = *i + 1;
    *e = j;
    *i = j + 1;
    return 0;
}

/* "value of 'x'", or "value of 'x' (element k)" for k > 0 */
static void value_of(char *buf, size_t bn, const cli_jmember *m, size_t k)
{
    int nl = (int)(m->len > 60 ? 60 : m->len);
    if (k) snprintf(buf, bn, "value of '%.*s' (element %zu)", nl, m->name, k);
    else snprintf(buf, bn, "value of '%.*s'", nl, m->name);
}

/* 1 for the bytes that end a bare value: blanks and JSON's punctuation */
static int delimiter(char c)
{
    switch (c) {
    case ' ': case '\t': case '\r': case '\n': case ',': case ':': case '[': case ']': case '{': case '}': case '"':
        return 1;
    }
    return 0;
}

/* the end of a bare value (a number, or a word such as true) at s[i] */
static size_t word_end(const char *s, size_t n, size_t i)
{
    while (i < n && !delimiter(s[i])) i++;
    return i;
}

/* one number of member m (element k of its array, or k = 0) into p->v */
static int number(cli_jpoint *p, const cli_jmember *m, size_t k, const char *s, size_t n, size_t *i)
{
    char what[100];
    size_t at = *i, end = word_end(s, n, at);
    double v;
    const char *why;
    int rc = end > at ? cli_parse_number(s + at, end - at, &v, &why) : -1;
    if (rc == -2) return out_of_memory(p, at);
    if (rc < 0) value_of(what, sizeof what, m, k);   /* the message's start */
    if (rc < 0 && at < n && s[at] == '"') {
        size_t b, e;
        if (string(p, s, n, i, &b, &e) < 0) return -1;
        return fail(p, at, "%s is not a number: \"%.*s\"%s", what, (int)(e - b > 40 ? 40 : e - b), s + b,
                    e - b > 40 ? "..." : "");
    }
    if (rc < 0 && at < n && (s[at] == '{' || s[at] == '['))
        return fail(p, at, "%s is %s: %s", what, s[at] == '{' ? "an object" : "an array",
                    k ? "a vector's elements are numbers" : "a value is a number or an array of numbers");
    if (end == at) return expected(p, s, n, at, k ? "a number" : "a number or an array of numbers");
    if (rc < 0) return fail(p, at, "%s %s: '%.*s'%s", what, why, (int)(end - at > 40 ? 40 : end - at), s + at,
                            end - at > 40 ? "..." : "");
    if (cli_room((void **)&p->v, p->nv, &p->vcap, sizeof *p->v) < 0) return out_of_memory(p, at);
    p->v[p->nv++] = v;
    *i = end;
    return 0;
}

/* the array of numbers at s[*i] (its '['): the values of member p->m[j] */
static int array(cli_jpoint *p, size_t j, const char *s, size_t n, size_t *i)
{
    size_t open = *i;
    ++*i;
    skip_blanks(s, n, i);
    p->m[j].vector = 1;
    if (*i < n && s[*i] == ']') {
        char what[100];
        value_of(what, sizeof what, &p->m[j], 0);
        return fail(p, open, "%s is an empty vector (a vector variable has at least one element)", what);
    }
    for (size_t k = 1;; k++) {
        if (k > AD_VECTOR_MAX)
            return fail(p, *i, "value of '%.*s' has too many elements (at most %d)",
                        (int)(p->m[j].len > 60 ? 60 : p->m[j].len), p->m[j].name, AD_VECTOR_MAX);
        if (number(p, &p->m[j], k, s, n, i) < 0) return -1;
        p->m[j].n++;
        skip_blanks(s, n, i);
        if (*i < n && s[*i] == ']') break;
        if (*i >= n || s[*i] != ',') {
            char what[120];
            snprintf(what, sizeof what, "',' or ']' after element %zu of '%.*s'", k,
                     (int)(p->m[j].len > 60 ? 60 : p->m[j].len), p->m[j].name);
            return expected(p, s, n, *i, what);
        }
        ++*i;
        skip_blanks(s, n, i);
    }
    ++*i;
    return 0;
}

/* one "name": value of the object at s[*i] */
static int member(cli_jpoint *p, const char *s, size_t n, size_t *i)
{
    if (*i >= n || s[*i] != '"') return expected(p, s, n, *i, "a name in double quotes");
    size_t at = *i, b, e;
    if (string(p, s, n, i, &b, &e) < 0) return -1;
    if (cli_room((void **)&p->m, p->nm, &p->mcap, sizeof *p->m) < 0) return out_of_memory(p, at);
    cli_jmember *m = &p->m[p->nm++];
    *m = (cli_jmember){s + b, e - b, at, p->nv, 0, 0};
    skip_blanks(s, n, i);
    if (*i >= n || s[*i] != ':') {
        char what[100];
        snprintf(what, sizeof what, "':' after \"%.*s\"", (int)(m->len > 60 ? 60 : m->len), m->name);
        return expected(p, s, n, *i, what);
    }
    ++*i;
    skip_blanks(s, n, i);
    if (*i < n && s[*i] == '[') return array(p, p->nm - 1, s, n, i);
    if (number(p, m, 0, s, n, i) < 0) return -1;
    m->n = 1;
    return 0;
}

int cli_jpoint_read(cli_jpoint *p, const char *s, size_t n, size_t *i)
{
    p->nm = p->nv = 0;
    p->nomem = 0;
    p->why[0] = 0;
    skip_blanks(s, n, i);
    if (*i >= n || s[*i] != '{')
        return expected(p, s, n, *i, "'{' (a point is a JSON object: {\"x\": [1, 2], \"y\": 0.5})");
    ++*i;
    skip_blanks(s, n, i);
    if (*i < n && s[*i] == '}') {
        ++*i;
        skip_blanks(s, n, i);
        return 0;
    }
    for (;;) {
        if (member(p, s, n, i) < 0) return -1;
        skip_blanks(s, n, i);
        if (*i < n && s[*i] == '}') break;
        if (*i >= n || s[*i] != ',') {
            const cli_jmember *m = &p->m[p->nm - 1];
            char what[100];
            snprintf(what, sizeof what, "',' or '}' after the value of '%.*s'", (int)(m->len > 60 ? 60 : m->len),
                     m->name);
            return expected(p, s, n, *i, what);
        }
        ++*i;
        skip_blanks(s, n, i);
    }
    ++*i;
    skip_blanks(s, n, i);
    return 0;
}

void cli_jpoint_free(cli_jpoint *p)
{
    free(p->m);
    free(p->v);
    memset(p, 0, sizeof *p);
}

int cli_jpoint_read_all(cli_jpoint *p, const char *s, size_t n)
{
    size_t i = 0;
    if (cli_jpoint_read(p, s, n, &i) < 0) return -1;
    return i < n ? expected(p, s, n, i, "the end after the object's closing '}'") : 0;
}

/* "variable 'x' given twice" for the first key of p that repeats an
 * earlier one, at its offset: 0 when none does, -1 with p's error */
static int unique_keys(cli_jpoint *p)
{
    const char **names = malloc((p->nm ? p->nm : 1) * sizeof *names);
    size_t *lens = malloc((p->nm ? p->nm : 1) * sizeof *lens), at = p->nm;
    int rc = names && lens ? 0 : -1;
    for (size_t j = 0; !rc && j < p->nm; j++) {
        names[j] = p->m[j].name;
        lens[j] = p->m[j].len;
    }
    if (!rc) rc = cli_first_repeat(names, lens, p->nm, &at);
    free(names);
    free(lens);
    if (rc < 0) return out_of_memory(p, 0);
    if (at == p->nm) return 0;
    const cli_jmember *m = &p->m[at];
    return fail(p, m->at, "variable '%.*s' given twice", (int)(m->len > 60 ? 60 : m->len), m->name);
}

void cli_text_position(const char *s, size_t at, long *line, long *col)
{
    size_t start = 0;
    *line = 1;
    for (size_t k = 0; k < at; k++)
        if (s[k] == '\n') {
            ++*line;
            start = k + 1;
        }
    *col = (long)(at - start) + 1;
}

/* every key a variable name */
static int names_ok(cli_jpoint *p)
{
    for (size_t j = 0; j < p->nm; j++) {
        const cli_jmember *m = &p->m[j];
        const char *why = cli_name_problem(m->name, m->len);
        if (why)
            return fail(p, m->at, "'%.*s'%s %s", (int)(m->len > 60 ? 60 : m->len), m->name, m->len > 60 ? "..." : "",
                        why);
    }
    return 0;
}

int cli_jpoint_read_point(cli_jpoint *p, const char *s, size_t n)
{
    if (cli_jpoint_read_all(p, s, n) < 0 || names_ok(p) < 0) return -1;
    return unique_keys(p);
}

/* the members of p as bindings of b: 0, or -1 when out of memory */
static int bind_all(const cli_jpoint *p, cli_bindings *b)
{
    for (size_t j = 0; j < p->nm; j++) {
        const cli_jmember *m = &p->m[j];
        int rc = m->vector ? cli_bind_vector(b, m->name, m->len, p->v + m->first, m->n)
                           : cli_bind(b, m->name, m->len, p->v[m->first]);
        if (rc < 0) return -1;
    }
    return 0;
}

ad_errclass cli_point_file_bind(const char *text, size_t n, cli_bindings *b, ad_diag *d)
{
    cli_jpoint p = {0};
    int rc = cli_jpoint_read_point(&p, text, n);
    if (!rc && bind_all(&p, b) < 0) rc = out_of_memory(&p, 0);
    ad_errclass e = AD_E_NONE;
    if (rc < 0 && p.nomem) {
        e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    } else if (rc < 0) {
        long line, col;
        cli_text_position(text, p.err_at, &line, &col);
        e = ad_diag_set(d, AD_E_SYNTAX, line > INT_MAX ? 0 : (int)line, col > INT_MAX ? 0 : (int)col, "%s", p.why);
    }
    cli_jpoint_free(&p);
    return e;
}
