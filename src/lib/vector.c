/* vector.c - vector values while an expression is recorded: vector
 * variables, indexing and slices, elementwise operators and functions,
 * literals, reductions and the indexed sum(i = a..b, body).
 *
 * The tape holds scalars only.  A vector exists while recording: a handle
 * (ADI_VEC_BASE + index, parse.h) naming a run of element nodes.  So x * y
 * over n elements records n multiplications, and every engine (forward,
 * reverse, Hessian, Taylor, batch) differentiates vectors unchanged.  A
 * vector variable x of n elements is the n inputs x[1] ... x[n] (indices
 * start at 1, as in mathematics, Fortran, Julia and R); x[i] records only
 * the input it names, so sum(i = 1..n, x[i]) costs n, not n^2.
 *
 * Reductions fold from the left (sum(v) is ((v1 + v2) + v3) + ...), so a
 * sum gives the same bits as the same terms written out with '+'. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "alloc.h"

/* ---- handles ---- */

int32_t adi_vec_new(adi_pctx *P, size_t len)
{
    adi_prog *g = P->prog;
    /* the elements in all, copies too (w = v; v[i] = ... in a loop makes
     * one a pass; a session, the vectors its names hold and the
     * statement's): at most
     * ADI_VEC_PER_NODE times the tape's limit (1 GB of elements at the
     * default limit) */
    size_t limit = adi_tape_limit(P->t);
    if (g->nvelem + len > ADI_VEC_PER_NODE * limit) {
        P->t->nomem = 1;
        P->t->full = 2;
        longjmp(P->oom, 1);
    }
    if (g->nvecs >= (size_t)INT32_MAX - ADI_VEC_BASE || len > (size_t)AD_VECTOR_MAX ||
        adi_grow((void **)&g->vecs, &g->veccap, g->nvecs + 1, sizeof *g->vecs) < 0 ||
        adi_grow((void **)&g->velem, &g->velemcap, g->nvelem + len + 1, sizeof *g->velem) < 0)
        longjmp(P->oom, 1);
    g->vecs[g->nvecs] = (struct adi_vec){g->nvelem, len, 0, 0};
    g->nvelem += len;
    adi_memo_bad(P);   /* a loop's notes hold scalars only: its span is parsed again */
    return (int32_t)(ADI_VEC_BASE + g->nvecs++);
}

int32_t *adi_vec_el(const adi_prog *g, int32_t h) { return g->velem + g->vecs[h - ADI_VEC_BASE].off; }
size_t adi_vec_len(const adi_prog *g, int32_t h) { return g->vecs[h - ADI_VEC_BASE].len; }

void adi_vec_free(adi_prog *g)
{
    free(g->vecs);
    free(g->velem);
    free(g->incache);
    g->vecs = NULL;
    g->velem = NULL;
    g->incache = NULL;
    g->nvecs = g->veccap = g->nvelem = g->velemcap = g->nincache = 0;
    g->incache_max = 0;
}

/* the index in the arena of input vector i's cached copy, or -1 (none;
 * an entry that no longer names its copy is cleared) */
static long cached(adi_prog *g, size_t i)
{
    if (!g->incache[i]) return -1;
    size_t v = (size_t)(g->incache[i] - ADI_VEC_BASE);
    if (v < g->nvecs && g->vecs[v].input == i + 1) return (long)v;
    g->incache[i] = 0;
    return -1;
}

void adi_vec_cut(adi_prog *g, size_t nvecs, size_t nvelem)
{
    /* the cached vectors above the cut, in the arena's order: each moves
     * down below the next, never over one not yet moved (none is above
     * incache_max: most cuts have nothing to scan) */
    while (g->incache_max >= (int32_t)(ADI_VEC_BASE + nvecs)) {
        size_t best = g->nincache;
        for (size_t i = 0; i < g->nincache; i++) {
            long v = cached(g, i);
            if (v < (long)nvecs) continue;
            if (best == g->nincache || v < (long)(g->incache[best] - ADI_VEC_BASE)) best = i;
        }
        if (best == g->nincache) {
            g->incache_max = nvecs ? (int32_t)(ADI_VEC_BASE + nvecs - 1) : 0;
            break;
        }
        struct adi_vec x = g->vecs[g->incache[best] - ADI_VEC_BASE];
        memmove(g->velem + nvelem, g->velem + x.off, x.len * sizeof *g->velem);
        g->vecs[nvecs] = (struct adi_vec){nvelem, x.len, x.nbind, x.input};
        g->incache[best] = (int32_t)(ADI_VEC_BASE + nvecs);
        nvecs++;
        nvelem += x.len;
    }
    g->nvecs = nvecs;
    g->nvelem = nvelem;
}

