/* results.c - printing answers (results.h): text laid out for people
 * (labelled lines, aligned '=' signs, labelled matrices), JSON Lines for
 * programs, and batch rows, all read from the row of ad_derive through the
 * plan's layout. */
#include <math.h>
#include <string.h>
#include "results.h"
#include "report.h"
#include "shape.h"

/* ---- JSON ---- */

static void jnum(cli_buf *b, double x, int prec) { cli_buf_json_number(b, x, prec); }

/* a number, or null where there is none (nan marks it) */
static void jnum_or_null(cli_buf *b, double x, int prec)
{
    if (isnan(x)) cli_buf_puts(b, "null");
    else jnum(b, x, prec);
}

static void jstr(cli_buf *b, const char *s) { cli_buf_json_string(b, s, strlen(s)); }

/* [v[0], v[step], ...]: n numbers step apart */
static void jarray(cli_buf *b, const double *v, size_t n, size_t step, int prec)
{
    cli_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i) cli_buf_puts(b, ", ");
        jnum(b, v[i * step], prec);
    }
    cli_buf_putc(b, ']');
}

/* {"x": [v[0], v[1]], "y": v[2]}: a number per column, an array per
 * vector of them (shape.h) */
static void jobject(cli_buf *b, const cli_answer *a, const double *v, int prec)
{
    cli_group g;
    cli_buf_putc(b, '{');
    for (size_t k = 0; k < ad_plan_layout(a->plan)->ncols; k += g.n) {
        cli_column_group(a->tape, a->plan, k, &g);
        if (k) cli_buf_puts(b, ", ");
        cli_buf_json_string(b, g.name, g.len);
        cli_buf_puts(b, ": ");
        if (g.vector) jarray(b, v + k, g.n, 1, prec);
        else jnum(b, v[k], prec);
    }
    cli_buf_putc(b, '}');
}

/* [v[0], [v[1], v[2]]]: an output's number each (step apart), an array
 * for an expression whose value is a vector */
static void jsources(cli_buf *b, const cli_answer *a, const double *v, int prec)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    cli_group g;
    cli_buf_putc(b, '[');
    for (size_t s = 0; s < cli_output_groups(a->tape, L->m); s++) {
        cli_output_group(a->tape, s, &g);
        if (s) cli_buf_puts(b, ", ");
        if (g.vector) jarray(b, v + g.first * L->per_out, g.n, L->per_out, prec);
        else jnum(b, v[g.first * L->per_out], prec);
    }
    cli_buf_putc(b, ']');
}

/* 1 when the one expression of a (not joint) has a vector value */
static int vector_value(const cli_answer *a)
{
    cli_group g;
    cli_output_group(a->tape, 0, &g);
    return g.vector || ad_plan_layout(a->plan)->m > 1;
}

/* the value (or jvp) of one expression: its number, or its vector's */
static void jsingle(cli_buf *b, const cli_answer *a, const double *v, int prec)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    if (vector_value(a)) jarray(b, v, L->m, L->per_out, prec);
    else jnum(b, v[0], prec);
}

static void jnames(cli_buf *b, const ad_plan *p)
{
    cli_buf_putc(b, '[');
    for (size_t i = 0; i < ad_plan_layout(p)->ncols; i++) {
        if (i) cli_buf_puts(b, ", ");
        jstr(b, ad_plan_column(p, i));
    }
    cli_buf_putc(b, ']');
}

/* rows of cols numbers, the rows step apart */
static void jmatrix(cli_buf *b, const double *m, size_t rows, size_t cols, size_t step, int prec)
{
    cli_buf_putc(b, '[');
    for (size_t r = 0; r < rows; r++) {
        if (r) cli_buf_puts(b, ", ");
        jarray(b, m + r * step, cols, 1, prec);
    }
    cli_buf_putc(b, ']');
}

static void json_check(cli_buf *b, const cli_options *o, const cli_answer *a)
{
    int p = o->precision;
    const ad_check_result *chk = a->chk;
    cli_buf_puts(b, ", \"check\": {\"step_scale\": ");   /* the shortest form, like every number */
    jnum(b, o->step_scale, 0);
    cli_buf_puts(b, ", \"rtol\": ");
    jnum(b, o->rtol, 0);
    cli_buf_puts(b, ", \"atol\": ");
    jnum(b, o->atol, 0);
    cli_buf_puts(b, ", \"components\": [");
    for (size_t i = 0; i < ad_plan_layout(a->plan)->ncols; i++) {
        const ad_check_item *it = &chk->items[i];
        cli_buf_puts(b, i ? ", {\"var\": " : "{\"var\": ");
        jstr(b, ad_plan_column(a->plan, i));
        cli_buf_puts(b, ", \"ad\": ");
        jnum(b, it->ad, p);
        cli_buf_puts(b, ", \"fd\": ");
        jnum_or_null(b, it->fd, p);
        cli_buf_puts(b, ", \"fd_refined\": ");
        jnum_or_null(b, it->refined, p);
        cli_buf_puts(b, ", \"diff\": ");
        jnum_or_null(b, it->diff, p);
        cli_buf_puts(b, ", \"h\": ");
        jnum(b, it->h, 0);
        cli_buf_puts(b, ", \"status\": ");
        jstr(b, ad_check_status_name(it->status));
        cli_buf_putc(b, '}');
    }
    cli_buf_puts(b, "], \"forward_reverse_max_rel_diff\": ");
    jnum(b, chk->fwd_rev, 0);
    cli_buf_printf(b, ", \"pass\": %s}", chk->failed ? "false" : "true");
}

