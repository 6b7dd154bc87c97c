/* run.c - the -e/-f mode (run.h): each expression, or all of them on one
 * tape, recorded, optimised, planned from the options and derived at the
 * -at point by the engine's one derivation step, then printed whole (or
 * its tape listed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "expect.h"
#include "libs.h"
#include "sigma.h"
#include "report.h"
#include "shape.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

void cli_point_free(cli_point *pt)
{
    ad_plan_free(pt->plan);
    free(pt->row);
    free(pt->items);
    memset(pt, 0, sizeof *pt);
}

static ad_errclass nomem(ad_diag *d) { return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory"); }

ad_errclass cli_prepare(const cli_options *o, ad_tape *t, ad_diag *d)
{
    ad_optstats st;
    size_t before = ad_tape_size(t);
    if (!o->no_optimize && ad_optimize(t, &st) < 0) return nomem(d);
    if (o->stats) {
        if (o->no_optimize)
            fprintf(stderr, "adcalc: tape: %zu nodes (not optimised)\n", before);
        else
            fprintf(stderr, "adcalc: tape: %zu nodes recorded, %zu after optimisation "
                            "(%zu folded, %zu shared, %zu powers as squares)\n",
                    st.before, st.after, st.folded, st.shared, st.strength);
        fprintf(stderr, "adcalc: tape: %zu inputs, %zu constants, %zu operations, %zu bytes\n",
                ad_tape_ninputs(t), ad_tape_nconsts(t),
                ad_tape_size(t) - ad_tape_ninputs(t) - ad_tape_nconsts(t), ad_tape_size(t) * ad_node_bytes());
    }
    return AD_E_NONE;
}

/* a variable of the expression that -at (in a session, :at) does not give */
ad_errclass cli_unbound(const cli_options *o, const ad_tape *t, size_t i, ad_diag *d)
{
    const char *at = cli_spelling(o, "-at");
    size_t len;
    const char *name = ad_tape_input_name(t, i, &len);
    int line, col, src = d ? d->src : 0;
    ad_tape_pos(t, i, &line, &col);
    ad_errclass e;
    if (len <= 60)
        e = ad_diag_set(d, AD_E_NAME, line, col, "variable '%.*s' has no value (give it with %s %.*s=VALUE)",
                        (int)len, name, at, (int)len, name);
    else
        e = ad_diag_set(d, AD_E_NAME, line, col, "variable '%.60s...' (%zu characters) has no value (give it with %s)",
                        name, len, at);
    if (d) d->src = src;
    return e;
}

ad_errclass cli_record(const cli_options *o, const cli_source *src, size_t n, ad_tape *t, ad_diag *d)
{
    ad_tape_set_limit(t, (size_t)o->max_nodes);
    ad_tape_set_iterations(t, (size_t)o->max_iterations);
    /* the prelude's lines count 0 and below, the source's own from 1 */
    ad_tape_set_first_line(t, n && src[0].pre ? 1 - src[0].pre->lines : 1);
    ad_tape_keep_names(t, o->dump && o->dumpfmt == AD_DUMP_DOT);   /* the picture shows them */
    if (cli_declare_vectors(&o->at, t) < 0) return nomem(d);
    const char **texts = malloc((n ? n : 1) * sizeof *texts);
    size_t *lens = malloc((n ? n : 1) * sizeof *lens);
    ad_errclass e;
    if (!texts || !lens) {
        e = nomem(d);
    } else {
        /* after the libraries' prelude when --lib gives one (libs.c) */
        size_t joined = 0;
        e = AD_E_NONE;
        for (size_t i = 0; i < n && !e; i++) {
            texts[i] = src[i].src;
            lens[i] = src[i].len;
            if (src[i].pre && src[i].pre->nlib) {
                if (!(texts[i] = cli_prelude_join(src[i].pre, src[i].src, src[i].len, &lens[i]))) e = nomem(d);
                else joined = i + 1;
            }
        }
        size_t failed = 0;
        if (!e) e = ad_parse_many(t, texts, lens, n, &failed, d);
        if (e && d) d->src = (int)failed;
        for (size_t i = 0; i < joined; i++)
            if (texts[i] != src[i].src) free((char *)texts[i]);
    }
    free(texts);
    free(lens);
    return e;
}

/* the option of o that asks for what only a number has (a gradient, a
 * Hessian, ...), or NULL; many: every output gets its own first
 * derivatives (a joint tape, batch rows) */
static const char *needs_number(const cli_options *o, int many)
{
    if (!many && o->given[CLI_OPT_WRT]) return "--wrt";
    if (!many && o->grad) return "--grad";
    if (o->hessian) return "--hessian";
    if (o->order) return "--order";
    if (o->check) return "--check";
    if (o->nexpect) return "--expect";
    if (o->sigma.n) return "--sigma";
    if (o->ncov) return "--cov";
    return NULL;
}

