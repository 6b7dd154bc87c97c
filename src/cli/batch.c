/* batch.c - batch mode (--points): the expressions are parsed and recorded
 * once; every input row is one point, replayed on the tape with no
 * allocation per point, and gets one output row in input order (or an
 * error naming its line, with --on-error stop|skip|nan).
 *
 * Input is read in chunks of whole lines (or binary rows); with -j N,
 * N threads each read the next chunk, parse, compute and format it with
 * their own workspace on the one shared read-only tape, and write it when
 * the chunks before it are written, so reading and writing overlap the
 * computing and the output is in input order.  Stateless row in, row out, so the input can be split and
 * the outputs concatenated (parallel --pipe, xargs, streaming jobs). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "batch.h"
#include "run.h"
#include "adcalc.h"
#include "numfmt.h"
#include "output.h"
#include "ops.h"
#include "alloc.h"

#define CHUNK_BYTES (1 << 20)     /* text read per chunk */
#define CHUNK_ROWS 8192           /* binary rows per chunk */

/* what every row computes, fixed before the first row */
typedef struct {
    const cli_options *o;
    ad_tape *t;
    size_t m;                 /* outputs */
    size_t ni;                /* tape inputs */
    size_t ncol;              /* columns of a point */
    char **colnames;          /* their names */
    long *col_of_input;       /* tape input -> column, or -1 (then fixed) */
    double *fixed;            /* tape input -> value when not a column (-at) */
    size_t nd;                /* derivative variables */
    const char **dnames;
    long *d_input;            /* derivative variable -> tape input, or -1 */
    unsigned char *diff;      /* differentiated tape inputs */
    double *seed;             /* --seed direction on the tape inputs, or NULL */
    unsigned char *seeddiff;
    int grad, hess;
    int hvp;                  /* --hessian with --seed: H v instead of H */
    unsigned char *hvpdiff;   /* differentiated inputs for H v */
    size_t per_out;           /* numbers per output: value, grad, jvp, hessian */
    size_t width;             /* numbers per row: m * per_out */
    char sep;                 /* output separator */
    const char *name;         /* the input's name for diagnostics */
} plan;

/* a row that failed */
typedef struct {
    long line;
    ad_errclass cls;
    char msg[480];
} rowerr;

/* one chunk of input and what became of it */
typedef struct {
    const plan *P;
    char *in;                 /* text: whole lines; binary: rows of doubles */
    size_t inlen;
    long first_line;          /* line (or row) number of its first row */
    char *out;                /* formatted output */
    size_t outlen, outcap;
    rowerr *err;              /* errors, in order */
    size_t nerr, errcap;
    int stopped;              /* --on-error stop hit an error here */
    size_t cut;               /* binary: bytes of a last row cut short */
    size_t rows;
    /* per-thread workspace, kept across chunks */
    ad_work *w;
    double *x, *res, *g, *hs, *seeds, *wout, *fo;
    /* the block replay: points waiting, their lines, results, flags */
    ad_block *bk;
    size_t B, pending;
    double *bx, *bout;
    long *bline;
    unsigned char *bflag;
} chunk;

static int put(chunk *c, const void *s, size_t n)
{
    if (adi_grow((void **)&c->out, &c->outcap, c->outlen + n + 1, 1) < 0) return -1;
    memcpy(c->out + c->outlen, s, n);
    c->outlen += n;
    return 0;
}

static void add_err(chunk *c, long line, ad_errclass cls, const char *fmt, const char *detail)
{
    if (adi_grow((void **)&c->err, &c->errcap, c->nerr + 1, sizeof *c->err) < 0) return;
    rowerr *e = &c->err[c->nerr++];
    e->line = line;
    e->cls = cls;
    snprintf(e->msg, sizeof e->msg, fmt, detail);
}

/* ---- one point ---- */

/* computes row x (the point's columns) into res[width]; 0, or an error
 * class with d filled */
static ad_errclass compute(const plan *P, chunk *c, const double *cols, ad_diag *d)
{
    double *x = c->x, *res = c->res;
    for (size_t i = 0; i < P->ni; i++)
        x[i] = P->col_of_input[i] >= 0 ? cols[P->col_of_input[i]] : P->fixed[i];
    ad_errclass e = ad_eval(P->t, c->w, x, d);
    if (e) return e;
    size_t nd = P->nd, k = 0;
    for (size_t r = 0; r < P->m; r++) res[r * P->per_out] = ad_output_value(P->t, c->w, r);
    if (P->grad && P->o->mode == AD_MODE_FORWARD) {
        /* one forward sweep of width k over the derivative variables */
        size_t kk = 0;
        for (size_t j = 0; j < nd; j++) kk += P->d_input[j] >= 0;
        if ((e = ad_forward(P->t, c->w, x, P->diff, c->seeds, kk, P->o->policy, c->fo, d))) return e;
        for (size_t r = 0; r < P->m; r++)
            for (size_t j = 0, col = 0; j < nd; j++)
                res[r * P->per_out + 1 + j] = P->d_input[j] >= 0 ? c->fo[r * kk + col++] : 0;
        k = nd;
    } else if (P->grad) {
        for (size_t r = 0; r < P->m; r++) {
            for (size_t q = 0; q < P->m; q++) c->wout[q] = q == r;
            if ((e = ad_reverse_outputs(P->t, c->w, P->diff, P->o->policy, c->wout, c->g, d))) return e;
            for (size_t j = 0; j < nd; j++)
                res[r * P->per_out + 1 + j] = P->d_input[j] >= 0 ? c->g[P->d_input[j]] : 0;
        }
        k = nd;
    }
    if (P->hvp) {
        /* H v along the seed, one pass of width 1 */
        if ((e = ad_hessian(P->t, c->w, x, P->hvpdiff, P->seed, 1, P->o->policy, c->g, c->hs, d))) return e;
        for (size_t a = 0; a < nd; a++) res[1 + k + a] = P->d_input[a] >= 0 ? c->hs[P->d_input[a]] : 0;
        return AD_E_NONE;
    }
    if (P->seed) {
        double *jv = c->wout;   /* m numbers */
        if ((e = ad_forward(P->t, c->w, x, P->seeddiff, P->seed, 1, P->o->policy, jv, d))) return e;
        for (size_t r = 0; r < P->m; r++) res[r * P->per_out + 1 + k] = jv[r] + 0.0;
        k++;
    }
    if (P->hess) {
        /* one output (checked): the Hessian over the derivative variables */
        size_t kk = 0;
        for (size_t j = 0; j < nd; j++) kk += P->d_input[j] >= 0;
        if ((e = ad_hessian(P->t, c->w, x, P->diff, c->seeds, kk, P->o->policy, c->g, c->hs, d))) return e;
        for (size_t a = 0; a < nd; a++)
            for (size_t b = 0, col = 0; b < nd; b++) {
                double h = 0;
                if (P->d_input[b] >= 0) {
                    if (P->d_input[a] >= 0) h = c->hs[(size_t)P->d_input[a] * kk + col];
                    col++;
                }
                res[1 + k + a * nd + b] = h;
            }
        if (!P->grad) { /* the gradient is not asked for: nothing else to copy */ }
    }
    return AD_E_NONE;
}