/* adcalc's derivative of column c and its finite difference (nan: none) */
static double best_fd(const ad_check_item *it) { return isnan(it->refined) ? it->fd : it->refined; }

static void json_expect(cli_buf *b, const cli_options *o, const cli_expected *x)
{
    int p = o->precision;
    cli_buf_puts(b, ", \"expect\": {\"rtol\": ");
    jnum(b, o->rtol, 0);
    cli_buf_puts(b, ", \"atol\": ");
    jnum(b, o->atol, 0);
    cli_buf_puts(b, ", \"components\": [");
    for (size_t k = 0; k < x->E->n; k++) {
        const ad_check_item *it = &x->chk->items[x->E->col[k]];
        cli_buf_puts(b, k ? ", {\"var\": " : "{\"var\": ");
        jstr(b, o->expect[k].var);
        cli_buf_puts(b, ", \"formula\": ");
        cli_buf_json_string(b, o->expect[k].src.src, o->expect[k].src.len);
        cli_buf_puts(b, ", \"expected\": ");
        jnum(b, x->given[k], p);
        cli_buf_puts(b, ", \"ad\": ");
        jnum(b, it->ad, p);
        cli_buf_puts(b, ", \"fd\": ");
        jnum_or_null(b, best_fd(it), p);
        cli_buf_puts(b, ", \"diff\": ");
        jnum(b, fabs(x->given[k] - it->ad), p);
        cli_buf_printf(b, ", \"status\": \"%s\"}", cli_expect_agrees(o, x->given[k], it->ad) ? "pass" : "FAIL");
    }
    cli_buf_printf(b, "], \"pass\": %s}", x->failed ? "false" : "true");
}

void cli_json_exprs(cli_buf *b, const cli_source *src, size_t n, int joint)
{
    if (joint) cli_buf_putc(b, '[');
    for (size_t r = 0; r < n; r++) {
        if (r) cli_buf_puts(b, ", ");
        cli_buf_json_string(b, src[r].src, src[r].len);
    }
    if (joint) cli_buf_putc(b, ']');
}

/* one expression: "expr", "value", "gradient", ... */
static void json_single(cli_buf *b, const cli_options *o, const cli_answer *a)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    const double *row = a->row;
    int p = o->precision;
    size_t nc = L->ncols;
    cli_buf_puts(b, ", \"value\": ");
    jsingle(b, a, row, p);
    if (L->grad != AD_ABSENT) {
        cli_buf_puts(b, ", \"gradient\": ");
        jobject(b, a, row + L->grad, p);
    }
    if (L->jvp != AD_ABSENT) {
        cli_buf_puts(b, ", \"jvp\": ");
        jsingle(b, a, row + L->jvp, p);
    }
    if (L->hessian != AD_ABSENT) {
        cli_buf_puts(b, ", \"hessian\": ");
        jmatrix(b, row + L->hessian, nc, nc, nc, p);
    }
    if (L->hvp != AD_ABSENT) {
        cli_buf_puts(b, ", \"hvp\": ");
        jarray(b, row + L->hvp, nc, 1, p);
    }
    if (L->order) {
        cli_buf_puts(b, ", \"derivatives\": ");
        jarray(b, row + L->derivs, L->order, 1, p);
    }
    if (a->sigma) {
        cli_buf_puts(b, ", \"sigma\": ");
        jnum(b, a->sigma[0], p);
        if (cli_sigma_fields(o) > 1) {
            cli_buf_puts(b, ", \"sigma2\": ");
            jnum(b, a->sigma[1], p);
        }
    }
    if (a->chk) json_check(b, o, a);
    if (a->exp) json_expect(b, o, a->exp);
    if (L->hessian != AD_ABSENT || L->hvp != AD_ABSENT) {
        /* the variables the rows and columns of "hessian" and "hvp" stand for */
        cli_buf_puts(b, ", \"vars\": ");
        jnames(b, a->plan);
    }
}

