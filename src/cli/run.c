/* run.c - one expression from options to numbers: parse it onto a tape,
 * bind the -at values to its inputs, and run the engines as requested:
 * forward mode (dual numbers) for --seed, reverse mode for --grad,
 * second-order adjoints for --hessian, Taylor arithmetic for --order and
 * the finite-difference check for --check. */
#include <stdio.h>
#include <string.h>
#include "run.h"
#include "alloc.h"

void cli_result_init(cli_result *r) { memset(r, 0, sizeof *r); }

static void cols_free(cli_cols *c)
{
    free(c->names);
    free(c->in);
    memset(c, 0, sizeof *c);
}

void cli_result_free(cli_result *r)
{
    cols_free(&r->cols);
    free(r->grad);
    free(r->hessian);
    free(r->hvp);
    free(r->derivs);
    free(r->check);
    free(r->diff);
    cli_result_init(r);
}

static ad_errclass nomem(ad_diag *d) { return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }

ad_errclass cli_prepare(const cli_options *o, ad_tape *t, ad_diag *d)
{
    ad_optstats st;
    size_t before = ad_tape_size(t);
    if (!o->no_optimize && ad_optimize(t, &st) < 0) return nomem(d);
    if (o->stats) {
        if (o->no_optimize)
            fprintf(stderr, "adcalc: tape: %zu nodes (not optimised)\n", before);
        else
            fprintf(stderr, "adcalc: tape: %zu nodes recorded, %zu after optimisation "
                            "(%zu folded, %zu shared, %zu powers as squares)\n",
                    st.before, st.after, st.folded, st.shared, st.strength);
        fprintf(stderr, "adcalc: tape: %zu inputs, %zu constants, %zu operations, %zu bytes\n",
                ad_tape_ninputs(t), ad_tape_nconsts(t),
                ad_tape_size(t) - ad_tape_ninputs(t) - ad_tape_nconsts(t), ad_tape_size(t) * ad_node_bytes());
    }
    return AD_E_NONE;
}

/* index of name in -at, or -1 */
static long at_index(const cli_options *o, const char *name, size_t len)
{
    for (size_t j = 0; j < o->nat; j++)
        if (strlen(o->at[j].name) == len && memcmp(o->at[j].name, name, len) == 0) return (long)j;
    return -1;
}

/* the point: x[i] for every tape input i, and in_of[j] the tape input of
 * -at variable j (or -1) */
ad_errclass cli_bind(const cli_options *o, const ad_tape *t, double *x, long *in_of, ad_diag *d)
{
    size_t ni = ad_tape_ninputs(t);
    for (size_t j = 0; j < o->nat; j++) in_of[j] = -1;
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(t, i, &len);
        long j = at_index(o, name, len);
        if (j < 0) {
            int line, col;
            ad_tape_pos(t, i, &line, &col);
            ad_errclass e;
            if (len <= 60)
                e = ad_diag_set(d, AD_E_NAME, line, col,
                                "variable '%.*s' has no value (give it with -at %.*s=VALUE)",
                                (int)len, name, (int)len, name);
            else
                e = ad_diag_set(d, AD_E_NAME, line, col,
                                "variable '%.60s...' (%zu characters) has no value (give it with -at)",
                                name, len);
            if (d) d->src = ad_tape_source(t, i);
            return e;
        }
        in_of[j] = (long)i;
        x[i] = o->at[j].value;
    }
    return AD_E_NONE;
}

/* the derivative columns; diff marks their tape inputs */
ad_errclass cli_columns(const cli_options *o, const long *in_of, size_t ni, cli_cols *c,
                       unsigned char *diff, ad_diag *d)
{
    size_t n = o->nwrt ? o->nwrt : o->nat;
    c->names = adi_malloc((n ? n : 1) * sizeof *c->names);
    c->in = adi_malloc((n ? n : 1) * sizeof *c->in);
    if (!c->names || !c->in) return nomem(d);
    c->n = n;
    memset(diff, 0, ni);
    for (size_t k = 0; k < n; k++) {
        const char *name = o->nwrt ? o->wrt[k] : o->at[k].name;
        c->names[k] = name;
        long j = at_index(o, name, strlen(name));
        c->in[k] = j >= 0 ? in_of[j] : -1;
        if (c->in[k] >= 0) diff[c->in[k]] = 1;
    }
    return AD_E_NONE;
}

