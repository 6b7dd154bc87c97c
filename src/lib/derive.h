/* derive.h - the plan of the derivation step (private to derive.c and
 * path.c, which records other paths of a program with control flow). */
#ifndef AD_DERIVE_H
#define AD_DERIVE_H

#include "work.h"

/* an ad_request that owns its arrays */
typedef struct {
    ad_request r;
    char **vars, **cols, **seed_vars;
    double *seed, *weights;
} adi_request;

struct ad_plan {
    const ad_tape *t;
    ad_layout L;
    size_t ni;                /* tape inputs */
    size_t *var_of_input;     /* tape input -> index in the point */
    char **colname;           /* copies of the column names */
    long *col_input;          /* column -> tape input, or -1 */
    size_t k;                 /* columns that occur on the tape */
    unsigned char *diff;      /* the columns' tape inputs */
    double *unit;             /* identity seeds over the k columns: ni x k */
    double *seed;             /* the --seed direction on the tape inputs, or NULL */
    unsigned char *seeddiff;  /* its inputs */
    unsigned char *bothdiff;  /* diff | seeddiff: the inputs H v moves */
    double *dir;              /* the direction of Taylor's derivatives */
    unsigned char *dirdiff;
    double *weights;          /* w^T J, one weight per output, or NULL */
    int fwd_grad, fwd_jvp;    /* the engines: forward mode (1) or reverse (0) */
    int tangents;             /* an engine carries k tangents: unit holds their seeds */
    int check;
    double step_scale, rtol, atol;
    ad_policy pol;
    /* a point's workspace, in doubles: x and g (ni each), then the largest
     * engine result, the m output weights and the check's items */
    size_t off_big, off_wout, off_items, scratch;
    /* control flow (path.c), for a tape with guards: */
    adi_request rq;           /* a copy of the request, for the plans of other paths */
    adi_names vars;           /* the point's variables by name: where a recording finds inputs */
    uint64_t key;             /* the program and the request: whose paths a workspace keeps */
    size_t unbound;           /* a tape input with no variable (SIZE_MAX: none) */
    uint64_t path;            /* a hash of the tape: which path it is (--stats) */
    size_t lastguard;         /* past the last guard: where a sweep knows its path */
};

/* the plan's engines at the point on its tape: the row, or an error
 * (AD_E_PATH where a guard does not hold) */
ad_errclass adi_derive_here(const ad_plan *p, ad_work *w, const double *point, double *row, ad_check_result *chk,
                            ad_diag *d);
/* for a tape with guards: keeps a copy of rq and the names of its
 * variables in p; 0 or -1 when out of memory */
int adi_plan_paths(ad_plan *p, const ad_request *rq);
void adi_plan_paths_free(ad_plan *p);
/* ad_derive where the tape has guards: on the path the point takes,
 * recorded at the point when the workspace has no tape of it */
ad_errclass adi_derive_path(const ad_plan *p, ad_work *w, const double *point, double *row, ad_check_result *chk,
                            ad_diag *d);

/* ad_derive_rows on plan p's own tape */
int adi_derive_rows_on(const ad_plan *p, ad_block *b, size_t np, const double *rows, size_t stride, size_t nlead,
                       const double *tail, double *out, unsigned char *flags);
/* ad_derive_rows where the tape has guards: the rows sorted by the path
 * they take among those w keeps, each group replayed on its tape; a row
 * whose path w does not keep is flagged (ad_derive records it) */
int adi_derive_rows_paths(const ad_plan *p, ad_block *b, ad_work *w, size_t np, const double *rows, size_t stride,
                          size_t nlead, const double *tail, double *out, unsigned char *flags);

#endif