/* ---- formatting ---- */

static void fmt_text_row(const plan *P, chunk *c, const double *res)
{
    char num[40];
    for (size_t i = 0; i < P->width; i++) {
        if (i) put(c, &P->sep, 1);
        ad_fmt_number(num, sizeof num, res[i], P->o->precision);
        put(c, num, strlen(num));
    }
    put(c, "\n", 1);
}

static void put_json_num(chunk *c, double x, int prec)
{
    char num[40];
    ad_fmt_json_number(num, sizeof num, x, prec);
    put(c, num, strlen(num));
}

static void put_json_str(chunk *c, const char *s, size_t n)
{
    /* the names are identifiers and the expressions are escaped once, in plan */
    put(c, s, n);
}

static void fmt_json_row(const plan *P, chunk *c, const double *res, long line, const char *exprs_json)
{
    int p = P->o->precision;
    char buf[64];
    snprintf(buf, sizeof buf, "{\"line\": %ld, ", line);
    put(c, buf, strlen(buf));
    size_t nd = P->nd;
    if (P->m == 1) {
        put(c, "\"expr\": ", 8);
        put_json_str(c, exprs_json, strlen(exprs_json));
        put(c, ", \"value\": ", 11);
        put_json_num(c, res[0], p);
        size_t k = 1;
        if (P->grad) {
            put(c, ", \"gradient\": {", 15);
            for (size_t j = 0; j < nd; j++) {
                if (j) put(c, ", ", 2);
                put(c, "\"", 1);
                put(c, P->dnames[j], strlen(P->dnames[j]));
                put(c, "\": ", 3);
                put_json_num(c, res[k + j], p);
            }
            put(c, "}", 1);
            k += nd;
        }
        if (P->hvp) {
            put(c, ", \"hvp\": [", 10);
            for (size_t a = 0; a < nd; a++) {
                if (a) put(c, ", ", 2);
                put_json_num(c, res[k + a], p);
            }
            put(c, "]", 1);
        } else if (P->seed) {
            put(c, ", \"jvp\": ", 9);
            put_json_num(c, res[k++], p);
        }
        if (P->hess && !P->hvp) {
            put(c, ", \"hessian\": [", 14);
            for (size_t a = 0; a < nd; a++) {
                put(c, a ? ", [" : "[", a ? 3 : 1);
                for (size_t b = 0; b < nd; b++) {
                    if (b) put(c, ", ", 2);
                    put_json_num(c, res[k + a * nd + b], p);
                }
                put(c, "]", 1);
            }
            put(c, "]", 1);
        }
    } else {
        put(c, "\"exprs\": ", 9);
        put_json_str(c, exprs_json, strlen(exprs_json));
        put(c, ", \"values\": [", 13);
        for (size_t r = 0; r < P->m; r++) {
            if (r) put(c, ", ", 2);
            put_json_num(c, res[r * P->per_out], p);
        }
        put(c, "]", 1);
        if (P->grad) {
            put(c, ", \"jacobian\": [", 15);
            for (size_t r = 0; r < P->m; r++) {
                put(c, r ? ", [" : "[", r ? 3 : 1);
                for (size_t j = 0; j < nd; j++) {
                    if (j) put(c, ", ", 2);
                    put_json_num(c, res[r * P->per_out + 1 + j], p);
                }
                put(c, "]", 1);
            }
            put(c, "]", 1);
        }
        if (P->seed) {
            put(c, ", \"jvp\": [", 10);
            for (size_t r = 0; r < P->m; r++) {
                if (r) put(c, ", ", 2);
                put_json_num(c, res[r * P->per_out + 1 + (P->grad ? nd : 0)], p);
            }
            put(c, "]", 1);
        }
    }
    if (P->m > 1 ? P->grad : P->hess) {   /* as single-point mode: with hessian or hvp */
        put(c, ", \"vars\": [", 11);
        for (size_t j = 0; j < nd; j++) {
            if (j) put(c, ", ", 2);
            put(c, "\"", 1);
            put(c, P->dnames[j], strlen(P->dnames[j]));
            put(c, "\"", 1);
        }
        put(c, "]", 1);
    }
    put(c, "}\n", 2);
}

/* ---- the rows of a chunk ---- */

/* one row failed: record it, and emit its marked row */
static void row_failed(const plan *P, chunk *c, long line, ad_errclass cls, const char *msg,
                       const char *exprs_json)
{
    add_err(c, line, cls, "%s", msg);
    if (P->o->on_error == CLI_ON_ERROR_STOP) {
        c->stopped = 1;
        return;
    }
    if (P->o->on_error == CLI_ON_ERROR_NAN) {
        for (size_t i = 0; i < P->width; i++) c->res[i] = NAN;
        if (P->o->binary) put(c, c->res, P->width * sizeof *c->res);
        else if (P->o->format == CLI_FMT_JSON) fmt_json_row(P, c, c->res, line, exprs_json);
        else fmt_text_row(P, c, c->res);
    }
}

