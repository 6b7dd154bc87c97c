/* derive.c - the one derivation step: what a point gets, decided once per
 * tape (ad_plan_new) and done for any number of points (ad_derive, or
 * ad_derive_rows for blocks of them).
 *
 * A plan binds the tape's inputs to the caller's variables by name, maps
 * the derivative columns and the seed onto tape inputs, builds the seeds
 * (identity over the columns the tape uses, the --seed direction), lays
 * out the row of numbers every point gets (ad_layout), and chooses the
 * engine of first derivatives (use_forward: the only place --mode is
 * read).  ad_derive then runs the engines in a fixed order -- J v, Taylor,
 * the check, the Hessian or the gradients, w^T J -- so that the last sweep
 * left in the workspace (for the tape listing) and the first error
 * reported are the same for every caller. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "derive.h"
#include "block.h"
#include "alloc.h"



/* The engine of first derivatives -- the one place --mode is decided
 * (adcalc(1), DIFFERENTIATION, "Which engine", has this table):
 *   --mode forward, --mode reverse: that engine;
 *   J v (--seed): forward, one sweep of width 1 gives it for every output;
 *   gradients and Jacobians of m outputs in k columns (those that occur):
 *     in batch mode, reverse: the block replay sweeps 256 points at once
 *       backwards, which beats forward sweeps point by point for any k;
 *     --grad under the default mode, reverse: one sweep, whose adjoints
 *       --dump-tape shows;
 *     --jacobian, or --mode auto: forward when k <= m (one sweep of width
 *       k, against m reverse sweeps), else reverse. */
static int use_forward(const ad_request *rq, int jvp, size_t k, size_t m)
{
    if (rq->mode == AD_MODE_FORWARD) return 1;
    if (rq->mode == AD_MODE_REVERSE) return 0;
    if (jvp) return 1;
    if (rq->many) return 0;
    if (rq->mode == AD_MODE_DEFAULT && !rq->jacobian) return 0;
    return k <= m;
}

/* the row: per output, the value, then the columns' first derivatives,
 * J v, and for output 0 (the only one then) H v or H, and the Taylor
 * derivatives; after the outputs, w^T J */
int ad_layout_of(const ad_request *rq, size_t m, ad_layout *L)
{
    size_t nc = rq->ncols, at = 1;
    int jvp = rq->nseed && !rq->hessian && !rq->order;
    /* rows of doubles, even a whole Hessian, that size_t can count */
    const size_t most = SIZE_MAX / 8 / 4;
    if (nc > most / 4 || (rq->hessian && nc && nc > most / nc) || (size_t)rq->order > most) return -1;
    L->m = m;
    L->ncols = nc;
    L->order = rq->order > 0 ? (size_t)rq->order : 0;
    L->grad = L->jvp = L->hvp = L->hessian = L->derivs = L->vjp = AD_ABSENT;
    if (rq->grad || rq->hessian) { L->grad = at; at += nc; }
    if (jvp) L->jvp = at++;
    if (rq->hessian && rq->nseed) { L->hvp = at; at += nc; }
    if (rq->hessian && !rq->nseed) { L->hessian = at; at += nc * nc; }
    if (L->order) { L->derivs = at; at += L->order; }
    L->per_out = at;
    if (m && at > most / m) return -1;
    L->width = m * at;
    if (rq->weights) { L->vjp = L->width; L->width += nc; }
    return 0;
}

void ad_plan_free(ad_plan *p)
{
    if (!p) return;
    for (size_t c = 0; p->colname && c < p->L.ncols; c++) free(p->colname[c]);
    free(p->colname);
    free(p->var_of_input);
    free(p->col_input);
    free(p->diff);
    free(p->unit);
    free(p->seed);
    free(p->seeddiff);
    free(p->bothdiff);
    free(p->dir);
    free(p->dirdiff);
    free(p->weights);
    adi_plan_paths_free(p);
    free(p);
}

/* the tape input called name, or -1 (inputs: the tape's inputs by name) */
static long input_named(const adi_names *inputs, const char *name)
{
    return adi_names_get(inputs, name, strlen(name));
}

/* every tape input to a variable of the point; AD_E_NAME for one that has
 * none.  vars: the point's variables by name */
