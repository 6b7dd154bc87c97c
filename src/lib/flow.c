/* flow.c - the statements of control flow in programs: if / else if /
 * else, while and for.  They run as the program is recorded, at the point
 * it is recorded at (the tape computes every value as it records): a
 * condition is decided by those values, only the block taken is recorded,
 * a loop records each iteration it runs.  The tape is the path, as in
 * ADOL-C; the comparisons it was decided by are its guards (parse.c's
 * adi_compare), and derive.c records the program again at a point where a
 * guard does not hold.
 *
 * A block not taken is still parsed, once, with prog->skip set: its errors
 * are errors wherever the point is, its free names are inputs, and its
 * nodes feed nothing (the finished tape drops them).  Its assignments are
 * undone when it ends, so a name assigned in one branch only keeps its
 * earlier value in the others.
 *
 * Limits: blocks nest at most ADI_MAX_BLOCK_DEPTH deep; loops run at most
 * the tape's max_iter iterations in all (ad_tape_set_iterations). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "alloc.h"

#define ADI_MAX_BLOCK_DEPTH 128

/* a span of the source and the position of its first byte */
typedef struct {
    size_t off, end;
    int line, col;
} span;

/* the position of byte to, counting from byte from at line:col */
static span span_at(const char *s, size_t from, int line, int col, size_t to, size_t end)
{
    for (size_t i = from; i < to; i++) {
        if (s[i] == '\n') { line++; col = 1; }
        else col++;
    }
    return (span){to, end, line, col};
}

static int blank(const char *s, const span *sp) { return adi_skip_space(s, sp->end, sp->off) >= sp->end; }

/* a node that could not be recorded: the tape's limit, or out of memory */
static ad_errclass nomem(const ad_tape *t, ad_diag *d) { return adi_err_recording(t, "out of memory", d); }

static ad_errclass too_many(const ad_tape *t, int line, int col, ad_diag *d)
{
    ad_errclass e = ad_diag_set(d, AD_E_IO, line, col, "the loops ran more than %zu iterations", t->max_iter);
    if (d) d->hint = AD_HINT_ITER_LIMIT;
    return e;
}

/* runs the statements of block sp; taken 0: a block not taken (parsed, then undone) */
static ad_errclass block(ad_tape *t, adi_prog *g, const span *sp, int taken, ad_diag *d)
{
    if (taken) return adi_prog_block(t, g, sp->off, sp->end, sp->line, sp->col, d);
    size_t mark = g->nundo;
    g->skip++;
    ad_errclass e = adi_prog_block(t, g, sp->off, sp->end, sp->line, sp->col, d);
    g->skip--;
    adi_prog_undo(g, mark);
    return e;
}

/* the '{' ... '}' at or after byte i of statement st: the block inside,
 * or an error naming what keyword needs it.  from: a position at or
 * before i (positions are counted from it, not from the statement's
 * start: an else-if chain costs its length, not its length squared) */
static ad_errclass braces(const adi_prog *g, const ad_stmt *st, const span *from, size_t i, const char *what,
                          span *body, size_t *after, ad_diag *d)
{
    const char *s = g->src;
    size_t end = st->off + st->len;
    size_t open = adi_block_open(s, end, i);
    span o = span_at(s, from->off, from->line, from->col, open, end);
    if (open >= end || s[open] != '{')
        return ad_diag_set(d, AD_E_SYNTAX, o.line, o.col, "expected '{' to open the block of '%s'", what);
    size_t close = adi_block_close(s, end, open);
    if (close >= end) {
        span z = span_at(s, o.off, o.line, o.col, end, end);
        return ad_diag_set(d, AD_E_SYNTAX, z.line, z.col, "missing '}' to close the '{' at %d:%d", o.line, o.col);
    }
    *body = span_at(s, open, o.line, o.col, open + 1, close);
    *after = close + 1;
    return AD_E_NONE;
}

/* the condition between byte i and the block's '{': its outcome (0, 1),
 * or -1 with the error set */
static int condition(ad_tape *t, adi_prog *g, const ad_stmt *st, const span *from, size_t i, const char *what,
                     ad_diag *d, ad_errclass *e)
{
    const char *s = g->src;
    size_t end = st->off + st->len;
    span c = span_at(s, from->off, from->line, from->col, i, adi_block_open(s, end, i));
    if (blank(s, &c)) {
        *e = ad_diag_set(d, AD_E_SYNTAX, c.line, c.col, "'%s' needs a condition before its '{'", what);
        return -1;
    }
    return adi_parse_cond(t, g, c.off, c.end - c.off, c.line, c.col, d, e);
}

/* if C { } else if C { } else { }: the first block whose condition holds
 * runs; the conditions after it, and the other blocks, are only parsed */