int adi_vec_compact(adi_prog *g, const ad_tape *t)
{
    if (!g->nvecs) return 0;
    int32_t *to = adi_calloc(g->nvecs, sizeof *to);   /* a kept vector's new handle; 0: dropped */
    if (!to) return -1;
    if ((g->incache_t != (const void *)t || g->incache_epoch != t->epoch) && g->nincache)
        memset(g->incache, 0, g->nincache * sizeof *g->incache);   /* (stale: the tape moved on) */
    /* kept: what a name is bound to, and the input vectors cached */
    size_t it = 0;
    for (int32_t *v; (v = adi_symtab_next(&g->bindings, &it));)
        if (adi_is_vec(*v)) to[*v - ADI_VEC_BASE] = 1;
    for (size_t i = 0; i < g->nincache; i++) {
        long v = cached(g, i);
        if (v >= 0) to[v] = 1;
    }
    /* in the arena's order: each moves down, never over one not yet moved */
    size_t n = 0, nelem = 0;
    for (size_t v = 0; v < g->nvecs; v++) {
        if (!to[v]) continue;
        struct adi_vec x = g->vecs[v];
        if (x.off != nelem) memmove(g->velem + nelem, g->velem + x.off, x.len * sizeof *g->velem);
        x.off = nelem;
        g->vecs[n] = x;
        to[v] = (int32_t)(ADI_VEC_BASE + n++);
        nelem += x.len;
    }
    it = 0;
    for (int32_t *v; (v = adi_symtab_next(&g->bindings, &it));)
        if (adi_is_vec(*v)) *v = to[*v - ADI_VEC_BASE];
    g->bindings.gen++;   /* (what was looked up before holds no more: memo.c) */
    g->incache_max = 0;
    for (size_t i = 0; i < g->nincache; i++) {
        if (g->incache[i]) g->incache[i] = to[g->incache[i] - ADI_VEC_BASE];
        if (g->incache[i] > g->incache_max) g->incache_max = g->incache[i];
    }
    g->nvecs = n;
    g->nvelem = nelem;
    free(to);
    return 0;
}

/* ---- recording ---- */

static int32_t rec(adi_pctx *P, int op, int32_t a, int32_t b, int line, int col)
{
    int32_t i = adi_rec_op(P->t, op, a, b, line, col);
    if (i < 0) longjmp(P->oom, 1);
    return i;
}

/* the constant v, a whole number (an index, a length) */
static int32_t whole_const(adi_pctx *P, double v, int line, int col)
{
    char text[32], digits[24];
    size_t n = 0, nd = 0;
    if (v < 0) text[n++] = '-';
    /* its digits, written here: printf's were a tenth of an indexed sum's time */
    if (fabs(v) < 9007199254740992.0) {   /* 2^53: in integers */
        uint64_t q = (uint64_t)fabs(v);
        do digits[nd++] = (char)('0' + q % 10);
        while ((q /= 10));
    } else {
        for (double q = fabs(v); nd == 0 || q >= 1; q = floor(q / 10)) digits[nd++] = (char)('0' + (int)fmod(q, 10));
    }
    while (nd) text[n++] = digits[--nd];
    int32_t i = adi_rec_const(P->t, v, text, n, line, col);
    if (i < 0) longjmp(P->oom, 1);
    return i;
}

/* input name[k] of a declared vector */
static int32_t input_element(adi_pctx *P, const char *name, size_t len, size_t k, int line, int col)
{
    int32_t i = adi_rec_element(P->t, name, len, k, line, col);
    if (i < 0) longjmp(P->oom, 1);
    return i;
}

int32_t adi_vec_input_copy(adi_pctx *P, const char *name, size_t len, size_t n, int line, int col)
{
    int32_t h = adi_vec_new(P, n);
    adi_tape_reserve_vector(P->t, name, len);
    for (size_t k = 0; k < n; k++) {
        int32_t e = input_element(P, name, len, k + 1, line, col);
        adi_vec_el(P->prog, h)[k] = e;
    }
    return h;
}