ad_errclass cli_check_values(const cli_options *o, const cli_source *src, size_t n, const ad_tape *t, int many,
                             ad_diag *d)
{
    const char *opt = needs_number(o, many);
    for (size_t s = 0; opt && s < ad_tape_nsources(t) && s < n; s++) {
        int vec;
        size_t first, len = ad_tape_source_outputs(t, s, &first, &vec);
        if (!vec) continue;
        ad_diag_set(d, AD_E_USAGE, 0, 0, "the value of %.60s is a vector of %zu element%s: %s needs a number (%s)",
                    src[s].name, len, len == 1 ? "" : "s", opt,
                    strcmp(opt, "--grad") && strcmp(opt, "--wrt")
                        ? "reduce it, as with sum(...), or index it, as with v[1]"
                        : "--jacobian gives a row of derivatives per element; or reduce it, as with sum(...)");
        if (d) d->src = (int)s;
        return AD_E_USAGE;
    }
    ad_errclass e = many ? cli_adjoint_weights(o, ad_tape_noutputs(t), cli_has_vector_value(t), d) : AD_E_NONE;
    if (e && d) d->src = -1;   /* the command's error, not an expression's */
    return e;
}

/* with --stats at a point: the tape derived, u, when the program's control
 * flow had it recorded at the point (by cli_evaluate, or by the
 * derivation when a guard of the tape recorded fails there) */
static void path_stats(const ad_tape *u)
{
    size_t ni = ad_tape_ninputs(u), nc = ad_tape_nconsts(u), n = ad_tape_size(u);
    fprintf(stderr, "adcalc: path: recorded at the point: %zu nodes (%zu inputs, %zu constants, "
                    "%zu operations, %zu of them guards), %zu bytes\n",
            n, ni, nc, n - ni - nc, ad_tape_nguards(u), n * ad_node_bytes());
}

/* the n sources on one tape are its outputs, each with its own
 * derivatives (several expressions, --jacobian, --adjoint) */
static int joint_outputs(const cli_options *o, size_t n) { return n > 1 || o->jacobian || o->adjoint; }

ad_errclass cli_evaluate(const cli_options *o, const cli_source *src, size_t n, ad_tape *t, ad_work *w,
                         cli_point *pt, ad_diag *d)
{
    memset(pt, 0, sizeof *pt);
    /* recorded at the point: a program's control flow takes the point's
     * path (a value of the point's length, the point's error or none) */
    if (ad_tape_set_point(t, (const char *const *)o->at.names, o->at.values, o->at.n) < 0) return nomem(d);
    ad_errclass e = cli_record(o, src, n, t, d);
    ad_tape_set_point(t, NULL, NULL, 0);
    if (!e) e = cli_check_values(o, src, n, t, joint_outputs(o, n), d);
    if (!e) e = cli_derive_tape(o, n, t, w, pt, d);
    const ad_tape *u = ad_work_tape(w);
    if (!e && o->stats && ad_tape_nguards(t) && (!u || u == t)) path_stats(t);   /* (else cli_derive_tape said) */
    return e;
}

/* --sigma at the point: the figures of the one output into pt */
static ad_errclass propagate(const cli_options *o, cli_point *pt, ad_diag *d)
{
    cli_sigma S;
    ad_errclass e = cli_sigma_init(&S, o, pt->plan, d);
    if (e) return e;
    const ad_layout *L = ad_plan_layout(pt->plan);
    size_t nn = L->ncols * L->ncols;   /* the Hessian's entries: its row holds them already */
    double *scratch = S.second ? malloc((nn ? nn : 1) * sizeof *scratch) : NULL;
    if (S.second && !scratch) e = nomem(d);
    else e = cli_sigma_eval(&S, L, pt->row, scratch, pt->sigma, d);
    free(scratch);
    cli_sigma_free(&S);
    if (!e) pt->answer.sigma = pt->sigma;
    return e;
}

/* --emit-c: the plan to write.  A program with control flow is written on
 * the path the point takes: derived there, the workspace holds that
 * path's tape, planned again (an error at the point, past its recording,
 * does not stop the code) */
static ad_errclass emit_path(const cli_options *o, const ad_tape *t, ad_work *w, cli_point *pt, const ad_request *rq,
                             ad_diag *d)
{
    if (!ad_tape_nguards(t)) return AD_E_NONE;
    const ad_layout *L = ad_plan_layout(pt->plan);
    pt->row = malloc((L->width ? L->width : 1) * sizeof *pt->row);
    if (!pt->row) return nomem(d);
    ad_errclass e = ad_derive(pt->plan, w, o->at.values, pt->row, NULL, d);
    const ad_tape *u = ad_work_tape(w);
    if (e == AD_E_IO || e == AD_E_NAME || e == AD_E_PATH || !u) return e ? e : AD_E_NONE;
    if (u == t) return AD_E_NONE;
    ad_plan *q;
    size_t i;
    if ((e = ad_plan_new(u, rq, &q, &i, d))) return e == AD_E_NAME ? cli_unbound(o, u, i, d) : e;
    ad_plan_free(pt->plan);
    pt->plan = q;
    return AD_E_NONE;
}

