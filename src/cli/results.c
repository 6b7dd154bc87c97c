/* results.c - printing results: text laid out for people (labelled lines,
 * aligned '=' signs, labelled matrices) or JSON Lines for programs, for one
 * expression at a time or for the joint outputs of --jacobian/--adjoint. */
#include <math.h>
#include <string.h>
#include "output.h"
#include "numfmt.h"

/* ---- JSON ---- */

static void jnum(FILE *f, double x, int prec)
{
    char num[40];
    fputs(ad_fmt_json_number(num, sizeof num, x, prec), f);
}

/* a number, or null where there is none (nan marks it) */
static void jnum_or_null(FILE *f, double x, int prec)
{
    if (isnan(x)) fputs("null", f);
    else jnum(f, x, prec);
}

static void jstr(FILE *f, const char *s) { adi_fput_json_string(f, s, strlen(s)); }

static void jarray(FILE *f, const double *v, size_t n, int prec)
{
    putc('[', f);
    for (size_t i = 0; i < n; i++) {
        if (i) fputs(", ", f);
        jnum(f, v[i], prec);
    }
    putc(']', f);
}

static void jobject(FILE *f, const cli_cols *c, const double *v, int prec)
{
    putc('{', f);
    for (size_t i = 0; i < c->n; i++) {
        if (i) fputs(", ", f);
        jstr(f, c->names[i]);
        fputs(": ", f);
        jnum(f, v[i], prec);
    }
    putc('}', f);
}

static void jnames(FILE *f, const cli_cols *c)
{
    putc('[', f);
    for (size_t i = 0; i < c->n; i++) {
        if (i) fputs(", ", f);
        jstr(f, c->names[i]);
    }
    putc(']', f);
}

static void jmatrix(FILE *f, const double *m, size_t rows, size_t cols, int prec)
{
    putc('[', f);
    for (size_t r = 0; r < rows; r++) {
        if (r) fputs(", ", f);
        jarray(f, m + r * cols, cols, prec);
    }
    putc(']', f);
}

static void json_check(FILE *f, const cli_options *o, const cli_result *r)
{
    int p = o->precision;
    fputs(", \"check\": {\"step_scale\": ", f);   /* the shortest form, like every number */
    jnum(f, o->step_scale, 0);
    fputs(", \"rtol\": ", f);
    jnum(f, o->rtol, 0);
    fputs(", \"atol\": ", f);
    jnum(f, o->atol, 0);
    fputs(", \"components\": [", f);
    for (size_t i = 0; i < r->cols.n; i++) {
        const ad_check_item *it = &r->check[i];
        fputs(i ? ", {\"var\": " : "{\"var\": ", f);
        jstr(f, r->cols.names[i]);
        fputs(", \"ad\": ", f);
        jnum(f, it->ad, p);
        fputs(", \"fd\": ", f);
        jnum_or_null(f, it->fd, p);
        fputs(", \"fd_refined\": ", f);
        jnum_or_null(f, it->refined, p);
        fputs(", \"diff\": ", f);
        jnum_or_null(f, it->diff, p);
        fputs(", \"h\": ", f);
        jnum(f, it->h, 0);
        fputs(", \"status\": ", f);
        jstr(f, ad_check_status_name(it->status));
        putc('}', f);
    }
    fputs("], \"forward_reverse_max_rel_diff\": ", f);
    jnum(f, r->fwd_rev, 0);
    fprintf(f, ", \"pass\": %s}", r->check_failed ? "false" : "true");
}

