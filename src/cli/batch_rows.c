/* batch_rows.c - the rows of one chunk: parsed (text) or taken where they
 * lie (binary), computed by the block replay a block at a time, or by the
 * derivation step for a row the block flags (and for plans the block does
 * not do), and formatted by the same printers as a single point. */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "batch.h"
#include "libs.h"
#include "report.h"
#include "results.h"

static void add_err(cli_batch_chunk *c, long line, long col, ad_errclass cls, const char *msg)
{
    if (c->nerr == c->errcap) {
        size_t nc = c->errcap ? 2 * c->errcap : 16;
        cli_batch_err *ne = realloc(c->err, nc * sizeof *ne);
        if (!ne) {
            /* no room to keep the message: the chunk says out of memory */
            c->out.nomem = 1;
            c->stopped = 1;
            return;
        }
        c->err = ne;
        c->errcap = nc;
    }
    cli_batch_err *e = &c->err[c->nerr++];
    e->line = line;
    e->col = col;
    e->cls = cls;
    snprintf(e->msg, sizeof e->msg, "%s", msg);
}

/* the fields of the row's line that pass through (all of them with
 * --echo), as the row's first fields (text: each as it was, re-quoted for
 * the output's separator, then the separator) or a JSON object of strings
 * into b; a line that cannot be split gives empty fields from there */
static void passed(cli_batch_chunk *c, cli_buf *b, int json)
{
    const cli_batch_plan *P = c->P;
    const cli_options *o = P->o;
    const char *s = c->rsrc;
    size_t n = s ? c->rlen : 0, i = 0, k = 0;
    int last = n == 0, bad = 0;
    if (json) cli_buf_putc(b, '{');
    for (size_t f = 0; f < P->nfields; f++) {
        size_t fb = 0, fe = 0;
        int quoted = 0;
        char why[120];
        if (!last && !bad) bad = cli_batch_field(P->sep, s, n, &i, &fb, &fe, &quoted, &last, why, sizeof why) < 0;
        else fb = fe = 0;
        if (bad) fb = fe = 0;
        if (!o->echo && P->field_col[f] >= 0) continue;
        /* the value ("" in a quoted field is one quote) into a buffer the
         * chunk keeps: no allocation per row once it is long enough */
        if (fe - fb + 1 > c->fieldcap) {
            char *nf = realloc(c->field, fe - fb + 1);
            if (!nf) {
                b->nomem = 1;
                return;
            }
            c->field = nf;
            c->fieldcap = fe - fb + 1;
        }
        char *v = c->field;
        size_t len = 0;
        for (size_t q = fb; q < fe; q++) {
            v[len++] = s[q];
            if (quoted && s[q] == '"' && q + 1 < fe && s[q + 1] == '"') q++;
        }
        if (json) {
            if (k++) cli_buf_puts(b, ", ");
            cli_buf_json_string(b, P->fieldnames[f], strlen(P->fieldnames[f]));
            cli_buf_puts(b, ": ");
            cli_buf_json_string(b, v, len);
        } else {
            cli_print_text_field(b, v, len, P->osep);
            cli_buf_putc(b, P->osep);
        }
    }
    if (json) cli_buf_putc(b, '}');
}

/* one result row, as text, JSON or binary; ok: computed (its check,
 * --expect's values and --sigma's figures are in c, where asked for),
 * else a row of nan */
