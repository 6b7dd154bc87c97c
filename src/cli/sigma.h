/* sigma.h - --sigma and --cov: the uncertainty of each output propagated
 * from the inputs' through the exact gradient, u(f) = sqrt(g^T S g) (the
 * GUM's law of propagation of uncertainty, first order), and with
 * --hessian the standard deviation of the second-order model for Gaussian
 * inputs, sqrt(g^T S g + tr((H S)^2)/2). */
#ifndef CLI_SIGMA_H
#define CLI_SIGMA_H

#include "adcalc.h"
#include "options.h"

typedef struct {
    size_t ncols;
    double *var;         /* the variance of each derivative column (0: exact) */
    size_t noff;         /* off-diagonal entries of S, each once with i < j */
    size_t *oi, *oj;
    double *oc;
    int second;          /* --hessian: the second-order figure too */
    size_t fields;       /* per output: 1, or 2 with the second order */
} cli_sigma;

/* the figures per output that o asks for: 0, 1 (sigma), 2 (and sigma2,
 * with --hessian but not --seed, which gives H v, not H) */
size_t cli_sigma_fields(const cli_options *o);

/* S from --sigma and --cov over the derivative columns of plan p; a name
 * that is not one, or an entry given twice, is a usage error in d */
ad_errclass cli_sigma_init(cli_sigma *S, const cli_options *o, const ad_plan *p, ad_diag *d);
void cli_sigma_free(cli_sigma *S);

/* the figures of the row's outputs into out (S->fields each, output by
 * output); scratch holds ncols^2 doubles when S->second.  A variance that
 * is negative (S not positive semidefinite) or beyond the doubles is an
 * ad/domain error in d. */
ad_errclass cli_sigma_eval(const cli_sigma *S, const ad_layout *L, const double *row, double *scratch, double *out,
                           ad_diag *d);

#endif