static ad_errclass bind(ad_plan *p, const adi_names *vars, size_t *unbound, ad_diag *d)
{
    const ad_tape *t = p->t;
    for (size_t i = 0; i < p->ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(t, i, &len);
        int32_t v = adi_names_get(vars, name, len);
        p->var_of_input[i] = v >= 0 ? (size_t)v : SIZE_MAX;
        if (p->var_of_input[i] != SIZE_MAX) continue;
        if (t->flow) {
            /* another path may not need it: an error only at a point whose
             * path is this tape's (ad_derive) */
            if (p->unbound == SIZE_MAX) p->unbound = i;
            continue;
        }
        if (unbound) *unbound = i;
        ad_errclass e = ad_diag_set(d, AD_E_NAME, t->pos[i].line, t->pos[i].col,
                                    "variable '%.*s' has no value", (int)(len > 60 ? 60 : len), name);
        if (d) d->src = t->pos[i].src;
        return e;
    }
    return AD_E_NONE;
}

/* the columns, their seeds, the --seed direction and Taylor's direction */
static int seeds(ad_plan *p, const ad_request *rq, const adi_names *inputs)
{
    size_t ni = p->ni, nc = rq->ncols;
    for (size_t c = 0; c < nc; c++) {
        p->colname[c] = adi_strdup(rq->cols[c]);
        if (!p->colname[c]) return -1;
        p->col_input[c] = input_named(inputs, rq->cols[c]);
        if (p->col_input[c] >= 0) {
            p->diff[p->col_input[c]] = 1;
            p->k++;
        }
    }
    /* identity seeds, for the engines that carry one tangent per column
     * (forward gradients, the whole Hessian): direction j moves the j-th
     * column that occurs; ni x k numbers, so only when used */
    p->fwd_grad = use_forward(rq, 0, p->k, p->L.m);
    p->fwd_jvp = use_forward(rq, 1, 1, p->L.m);
    p->tangents = (p->L.grad != AD_ABSENT && p->fwd_grad && !rq->hessian) || p->L.hessian != AD_ABSENT;
    if (p->tangents) {
        if (p->k && ni > SIZE_MAX / p->k) return -1;
        p->unit = adi_calloc(ni * p->k, sizeof *p->unit);
        if (!p->unit) return -1;
        for (size_t c = 0, j = 0; c < nc; c++)
            if (p->col_input[c] >= 0) p->unit[(size_t)p->col_input[c] * p->k + j++] = 1;
    }
    if (rq->nseed) {
        p->seed = adi_calloc(ni, sizeof *p->seed);
        p->seeddiff = adi_calloc(ni, 1);
        if (!p->seed || !p->seeddiff) return -1;
        for (size_t s = 0; s < rq->nseed; s++) {
            long i = input_named(inputs, rq->seed_vars[s]);
            if (i < 0) continue;
            p->seed[i] = rq->seed[s];
            p->seeddiff[i] = 1;
        }
    }
    p->bothdiff = adi_calloc(ni, 1);
    if (!p->bothdiff) return -1;
    for (size_t i = 0; i < ni; i++) p->bothdiff[i] = p->diff[i] | (p->seeddiff ? p->seeddiff[i] : 0);
    if (rq->order) {
        /* along the seed, or along the one column */
        p->dir = adi_calloc(ni, sizeof *p->dir);
        p->dirdiff = adi_calloc(ni, 1);
        if (!p->dir || !p->dirdiff) return -1;
        if (rq->nseed) {
            memcpy(p->dir, p->seed, ni * sizeof *p->dir);
            memcpy(p->dirdiff, p->seeddiff, ni);
        } else if (nc == 1 && p->col_input[0] >= 0) {
            p->dir[p->col_input[0]] = 1;
            p->dirdiff[p->col_input[0]] = 1;
        }
    }
    return 0;
}

/* a table of names to their indices: list[0..n), or the tape's inputs;
 * the first of a repeated name counts.  0, or -1 when out of memory */
static int names(adi_names *s, const char *const *list, size_t n, const ad_tape *t)
{
    adi_names_init(s);
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *name = t ? ad_tape_input_name(t, i, &len) : list[i];
        if (!t) len = strlen(name);
        if (adi_names_add(s, name, len, (int32_t)i) < 0) return -1;
    }
    return 0;
}

