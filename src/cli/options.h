/* options.h - the command line, parsed and checked (the CLI's, not the
 * engine's). */
#ifndef AD_OPTIONS_H
#define AD_OPTIONS_H

#include <stddef.h>
#include "adcalc.h"

typedef struct {
    const char *name;     /* "-e", "-e#2" or the file name, for error positions */
    char label[24];       /* storage for "-e#N" */
    int line_shift;       /* added to line numbers when printed (the REPL) */
    /* the REPL: on line echo_at of src, which starts at column col_shift + 1
     * of the input line echo[0..echo_len), show that line and its columns */
    int echo_at, col_shift;
    const char *echo;
    size_t echo_len;
    char *src;            /* the expression text (owned) */
    size_t len;
} cli_source;

typedef struct {
    char *name;
    double value;
} cli_binding;

typedef enum { AD_MODE_DEFAULT, AD_MODE_FORWARD, AD_MODE_REVERSE, AD_MODE_AUTO } ad_mode;
typedef enum { CLI_FMT_TEXT, CLI_FMT_JSON } cli_outfmt;
enum { CLI_ON_ERROR_STOP, CLI_ON_ERROR_SKIP, CLI_ON_ERROR_NAN };

typedef struct {
    cli_source *src;  size_t nsrc;
    cli_binding *at;  size_t nat;     /* -at, in order */
    cli_binding *seed; size_t nseed;  /* --seed */
    char **wrt;      size_t nwrt;    /* --wrt */
    int grad;                        /* --grad (or --wrt) */
    int jacobian;                    /* --jacobian */
    double *adjoint; size_t nadjoint; /* --adjoint weights, one per output */
    int hessian;                     /* --hessian */
    int order;                       /* --order K (0: not asked) */
    int check;                       /* --check */
    double step_scale, rtol, atol;   /* --step-scale, --rtol, --atol */
    ad_mode mode;
    ad_policy policy;
    int dump;                        /* --dump-tape given */
    ad_dump_format dumpfmt;
    cli_outfmt format;
    int precision;                   /* 0: shortest round trip */
    int help, version;
    /* batch mode (batch.c) */
    const char *points;              /* --points FILE ('-': stdin) */
    char **vars;     size_t nvars;   /* --vars */
    int binary;                      /* --binary */
    int on_error;                    /* CLI_ON_ERROR_* */
    int jobs;                        /* -j N (0: all cores) */
    int stats;                       /* --stats */
    int no_optimize;                 /* --no-optimize */
    int no_block;                    /* ADCALC_NO_BLOCK set: the scalar engines only (tests) */
} cli_options;

#define AD_MAX_ORDER 100   /* largest --order */

/* Parses argv.  On a usage error fills d (class AD_E_USAGE, or AD_E_IO for
 * an unreadable -f file) and returns its class. */
ad_errclass cli_options_parse(cli_options *o, int argc, char **argv, ad_diag *d);
void cli_options_free(cli_options *o);

/* strict decimal number: [+-]digits[.digits][e[+-]digits]; 0 on success */
int cli_parse_number(const char *s, size_t len, double *out, const char **why);

#endif
