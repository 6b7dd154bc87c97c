/* options.h - the command line, parsed and checked against the table of
 * options (options.def). */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "adcalc.h"

/* the options, by their row in options.def */
typedef enum {
#define OPT(ID, ...) CLI_OPT_##ID,
#include "options.def"
    CLI_OPT_COUNT
} cli_opt;

/* the value kinds of options.def's arg column */
typedef enum {
    CLI_ARG_NONE, CLI_ARG_EXPR, CLI_ARG_TEXT, CLI_ARG_FILE, CLI_ARG_BINDINGS, CLI_ARG_NAMES, CLI_ARG_NUMBERS,
    CLI_ARG_WORD, CLI_ARG_OPTWORD, CLI_ARG_INT, CLI_ARG_POSITIVE, CLI_ARG_NONNEG
} cli_arg;

/* one row of options.def (a SECTION row has id -1 and its title in help) */
typedef struct {
    int id;
    const char *names, *meta, *help;
    cli_arg arg;
} cli_optinfo;
extern const cli_optinfo cli_optinfos[];
extern const size_t cli_noptinfos;

struct cli_prelude;

typedef struct {
    const char *name;     /* "-e", "-e#2" or the file name, for error positions */
    char label[32];       /* storage for "-e#N", "--expect#N" */
    int line_shift;       /* added to line numbers when printed (the REPL) */
    /* the REPL: on line echo_at of src, which starts at column col_shift + 1
     * of the input line echo[0..echo_len), show that line and its columns */
    int echo_at, col_shift;
    const char *echo;
    size_t echo_len;
    const char *src;      /* the expression text (owned by the options, for -e and -f) */
    size_t len;
    /* the libraries recorded before it (--lib): its positions count the
     * prelude's lines first (libs.c gives them back to the files) */
    const struct cli_prelude *pre;
} cli_source;

/* --lib: the libraries, and the prelude every expression is recorded
 * after: each library's text, then a line ";" (libs.c).  Its lines are
 * numbered 1 - lines .. 0, so that the expression's own count from 1. */
typedef struct cli_prelude {
    cli_source *lib;  size_t nlib;   /* each --lib FILE, in order */
    int *first;                      /* the prelude's line (from 1) each one starts on */
    size_t *end;                     /* the byte each one's part of the text ends at */
    char *text;       size_t len;
    int lines;                       /* the prelude's lines */
} cli_prelude;

/* --expect: the user's formula for one partial derivative, d/dvar */
typedef struct {
    char *var;
    cli_source src;   /* named "--expect" (or "--expect#K" among several) */
} cli_expect_item;

/* --cov: one entry A:B=C of the inputs' covariance */
typedef struct {
    char *a, *b;
    double c;
} cli_cov;

/* a vector variable NAME=[v1, v2, ...]: its elements are the bindings
 * NAME[1], NAME[2], ... (first .. first + len - 1 among them) */
typedef struct {
    char *name;
    size_t first, len;
} cli_vector;

/* NAME=VALUE lists (-at, --seed): names and values side by side; a vector
 * is its elements, each a binding of its own */
typedef struct {
    char **names;
    double *values;
    size_t n, cap;
    cli_vector *vecs;
    size_t nvecs, veccap;
} cli_bindings;

/* declares the vectors of b on tape t (before it records): 0 or -1 */
int cli_declare_vectors(const cli_bindings *b, ad_tape *t);
void cli_bindings_free(cli_bindings *b);

/* what reads standard input: -f -, --lib -, -at @- (how many of each),
 * --points -, a session */
typedef struct {
    unsigned f, lib, at;
    int points, session;
} cli_stdin_words;

typedef enum { CLI_FMT_TEXT, CLI_FMT_JSON, CLI_FMT_TSV } cli_format;
enum { CLI_ON_ERROR_STOP, CLI_ON_ERROR_SKIP, CLI_ON_ERROR_NAN };