static void format_row(cli_batch_chunk *c, const double *res, long line, int ok)
{
    const cli_batch_plan *P = c->P;
    const cli_options *o = P->o;
    cli_expected x = {P->E, c->given, &c->chk, c->expect_failed};
    cli_answer a = {P->plan, res, ok && o->check ? &c->chk : NULL, ok && P->E ? &x : NULL, ok && P->S ? c->sig : NULL, P->t};
    int prefix = !o->binary && (o->echo || P->passed);
    if (o->binary) {
        cli_buf_put(&c->out, res, P->L->width * sizeof *res);
    } else if (o->format == CLI_FMT_JSON) {
        cli_buf cols = {0};
        if (prefix) {
            passed(c, &cols, 1);
            cli_buf_putc(&cols, 0);
        }
        if (cols.nomem) c->out.nomem = 1;
        else cli_print_json(&c->out, o, P->exprs_json, P->L->m > 1, line, prefix ? cols.p : NULL, &a);
        cli_buf_free(&cols);
    } else {
        if (prefix) passed(c, &c->out, 0);
        cli_print_row(&c->out, o, P->L, res, P->osep, ok ? &a : NULL);
    }
}

static void failed(cli_batch_chunk *c, int v, long line)
{
    if (!c->failed[v]++) c->first_failed[v] = line;
}

static void row_failed(cli_batch_chunk *c, long line, ad_errclass cls, const char *msg);

/* a row computed: --sigma's figures, its verdicts counted, and printed */
static void emit(cli_batch_chunk *c, const double *res, long line)
{
    const cli_batch_plan *P = c->P;
    const cli_options *o = P->o;
    ad_diag d;
    if (P->S && cli_sigma_eval(P->S, P->L, res, c->scratch, c->sig, &d)) {
        char msg[600];
        cli_message(&d, msg, sizeof msg);
        row_failed(c, line, d.cls, msg);
        return;
    }
    c->rows++;
    if (o->check && c->chk.failed) failed(c, CLI_VERDICT_CHECK, line);
    c->expect_failed = P->E && cli_expect_failed(o, P->E, c->given, &c->chk);
    if (c->expect_failed) failed(c, CLI_VERDICT_EXPECT, line);
    format_row(c, res, line, 1);
}

/* one row failed (at column col of its line, 0: none): record it, and
 * emit its marked row; out of memory (fatal) stops the run whatever
 * --on-error says, a row's limit (of loop iterations, of tape nodes)
 * does not */
static void row_failed_as(cli_batch_chunk *c, long line, long col, ad_errclass cls, const char *msg, int fatal)
{
    const cli_options *o = c->P->o;
    add_err(c, line, col, cls, msg);
    if (o->on_error == CLI_ON_ERROR_STOP || fatal) {
        c->stopped = 1;
    } else if (o->on_error == CLI_ON_ERROR_NAN) {
        for (size_t i = 0; i < c->P->L->width; i++) c->res[i] = NAN;
        format_row(c, c->res, line, 0);
    }
}

static void row_failed(cli_batch_chunk *c, long line, ad_errclass cls, const char *msg)
{
    row_failed_as(c, line, 0, cls, msg, cls == AD_E_IO);
}

/* a row through the derivation step: cols are its ncol numbers */
static void eval_row(cli_batch_chunk *c, const double *cols, long line)
{
    const cli_batch_plan *P = c->P;
    ad_diag d;
    if (cols != c->point) memcpy(c->point, cols, P->ncol * sizeof *cols);
    int checks = c->items != NULL;   /* --check, --expect */
    const cli_source *src = NULL;
    size_t k;
    ad_errclass e = ad_derive(P->plan, c->w, c->point, c->res, checks ? &c->chk : NULL, &d);
    if (!e && P->E && (e = cli_expect_eval(P->E, c->ew, c->point, c->given, &d, &k))) src = &P->o->expect[k].src;
    if (e) {
        char msg[sizeof c->err->msg], text[600];
        cli_message(&d, text, sizeof text);
        if (!src && d.line != 0) src = &P->o->src[d.src];
        int at_line = 0;
        if (d.line != 0) src = cli_prelude_locate(src, d.line, &at_line);
        if (d.line != 0)
            snprintf(msg, sizeof msg, "%s (at %s:%d:%d)", text, src->name, at_line, d.col);
        else
            snprintf(msg, sizeof msg, "%s", text);
        row_failed_as(c, line, 0, e, msg,
                      e == AD_E_IO && d.hint != AD_HINT_ITER_LIMIT && d.hint != AD_HINT_TAPE_LIMIT);
        return;
    }
    emit(c, c->res, line);
}