/* several outputs of one tape: "values", "jacobian", "vjp", "jvp" */
static void json_joint(cli_buf *b, const cli_options *o, const cli_answer *a)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    const double *row = a->row;
    int p = o->precision;
    cli_buf_puts(b, ", \"values\": ");
    jsources(b, a, row, p);
    if (L->grad != AD_ABSENT) {
        cli_buf_puts(b, ", \"jacobian\": ");
        jmatrix(b, row + L->grad, L->m, L->ncols, L->per_out, p);
    }
    if (L->vjp != AD_ABSENT) {
        cli_buf_puts(b, ", \"vjp\": ");
        jobject(b, a, row + L->vjp, p);
    }
    if (L->jvp != AD_ABSENT) {
        cli_buf_puts(b, ", \"jvp\": ");
        jsources(b, a, row + L->jvp, p);
    }
    if (a->sigma) {
        cli_buf_puts(b, ", \"sigma\": ");
        jarray(b, a->sigma, L->m, cli_sigma_fields(o), p);
    }
    if (L->grad != AD_ABSENT || L->vjp != AD_ABSENT) {
        /* the variables the columns of "jacobian" stand for */
        cli_buf_puts(b, ", \"vars\": ");
        jnames(b, a->plan);
    }
}

void cli_print_json(cli_buf *b, const cli_options *o, const char *exprs, int joint, long line, const char *columns,
                    const cli_answer *a)
{
    cli_buf_putc(b, '{');
    if (line > 0) cli_buf_printf(b, "\"line\": %ld, ", line);
    if (columns) cli_buf_printf(b, "\"columns\": %s, ", columns);
    cli_buf_puts(b, joint ? "\"exprs\": " : "\"expr\": ");
    cli_buf_puts(b, exprs);
    if (joint) json_joint(b, o, a);
    else json_single(b, o, a);
    cli_buf_puts(b, "}\n");
}

static void tsv_lines(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_answer *a);

/* ---- text ---- */

/* text lines wrap before this column where they can (a vector's numbers) */
#define CLI_TEXT_WIDTH 80

/* n numbers of v (step apart) as "[a, b, c]", the '[' at column col: the
 * numbers wrap onto lines of their own, each starting under the first
 * number, so that a line stays within CLI_TEXT_WIDTH where that leaves a
 * number on it; every number is printed */
static void vector_text(cli_buf *b, const double *v, size_t n, size_t step, int prec, size_t col)
{
    char num[40];
    size_t at = col + 1;
    cli_buf_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(ad_fmt_number(num, sizeof num, v[i * step], prec));
        if (i && at + 2 + len + 1 > CLI_TEXT_WIDTH) {
            cli_buf_puts(b, ",\n");
            for (size_t k = 0; k <= col; k++) cli_buf_putc(b, ' ');
            at = col + 1;
        } else if (i) {
            cli_buf_puts(b, ", ");
            at += 2;
        }
        cli_buf_puts(b, num);
        at += len;
    }
    cli_buf_putc(b, ']');
}

/* one "label = ..." line's right side: a number, or a vector's numbers */
typedef struct {
    char label[64];
    const double *v;    /* the number, or the vector's first */
    size_t n, step;     /* a vector: n numbers step apart */
    int vec;
} item;

/* the right side of it at column col */
static void put_item(cli_buf *b, const item *it, int prec, size_t col)
{
    if (it->vec) vector_text(b, it->v, it->n, it->step, prec, col);
    else cli_buf_number(b, it->v[0], prec);
}

/* where a walk through the lines of an answer is: its section, and the
 * column or output within it */
typedef struct {
    size_t sec, k;
} cursor;
/* the next line of a's walk at c into it (c moves past it); 0 at the end */
typedef int next_fn(const cli_answer *a, cursor *c, item *it);

/* a number, or a vector (n numbers step apart) */
static void set_item(item *it, const double *v, size_t n, size_t step, int vec)
{
    it->v = v;
    it->n = n;
    it->step = step;
    it->vec = vec;
}

/* the column group at c->k (shape.h) as a line: prefix NAME suffix,
 * numbers v[k...]; c->k moves past it */
static void column_item(const cli_answer *a, cursor *c, const char *prefix, const char *suffix, const double *v,
                        item *it)
{
    cli_group g;
    cli_column_group(a->tape, a->plan, c->k, &g);
    snprintf(it->label, sizeof it->label, "%s%.*s%s", prefix, (int)(g.len > 40 ? 40 : g.len), g.name, suffix);
    set_item(it, v + c->k, g.n, 1, g.vector);
    c->k += g.n;
}

/* the source group at c->k as a line "f<k>": its output's number (at
 * v, step apart per output), or its vector's; c->k moves past it */
static int source_item(const cli_answer *a, cursor *c, const double *v, item *it)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    cli_group g;
    if (c->k >= cli_output_groups(a->tape, L->m)) return 0;
    cli_output_group(a->tape, c->k, &g);
    snprintf(it->label, sizeof it->label, "f%zu", c->k + 1);
    set_item(it, v + g.first * L->per_out, g.n, L->per_out, g.vector);
    c->k++;
    return 1;
}

