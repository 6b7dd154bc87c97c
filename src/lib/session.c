/* session.c - a session of statements (the REPL, statements on stdin)
 * on one recording tape that is never finished.  Each statement is
 * recorded after the ones kept before it, so names, functions and SSA
 * reassignment carry over without parsing the session again: a statement
 * costs what it records and the nodes its value needs, not the session.
 *
 *   definition   recorded (its body checked), then its nodes dropped:
 *                the function stays in the program
 *   assignment   kept when its value can be computed at the point; only
 *                the nodes of its cone not yet computed at this point are
 *                evaluated (values are cached until the point changes)
 *   expression   its cone, with every input of the session, is copied to
 *                a tape of its own and finished there; then the statement
 *                is dropped, as is any statement that fails
 *
 * The text of the kept statements, one per line, is the source every
 * node's position refers to (ad_session_text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "work.h"
#include "parse.h"
#include "rules.h"
#include "alloc.h"

struct ad_session {
    ad_tape *t;              /* the recording: every kept statement */
    adi_prog g;              /* bindings and functions (g.src is text) */
    char *text;              /* the kept statements, then the last one run */
    size_t len, textcap, kept;   /* bytes in text; kept: of kept statements */
    int lines;               /* lines of the kept statements */
    int32_t *inputs;         /* recording indices of the session's inputs */
    size_t ninputs, incap;
    adi_names point;         /* input name -> index in pval */
    double *pval;
    size_t npoint, pcap;
    ad_work w;               /* w.val[i]: node i's value, when known[i] == epoch */
    uint32_t *known, epoch;
    uint32_t *seen, visit;   /* the cone being collected: seen[i] == visit */
    int32_t *map;            /* node -> node of the expression's own tape */
    size_t cap;              /* of known, seen and map (and w.val) */
    int32_t *cone;
    size_t ncone, conecap;
    size_t guards;           /* guards among the kept statements' nodes */
    int stale;               /* the point moved since they were recorded */
    ad_errclass dropped;     /* a kept statement failed at the new point */
    ad_diag dropdiag;        /* ...so, and was dropped (ad_session_dropped) */
};

ad_session *ad_session_new(void)
{
    ad_session *S = adi_malloc(sizeof *S);
    if (!S) return NULL;
    memset(S, 0, sizeof *S);
    adi_prog_init(&S->g, NULL, 0);
    adi_names_init(&S->point);
    S->epoch = S->visit = 1;
    if (!(S->t = ad_tape_new())) {
        ad_session_free(S);
        return NULL;
    }
    S->t->at = &S->point;   /* no value yet: the inputs are nan */
    return S;
}

void ad_session_free(ad_session *S)
{
    if (!S) return;
    ad_tape_free(S->t);
    adi_prog_free(&S->g);
    adi_names_free(&S->point);
    free(S->text);
    free(S->inputs);
    free(S->pval);
    free(S->w.val);
    free(S->known);
    free(S->seen);
    free(S->map);
    free(S->cone);
    free(S);
}

void ad_session_set_limit(ad_session *S, size_t nodes) { ad_tape_set_limit(S->t, nodes); }
void ad_session_set_iterations(ad_session *S, size_t n) { ad_tape_set_iterations(S->t, n); }

const char *ad_session_text(const ad_session *S, size_t *len, int *kept_lines)
{
    *len = S->len;
    *kept_lines = S->lines;
    return S->text ? S->text : "";
}

/* a new point: no value computed so far holds */
static void forget_values(ad_session *S)
{
    if (++S->epoch == 0) {
        memset(S->known, 0, S->cap * sizeof *S->known);
        S->epoch = 1;
    }
}

/* a point's name x[k] makes x a vector of at least k elements: 0 or -1 */
static int declare_element(ad_tape *t, const char *name, size_t len)
{
    size_t base, k;
    if (!adi_element_name(name, len, &base, &k) || k > AD_VECTOR_MAX || k <= ad_tape_vector_len(t, name, base))
        return 0;
    return ad_tape_set_vector(t, name, base, k);
}