static void emit(const plan *P, chunk *c, const double *res, long line, const char *exprs_json)
{
    c->rows++;
    if (P->o->binary) put(c, res, P->width * sizeof *res);
    else if (P->o->format == CLI_FMT_JSON) fmt_json_row(P, c, res, line, exprs_json);
    else fmt_text_row(P, c, res);
}

static void eval_row(const plan *P, chunk *c, const double *cols, long line, const char *exprs_json);

/* runs the points waiting in the block, then emits them in order; a point
 * the block flagged goes through the scalar engines instead */
static void flush_block(const plan *P, chunk *c, const char *exprs_json)
{
    size_t np = c->pending;
    if (!np) return;
    c->pending = 0;
    if (ad_block_run(P->t, c->bk, P->diff, P->grad, np, c->bx, P->d_input, P->nd, c->bout, P->width,
                     c->bflag) < 0) {
        add_err(c, c->bline[0], AD_E_IO, "%s", "out of memory");
        c->stopped = 1;
        return;
    }
    for (size_t j = 0; j < np && !c->stopped; j++) {
        if (c->bflag[j]) {
            /* the point's columns, back from its tape inputs */
            double cols_buf[64], *cols = P->ncol <= 64 ? cols_buf : adi_malloc(P->ncol * sizeof *cols);
            if (!cols) { c->stopped = 1; return; }
            for (size_t i = 0; i < P->ni; i++)
                if (P->col_of_input[i] >= 0) cols[P->col_of_input[i]] = c->bx[j * P->ni + i];
            eval_row(P, c, cols, c->bline[j], exprs_json);
            if (cols != cols_buf) free(cols);
        } else {
            emit(P, c, c->bout + j * P->width, c->bline[j], exprs_json);
        }
    }
}

/* a point for the block (or, for what the block does not do, the scalar
 * engines right away) */
static void add_point(const plan *P, chunk *c, const double *cols, long line, const char *exprs_json)
{
    if (!c->bk) {
        eval_row(P, c, cols, line, exprs_json);
        return;
    }
    double *x = c->bx + c->pending * P->ni;
    for (size_t i = 0; i < P->ni; i++)
        x[i] = P->col_of_input[i] >= 0 ? cols[P->col_of_input[i]] : P->fixed[i];
    c->bline[c->pending++] = line;
    if (c->pending == c->B) flush_block(P, c, exprs_json);
}

static void eval_row(const plan *P, chunk *c, const double *cols, long line, const char *exprs_json)
{
    ad_diag d;
    ad_errclass e = compute(P, c, cols, &d);
    if (e) {
        char msg[480];
        if (d.line > 0)
            snprintf(msg, sizeof msg, "%s (at %s:%d:%d)", d.msg, P->o->src[d.src].name, d.line, d.col);
        else
            snprintf(msg, sizeof msg, "%s", d.msg);
        row_failed(P, c, line, e, msg, exprs_json);
        return;
    }
    emit(P, c, c->res, line, exprs_json);
}

/* splits one text line into numbers; -1 with a message on a bad row */
static int blank(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

/* splits one text line into numbers; -1 with a message on a bad row.  With
 * a comma or tab separator, blanks may surround a value but not separate
 * two; with blanks, any run of them separates. */
static int parse_line(const plan *P, char *s, size_t n, double *cols, char *why, size_t whyn)
{
    const char sep = P->sep;
    size_t k = 0, i = 0;
    /* the blanks that may surround a value (with blanks as separator: all) */
#define SKIP() while (i < n && blank(s[i]) && (sep == ' ' || s[i] != sep)) i++
    SKIP();
    for (;;) {
        if (k == P->ncol) {
            snprintf(why, whyn, "more than %zu columns", P->ncol);
            return -1;
        }
        size_t b = i;
        while (i < n && !blank(s[i]) && s[i] != ',') i++;
        const char *e;
        if (i == b) {
            snprintf(why, whyn, "an empty column %zu", k + 1);
            return -1;
        }
        if (cli_parse_number(s + b, i - b, &cols[k], &e) < 0) {
            snprintf(why, whyn, "column %zu (%s): '%.*s' %s", k + 1, P->colnames[k],
                     (int)(i - b > 40 ? 40 : i - b), s + b, e);
            return -1;
        }
        k++;
        SKIP();
        if (i >= n) break;
        if (sep == ' ') {
            if (s[i] == ',') {
                snprintf(why, whyn, "a ',' where the separator is a space");
                return -1;
            }
            continue;   /* blanks were the separator */
        }
        if (s[i] != sep) {
            snprintf(why, whyn, s[i] == ',' ? "a ',' where the separator is a tab"
                                            : "a blank where the separator is '%s'",
                     sep == ',' ? "," : "\\t");
            return -1;
        }
        i++;
        SKIP();
    }
#undef SKIP
    if (k != P->ncol) {
        snprintf(why, whyn, "%zu column%s where %zu are expected", k, k == 1 ? "" : "s", P->ncol);
        return -1;
    }
    return 0;
}

/* 1 when the n doubles at p are all finite.  A double is inf or nan when
 * its exponent bits are all ones, and then adding 1 to the exponent field
 * carries into the sign bit: integer and/add/or, which vectorise. */
static int all_finite(const char *p, size_t n)
{
    uint64_t acc = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t u;
        memcpy(&u, p + k * sizeof u, sizeof u);
        acc |= (u & UINT64_C(0x7ff0000000000000)) + UINT64_C(0x0010000000000000);
    }
    return !(acc >> 63);
}

/* Binary rows straight through the block: the rows from c->in at row r
 * are replayed where they lie, and the results written where they go in
 * c->out (rows of doubles, in order), block after block, up to the first
 * row with a value that is not finite.  A row the block flags goes
 * through the scalar engines (eval_row, which writes its row, a nan row or
 * nothing in the same place), and the rows after it move up behind it.
 * Returns how many rows it took. */
