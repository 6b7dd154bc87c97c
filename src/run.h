/* run.h - what the CLI computes for one expression: parse, bind the -at
 * point, and run the engines the options ask for. */
#ifndef AD_RUN_H
#define AD_RUN_H

#include "adcalc.h"
#include "options.h"

typedef struct {
    double value;
    double *grad;         /* d/dv for the variables in derivative order */
    const char **gnames;  /* their names */
    size_t ngrad;
    int has_grad;
    double jvp;
    int has_jvp;
    int has_adjoints;     /* the workspace holds a reverse sweep (for the dump) */
    unsigned char *diff;  /* differentiated inputs of the last sweep (for the dump) */
} ad_result;

void ad_result_init(ad_result *r);
void ad_result_free(ad_result *r);

/* records s on t and computes what o asks for, using w; on failure d says why */
ad_errclass ad_run(const ad_options *o, const ad_source *s, ad_tape *t, ad_work *w,
                   ad_result *r, ad_diag *d);

#endif