/* forgets x[m+1] .. x[old] of the point's vector x (name[0..base)) */
static int forget_elements(ad_session *S, const char *name, size_t base, size_t m, size_t old)
{
    char *el = adi_malloc(base + 24);
    if (!el) return -1;
    memcpy(el, name, base);
    for (size_t j = m + 1; j <= old; j++) {
        int w = snprintf(el + base, 24, "[%zu]", j);
        adi_names_forget(&S->point, el, base + (size_t)w);
    }
    free(el);
    return 0;
}

/* names[i] given anew, as a whole variable: a vector given whole (x[1],
 * x[2] ... x[m] from names[i] on) is m long from now, its elements
 * beyond m without a value, and x as a number has none; a number x is no
 * longer a vector.  The kept statements are recorded again (stale) when
 * one of these may have used what went, or x at another length (v = x*2
 * is as long as x).  0 or -1 */
static int whole_variable(ad_session *S, const char *const *names, size_t i, size_t n)
{
    size_t len = strlen(names[i]), base, k, m = 1, bk;
    if (!adi_element_name(names[i], len, &base, &k)) {
        size_t old = ad_tape_vector_len(S->t, names[i], len);
        if (!old) return 0;
        S->stale = 1;
        if (forget_elements(S, names[i], len, 0, old) < 0) return -1;
        return ad_tape_set_vector(S->t, names[i], len, 0);
    }
    if (k != 1) return 0;
    while (i + m < n && adi_element_name(names[i + m], strlen(names[i + m]), &bk, &k) && bk == base &&
           k == m + 1 && !memcmp(names[i + m], names[i], base))
        m++;
    if (adi_names_get(&S->point, names[i], base) >= 0) {   /* x was a number */
        adi_names_forget(&S->point, names[i], base);
        S->stale = 1;
    }
    size_t old = ad_tape_vector_len(S->t, names[i], base);
    if (old == m || !old) return 0;
    S->stale = 1;            /* the kept statements took x at its old length */
    if (old < m) return 0;   /* (declare_element makes it m long) */
    if (forget_elements(S, names[i], base, m, old) < 0) return -1;
    return ad_tape_set_vector(S->t, names[i], base, m);
}

int ad_session_point(ad_session *S, const char *const *names, const double *values, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (whole_variable(S, names, i, n) < 0) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i]);
        int32_t k = adi_names_get(&S->point, names[i], len);
        if (k < 0) {
            if (adi_grow((void **)&S->pval, &S->pcap, S->npoint + 1, sizeof *S->pval) < 0 ||
                adi_names_add(&S->point, names[i], len, (int32_t)S->npoint) < 0)
                return -1;
            k = (int32_t)S->npoint++;
        }
        S->pval[k] = values[i];
        if (declare_element(S->t, names[i], len) < 0) return -1;
    }
    /* control flow decides by the values at the point, as it records */
    S->t->at = &S->point;
    S->t->atv = S->pval;
    forget_values(S);
    /* the kept statements' paths were the old point's */
    if (S->guards) S->stale = 1;
    return 0;
}

/* room for the per-node arrays of every recorded node */
static int reserve(ad_session *S)
{
    size_t n = S->t->n, c = S->cap, c1 = S->cap, c2 = S->cap, c3 = S->cap;
    if (n <= S->cap) return 0;
    if (adi_grow((void **)&S->known, &c, n, sizeof *S->known) < 0) return -1;
    memset(S->known + S->cap, 0, (c - S->cap) * sizeof *S->known);
    if (adi_grow((void **)&S->seen, &c1, n, sizeof *S->seen) < 0) return -1;
    memset(S->seen + S->cap, 0, (c1 - S->cap) * sizeof *S->seen);
    if (adi_grow((void **)&S->map, &c2, n, sizeof *S->map) < 0 ||
        adi_grow((void **)&S->w.val, &c3, n, sizeof *S->w.val) < 0)
        return -1;
    S->w.valcap = c3;
    S->cap = c < c1 ? c : c1;
    if (c2 < S->cap) S->cap = c2;
    if (c3 < S->cap) S->cap = c3;
    return 0;
}

