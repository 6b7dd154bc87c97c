/* call.c - turning a parsed call name(args...) into tape nodes: arity
 * checks, default arguments, folding of variadic min/max, and the
 * expansion of derived functions (relu, clamp, smooth_abs, smooth_clamp)
 * into primitives.  Also the "did you mean" suggestion. */
#include <stdio.h>
#include <string.h>
#include "parse.h"

static int32_t rec(adi_pctx *P, int op, int32_t a, int32_t b, int line, int col)
{
    int32_t i = adi_rec_op(P->t, op, a, b, line, col);
    if (i < 0) longjmp(P->oom, 1);
    return i;
}

static int32_t constant(adi_pctx *P, double v, const char *text, int line, int col)
{
    int32_t i = adi_rec_const(P->t, v, text, strlen(text), line, col);
    if (i < 0) longjmp(P->oom, 1);
    return i;
}

static const char *plural(int n) { return n == 1 ? "" : "s"; }

int32_t adi_call(adi_pctx *P, const adi_fninfo *fn, size_t nargs, int line, int col)
{
    int32_t *a = nargs ? P->args + P->nargs - nargs : NULL;
    if (nargs < (size_t)fn->nargs_min || nargs > (size_t)fn->nargs_max) {
        if (fn->nargs_max == AD_VARIADIC)
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
    if (n < (size_t)fn->nargs_max && fn->nargs_max != AD_VARIADIC) {
        /* the optional last argument takes its default */
        char text[32];
        snprintf(text, sizeof text, "%.17g", fn->dflt);
        arg[n++] = constant(P, fn->dflt, text, line, col);
    }
    int32_t r;
    if (!fn->derived) {
        if (fn->nargs_max == AD_VARIADIC) {
            /* min(a, b, c) = min(min(a, b), c) */
            r = rec(P, fn->code, a[0], a[1], line, col);
            for (size_t i = 2; i < nargs; i++) r = rec(P, fn->code, r, a[i], line, col);
        } else {
            r = rec(P, fn->code, arg[0], n > 1 ? arg[1] : -1, line, col);
        }
    } else {
        switch ((adi_derived)fn->code) {
        case AD_DER_RELU:          /* max(x, 0) */
            r = rec(P, AD_OP_MAX, arg[0], constant(P, 0, "0", line, col), line, col);
            break;
        case AD_DER_CLAMP:         /* min(max(x, lo), hi) */
            r = rec(P, AD_OP_MAX, arg[0], arg[1], line, col);
            r = rec(P, AD_OP_MIN, r, arg[2], line, col);
            break;
        case AD_DER_SMOOTH_ABS:    /* hypot(x, eps) = sqrt(x^2 + eps^2) */
            r = rec(P, AD_OP_HYPOT, arg[0], arg[1], line, col);
            break;
        case AD_DER_SMOOTH_CLAMP: { /* lo + softplus(x - lo, beta) - softplus(x - hi, beta) */
            int32_t dl = rec(P, AD_OP_SUB, arg[0], arg[1], line, col);
            int32_t dh = rec(P, AD_OP_SUB, arg[0], arg[2], line, col);
            int32_t sl = rec(P, AD_OP_SOFTPLUS, dl, arg[3], line, col);
            int32_t sh = rec(P, AD_OP_SOFTPLUS, dh, arg[3], line, col);
            r = rec(P, AD_OP_SUB, rec(P, AD_OP_ADD, arg[1], sl, line, col), sh, line, col);
            break;
        }
        default:
            r = -1;
            break;
        }
    }
    P->nargs -= nargs;
    return r;
}

/* Levenshtein distance, capped: names are short */
static size_t distance(const char *a, size_t n, const char *b, size_t m)
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
        size_t d = distance(name, len, f->name, strlen(f->name));
        if (d <= bestd && (!best || d < bestd)) {
            best = f->name;
            bestd = d;
        }
    }
    return best;
}
