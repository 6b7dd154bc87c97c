/* libs.c - libraries of definitions (libs.h).  An -e, -f or --expect is
 * recorded after the prelude: every --lib file's text followed by a line
 * ";" (so a library's unfinished last statement cannot run on into the
 * expression).  The engine sees one program, the diagnostics give each
 * line back to the file it came from (cli_prelude_locate), and the
 * libraries are checked once, before anything is recorded after them.
 * A library holds definitions, assignments and control flow: an
 * expression in one would be a value nothing uses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libs.h"

static ad_errclass nomem(ad_diag *d) { return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }

static int count_lines(const char *s, size_t n)
{
    int k = 0;
    for (const char *p = s; (p = memchr(p, '\n', (size_t)(s + n - p))) != NULL; p++) k++;
    return k;
}

/* the lines of a library's own text */
static int own_lines(const cli_source *l)
{
    return count_lines(l->src, l->len) + (l->len && l->src[l->len - 1] != '\n');
}

/* an error past a library's last line (at the ";" after it, or the
 * expression): its last statement is unfinished, said at its end */
static void ends_inside(const cli_source *l, ad_diag *d)
{
    const char *end = l->src + l->len;
    if (end > l->src && end[-1] == '\n') end--;
    const char *start = end;
    while (start > l->src && start[-1] != '\n') start--;
    char why[sizeof d->msg];
    snprintf(why, sizeof why, "%s", d->msg);
    int missing = strncmp(why, "missing ", 8) == 0;   /* "missing '}' to close the '{' at 2:10" */
    ad_diag_set(d, d->cls, own_lines(l) ? own_lines(l) : 1, (int)(end - start) + 1, "the library ends inside a statement%s%s",
                missing ? ": " : "", missing ? why : "");
}

ad_errclass cli_prelude_build(cli_options *o, ad_diag *d)
{
    cli_prelude *p = &o->pre;
    if (!p->nlib) return AD_E_NONE;
    size_t total = 0;
    for (size_t k = 0; k < p->nlib; k++) total += p->lib[k].len + 3;
    p->text = malloc(total);
    p->first = malloc(p->nlib * sizeof *p->first);
    p->end = malloc(p->nlib * sizeof *p->end);
    if (!p->text || !p->first || !p->end) return nomem(d);
    for (size_t k = 0; k < p->nlib; k++) {
        const cli_source *l = &p->lib[k];
        p->first[k] = p->lines + 1;
        memcpy(p->text + p->len, l->src, l->len);
        p->len += l->len;
        p->lines += count_lines(l->src, l->len);
        if (l->len && l->src[l->len - 1] != '\n') {
            p->text[p->len++] = '\n';
            p->lines++;
        }
        memcpy(p->text + p->len, ";\n", 2);
        p->len += 2;
        p->lines++;
        p->end[k] = p->len;
    }
    for (size_t i = 0; i < o->nsrc; i++) o->src[i].pre = p;
    for (size_t k = 0; k < o->nexpect; k++) o->expect[k].src.pre = p;
    return AD_E_NONE;
}

void cli_prelude_free(cli_prelude *p)
{
    for (size_t k = 0; k < p->nlib; k++) free((char *)p->lib[k].src);
    free(p->lib);
    free(p->first);
    free(p->end);
    free(p->text);
    memset(p, 0, sizeof *p);
}

ad_errclass cli_lib_statements(const char *text, size_t len, ad_diag *d)
{
    size_t pos = 0;
    int line = 1, col = 1;
    ad_stmt st;
    while (ad_next_stmt(text, len, &pos, &line, &col, &st))
        if (st.kind == AD_STMT_EXPR)
            return ad_diag_set(d, AD_E_SYNTAX, st.line, st.col,
                               "a library holds definitions and assignments: this expression's value "
                               "would be unused");
    return AD_E_NONE;
}

/* the first n bytes of the prelude, then src[0..len), as one text */
static char *join(const cli_prelude *p, size_t n, const char *src, size_t len, size_t *out)
{
    char *t = malloc(n + len + 1);
    if (!t) return NULL;
    memcpy(t, p->text, n);
    memcpy(t + n, src, len);
    t[n + len] = 0;
    *out = n + len;
    return t;
}

char *cli_prelude_join(const cli_prelude *p, const char *src, size_t len, size_t *n)
{
    return join(p, p->len, src, len, n);
}

const cli_source *cli_prelude_locate(const cli_source *s, int line, int *at_line)
{
    const cli_prelude *p = s->pre;
    *at_line = line;
    if (!p || !p->nlib || line >= 1) return s;
    line += p->lines;   /* the prelude's own line, from 1 */
    size_t k = p->nlib - 1;
    while (k > 0 && p->first[k] > line) k--;
    *at_line = line - p->first[k] + 1;
    return &p->lib[k];
}

/* records the first `upto` bytes of the prelude and an expression after
 * them, the line `first` of the prelude numbered 1 */
static ad_errclass record(const cli_options *o, ad_tape *t, size_t upto, int first, ad_diag *d)
{
    size_t n;
    char *text = join(&o->pre, upto, "0", 1, &n);
    if (!text) return nomem(d);
    ad_tape_set_limit(t, (size_t)o->max_nodes);
    ad_tape_set_iterations(t, (size_t)o->max_iterations);
    ad_tape_set_first_line(t, 2 - first);
    ad_errclass e = ad_parse(t, text, n, d);
    free(text);
    return e;
}

ad_errclass cli_prelude_check(const cli_options *o, const cli_source **at, ad_diag *d)
{
    const cli_prelude *p = &o->pre;
    *at = NULL;
    if (!p->nlib) return AD_E_NONE;
    for (size_t k = 0; k < p->nlib; k++) {
        ad_errclass e = cli_lib_statements(p->lib[k].src, p->lib[k].len, d);
        if (e) {
            *at = &p->lib[k];
            return e;
        }
    }
    ad_tape *t = ad_tape_new();
    if (!t) return nomem(d);
    /* all of them once, with an expression after them as every source has;
     * when that fails, the library at fault again, after the ones before
     * it, with its own lines counted from 1 (so are positions in its
     * messages): two recordings, whatever the number of libraries */
    ad_errclass e = record(o, t, p->len, 1, d);
    if (e && d->line != 0) {
        size_t k = p->nlib - 1;
        while (k > 0 && p->first[k] > d->line) k--;
        *at = &p->lib[k];
        e = record(o, t, p->end[k], p->first[k], d);
        if (e && d->line > own_lines(&p->lib[k])) ends_inside(&p->lib[k], d);
    }
    ad_tape_free(t);
    if (!e) *at = NULL;
    return e;
}