static int cmp_node(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* S->cone: the nodes roots[0..nroots) depend on (and, with guards, the
 * guards recorded so far and what they depend on), ascending, leaving out
 * those whose value is known when only_unknown; 0 or -1 when out of
 * memory */
static int collect(ad_session *S, const int32_t *roots, size_t nroots, int only_unknown, int guards)
{
    if (++S->visit == 0) {
        memset(S->seen, 0, S->cap * sizeof *S->seen);
        S->visit = 1;
    }
    S->ncone = 0;
    size_t top = 0;   /* a stack grows from the front of cone, the result behind it */
    const ad_instr *code = S->t->code;
    int32_t *stack = NULL;
    size_t scap = 0;
    if (adi_grow((void **)&stack, &scap, nroots + 16, sizeof *stack) < 0) return -1;
    for (size_t k = 0; k < nroots; k++) stack[top++] = roots[k];
    for (size_t i = 0; guards && i < S->t->n; i++) {
        if (!adi_op_is_guard(code[i].op)) continue;
        if (adi_grow((void **)&stack, &scap, top + 1, sizeof *stack) < 0) {
            free(stack);
            return -1;
        }
        stack[top++] = (int32_t)i;
    }
    while (top) {
        int32_t i = stack[--top];
        if (S->seen[i] == S->visit || (only_unknown && S->known[i] == S->epoch)) continue;
        S->seen[i] = S->visit;
        if (adi_grow((void **)&S->cone, &S->conecap, S->ncone + 1, sizeof *S->cone) < 0 ||
            adi_grow((void **)&stack, &scap, top + 2, sizeof *stack) < 0) {
            free(stack);
            return -1;
        }
        S->cone[S->ncone++] = i;
        if (code[i].a >= 0) stack[top++] = code[i].a;
        if (code[i].b >= 0) stack[top++] = code[i].b;
    }
    free(stack);
    qsort(S->cone, S->ncone, sizeof *S->cone, cmp_node);
    return 0;
}

/* the value at the point of input leaf node i; 0 or -1 when unbound */
static int input_value(const ad_session *S, int32_t i, double *v)
{
    const ad_tape *t = S->t;
    size_t l = adi_tape_leaf(t, i);
    int32_t k = adi_names_get(&S->point, t->pool + t->rtext[l].off, t->rtext[l].len);
    if (k < 0) return -1;
    *v = S->pval[k];
    return 0;
}

/* the first input recorded since m that the point gives no value, or -1 */
static int32_t first_unbound(const ad_session *S, const adi_tape_mark *m)
{
    const ad_tape *t = S->t;
    double v;
    for (size_t l = m->nleaves; l < t->nleaves; l++)
        if (t->code[t->rleaf[l]].op == AD_OP_INPUT && input_value(S, t->rleaf[l], &v) < 0) return t->rleaf[l];
    return -1;
}

/* input node i has no value (for the command: ad_session_run says which) */
static ad_errclass unbound_here(const ad_session *S, int32_t i, ad_diag *d)
{
    const ad_tape *t = S->t;
    const adi_text *x = &t->rtext[adi_tape_leaf(t, i)];
    return ad_diag_set(d, AD_E_NAME, t->pos[i].line, t->pos[i].col, "variable '%.*s' has no value",
                       (int)(x->len > 60 ? 60 : x->len), t->pool + x->off);
}

/* a node of root: itself, or a vector's first element (a constant 0 for an
 * empty one), to say which input has no value */
static int32_t vec_first(ad_session *S, int32_t root)
{
    if (!adi_is_vec(root)) return root;
    if (adi_vec_len(&S->g, root)) return adi_vec_el(&S->g, root)[0];
    return adi_rec_const(S->t, 0, "0", 1, 1, 1);
}

/* computes the values of roots[0..n) at the point (ad_eval's rules: its
 * domain errors, a nan is an error), evaluating only the nodes not known
 * yet */
static ad_errclass values(ad_session *S, const int32_t *roots, size_t n, ad_diag *d)
{
    if (collect(S, roots, n, 1, 0) < 0) return adi_err_nomem(d);
    const ad_tape *t = S->t;
    double *v = S->w.val;
    for (size_t k = 0; k < S->ncone; k++) {
        int32_t i = S->cone[k];
        const ad_instr c = t->code[i];
        if (c.op == AD_OP_INPUT) {
            if (input_value(S, i, &v[i]) < 0) return unbound_here(S, i, d);
        } else if (c.op == AD_OP_CONST) {
            v[i] = t->rcval[adi_tape_leaf(t, i)];
        } else {
            double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
            const char *why = adi_op_domain((int)c.op, a, b);
            if (why) return adi_err_domain(t, &S->w, (size_t)i, why, d);
            v[i] = adi_op_value((int)c.op, a, b);
            if (isnan(v[i])) return adi_err_domain(t, &S->w, (size_t)i, ADI_NAN_REASON, d);
        }
        S->known[i] = S->epoch;
    }
    return AD_E_NONE;
}

static ad_errclass value(ad_session *S, int32_t root, ad_diag *d) { return values(S, &root, 1, d); }

/* what a statement of control flow left bound (the undo log from mark
 * on: names and elements its path assigned; a block not taken has undone
 * its own) and the operands of the guards it recorded since m, computed
 * at the point as an assignment's value is: a domain error there is the
 * statement's, which is then not kept, as a program fails with it */
static ad_errclass path_values(ad_session *S, const adi_tape_mark *m, size_t mark, ad_diag *d)
{
    const ad_tape *t = S->t;
    adi_prog *g = &S->g;
    int32_t *roots = NULL;
    size_t n = 0, cap = 0;
    unsigned char *seen = adi_calloc(g->nvecs ? g->nvecs : 1, 1);   /* a vector's elements go in once */
    int nomem = !seen;
    for (size_t i = m->n; !nomem && i < t->n; i++) {
        const ad_instr c = t->code[i];
        if (!adi_op_is_guard(c.op)) continue;
        nomem = adi_grow((void **)&roots, &cap, n + 2, sizeof *roots) < 0;
        if (!nomem && c.a >= 0) roots[n++] = c.a;
        if (!nomem && c.b >= 0) roots[n++] = c.b;
    }
    for (size_t k = mark; !nomem && k < g->nundo; k++) {
        const adi_undo *u = &g->undo[k];
        int32_t h = u->vec ? adi_vec_el(g, u->vec)[u->off] : adi_symtab_get(&g->bindings, g->src + u->off, u->len);
        if (h < 0) continue;
        if (!adi_is_vec(h)) {
            nomem = adi_grow((void **)&roots, &cap, n + 1, sizeof *roots) < 0;
            if (!nomem) roots[n++] = h;
            continue;
        }
        size_t len = adi_vec_len(g, h), v = (size_t)(h - ADI_VEC_BASE);
        if (seen[v]) continue;
        seen[v] = 1;
        nomem = adi_grow((void **)&roots, &cap, n + len, sizeof *roots) < 0;
        if (!nomem) memcpy(roots + n, adi_vec_el(g, h), len * sizeof *roots);
        n += nomem ? 0 : len;
    }
    ad_errclass e = nomem ? adi_err_nomem(d) : values(S, roots, n, d);
    free(seen);
    free(roots);
    return e;
}

/* input node i copied to out */
static int32_t copy_input(ad_session *S, int32_t i, ad_tape *out)
{
    const ad_tape *t = S->t;
    size_t l = adi_tape_leaf(t, i);
    return S->map[i] = adi_rec_var(out, t->pool + t->rtext[l].off, t->rtext[l].len, t->pos[i].line, t->pos[i].col);
}

/* out: root's cone and every input of the session and of the statement
 * recorded since m (an argument a function ignores is still an input, as
 * in a program), finished, with root as its output; 0 or -1 when out of
 * memory */
static int extract(ad_session *S, const adi_tape_mark *m, int32_t root, ad_tape *out)
{
    const ad_tape *t = S->t;
    ad_tape_reset(out);
    ad_tape_set_limit(out, t->limit);
    int vector = adi_is_vec(root);
    const int32_t *roots = vector ? adi_vec_el(&S->g, root) : &root;
    size_t nroots = vector ? adi_vec_len(&S->g, root) : 1;
    if (collect(S, roots, nroots, 0, 1) < 0) return -1;
    for (size_t k = 0; k < S->ninputs; k++)
        if (copy_input(S, S->inputs[k], out) < 0) return -1;
    for (size_t l = m->nleaves; l < t->nleaves; l++)
        if (t->code[t->rleaf[l]].op == AD_OP_INPUT && copy_input(S, t->rleaf[l], out) < 0) return -1;
    for (size_t k = 0; k < S->ncone; k++) {
        int32_t i = S->cone[k];
        const ad_instr c = t->code[i];
        const adi_pos p = t->pos[i];
        size_t l;
        if (c.op == AD_OP_INPUT) {
            l = adi_tape_leaf(t, i);
            S->map[i] = adi_rec_var(out, t->pool + t->rtext[l].off, t->rtext[l].len, p.line, p.col);
        } else if (c.op == AD_OP_CONST) {
            l = adi_tape_leaf(t, i);
            S->map[i] = adi_rec_const(out, t->rcval[l], t->pool + t->rtext[l].off, t->rtext[l].len, p.line, p.col);
        } else {
            S->map[i] = adi_rec_op(out, (int)c.op, S->map[c.a], c.b >= 0 ? S->map[c.b] : -1, p.line, p.col);
        }
        if (S->map[i] < 0) return -1;
    }
    /* a vector's elements are the source's outputs, as ad_parse_many's */
    int32_t *outs = adi_malloc(nroots * sizeof *outs);
    if (!outs) return -1;
    for (size_t k = 0; k < nroots; k++) outs[k] = S->map[roots[k]];
    int r = adi_tape_add_source(out, outs, nroots, vector);
    free(outs);
    if (r < 0 || adi_tape_finish(out) < 0) return -1;
    return 0;
}

/* drops what the statement recorded: its nodes, their cached values */
static void drop(ad_session *S, const adi_tape_mark *m)
{
    for (size_t i = m->n; i < S->t->n && i < S->cap; i++) S->known[i] = 0;
    adi_tape_rollback(S->t, m);
}

/* the statement becomes part of the session: its inputs and its text */
static void keep(ad_session *S, const adi_tape_mark *m)
{
    const ad_tape *t = S->t;
    for (size_t l = m->nleaves; l < t->nleaves; l++)
        if (t->code[t->rleaf[l]].op == AD_OP_INPUT) S->inputs[S->ninputs++] = t->rleaf[l];
    for (size_t i = S->kept; i < S->len; i++) S->lines += S->text[i] == '\n';
    S->kept = S->len;
    for (size_t i = m->n; i < t->n; i++) S->guards += adi_op_is_guard(t->code[i].op);
}

static ad_errclass run(ad_session *S, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out, size_t *unbound,
                       ad_diag *d);

/* statement s[0..len) on one line in buf, to quote: each run of blanks
 * and line ends one space, other control characters '?', cut to fit with
 * "..." */
static const char *one_line(char *buf, size_t bufsz, const char *s, size_t len)
{
    size_t j = 0, max = bufsz - 4;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        int blank = c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
        if (blank && (j == 0 || buf[j - 1] == ' ')) continue;
        if (j == max) {
            memcpy(buf + j, "...", 3);
            j += 3;
            break;
        }
        buf[j++] = blank ? ' ' : (c >= 32 && c < 127) ? (char)c : '?';
    }
    while (j && buf[j - 1] == ' ') j--;
    buf[j] = 0;
    return buf;
}