static size_t binary_rows(const plan *P, chunk *c, size_t r, size_t avail, const char *exprs_json)
{
    const size_t ncol = P->ncol, rowbytes = ncol * sizeof(double), W = P->width * sizeof(double);
    size_t taken = 0;
    while (taken < avail && !c->stopped) {
        size_t np = avail - taken < c->B ? avail - taken : c->B, ok = 0;
        const char *in = c->in + (r + taken) * rowbytes;
        if (all_finite(in, np * ncol)) ok = np;
        for (; ok < np; ok++) {
            double v[64];
            int bad = 0;
            for (size_t k = 0; k < ncol; k += 64) {
                size_t n = ncol - k < 64 ? ncol - k : 64;
                memcpy(v, in + ok * rowbytes + k * sizeof(double), n * sizeof(double));
                for (size_t q = 0; q < n; q++) bad |= !isfinite(v[q]);
            }
            if (bad) break;
        }
        if (!ok) break;
        size_t base = c->outlen;
        if (adi_grow((void **)&c->out, &c->outcap, base + ok * W + 1, 1) < 0 ||
            ad_block_run_rows(P->t, c->bk, P->diff, P->grad, ok, (const double *)in, ncol, P->col_of_input,
                              P->fixed, P->d_input, P->nd, (double *)(c->out + base), P->width, c->bflag) < 0) {
            add_err(c, c->first_line + (long)(r + taken), AD_E_IO, "%s", "out of memory");
            c->stopped = 1;
            break;
        }
        for (size_t j = 0; j < ok && !c->stopped; j++) {
            long line = c->first_line + (long)(r + taken + j);
            if (c->bflag[j]) {
                double cols_buf[64], *cols = ncol <= 64 ? cols_buf : adi_malloc(ncol * sizeof *cols);
                if (!cols) {
                    add_err(c, line, AD_E_IO, "%s", "out of memory");
                    c->stopped = 1;
                    break;
                }
                memcpy(cols, in + j * rowbytes, rowbytes);
                eval_row(P, c, cols, line, exprs_json);
                if (cols != cols_buf) free(cols);
                continue;
            }
            size_t at = base + j * W;
            if (at != c->outlen) memmove(c->out + c->outlen, c->out + at, W);
            c->outlen += W;
            c->rows++;
        }
        taken += ok;
        if (ok < np) break;
    }
    return taken;
}

static void run_chunk(chunk *c, const char *exprs_json)
{
    const plan *P = c->P;
    double cols_buf[64], *cols = P->ncol <= 64 ? cols_buf : adi_malloc(P->ncol * sizeof *cols);
    if (!cols) {
        add_err(c, c->first_line, AD_E_IO, "%s", "out of memory");
        c->stopped = 1;
        return;
    }
    if (P->o->binary) {
        size_t rowbytes = P->ncol * sizeof(double), nrows = c->inlen / rowbytes;
        for (size_t r = 0; r < nrows && !c->stopped; r++) {
            if (c->bk) {
                size_t done = binary_rows(P, c, r, nrows - r, exprs_json);
                r += done;
                if (done || c->stopped || r >= nrows) {
                    r--;   /* the loop's r++ */
                    continue;
                }
            }
            /* a row with a value that is not finite, or no block */
            memcpy(cols, c->in + r * rowbytes, rowbytes);
            int bad = 0;
            for (size_t k = 0; k < P->ncol; k++) bad |= !isfinite(cols[k]);
            if (bad) {
                flush_block(P, c, exprs_json);
                if (!c->stopped)
                    row_failed(P, c, c->first_line + (long)r, AD_E_SYNTAX, "a value that is not a finite number",
                               exprs_json);
                continue;
            }
            add_point(P, c, cols, c->first_line + (long)r, exprs_json);
        }
    } else {
        long line = c->first_line;
        char *s = c->in, *end = c->in + c->inlen;
        while (s < end && !c->stopped) {
            char *nl = memchr(s, '\n', (size_t)(end - s));
            size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
            /* blank lines and # comments are skipped */
            size_t i = 0;
            while (i < n && isspace((unsigned char)s[i])) i++;
            if (i < n && s[i] != '#') {
                char why[200];
                if (parse_line(P, s, n, cols, why, sizeof why) < 0) {
                    flush_block(P, c, exprs_json);
                    if (!c->stopped) row_failed(P, c, line, AD_E_SYNTAX, why, exprs_json);
                } else {
                    add_point(P, c, cols, line, exprs_json);
                }
            }
            line++;
            s += n + 1;
        }
    }
    if (!c->stopped) flush_block(P, c, exprs_json);
    c->pending = 0;
    if (P->o->binary && c->cut && !c->stopped) {
        char msg[120];
        snprintf(msg, sizeof msg, "the last row is cut short (%zu bytes of %zu)", c->cut, P->ncol * sizeof(double));
        row_failed(P, c, c->first_line + (long)(c->inlen / (P->ncol * sizeof(double))), AD_E_SYNTAX, msg,
                   exprs_json);
    }
    if (cols != cols_buf) free(cols);
}

/* ---- reading and writing chunks ---- */

/* where reading is: the next chunk's first line number, and the partial
 * last line of the chunk before (text) */
typedef struct {
    const cli_options *o;
    const plan *P;
    FILE *in;
    long next;
    char *carry;
    size_t carrylen;
    int eof;
} reader;