static void json_result(FILE *f, const cli_options *o, const cli_source *s, const cli_result *r)
{
    int p = o->precision;
    fputs("{\"expr\": ", f);
    adi_fput_json_string(f, s->src, s->len);
    fputs(", \"value\": ", f);
    jnum(f, r->value, p);
    if (r->has_grad) {
        fputs(", \"gradient\": ", f);
        jobject(f, &r->cols, r->grad, p);
    }
    if (r->has_jvp) {
        fputs(", \"jvp\": ", f);
        jnum(f, r->jvp, p);
    }
    if (r->has_hessian) {
        fputs(", \"hessian\": ", f);
        jmatrix(f, r->hessian, r->cols.n, r->cols.n, p);
    }
    if (r->has_hvp) {
        fputs(", \"hvp\": ", f);
        jarray(f, r->hvp, r->cols.n, p);
    }
    if (r->order) {
        fputs(", \"derivatives\": ", f);
        jarray(f, r->derivs, (size_t)r->order, p);
    }
    if (r->has_check) json_check(f, o, r);
    if (r->has_hessian || r->has_hvp) {
        /* the variables the rows and columns of "hessian" and "hvp" stand for */
        fputs(", \"vars\": ", f);
        jnames(f, &r->cols);
    }
    fputs("}\n", f);
}

/* ---- text ---- */

/* Text output never allocates, so that it cannot lose a line when memory
 * runs short: widths are measured in a first pass, then printed. */

/* the i-th "label = number" line of a result; 0 past the last */
static int result_line(const cli_result *r, size_t i, char *label, size_t n, double *v)
{
    size_t nc = r->cols.n;
    if (i-- == 0) { snprintf(label, n, "value"); *v = r->value; return 1; }
    if (r->has_grad) {
        if (i < nc) { snprintf(label, n, "d/d%.40s", r->cols.names[i]); *v = r->grad[i]; return 1; }
        i -= nc;
    }
    if (r->has_jvp) {
        if (i-- == 0) { snprintf(label, n, "jvp"); *v = r->jvp; return 1; }
    }
    if (i < (size_t)r->order) { snprintf(label, n, "f^(%zu)", i + 1); *v = r->derivs[i]; return 1; }
    i -= (size_t)r->order;
    if (r->has_hvp && i < nc) { snprintf(label, n, "hvp[%.40s]", r->cols.names[i]); *v = r->hvp[i]; return 1; }
    return 0;
}

static void result_lines(FILE *f, const cli_result *r, const char *indent, int prec)
{
    char label[64], num[40];
    double v;
    size_t w = 0;
    for (size_t i = 0; result_line(r, i, label, sizeof label, &v); i++)
        if (strlen(label) > w) w = strlen(label);
    for (size_t i = 0; result_line(r, i, label, sizeof label, &v); i++)
        fprintf(f, "%s%-*s = %s\n", indent, (int)w, label, ad_fmt_number(num, sizeof num, v, prec));
}

/* the label of row or column i: prefix + names[i], or "f<i+1>" without names */
static const char *rc_label(char *buf, size_t n, const char *prefix, const char *const *names, size_t i)
{
    if (names) snprintf(buf, n, "%s%.40s", prefix, names[i]);
    else snprintf(buf, n, "%sf%zu", prefix, i + 1);
    return buf;
}

/* a labelled matrix: corner and column labels, then one labelled row each;
 * all columns one width */
static void matrix(FILE *f, const char *indent, const char *corner, const char *rowprefix,
                   const char *const *rowl, const char *const *coll, const char *colprefix,
                   const double *m, size_t rows, size_t cols, int prec)
{
    char num[40], lab[64];
    size_t w0 = strlen(corner), w = 0;
    for (size_t r = 0; r < rows; r++)
        if (strlen(rc_label(lab, sizeof lab, rowprefix, rowl, r)) > w0) w0 = strlen(lab);
    for (size_t c = 0; c < cols; c++)
        if (strlen(rc_label(lab, sizeof lab, colprefix, coll, c)) > w) w = strlen(lab);
    for (size_t i = 0; i < rows * cols; i++)
        if (strlen(ad_fmt_number(num, sizeof num, m[i], prec)) > w) w = strlen(num);
    fprintf(f, "%s%-*s", indent, (int)w0, corner);
    for (size_t c = 0; c < cols; c++)
        fprintf(f, "  %*s", (int)w, rc_label(lab, sizeof lab, colprefix, coll, c));
    fputs("\n", f);
    for (size_t r = 0; r < rows; r++) {
        fprintf(f, "%s%-*s", indent, (int)w0, rc_label(lab, sizeof lab, rowprefix, rowl, r));
        for (size_t c = 0; c < cols; c++)
            fprintf(f, "  %*s", (int)w, ad_fmt_number(num, sizeof num, m[r * cols + c], prec));
        fputs("\n", f);
    }
}