/* one expression's number per output at v (its value, its jvp) as the
 * line label, a vector when its value is one; the next section follows */
static int output_item(const cli_answer *a, cursor *c, const char *label, const double *v, item *it)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    snprintf(it->label, sizeof it->label, "%s", label);
    set_item(it, v, L->m, L->per_out, vector_value(a));
    c->sec++;
    return 1;
}

/* the lines of one expression's answer: value, d/dNAME, jvp, f^(k),
 * hvp[NAME], sigma, sigma2 (a section each; the vectors of the value
 * and of the columns on one line each) */
static int result_line(const cli_answer *a, cursor *c, item *it)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    const double *row = a->row;
    for (;; c->sec++, c->k = 0) {
        switch (c->sec) {
        case 0:
            return output_item(a, c, "value", row, it);
        case 1:
            if (L->grad == AD_ABSENT || c->k >= L->ncols) continue;
            column_item(a, c, "d/d", "", row + L->grad, it);
            return 1;
        case 2:
            if (L->jvp == AD_ABSENT) continue;
            return output_item(a, c, "jvp", row + L->jvp, it);
        case 3:
            if (c->k >= L->order) continue;
            snprintf(it->label, sizeof it->label, "f^(%zu)", c->k + 1);
            set_item(it, row + L->derivs + c->k++, 1, 1, 0);
            return 1;
        case 4:
            if (L->hvp == AD_ABSENT || c->k >= L->ncols) continue;
            column_item(a, c, "hvp[", "]", row + L->hvp, it);
            return 1;
        case 5:
            if (!a->sigma || c->k >= (L->hessian != AD_ABSENT ? 2 : 1)) continue;
            snprintf(it->label, sizeof it->label, c->k ? "sigma2" : "sigma");
            set_item(it, a->sigma + c->k++, 1, 1, 0);
            return 1;
        default:
            return 0;
        }
    }
}

/* w^T J (--adjoint): a line per column group */
static int vjp_line(const cli_answer *a, cursor *c, item *it)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    if (c->k >= L->ncols) return 0;
    column_item(a, c, "d/d", "", a->row + L->vjp, it);
    return 1;
}

/* J v (--seed, joint): a line per expression */
static int jvp_line(const cli_answer *a, cursor *c, item *it)
{
    return source_item(a, c, a->row + ad_plan_layout(a->plan)->jvp, it);
}

/* the lines of a's walk next, their '=' signs aligned */
static void item_lines(cli_buf *b, const cli_answer *a, next_fn *next, const char *indent, int prec)
{
    item it;
    size_t w = 0;
    for (cursor c = {0, 0}; next(a, &c, &it);)
        if (strlen(it.label) > w) w = strlen(it.label);
    for (cursor c = {0, 0}; next(a, &c, &it);) {
        cli_buf_printf(b, "%s%-*s = ", indent, (int)w, it.label);
        put_item(b, &it, prec, strlen(indent) + w + 3);
        cli_buf_putc(b, '\n');
    }
}

/* the rows or columns of a matrix: the columns of plan (prefix before
 * their names), or without a plan the outputs "f1", "f2[3]" (shape.h) */
typedef struct {
    const char *prefix;
    const ad_plan *plan;
    const ad_tape *tape;
    size_t m;
} axis;

static const char *axis_label(const axis *x, size_t i, char *buf, size_t n)
{
    char out[64];
    if (x->plan) snprintf(buf, n, "%s%.40s", x->prefix, ad_plan_column(x->plan, i));
    else snprintf(buf, n, "%sf%s", x->prefix, cli_output_label(x->tape, x->m, i, out, sizeof out));
    return buf;
}

/* a labelled matrix: corner and column labels, then one labelled row each
 * (rows step apart in m); all columns one width */
static void matrix(cli_buf *b, const char *indent, const char *corner, const axis *rowl, const axis *coll,
                   const double *m, size_t rows, size_t cols, size_t step, int prec)
{
    char num[40], lab[96];
    size_t w0 = strlen(corner), w = 0;
    for (size_t r = 0; r < rows; r++)
        if (strlen(axis_label(rowl, r, lab, sizeof lab)) > w0) w0 = strlen(lab);
    for (size_t c = 0; c < cols; c++)
        if (strlen(axis_label(coll, c, lab, sizeof lab)) > w) w = strlen(lab);
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            if (strlen(ad_fmt_number(num, sizeof num, m[r * step + c], prec)) > w) w = strlen(num);
    cli_buf_printf(b, "%s%-*s", indent, (int)w0, corner);
    for (size_t c = 0; c < cols; c++) cli_buf_printf(b, "  %*s", (int)w, axis_label(coll, c, lab, sizeof lab));
    cli_buf_puts(b, "\n");
    for (size_t r = 0; r < rows; r++) {
        cli_buf_printf(b, "%s%-*s", indent, (int)w0, axis_label(rowl, r, lab, sizeof lab));
        for (size_t c = 0; c < cols; c++)
            cli_buf_printf(b, "  %*s", (int)w, ad_fmt_number(num, sizeof num, m[r * step + c], prec));
        cli_buf_puts(b, "\n");
    }
}