int32_t adi_vec_input(adi_pctx *P, const char *name, size_t len, size_t n, int line, int col)
{
    adi_prog *g = P->prog;
    int32_t vi = adi_symtab_get(&P->t->vecs, name, len);
    if (vi < 0) return adi_vec_input_copy(P, name, len, n, line, col);
    if (g->incache_t != (const void *)P->t || g->incache_epoch != P->t->epoch) {
        /* another tape's nodes, or some forgotten since */
        if (g->nincache) memset(g->incache, 0, g->nincache * sizeof *g->incache);
        g->incache_max = 0;
        g->incache_t = P->t;
        g->incache_epoch = P->t->epoch;
    }
    if ((size_t)vi < g->nincache && g->incache[vi]) {
        size_t v = (size_t)(g->incache[vi] - ADI_VEC_BASE);
        if (v < g->nvecs && g->vecs[v].input == (size_t)vi + 1 && g->vecs[v].len == n) {
            adi_memo_bad(P);   /* as a new vector would: a loop's notes hold scalars only */
            return g->incache[vi];
        }
    }
    int32_t h = adi_vec_input_copy(P, name, len, n, line, col);
    size_t cap = g->nincache;
    if ((size_t)vi >= cap) {
        /* (no room to note it: the next use copies again) */
        if (adi_grow((void **)&g->incache, &cap, (size_t)vi + 1, sizeof *g->incache) < 0) return h;
        memset(g->incache + g->nincache, 0, (cap - g->nincache) * sizeof *g->incache);
        g->nincache = cap;
    }
    struct adi_vec *x = &g->vecs[h - ADI_VEC_BASE];
    x->input = (size_t)vi + 1;
    x->nbind = 1;   /* the cache holds it: an element's assignment through a name copies it */
    g->incache[vi] = h;
    if (h > g->incache_max) g->incache_max = h;
    return h;
}

/* ---- errors ---- */

static const char *quoted(char *q, size_t n, const char *s, size_t len) { return adi_quote(q, n, s, len); }

int adi_vec_not_scalar(adi_pctx *P, int32_t h, int line, int col, const char *hint)
{
    if (!adi_is_vec(h)) return 0;
    size_t n = adi_vec_len(P->prog, h);
    adi_perror(P, AD_E_SYNTAX, line, col, "a vector (of %zu element%s) where a number is needed%s%s", n,
               n == 1 ? "" : "s", hint ? ": " : "", hint ? hint : "");
    return 1;
}

ad_errclass adi_vec_root_error(const adi_prog *g, int32_t h, int line, int col, const char *where, ad_diag *d)
{
    size_t n = adi_vec_len(g, h);
    return ad_diag_set(d, AD_E_SYNTAX, line, col,
                       "%s is a vector (of %zu element%s); a number is needed: reduce it, as with sum(...), "
                       "or index it, as with v[1]",
                       where, n, n == 1 ? "" : "s");
}

/* the whole number node i stands for, checked: 0, or -1 after a diagnostic */
static int whole(adi_pctx *P, int32_t i, const char *what, int line, int col, double *v)
{
    if (adi_vec_not_scalar(P, i, line, col, NULL)) return -1;
    if (P->t->rdep[i] && !P->prog->checking) {
        adi_perror(P, AD_E_SYNTAX, line, col,
                   "%s depends on a variable: it must be fixed when the expression is recorded", what);
        return -1;
    }
    *v = P->t->rval[i];
    if (P->prog->checking) *v = 1;   /* a stand-in while a function's body is checked */
    if (*v != floor(*v)) {   /* (nan and the infinities too) */
        char num[40];
        snprintf(num, sizeof num, "%.17g", *v);
        adi_perror(P, AD_E_DOMAIN, line, col, "%s is %s, not a whole number", what, isnan(*v) ? "nan" : num);
        return -1;
    }
    return 0;   /* (whole; beyond 2^53 it is beyond any length: the callers say so) */
}

/* ---- indexing ---- */

/* what name[0..len) is: a vector (*h its handle, or -1 for a declared
 * input vector of *n elements), or not (0) */
static int lookup(adi_pctx *P, const char *name, size_t len, int32_t *h, size_t *n)
{
    for (size_t k = 0; k < P->nparams; k++)
        if (P->params[k].len == len && !memcmp(P->params[k].name, name, len)) {
            *h = P->params[k].node;
            goto bound;
        }
    *h = adi_symtab_get(&P->prog->bindings, name, len);
    if (*h >= 0) goto bound;
    *h = -1;
    *n = ad_tape_vector_len(P->t, name, len);
    return *n > 0;
bound:
    if (!adi_is_vec(*h)) return 0;
    *n = adi_vec_len(P->prog, *h);
    return 1;
}

static int not_vector(adi_pctx *P, const char *name, size_t len, int line, int col)
{
    char q[80];
    if (P->prog->checking) return 0;   /* a stand-in parameter: the call will tell */
    adi_perror(P, AD_E_NAME, line, col, "'%s' is not a vector, so it cannot be indexed",
               quoted(q, sizeof q, name, len));
    return 1;
}