/* the kept statements recorded again at the point, after it moved: a
 * statement of control flow may take another path there.  A statement
 * that fails there is dropped; the first such error is returned. */
static ad_errclass rebuild(ad_session *S, ad_diag *d)
{
    S->stale = 0;
    char *old = S->text;
    size_t oldlen = S->kept;
    ad_tape *scratch = ad_tape_new();
    if (!scratch) return adi_err_nomem(d);
    S->text = NULL;
    S->len = S->kept = S->textcap = 0;
    S->lines = 0;
    S->ninputs = 0;
    S->guards = 0;
    adi_prog_free(&S->g);
    adi_prog_init(&S->g, NULL, 0);
    ad_tape_reset(S->t);
    forget_values(S);
    size_t pos = 0;
    int line = 1, col = 1;
    ad_stmt st;
    ad_errclass first = AD_E_NONE;
    while (ad_next_stmt(old, oldlen, &pos, &line, &col, &st)) {
        if (st.kind == AD_STMT_EMPTY) continue;
        ad_stmt_kind kind;
        size_t unbound;
        ad_diag e1;
        ad_errclass e = run(S, old + st.off, st.len, &kind, scratch, &unbound, &e1);
        if (e == AD_E_IO) {
            first = e;
            if (d) *d = e1;
            break;
        }
        if (e && !first) {
            first = e;
            char msg[sizeof e1.msg];
            snprintf(msg, sizeof msg, "%s", e1.msg);
            char q[64];
            ad_diag_set(d, e, 0, 0, "'%s' (kept from before) fails at this point and is dropped: %s",
                        one_line(q, sizeof q, old + st.off, st.len), msg);
        }
    }
    free(old);
    ad_tape_free(scratch);
    return first;
}