ad_errclass ad_plan_new(const ad_tape *t, const ad_request *rq, ad_plan **plan, size_t *unbound,
                        ad_diag *d)
{
    *plan = NULL;
    size_t m = t->nout;
    if (m != 1 && (rq->hessian || rq->order || rq->check))
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "Hessians, Taylor derivatives and the gradient check take one output");
    ad_plan *p = adi_calloc(1, sizeof *p);
    if (!p) return adi_err_nomem(d);
    size_t ni = t->ninputs, nc = rq->ncols;
    p->t = t;
    p->ni = ni;
    p->unbound = SIZE_MAX;
    if (ad_layout_of(rq, m, &p->L) < 0) {
        free(p);
        return ad_diag_set(d, AD_E_IO, 0, 0, "too many derivatives for one point");
    }
    p->check = rq->check;
    p->step_scale = rq->step_scale;
    p->rtol = rq->rtol;
    p->atol = rq->atol;
    p->pol = rq->policy;
    p->var_of_input = adi_calloc(ni, sizeof *p->var_of_input);
    p->colname = adi_calloc(nc, sizeof *p->colname);
    p->col_input = adi_calloc(nc, sizeof *p->col_input);
    p->diff = adi_calloc(ni, 1);
    if (rq->weights) p->weights = adi_calloc(m, sizeof *p->weights);
    /* names to indices, so that binding costs n, not n^2 */
    adi_names vars, inputs;
    int ok = names(&vars, rq->vars, rq->nvars, NULL) == 0;
    ok = names(&inputs, NULL, ni, t) == 0 && ok;
    if (!ok || !p->var_of_input || !p->colname || !p->col_input || !p->diff || (rq->weights && !p->weights) ||
        seeds(p, rq, &inputs) < 0) {
        adi_names_free(&vars);
        adi_names_free(&inputs);
        ad_plan_free(p);
        return adi_err_nomem(d);
    }
    if (rq->weights) memcpy(p->weights, rq->weights, m * sizeof *p->weights);
    if (t->flow && adi_plan_paths(p, rq) < 0) {
        adi_names_free(&vars);
        adi_names_free(&inputs);
        ad_plan_free(p);
        return adi_err_nomem(d);
    }
    ad_errclass e = bind(p, &vars, unbound, d);
    adi_names_free(&vars);
    adi_names_free(&inputs);
    if (e) {
        ad_plan_free(p);
        return e;
    }
    /* the largest engine result: m x k forward results, ni x k Hessian
     * columns, the Taylor coefficients */
    size_t k1 = p->k ? p->k : 1, big = m;
    if (p->tangents && m * k1 > big) big = m * k1;
    if (p->L.hessian != AD_ABSENT && ni * k1 > big) big = ni * k1;
    if (p->L.hvp != AD_ABSENT && ni > big) big = ni;
    if (p->L.order + 1 > big) big = p->L.order + 1;
    size_t item = (sizeof(ad_check_item) + sizeof(double) - 1) / sizeof(double);
    p->off_big = 2 * ni;
    p->off_wout = p->off_big + big;
    p->off_items = p->off_wout + m;
    p->scratch = p->off_items + (rq->check ? ni * item : 0);
    *plan = p;
    return AD_E_NONE;
}

const ad_layout *ad_plan_layout(const ad_plan *p) { return &p->L; }
const char *ad_plan_column(const ad_plan *p, size_t k) { return p->colname[k]; }

int ad_plan_blocks(const ad_plan *p)
{
    const ad_layout *L = &p->L;
    return L->jvp == AD_ABSENT && L->hvp == AD_ABSENT && L->hessian == AD_ABSENT && !L->order &&
           L->vjp == AD_ABSENT && !p->check && (L->grad == AD_ABSENT || !p->fwd_grad);
}

/* ---- the engines, each filling its part of the row ---- */

typedef struct {
    const ad_plan *p;
    ad_work *w;
    const double *x;   /* the point on the tape inputs */
    double *row;
    double *g, *big, *wout;   /* scratch: ni, the largest result, m */
    ad_diag *d;
} step;

/* J v for every output */
static ad_errclass do_jvp(step *s)
{
    const ad_plan *p = s->p;
    const ad_layout *L = &p->L;
    if (p->fwd_jvp) {
        ad_errclass e = ad_forward(p->t, s->w, s->x, p->seeddiff, p->seed, 1, p->pol, s->big, s->d);
        for (size_t r = 0; !e && r < L->m; r++) s->row[r * L->per_out + L->jvp] = s->big[r] + 0.0;
        return e;
    }
    /* one reverse sweep per output, dotted with the seed */
    ad_errclass e = ad_eval(p->t, s->w, s->x, s->d);
    for (size_t r = 0; !e && r < L->m; r++) {
        for (size_t q = 0; q < L->m; q++) s->wout[q] = q == r;
        if ((e = ad_reverse_outputs(p->t, s->w, p->seeddiff, p->pol, s->wout, s->g, s->d))) break;
        double sum = 0;
        for (size_t i = 0; i < p->ni; i++)
            if (p->seeddiff[i]) sum += s->g[i] * p->seed[i];
        s->row[r * L->per_out + L->jvp] = sum;
    }
    return e;
}

