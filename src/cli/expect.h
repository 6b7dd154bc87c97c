/* expect.h - --expect: the user's own formulas for partial derivatives,
 * each recorded once on a tape of its own, evaluated at every point by the
 * derivation step (its value only), and judged against adcalc's
 * derivative.  The gradient check runs beside them (cli_request turns it
 * on), so that the finite difference is there as a third opinion. */
#ifndef CLI_EXPECT_H
#define CLI_EXPECT_H

#include "adcalc.h"
#include "options.h"

typedef struct {
    size_t n;          /* the formulas, o->nexpect */
    ad_tape **t;
    ad_plan **plan;    /* value only, at points of the main plan's variables */
    size_t *col;       /* the derivative column each formula gives */
} cli_expect;

/* Records and plans o's formulas for the points of vars (nvars names, as
 * the expression's plan main has them); each d/dNAME must be one of
 * main's derivative columns.  On failure d says why and *at is the
 * source at fault (a formula, or NULL for a usage error). */
ad_errclass cli_expect_init(cli_expect *E, const cli_options *o, const ad_plan *main, const char *const *vars,
                            size_t nvars, ad_diag *d, const cli_source **at);
void cli_expect_free(cli_expect *E);

/* one workspace per formula (per thread); NULL when out of memory */
ad_work **cli_expect_works(const cli_expect *E);
void cli_expect_works_free(const cli_expect *E, ad_work **w);

/* the formulas' values at the point into given (one each); on failure d
 * says why and *which is the formula */
ad_errclass cli_expect_eval(const cli_expect *E, ad_work *const *w, const double *point, double *given, ad_diag *d,
                            size_t *which);

/* formula k's verdict: 1 when its value agrees with adcalc's derivative
 * ad, |given - ad| <= atol + rtol |ad| */
int cli_expect_agrees(const cli_options *o, double given, double ad);
/* 1 when some formula disagrees at a point (chk: the check there) */
int cli_expect_failed(const cli_options *o, const cli_expect *E, const double *given, const ad_check_result *chk);

#endif