static ad_errclass run_if(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    const char *s = g->src;
    size_t end = st->off + st->len, i = st->off;
    span cur = {st->off, end, st->line, st->col};
    int done = 0;
    ad_errclass e = AD_E_NONE;
    for (;;) {
        /* i is at 'if' */
        size_t after;
        span body;
        cur = span_at(s, cur.off, cur.line, cur.col, i, end);
        g->skip += done;
        int truth = condition(t, g, st, &cur, i + 2, "if", d, &e);
        g->skip -= done;
        if (truth < 0) return e;
        if ((e = braces(g, st, &cur, i + 2, "if", &body, &after, d))) return e;
        if ((e = block(t, g, &body, !done && truth, d))) return e;
        done |= truth;
        size_t j = adi_skip_space(s, end, after);
        if (!adi_is_else(s, end, j)) return AD_E_NONE;
        j = adi_skip_space(s, end, j + 4);
        cur = span_at(s, body.off, body.line, body.col, j, end);
        if (j < end && s[j] == '{') {
            if ((e = braces(g, st, &cur, j, "else", &body, &after, d))) return e;
            return block(t, g, &body, !done, d);
        }
        if (j + 2 > end || memcmp(s + j, "if", 2) != 0) {
            span z = cur;
            return ad_diag_set(d, AD_E_SYNTAX, z.line, z.col, "expected '{' or 'if' after 'else'");
        }
        i = j;
    }
}

/* while C { }: the block runs while the condition holds (parsed once if
 * it never does) */
static ad_errclass run_while(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    size_t after;
    span body, at = {st->off, st->off + st->len, st->line, st->col};
    ad_errclass e = braces(g, st, &at, st->off + 5, "while", &body, &after, d);
    if (e) return e;
    g->inloop++;
    for (int first = 1;; first = 0) {
        int truth = condition(t, g, st, &at, st->off + 5, "while", d, &e);
        if (truth < 0) break;
        if (!truth || g->skip || t->undecided) {
            /* (a recording at no point that met a nan stops looping: its
             * path is no point's, see adi_compare) */
            e = first ? block(t, g, &body, 0, d) : AD_E_NONE;
            break;
        }
        if (++g->iterations > t->max_iter) {
            e = too_many(t, st->line, st->col, d);
            break;
        }
        if ((e = block(t, g, &body, 1, d))) break;
    }
    g->inloop--;
    return e;
}

/* a for loop's bound: the number span b gives at the point, which must be
 * whole; *node its node */
static ad_errclass bound(ad_tape *t, adi_prog *g, const span *b, const char *which, double *v, int32_t *node,
                         ad_diag *d)
{
    if (blank(g->src, b))
        return ad_diag_set(d, AD_E_SYNTAX, b->line, b->col, "the %s bound of 'for' is missing", which);
    ad_errclass e;
    *node = adi_parse_span(t, g, b->off, b->end - b->off, b->line, b->col, NULL, 0, 0, d, &e);
    if (e) return e;
    if (adi_is_vec(*node)) return adi_vec_root_error(g, *node, b->line, b->col, "a bound of 'for'", d);
    *v = t->rval[*node];
    if (isnan(*v) && !t->at && t->rdep[*node]) {
        t->undecided = 1;   /* no point: decided at each one (guard_bound holds nowhere) */
        return AD_E_NONE;
    }
    if (!(fabs(*v) <= 9007199254740992.0) || *v != floor(*v)) {
        char num[40];
        snprintf(num, sizeof num, "%.17g", *v);
        if (isfinite(*v) && *v == floor(*v))   /* past 2^53 a double is whole, but i+1 may be i */
            return ad_diag_set(d, AD_E_DOMAIN, b->line, b->col,
                               "the %s bound of 'for' is %s, beyond 2^53 (the largest whole number a count holds)",
                               which, num);
        return ad_diag_set(d, AD_E_DOMAIN, b->line, b->col, "the %s bound of 'for' is %s, not a whole number",
                           which, num);
    }
    return AD_E_NONE;
}

/* the guard that a bound depending on an input keeps its value (a bound
 * of no value, recorded at no point, holds nowhere) */
static ad_errclass guard_bound(ad_tape *t, adi_prog *g, const span *b, int32_t node, double v, ad_diag *d)
{
    if (g->skip || !t->rdep[node]) return AD_E_NONE;
    char text[40];
    snprintf(text, sizeof text, "%.17g", v);
    int32_t k = adi_rec_const(t, v, text, strlen(text), b->line, b->col);
    if (k < 0 || adi_rec_op(t, AD_OP_EQ, node, k, b->line, b->col) < 0) return nomem(t, d);
    return AD_E_NONE;
}

/* binds the loop variable s[name..name+nl) to the constant k */
static ad_errclass bind_loopvar(ad_tape *t, adi_prog *g, size_t name, size_t nl, const span *at, double k,
                                ad_diag *d)
{
    char text[40];
    snprintf(text, sizeof text, "%.17g", k);
    int32_t node = adi_rec_const(t, k, text, strlen(text), at->line, at->col);
    if (node < 0 || adi_symtab_set(&g->bindings, g->src + name, nl, node) < 0) return nomem(t, d);
    return AD_E_NONE;
}