/* "x*y+sin(x)" as a one-line header: newlines shown as spaces, long text cut */
static void put_source_line(cli_buf *b, const cli_source *s, size_t max)
{
    size_t len = s->len;
    while (len > 0 && strchr(" \n\t\r", s->src[len - 1])) len--;
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char c = (unsigned char)s->src[i];
        cli_buf_putc(b, c == '\n' || c == '\t' || c == '\r' ? ' ' : (c < 32 || c >= 127 ? '?' : (char)c));
    }
    if (len > max) cli_buf_puts(b, "...");
}

/* a finite-difference value, or "-" where the stencil left the domain */
static const char *fd_text(char *buf, size_t n, double x, int prec)
{
    if (isnan(x)) {
        snprintf(buf, n, "-");
        return buf;
    }
    return ad_fmt_number(buf, n, x, prec);
}

static void check_line(cli_buf *b, const cli_options *o, const ad_check_item *it, const char *name, const char *indent,
                       size_t wn, size_t wa, size_t wf)
{
    char x[40], y[40], z[40];
    if (isnan(it->diff)) snprintf(z, sizeof z, "-");
    else snprintf(z, sizeof z, "%.2g", it->diff);
    cli_buf_printf(b, "%s%-*s  %*s  %*s  %9s  %s", indent, (int)wn, name, (int)wa,
                   ad_fmt_number(x, sizeof x, it->ad, o->precision), (int)wf, fd_text(y, sizeof y, it->fd, o->precision),
                   z, ad_check_status_name(it->status));
    if (it->status == AD_CHECK_PASS && it->refined != it->fd)
        cli_buf_printf(b, " (with a refined difference %s)", ad_fmt_number(y, sizeof y, it->refined, o->precision));
    else if (it->status == AD_CHECK_FD_UNRELIABLE)
        cli_buf_printf(b, " (difference quotients disagree; best %s)", ad_fmt_number(y, sizeof y, it->refined, o->precision));
    else if (it->status == AD_CHECK_KINK)
        cli_buf_puts(b, " (the stencil crosses a kink; no verdict)");
    else if (it->status == AD_CHECK_BRANCH)
        cli_buf_puts(b, " (the stencil takes another branch of the program; no verdict)");
    else if (it->status == AD_CHECK_FD_UNDEFINED)
        cli_buf_puts(b, " (the stencil leaves the domain; no verdict)");
    cli_buf_puts(b, "\n");
}

static void text_check(cli_buf *b, const cli_options *o, const cli_answer *a, const char *indent)
{
    const ad_check_result *chk = a->chk;
    size_t nc = ad_plan_layout(a->plan)->ncols;
    char x[40], y[40], z[40];
    size_t wn = 3, wa = 2, wf = 2;
    for (size_t i = 0; i < nc; i++) {
        if (strlen(ad_plan_column(a->plan, i)) > wn) wn = strlen(ad_plan_column(a->plan, i));
        if (strlen(ad_fmt_number(x, sizeof x, chk->items[i].ad, o->precision)) > wa) wa = strlen(x);
        if (strlen(fd_text(y, sizeof y, chk->items[i].fd, o->precision)) > wf) wf = strlen(y);
    }
    cli_buf_printf(b, "\n%sgradient check: central differences, h = %s*sqrt(eps)*max(1,|x|); "
                      "pass when |ad - fd| <= %s + %s*|ad|\n",
                   indent, ad_fmt_number(x, sizeof x, o->step_scale, 0), ad_fmt_number(y, sizeof y, o->atol, 0),
                   ad_fmt_number(z, sizeof z, o->rtol, 0));
    cli_buf_printf(b, "%s%-*s  %-*s  %-*s  %-9s  %s\n", indent, (int)wn, "var", (int)wa, "ad", (int)wf, "fd",
                   "|ad - fd|", "status");
    for (size_t i = 0; i < nc; i++) check_line(b, o, &chk->items[i], ad_plan_column(a->plan, i), indent, wn, wa, wf);
    cli_buf_printf(b, "%sforward vs reverse: largest relative difference %.2g (%s)\n", indent, chk->fwd_rev,
                   !(chk->fwd_rev <= AD_FWD_REV_TOL) ? "FAIL" : "pass");
    cli_buf_printf(b, "%sresult: %s\n", indent, chk->failed ? "FAIL" : "pass");
}

/* --expect: a row per formula, its value beside adcalc's and the finite
 * difference, and the verdict */
