/* call.c - turning a parsed call name(args...) into tape nodes: arity
 * checks, default arguments, folding of variadic min/max, and derived
 * functions (relu, clamp, smooth_abs, smooth_clamp), recorded from the
 * expansion ops.def defines them by; names (parameters, assigned names,
 * inputs) and user functions, whose body is parsed again at each call with
 * its parameters bound to the arguments.  Also the "did you mean"
 * suggestion. */
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "alloc.h"

static int32_t rec(adi_pctx *P, int op, int32_t a, int32_t b, int line, int col)
{
    int32_t i = adi_rec_op(P->t, op, a, b, line, col);
    if (i < 0) longjmp(P->oom, 1);
    adi_memo_op(P, 0, op, a, b, line, col, i);
    return i;
}

static int32_t constant(adi_pctx *P, double v, const char *text, int line, int col)
{
    int32_t i = adi_rec_const(P->t, v, text, strlen(text), line, col);
    if (i < 0) longjmp(P->oom, 1);
    adi_memo_const(P, v, text, strlen(text), line, col, i);
    return i;
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

/* a derived function: its expansion (ops.def) recorded with its
 * parameters bound to the argument nodes, every node at the call */
static int32_t expand(adi_pctx *P, const adi_fninfo *fn, const int32_t *arg, size_t n, int line, int col)
{
    adi_memo_bad(P);
    adi_param ps[4];
    size_t np = 0;
    for (const char *p = fn->params; *p && np < 4 && np < n; np++) {
        size_t len = strcspn(p, ", ");
        ps[np] = (adi_param){p, len, arg[np]};
        p += len;
        p += strspn(p, ", ");
    }
    adi_prog body;
    memset(&body, 0, sizeof body);
    body.src = fn->synopsis;
    body.len = strlen(fn->synopsis);
    adi_symtab_init(&body.bindings);
    adi_symtab_init(&body.funcs);
    body.stack_top = P->prog->stack_top;
    body.scanning = 1;   /* a scanner of its own, freed with the parse (body is never freed) */
    ad_tape *t = P->t;
    int32_t pl = t->pin_line, pc = t->pin_col;
    if (!pl) {
        t->pin_line = line;
        t->pin_col = col;
    }
    ad_errclass e;
    int32_t r = adi_parse_span(t, &body, 0, body.len, 1, 1, ps, np, P->depth, NULL, &e);
    t->pin_line = pl;
    t->pin_col = pc;
    if (r < 0) longjmp(P->oom, 1);   /* the table's expansions parse: only memory can fail */
    return r;
}

int32_t adi_call(adi_pctx *P, const adi_fninfo *fn, size_t nargs, int line, int col)
{
    int32_t *a = nargs ? P->args + P->nargs - nargs : NULL;
    if (nargs < (size_t)fn->nargs_min || nargs > (size_t)fn->nargs_max) {
        if (fn->nargs_max == ADI_VARIADIC)
            adi_perror(P, AD_E_SYNTAX, line, col, "%s takes at least %d arguments, got %zu",
                      fn->name, fn->nargs_min, nargs);
        else if (fn->nargs_min == fn->nargs_max)
            adi_perror(P, AD_E_SYNTAX, line, col, "%s takes %d argument%s, got %zu",
                      fn->name, fn->nargs_min, plural(fn->nargs_min), nargs);
        else
            adi_perror(P, AD_E_SYNTAX, line, col, "%s takes %d to %d arguments, got %zu",
                      fn->name, fn->nargs_min, fn->nargs_max, nargs);
        return -1;
    }
    int32_t arg[4];
    size_t n = nargs;
    for (size_t i = 0; i < n && i < 4; i++) arg[i] = a[i];
    if (n < (size_t)fn->nargs_max && fn->nargs_max != ADI_VARIADIC) {
        /* the optional last argument takes its default */
        char text[32];
        snprintf(text, sizeof text, "%.17g", fn->dflt);
        arg[n++] = constant(P, fn->dflt, text, line, col);
    }
    int32_t r;
    if (!fn->derived) {
        if (fn->nargs_max == ADI_VARIADIC) {
            /* min(a, b, c) = min(min(a, b), c) */
            r = rec(P, fn->code, a[0], a[1], line, col);
            for (size_t i = 2; i < nargs; i++) r = rec(P, fn->code, r, a[i], line, col);
        } else {
            r = rec(P, fn->code, arg[0], n > 1 ? arg[1] : -1, line, col);
        }
    } else {
        r = expand(P, fn, arg, n, line, col);
    }
    P->nargs -= nargs;
    return r;
}

long adi_user_function(const adi_pctx *P, const char *name, size_t len)
{
    if (!P->prog) return -1;
    return adi_symtab_get(&P->prog->funcs, name, len);
}

int32_t adi_resolve_name(adi_pctx *P, const char *name, size_t len, int line, int col)
{
    for (size_t k = 0; k < P->nparams; k++)
        if (P->params[k].len == len && !memcmp(P->params[k].name, name, len)) return P->params[k].node;
    if (P->prog) {
        int32_t b = adi_symtab_get(&P->prog->bindings, name, len);
        if (b >= 0) return b;
        /* while a body is checked, a free name is resolved only when the
         * function is called (it may be assigned in between): a stand-in */
        if (P->prog->checking) return adi_rec_const(P->t, 1, "1", 1, line, col);
    }
    size_t n = ad_tape_vector_len(P->t, name, len);
    if (n) return adi_vec_input(P, name, len, n, line, col);
    return adi_rec_var(P->t, name, len, line, col);
}

int adi_nesting_error(adi_pctx *P, int line, int col, const char *what)
{
    /* the depth, and the C stack it takes, whatever the stack limit */
    char here;
    uintptr_t at = (uintptr_t)&here, top = P->prog->stack_top;
    uintptr_t used = top > at ? top - at : at - top;
    int depth = P->depth + P->prog->sumdepth;
    if (depth < ADI_MAX_INLINE_DEPTH && !(top && used > ADI_INLINE_STACK)) return 0;
    adi_perror(P, AD_E_SYNTAX, line, col, "%s more than %d deep", what,
               depth >= ADI_MAX_INLINE_DEPTH ? ADI_MAX_INLINE_DEPTH : depth);
    return 1;
}

int32_t adi_inline_call(adi_pctx *P, size_t fi, size_t nargs, int line, int col)
{
    adi_prog *g = P->prog;
    adi_ufunc *f = &g->fn[fi];
    const char *name = g->src + f->name_off;
    char q[80];
    snprintf(q, sizeof q, "%.*s", (int)(f->name_len > 60 ? 60 : f->name_len), name);
    if (f->defining) {
        adi_perror(P, AD_E_NAME, line, col, "'%s' calls itself: recursion is not supported", q);
        return -1;
    }
    if (nargs != f->nparams) {
        adi_perror(P, AD_E_SYNTAX, line, col, "%s takes %zu argument%s, got %zu", q, f->nparams,
                  f->nparams == 1 ? "" : "s", nargs);
        return -1;
    }
    if (adi_nesting_error(P, line, col, "functions call each other")) return -1;
    adi_param *ps = adi_malloc((nargs ? nargs : 1) * sizeof *ps);
    if (!ps) longjmp(P->oom, 1);
    for (size_t k = 0; k < nargs; k++) {
        ps[k].name = g->src + f->param_off[k];
        ps[k].len = f->param_len[k];
        ps[k].node = P->args[P->nargs - nargs + k];
        adi_vec_bound(g, ps[k].node, -1);   /* a parameter holds it: never reclaimed */
    }
    ad_errclass e;
    int32_t r = adi_parse_span(P->t, g, f->body_off, f->body_len, f->body_line, f->body_col, ps,
                              nargs, P->depth + 1, P->diag, &e);
    free(ps);
    P->nargs -= nargs;
    if (r < 0) {
        /* the body's own parse has said what is wrong */
        P->failed = 1;
        P->cls = e;
        return -1;
    }
    /* the call's result is named after the function on a tape that keeps
     * names: not while a body is checked or a part not taken is parsed,
     * nor in a loop, whose parses are replayed without calls (memo.c) */
    if (!g->checking && !g->skip && !g->inloop &&
        adi_tape_name(P->t, r, name, f->name_len, f->nparams ? "(...)" : "()") < 0)
        longjmp(P->oom, 1);
    return r;
}

/* Levenshtein distance, capped: names are short */
size_t ad_edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t row[32];
    if (n >= 31 || m >= 31) return 99;
    for (size_t j = 0; j <= m; j++) row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cur = row[j];
            size_t best = prev + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[m];
}

const char *adi_suggest_function(const char *name, size_t len)
{
    const char *best = NULL;
    size_t bestd = len <= 3 ? 1 : 2;
    for (size_t i = 0; i < adi_nfunctions; i++) {
        const adi_fninfo *f = &adi_functions[i];
        if (f->nargs_min == 0) continue;
        size_t d = ad_edit_distance(name, len, f->name, strlen(f->name));
        if (d <= bestd && (!best || d < bestd)) {
            best = f->name;
            bestd = d;
        }
    }
    return best;
}