/* runs the rows waiting in the block, then emits them in order; a row the
 * block flagged goes through the derivation step instead */
static void flush_block(cli_batch_chunk *c)
{
    const cli_batch_plan *P = c->P;
    size_t np = c->pending;
    if (!np) return;
    c->pending = 0;
    if (ad_derive_rows(P->plan, c->bk, c->w, np, c->brows, P->ncol, P->ncol, P->tail, c->bout, c->bflag) < 0) {
        add_err(c, c->bline[0], 0, AD_E_IO, "out of memory");
        c->stopped = 1;
        return;
    }
    for (size_t j = 0; j < np && !c->stopped; j++) {
        if (c->bsrc) c->rsrc = c->bsrc[j], c->rlen = c->blen[j];
        if (c->bflag[j]) eval_row(c, c->brows + j * P->ncol, c->bline[j]);
        else emit(c, c->bout + j * P->L->width, c->bline[j]);
    }
}

/* a row for the block (or, without it, the derivation step right away) */
static void add_row(cli_batch_chunk *c, const double *cols, long line)
{
    if (!c->bk) {
        eval_row(c, cols, line);
        return;
    }
    memcpy(c->brows + c->pending * c->P->ncol, cols, c->P->ncol * sizeof *cols);
    if (c->bsrc) c->bsrc[c->pending] = c->rsrc, c->blen[c->pending] = c->rlen;
    c->bline[c->pending++] = line;
    if (c->pending == c->B) flush_block(c);
}

/* 1 when the n doubles at p are all finite.  A double is inf or nan when
 * its exponent bits are all ones, and then adding 1 to the exponent field
 * carries into the sign bit: integer and/add/or, four numbers a step
 * (a loop of one, at -O2, took about 2.4 cycles a number: 19% of F2's
 * time with --jit). */
static int all_finite(const char *p, size_t n)
{
    const uint64_t E = UINT64_C(0x7ff0000000000000), ONE = UINT64_C(0x0010000000000000);
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, u0, u1, u2, u3;   /* (four locals: GCC kept an array on the stack) */
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        const char *q = p + k * sizeof u0;
        memcpy(&u0, q, sizeof u0);
        memcpy(&u1, q + 8, sizeof u1);
        memcpy(&u2, q + 16, sizeof u2);
        memcpy(&u3, q + 24, sizeof u3);
        a0 |= (u0 & E) + ONE;
        a1 |= (u1 & E) + ONE;
        a2 |= (u2 & E) + ONE;
        a3 |= (u3 & E) + ONE;
    }
    for (; k < n; k++) {
        memcpy(&u0, p + k * sizeof u0, sizeof u0);
        a0 |= (u0 & E) + ONE;
    }
    return !((a0 | a1 | a2 | a3) >> 63);
}

/* how many of the np rows at in, from the first, hold only finite values */
static size_t finite_rows(const char *in, size_t np, size_t ncol)
{
    if (all_finite(in, np * ncol)) return np;
    size_t ok = 0;
    while (ok < np && all_finite(in + ok * ncol * sizeof(double), ncol)) ok++;
    return ok;
}

/* Binary rows straight through the block: the rows from c->in at row r
 * are replayed where they lie, and the results written where they go in
 * c->out, block after block, up to the first row with a value that is not
 * finite.  A row the block flags goes through the derivation step
 * (eval_row, which writes its row, a nan row or nothing in the same
 * place), and the rows after it move up behind it.  Returns how many rows
 * it took. */