/* the index node i as a position in a vector of n: 0, or -1 */
static int position(adi_pctx *P, int32_t i, const char *name, size_t len, size_t n, size_t lo_ok, int line,
                    int col, size_t *k)
{
    double v;
    char q[80];
    if (whole(P, i, "an index", line, col, &v) < 0) return -1;
    if (P->prog->checking) {
        *k = 1;
        return 0;
    }
    if (v < (double)lo_ok || v > (double)n) {
        quoted(q, sizeof q, name, len);
        if (v < 1 && lo_ok == 1)
            adi_perror(P, AD_E_DOMAIN, line, col, "index %.17g is out of range: indices start at 1 (%s has %zu element%s)",
                       v, q, n, n == 1 ? "" : "s");
        else
            adi_perror(P, AD_E_DOMAIN, line, col, "index %.17g is out of range: %s has %zu element%s", v, q, n,
                       n == 1 ? "" : "s");
        return -1;
    }
    *k = (size_t)v;
    return 0;
}

int32_t adi_vec_index(adi_pctx *P, const char *name, size_t len, int32_t index, int line, int col, int iline,
                      int icol)
{
    int32_t h;
    size_t n, k;
    if (!lookup(P, name, len, &h, &n)) {
        if (not_vector(P, name, len, line, col)) return -1;
        return whole_const(P, 1, line, col);
    }
    if (position(P, index, name, len, n, 1, iline, icol, &k) < 0) return -1;
    int32_t r = h < 0 ? input_element(P, name, len, k, line, col) : adi_vec_el(P->prog, h)[k - 1];
    adi_memo_index(P, (size_t)(name - P->src), len, index, line, col, iline, icol, r);
    return r;
}

int32_t adi_vec_slice(adi_pctx *P, const char *name, size_t len, int32_t lo, int32_t hi, int line, int col,
                      int lline, int lcol, int hline, int hcol)
{
    int32_t h;
    size_t n, a, b;
    if (!lookup(P, name, len, &h, &n)) {
        if (not_vector(P, name, len, line, col)) return -1;
        return adi_vec_new(P, 0);
    }
    /* the start may be just past the end, for the empty x[n+1..n] */
    int fixed = !adi_is_vec(lo) && !adi_is_vec(hi) && !P->t->rdep[lo] && !P->t->rdep[hi];
    int past = fixed && P->t->rval[lo] == (double)n + 1 && P->t->rval[hi] == (double)n;
    if (past) return adi_vec_new(P, 0);
    if (position(P, lo, name, len, n, 1, lline, lcol, &a) < 0) return -1;
    /* x[a..a-1] is empty (x[n+1..n] too); an end further below is a mistake */
    if (position(P, hi, name, len, n, a - 1, hline, hcol, &b) < 0) {
        if (P->t->rval[hi] < (double)a - 1 && P->t->rval[hi] >= 0) {
            P->failed = 0;
            adi_perror(P, AD_E_DOMAIN, hline, hcol, "the slice ends at %.0f, before it starts at %zu",
                       P->t->rval[hi], a);
        }
        return -1;
    }
    if (P->prog->checking) b = a;
    int32_t r = adi_vec_new(P, b + 1 - a);
    for (size_t k = a; k <= b; k++) {
        int32_t e = h < 0 ? input_element(P, name, len, k, line, col) : adi_vec_el(P->prog, h)[k - 1];
        adi_vec_el(P->prog, r)[k - a] = e;
    }
    return r;
}

/* ---- elementwise ---- */

/* the common length of the vectors among args[0..n), or -1 after a
 * diagnostic when two differ */
static long common_len(adi_pctx *P, const int32_t *args, size_t n, int line, int col)
{
    long len = -1;
    size_t first = 0;
    for (size_t i = 0; i < n; i++) {
        if (!adi_is_vec(args[i])) continue;
        size_t m = adi_vec_len(P->prog, args[i]);
        if (len < 0) {
            len = (long)m;
            first = i;
        } else if ((size_t)len != m) {
            if (n == 2)
                adi_perror(P, AD_E_DOMAIN, line, col, "vector lengths differ: %ld and %zu elements", len, m);
            else
                adi_perror(P, AD_E_DOMAIN, line, col,
                           "vector lengths differ: argument %zu has %ld elements, argument %zu has %zu", first + 1,
                           len, i + 1, m);
            return -2;
        }
    }
    return len;
}

static int32_t elem(const adi_prog *g, int32_t h, size_t k) { return adi_is_vec(h) ? adi_vec_el(g, h)[k] : h; }

