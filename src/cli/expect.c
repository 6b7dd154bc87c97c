/* expect.c - --expect (expect.h): the user's formulas for partial
 * derivatives, recorded and planned like an -e of their own, evaluated at
 * each point, and compared with the derivative adcalc computes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "expect.h"
#include "names.h"
#include "run.h"

void cli_expect_free(cli_expect *E)
{
    for (size_t k = 0; E->t && k < E->n; k++) {
        ad_plan_free(E->plan[k]);
        ad_tape_free(E->t[k]);
    }
    free(E->t);
    free(E->plan);
    free(E->col);
    memset(E, 0, sizeof *E);
}

/* the derivative column of main named var, or the number of columns */
static size_t column_of(const ad_plan *main, const char *var)
{
    size_t nc = ad_plan_layout(main)->ncols, c = 0;
    while (c < nc && strcmp(ad_plan_column(main, c), var) != 0) c++;
    return c;
}

/* how many derivative columns of main are elements of vector var (var[k]) */
static size_t vector_columns(const ad_plan *main, const char *var)
{
    size_t nc = ad_plan_layout(main)->ncols, len = strlen(var), n = 0;
    for (size_t c = 0; c < nc; c++) {
        const char *name = ad_plan_column(main, c);
        n += !strncmp(name, var, len) && name[len] == '[';
    }
    return n;
}

/* formula k: recorded, optimised, planned for its value */
static ad_errclass one(cli_expect *E, const cli_options *o, size_t k, const char *const *vars, size_t nvars,
                       ad_diag *d)
{
    if (!(E->t[k] = ad_tape_new())) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    /* the point's vectors, by their elements' names (the points' columns
     * x[1] .. x[n] too, which -at does not declare) */
    for (size_t v = 0; v < nvars; v++) {
        size_t base, i;
        if (cli_element(vars[v], strlen(vars[v]), &base, &i) && i > ad_tape_vector_len(E->t[k], vars[v], base) &&
            ad_tape_set_vector(E->t[k], vars[v], base, i) < 0)
            return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    }
    ad_errclass e = cli_record(o, &o->expect[k].src, 1, E->t[k], d);
    if (!e && !o->no_optimize && ad_optimize(E->t[k], NULL) < 0) e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    if (e) return e;
    /* a partial derivative is a number (the formula's one value is written
     * where one number goes) */
    size_t first;
    int vector;
    size_t n = ad_tape_source_outputs(E->t[k], 0, &first, &vector);
    if (vector || ad_tape_noutputs(E->t[k]) != 1)
        return ad_diag_set(d, AD_E_USAGE, 0, 0, "--expect: d/d%.60s: the formula's value is a vector of %zu element%s: "
                                                "a partial derivative is a number",
                           o->expect[k].var, n, n == 1 ? "" : "s");
    ad_request rq;
    memset(&rq, 0, sizeof rq);
    rq.vars = vars;
    rq.nvars = nvars;
    rq.policy = o->policy;
    rq.many = 1;
    size_t i;
    e = ad_plan_new(E->t[k], &rq, &E->plan[k], &i, d);
    return e == AD_E_NAME ? cli_unbound(o, E->t[k], i, d) : e;
}

ad_errclass cli_expect_init(cli_expect *E, const cli_options *o, const ad_plan *main, const char *const *vars,
                            size_t nvars, ad_diag *d, const cli_source **at)
{
    memset(E, 0, sizeof *E);
    *at = NULL;
    size_t n = o->nexpect ? o->nexpect : 1;
    E->t = calloc(n, sizeof *E->t);
    E->plan = calloc(n, sizeof *E->plan);
    E->col = calloc(n, sizeof *E->col);
    if (!E->t || !E->plan || !E->col) {
        cli_expect_free(E);
        return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    }
    E->n = o->nexpect;
    for (size_t k = 0; k < E->n; k++) {
        const char *var = o->expect[k].var;
        size_t elements = 0;
        if ((E->col[k] = column_of(main, var)) == ad_plan_layout(main)->ncols && (elements = vector_columns(main, var)))
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "--expect: d/d%.60s: '%.60s' is a vector of %zu element%s: give its "
                                                    "elements' partials, as d/d%.60s[1]=EXPR",
                               var, var, elements, elements == 1 ? "" : "s", var);
        if (E->col[k] == ad_plan_layout(main)->ncols)
            return ad_diag_set(d, AD_E_USAGE, 0, 0, "--expect: d/d%.60s: '%.60s' is not one of the gradient's variables "
                                                    "(those of --wrt, else the -at names, or the points' numeric columns)",
                               var, var);
        ad_errclass e = one(E, o, k, vars, nvars, d);
        if (e) {
            *at = &o->expect[k].src;
            return e;
        }
    }
    return AD_E_NONE;
}

ad_work **cli_expect_works(const cli_expect *E)
{
    ad_work **w = calloc(E->n ? E->n : 1, sizeof *w);
    for (size_t k = 0; w && k < E->n; k++)
        if (!(w[k] = ad_work_new())) {
            cli_expect_works_free(E, w);
            return NULL;
        }
    return w;
}

void cli_expect_works_free(const cli_expect *E, ad_work **w)
{
    for (size_t k = 0; w && k < E->n; k++) ad_work_free(w[k]);
    free(w);
}

ad_errclass cli_expect_eval(const cli_expect *E, ad_work *const *w, const double *point, double *given, ad_diag *d,
                            size_t *which)
{
    for (size_t k = 0; k < E->n; k++) {
        ad_errclass e = ad_derive(E->plan[k], w[k], point, &given[k], NULL, d);
        if (e) {
            *which = k;
            return e;
        }
    }
    return AD_E_NONE;
}

int cli_expect_agrees(const cli_options *o, double given, double ad)
{
    return fabs(given - ad) <= o->atol + o->rtol * fabs(ad);
}

int cli_expect_failed(const cli_options *o, const cli_expect *E, const double *given, const ad_check_result *chk)
{
    for (size_t k = 0; k < E->n; k++)
        if (!cli_expect_agrees(o, given[k], chk->items[E->col[k]].ad)) return 1;
    return 0;
}