static void text_expect(cli_buf *b, const cli_options *o, const cli_expected *x, const char *indent)
{
    char g[40], a[40], f[40], z[40];
    size_t wn = 3, wg = 8, wa = 2, wf = 2;
    for (size_t k = 0; k < x->E->n; k++) {
        const ad_check_item *it = &x->chk->items[x->E->col[k]];
        if (strlen(o->expect[k].var) > wn) wn = strlen(o->expect[k].var);
        if (strlen(ad_fmt_number(g, sizeof g, x->given[k], o->precision)) > wg) wg = strlen(g);
        if (strlen(ad_fmt_number(a, sizeof a, it->ad, o->precision)) > wa) wa = strlen(a);
        if (strlen(fd_text(f, sizeof f, best_fd(it), o->precision)) > wf) wf = strlen(f);
    }
    cli_buf_printf(b, "\n%sexpected derivatives: pass when |expected - ad| <= %s + %s*|ad|\n", indent,
                   ad_fmt_number(g, sizeof g, o->atol, 0), ad_fmt_number(a, sizeof a, o->rtol, 0));
    cli_buf_printf(b, "%s%-*s  %-*s  %-*s  %-*s  %-15s  %-6s  %s\n", indent, (int)wn, "var", (int)wg, "expected", (int)wa,
                   "ad", (int)wf, "fd", "|expected - ad|", "status", "formula");
    for (size_t k = 0; k < x->E->n; k++) {
        const ad_check_item *it = &x->chk->items[x->E->col[k]];
        snprintf(z, sizeof z, "%.2g", fabs(x->given[k] - it->ad));
        cli_buf_printf(b, "%s%-*s  %*s  %*s  %*s  %15s  %-6s  ", indent, (int)wn, o->expect[k].var, (int)wg,
                       ad_fmt_number(g, sizeof g, x->given[k], o->precision), (int)wa,
                       ad_fmt_number(a, sizeof a, it->ad, o->precision), (int)wf,
                       fd_text(f, sizeof f, best_fd(it), o->precision), z,
                       cli_expect_agrees(o, x->given[k], it->ad) ? "pass" : "FAIL");
        put_source_line(b, &o->expect[k].src, 60);
        cli_buf_putc(b, '\n');
    }
    cli_buf_printf(b, "%sresult: %s\n", indent, x->failed ? "FAIL" : "pass");
}

/* each expression prints its value alone (no derivative or check asked
 * for): then as bc prints it, else in labelled lines */
static int bare(const cli_options *o)
{
    return !o->grad && !o->jacobian && !o->seed.n && !o->order && !o->hessian && !o->check && !o->nexpect &&
           !cli_sigma_fields(o);
}

void cli_print_text(cli_buf *b, const cli_options *o, const cli_source *s, const cli_answer *a, int several)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    int p = o->precision;
    if (bare(o)) {
        /* a bare value, as bc prints it */
        if (vector_value(a)) vector_text(b, a->row, L->m, L->per_out, p, 0);
        else cli_buf_number(b, a->row[0], p);
        cli_buf_putc(b, '\n');
        return;
    }
    const char *indent = several ? "  " : "";
    if (several) {
        put_source_line(b, s, 200);
        cli_buf_puts(b, "\n");
    }
    item_lines(b, a, result_line, indent, p);
    if (L->hessian != AD_ABSENT) {
        axis vars = {"d/d", a->plan, NULL, 0};
        cli_buf_puts(b, "\n");
        matrix(b, indent, "hessian", &vars, &vars, a->row + L->hessian, L->ncols, L->ncols, L->ncols, p);
    }
    if (a->chk) text_check(b, o, a, indent);
    if (a->exp) text_expect(b, o, a->exp, indent);
}

/* "f1 = value  # the expression", a line per expression (a vector value
 * on its own lines, the expression after its ']') */
static void joint_values(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, const cli_answer *a)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    size_t ns = cli_output_groups(a->tape, L->m), wv = 0, wl;
    char num[40], lab[32];
    cli_group g;
    wl = (size_t)snprintf(lab, sizeof lab, "f%zu", ns);
    for (size_t s = 0; s < ns; s++) {
        cli_output_group(a->tape, s, &g);
        if (!g.vector && strlen(ad_fmt_number(num, sizeof num, a->row[g.first * L->per_out], o->precision)) > wv)
            wv = strlen(num);
    }
    for (size_t s = 0; s < ns; s++) {
        cli_output_group(a->tape, s, &g);
        snprintf(lab, sizeof lab, "f%zu", s + 1);
        cli_buf_printf(b, "%-*s = ", (int)wl, lab);
        if (g.vector) {
            vector_text(b, a->row + g.first * L->per_out, g.n, L->per_out, o->precision, wl + 3);
            cli_buf_puts(b, "  # ");
        } else {
            cli_buf_printf(b, "%-*s  # ", (int)wv, ad_fmt_number(num, sizeof num, a->row[g.first * L->per_out], o->precision));
        }
        if (s < n) put_source_line(b, &src[s], 60);
        cli_buf_puts(b, "\n");
    }
}