/* reads the next chunk into c; -1 when out of memory */
static int read_chunk(reader *R, chunk *c)
{
    const plan *P = R->P;
    FILE *in = R->in;
    c->outlen = c->nerr = c->rows = c->cut = 0;
    c->stopped = 0;
    c->first_line = R->next;
    if (R->o->binary) {
        size_t rowbytes = P->ncol * sizeof(double), want = rowbytes * CHUNK_ROWS;
        if (adi_grow((void **)&c->in, &c->inlen, want, 1) < 0) return -1;
        size_t got = fread(c->in, 1, want, in);
        if (got < want) R->eof = 1;
        if (got % rowbytes) {
            c->cut = got % rowbytes;   /* reported after the rows before it */
            got -= c->cut;
            R->eof = 1;
        }
        c->inlen = got;   /* inlen doubles as the byte count here */
        R->next += (long)(got / rowbytes);
        return 0;
    }
    /* text: whole lines, about CHUNK_BYTES */
    size_t cap = CHUNK_BYTES + R->carrylen + 1;
    char *buf = adi_malloc(cap);
    if (!buf) return -1;
    if (R->carrylen) memcpy(buf, R->carry, R->carrylen);
    size_t len = R->carrylen;
    R->carrylen = 0;
    size_t want = cap - 1 - len, got = fread(buf + len, 1, want, in);
    len += got;
    if (got < want) R->eof = 1;
    /* keep the partial last line for the next chunk */
    size_t cut = len;
    if (!R->eof) {
        char *nl = NULL;
        for (size_t q = len; q > 0; q--)
            if (buf[q - 1] == '\n') { nl = buf + q - 1; break; }
        if (!nl) {
            /* a line longer than a chunk: read on until its end */
            int ch2;
            while ((ch2 = fgetc(in)) != EOF) {
                if (len + 1 >= cap) {
                    char *nb = adi_realloc(buf, cap * 2);
                    if (!nb) { free(buf); return -1; }
                    buf = nb;
                    cap *= 2;
                }
                buf[len++] = (char)ch2;
                if (ch2 == '\n') break;
            }
            if (ch2 == EOF) R->eof = 1;
            cut = len;
        } else {
            cut = (size_t)(nl - buf) + 1;
        }
    }
    if (cut < len) {
        free(R->carry);
        R->carrylen = len - cut;
        R->carry = adi_malloc(R->carrylen + 1);
        if (!R->carry) { free(buf); return -1; }
        memcpy(R->carry, buf + cut, R->carrylen);
    }
    free(c->in);
    c->in = buf;
    c->inlen = cut;
    for (size_t q = 0; q < cut; q++) R->next += buf[q] == '\n';
    if (cut && buf[cut - 1] != '\n') R->next++;
    return 0;
}

/* what has been written: rows, the first error's status, a stop */
typedef struct {
    const cli_options *o;
    const plan *P;
    int status, stop;
    long rows_done;
    int progress;
    struct timespec t0;
    long last_report;
} writer;

/* writes a computed chunk: its rows to stdout, its errors to stderr */
static void write_chunk(writer *W, const chunk *c)
{
    const cli_options *o = W->o;
    if (c->outlen) fwrite(c->out, 1, c->outlen, stdout);
    for (size_t q = 0; q < c->nerr; q++) {
        const rowerr *r = &c->err[q];
        if (o->format == CLI_FMT_JSON) {
            fprintf(stderr, "{\"error\": {\"tag\": \"%s\", \"message\": ", ad_err_tag(r->cls));
            adi_fput_json_string(stderr, r->msg, strlen(r->msg));
            fprintf(stderr, ", \"source\": ");
            adi_fput_json_string(stderr, W->P->name, strlen(W->P->name));
            fprintf(stderr, ", \"%s\": %ld}}\n", o->binary ? "row" : "line", r->line);
        } else {
            fprintf(stderr, "adcalc: %s:%s%ld: error: %s [%s]\n", W->P->name, o->binary ? "row " : "",
                    r->line, r->msg, ad_err_tag(r->cls));
        }
        if (!W->status) W->status = ad_exit_code(r->cls);
    }
    W->rows_done += (long)c->rows;
    if (c->stopped || ferror(stdout)) W->stop = 1;
    if (W->progress && W->rows_done - W->last_report >= 100000) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double secs = (double)(t1.tv_sec - W->t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - W->t0.tv_nsec);
        fprintf(stderr, "\radcalc: %ld rows, %.0f rows/s ", W->rows_done,
                secs > 0 ? (double)W->rows_done / secs : 0);
        W->last_report = W->rows_done;
    }
}

/* -j 1: read, compute, write, chunk after chunk; 1 when out of memory */
static int run_serial(reader *R, writer *W, chunk *c, const char *exprs_json)
{
    while (!R->eof && !W->stop) {
        if (read_chunk(R, c) < 0) return 1;
        run_chunk(c, exprs_json);
        write_chunk(W, c);
    }
    return 0;
}

/* -j N: N threads (this one and N - 1 more), each reading the next chunk,
 * computing it and writing it when the chunks before it are written, so
 * one thread's reading and writing overlap the others' computing.  The
 * output is the same as with -j 1: the same chunks, written in order, and
 * nothing after a chunk that stopped. */
typedef struct {
    reader *R;
    writer *W;
    chunk *c;
    const char *exprs_json;
    pthread_mutex_t *mu;
    pthread_cond_t *turn;
    long *nread, *nwritten;
    int *nomem;
} pipe_worker;

static void *pipe_work(void *arg)
{
    pipe_worker *pw = arg;
    for (;;) {
        pthread_mutex_lock(pw->mu);
        if (pw->R->eof || pw->W->stop || *pw->nomem) {
            pthread_mutex_unlock(pw->mu);
            break;
        }
        long seq = (*pw->nread)++;
        int bad = read_chunk(pw->R, pw->c) < 0;
        if (bad) {
            *pw->nomem = 1;
            pw->R->eof = 1;
        }
        pthread_mutex_unlock(pw->mu);
        if (!bad) run_chunk(pw->c, pw->exprs_json);
        pthread_mutex_lock(pw->mu);
        while (*pw->nwritten != seq) pthread_cond_wait(pw->turn, pw->mu);
        if (!bad && !pw->W->stop && !*pw->nomem) write_chunk(pw->W, pw->c);
        (*pw->nwritten)++;
        pthread_cond_broadcast(pw->turn);
        pthread_mutex_unlock(pw->mu);
    }
    return NULL;
}

static int run_threads(reader *R, writer *W, chunk *ch, size_t nthreads, const char *exprs_json)
{
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
    long nread = 0, nwritten = 0;
    int nomem = 0;
    pipe_worker *pw = adi_malloc(nthreads * sizeof *pw);
    pthread_t *tid = adi_malloc(nthreads * sizeof *tid);
    if (!pw || !tid) {
        free(pw);
        free(tid);
        return 1;
    }
    for (size_t k = 0; k < nthreads; k++)
        pw[k] = (pipe_worker){R, W, &ch[k], exprs_json, &mu, &turn, &nread, &nwritten, &nomem};
    size_t started = 1;
    for (size_t k = 1; k < nthreads; k++) {
        if (pthread_create(&tid[k], NULL, pipe_work, &pw[k]) != 0) break;   /* fewer threads */
        started++;
    }
    pipe_work(&pw[0]);
    for (size_t k = 1; k < started; k++) pthread_join(tid[k], NULL);
    free(pw);
    free(tid);
    pthread_cond_destroy(&turn);
    pthread_mutex_destroy(&mu);
    return nomem;
}