/* "label = number" lines for a vector labelled like matrix rows */
static void vector(FILE *f, const char *prefix, const char *const *names, const double *v, size_t n,
                   int prec)
{
    char num[40], lab[64];
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (strlen(rc_label(lab, sizeof lab, prefix, names, i)) > w) w = strlen(lab);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%-*s = %s\n", (int)w, rc_label(lab, sizeof lab, prefix, names, i),
                ad_fmt_number(num, sizeof num, v[i], prec));
}

/* "x*y+sin(x)" as a one-line header: newlines shown as spaces, long text cut */
static void put_source_line(FILE *f, const cli_source *s, size_t max)
{
    size_t len = s->len;
    while (len > 0 && strchr(" \n\t\r", s->src[len - 1])) len--;
    for (size_t i = 0; i < len && i < max; i++) {
        unsigned char c = (unsigned char)s->src[i];
        putc(c == '\n' || c == '\t' || c == '\r' ? ' ' : (c < 32 || c >= 127 ? '?' : c), f);
    }
    if (len > max) fputs("...", f);
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

static void text_check(FILE *f, const cli_options *o, const cli_result *r, const char *indent)
{
    char a[40], b[40], c[40];
    size_t wn = 3, wa = 2, wf = 2;
    for (size_t i = 0; i < r->cols.n; i++) {
        if (strlen(r->cols.names[i]) > wn) wn = strlen(r->cols.names[i]);
        if (strlen(ad_fmt_number(a, sizeof a, r->check[i].ad, o->precision)) > wa) wa = strlen(a);
        if (strlen(fd_text(b, sizeof b, r->check[i].fd, o->precision)) > wf) wf = strlen(b);
    }
    char s1[40], s2[40], s3[40];
    fprintf(f, "\n%sgradient check: central differences, h = %s*sqrt(eps)*max(1,|x|); "
               "pass when |ad - fd| <= %s + %s*|ad|\n", indent, adi_fmt_double(s1, sizeof s1, o->step_scale),
            adi_fmt_double(s2, sizeof s2, o->atol), adi_fmt_double(s3, sizeof s3, o->rtol));
    fprintf(f, "%s%-*s  %-*s  %-*s  %-9s  %s\n", indent, (int)wn, "var", (int)wa, "ad", (int)wf, "fd",
            "|ad - fd|", "status");
    for (size_t i = 0; i < r->cols.n; i++) {
        const ad_check_item *it = &r->check[i];
        if (isnan(it->diff)) snprintf(c, sizeof c, "-");
        else snprintf(c, sizeof c, "%.2g", it->diff);
        fprintf(f, "%s%-*s  %*s  %*s  %9s  %s", indent, (int)wn, r->cols.names[i],
                (int)wa, ad_fmt_number(a, sizeof a, it->ad, o->precision),
                (int)wf, fd_text(b, sizeof b, it->fd, o->precision), c,
                ad_check_status_name(it->status));
        if (it->status == AD_CHECK_PASS && it->refined != it->fd)
            fprintf(f, " (with a refined difference %s)", ad_fmt_number(b, sizeof b, it->refined, o->precision));
        else if (it->status == AD_CHECK_FD_UNRELIABLE)
            fprintf(f, " (difference quotients disagree; best %s)", ad_fmt_number(b, sizeof b, it->refined, o->precision));
        else if (it->status == AD_CHECK_KINK)
            fputs(" (the stencil crosses a kink; no verdict)", f);
        else if (it->status == AD_CHECK_FD_UNDEFINED)
            fputs(" (the stencil leaves the domain; no verdict)", f);
        fputs("\n", f);
    }
    fprintf(f, "%sforward vs reverse: largest relative difference %.2g (%s)\n", indent, r->fwd_rev,
            r->fwd_rev > AD_FWD_REV_TOL ? "FAIL" : "pass");
    fprintf(f, "%sresult: %s\n", indent, r->check_failed ? "FAIL" : "pass");
}

void cli_print_result(FILE *f, const cli_options *o, const cli_source *s, const cli_result *r, int several)
{
    if (o->format == CLI_FMT_JSON) {
        json_result(f, o, s, r);
        return;
    }
    char num[40];
    int p = o->precision;
    if (!r->has_grad && !r->has_jvp && !r->order && !r->has_hessian && !r->has_hvp && !r->has_check) {
        /* a bare value, as bc prints it */
        fprintf(f, "%s\n", ad_fmt_number(num, sizeof num, r->value, p));
        return;
    }
    const char *indent = several ? "  " : "";
    if (several) {
        put_source_line(f, s, 200);
        fputs("\n", f);
    }
    result_lines(f, r, indent, p);
    if (r->has_hessian) {
        fputs("\n", f);
        matrix(f, indent, "hessian", "d/d", r->cols.names, r->cols.names, "d/d", r->hessian,
               r->cols.n, r->cols.n, p);
    }
    if (r->has_check) text_check(f, o, r, indent);
}

void cli_print_joint(FILE *f, const cli_options *o, const cli_joint *J)
{
    int p = o->precision;
    if (o->format == CLI_FMT_JSON) {
        fputs("{\"exprs\": [", f);
        for (size_t r = 0; r < J->m; r++) {
            if (r) fputs(", ", f);
            adi_fput_json_string(f, o->src[r].src, o->src[r].len);
        }
        fputs("], \"values\": ", f);
        jarray(f, J->values, J->m, p);
        if (J->has_jac) {
            fputs(", \"jacobian\": ", f);
            jmatrix(f, J->jac, J->m, J->cols.n, p);
        }
        if (J->has_vjp) {
            fputs(", \"vjp\": ", f);
            jobject(f, &J->cols, J->vjp, p);
        }
        if (J->has_jvp) {
            fputs(", \"jvp\": ", f);
            jarray(f, J->jvp, J->m, p);
        }
        /* the variables the columns of "jacobian" stand for */
        fputs(", \"vars\": ", f);
        jnames(f, &J->cols);
        fputs("}\n", f);
        return;
    }
    char num[40];
    size_t wv = 0, wl = strlen(rc_label(num, sizeof num, "", NULL, J->m - 1));
    for (size_t r = 0; r < J->m; r++)
        if (strlen(ad_fmt_number(num, sizeof num, J->values[r], p)) > wv) wv = strlen(num);
    /* f1 = value   # the expression */
    for (size_t r = 0; r < J->m; r++) {
        char lab[32];
        fprintf(f, "%-*s = %-*s  # ", (int)wl, rc_label(lab, sizeof lab, "", NULL, r), (int)wv,
                ad_fmt_number(num, sizeof num, J->values[r], p));
        put_source_line(f, &o->src[r], 60);
        fputs("\n", f);
    }
    if (J->has_jac) {
        fputs("\n", f);
        matrix(f, "", "jacobian", "", NULL, J->cols.names, "d/d", J->jac, J->m, J->cols.n, p);
    }
    if (J->has_vjp) {
        fputs("\nvjp (the weighted sum of the rows, w^T J)\n", f);
        vector(f, "d/d", J->cols.names, J->vjp, J->cols.n, p);
    }
    if (J->has_jvp) {
        fputs("\njvp (J v along the seed)\n", f);
        vector(f, "", NULL, J->jvp, J->m, p);
    }
}