/* f', f'', ... along the direction, from the Taylor coefficients */
static ad_errclass do_order(step *s)
{
    const ad_plan *p = s->p;
    int K = (int)p->L.order;
    double *coef = s->big;
    ad_errclass e = ad_taylor(p->t, s->w, s->x, p->dirdiff, p->dir, K, p->pol, coef, s->d);
    double fact = 1;
    for (int k = 1; !e && k <= K; k++) {
        fact *= k;
        s->row[p->L.derivs + (size_t)k - 1] = coef[k] * fact + 0.0;   /* no -0 */
    }
    return e;
}

/* the gradient check over the columns, then a sweep back at the point */
static ad_errclass do_check(step *s, ad_check_result *chk, ad_check_item *items)
{
    const ad_plan *p = s->p;
    ad_errclass e = ad_check_gradient(p->t, s->w, s->x, p->diff, p->pol, p->step_scale, p->rtol,
                                      p->atol, items, &chk->fwd_rev, s->d);
    if (e) return e;
    chk->failed = !(chk->fwd_rev <= AD_FWD_REV_TOL);   /* nan fails too */
    for (size_t c = 0; c < p->L.ncols; c++) {
        if (p->col_input[c] >= 0) {
            chk->items[c] = items[p->col_input[c]];
        } else {
            /* a variable the expression does not use: derivative 0, nothing to check */
            memset(&chk->items[c], 0, sizeof chk->items[c]);
            chk->items[c].status = AD_CHECK_PASS;
        }
        if (chk->items[c].status == AD_CHECK_FAIL) chk->failed = 1;
    }
    return ad_eval(p->t, s->w, s->x, s->d);
}

/* the gradient and H v or H: forward over reverse, one pass */
static ad_errclass do_hessian(step *s)
{
    const ad_plan *p = s->p;
    const ad_layout *L = &p->L;
    int hvp = L->hvp != AD_ABSENT;
    size_t k = hvp ? 1 : p->k, nc = L->ncols;
    double *hs = s->big;
    ad_errclass e = ad_hessian(p->t, s->w, s->x, p->bothdiff, hvp ? p->seed : p->unit, k, p->pol, s->g,
                               hs, s->d);
    if (e) return e;
    const long *in = p->col_input;
    for (size_t a = 0; a < nc; a++) s->row[L->grad + a] = in[a] >= 0 ? s->g[in[a]] : 0;
    if (hvp) {
        for (size_t a = 0; a < nc; a++) s->row[L->hvp + a] = in[a] >= 0 ? hs[in[a]] : 0;
        return AD_E_NONE;
    }
    /* column j of H S is the j-th column that occurs: entry (a, b) */
    for (size_t a = 0; a < nc; a++)
        for (size_t b = 0, col = 0; b < nc; b++) {
            double h = 0;
            if (in[b] >= 0) {
                if (in[a] >= 0) h = hs[(size_t)in[a] * k + col];
                col++;
            }
            s->row[L->hessian + a * nc + b] = h;
        }
    return AD_E_NONE;
}

/* every output's first derivatives over the columns */
static ad_errclass do_grad(step *s)
{
    const ad_plan *p = s->p;
    const ad_layout *L = &p->L;
    const long *in = p->col_input;
    if (p->fwd_grad) {
        /* one sweep of width k over the columns that occur */
        size_t k = p->k;
        ad_errclass e = ad_forward(p->t, s->w, s->x, p->diff, p->unit, k, p->pol, s->big, s->d);
        for (size_t r = 0; !e && r < L->m; r++)
            for (size_t c = 0, col = 0; c < L->ncols; c++)
                s->row[r * L->per_out + L->grad + c] = in[c] >= 0 ? s->big[r * k + col++] : 0;
        return e;
    }
    /* one reverse sweep per output */
    ad_errclass e = ad_eval(p->t, s->w, s->x, s->d);
    for (size_t r = 0; !e && r < L->m; r++) {
        for (size_t q = 0; q < L->m; q++) s->wout[q] = q == r;
        if ((e = ad_reverse_outputs(p->t, s->w, p->diff, p->pol, s->wout, s->g, s->d))) break;
        for (size_t c = 0; c < L->ncols; c++) s->row[r * L->per_out + L->grad + c] = in[c] >= 0 ? s->g[in[c]] : 0;
    }
    return e;
}