static size_t binary_rows(cli_batch_chunk *c, size_t r, size_t avail)
{
    const cli_batch_plan *P = c->P;
    const size_t ncol = P->ncol, rowbytes = ncol * sizeof(double), W = P->L->width * sizeof(double);
    size_t taken = 0;
    while (taken < avail && !c->stopped) {
        size_t np = avail - taken < c->B ? avail - taken : c->B;
        const char *in = c->in + (r + taken) * rowbytes;
        size_t ok = finite_rows(in, np, ncol);
        if (!ok) break;
        size_t base = c->out.len;
        char *dst = cli_buf_room(&c->out, ok * W);
        if (!dst || ad_derive_rows(P->plan, c->bk, c->w, ok, (const double *)in, ncol, ncol, P->tail, (double *)dst,
                                   c->bflag) < 0) {
            add_err(c, c->first_line + (long)(r + taken), 0, AD_E_IO, "out of memory");
            c->stopped = 1;
            break;
        }
        /* most blocks: every row is the block's (a flag is 1, never another
         * nonzero: ad_derive_rows in adcalc.h) */
        if (!memchr(c->bflag, 1, ok)) {
            c->out.len += ok * W;
            c->rows += ok;
            taken += ok;
            if (ok < np) break;
            continue;
        }
        for (size_t j = 0; j < ok && !c->stopped; j++) {
            long line = c->first_line + (long)(r + taken + j);
            if (c->bflag[j]) {
                memcpy(c->point, in + j * rowbytes, rowbytes);
                eval_row(c, c->point, line);
                continue;
            }
            size_t at = base + j * W;
            if (at != c->out.len) memmove(c->out.p + c->out.len, c->out.p + at, W);
            c->out.len += W;
            c->rows++;
        }
        taken += ok;
        if (ok < np) break;
    }
    return taken;
}

static void run_binary(cli_batch_chunk *c)
{
    const cli_batch_plan *P = c->P;
    size_t rowbytes = P->ncol * sizeof(double), nrows = c->inlen / rowbytes;
    size_t r = 0;
    /* room for the chunk's rows at once, not doubling block by block, a
     * copy each time (a failure leaves the buffer's nomem, which the
     * chunk's writer reports) */
    cli_buf_room(&c->out, nrows * P->L->width * sizeof(double));
    while (r < nrows && !c->stopped) {
        /* the block takes the rows up to the next one it cannot */
        size_t done = c->bk ? binary_rows(c, r, nrows - r) : 0;
        r += done;
        if (done || c->stopped || r >= nrows) continue;
        /* a row with a value that is not finite, or no block */
        memcpy(c->point, c->in + r * rowbytes, rowbytes);
        if (!all_finite((const char *)c->point, P->ncol)) {
            flush_block(c);
            if (!c->stopped) row_failed(c, c->first_line + (long)r, AD_E_SYNTAX, "a value that is not a finite number");
        } else {
            add_row(c, c->point, c->first_line + (long)r);
        }
        r++;
    }
    if (!c->stopped) flush_block(c);
    if (c->cut && !c->stopped) {
        char msg[120];
        snprintf(msg, sizeof msg, "the last row is cut short (%zu bytes of %zu)", c->cut, rowbytes);
        row_failed(c, c->first_line + (long)nrows, AD_E_SYNTAX, msg);
    }
}

static void run_text(cli_batch_chunk *c)
{
    const cli_batch_plan *P = c->P;
    long line = c->first_line;
    const char *s = c->in, *end = c->in + c->inlen;
    while (s < end && !c->stopped) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        /* blank lines and # comments are skipped */
        size_t i = 0;
        while (i < n && isspace((unsigned char)s[i])) i++;
        if (i < n && s[i] != '#') {
            char why[200];
            const char *nul = memchr(s, 0, n);
            long col = 0;
            c->rsrc = s;
            c->rlen = n;
            if (nul) snprintf(why, sizeof why, "a NUL byte at column %zu", (size_t)(nul - s) + 1);
            int rc = nul ? -1
                         : P->json ? cli_batch_parse_json(P, &c->jrow, c->jhit, s, n, c->point, &col, why, sizeof why)
                                   : cli_batch_parse_line(P, s, n, c->point, why, sizeof why);
            if (rc < 0) {
                flush_block(c);
                c->rsrc = s, c->rlen = n;   /* flush_block moved it */
                /* -2: out of memory, which stops the run */
                if (!c->stopped) row_failed_as(c, line, col, rc == -2 ? AD_E_IO : AD_E_SYNTAX, why, rc == -2);
            } else {
                add_row(c, c->point, line);
            }
        }
        line++;
        s += n + 1;
    }
    if (!c->stopped) flush_block(c);
}