int32_t adi_vec_op(adi_pctx *P, int code, int32_t a, int32_t b, int line, int col)
{
    int32_t ab[2] = {a, b};
    long n = common_len(P, ab, b < 0 ? 1 : 2, line, col);
    if (n < -1) return -1;
    int32_t r = adi_vec_new(P, (size_t)n);
    if (n > 0) adi_tape_reserve(P->t, (size_t)n, 0, 0);
    for (long k = 0; k < n; k++) {
        int32_t x = rec(P, code, elem(P->prog, a, (size_t)k), b < 0 ? -1 : elem(P->prog, b, (size_t)k), line, col);
        adi_vec_el(P->prog, r)[k] = x;
    }
    return r;
}

/* folds v's elements with op from the left; empty gives unit (a node), or
 * none (-1 after a diagnostic naming what) */
static int32_t fold(adi_pctx *P, int op, int32_t v, int32_t unit, const char *what, int line, int col)
{
    size_t n = adi_vec_len(P->prog, v);
    if (n == 0) {
        if (unit >= 0) return unit;
        adi_perror(P, AD_E_DOMAIN, line, col, "%s of an empty vector has no value", what);
        return -1;
    }
    int32_t r = adi_vec_el(P->prog, v)[0];
    for (size_t k = 1; k < n; k++) r = rec(P, op, r, adi_vec_el(P->prog, v)[k], line, col);
    return r;
}

int32_t adi_vec_call(adi_pctx *P, const adi_fninfo *fn, size_t nargs, int line, int col)
{
    size_t base = P->nargs - nargs;
    if (nargs == 1 && fn->nargs_max == ADI_VARIADIC && !fn->derived) {
        /* max(v), min(v): the largest, the smallest element */
        int32_t r = fold(P, fn->code, P->args[base], -1, fn->name, line, col);
        P->nargs = base;
        return r;
    }
    long n = common_len(P, P->args + base, nargs, line, col);
    if (n < -1) return -1;
    int32_t r = adi_vec_new(P, (size_t)n);
    for (long k = 0; k < n; k++) {
        for (size_t i = 0; i < nargs; i++) {
            if (adi_grow((void **)&P->args, &P->argcap, P->nargs + 1, sizeof *P->args) < 0) longjmp(P->oom, 1);
            P->args[P->nargs++] = elem(P->prog, P->args[base + i], (size_t)k);
        }
        int32_t x = adi_call(P, fn, nargs, line, col);
        if (x < 0) return -1;
        adi_vec_el(P->prog, r)[k] = x;
    }
    P->nargs = base;
    return r;
}

/* r, made last from the arguments args[0..n): when the vectors among them
 * are the ones made just before r, and nothing else holds them (no name,
 * no parameter), r takes their place in the arena, so that literals nested
 * [1, [1, [1, ...]]] hold one vector at a time, not one per level */
static int32_t reclaim(adi_prog *g, const int32_t *args, size_t n, int32_t r)
{
    size_t lo = (size_t)(r - ADI_VEC_BASE), k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!adi_is_vec(args[i])) continue;
        size_t v = (size_t)(args[i] - ADI_VEC_BASE);
        if (g->vecs[v].nbind) return r;
        if (v < lo) lo = v;
        k++;
    }
    /* the vectors lo .. r-1 must be exactly the arguments' (each once) */
    if (k == 0 || lo + k != (size_t)(r - ADI_VEC_BASE)) return r;
    unsigned char *seen = calloc(k, 1);
    if (!seen) return r;   /* (then r just stays where it is) */
    for (size_t i = 0; i < n; i++) {
        if (!adi_is_vec(args[i])) continue;
        size_t v = (size_t)(args[i] - ADI_VEC_BASE) - lo;
        if (seen[v]++) {
            free(seen);
            return r;
        }
    }
    free(seen);
    struct adi_vec *dst = &g->vecs[lo], *src = &g->vecs[r - ADI_VEC_BASE];
    memmove(g->velem + dst->off, g->velem + src->off, src->len * sizeof *g->velem);
    dst->len = src->len;
    dst->nbind = 0;
    dst->input = 0;
    g->nvelem = dst->off + dst->len;
    g->nvecs = lo + 1;
    return (int32_t)(ADI_VEC_BASE + lo);
}