/* w^T J: one reverse sweep of the weighted outputs */
static ad_errclass do_vjp(step *s)
{
    const ad_plan *p = s->p;
    ad_errclass e = ad_eval(p->t, s->w, s->x, s->d);
    if (!e) e = ad_reverse_outputs(p->t, s->w, p->diff, p->pol, p->weights, s->g, s->d);
    for (size_t c = 0; !e && c < p->L.ncols; c++)
        s->row[p->L.vjp + c] = p->col_input[c] >= 0 ? s->g[p->col_input[c]] : 0;
    return e;
}

ad_errclass ad_derive(const ad_plan *p, ad_work *w, const double *point, double *row,
                      ad_check_result *chk, ad_diag *d)
{
    return p->t->flow ? adi_derive_path(p, w, point, row, chk, d) : adi_derive_here(p, w, point, row, chk, d);
}

ad_errclass adi_derive_here(const ad_plan *p, ad_work *w, const double *point, double *row, ad_check_result *chk,
                            ad_diag *d)
{
    const ad_layout *L = &p->L;
    if (p->unbound != SIZE_MAX) {
        /* the point's path needs a variable the point does not give */
        size_t len, i = p->unbound;
        const char *name = ad_tape_input_name(p->t, i, &len);
        ad_errclass e = ad_diag_set(d, AD_E_NAME, p->t->pos[i].line, p->t->pos[i].col,
                                    "variable '%.*s' has no value", (int)(len > 60 ? 60 : len), name);
        if (d) {
            d->src = p->t->pos[i].src;
            d->hint = AD_HINT_UNBOUND;
        }
        return e;
    }
    double *sc = adi_work_scratch(w, p->scratch);
    if (!sc) return adi_err_nomem(d);
    w->tape = p->t;
    step s = {p, w, sc, row, sc + p->ni, sc + p->off_big, sc + p->off_wout, d};
    double *x = sc;
    for (size_t i = 0; i < p->ni; i++) x[i] = p->var_of_input[i] == SIZE_MAX ? NAN : point[p->var_of_input[i]];
    ad_errclass e = AD_E_NONE;
    int swept = 0;
    if (!e && L->jvp != AD_ABSENT) e = do_jvp(&s), swept = 1;
    if (!e && L->order) e = do_order(&s), swept = 1;
    if (!e && p->check && chk) e = do_check(&s, chk, (ad_check_item *)(sc + p->off_items)), swept = 1;
    if (!e && (L->hvp != AD_ABSENT || L->hessian != AD_ABSENT)) e = do_hessian(&s), swept = 1;
    else if (!e && L->grad != AD_ABSENT) e = do_grad(&s), swept = 1;
    if (!e && L->vjp != AD_ABSENT) e = do_vjp(&s), swept = 1;
    if (!e && !swept) e = ad_eval(p->t, w, x, d);
    if (e) return e;
    for (size_t r = 0; r < L->m; r++) row[r * L->per_out] = ad_output_value(p->t, w, r);
    return AD_E_NONE;
}

int adi_derive_rows_on(const ad_plan *p, ad_block *b, size_t np, const double *rows, size_t stride, size_t nlead,
                       const double *tail, double *out, unsigned char *flags)
{
    if (p->unbound != SIZE_MAX) {
        /* a variable without a value: the points say where (ad_derive) */
        memset(flags, 1, np);
        return 0;
    }
    long *xcol;
    double *fixed;
    if (adi_block_bind(b, p->ni, &xcol, &fixed) < 0) return -1;
    for (size_t i = 0; i < p->ni; i++) {
        size_t v = p->var_of_input[i];
        xcol[i] = v < nlead ? (long)v : -1;
        fixed[i] = v < nlead ? 0 : tail[v - nlead];
    }
    if (b->jit && b->jit_plan == p)   /* the plan's compiled code (--jit) */
        return b->jit(np, rows, stride, xcol, fixed, out, p->L.width, flags) < 0 ? -1 : 0;
    return ad_block_run_rows(p->t, b, p->diff, p->L.grad != AD_ABSENT, np, rows, stride, xcol, fixed, p->col_input,
                             p->L.ncols, out, p->L.width, flags);
}

int ad_derive_rows(const ad_plan *p, ad_block *b, ad_work *w, size_t np, const double *rows, size_t stride,
                   size_t nlead, const double *tail, double *out, unsigned char *flags)
{
    /* control flow: each row on the tape of its path (path.c) */
    if (p->t->flow) return adi_derive_rows_paths(p, b, w, np, rows, stride, nlead, tail, out, flags);
    return adi_derive_rows_on(p, b, np, rows, stride, nlead, tail, out, flags);
}