void cli_batch_run_chunk(cli_batch_chunk *c)
{
    if (c->P->o->binary) run_binary(c);
    else run_text(c);
    c->pending = 0;
}

int cli_batch_chunk_init(cli_batch_chunk *c, const cli_batch_plan *P)
{
    memset(c, 0, sizeof *c);
    c->P = P;
    size_t width = P->L->width ? P->L->width : 1;
    c->w = ad_work_new();
    c->point = malloc((P->nvars ? P->nvars : 1) * sizeof *c->point);
    c->res = malloc(width * sizeof *c->res);
    if (!c->w || !c->point || !c->res) return -1;
    if (P->o->check || P->E) {
        c->items = calloc(P->L->ncols ? P->L->ncols : 1, sizeof *c->items);
        if (!c->items) return -1;
        c->chk.items = c->items;
    }
    if (P->S) {
        size_t nn = P->S->second ? P->L->ncols * P->L->ncols : 0;
        c->sig = malloc((P->L->m * P->S->fields + 1) * sizeof *c->sig);
        c->scratch = malloc((nn ? nn : 1) * sizeof *c->scratch);
        if (!c->sig || !c->scratch) return -1;
    }
    if (P->E) {
        c->ew = cli_expect_works(P->E);
        c->given = malloc((P->E->n ? P->E->n : 1) * sizeof *c->given);
        if (!c->ew || !c->given) return -1;
    }
    if (P->json && !(c->jhit = malloc(P->json->first.nm))) return -1;
    /* the point's last numbers are -at's: the same for every row */
    if (P->nvars > P->ncol) memcpy(c->point + P->ncol, P->tail, (P->nvars - P->ncol) * sizeof *c->point);
    if (P->blocks) {
        c->B = ad_block_width(P->t);
        c->bk = ad_block_new();
        if (c->bk && P->jit) ad_block_use(c->bk, P->plan, P->jit);
        c->brows = malloc(c->B * (P->ncol ? P->ncol : 1) * sizeof *c->brows);
        c->bout = malloc(c->B * width * sizeof *c->bout);
        c->bline = malloc(c->B * sizeof *c->bline);
        c->bflag = malloc(c->B);
        if (!c->bk || !c->brows || !c->bout || !c->bline || !c->bflag) return -1;
        if (!P->o->binary && (P->passed || P->o->echo)) {
            c->bsrc = malloc(c->B * sizeof *c->bsrc);
            c->blen = malloc(c->B * sizeof *c->blen);
            if (!c->bsrc || !c->blen) return -1;
        }
    }
    return 0;
}

void cli_batch_chunk_free(cli_batch_chunk *c)
{
    free(c->in);
    cli_buf_free(&c->out);
    free(c->err);
    ad_work_free(c->w);
    free(c->point);
    free(c->res);
    free(c->items);
    if (c->P->E) cli_expect_works_free(c->P->E, c->ew);
    free(c->given);
    free(c->sig);
    free(c->scratch);
    ad_block_free(c->bk);
    free(c->brows);
    free(c->bout);
    free(c->bline);
    free(c->bflag);
    free(c->bsrc);
    free(c->blen);
    free(c->field);
    cli_jpoint_free(&c->jrow);
    free(c->jhit);
}