/* identity seeds over the columns that occur on the tape: ni x k */
static double *unit_seeds(const cli_cols *c, size_t ni, size_t *k)
{
    *k = 0;
    for (size_t j = 0; j < c->n; j++) *k += c->in[j] >= 0;
    double *s = adi_malloc((ni * *k > 0 ? ni * *k : 1) * sizeof *s);
    if (!s) return NULL;
    memset(s, 0, ni * *k * sizeof *s);
    for (size_t j = 0, col = 0; j < c->n; j++)
        if (c->in[j] >= 0) s[(size_t)c->in[j] * *k + col++] = 1;
    return s;
}

/* the --seed direction on the tape inputs, marking them in diff */
static double *seed_vector(const cli_options *o, const long *in_of, size_t ni, unsigned char *diff)
{
    double *v = adi_malloc((ni ? ni : 1) * sizeof *v);
    if (!v) return NULL;
    memset(diff, 0, ni);
    for (size_t i = 0; i < ni; i++) v[i] = 0;
    for (size_t k = 0; k < o->nseed; k++) {
        long j = at_index(o, o->seed[k].name, strlen(o->seed[k].name));
        if (j >= 0 && in_of[j] >= 0) {
            diff[in_of[j]] = 1;
            v[in_of[j]] = o->seed[k].value;
        }
    }
    return v;
}

static ad_errclass do_hessian(const cli_options *o, const ad_tape *t, ad_work *w, const double *x,
                              const long *in_of, cli_result *r, ad_diag *d)
{
    size_t ni = ad_tape_ninputs(t), nc = r->cols.n, k;
    double *seeds, *g = adi_malloc((ni ? ni : 1) * sizeof *g), *hs = NULL;
    unsigned char *dir_diff = adi_malloc(ni ? ni : 1);
    ad_errclass e = AD_E_NONE;
    if (!g || !dir_diff) { e = nomem(d); goto out; }
    memset(dir_diff, 0, ni);
    if (o->nseed) {
        /* H v: one direction; the differentiated inputs are the columns */
        double *v = seed_vector(o, in_of, ni, dir_diff);
        if (!v) { e = nomem(d); goto out; }
        seeds = v;
        k = 1;
    } else {
        seeds = unit_seeds(&r->cols, ni, &k);
        if (!seeds) { e = nomem(d); goto out; }
    }
    /* the gradient's inputs and the seeded ones both move */
    for (size_t i = 0; i < ni; i++) dir_diff[i] = (unsigned char)(dir_diff[i] | r->diff[i]);
    hs = adi_malloc((ni * k > 0 ? ni * k : 1) * sizeof *hs);
    if (!hs) { free(seeds); e = nomem(d); goto out; }
    e = ad_hessian(t, w, x, dir_diff, seeds, k, o->policy, g, hs, d);
    free(seeds);
    if (e) goto out;
    r->grad = adi_malloc((nc ? nc : 1) * sizeof *r->grad);
    if (!r->grad) { e = nomem(d); goto out; }
    for (size_t a = 0; a < nc; a++) r->grad[a] = r->cols.in[a] >= 0 ? g[r->cols.in[a]] : 0;
    r->has_grad = 1;
    if (o->nseed) {
        r->hvp = adi_malloc((nc ? nc : 1) * sizeof *r->hvp);
        if (!r->hvp) { e = nomem(d); goto out; }
        for (size_t a = 0; a < nc; a++) r->hvp[a] = r->cols.in[a] >= 0 ? hs[r->cols.in[a]] : 0;
        r->has_hvp = 1;
    } else {
        r->hessian = adi_malloc((nc * nc > 0 ? nc * nc : 1) * sizeof *r->hessian);
        if (!r->hessian) { e = nomem(d); goto out; }
        /* column j of H S is direction j: the present columns in order */
        for (size_t a = 0; a < nc; a++) {
            for (size_t b = 0, col = 0; b < nc; b++) {
                double h = 0;
                if (r->cols.in[b] >= 0) {
                    if (r->cols.in[a] >= 0) h = hs[(size_t)r->cols.in[a] * k + col];
                    col++;
                }
                r->hessian[a * nc + b] = h;
            }
        }
        r->has_hessian = 1;
    }
    r->value = ad_value(t, w);
    r->has_adjoints = 1;
out:
    free(g);
    free(dir_diff);
    free(hs);
    return e;
}