int32_t adi_vec_literal(adi_pctx *P, size_t nargs, int line, int col)
{
    size_t base = P->nargs - nargs, n = 0;
    for (size_t i = 0; i < nargs; i++) {
        int32_t a = P->args[base + i];
        n += adi_is_vec(a) ? adi_vec_len(P->prog, a) : 1;
    }
    if (n > AD_VECTOR_MAX) {
        adi_perror(P, AD_E_DOMAIN, line, col, "this vector would have %zu elements: a vector has at most %d", n,
                   AD_VECTOR_MAX);
        return -1;
    }
    /* a vector among the elements is spliced in: [x, 0] is x with a 0 after it */
    int32_t r = adi_vec_new(P, n);
    size_t j = 0;
    for (size_t i = 0; i < nargs; i++) {
        int32_t a = P->args[base + i];
        if (!adi_is_vec(a)) {
            adi_vec_el(P->prog, r)[j++] = a;
            continue;
        }
        size_t m = adi_vec_len(P->prog, a);
        memcpy(adi_vec_el(P->prog, r) + j, adi_vec_el(P->prog, a), m * sizeof(int32_t));
        j += m;
    }
    P->nargs = base;
    return reclaim(P->prog, P->args + base, nargs, r);
}

/* ---- the vector functions ---- */

enum { VF_SUM, VF_PROD, VF_DOT, VF_NORM, VF_LEN, VF_ZEROS };
static const struct {
    const char *name;
    int nargs;
    const char *doc;     /* for --help and the man page (ad_function) */
} vfns[] = {
    [VF_SUM] = {"sum", 1, "sum of a vector's elements (0 when empty); sum(i = a..b, expr) sums expr over i"},
    [VF_PROD] = {"prod", 1, "product of a vector's elements (1 when empty); prod(i = a..b, expr) too"},
    [VF_DOT] = {"dot", 2, "dot product of two vectors of one length"},
    [VF_NORM] = {"norm", 1, "Euclidean norm sqrt(dot(v, v)); singular at the zero vector"},
    [VF_LEN] = {"len", 1, "number of elements of a vector"},
    [VF_ZEROS] = {"zeros", 1, "a vector of n zeros (n whole, fixed when recorded)"},
};

int adi_vec_fn_lookup(const char *name, size_t len)
{
    for (size_t f = 0; f < sizeof vfns / sizeof *vfns; f++)
        if (strlen(vfns[f].name) == len && !memcmp(vfns[f].name, name, len)) return (int)f;
    return -1;
}

const char *adi_vec_fn_name(int f) { return vfns[f].name; }

const char *adi_vec_fn_doc(size_t f, const char **doc)
{
    if (f >= sizeof vfns / sizeof *vfns) return NULL;
    if (doc) *doc = vfns[f].doc;
    return vfns[f].name;
}

int32_t adi_vec_fn_call(adi_pctx *P, int f, size_t nargs, int line, int col)
{
    const char *name = vfns[f].name;
    if (nargs != (size_t)vfns[f].nargs) {
        adi_perror(P, AD_E_SYNTAX, line, col, "%s takes %d argument%s, got %zu", name, vfns[f].nargs,
                   vfns[f].nargs == 1 ? "" : "s", nargs);
        return -1;
    }
    int32_t *a = P->args + P->nargs - nargs;
    P->nargs -= nargs;
    if (f == VF_ZEROS) {
        double v;
        if (whole(P, a[0], "the length of zeros(n)", line, col, &v) < 0) return -1;
        if (v < 0 || v > AD_VECTOR_MAX) {
            adi_perror(P, AD_E_DOMAIN, line, col, "zeros(%.17g): a length is from 0 to %d", v, AD_VECTOR_MAX);
            return -1;
        }
        int32_t z = whole_const(P, 0, line, col);
        int32_t r = adi_vec_new(P, (size_t)v);
        for (size_t k = 0; k < (size_t)v; k++) adi_vec_el(P->prog, r)[k] = z;
        return r;
    }
    for (size_t i = 0; i < nargs; i++)
        if (!adi_is_vec(a[i])) {
            if (P->prog->checking) return a[i];   /* stand-ins: the call will tell */
            adi_perror(P, AD_E_SYNTAX, line, col, "%s takes %s, got a number", name,
                       nargs == 1 ? "a vector" : "vectors");
            return -1;
        }
    adi_memo_bad(P);
    switch (f) {
    case VF_SUM: return fold(P, AD_OP_ADD, a[0], whole_const(P, 0, line, col), name, line, col);
    case VF_PROD: return fold(P, AD_OP_MUL, a[0], whole_const(P, 1, line, col), name, line, col);
    case VF_LEN: return whole_const(P, (double)adi_vec_len(P->prog, a[0]), line, col);
    case VF_NORM: {
        int32_t sq = adi_vec_op(P, AD_OP_MUL, a[0], a[0], line, col);
        return rec(P, AD_OP_SQRT, fold(P, AD_OP_ADD, sq, whole_const(P, 0, line, col), name, line, col), -1, line,
                   col);
    }
    default: {   /* VF_DOT */
        int32_t pr = adi_vec_op(P, AD_OP_MUL, a[0], a[1], line, col);
        if (pr < 0) return -1;
        return fold(P, AD_OP_ADD, pr, whole_const(P, 0, line, col), name, line, col);
    }
    }
}

