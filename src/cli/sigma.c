/* sigma.c - --sigma and --cov (sigma.h).  S is kept sparse, its diagonal
 * and the entries given, so that the cost is linear in the columns and the
 * entries: u^2 = sum_i g_i^2 S_ii + 2 sum_{i<j} g_i g_j S_ij (GUM 5.1.2,
 * 5.2.2).  The second-order figure is the variance of the quadratic model
 * f0 + g.d + d.H.d/2 when d is Gaussian with covariance S, exactly
 * g^T S g + tr((H S)^2)/2; for uncorrelated inputs its extra term is the
 * GUM's sum_ij (d2f/dxi dxj)^2 u_i^2 u_j^2 / 2 (5.1.2, note), without the
 * note's third-derivative part. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sigma.h"
#include "names.h"

void cli_sigma_free(cli_sigma *S)
{
    free(S->var);
    free(S->oi);
    free(S->oj);
    free(S->oc);
    memset(S, 0, sizeof *S);
}

static ad_errclass nomem(cli_sigma *S, ad_diag *d)
{
    cli_sigma_free(S);
    return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
}

/* the column of name, or an error naming the option */
static ad_errclass column(const cli_nameset *cols, const char *opt, const char *name, size_t *c, ad_diag *d)
{
    *c = cli_nameset_find(cols, name, strlen(name));
    if (*c != (size_t)-1) return AD_E_NONE;
    size_t n = cli_nameset_vector(cols, name, strlen(name));
    if (n)   /* --cov x:y of a vector: its entries are by element */
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' is a vector of %zu element%s: name one, as %.60s[1]", opt,
                           name, n, n == 1 ? "" : "s", name);
    return ad_diag_set(d, AD_E_USAGE, 0, 0, "%s: '%.60s' is not one of the gradient's variables (those of --wrt, "
                                            "else the -at names, or the points' numeric columns)", opt, name);
}