static ad_errclass do_order(const cli_options *o, const ad_tape *t, ad_work *w, const double *x,
                            const long *in_of, cli_result *r, ad_diag *d)
{
    size_t ni = ad_tape_ninputs(t);
    int K = o->order;
    double *dir, *coef = adi_malloc((size_t)(K + 1) * sizeof *coef);
    unsigned char *dd = adi_malloc(ni ? ni : 1);
    ad_errclass e = AD_E_NONE;
    if (!coef || !dd) { free(coef); free(dd); return nomem(d); }
    if (o->nseed) {
        dir = seed_vector(o, in_of, ni, dd);
    } else {
        /* the one variable */
        dir = adi_malloc((ni ? ni : 1) * sizeof *dir);
        if (dir) {
            memset(dd, 0, ni);
            for (size_t i = 0; i < ni; i++) dir[i] = 0;
            if (r->cols.n == 1 && r->cols.in[0] >= 0) {
                dir[r->cols.in[0]] = 1;
                dd[r->cols.in[0]] = 1;
            }
        }
    }
    if (!dir) { free(coef); free(dd); return nomem(d); }
    e = ad_taylor(t, w, x, dd, dir, K, o->policy, coef, d);
    if (!e) {
        r->derivs = adi_malloc((size_t)K * sizeof *r->derivs);
        if (!r->derivs) {
            e = nomem(d);
        } else {
            double fact = 1;
            for (int k = 1; k <= K; k++) {
                fact *= k;
                r->derivs[k - 1] = coef[k] * fact + 0.0;   /* no -0 */
            }
            r->order = K;
            r->value = coef[0];
        }
    }
    free(dir);
    free(coef);
    free(dd);
    return e;
}

static ad_errclass do_check(const cli_options *o, const ad_tape *t, ad_work *w, const double *x,
                            cli_result *r, ad_diag *d)
{
    size_t ni = ad_tape_ninputs(t), nc = r->cols.n;
    ad_check_item *items = adi_malloc((ni ? ni : 1) * sizeof *items);
    r->check = adi_malloc((nc ? nc : 1) * sizeof *r->check);
    if (!items || !r->check) { free(items); return nomem(d); }
    ad_errclass e = ad_check_gradient(t, w, x, r->diff, o->policy, o->step_scale, o->rtol, o->atol,
                                      items, &r->fwd_rev, d);
    if (!e) {
        for (size_t a = 0; a < nc; a++) {
            if (r->cols.in[a] >= 0) {
                r->check[a] = items[r->cols.in[a]];
            } else {
                /* a variable the expression does not use: derivative 0, nothing to check */
                memset(&r->check[a], 0, sizeof r->check[a]);
                r->check[a].status = AD_CHECK_PASS;
            }
            if (r->check[a].status == AD_CHECK_FAIL) r->check_failed = 1;
        }
        if (r->fwd_rev > AD_FWD_REV_TOL) r->check_failed = 1;
        r->has_check = 1;
        /* the check swept perturbed points: back to the point itself */
        e = ad_eval(t, w, x, d);
        r->value = ad_value(t, w);
    }
    free(items);
    return e;
}