ad_errclass ad_session_run(ad_session *S, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out,
                           size_t *unbound, ad_diag *d)
{
    *kind = AD_STMT_EMPTY;
    *unbound = (size_t)-1;
    S->dropped = AD_E_NONE;
    if (S->stale) {
        ad_errclass e = rebuild(S, &S->dropdiag);
        if (e == AD_E_IO) {
            if (d) *d = S->dropdiag;
            return e;
        }
        S->dropped = e;   /* the statement still runs */
    }
    return run(S, src, len, kind, out, unbound, d);
}

ad_errclass ad_session_dropped(const ad_session *S, ad_diag *d)
{
    if (S->dropped && d) *d = S->dropdiag;
    return S->dropped;
}

static ad_errclass run_one(ad_session *S, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out,
                           size_t *unbound, ad_diag *d);

/* one statement; the notes of its loops (memo.c) name nodes and spans of
 * this statement only, which the next one may reuse: dropped after it, as
 * is its undo log.  So are the vectors no name holds (an expression's, a
 * temporary's, a failed statement's, one a name no longer has): a session
 * of many statements over a long vector holds the vectors its names have,
 * not every one it made.  Out of memory for that, they stay: the next
 * statement only costs more. */
static ad_errclass run(ad_session *S, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out, size_t *unbound,
                       ad_diag *d)
{
    ad_errclass e = run_one(S, src, len, kind, out, unbound, d);
    adi_memo_free(&S->g);
    S->g.nundo = 0;
    (void)adi_vec_compact(&S->g, S->t);
    return e;
}

