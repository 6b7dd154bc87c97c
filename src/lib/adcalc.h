/* adcalc.h - the engine's public interface, and the only engine header the
 * command (src/cli) includes: parse an expression into a tape, evaluate it,
 * differentiate it (one derivation step for every mode: ad_plan_new and
 * ad_derive), dump it; and the few services the command shares with the
 * engine (names of opcodes and functions, number formatting, statements).
 *
 * The engine keeps no global mutable state: every call works on the objects
 * passed to it, so separate tapes and workspaces can be used from separate
 * threads, and one finished tape (or plan) can be shared read-only by many
 * threads, each with its own ad_work.
 *
 * One effect reaches beyond those objects: on Linux, a block of 4 MB or more
 * that the engine allocates is advised to be backed by transparent huge
 * pages (madvise MADV_HUGEPAGE over the block's pages, which may hold a few
 * bytes of neighbouring allocations; see the man page's THE TAPE, Memory).
 * It is a hint and changes no data; errno is kept. */
#ifndef ADCALC_H
#define ADCALC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* error classes (the command maps each to its exit status) */
typedef enum {
    AD_E_NONE = 0,
    AD_E_DOMAIN,  /* ad/domain: no real value, or (strict) infinite derivative */
    AD_E_USAGE,   /* ad/usage: bad option or option value */
    AD_E_SYNTAX,  /* ad/syntax: malformed expression */
    AD_E_NAME,    /* ad/name: unknown function, variable without a value... */
    AD_E_NONDIFF, /* ad/nondiff-strict: a kink under --nondiff strict */
    AD_E_IO,      /* ad/io: I/O error, out of memory, or a limit reached */
    AD_E_PATH     /* ad/path: the point takes another path than the tape
                   * recorded (a guard does not hold): record it at the
                   * point (ad_derive does; never an error of the user's) */
} ad_errclass;

/* what a caller can do about a diagnostic; the engine never names the
 * command's options, the command turns a hint into its own words */
typedef enum {
    AD_HINT_NONE = 0,
    AD_HINT_POLICY_ZERO,     /* a singular derivative: the zero-subgrad policy takes it as 0 */
    AD_HINT_POLICY_SUBGRAD,  /* a kink: the zero-subgrad policy takes a zero subgradient */
    AD_HINT_POLICY_TIE,      /* a tie at a comparison: the zero-subgrad policy takes the branch the values choose */
    AD_HINT_TAPE_LIMIT,      /* the tape reached its limit (ad_tape_set_limit) */
    AD_HINT_ITER_LIMIT,      /* the loops ran their limit of iterations (ad_tape_set_iterations) */
    AD_HINT_UNBOUND          /* a variable the point's path needs has no value */
} ad_hint;

/* a diagnostic: class, message and (when line != 0) a source position */
typedef struct {
    ad_errclass cls;
    int line, col;   /* 1-based (a prelude's lines are below 1: ad_tape_set_first_line);
                      * line 0 when the error has no position */
    int src;         /* index of the source the position is in (ad_parse_many) */
    ad_hint hint;
    char msg[400];
} ad_diag;