static int by_pair(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

/* an off-diagonal entry given twice (as A:B or B:A): sorted pairs, n log n */
static ad_errclass repeats(const cli_sigma *S, const ad_plan *p, ad_diag *d)
{
    size_t *pairs = malloc((S->noff ? S->noff : 1) * 2 * sizeof *pairs);
    if (!pairs) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    for (size_t k = 0; k < S->noff; k++) {
        pairs[2 * k] = S->oi[k];
        pairs[2 * k + 1] = S->oj[k];
    }
    qsort(pairs, S->noff, 2 * sizeof *pairs, by_pair);
    ad_errclass e = AD_E_NONE;
    for (size_t k = 1; !e && k < S->noff; k++)
        if (pairs[2 * k] == pairs[2 * k - 2] && pairs[2 * k + 1] == pairs[2 * k - 1])
            e = ad_diag_set(d, AD_E_USAGE, 0, 0, "--cov: the covariance of '%.60s' and '%.60s' is given twice",
                            ad_plan_column(p, pairs[2 * k]), ad_plan_column(p, pairs[2 * k + 1]));
    free(pairs);
    return e;
}

/* sigma2 needs the whole Hessian: not with --seed (H v only) */
size_t cli_sigma_fields(const cli_options *o)
{
    return o->sigma.n || o->ncov ? 1 + (o->hessian && !o->seed.n) : 0;
}

ad_errclass cli_sigma_init(cli_sigma *S, const cli_options *o, const ad_plan *p, ad_diag *d)
{
    memset(S, 0, sizeof *S);
    size_t nc = ad_plan_layout(p)->ncols;
    S->ncols = nc;
    S->fields = cli_sigma_fields(o);
    S->second = S->fields == 2;
    const char **names = malloc((nc ? nc : 1) * sizeof *names);
    unsigned char *given = calloc(nc ? nc : 1, 1);
    S->var = calloc(nc ? nc : 1, sizeof *S->var);
    size_t n = o->ncov ? o->ncov : 1;
    S->oi = malloc(n * sizeof *S->oi);
    S->oj = malloc(n * sizeof *S->oj);
    S->oc = malloc(n * sizeof *S->oc);
    cli_nameset cols = {0};
    ad_errclass e = AD_E_NONE;
    if (!names || !given || !S->var || !S->oi || !S->oj || !S->oc) goto oom;
    for (size_t c = 0; c < nc; c++) names[c] = ad_plan_column(p, c);
    if (cli_nameset_init(&cols, names, nc) < 0) goto oom;
    for (size_t k = 0; !e && k < o->sigma.n; k++) {
        size_t c;
        if (!(e = column(&cols, "--sigma", o->sigma.names[k], &c, d))) {
            S->var[c] = o->sigma.values[k] * o->sigma.values[k];
            given[c] = 1;
        }
    }
    for (size_t k = 0; !e && k < o->ncov; k++) {
        size_t i, j;
        if ((e = column(&cols, "--cov", o->cov[k].a, &i, d)) || (e = column(&cols, "--cov", o->cov[k].b, &j, d))) break;
        if (i == j && given[i])
            e = ad_diag_set(d, AD_E_USAGE, 0, 0, "--cov: the variance of '%.60s' is given twice (--sigma or --cov)",
                            o->cov[k].a);
        else if (i == j)
            S->var[i] = o->cov[k].c, given[i] = 1;
        else
            S->oi[S->noff] = i < j ? i : j, S->oj[S->noff] = i < j ? j : i, S->oc[S->noff++] = o->cov[k].c;
    }
    if (!e) e = repeats(S, p, d);
    /* a covariance within its variances: |S_ab| <= sqrt(S_aa S_bb) */
    for (size_t k = 0; !e && k < S->noff; k++)
        if (S->oc[k] * S->oc[k] > S->var[S->oi[k]] * S->var[S->oj[k]])
            e = ad_diag_set(d, AD_E_USAGE, 0, 0, "--cov: the covariance of '%.60s' and '%.60s' exceeds the product "
                            "of their uncertainties (a correlation beyond 1)", ad_plan_column(p, S->oi[k]),
                            ad_plan_column(p, S->oj[k]));
    cli_nameset_free(&cols);
    free(names);
    free(given);
    if (e) cli_sigma_free(S);
    return e;
oom:
    cli_nameset_free(&cols);
    free(names);
    free(given);
    return nomem(S, d);
}

/* tr((H S)^2) for the Hessian h (n x n, symmetric): M = H S column by
 * column into m, then sum_ik M_ik M_ki */
static double trace_hs2(const cli_sigma *S, const double *h, double *m)
{
    size_t n = S->ncols;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) m[i * n + k] = h[i * n + k] * S->var[k];
    for (size_t e = 0; e < S->noff; e++) {
        size_t a = S->oi[e], b = S->oj[e];
        for (size_t i = 0; i < n; i++) {
            m[i * n + b] += h[i * n + a] * S->oc[e];
            m[i * n + a] += h[i * n + b] * S->oc[e];
        }
    }
    double t = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) t += m[i * n + k] * m[k * n + i];
    return t;
}

static ad_errclass figure(double v, double *out, ad_diag *d)
{
    if (isnan(v) || v < 0)
        return ad_diag_set(d, AD_E_DOMAIN, 0, 0, "--sigma: the propagated variance is negative here (the covariance "
                                                 "given is not positive semidefinite)");
    if (isinf(v))
        return ad_diag_set(d, AD_E_DOMAIN, 0, 0, "--sigma: the propagated variance is beyond the range of a double here");
    *out = sqrt(v);
    return AD_E_NONE;
}

ad_errclass cli_sigma_eval(const cli_sigma *S, const ad_layout *L, const double *row, double *scratch, double *out,
                           ad_diag *d)
{
    for (size_t r = 0; r < L->m; r++) {
        const double *g = row + r * L->per_out + L->grad;
        double v = 0;
        for (size_t i = 0; i < S->ncols; i++) v += g[i] * g[i] * S->var[i];
        for (size_t e = 0; e < S->noff; e++) v += 2 * g[S->oi[e]] * g[S->oj[e]] * S->oc[e];
        ad_errclass e = figure(v, &out[r * S->fields], d);
        if (!e && S->second) e = figure(v + trace_hs2(S, row + r * L->per_out + L->hessian, scratch) / 2,
                                        &out[r * S->fields + 1], d);
        if (e) return e;
    }
    return AD_E_NONE;
}