void cli_print_joint_text(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, const cli_answer *a)
{
    const ad_layout *L = ad_plan_layout(a->plan);
    int p = o->precision;
    joint_values(b, o, src, n, a);
    if (L->grad != AD_ABSENT) {
        axis outs = {"", NULL, a->tape, L->m}, vars = {"d/d", a->plan, NULL, 0};
        cli_buf_puts(b, "\n");
        matrix(b, "", "jacobian", &outs, &vars, a->row + L->grad, L->m, L->ncols, L->per_out, p);
    }
    if (L->vjp != AD_ABSENT) {
        cli_buf_puts(b, "\nvjp (the weighted sum of the rows, w^T J)\n");
        item_lines(b, a, vjp_line, "", p);
    }
    if (L->jvp != AD_ABSENT) {
        cli_buf_puts(b, "\njvp (J v along the seed)\n");
        item_lines(b, a, jvp_line, "", p);
    }
}

void cli_print_answer(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, int joint, int several,
                      const cli_answer *a)
{
    if (o->format == CLI_FMT_TSV) {
        cli_print_tsv(b, o, a);
    } else if (o->format == CLI_FMT_JSON) {
        cli_buf ex = {0};
        cli_json_exprs(&ex, src, n, joint);
        cli_buf_putc(&ex, 0);
        if (!ex.nomem) cli_print_json(b, o, ex.p, joint, 0, NULL, a);
        b->nomem |= ex.nomem;
        cli_buf_free(&ex);
    } else if (joint) {
        cli_print_joint_text(b, o, src, n, a);
    } else {
        cli_print_text(b, o, src, a, several);
    }
}

void cli_print_failure(cli_buf *b, const cli_options *o, const cli_source *src, size_t n, size_t outputs, int joint,
                       int several, const cli_source *at, const ad_diag *d)
{
    char msg[600];
    cli_message(d, msg, sizeof msg);
    if (o->format == CLI_FMT_JSON) {
        cli_buf_puts(b, joint ? "{\"exprs\": " : "{\"expr\": ");
        cli_json_exprs(b, src, n, joint);
        cli_buf_puts(b, ", \"error\": ");
        cli_json_error(b, &(cli_where){.src = at}, d, msg);
        cli_buf_puts(b, "}\n");
        return;
    }
    if (o->format == CLI_FMT_TSV) {
        /* a line of nan for each line the answer would have had */
        ad_request rq;
        ad_layout L;
        cli_request(o, joint, &rq);
        if (ad_layout_of(&rq, outputs, &L) == 0) tsv_lines(b, o, &L, NULL);
        return;
    }
    const char *indent = "";
    if (several && !joint && !bare(o)) {
        put_source_line(b, src, 200);
        cli_buf_puts(b, "\n");
        indent = "  ";
    }
    cli_buf_printf(b, "%serror: %s [%s]\n", indent, msg, ad_err_tag(d->cls));
}

/* ---- tabular: --format tsv and the rows of batch mode ---- */

/* the verdicts of a point, a field each, sep before each: --check's,
 * then --expect's (pass or FAIL; nan for a point that failed, a NULL) */
static void verdicts(cli_buf *b, const cli_options *o, const cli_answer *a, char sep)
{
    if (o->check) cli_buf_printf(b, "%c%s", sep, !a ? "nan" : a->chk->failed ? "FAIL" : "pass");
    if (o->nexpect)
        cli_buf_printf(b, "%c%s", sep, !a ? "nan" : a->exp->failed ? "FAIL" : "pass");
}

/* the n numbers of v (each nan when v is NULL), each after sep but the
 * first when first: the fields of a row and of tsv lines */
static void numbers(cli_buf *b, const cli_options *o, const double *v, size_t n, char sep, int first)
{
    for (size_t i = 0; i < n; i++) {
        if (i || !first) cli_buf_putc(b, sep);
        cli_buf_number(b, v ? v[i] : NAN, o->precision);
    }
}

void cli_print_row(cli_buf *b, const cli_options *o, const ad_layout *L, const double *row, char sep, const cli_answer *a)
{
    numbers(b, o, row, L->width, sep, 1);
    numbers(b, o, a ? a->sigma : NULL, cli_sigma_fields(o) * L->m, sep, 0);
    verdicts(b, o, a, sep);
    cli_buf_putc(b, '\n');
}

