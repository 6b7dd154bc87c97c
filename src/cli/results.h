/* results.h - printing what a point got (the row of ad_derive, laid out
 * as its plan says): text for people, JSON Lines for programs, and the
 * rows of batch mode, for one expression or several on one tape.  Every
 * printer writes into a buffer. */
#ifndef CLI_RESULTS_H
#define CLI_RESULTS_H

#include "adcalc.h"
#include "buf.h"
#include "expect.h"
#include "sigma.h"
#include "options.h"

/* --expect at one point: the formulas' values beside adcalc's */
typedef struct {
    const cli_expect *E;
    const double *given;          /* one value per formula */
    const ad_check_result *chk;   /* adcalc's derivative and the finite difference, by column */
    int failed;                   /* some formula disagrees (cli_expect_failed, judged once) */
} cli_expected;

/* one point's answer */
typedef struct {
    const ad_plan *plan;
    const double *row;            /* ad_plan_layout(plan)->width numbers */
    const ad_check_result *chk;   /* the gradient check, or NULL */
    const cli_expected *exp;      /* --expect, or NULL */
    const double *sigma;          /* --sigma: cli_sigma_fields per output, or NULL */
    const ad_tape *tape;          /* the tape recorded: which outputs and columns are vectors
                                   * (shape.h), or NULL: none */
} cli_answer;

/* one expression's result as text; several: headed by the expression */
void cli_print_text(cli_buf *b, const cli_options *o, const cli_source *s, const cli_answer *a, int several);
/* the outputs of one tape (--jacobian, --adjoint) as text */
void cli_print_joint_text(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, const cli_answer *a);
/* the JSON value of the expressions: "x*y" for one, ["x", "y"] for a
 * joint answer */
void cli_json_exprs(cli_buf *b, const cli_source *src, size_t n, int joint);
/* the JSON object of an answer: exprs from cli_json_exprs, line > 0 adds
 * "line" (batch rows), columns (a JSON object, or NULL) "columns": the
 * row's fields passed through */
void cli_print_json(cli_buf *b, const cli_options *o, const char *exprs, int joint, long line, const char *columns,
                    const cli_answer *a);
/* an answer as o->format asks: JSON of the n sources (their outputs on one
 * tape when joint), tab-separated lines, the joint text, or one
 * expression's text (headed by it when several) */
void cli_print_answer(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, int joint, int several,
                      const cli_answer *a);
/* the record of an expression (or, joint, of the n outputs of one tape)
 * that failed with d, at source at: printed in its place, so that the
 * records of the others keep theirs.  Text: "error: MESSAGE [TAG]" (under
 * its header when several expressions print labelled blocks); JSON: the
 * object of cli_print_json with an "error" member instead of results;
 * tsv: its lines, every field nan: one per output, outputs of them (a
 * vector value's elements, when it was recorded; else 1, or joint n) */
void cli_print_failure(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, size_t outputs, int joint,
                       int several,
                       const cli_source *at, const ad_diag *d);
/* the names of the derivative columns: the plan's, or (no plan: before
 * any tape was recorded) names */
typedef struct {
    const ad_plan *plan;
    const char *const *names;
    const ad_tape *tape;          /* the outputs' labels (shape.h), or NULL: numbered */
} cli_columns;
/* --format tsv: one line per output (an element of a vector value too), its fields tab-separated in the order
 * of the row (value, d/dNAME..., jvp, hvp[NAME]..., d2/dNAMEdNAME...,
 * f^(k)...), then "pass" or "FAIL" with --check and with --expect; w^T J
 * (--adjoint) on a last line of its own */
void cli_print_tsv(cli_buf *b, const cli_options *o, const cli_answer *a);
/* the names of those fields (--header) */
void cli_print_tsv_header(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_columns *c);
/* a text field of a batch row as it was, quoted (RFC 4180: "" for a
 * quote) when it would not read back else: it holds sep, a quote or a
 * line end, starts or ends with a blank, or starts with '#' */
void cli_print_text_field(cli_buf *b, const char *s, size_t n, char sep);
/* a batch row: the numbers separated by sep (L->width), the figures of
 * --sigma (output by output), then the verdicts of a
 * (--check, --expect: pass or FAIL; nan when a is NULL, a row that
 * failed); the header row names them, every output's fields with the
 * suffix #N when there are several (#N[K]: element K of expression N's
 * vector value), then "check" and "expect" */
void cli_print_row(cli_buf *b, const cli_options *o, const ad_layout *L, const double *row, char sep, const cli_answer *a);
void cli_print_header(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_columns *c, char sep);

#endif
