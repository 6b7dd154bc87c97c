/* run.h - what the CLI computes: for one expression (parse, bind the -at
 * point, run the engines the options ask for), or for all of them at once
 * on one tape (--jacobian, --adjoint). */
#ifndef AD_RUN_H
#define AD_RUN_H

#include "adcalc.h"
#include "options.h"

/* the variables derivatives are taken with respect to: --wrt, else -at */
typedef struct {
    size_t n;
    const char **names;
    long *in;             /* the tape input of each, or -1 when it does not occur */
} cli_cols;

/* forward and reverse gradients differ by less than this times the sum of
 * the magnitudes of the terms they add up (in other orders); --check
 * fails above it */
#define AD_FWD_REV_TOL 1e-12

typedef struct {
    double value;
    cli_cols cols;
    double *grad;         /* d/dv for the columns */
    int has_grad;
    double jvp;
    int has_jvp;
    double *hessian;      /* cols x cols, row-major */
    int has_hessian;
    double *hvp;          /* H v over the columns */
    int has_hvp;
    double *derivs;       /* f', f'', ... f^(order) */
    int order;
    ad_check_item *check; /* per column */
    double fwd_rev;       /* largest relative forward/reverse difference */
    int has_check, check_failed;
    int has_adjoints;     /* the workspace holds a reverse sweep (for the dump) */
    unsigned char *diff;  /* differentiated inputs of the last sweep (for the dump) */
} cli_result;

void cli_result_init(cli_result *r);
void cli_result_free(cli_result *r);

/* records s on t and computes what o asks for, using w; on failure d says why */
ad_errclass cli_run(const cli_options *o, const cli_source *s, ad_tape *t, ad_work *w,
                   cli_result *r, ad_diag *d);

/* all the expressions as outputs of one tape */
typedef struct {
    size_t m;
    double *values;       /* m */
    cli_cols cols;
    double *jac;          /* m x cols, row-major */
    int has_jac;
    double *vjp;          /* cols */
    int has_vjp;
    double *jvp;          /* m */
    int has_jvp;
} cli_joint;

/* optimises a freshly parsed tape unless --no-optimize, and reports
 * --stats on stderr (run.c) */
ad_errclass cli_prepare(const cli_options *o, ad_tape *t, ad_diag *d);

/* shared by run.c and run_joint.c */
ad_errclass cli_bind(const cli_options *o, const ad_tape *t, double *x, long *in_of, ad_diag *d);
ad_errclass cli_columns(const cli_options *o, const long *in_of, size_t ni, cli_cols *c,
                       unsigned char *diff, ad_diag *d);

void cli_joint_init(cli_joint *j);
void cli_joint_free(cli_joint *j);
/* --jacobian, --adjoint: on failure d->src names the expression at fault */
ad_errclass cli_run_joint(const cli_options *o, ad_tape *t, ad_work *w, cli_joint *j, ad_diag *d);

#endif