static ad_errclass run_one(ad_session *S, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out,
                           size_t *unbound, ad_diag *d)
{
    *kind = AD_STMT_EMPTY;
    *unbound = (size_t)-1;
    /* the statement on a line of its own after the kept ones */
    S->len = S->kept;
    if (adi_grow((void **)&S->text, &S->textcap, S->len + len + 2, 1) < 0) return adi_err_nomem(d);
    memcpy(S->text + S->len, src, len);
    S->text[S->len + len] = '\n';
    S->len += len + 1;
    S->text[S->len] = 0;
    S->g.src = S->text;
    S->g.len = S->len;
    char top;
    S->g.stack_top = (uintptr_t)&top;

    size_t pos = S->kept;
    int line = S->lines + 1, col = 1;
    ad_stmt st;
    if (!ad_next_stmt(S->text, S->len - 1, &pos, &line, &col, &st)) return AD_E_NONE;
    *kind = st.kind;
    if (st.kind == AD_STMT_EMPTY) return AD_E_NONE;

    adi_tape_mark m = adi_tape_mark_at(S->t);
    int32_t root;
    /* a statement of control flow binds names as it runs: undone if it fails */
    size_t undo = S->g.nundo;
    S->g.journal++;
    ad_errclass e = adi_prog_stmt(S->t, &S->g, &st, &root, d);
    if (!e && st.kind == AD_STMT_EXPR) e = adi_vec_value(&S->g, root, st.line, st.col, d);
    S->g.journal--;
    int32_t u = e ? -1 : first_unbound(S, &m);
    /* room for the new inputs, should the statement be kept */
    if (!e && (reserve(S) < 0 ||
               adi_grow((void **)&S->inputs, &S->incap, S->ninputs + (S->t->nleaves - m.nleaves), sizeof *S->inputs) < 0))
        e = adi_err_nomem(d);
    if (!e && u >= 0 && root >= 0) {
        /* the command words it (it knows how a value is given) */
        if (extract(S, &m, vec_first(S, root), out) < 0) {
            e = adi_err_nomem(d);
        } else {
            size_t l = adi_tape_leaf(S->t, u);
            for (size_t i = 0; i < ad_tape_ninputs(out); i++) {
                size_t nl;
                const char *nm = ad_tape_input_name(out, i, &nl);
                if (nl == S->t->rtext[l].len && !memcmp(nm, S->t->pool + S->t->rtext[l].off, nl)) *unbound = i;
            }
            e = *unbound != (size_t)-1 ? AD_E_NAME : unbound_here(S, u, d);
        }
    } else if (!e && st.kind == AD_STMT_ASSIGN) {
        if (!adi_is_vec(root)) e = value(S, root, d);
        for (size_t k = 0; adi_is_vec(root) && !e && k < adi_vec_len(&S->g, root); k++)
            e = value(S, adi_vec_el(&S->g, root)[k], d);   /* each element's */
        if (!e && adi_prog_bind(&S->g, &st, root) < 0) e = adi_err_nomem(d);
        if (!e) {
            keep(S, &m);
            return AD_E_NONE;
        }
    } else if (!e && st.kind == AD_STMT_EXPR) {
        if (extract(S, &m, root, out) < 0) e = adi_err_nomem(d);
    } else if (!e && st.kind != AD_STMT_DEF) {
        /* control flow: its path was decided by the point's values */
        if (u >= 0) e = unbound_here(S, u, d);
        else e = path_values(S, &m, undo, d);
        if (!e) {
            S->g.nundo = undo;   /* its bindings stay */
            keep(S, &m);
            return AD_E_NONE;
        }
    } else if (!e) {
        /* a definition: the function stays, its checked body does not */
        drop(S, &m);
        keep(S, &m);
        return AD_E_NONE;
    }
    adi_prog_undo(&S->g, undo);
    drop(S, &m);
    return e;
}