ad_errclass cli_derive_tape(const cli_options *o, size_t n, ad_tape *t, ad_work *w, cli_point *pt, ad_diag *d)
{
    memset(pt, 0, sizeof *pt);
    ad_errclass e = cli_prepare(o, t, d);
    if (e) return e;
    ad_request rq;
    cli_request(o, joint_outputs(o, n), &rq);
    size_t i;
    if ((e = ad_plan_new(t, &rq, &pt->plan, &i, d))) return e == AD_E_NAME ? cli_unbound(o, t, i, d) : e;
    if (o->emit) return emit_path(o, t, w, pt, &rq, d);
    const ad_layout *L = ad_plan_layout(pt->plan);
    pt->row = malloc((L->width ? L->width : 1) * sizeof *pt->row);
    /* the plan checks with --check, and for --expect's finite differences */
    pt->items = rq.check ? calloc(L->ncols ? L->ncols : 1, sizeof *pt->items) : NULL;
    if (!pt->row || (rq.check && !pt->items)) return nomem(d);
    pt->chk.items = pt->items;
    if ((e = ad_derive(pt->plan, w, o->at.values, pt->row, rq.check ? &pt->chk : NULL, d))) return e;
    pt->answer = (cli_answer){pt->plan, pt->row, o->check ? &pt->chk : NULL, NULL, NULL, t};
    if (cli_sigma_fields(o) && (e = propagate(o, pt, d))) return e;
    const ad_tape *u = ad_work_tape(w);
    if (o->stats && u && u != t) path_stats(u);
    return AD_E_NONE;
}

/* b, composed whole, onto stdout, then freed: 0, -1 when it could not be
 * written, -2 out of memory (reported here) */
static int emit(const cli_options *o, cli_buf *b)
{
    int rc = b->nomem ? -2 : cli_buf_flush(b, stdout) < 0 ? -1 : 0;
    cli_buf_free(b);
    if (rc == -2) cli_error(o, NULL, AD_E_IO, "out of memory");
    return rc;
}

/* --emit-c: the plan of pt as C, onto stdout; as emit */
static int emit_code(const cli_options *o, const cli_point *pt, int joint, size_t i)
{
    ad_request rq;
    cli_request(o, joint, &rq);
    size_t n = joint ? o->nsrc : 1;
    const char **outs = malloc((n ? n : 1) * sizeof *outs);
    if (!outs) {
        cli_error(o, NULL, AD_E_IO, "out of memory");
        return -2;
    }
    for (size_t k = 0; k < n; k++) outs[k] = o->src[joint ? k : i].src;
    ad_emit_options eo = {o->emit_name ? o->emit_name : "adcalc_f", PACKAGE_VERSION, rq.vars, rq.nvars,
                          outs, n, o->emit == 2, o->emit_header};
    int rc = ad_emit_c(stdout, pt->plan, &eo);
    free(outs);
    if (rc == -2) cli_error(o, NULL, AD_E_IO, "out of memory");
    return rc;
}

/* prints (or lists the tape of) one answer: 0, CLI_EXIT_CHECK_FAILED, or
 * as emit */
static int show(const cli_options *o, const cli_source *s, const ad_tape *t, const ad_work *w, const cli_point *pt,
                int joint)
{
    const cli_expected *x = pt->answer.exp;
    int checked = (o->check && pt->chk.failed) || (x && x->failed)
                      ? CLI_EXIT_CHECK_FAILED : 0;
    if (o->dump)
        return ad_dump(stdout, ad_work_tape(w) ? ad_work_tape(w) : t, w, o->policy, o->dumpfmt, s->src, s->len) < 0 ? -1
                                                                                                          : checked;
    if (o->emit) return emit_code(o, pt, joint, (size_t)(s - o->src));
    cli_buf b = {0};
    cli_print_answer(&b, o, joint ? o->src : s, joint ? o->nsrc : 1, joint, o->nsrc > 1, &pt->answer);
    int rc = emit(o, &b);
    return rc < 0 ? rc : checked;
}

/* among several expressions, a failed one's record in its place, so that
 * a script reading them line by line takes each where it expects it; as
 * emit */
