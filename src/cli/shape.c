/* shape.c - the vectors among an answer's columns and outputs (shape.h). */
#include <stdio.h>
#include <string.h>
#include "shape.h"

/* the length of the name "x" of a column "x[1]", or 0 when it is no
 * vector's first element */
static size_t first_element(const char *col)
{
    size_t len = strlen(col);
    return len > 3 && strcmp(col + len - 3, "[1]") == 0 ? len - 3 : 0;
}

/* 1 when col is "name[k]" */
static int is_element(const char *col, const char *name, size_t len, size_t k)
{
    char idx[32];
    int w = snprintf(idx, sizeof idx, "[%zu]", k);
    return strncmp(col, name, len) == 0 && strcmp(col + len, idx) == 0 && w > 0;
}

void cli_column_group(const ad_tape *t, const ad_plan *p, size_t k, cli_group *g)
{
    const char *col = ad_plan_column(p, k);
    size_t ncols = ad_plan_layout(p)->ncols;
    *g = (cli_group){col, strlen(col), k, 1, 0};
    size_t len = t ? first_element(col) : 0;
    size_t n = len ? ad_tape_vector_len(t, col, len) : 0;
    if (n == 0 || n > ncols - k) return;
    for (size_t j = 1; j < n; j++)
        if (!is_element(ad_plan_column(p, k + j), col, len, j + 1)) return;
    *g = (cli_group){col, len, k, n, 1};
}

size_t cli_output_groups(const ad_tape *t, size_t m) { return t ? ad_tape_nsources(t) : m; }

void cli_output_group(const ad_tape *t, size_t s, cli_group *g)
{
    *g = (cli_group){NULL, 0, s, 1, 0};
    if (t) g->n = ad_tape_source_outputs(t, s, &g->first, &g->vector);
}

const char *cli_output_label(const ad_tape *t, size_t m, size_t r, char *buf, size_t n)
{
    /* the sources' outputs follow each other in order: the last source
     * that starts at or before r holds it */
    size_t lo = 0, hi = cli_output_groups(t, m);
    cli_group g = {NULL, 0, r, 1, 0};
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        cli_output_group(t, mid, &g);
        if (g.first <= r) lo = mid;
        else hi = mid;
    }
    if (t) cli_output_group(t, lo, &g);
    else lo = r;
    if (g.vector) snprintf(buf, n, "%zu[%zu]", lo + 1, r - g.first + 1);
    else snprintf(buf, n, "%zu", lo + 1);
    return buf;
}

int cli_has_vector_value(const ad_tape *t)
{
    for (size_t s = 0; t && s < ad_tape_nsources(t); s++) {
        size_t first;
        int vec;
        ad_tape_source_outputs(t, s, &first, &vec);
        if (vec) return 1;
    }
    return 0;
}