/* The body src[P->body_off..end) parsed with the index name bound to node
 * i: its node, or -1 after a diagnostic.  Outside user functions the index
 * is bound as an assignment would bind it, and the body parsed as a loop's
 * statement is (memo.c): once, then replayed.  Inside one (parameters are
 * bound) it is a parameter, first so that it hides an outer one, and the
 * body is parsed each time. */
static int32_t body(adi_pctx *P, size_t name_off, size_t name_len, int32_t i, size_t end)
{
    adi_prog *g = P->prog;
    const char *name = P->src + name_off;
    size_t len = end - P->body_off;
    ad_errclass e;
    int32_t r;
    g->sumdepth++;
    if (!P->nparams) {
        /* (adi_vec_indexed restores the name's binding after the last term:
         * between terms the key stays, and the replays' names stay found) */
        if (adi_symtab_set(&g->bindings, name, name_len, i) < 0) longjmp(P->oom, 1);
        g->inloop++;
        r = adi_parse_span(P->t, g, P->body_off, len, P->body_line, P->body_col, NULL, 0, P->depth, P->diag, &e);
        g->inloop--;
    } else {
        adi_param *ps = adi_malloc((P->nparams + 1) * sizeof *ps);
        if (!ps) longjmp(P->oom, 1);
        ps[0] = (adi_param){name, name_len, i};
        memcpy(ps + 1, P->params, P->nparams * sizeof *ps);
        r = adi_parse_span(P->t, g, P->body_off, len, P->body_line, P->body_col, ps, P->nparams + 1, P->depth + 1,
                           P->diag, &e);
        free(ps);
    }
    g->sumdepth--;
    if (r < 0) {
        P->failed = 1;   /* the body's own parse has said what is wrong */
        P->cls = e;
        return -1;
    }
    if (adi_vec_not_scalar(P, r, P->body_line, P->body_col, "the body of sum(i = ...) and prod(i = ...) is a number"))
        return -1;
    return r;
}

/* the tape's size after a term */
struct mark {
    size_t n, nleaves, pool_len;
};

/* room for terms more terms of a sum, each the size of the one recorded
 * since m (the second: the first records the body's constants too) */
static void reserve_terms(adi_pctx *P, struct mark m, double terms)
{
    const ad_tape *t = P->t;
    size_t k = terms < (double)ADI_NODE_MAX ? (size_t)terms : ADI_NODE_MAX;   /* (the most a tape holds) */
    adi_tape_reserve(P->t, (t->n - m.n) * k, (t->nleaves - m.nleaves) * k, (t->pool_len - m.pool_len) * k);
}