/* ---- setting up ---- */

static int is_ident(const char *s, size_t n)
{
    if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return 0;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) return 0;
    return 1;
}

static int fail_usage(const cli_options *o, const char *fmt, const char *a)
{
    ad_diag d;
    ad_diag_set(&d, AD_E_USAGE, 0, 0, fmt, a);
    cli_print_error(stderr, o, NULL, &d);
    return ad_exit_code(AD_E_USAGE);
}

/* the next line of f (without its newline) into *buf; -1 at the end */
static long next_line(FILE *f, char **buf, size_t *cap)
{
    ssize_t n = getline(buf, cap, f);
    if (n < 0) return -1;
    if (n > 0 && (*buf)[n - 1] == '\n') (*buf)[--n] = 0;
    return n;
}

static void chunk_free(chunk *c)
{
    free(c->in);
    free(c->out);
    free(c->err);
    ad_work_free(c->w);
    free(c->x);
    free(c->res);
    free(c->g);
    free(c->hs);
    free(c->seeds);
    free(c->wout);
    free(c->fo);
    ad_block_free(c->bk);
    free(c->bx);
    free(c->bout);
    free(c->bline);
    free(c->bflag);
}

/* the workspace a thread needs for the plan */
static int chunk_init(chunk *c, const plan *P)
{
    memset(c, 0, sizeof *c);
    c->P = P;
    size_t ni = P->ni ? P->ni : 1, nd = P->nd ? P->nd : 1, m = P->m;
    c->w = ad_work_new();
    c->x = adi_malloc(ni * sizeof *c->x);
    c->res = adi_malloc((P->width ? P->width : 1) * sizeof *c->res);
    c->g = adi_malloc(ni * sizeof *c->g);
    c->hs = adi_malloc(ni * nd * sizeof *c->hs);
    c->seeds = adi_malloc(ni * nd * sizeof *c->seeds);
    c->wout = adi_malloc((m > 1 ? m : 1) * sizeof *c->wout);
    c->fo = adi_malloc(m * nd * sizeof *c->fo);
    if (!c->w || !c->x || !c->res || !c->g || !c->hs || !c->seeds || !c->wout || !c->fo) return -1;
    /* values and gradients go through the block replay; --seed and
     * --hessian through the scalar engines */
    if (!P->seed && !P->hess && !P->o->no_block && P->o->mode != AD_MODE_FORWARD) {
        c->B = ad_block_width(P->t);
        c->bk = ad_block_new();
        c->bx = adi_malloc(c->B * ni * sizeof *c->bx);
        c->bout = adi_malloc(c->B * (P->width ? P->width : 1) * sizeof *c->bout);
        c->bline = adi_malloc(c->B * sizeof *c->bline);
        c->bflag = adi_malloc(c->B);
        if (!c->bk || !c->bx || !c->bout || !c->bline || !c->bflag) return -1;
    }
    /* identity seeds over the derivative variables that occur (Hessian) */
    size_t kk = 0;
    for (size_t j = 0; j < P->nd; j++) kk += P->d_input[j] >= 0;
    memset(c->seeds, 0, ni * nd * sizeof *c->seeds);
    for (size_t j = 0, col = 0; j < P->nd; j++)
        if (P->d_input[j] >= 0) c->seeds[(size_t)P->d_input[j] * kk + col++] = 1;
    return 0;
}

/* names of the output columns, for the header row */
static void header_row(const plan *P, FILE *out)
{
    for (size_t r = 0; r < P->m; r++) {
        char suffix[24] = "";
        if (P->m > 1) snprintf(suffix, sizeof suffix, "#%zu", r + 1);
        if (r) putc(P->sep, out);
        fprintf(out, "value%s", suffix);
        for (size_t j = 0; P->grad && j < P->nd; j++) fprintf(out, "%cd/d%s%s", P->sep, P->dnames[j], suffix);
        if (P->hvp) {
            for (size_t a = 0; a < P->nd; a++) fprintf(out, "%chvp[%s]%s", P->sep, P->dnames[a], suffix);
            continue;
        }
        if (P->seed) fprintf(out, "%cjvp%s", P->sep, suffix);
        for (size_t a = 0; P->hess && a < P->nd; a++)
            for (size_t b = 0; b < P->nd; b++)
                fprintf(out, "%cd2/d%sd%s%s", P->sep, P->dnames[a], P->dnames[b], suffix);
    }
    putc('\n', out);
}

