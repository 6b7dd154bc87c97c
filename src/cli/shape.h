/* shape.h - how the numbers of an answer group into vectors, decided here
 * once for every printer (text, JSON, the rows of batch mode):
 *
 *   the derivative columns: the run x[1], x[2], ..., x[n] of all the
 *   elements of a vector x that the tape declares, in that order, is the
 *   one vector x (d/dx = [...]); any other column (a number, or elements
 *   picked one by one with --wrt) stands alone under its own name;
 *
 *   the outputs: an expression (a source of the tape) whose value is a
 *   vector has one output per element.  Output labels are the source's
 *   number, and for an element its index: "2" or "2[3]" (the printers put
 *   'f' or '#' before them).
 *
 * A NULL tape has no vectors: every column and output stands alone. */
#ifndef CLI_SHAPE_H
#define CLI_SHAPE_H

#include <stddef.h>
#include "adcalc.h"

/* a run of columns (or outputs) printed as one */
typedef struct {
    const char *name;   /* columns: the column's name, or the vector's */
    size_t len;         /* ...its length */
    size_t first, n;    /* the run: first .. first + n - 1 */
    int vector;         /* a vector: printed [a, b, ...] even when n is 1 */
} cli_group;

/* the group of plan p's columns that starts at column k */
void cli_column_group(const ad_tape *t, const ad_plan *p, size_t k, cli_group *g);

/* the groups of the outputs: one per source (m outputs, each its own,
 * when the tape has no sources or t is NULL) */
size_t cli_output_groups(const ad_tape *t, size_t m);
/* group s of them (its name is NULL) */
void cli_output_group(const ad_tape *t, size_t s, cli_group *g);
/* the label of output r: "2" or "2[3]" into buf */
const char *cli_output_label(const ad_tape *t, size_t m, size_t r, char *buf, size_t n);
/* 1 when some source of t has a vector value */
int cli_has_vector_value(const ad_tape *t);

#endif