static int failure(const cli_options *o, const cli_source *src, size_t n, size_t outputs, int joint,
                   const cli_source *at, const ad_diag *d)
{
    cli_buf b = {0};
    cli_print_failure(&b, o, src, n, outputs, joint, 1, at, d);
    return emit(o, &b);
}

/* --format tsv --header: the names of the fields, before the first
 * record printed (none for one expression that fails); *done once
 * printed; as emit */
static int tsv_header(const cli_options *o, int joint, int *done)
{
    if (*done || o->format != CLI_FMT_TSV || !o->header || o->dump) return 0;
    *done = 1;
    ad_request rq;
    ad_layout L;
    cli_request(o, joint, &rq);
    if (ad_layout_of(&rq, joint ? o->nsrc : 1, &L) < 0) return 0;   /* the derivation says why */
    cli_buf b = {0};
    cli_print_tsv_header(&b, o, &L, &(cli_columns){NULL, rq.cols, NULL});
    return emit(o, &b);
}

/* --expect at the point: the formulas recorded and evaluated beside the
 * one expression's answer pt, which then carries them */
typedef struct {
    cli_expect E;
    ad_work **w;
    double *given;
    cli_expected x;
} expectation;

static void expectation_free(expectation *X)
{
    cli_expect_works_free(&X->E, X->w);
    cli_expect_free(&X->E);
    free(X->given);
}

static ad_errclass expect_at(const cli_options *o, cli_point *pt, expectation *X, ad_diag *d, const cli_source **at)
{
    ad_errclass e = cli_expect_init(&X->E, o, pt->plan, (const char *const *)o->at.names, o->at.n, d, at);
    if (e) return e;
    X->w = cli_expect_works(&X->E);
    X->given = malloc(X->E.n * sizeof *X->given);
    if (!X->w || !X->given) return nomem(d);
    size_t k;
    if ((e = cli_expect_eval(&X->E, X->w, o->at.values, X->given, d, &k))) {
        *at = &o->expect[k].src;
        return e;
    }
    X->x = (cli_expected){&X->E, X->given, &pt->chk, cli_expect_failed(o, &X->E, X->given, &pt->chk)};
    pt->answer.exp = &X->x;
    return AD_E_NONE;
}

int cli_run(const cli_options *o)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    int status = 0, joint = o->jacobian || o->adjoint || o->emit;   /* --emit-c: one function for all */
    if (!t || !w) {
        ad_tape_free(t);
        ad_work_free(w);
        cli_error(o, NULL, AD_E_IO, "out of memory");
        return cli_exit_code(AD_E_IO);
    }
    int headed = 0;   /* --format tsv --header printed */
    /* joint: all expressions are the outputs of one tape */
    for (size_t i = 0; i < (joint ? 1 : o->nsrc); i++) {
        cli_point pt;
        ad_diag d;
        expectation X = {0};
        const cli_source *fat = NULL;   /* a formula of --expect at fault */
        ad_errclass e = joint ? cli_evaluate(o, o->src, o->nsrc, t, w, &pt, &d) : cli_evaluate(o, &o->src[i], 1, t, w, &pt, &d);
        if (!e && o->nexpect) e = expect_at(o, &pt, &X, &d, &fat);
        if (e) {
            const cli_source *s = &o->src[joint ? (d.src >= 0 && (size_t)d.src < o->nsrc ? (size_t)d.src : 0) : i];
            cli_report(o, &(cli_where){.src = fat ? fat : s}, &d);
            expectation_free(&X);
            if (!status || e == AD_E_IO) status = cli_exit_code(e);
            cli_point_free(&pt);
            /* out of memory is fatal: stop here; an error of the command
             * (no source: --adjoint's count) has no records on stdout */
            if (e == AD_E_IO || d.src < 0) break;
            int rc = o->nsrc > 1 && !o->dump ? tsv_header(o, joint, &headed) : 0;
            /* its lines: a vector value recorded before it failed has one per element */
            size_t outputs = joint ? o->nsrc : ad_tape_noutputs(t) > 1 ? ad_tape_noutputs(t) : 1;
            if (!rc && o->nsrc > 1 && !o->dump)
                rc = failure(o, joint ? o->src : &o->src[i], joint ? o->nsrc : 1, outputs, joint, s, &d);
            if (rc == -2) { status = cli_exit_code(AD_E_IO); break; }
            if (rc < 0) break;   /* a write error: main reports it */
            continue;
        }
        int rc = tsv_header(o, joint, &headed);
        if (!rc) rc = show(o, &o->src[i], t, w, &pt, joint);
        cli_point_free(&pt);
        expectation_free(&X);
        if (rc == -2) { status = cli_exit_code(AD_E_IO); break; }
        if (rc < 0) break;   /* a write error: main reports it */
        if (rc && !status) status = rc;
    }
    ad_tape_free(t);
    ad_work_free(w);
    return status;
}