int cli_batch(const cli_options *o)
{
    plan P;
    memset(&P, 0, sizeof P);
    P.o = o;
    P.m = o->nsrc;
    int status = 0;
    ad_diag d;
    char *hdr = NULL;
    size_t hdrcap = 0;
    char *exprs_json = NULL;
    size_t ejlen = 0, ejcap = 0;
    chunk *ch = NULL;
    size_t nthreads = 0;
    FILE *in = NULL;

    /* the tape: all expressions, recorded once */
    const char **srcs = adi_malloc(P.m * sizeof *srcs);
    size_t *lens = adi_malloc(P.m * sizeof *lens);
    P.t = ad_tape_new();
    if (!srcs || !lens || !P.t) { status = 5; fprintf(stderr, "adcalc: error: out of memory [ad/io]\n"); goto done; }
    for (size_t i = 0; i < P.m; i++) {
        srcs[i] = o->src[i].src;
        lens[i] = o->src[i].len;
    }
    size_t failed = 0;
    ad_errclass e = ad_parse_many(P.t, srcs, lens, P.m, &failed, &d);
    if (e) {
        cli_print_error(stderr, o, &o->src[failed], &d);
        status = ad_exit_code(e);
        goto done;
    }
    if ((e = cli_prepare(o, P.t, &d))) {
        cli_print_error(stderr, o, NULL, &d);
        status = ad_exit_code(e);
        goto done;
    }
    if (o->hessian && P.m > 1) { status = fail_usage(o, "--hessian with --points takes one expression%s", ""); goto done; }
    P.ni = ad_tape_ninputs(P.t);
    P.name = strcmp(o->points, "-") == 0 ? "<stdin>" : o->points;

    /* the columns: --vars, or the header line */
    in = strcmp(o->points, "-") == 0 ? stdin : fopen(o->points, "rb");
    if (!in) {
        fprintf(stderr, "adcalc: error: cannot read '%s': %s [ad/io]\n", o->points, strerror(errno));
        status = ad_exit_code(AD_E_IO);
        goto done;
    }
    long hline = 0;
    char *first = NULL;   /* with --vars, the first data line (kept for the separator) */
    if (!o->binary) {
        long n;
        while ((n = next_line(in, &hdr, &hdrcap)) >= 0) {
            hline++;
            size_t i = 0;
            while (i < (size_t)n && isspace((unsigned char)hdr[i])) i++;
            if (i < (size_t)n && hdr[i] != '#') break;
        }
        if (n < 0) {
            if (!o->nvars) {
                fprintf(stderr, "adcalc: %s: error: no header line naming the columns (or give --vars) [ad/syntax]\n", P.name);
                status = ad_exit_code(AD_E_SYNTAX);
                goto done;
            }
            free(hdr);   /* getline allocates even at the end */
            hdr = NULL;
        }
        /* the separator: a tab, else a comma, else blanks */
        P.sep = hdr && strchr(hdr, '\t') ? '\t' : hdr && strchr(hdr, ',') ? ',' : ' ';
        if (!hdr) P.sep = ',';
        if (o->nvars) first = hdr;
    }
    if (o->nvars) {
        P.ncol = o->nvars;
        P.colnames = o->vars;
    } else if (!o->binary) {
        /* split the header into names */
        size_t cap = 0;
        char *s = hdr;
        while (*s) {
            while (*s == ' ' || *s == '\t' || *s == '\r') s++;
            if (!*s) break;
            char *b = s;
            while (*s && *s != ',' && *s != ' ' && *s != '\t' && *s != '\r') s++;
            size_t len = (size_t)(s - b);
            char save = *s;
            *s = 0;
            if (!is_ident(b, len) || ad_is_reserved(b, len)) {
                fprintf(stderr, "adcalc: %s:%ld: error: header column %zu: '%.60s' is not a variable name "
                                "(the first line names the columns; or give --vars) [ad/syntax]\n",
                        P.name, hline, P.ncol + 1, b);
                status = ad_exit_code(AD_E_SYNTAX);
                goto done;
            }
            for (size_t k = 0; k < P.ncol; k++)
                if (strcspn(P.colnames[k], ", \t\r") == len && memcmp(P.colnames[k], b, len) == 0) {
                    fprintf(stderr, "adcalc: %s:%ld: error: column '%s' named twice [ad/syntax]\n", P.name, hline, b);
                    status = ad_exit_code(AD_E_SYNTAX);
                    goto done;
                }
            for (size_t k = 0; k < o->nat; k++)
                if (strcmp(o->at[k].name, b) == 0) {
                    fprintf(stderr, "adcalc: %s:%ld: error: '%s' is given both by -at and by the points [ad/usage]\n",
                            P.name, hline, b);
                    status = ad_exit_code(AD_E_USAGE);
                    goto done;
                }
            if (adi_grow((void **)&P.colnames, &cap, P.ncol + 1, sizeof *P.colnames) < 0) goto nomem;
            P.colnames[P.ncol++] = b;   /* terminated below, once all are read */
            *s = save;
            while (*s == ' ' || *s == '\t' || *s == '\r') s++;
            if (*s == ',') *s++ = ' ';
        }
        /* the names point into hdr: NUL-terminate them in place */
        for (size_t k = 0; k < P.ncol; k++) {
            char *q = P.colnames[k];
            while (*q && *q != ',' && *q != ' ' && *q != '\t' && *q != '\r') q++;
            *q = 0;
        }
        if (P.ncol == 0) {
            fprintf(stderr, "adcalc: %s:%ld: error: the header names no columns [ad/syntax]\n", P.name, hline);
            status = ad_exit_code(AD_E_SYNTAX);
            goto done;
        }
    }

    /* bind the tape's inputs to columns or -at values */
    P.col_of_input = adi_malloc((P.ni ? P.ni : 1) * sizeof *P.col_of_input);
    P.fixed = adi_malloc((P.ni ? P.ni : 1) * sizeof *P.fixed);
    if (!P.col_of_input || !P.fixed) goto nomem;
    for (size_t i = 0; i < P.ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(P.t, i, &len);
        P.col_of_input[i] = -1;
        for (size_t k = 0; k < P.ncol; k++)
            if (strlen(P.colnames[k]) == len && !memcmp(P.colnames[k], name, len)) P.col_of_input[i] = (long)k;
        if (P.col_of_input[i] >= 0) continue;
        size_t k = 0;
        while (k < o->nat && !(strlen(o->at[k].name) == len && !memcmp(o->at[k].name, name, len))) k++;
        if (k == o->nat) {
            int line, col;
            ad_tape_pos(P.t, i, &line, &col);
            ad_diag_set(&d, AD_E_NAME, line, col,
                        "variable '%.*s' has no value: it is not a column of the points, nor given with -at",
                        (int)(len > 60 ? 60 : len), name);
            cli_print_error(stderr, o, &o->src[ad_tape_source(P.t, i)], &d);
            status = ad_exit_code(AD_E_NAME);
            goto done;
        }
        P.fixed[i] = o->at[k].value;
    }

    /* the derivative variables: --wrt, else the columns */
    P.grad = o->grad || o->jacobian || o->hessian;
    P.hess = o->hessian;
    P.nd = o->nwrt ? o->nwrt : P.ncol;
    P.dnames = adi_malloc((P.nd ? P.nd : 1) * sizeof *P.dnames);
    P.d_input = adi_malloc((P.nd ? P.nd : 1) * sizeof *P.d_input);
    P.diff = adi_malloc(P.ni ? P.ni : 1);
    if (!P.dnames || !P.d_input || !P.diff) goto nomem;
    memset(P.diff, 0, P.ni);
    for (size_t j = 0; j < P.nd; j++) {
        const char *name = o->nwrt ? o->wrt[j] : P.colnames[j];
        int known = 0;
        for (size_t k = 0; k < P.ncol; k++) known |= strcmp(P.colnames[k], name) == 0;
        for (size_t k = 0; k < o->nat; k++) known |= strcmp(o->at[k].name, name) == 0;
        if (!known) { status = fail_usage(o, "--wrt: '%s' is not a column of the points, nor given with -at", name); goto done; }
        P.dnames[j] = name;
        P.d_input[j] = -1;
        for (size_t i = 0; i < P.ni; i++) {
            size_t len;
            const char *n2 = ad_tape_input_name(P.t, i, &len);
            if (strlen(name) == len && !memcmp(name, n2, len)) P.d_input[j] = (long)i;
        }
        if (P.d_input[j] >= 0) P.diff[P.d_input[j]] = 1;
    }
    if (o->nseed) {
        P.seed = adi_malloc((P.ni ? P.ni : 1) * sizeof *P.seed);
        P.seeddiff = adi_malloc(P.ni ? P.ni : 1);
        if (!P.seed || !P.seeddiff) goto nomem;
        memset(P.seeddiff, 0, P.ni);
        for (size_t i = 0; i < P.ni; i++) P.seed[i] = 0;
        for (size_t s = 0; s < o->nseed; s++) {
            int known = 0;
            for (size_t k = 0; k < P.ncol; k++) known |= strcmp(P.colnames[k], o->seed[s].name) == 0;
            for (size_t k = 0; k < o->nat; k++) known |= strcmp(o->at[k].name, o->seed[s].name) == 0;
            if (!known) { status = fail_usage(o, "--seed: '%s' is not a column of the points, nor given with -at", o->seed[s].name); goto done; }
            for (size_t i = 0; i < P.ni; i++) {
                size_t len;
                const char *n2 = ad_tape_input_name(P.t, i, &len);
                if (strlen(o->seed[s].name) == len && !memcmp(o->seed[s].name, n2, len)) {
                    P.seed[i] = o->seed[s].value;
                    P.seeddiff[i] = 1;
                }
            }
        }
    }
    P.hvp = P.hess && P.seed;
    if (P.hvp) {
        P.hvpdiff = adi_malloc(P.ni ? P.ni : 1);
        if (!P.hvpdiff) goto nomem;
        for (size_t i = 0; i < P.ni; i++) P.hvpdiff[i] = (unsigned char)(P.diff[i] | P.seeddiff[i]);
        P.per_out = 1 + P.nd + P.nd;
    } else {
        P.per_out = 1 + (P.grad ? P.nd : 0) + (P.seed ? 1 : 0) + (P.hess ? P.nd * P.nd : 0);
    }
    P.width = P.m * P.per_out;

    /* the expressions as a JSON value, once */
    if (o->format == CLI_FMT_JSON) {
        FILE *mem = open_memstream(&exprs_json, &ejlen);
        if (!mem) goto nomem;
        if (P.m > 1) fputc('[', mem);
        for (size_t r = 0; r < P.m; r++) {
            if (r) fputs(", ", mem);
            adi_fput_json_string(mem, o->src[r].src, o->src[r].len);
        }
        if (P.m > 1) fputc(']', mem);
        if (fclose(mem) != 0) goto nomem;
    }
    (void)ejcap;


    /* the threads: one workspace each */
    nthreads = o->jobs ? (size_t)o->jobs : (size_t)sysconf(_SC_NPROCESSORS_ONLN);
    if (nthreads < 1) nthreads = 1;
    ch = adi_malloc(nthreads * sizeof *ch);
    if (!ch) goto nomem;
    memset(ch, 0, nthreads * sizeof *ch);
    for (size_t k = 0; k < nthreads; k++)
        if (chunk_init(&ch[k], &P) < 0) goto nomem;

    if (!o->binary && o->format != CLI_FMT_JSON) header_row(&P, stdout);

    /* the chunks: read in order, computed (by up to nthreads threads at
     * once), written in order */
    reader R = {o, &P, in, o->binary ? 1 : hline + (o->nvars ? 0 : 1), NULL, 0, 0};
    if (first) {
        /* with --vars the first line read is data */
        R.carrylen = strlen(first);
        R.carry = adi_malloc(R.carrylen + 2);
        if (!R.carry) goto nomem;
        memcpy(R.carry, first, R.carrylen);
        R.carry[R.carrylen++] = '\n';
        R.next = hline;
    }
    writer W = {o, &P, 0, 0, 0, isatty(2), {0, 0}, 0};
    clock_gettime(CLOCK_MONOTONIC, &W.t0);
    int nomem_hit = nthreads > 1 ? run_threads(&R, &W, ch, nthreads, exprs_json)
                                 : run_serial(&R, &W, ch, exprs_json);
    free(R.carry);
    status = W.status;
    if (nomem_hit) goto nomem;
    long rows_done = W.rows_done, last_report = W.last_report;
    int progress = W.progress;
    if (progress && last_report) fputs("\r\033[K", stderr);
    if (o->stats) fprintf(stderr, "adcalc: %ld rows\n", rows_done);
    goto done;
nomem:
    fprintf(stderr, "adcalc: error: out of memory [ad/io]\n");
    status = ad_exit_code(AD_E_IO);
done:
    if (ch) {
        for (size_t k = 0; k < nthreads; k++) chunk_free(&ch[k]);
        free(ch);
    }
    if (in && in != stdin) fclose(in);
    free(hdr);
    free(exprs_json);
    free(srcs);
    free(lens);
    if (!o->nvars) free(P.colnames);
    free(P.col_of_input);
    free(P.fixed);
    free(P.dnames);
    free(P.d_input);
    free(P.diff);
    free(P.seed);
    free(P.seeddiff);
    free(P.hvpdiff);
    ad_tape_free(P.t);
    return status;
}