const char *ad_err_tag(ad_errclass cls);   /* "ad/syntax", ... */
/* fills d (when not NULL) and returns cls */
ad_errclass ad_diag_set(ad_diag *d, ad_errclass cls, int line, int col,
                        const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

typedef enum { AD_STRICT = 0, AD_ZERO_SUBGRAD = 1 } ad_policy;

/* ---- the tape ---- */

/* One recorded node: opcode and operand slots (-1 where none).  Nodes are
 * numbered inputs first, then constants, then operations, in execution
 * order; every node writes its own slot (SSA). */
typedef struct {
    uint32_t op;     /* an ad_opcode */
    int32_t a, b;
} ad_instr;

/* the opcodes: one per primitive of ops.def, in its order (AD_OP_ADD...) */
typedef enum {
#define OP(E, ...) AD_OP_##E,
#include "ops.def"
    AD_OP_COUNT
} ad_opcode;

const char *ad_op_name(unsigned op);   /* "add", "sin": the name in tape listings */

typedef struct ad_tape ad_tape;

ad_tape *ad_tape_new(void);
void ad_tape_free(ad_tape *t);
/* forget the recording but keep the allocated capacity */
void ad_tape_reset(ad_tape *t);
/* The most nodes a recording may have (a program whose functions call
 * each other can inline exponentially many): past it, recording fails
 * with AD_E_IO and AD_HINT_TAPE_LIMIT.  A new tape has the default. */
#define AD_TAPE_DEFAULT_LIMIT 33554432
void ad_tape_set_limit(ad_tape *t, size_t nodes);
/* The most loop iterations (while and for, all loops together) one
 * recording may run: past it, recording fails with AD_E_IO and
 * AD_HINT_ITER_LIMIT.  A new tape has the default. */
#define AD_TAPE_DEFAULT_ITERATIONS 1000000
void ad_tape_set_iterations(ad_tape *t, size_t n);
/* on: the recordings of t note which nodes have names in the source (an
 * assigned name, a user function's result), for the picture of ad_dump
 * (AD_DUMP_DOT); off (a new tape's default): they cost nothing */
void ad_tape_keep_names(ad_tape *t, int on);
/* The guards of a finished tape: the comparisons its path depends on.  A
 * tape with guards holds at the points where they do; ad_derive records
 * the program again at a point where one does not (control flow). */
size_t ad_tape_nguards(const ad_tape *t);
/* The line number each source's first line has (1 until set; kept by
 * ad_tape_reset): a source recorded after a prelude of definitions starts
 * at 1 - (the prelude's lines), so that its own lines count from 1 and the
 * prelude's are 0 and below, in positions and in messages. */
void ad_tape_set_first_line(ad_tape *t, int line);

/* Vector variables.  A vector x of n elements is n inputs named x[1] ...
 * x[n] (indices start at 1): a point gives values under those names, and
 * derivatives are by those names.  Declaring x on a tape before recording
 * lets the source use the name x for the whole vector (x, x[i],
 * x[a..b], len(x), sum(x)); an undeclared x is a scalar input.  Kept by
 * ad_tape_reset; declaring a name again replaces its length (len 0
 * forgets it).  At most AD_VECTOR_MAX elements.  0, or -1 when out of
 * memory or len is too large. */
#define AD_VECTOR_MAX 100000000
int ad_tape_set_vector(ad_tape *t, const char *name, size_t namelen, size_t len);
/* the length of vector name[0..namelen) on t, or 0 when it is none */
size_t ad_tape_vector_len(const ad_tape *t, const char *name, size_t namelen);

/* A point for the recordings of t: names[0..n) (a vector's elements as
 * x[1], x[2], ...) with values[0..n), which stay the caller's until the
 * point is unset (names NULL).  Without one (a new tape's default) a
 * recording is made at no point: inputs are nan, and a program whose path
 * depends on them is recorded again at each point it is derived at
 * (ad_derive); with one, comparisons decide on its values, and the
 * recording is the path that point takes.  0, or -1 when out of memory
 * (then t has no point). */
int ad_tape_set_point(ad_tape *t, const char *const *names, const double *values, size_t n);
/* 1 when the last recording of t, made at no point, failed after a
 * comparison of an input's value (nan) took a path no point may take: its
 * error may be no point's, and a recording at the point says (for
 * 'if x > 0 { k = 2 } else { k = 5 }; v[k]' with v of 3 elements, the
 * else branch fails at no point) */
int ad_tape_error_pathless(const ad_tape *t);

/* Parses src[0..len) and records it on t (after ad_tape_reset).  Returns
 * AD_E_NONE, or an error class with d filled in. */
ad_errclass ad_parse(ad_tape *t, const char *src, size_t len, ad_diag *d);
/* Records m sources on one tape (after a reset), sharing the inputs by name:
 * output o is source o.  On failure *failed is the index of the source at
 * fault (positions in d are within it). */
ad_errclass ad_parse_many(ad_tape *t, const char *const *srcs, const size_t *lens, size_t m,
                          size_t *failed, ad_diag *d);

/* Optimises a finished tape in place: constant folding, common
 * subexpressions, pow(a, 2) as sqr(a), dead nodes.  Values stay identical
 * to the bit; derivatives can differ in the last bits where a shared node
 * sums its adjoints in one place.  0, or -1 when out of memory (then the
 * tape is unchanged). */
typedef struct {
    size_t before, after;          /* nodes */
    size_t folded, shared, strength;
} ad_optstats;
int ad_optimize(ad_tape *t, ad_optstats *st);

size_t ad_tape_size(const ad_tape *t);       /* nodes */
size_t ad_tape_ninputs(const ad_tape *t);
size_t ad_tape_nconsts(const ad_tape *t);
const ad_instr *ad_tape_code(const ad_tape *t);
const double *ad_tape_consts(const ad_tape *t);  /* values of constant nodes */
/* name of input node i (not NUL-terminated: length in *len) */
const char *ad_tape_input_name(const ad_tape *t, size_t i, size_t *len);
/* source text of constant node ninputs+i */
const char *ad_tape_const_text(const ad_tape *t, size_t i, size_t *len);
/* source position of node i, and the index of the source it came from */
void ad_tape_pos(const ad_tape *t, size_t i, int *line, int *col);
int ad_tape_source(const ad_tape *t, size_t i);
size_t ad_tape_noutputs(const ad_tape *t);
/* the sources ad_parse_many recorded, and the outputs of source s: the
 * first's index (returned in *first) and their count, 1 for a number and
 * the length for a vector (*vector set: its value is a vector, one output
 * per element) */
size_t ad_tape_nsources(const ad_tape *t);
size_t ad_tape_source_outputs(const ad_tape *t, size_t s, size_t *first, int *vector);
size_t ad_tape_output(const ad_tape *t, size_t o);   /* node of output o */
/* bytes per node: instruction plus primal value */
size_t ad_node_bytes(void);

/* ---- evaluation: the engines ----
 * The derivation step (ad_plan_new, ad_derive, below) is built on these
 * and is what the command uses; they stay public for embedders, tests and
 * the benchmarks, which sweep a tape directly. */

/* Per-evaluation state: primal values, adjoints, tangents, activity.  One
 * per thread; reusable across tapes and points (capacity is kept). */
typedef struct ad_work ad_work;
ad_work *ad_work_new(void);
void ad_work_free(ad_work *w);

/* Forward sweep of primal values for the given input values (one per input
 * node).  A domain error stops it. */
ad_errclass ad_eval(const ad_tape *t, ad_work *w, const double *inputs, ad_diag *d);

/* Reverse mode.  After ad_eval at the same point: sets the output adjoint to
 * 1, sweeps the tape backwards and stores d(output)/d(input i) in grad[i] for
 * every input node (0 where diff[i] is 0: not differentiated).  diff[i]
 * nonzero marks input i as differentiated, which is what makes kinks and
 * singular derivatives downstream of it matter. */
ad_errclass ad_reverse(const ad_tape *t, ad_work *w, const unsigned char *diff,
                       ad_policy pol, double *grad, ad_diag *d);

/* Reverse mode for a weighted sum of the outputs: the adjoint of output o
 * starts at wout[o] (NULL: 1 for output 0, 0 for the others), so one sweep
 * gives the vector-Jacobian product w^T J in grad. */
ad_errclass ad_reverse_outputs(const ad_tape *t, ad_work *w, const unsigned char *diff,
                               ad_policy pol, const double *wout, double *grad, ad_diag *d);

/* The reverse sweep of output 0 with every local partial replaced by its
 * magnitude: grad[i] bounds the terms whose sum is d(output)/d(input i),
 * the scale for comparing two ways of summing them (--check). */
ad_errclass ad_reverse_magnitudes(const ad_tape *t, ad_work *w, const unsigned char *diff,
                                  ad_policy pol, double *grad, ad_diag *d);

/* Forward mode with dual numbers of width k: one sweep computes the value
 * and k directional derivatives.  seeds is ninputs x k, row-major (the
 * tangent of input i in direction j is seeds[i*k + j]); out receives the k
 * directional derivatives of every output (noutputs x k, row-major: the
 * Jacobian times the seeds).  diff as for ad_reverse. */
ad_errclass ad_forward(const ad_tape *t, ad_work *w, const double *inputs,
                       const unsigned char *diff, const double *seeds, size_t k,
                       ad_policy pol, double *out, ad_diag *d);

/* Second-order adjoints (forward over reverse) for output 0: seeds is
 * ninputs x k as for ad_forward; grad receives the gradient and hs
 * (ninputs x k, row-major) the Hessian times the seeds: with the identity
 * as seeds (k = ninputs) the whole Hessian, with one direction v the
 * Hessian-vector product H v.  A second derivative that is infinite is a
 * singular point, handled by the policy like the first-order ones. */
ad_errclass ad_hessian(const ad_tape *t, ad_work *w, const double *inputs,
                       const unsigned char *diff, const double *seeds, size_t k,
                       ad_policy pol, double *grad, double *hs, ad_diag *d);

/* Higher-order forward mode: the Taylor coefficients coef[0..K] of
 * f(x + t v) at t = 0 for output 0 (coef[k] = f^(k)(x; v) / k!), where v =
 * dir on the inputs marked in diff.  Truncated Taylor arithmetic, one sweep. */
ad_errclass ad_taylor(const ad_tape *t, ad_work *w, const double *inputs,
                      const unsigned char *diff, const double *dir, int K,
                      ad_policy pol, double *coef, ad_diag *d);

/* ---- the gradient check ---- */
enum {
    AD_CHECK_PASS,          /* AD and finite differences agree */
    AD_CHECK_FAIL,          /* they disagree: the AD value is suspect */
    AD_CHECK_KINK,          /* the stencil crosses a kink: no verdict */
    AD_CHECK_FD_UNRELIABLE, /* the difference quotients disagree among themselves */
    AD_CHECK_FD_UNDEFINED,  /* the stencil leaves the domain */
    AD_CHECK_SKIPPED,       /* not a differentiated input */
    AD_CHECK_BRANCH         /* the stencil takes another path of the control flow: no verdict */
};
typedef struct {
    double ad;       /* reverse-mode derivative */
    double fd;       /* central difference with step h */
    double refined;  /* the best finite-difference estimate tried */
    double diff;     /* |ad - fd| */
    double h;        /* the step */
    int status;
} ad_check_item;
/* Checks output 0's gradient at inputs: for each input marked in diff,
 * items[i] compares the AD value with central differences of step
 * h = step_scale * sqrt(eps) * max(1, |x_i|), passing when
 * |ad - fd| <= atol + rtol |ad|.  *fwd_rev receives the largest relative
 * difference between the forward and reverse gradients. */
ad_errclass ad_check_gradient(const ad_tape *t, ad_work *w, const double *inputs,
                              const unsigned char *diff, ad_policy pol, double step_scale,
                              double rtol, double atol, ad_check_item *items,
                              double *fwd_rev, ad_diag *d);
const char *ad_check_status_name(int status);

double ad_value(const ad_tape *t, const ad_work *w);  /* output 0 after a sweep */
double ad_output_value(const ad_tape *t, const ad_work *w, size_t o);

/* ---- many points at once (batch mode) ---- */
typedef struct ad_block ad_block;
ad_block *ad_block_new(void);
void ad_block_free(ad_block *b);
/* how many points one block holds for this tape (at most 256) */
size_t ad_block_width(const ad_tape *t);
/* the instruction set the block's sweeps use on this machine: "avx2" or
 * "baseline" (the same bits either way) */
const char *ad_block_isa(void);
/* Values (and with grad, gradients) of every output for np <= width points:
 * x holds each point's inputs (np x ninputs, row-major); out row j (at
 * out + j*stride) receives, output after output, the value then the
 * derivatives with respect to tape inputs cols[0..nd) (-1: a variable the
 * tape does not use, derivative 0).  Bit-identical to ad_eval and
 * ad_reverse_outputs.  flags[j] is set for a point the block could not
 * finish (domain error, overflow, kink, singular point): recompute it with
 * the scalar engines.  0, or -1 when out of memory. */
int ad_block_run(const ad_tape *t, ad_block *b, const unsigned char *diff, int grad, size_t np,
                 const double *x, const long *cols, size_t nd, double *out, size_t stride,
                 unsigned char *flags);
/* The same, with point j's tape input i read from x[j*xstride + xcol[i]],
 * or fixed[i] where xcol[i] < 0 (xcol NULL: input i from column i): rows
 * of a file as they were read, without copying them first. */
int ad_block_run_rows(const ad_tape *t, ad_block *b, const unsigned char *diff, int grad, size_t np,
                      const double *x, size_t xstride, const long *xcol, const double *fixed,
                      const long *cols, size_t nd, double *out, size_t stride, unsigned char *flags);

/* the tape of the last point ad_derive derived with w: the plan's, or the
 * one recorded for the path that point took (control flow) */
const ad_tape *ad_work_tape(const ad_work *w);
/* what w's points of a program with control flow did: replayed on a tape
 * they had, or recorded at the point; and the distinct paths they took,
 * as hashes (*seen, *nseen) to merge with other workspaces' */
void ad_work_paths(const ad_work *w, size_t *replayed, size_t *recorded, const uint64_t **seen, size_t *nseen);

/* ---- the tape listing ---- */
typedef enum { AD_DUMP_TEXT, AD_DUMP_TSV, AD_DUMP_JSON, AD_DUMP_DOT } ad_dump_format;
/* writes the tape with the values (and the adjoints, when it was a
 * reverse sweep) of the last sweep in w, whose partials pol gave; src is
 * echoed in the header.  Returns 0, or -1 on a write error. */
int ad_dump(FILE *f, const ad_tape *t, const ad_work *w, ad_policy pol, ad_dump_format fmt, const char *src,
            size_t srclen);

/* ---- derivatives at points: the one derivation step ----
 *
 * A plan says, once per tape, what every point gets: the value of every
 * output and the derivatives asked for, in one row of numbers laid out as
 * ad_layout says.  Single points, several outputs (Jacobians) and batch
 * rows all go through it, so the seeds, the derivative columns, the
 * Hessian's extraction and the choice of engine are made in one place
 * (derive.c). */

typedef enum { AD_MODE_DEFAULT, AD_MODE_FORWARD, AD_MODE_REVERSE, AD_MODE_AUTO } ad_mode;

typedef struct {
    /* the variables a point gives values for, in the order of its numbers */
    const char *const *vars;
    size_t nvars;
    /* the derivative columns, by name (a name the tape does not use gets
     * derivative 0) */
    const char *const *cols;
    size_t ncols;
    /* a direction (--seed): names and values; names the tape does not use
     * are ignored */
    const char *const *seed_vars;
    const double *seed;
    size_t nseed;
    const double *weights;   /* --adjoint: one per output (w^T J), or NULL */
    int grad;                /* first derivatives of every output over the columns */
    int jacobian;            /* ...asked for as a Jacobian: the default mode is auto */
    int hessian;             /* output 0's Hessian over the columns (H v with a seed) */
    int order;               /* derivatives 1..order along the seed, or the one column */
    int check;               /* check output 0's gradient against finite differences */
    double step_scale, rtol, atol;   /* the check's step and tolerances */
    ad_mode mode;
    ad_policy policy;
    int many;                /* the plan serves many points (batch mode) */
} ad_request;

#define AD_ABSENT ((size_t)-1)
/* Where a point's numbers are in its row: output r's block starts at
 * r * per_out, with its value first; the offsets below are within the block
 * (AD_ABSENT where not asked for), but vjp, which is in the row after the
 * blocks.  The Hessian is row-major, ncols x ncols. */
typedef struct {
    size_t m, ncols, order;
    size_t per_out, width;
    size_t grad, jvp, hvp, hessian, derivs;
    size_t vjp;
} ad_layout;

/* The layout of the rows a plan of rq for a tape of m outputs has, known
 * before any tape (the records of expressions that failed); -1 when a
 * row would be too wide to count. */
int ad_layout_of(const ad_request *rq, size_t m, ad_layout *L);

/* forward and reverse gradients may differ by this much, relative to the
 * sum of the magnitudes of the terms they add in other orders (--check) */
#define AD_FWD_REV_TOL 1e-12

/* what the gradient check found, one item per column */
typedef struct {
    ad_check_item *items;   /* the caller's array of ncols items */
    double fwd_rev;         /* largest relative forward/reverse difference */
    int failed;             /* a FAIL item, or fwd_rev above AD_FWD_REV_TOL */
} ad_check_result;

typedef struct ad_plan ad_plan;

/* Plans rq for the finished tape t (which must outlive the plan; rq's
 * arrays are copied).  A tape input that is none of rq->vars is
 * AD_E_NAME, with *unbound its index and d at its first occurrence. */
ad_errclass ad_plan_new(const ad_tape *t, const ad_request *rq, ad_plan **plan, size_t *unbound,
                        ad_diag *d);
void ad_plan_free(ad_plan *p);
const ad_layout *ad_plan_layout(const ad_plan *p);
const char *ad_plan_column(const ad_plan *p, size_t k);   /* the name of column k */
/* Computes the row (ad_plan_layout(p)->width numbers) at the point (one
 * value per rq->vars); chk receives the check when the plan checks (else
 * NULL).  The last sweep stays in w, for ad_dump. */
ad_errclass ad_derive(const ad_plan *p, ad_work *w, const double *point, double *row,
                      ad_check_result *chk, ad_diag *d);
/* 1 when the block replay computes this plan (values and reverse-mode
 * gradients only): ad_derive_rows then does np points at once */
int ad_plan_blocks(const ad_plan *p);
/* The rows of np <= ad_block_width points: point j's first nlead variables
 * at rows + j * stride, the others from tail (rq->vars[nlead..]).  out
 * receives np rows of width numbers; flags[j] is 1 for a point the block
 * could not finish (0 for the others, never another value): derive it
 * with ad_derive, which says what happened.
 * For a program with control flow the rows replay the path w used last
 * (ad_derive's): a row whose path differs is flagged.
 * 0, or -1 when out of memory. */
int ad_derive_rows(const ad_plan *p, ad_block *b, ad_work *w, size_t np, const double *rows, size_t stride,
                   size_t nlead, const double *tail, double *out, unsigned char *flags);

/* ---- derivative code as C (emit.c) ---- */
typedef struct {
    const char *name;             /* the function's name: a C identifier */
    const char *version;          /* adcalc's, for the file's head */
    const char *const *vars;      /* the names of x[0], x[1], ... (the plan's rq->vars) */
    size_t nvars;
    const char *const *outputs;   /* the sources of the outputs, for the head */
    size_t noutputs;
    int with_main;                /* add a main() reading points from stdin */
    int header;                   /* write the header (declarations) instead */
} ad_emit_options;
/* Writes plan p's derivation step as one self-contained C99 file (or its
 * header): a function that computes the row ad_derive computes, with the
 * same engines and operations, so the same numbers to the bit; for a tape
 * with guards, the path of that tape only (another path is a status).
 * 0, -1 on a write error, -2 when out of memory. */
int ad_emit_c(FILE *f, const ad_plan *p, const ad_emit_options *o);

/* Compiled batch replay (--jit).  ad_emit_block_c writes, for a plan that
 * ad_plan_blocks accepts and a tape without control flow, one C file (C99
 * with GCC's vector types, for gcc and clang) defining ad_block_fn `name`:
 * the block replay of ad_derive_rows unrolled over the tape, `width`
 * points at a time (4 for AVX2, else 2), with the block's checks (a
 * flagged point is left to the scalar engines), so that the rows it fills
 * are the interpreter's to the bit.  0, -1 on a write error, -2 when out
 * of memory.  The caller compiles and loads it; ad_block_use then has
 * ad_derive_rows run fn for plan p's rows through block b (fn NULL: the
 * interpreter again).  fn: np rows of x (xstride apart), tape input i from
 * column xcol[i] or fixed[i] where that is -1; out and flags as
 * ad_block_run_rows, rows stride apart; returns 0. */
typedef int ad_block_fn(size_t np, const double *x, size_t xstride, const long *xcol, const double *fixed,
                        double *out, size_t stride, unsigned char *flags);
int ad_emit_block_c(FILE *f, const ad_plan *p, const char *name, int width);
/* The same file with the runtime (the engine's numeric code, the same
 * for every tape of one adcalc) written as its checksum: the text to key
 * a cache of compiled files by, without the runtime's 58 KB to write. */
int ad_emit_block_key(FILE *f, const ad_plan *p, const char *name, int width);
void ad_block_use(ad_block *b, const ad_plan *p, ad_block_fn *fn);

/* ---- names, numbers and statements the command shares ---- */

/* callable function i (0, 1, ...) and its one-line doc; NULL past the last */
const char *ad_function(size_t i, const char **doc);
/* what name[0..len) is taken by: 0 (free), a constant (pi, e), a function
 * or a keyword (if, else, while, for) */
enum { AD_RESERVED_CONSTANT = 1, AD_RESERVED_FUNCTION = 2, AD_RESERVED_KEYWORD = 3 };
int ad_reserved(const char *name, size_t len);
/* the Levenshtein distance of a[0..n) and b[0..m) (99 past 30
 * characters): "did you mean" for functions and options */
size_t ad_edit_distance(const char *a, size_t n, const char *b, size_t m);

/* the shortest text that reads back as the same double ("0.1", "2",
 * "1e-05", "inf", "nan"); prec > 0: %.{prec}g.  buf needs 32 bytes */
char *ad_fmt_number(char *buf, size_t n, double x, int prec);
/* the same as a JSON value: inf, -inf and nan as strings */
char *ad_fmt_json_number(char *buf, size_t n, double x, int prec);
/* s[0..len) escaped for a JSON string (no quotes; well-formed UTF-8 kept,
 * other bytes >= 0x80 as \ufffd) into dst, which holds
 * 6 * len bytes; returns the bytes written */
size_t ad_json_escape(char *dst, const char *s, size_t len);

/* a statement of a program, as ad_next_stmt splits them */
typedef enum {
    AD_STMT_EMPTY,   /* only blanks and comments */
    AD_STMT_EXPR,    /* an expression */
    AD_STMT_ASSIGN,  /* name = expression, or name[index] = expression */
    AD_STMT_DEF,     /* name(params) = expression */
    AD_STMT_IF,      /* if COND { ... } [else if COND { ... }]... [else { ... }] */
    AD_STMT_WHILE,   /* while COND { ... } */
    AD_STMT_FOR,     /* for NAME = A..B { ... } */
    AD_STMT_ELSE     /* an 'else' without its 'if' (an error) */
} ad_stmt_kind;

typedef struct {
    ad_stmt_kind kind;
    size_t off, len;      /* the statement's span (without its ';' or newline) */
    int line, col;        /* where it starts */
    size_t name_off, name_len;   /* ASSIGN, DEF: the name */
    size_t params_off, params_len;  /* DEF: the text between the parentheses */
    size_t rhs_off;       /* ASSIGN, DEF: the expression after '=' */
    int rhs_line, rhs_col;
    size_t index_off, index_len;   /* ASSIGN of name[index]: the index (else len 0) */
    int index_line, index_col;
} ad_stmt;

/* Reads the statement starting at *pos of src[0..len) (*line, *col are its
 * position) and advances all three past it.  Statements end at ';', at the
 * end, or at a line end outside parentheses and brackets that follows a
 * name, a number, ')' or ']' (so "x +" continues on the next line); a statement of control flow
 * (if, while, for) ends at the '}' of its last block.  0 at the end of src. */
int ad_next_stmt(const char *src, size_t len, size_t *pos, int *line, int *col, ad_stmt *st);

/* ---- sessions: statements one at a time (the REPL) ----
 * A session keeps the definitions and assignments that worked on one
 * recording, so a statement costs what it records and what its value
 * needs, not the session before it.  Not shared between threads. */
typedef struct ad_session ad_session;
ad_session *ad_session_new(void);   /* NULL when out of memory */
void ad_session_free(ad_session *s);
/* the node limit of the session's recording (ad_tape_set_limit) */
void ad_session_set_limit(ad_session *s, size_t nodes);
/* the loop iterations one statement may run (ad_tape_set_iterations) */
void ad_session_set_iterations(ad_session *s, size_t n);
/* sets the values of these inputs (others keep theirs); 0 or -1.  A
 * vector given whole, as names x[1], x[2] ... x[m] in a row, is m long
 * from then on: its elements beyond m have no value */
int ad_session_point(ad_session *s, const char *const *names, const double *values, size_t n);
/* Runs one statement src[0..len) (as ad_next_stmt splits them; *kind says
 * which).  A definition is kept when its body records; an assignment when
 * its value can be computed at the point; an expression leaves out, a
 * finished tape with the expression as its output and every input of the
 * session (in order of first appearance), and is not kept.  Positions are
 * in ad_session_text.  An input without a value is AD_E_NAME with
 * *unbound its index in out (else *unbound is (size_t)-1).  A statement of
 * control flow runs at the point (its inputs need values) and is kept;
 * when the point moves, the kept statements are recorded again there
 * before the next statement (their paths may differ; see
 * ad_session_dropped). */
ad_errclass ad_session_run(ad_session *s, const char *src, size_t len, ad_stmt_kind *kind, ad_tape *out,
                           size_t *unbound, ad_diag *d);
/* what the last ad_session_run dropped: when the point moved, a kept
 * statement that fails at the new point (another path that fails, an
 * element of a vector that became shorter) is dropped, and the statement
 * run still runs.  AD_E_NONE when nothing was dropped; else the first
 * failure's class, and *d says which statement and why */
ad_errclass ad_session_dropped(const ad_session *s, ad_diag *d);
/* the kept statements, one per line (*kept_lines of them), followed by
 * the last statement run: the text positions refer to */
const char *ad_session_text(const ad_session *s, size_t *len, int *kept_lines);

#define AD_TAPE_FORMAT_VERSION 1

#endif
