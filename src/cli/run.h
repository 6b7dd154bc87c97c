/* run.h - the expressions of -e and -f at the -at point: each on its own
 * tape, or all as the outputs of one (--jacobian, --adjoint); and the one
 * step every mode shares: record, optimise, plan and derive. */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include "adcalc.h"
#include "options.h"
#include "results.h"

/* one point's answer and what it owns */
typedef struct {
    ad_plan *plan;
    double *row;
    ad_check_item *items;
    ad_check_result chk;
    double sigma[2];              /* --sigma's figures (one output) */
    cli_answer answer;
} cli_point;

void cli_point_free(cli_point *pt);

/* records the n sources on t, as the outputs of one tape, within
 * --max-nodes; on failure d->src names the source at fault */
ad_errclass cli_record(const cli_options *o, const cli_source *src, size_t n, ad_tape *t, ad_diag *d);

/* optimises a freshly recorded tape unless --no-optimize, and reports
 * --stats on stderr */
ad_errclass cli_prepare(const cli_options *o, ad_tape *t, ad_diag *d);

/* refuses, as a usage error in d (d->src: the source), what o asks for
 * that only a number has where one of the n sources recorded on t has a
 * vector value, and --adjoint weights that are not one per output; many:
 * every output gets its own first derivatives (the outputs of one tape,
 * batch rows) */
ad_errclass cli_check_values(const cli_options *o, const cli_source *src, size_t n, const ad_tape *t, int many,
                             ad_diag *d);

/* Records the n sources (as the outputs of one tape), plans what o asks
 * for at the -at point and derives it into pt; on failure d says why
 * (d->src: which source) */
ad_errclass cli_evaluate(const cli_options *o, const cli_source *src, size_t n, ad_tape *t, ad_work *w,
                         cli_point *pt, ad_diag *d);

/* The same for a tape already recorded with n outputs (a session's
 * statement): optimise, plan and derive */
ad_errclass cli_derive_tape(const cli_options *o, size_t n, ad_tape *t, ad_work *w, cli_point *pt, ad_diag *d);

/* "variable 'y' has no value (give it with -at y=VALUE)", or :at in a
 * session: input i of t */
ad_errclass cli_unbound(const cli_options *o, const ad_tape *t, size_t i, ad_diag *d);

/* the -e/-f mode: prints every expression's answer (or the tape); the
 * exit status */
int cli_run(const cli_options *o);

#endif