typedef struct {
    unsigned given[CLI_OPT_COUNT];   /* how often each option was given */
    cli_source *src;  size_t nsrc;
    cli_prelude pre;                 /* --lib */
    int no_init;                     /* --no-init */
    cli_bindings at;                 /* -at, in order */
    char *at_file;                   /* -at @FILE: the file an error is in (at the diagnostic's line and column) */
    unsigned at_stdin;               /* -at @- items read */
    cli_stdin_words stdin_words;     /* the readers of stdin, from the words before any is read */
    cli_bindings seed;               /* --seed */
    char **wrt;      size_t nwrt, wrtcap;    /* --wrt */
    int grad;                        /* --grad (or --wrt) */
    int jacobian;                    /* --jacobian */
    double *adjoint; size_t nadjoint; /* --adjoint weights, one per output */
    int hessian;                     /* --hessian */
    int order;                       /* --order K (0: not asked) */
    int check;                       /* --check */
    cli_expect_item *expect; size_t nexpect, expectcap;   /* --expect, in order */
    cli_bindings sigma;              /* --sigma */
    cli_cov *cov;    size_t ncov, covcap;   /* --cov */
    double step_scale, rtol, atol;   /* --step-scale, --rtol, --atol */
    ad_mode mode;
    ad_policy policy;
    int emit;                        /* --emit-c: 1, --emit-c=main: 2 */
    const char *emit_name;           /* --emit-name (NULL: adcalc_f) */
    int emit_header;                 /* --emit-header */
    int dump;                        /* --dump-tape given */
    ad_dump_format dumpfmt;
    cli_format format;
    int header;                      /* --header (--format tsv) */
    int precision;                   /* 0: shortest round trip */
    int help, version, completion_table;   /* --help, --version, --completion-table */
    int session;                     /* statements from stdin (the REPL): hints name :at */
    /* batch mode (batch.c) */
    const char *points;              /* --points FILE ('-': stdin) */
    char **vars;     size_t nvars, varscap;  /* --vars */
    int binary;                      /* --binary */
    int jit;                         /* --jit, or ADCALC_JIT set with --points */
    int echo;                        /* --echo */
    int on_error;                    /* CLI_ON_ERROR_* */
    int jobs;                        /* -j N (0: all cores) */
    int stats;                       /* --stats */
    int no_optimize;                 /* --no-optimize */
    int no_block;                    /* ADCALC_NO_BLOCK set: the scalar engines only (tests) */
    long max_nodes;                  /* --max-nodes */
    long max_iterations;             /* --max-iterations */
} cli_options;

/* Parses argv.  On a usage error fills d (class AD_E_USAGE, or AD_E_IO for
 * an unreadable -f file) and returns its class. */
ad_errclass cli_options_parse(cli_options *o, int argc, char **argv, ad_diag *d);
void cli_options_free(cli_options *o);
/* reads the file at path ('-': stdin) whole into *text (malloc'd, *n
 * bytes); AD_E_IO with d filled in when it cannot (the message exactly
 * "out of memory" when that is why) */
ad_errclass cli_read_file(const char *path, char **text, size_t *n, ad_diag *d);
/* Sets option name ("--order") to value as the command line reads it, in
 * place of what it said; value NULL forgets it.  label ("order") names it
 * in errors.  Only for options whose values the session may change
 * (--grad, --wrt, --seed, --hessian, --order, --precision, --format, --mode,
 * --nondiff): no rule between options is checked. */
ad_errclass cli_option_set(cli_options *o, const char *name, const char *label, const char *value, ad_diag *d);
/* adds NAME=VALUE items to a list as -at does, @FILE items aside (opt
 * names it in errors; a variable may be given once) */
ad_errclass cli_add_bindings(const char *opt, const char *arg, cli_bindings *b, ad_diag *d);

/* 1 when s[0..n) is a name: a letter or '_', then letters, digits, '_' */
int cli_is_name(const char *s, size_t n);
/* why s[0..n) cannot be a variable ("is not a variable name", "is a
 * constant, not a variable", ...), or NULL when it can */
const char *cli_name_problem(const char *s, size_t n);

/* appends name[0..nl) = v to b, or the vector name = [v[0], ...,
 * v[len - 1]] (its elements name[1] ...): 0, or -1 when out of memory */
int cli_bind(cli_bindings *b, const char *name, size_t nl, double v);
int cli_bind_vector(cli_bindings *b, const char *name, size_t nl, const double *v, size_t len);

/* strict decimal number: [+-]digits[.digits][e[+-]digits]; 0 on success,
 * else -1 with why (-2 when out of memory) */
int cli_parse_number(const char *s, size_t len, double *out, const char **why);

/* --adjoint's weights against the outputs of the tape: one weight per
 * output (vectors: some expression has a vector value, an output per
 * element); AD_E_USAGE in d when they are not */
ad_errclass cli_adjoint_weights(const cli_options *o, size_t outputs, int vectors, ad_diag *d);

/* --seed x=[...] and --sigma x=[...] against names[0..n) (the variables
 * -at gives, or the columns of the points: where, for the error): as many
 * elements as names has x[1], x[2], ... when it has any; else AD_E_USAGE
 * in d */
ad_errclass cli_vector_lengths(const cli_options *o, const char *const *names, size_t n, const char *where,
                               ad_diag *d);

/* how option opt ("-at", "--seed", "--sigma", "--wrt", "--order") is
 * spelled in errors: in a session, as its command (":at") */
const char *cli_spelling(const cli_options *o, const char *opt);

/* a session's settings against its point, before each expression (:at,
 * :wrt, :seed, :sigma and :order change after the command line's checks):
 * --seed's and --wrt's names in the point, vectors of its lengths, and
 * :order's one variable or direction; AD_E_USAGE in d when not */
ad_errclass cli_check_settings(const cli_options *o, ad_diag *d);

/* the request the options make for an engine plan: the point's variables
 * are the -at names, the columns --wrt or the -at names; joint: the
 * outputs of one tape (--jacobian, --adjoint at a point) */
void cli_request(const cli_options *o, int joint, ad_request *rq);

#endif