int32_t adi_vec_indexed(adi_pctx *P, int f, size_t name_off, size_t name_len, int32_t lo, int32_t hi, size_t end,
                        int line, int col, int lline, int lcol, int hline, int hcol)
{
    double a, b;
    if (whole(P, lo, "the start of the range", lline, lcol, &a) < 0 ||
        whole(P, hi, "the end of the range", hline, hcol, &b) < 0)
        return -1;
    if (fabs(a) > 9007199254740992.0 || fabs(b) > 9007199254740992.0) {
        adi_perror(P, AD_E_DOMAIN, fabs(a) > 9007199254740992.0 ? lline : hline,
                   fabs(a) > 9007199254740992.0 ? lcol : hcol, "the range goes beyond 2^53");
        return -1;
    }
    if (adi_nesting_error(P, line, col, "sums, products and functions nest")) return -1;
    adi_memo_bad(P);
    int op = f == VF_SUM ? AD_OP_ADD : AD_OP_MUL;
    if (b < a || P->prog->checking) {
        if (b < a && b != a - 1 && !P->prog->checking) {
            adi_perror(P, AD_E_DOMAIN, hline, hcol, "the range ends at %.0f, before it starts at %.0f", b, a);
            return -1;
        }
        if (b < a) return whole_const(P, f == VF_SUM ? 0 : 1, line, col);
        b = a;   /* checking a body: once */
    }
    /* each term records a node at least: a range the tape cannot hold fails now */
    if (b - a + 1 > (double)adi_tape_limit(P->t)) {
        P->t->nomem = P->t->full = 1;
        longjmp(P->oom, 1);
    }
    /* the body starts at its first token (its errors point there) */
    while (P->body_off < end && strchr(" \t\r\n\f\v", P->src[P->body_off])) {
        if (P->src[P->body_off++] == '\n') {
            P->body_line++;
            P->body_col = 1;
        } else {
            P->body_col++;
        }
    }
    int32_t acc = -1;
    struct mark mark = {0, 0, 0};
    adi_prog *g = P->prog;
    const char *name = P->src + name_off;
    int32_t prev = P->nparams ? -1 : adi_symtab_get(&g->bindings, name, name_len);
    for (double i = a; i <= b; i++) {
        /* the vectors a term makes are its own: its value is a number, and
         * an expression binds no name, so they go when it is done */
        size_t nvecs = g->nvecs, nvelem = g->nvelem;
        int32_t r = body(P, name_off, name_len, whole_const(P, i, lline, lcol), end);
        if (r < 0) {
            acc = -1;
            break;
        }
        adi_vec_cut(g, nvecs, nvelem);
        acc = acc < 0 ? r : rec(P, op, acc, r, line, col);
        if (i == a) mark = (struct mark){P->t->n, P->t->nleaves, P->t->pool_len};
        else if (i == a + 1) reserve_terms(P, mark, b - i);
    }
    if (!P->nparams) {   /* the name as it was before the sum */
        if (prev >= 0) adi_symtab_set(&g->bindings, name, name_len, prev);   /* the key is there: no memory */
        else adi_symtab_forget(&g->bindings, name, name_len);
    }
    return acc;
}

/* ---- an element's assignment ---- */

ad_errclass adi_vec_assign(ad_tape *t, adi_prog *g, const ad_stmt *st, int32_t *root, ad_diag *d)
{
    const char *name = g->src + st->name_off;
    size_t nl = st->name_len;
    if (adi_is_vec(*root))
        return ad_diag_set(d, AD_E_SYNTAX, st->rhs_line, st->rhs_col,
                           "a vector (of %zu elements) cannot be one element: assign a number", adi_vec_len(g, *root));
    ad_errclass e;
    int32_t index = adi_parse_span(t, g, st->index_off, st->index_len, st->index_line, st->index_col, NULL, 0, 0, d, &e);
    if (e) return e;
    adi_pctx P;
    adi_pctx_init(&P, t, g, d);
    if (setjmp(P.oom)) return adi_err_recording(t, "out of memory while recording", d);
    int32_t h;
    size_t n, k;
    if (!lookup(&P, name, nl, &h, &n)) {
        char q[80];
        return ad_diag_set(d, AD_E_NAME, st->line, st->col,
                           "'%s' is not a vector: make it one first, as with %s = zeros(n)",
                           quoted(q, sizeof q, name, nl), quoted(q, sizeof q, name, nl));
    }
    if (position(&P, index, name, nl, n, 1, st->index_line, st->index_col, &k) < 0) return P.cls;
    int logged = g->skip || g->journal;
    if (h < 0 || g->vecs[h - ADI_VEC_BASE].nbind > 1) {
        /* the input vector, or another name's (or the input cache's) too: a copy */
        int32_t c = h < 0 ? adi_vec_input_copy(&P, name, nl, n, st->line, st->col) : adi_vec_new(&P, n);
        if (h >= 0) memcpy(adi_vec_el(g, c), adi_vec_el(g, h), n * sizeof(int32_t));
        if (logged && (h >= 0 || !g->journal)) {
            /* the name keeps the copy (the same elements) past the undo,
             * so the next assignment in a loop changes it in place: one
             * copy, not one per iteration */
            if (adi_symtab_set(&g->bindings, name, nl, c) < 0) longjmp(P.oom, 1);
            adi_vec_bound(g, c, h);
        }
        h = c;
    }
    if (logged && adi_prog_note_element(g, h, k - 1) < 0) longjmp(P.oom, 1);
    adi_vec_el(g, h)[k - 1] = *root;
    *root = h;
    return AD_E_NONE;
}

void adi_vec_bound(adi_prog *g, int32_t h, int32_t prev)
{
    if (adi_is_vec(h) && h != prev) g->vecs[h - ADI_VEC_BASE].nbind++;
}

ad_errclass adi_vec_value(const adi_prog *g, int32_t h, int line, int col, ad_diag *d)
{
    if (!adi_is_vec(h) || adi_vec_len(g, h)) return AD_E_NONE;
    return ad_diag_set(d, AD_E_DOMAIN, line, col, "the value is an empty vector: there is nothing to compute");
}