/* for NAME = A..B { }: the block runs for NAME = A, A+1, ..., B (not at
 * all when B < A), NAME a constant in it */
static ad_errclass run_for(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    const char *s = g->src;
    size_t end = st->off + st->len;
    size_t i = adi_skip_space(s, end, st->off + 3), name = i;
    while (i < end && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                       (i > name && s[i] >= '0' && s[i] <= '9')))
        i++;
    size_t nl = i - name;
    span at = span_at(s, st->off, st->line, st->col, name, end);
    if (nl == 0) return ad_diag_set(d, AD_E_SYNTAX, at.line, at.col, "expected the name of the loop variable after 'for'");
    if (ad_reserved(s + name, nl) || adi_symtab_get(&g->funcs, s + name, nl) >= 0)
        return ad_diag_set(d, AD_E_NAME, at.line, at.col, "the loop variable '%.*s' is a reserved name",
                           (int)(nl > 60 ? 60 : nl), s + name);
    i = adi_skip_space(s, end, i);
    size_t open = adi_block_open(s, end, i);
    const char *dots = NULL;
    if (i < end && s[i] == '=' && open > i + 1) {
        for (size_t k = i + 1; k + 1 < open; k++)
            if (s[k] == '.' && s[k + 1] == '.') { dots = s + k; break; }
    }
    if (!dots) {
        span z = span_at(s, st->off, st->line, st->col, i, end);
        return ad_diag_set(d, AD_E_SYNTAX, z.line, z.col, "expected '= FIRST..LAST' after 'for %.*s'",
                           (int)(nl > 60 ? 60 : nl), s + name);
    }
    size_t dot = (size_t)(dots - s);
    span a = span_at(s, st->off, st->line, st->col, i + 1, dot);
    span b = span_at(s, a.off, a.line, a.col, dot + 2, open);
    size_t after;
    span body;
    double va, vb;
    int32_t na, nb;
    span here = span_at(s, st->off, st->line, st->col, i, end);
    ad_errclass e = braces(g, st, &here, i, "for", &body, &after, d);
    if (!e) e = bound(t, g, &a, "first", &va, &na, d);
    if (!e) e = bound(t, g, &b, "last", &vb, &nb, d);
    if (!e) e = guard_bound(t, g, &a, na, va, d);
    if (!e) e = guard_bound(t, g, &b, nb, vb, d);
    if (e) return e;
    int none = g->skip || t->undecided || isnan(va) || isnan(vb) || vb < va;
    if (!none && vb - va + 1 > (double)(t->max_iter - g->iterations))
        return too_many(t, st->line, st->col, d);
    /* the loop variable: bound to a constant for each iteration, then
     * back to what it was */
    int32_t prev = adi_symtab_get(&g->bindings, s + name, nl);
    if (adi_grow((void **)&g->loopvar, &g->loopvarcap, g->nloopvar + 1, sizeof *g->loopvar) < 0) return nomem(t, d);
    g->loopvar[g->nloopvar++] = (adi_loopvar){name, nl, st->line, st->col};
    if (none) {
        /* parsed once, with the loop variable at its first value */
        e = bind_loopvar(t, g, name, nl, &at, isnan(va) ? 0 : va, d);
        if (!e) e = block(t, g, &body, 0, d);
    }
    g->inloop += !none;
    for (double k = va; !none && !e && k <= vb; k++) {
        g->iterations++;
        e = bind_loopvar(t, g, name, nl, &at, k, d);
        if (!e) e = block(t, g, &body, 1, d);
    }
    g->inloop -= !none;
    g->nloopvar--;
    if (prev >= 0) adi_symtab_set(&g->bindings, s + name, nl, prev);   /* the key is there: no memory */
    else adi_symtab_forget(&g->bindings, s + name, nl);
    return e;
}

ad_errclass adi_flow_stmt(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d)
{
    if (st->kind == AD_STMT_ELSE)
        return ad_diag_set(d, AD_E_SYNTAX, st->line, st->col, "'else' without 'if'");
    char here;
    uintptr_t at = (uintptr_t)&here, top = g->stack_top;
    uintptr_t used = top > at ? top - at : at - top;
    if (g->blockdepth >= ADI_MAX_BLOCK_DEPTH || (top && used > ADI_INLINE_STACK))
        return ad_diag_set(d, AD_E_SYNTAX, st->line, st->col, "blocks nested more than %d deep",
                           g->blockdepth >= ADI_MAX_BLOCK_DEPTH ? ADI_MAX_BLOCK_DEPTH : g->blockdepth);
    g->blockdepth++;
    ad_errclass e = st->kind == AD_STMT_IF      ? run_if(t, g, st, d)
                    : st->kind == AD_STMT_WHILE ? run_while(t, g, st, d)
                                                : run_for(t, g, st, d);
    g->blockdepth--;
    return e;
}