void cli_print_text_field(cli_buf *b, const char *s, size_t n, char sep)
{
    /* quoted when it would not read back: a separator, quote or line end
     * in it, blanks around it (they would be trimmed), or a leading '#'
     * (a comment line when it is the first field) */
    int quote = n && (s[0] == ' ' || s[0] == '\t' || s[0] == '#' || s[n - 1] == ' ' || s[n - 1] == '\t');
    for (size_t i = 0; i < n && !quote; i++) quote = s[i] == sep || s[i] == '"' || s[i] == '\n' || s[i] == '\r';
    if (!quote) {
        cli_buf_put(b, s, n);
        return;
    }
    cli_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') cli_buf_putc(b, '"');
        cli_buf_putc(b, s[i]);
    }
    cli_buf_putc(b, '"');
}

/* the name of derivative column i */
static const char *column(const cli_columns *c, size_t i) { return c->plan ? ad_plan_column(c->plan, i) : c->names[i]; }

/* the names of one output's fields (a sep before each, but before the
 * very first of the line), suffix after each */
static void field_names(cli_buf *b, const ad_layout *L, const cli_columns *c, const char *suffix, char sep, int first)
{
    if (!first) cli_buf_putc(b, sep);
    cli_buf_printf(b, "value%s", suffix);
    for (size_t j = 0; L->grad != AD_ABSENT && j < L->ncols; j++)
        cli_buf_printf(b, "%cd/d%s%s", sep, column(c, j), suffix);
    if (L->jvp != AD_ABSENT) cli_buf_printf(b, "%cjvp%s", sep, suffix);
    for (size_t j = 0; L->hvp != AD_ABSENT && j < L->ncols; j++)
        cli_buf_printf(b, "%chvp[%s]%s", sep, column(c, j), suffix);
    for (size_t i = 0; L->hessian != AD_ABSENT && i < L->ncols; i++)
        for (size_t j = 0; j < L->ncols; j++)
            cli_buf_printf(b, "%cd2/d%sd%s%s", sep, column(c, i), column(c, j), suffix);
    for (size_t k = 0; k < L->order; k++) cli_buf_printf(b, "%cf^(%zu)%s", sep, k + 1, suffix);
}

/* the names of an output's --sigma figures, a sep before each, suffix
 * after each */
static void sigma_names(cli_buf *b, const cli_options *o, const char *suffix, char sep)
{
    static const char *const name[] = {"sigma", "sigma2"};
    for (size_t k = 0; k < cli_sigma_fields(o); k++) cli_buf_printf(b, "%c%s%s", sep, name[k], suffix);
}

/* the suffix of output r's fields: none for one output, else "#N", or
 * "#N[K]" for element K of expression N's vector value (shape.h) */
static const char *output_suffix(const cli_columns *c, const ad_layout *L, size_t r, char *buf, size_t n)
{
    char lab[48];
    if (L->m > 1 || cli_has_vector_value(c->tape)) snprintf(buf, n, "#%s", cli_output_label(c->tape, L->m, r, lab, sizeof lab));
    else snprintf(buf, n, "%s", "");
    return buf;
}

void cli_print_header(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_columns *c, char sep)
{
    char suffix[64];
    for (size_t r = 0; r < L->m; r++) field_names(b, L, c, output_suffix(c, L, r, suffix, sizeof suffix), sep, r == 0);
    for (size_t r = 0; r < L->m; r++) sigma_names(b, o, output_suffix(c, L, r, suffix, sizeof suffix), sep);
    if (o->check) cli_buf_printf(b, "%ccheck", sep);
    if (o->nexpect) cli_buf_printf(b, "%cexpect", sep);
    cli_buf_putc(b, '\n');
}

void cli_print_tsv_header(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_columns *c)
{
    field_names(b, L, c, "", '\t', 1);
    sigma_names(b, o, "", '\t');
    if (o->check) cli_buf_puts(b, "\tcheck");
    if (o->nexpect) cli_buf_puts(b, "\texpect");
    cli_buf_putc(b, '\n');
}

/* one line per output: its fields (of a's row, or nan for all when a is
 * NULL), and the verdicts; then w^T J on a line of its own */
static void tsv_lines(cli_buf *b, const cli_options *o, const ad_layout *L, const cli_answer *a)
{
    const double *row = a ? a->row : NULL, *sigma = a ? a->sigma : NULL;
    size_t ns = cli_sigma_fields(o);
    for (size_t r = 0; r < L->m; r++) {
        numbers(b, o, row ? row + r * L->per_out : NULL, L->per_out, '\t', 1);
        numbers(b, o, sigma ? sigma + r * ns : NULL, ns, '\t', 0);
        verdicts(b, o, a, '\t');
        cli_buf_putc(b, '\n');
    }
    if (L->vjp != AD_ABSENT) {
        numbers(b, o, row ? row + L->vjp : NULL, L->ncols, '\t', 1);
        cli_buf_putc(b, '\n');
    }
}

void cli_print_tsv(cli_buf *b, const cli_options *o, const cli_answer *a)
{
    tsv_lines(b, o, ad_plan_layout(a->plan), a);
}