ad_errclass cli_run(const cli_options *o, const cli_source *s, ad_tape *t, ad_work *w,
                   cli_result *r, ad_diag *d)
{
    ad_errclass e = ad_parse(t, s->src, s->len, d);
    if (e) return e;
    if ((e = cli_prepare(o, t, d))) return e;
    size_t ni = ad_tape_ninputs(t), nat = o->nat;
    double *x = adi_malloc((ni ? ni : 1) * sizeof *x);
    long *in_of = adi_malloc((nat ? nat : 1) * sizeof *in_of);
    double *g = adi_malloc((ni ? ni : 1) * sizeof *g), *seeds = NULL;
    r->diff = adi_malloc(ni ? ni : 1);
    if (!x || !in_of || !g || !r->diff) { e = nomem(d); goto out; }
    if ((e = cli_bind(o, t, x, in_of, d))) goto out;
    int derivs = o->grad || o->hessian || o->order || o->check;
    if (derivs && (e = cli_columns(o, in_of, ni, &r->cols, r->diff, d))) goto out;

    /* the directional derivative: forward mode unless --mode reverse */
    if (o->nseed && !o->hessian && !o->order) {
        unsigned char *sd = adi_malloc(ni ? ni : 1);
        seeds = sd ? seed_vector(o, in_of, ni, sd) : NULL;
        if (!seeds) { free(sd); e = nomem(d); goto out; }
        if (o->mode == AD_MODE_REVERSE) {
            e = ad_eval(t, w, x, d);
            if (!e) e = ad_reverse(t, w, sd, o->policy, g, d);
            double sum = 0;
            for (size_t i = 0; !e && i < ni; i++)
                if (sd[i]) sum += g[i] * seeds[i];
            r->jvp = sum;
            r->has_adjoints = 1;
        } else {
            e = ad_forward(t, w, x, sd, seeds, 1, o->policy, &r->jvp, d);
            r->has_adjoints = 0;
        }
        if (!derivs) memcpy(r->diff, sd, ni);
        free(sd);
        if (e) goto out;
        r->has_jvp = 1;
        r->value = ad_value(t, w);
    }
    if (o->order && (e = do_order(o, t, w, x, in_of, r, d))) goto out;
    if (o->check && (e = do_check(o, t, w, x, r, d))) goto out;
    if (o->hessian) {
        if ((e = do_hessian(o, t, w, x, in_of, r, d))) goto out;
    } else if (o->grad) {
        size_t nc = r->cols.n;
        r->grad = adi_malloc((nc ? nc : 1) * sizeof *r->grad);
        if (!r->grad) { e = nomem(d); goto out; }
        size_t present = 0;
        for (size_t c = 0; c < nc; c++) present += r->cols.in[c] >= 0;
        int forward = o->mode == AD_MODE_FORWARD || (o->mode == AD_MODE_AUTO && present <= 1);
        if (forward) {
            /* one sweep of width k = the differentiated inputs that occur */
            size_t k;
            double *sd = unit_seeds(&r->cols, ni, &k);
            double *fo = adi_malloc((k ? k : 1) * sizeof *fo);
            if (!sd || !fo) { free(sd); free(fo); e = nomem(d); goto out; }
            e = ad_forward(t, w, x, r->diff, sd, k, o->policy, fo, d);
            for (size_t c = 0, col = 0; !e && c < nc; c++) r->grad[c] = r->cols.in[c] >= 0 ? fo[col++] : 0;
            free(sd);
            free(fo);
            r->has_adjoints = 0;
        } else {
            e = ad_eval(t, w, x, d);
            if (!e) e = ad_reverse(t, w, r->diff, o->policy, g, d);
            for (size_t c = 0; !e && c < nc; c++) r->grad[c] = r->cols.in[c] >= 0 ? g[r->cols.in[c]] : 0;
            r->has_adjoints = 1;
        }
        if (e) goto out;
        r->has_grad = 1;
        r->value = ad_value(t, w);
    }
    if (!o->nseed && !derivs) {
        memset(r->diff, 0, ni);
        if ((e = ad_eval(t, w, x, d))) goto out;
        r->value = ad_value(t, w);
    }
out:
    free(x);
    free(in_of);
    free(g);
    free(seeds);
    return e;
}
