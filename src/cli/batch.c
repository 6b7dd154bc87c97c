/* batch.c - batch mode set up and run (batch.h): the tape of all the
 * expressions, the columns of the points, the plan every row follows, the
 * workspaces of the threads, and the run. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "batch.h"
#include "jit.h"
#include "names.h"
#include "report.h"
#include "results.h"
#include "run.h"

/* everything a run holds, freed in one place */
typedef struct {
    cli_batch_plan P;
    FILE *in;
    char *hdr;                /* the header line (the column names point into it) */
    size_t hdrcap;
    const char **vars;        /* the point's variables: the columns, then -at's */
    cli_buf exprs;            /* the expressions as JSON */
    cli_batch_chunk *ch;
    size_t nthreads;
    cli_expect E;             /* --expect */
    cli_sigma S;              /* --sigma, --cov */
    cli_jit J;                /* --jit */
    long hline;               /* the lines the header took */
    char *first;              /* with --vars or JSON rows, the first line (data) */
    cli_batch_ahead A;        /* the first row, when the program is recorded at it */
} run;

static void run_free(run *r)
{
    if (r->ch) {
        for (size_t k = 0; k < r->nthreads; k++)
            if (r->ch[k].P) cli_batch_chunk_free(&r->ch[k]);
        free(r->ch);
    }
    cli_jit_free(&r->J);   /* (no thread runs its code any more) */
    cli_batch_ahead_free(&r->A);
    if (r->in && r->in != stdin) fclose(r->in);
    free(r->hdr);
    free(r->P.colnames);
    free(r->P.fieldnames);
    free(r->P.field_col);
    free(r->P.field_vec);
    free(r->P.vecs);
    if (r->P.json) {
        cli_jpoint_free(&r->P.json->first);
        cli_nameset_free(&r->P.json->set);
        free(r->P.json->keys);
        free(r->P.json->text);
        free(r->P.json);
    }
    free(r->vars);
    cli_buf_free(&r->exprs);
    cli_expect_free(&r->E);
    cli_sigma_free(&r->S);
    ad_plan_free(r->P.plan);
    ad_tape_free(r->P.t);
}

static int out_of_memory(const cli_options *o)
{
    cli_error(o, NULL, AD_E_IO, "out of memory");
    return cli_exit_code(AD_E_IO);
}

/* all expressions on a new tape r->P.t (the points' vectors declared),
 * at no point, or at the first row's (A: its numbers, then -at's) */
static ad_errclass record(run *r, const cli_batch_ahead *A, ad_diag *d)
{
    const cli_options *o = r->P.o;
    ad_tape_free(r->P.t);
    if (!(r->P.t = ad_tape_new())) return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    /* the points' vectors, before the expressions that name them */
    for (size_t k = 0; k < r->P.nvecs; k++)
        if (ad_tape_set_vector(r->P.t, r->P.vecs[k].name, r->P.vecs[k].namelen, r->P.vecs[k].len) < 0)
            return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    if (!A) return cli_record(o, o->src, o->nsrc, r->P.t, d);
    size_t n = A->n + o->at.n;
    const char **names = malloc((n ? n : 1) * sizeof *names);
    double *values = malloc((n ? n : 1) * sizeof *values);
    ad_errclass e = AD_E_NONE;
    if (!names || !values) e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    for (size_t k = 0; !e && k < n; k++) {
        names[k] = k < A->n ? A->names[k] : o->at.names[k - A->n];
        values[k] = k < A->n ? A->values[k] : o->at.values[k - A->n];
    }
    if (!e && ad_tape_set_point(r->P.t, names, values, n) < 0) e = ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
    if (!e) e = cli_record(o, o->src, o->nsrc, r->P.t, d);
    ad_tape_set_point(r->P.t, NULL, NULL, 0);
    free(names);
    free(values);
    return e;
}

/* The tape: all expressions, recorded once and optimised.  Recorded
 * before any row, a comparison of an input has no value; when the path
 * it took there fails (an index out of range where no row goes), the
 * program is recorded again at the first row, read ahead: that row's
 * path fixes the shape every row has. */
static int record_all(run *r)
{
    const cli_options *o = r->P.o;
    ad_diag d;
    ad_errclass e = record(r, NULL, &d);
    if (e && e != AD_E_IO && ad_tape_error_pathless(r->P.t)) {
        int rc = cli_batch_read_ahead(&r->P, r->in, r->first, r->hline, &r->A);
        if (rc == -1) return out_of_memory(o);
        if (rc == -2) {
            cli_error(o, NULL, AD_E_IO, "cannot read '%s': %s", r->P.name, strerror(errno ? errno : EIO));
            return cli_exit_code(AD_E_IO);
        }
        if (r->A.n) {
            ad_diag d2;
            ad_errclass e2 = record(r, &r->A, &d2);
            /* (a failure that is pathless again: the first row took no path either) */
            if (!e2 || e2 == AD_E_IO || !ad_tape_error_pathless(r->P.t)) {
                e = e2;
                d = d2;
            }
        }
    }
    if (e) {
        cli_report(o, &(cli_where){.src = &o->src[d.src >= 0 && (size_t)d.src < o->nsrc ? (size_t)d.src : 0]}, &d);
        return cli_exit_code(e);
    }
    if ((e = cli_check_values(o, o->src, o->nsrc, r->P.t, 1, &d))) {
        cli_report(o, &(cli_where){.src = d.src >= 0 ? &o->src[d.src] : NULL}, &d);
        return cli_exit_code(e);
    }
    if ((e = cli_prepare(o, r->P.t, &d))) {
        cli_report(o, NULL, &d);
        return cli_exit_code(e);
    }
    if (o->hessian && o->nsrc > 1) {
        cli_error(o, NULL, AD_E_USAGE, "--hessian with --points takes one expression");
        return cli_exit_code(AD_E_USAGE);
    }
    return 0;
}

/* --wrt and --seed may name columns of the points or -at variables (vars) */
static int known(const run *r, const cli_nameset *vars, const char *opt, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cli_nameset_find(vars, names[i], strlen(names[i])) == (size_t)-1) {
            cli_error(r->P.o, NULL, AD_E_USAGE, "%s: '%s' is not a column of the points, nor given with -at", opt, names[i]);
            return cli_exit_code(AD_E_USAGE);
        }
    return 0;
}

/* --wrt's columns, a vector of the points (x for the columns x[1], x[2],
 * ...) in its elements' places: options.c expands -at's vectors, known
 * before the header is read.  *cols: cli_nameset_expand's; 0, or an exit
 * code after the error */
static int wrt_columns(run *r, const cli_nameset *vars, char ***cols, size_t *n)
{
    const cli_options *o = r->P.o;
    size_t at;
    if (cli_nameset_expand(vars, (const char *const *)o->wrt, o->nwrt, cols, n) < 0 ||
        cli_first_repeat((const char *const *)*cols, NULL, *n, &at) < 0)
        return out_of_memory(o);
    if (at < *n) {
        cli_error(o, NULL, AD_E_USAGE, "--wrt: variable '%.60s' given twice", (*cols)[at]);
        return cli_exit_code(AD_E_USAGE);
    }
    return 0;
}

/* the plan every row follows: the point is the columns, then -at's values */
static int plan_rows(run *r)
{
    cli_batch_plan *P = &r->P;
    const cli_options *o = P->o;
    P->nvars = P->ncol + o->at.n;
    P->tail = o->at.values;
    r->vars = malloc((P->nvars ? P->nvars : 1) * sizeof *r->vars);
    if (!r->vars) return out_of_memory(o);
    for (size_t k = 0; k < P->ncol; k++) r->vars[k] = P->colnames[k];
    for (size_t k = 0; k < o->at.n; k++) r->vars[P->ncol + k] = o->at.names[k];
    cli_nameset vars;
    if (cli_nameset_init(&vars, r->vars, P->nvars) < 0) return out_of_memory(o);
    char **wrt = NULL;
    size_t nwrt = 0;
    int status = wrt_columns(r, &vars, &wrt, &nwrt);
    if (!status) status = known(r, &vars, "--wrt", (const char *const *)wrt, nwrt);
    ad_diag d;
    if (!status && cli_vector_lengths(o, (const char *const *)P->colnames, P->ncol, "the points", &d)) {
        cli_report(o, NULL, &d);
        status = cli_exit_code(d.cls);
    }
    if (!status) status = known(r, &vars, "--seed", (const char *const *)o->seed.names, o->seed.n);
    cli_nameset_free(&vars);
    if (status) {
        cli_names_free(wrt, nwrt);
        return status;
    }
    ad_request rq;
    cli_request(o, 0, &rq);
    rq.vars = r->vars;
    rq.nvars = P->nvars;
    rq.cols = o->nwrt ? (const char *const *)wrt : (const char *const *)P->colnames;
    rq.ncols = o->nwrt ? nwrt : P->ncol;
    rq.many = 1;
    size_t i;
    ad_errclass e = ad_plan_new(P->t, &rq, &P->plan, &i, &d);
    cli_names_free(wrt, nwrt);
    if (e == AD_E_NAME) {
        size_t len;
        const char *name = ad_tape_input_name(P->t, i, &len);
        int src = d.src;
        /* the columns read as text: a header that is data, or misspelt */
        char names[160] = "";
        for (size_t f = 0, k = 0; f < P->nfields && k < 3; f++)
            if (P->field_col && P->field_col[f] < 0)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s'%.30s'", k++ ? ", " : "",
                         P->fieldnames[f]);
        ad_diag_set(&d, AD_E_NAME, d.line, d.col,
                    "variable '%.*s' has no value: it is not a column of the points, nor given with -at%s%s%s",
                    (int)(len > 60 ? 60 : len), name, *names ? " (the header's other columns, passed through: " : "",
                    names, *names ? (P->passed > 3 ? ", ...)" : ")") : "");
        cli_report(o, &(cli_where){.src = &o->src[src]}, &d);
    } else if (e) {
        cli_report(o, NULL, &d);
    }
    if (e) return cli_exit_code(e);
    P->L = ad_plan_layout(P->plan);
    P->blocks = ad_plan_blocks(P->plan) && !o->no_block;
    return 0;
}

/* --jit: the block replay as machine code, where the rows use it */
static int compile(run *r)
{
    cli_batch_plan *P = &r->P;
    if (!P->blocks)
        snprintf(r->J.note, sizeof r->J.note, "not used: these derivatives are not computed by the block replay");
    else if (ad_tape_nguards(P->t))
        snprintf(r->J.note, sizeof r->J.note, "not used: a program with control flow");
    else if (cli_jit_load(&r->J, P->plan, P->t) < 0)
        return out_of_memory(P->o);
    P->jit = r->J.fn;
    return 0;
}

/* --expect's formulas, recorded and planned for the rows' points */
static int expectations(run *r)
{
    ad_diag d;
    const cli_source *at;
    ad_errclass e = cli_expect_init(&r->E, r->P.o, r->P.plan, r->vars, r->P.nvars, &d, &at);
    if (e) {
        cli_report(r->P.o, at ? &(cli_where){.src = at} : NULL, &d);
        return cli_exit_code(e);
    }
    r->P.E = &r->E;
    return 0;
}

/* --sigma's covariance over the derivative columns */
static int uncertainties(run *r)
{
    ad_diag d;
    ad_errclass e = cli_sigma_init(&r->S, r->P.o, r->P.plan, &d);
    if (e) {
        cli_report(r->P.o, NULL, &d);
        return cli_exit_code(e);
    }
    r->P.S = &r->S;
    return 0;
}

/* the columns: --vars, or the header line */
static int columns(run *r, long *hline, char **first)
{
    cli_batch_plan *P = &r->P;
    const cli_options *o = P->o;
    P->name = strcmp(o->points, "-") == 0 ? "<stdin>" : o->points;
    r->in = strcmp(o->points, "-") == 0 ? stdin : fopen(o->points, "rb");
    if (!r->in) {
        cli_error(o, NULL, AD_E_IO, "cannot read '%s': %s", o->points, strerror(errno));
        return cli_exit_code(AD_E_IO);
    }
    /* binary rows go from read(2) straight into a chunk: no stdio buffer
     * (its page was a page fault of a --jit run's start-up); the stream's
     * first use (stdin has no other reader then, options.c) */
    if (o->binary) setvbuf(r->in, NULL, _IONBF, 0);
    int status = cli_batch_read_header(P, r->in, &r->hdr, &r->hdrcap, hline, first);
    /* the output's separator, whatever the number of columns: a tab for
     * --format tsv or a tab-separated input, else a comma */
    P->osep = o->format == CLI_FMT_TSV || P->sep == '\t' ? '\t' : ',';
    return status;
}

/* one workspace per thread */
static int workspaces(run *r)
{
    const cli_options *o = r->P.o;
    if (o->format == CLI_FMT_JSON) {
        /* an array when a row has several outputs (several expressions,
         * a vector value) */
        cli_json_exprs(&r->exprs, o->src, o->nsrc, r->P.L->m > 1);
        cli_buf_putc(&r->exprs, 0);
        if (r->exprs.nomem) return out_of_memory(o);
        r->P.exprs_json = r->exprs.p;
    }
    long n = o->jobs ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    r->nthreads = n < 1 ? 1 : (size_t)n;
    r->ch = calloc(r->nthreads, sizeof *r->ch);
    if (!r->ch) return out_of_memory(o);
    /* the threads set up their workspaces themselves (batch_pipe.c) */
    return 0;
}

/* --stats of a program with control flow: what the threads' workspaces
 * did with the rows, and how many paths the rows took in all */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int path_stats(const run *r)
{
    size_t replayed = 0, recorded = 0, total = 0, npaths = 0;
    for (size_t k = 0; k < r->nthreads; k++) {
        if (!r->ch[k].w) continue;
        size_t rp, rc, ns;
        const uint64_t *seen;
        ad_work_paths(r->ch[k].w, &rp, &rc, &seen, &ns);
        replayed += rp;
        recorded += rc;
        total += ns;
    }
    uint64_t *all = malloc((total ? total : 1) * sizeof *all);
    if (!all) return -1;
    size_t n = 0;
    for (size_t k = 0; k < r->nthreads; k++) {
        if (!r->ch[k].w) continue;
        size_t rp, rc, ns;
        const uint64_t *seen;
        ad_work_paths(r->ch[k].w, &rp, &rc, &seen, &ns);
        memcpy(all + n, seen, ns * sizeof *seen);
        n += ns;
    }
    qsort(all, n, sizeof *all, cmp_u64);
    for (size_t i = 0; i < n; i++) npaths += i == 0 || all[i] != all[i - 1];
    free(all);
    fprintf(stderr, "adcalc: paths: %zu rows replayed a recorded path, %zu re-recorded; %zu distinct paths\n",
            replayed, recorded, npaths);
    return 0;
}

/* the rows: read in order, computed by up to nthreads threads, written in order */
static int rows(run *r)
{
    const cli_options *o = r->P.o;
    if (!o->binary && (o->format == CLI_FMT_TEXT || o->header)) {
        cli_buf b = {0};
        /* the fields passed through (or echoed) first */
        for (size_t f = 0; o->format != CLI_FMT_JSON && f < r->P.nfields; f++)
            if (o->echo || r->P.field_col[f] < 0) {
                cli_print_text_field(&b, r->P.fieldnames[f], strlen(r->P.fieldnames[f]), r->P.osep);
                cli_buf_putc(&b, r->P.osep);
            }
        cli_print_header(&b, o, r->P.L, &(cli_columns){r->P.plan, NULL, r->P.t}, r->P.osep);
        int bad = b.nomem;
        cli_buf_flush(&b, stdout);
        cli_buf_free(&b);
        if (bad) return out_of_memory(o);
    }
    cli_batch_reader R = {&r->P, r->in, o->binary ? 1 : r->hline + (o->nvars ? 0 : 1), NULL, 0, 0};
    if (r->A.bytes || r->first) {
        /* the input read already: the first row read ahead, or with
         * --vars or JSON rows the first line */
        const char *s = r->A.bytes ? r->A.bytes : r->first;
        R.carrylen = r->A.bytes ? r->A.len : strlen(r->first);
        R.carry = malloc(R.carrylen + 2);
        if (!R.carry) return out_of_memory(o);
        memcpy(R.carry, s, R.carrylen);
        if (!r->A.bytes) R.carry[R.carrylen++] = '\n';
        R.next = r->A.bytes ? r->A.line : r->hline;
    }
    cli_batch_writer W = {.P = &r->P, .progress = isatty(2)};
    int nomem = cli_batch_pipe(&R, &W, r->ch, r->nthreads);
    free(R.carry);
    if (W.write_err) errno = W.write_err;   /* for main's "cannot write output" */
    if (nomem) return out_of_memory(o);
    /* the summaries: how many rows computed failed each verdict */
    static const char *const verdict[CLI_VERDICTS] = {"check", "expect"};
    int asked[CLI_VERDICTS] = {o->check, o->nexpect > 0}, failed = 0;
    for (int v = 0; v < CLI_VERDICTS; v++) {
        if (!asked[v]) continue;
        fprintf(stderr, "adcalc: %s: %ld of %ld rows FAIL", verdict[v], W.failed[v], W.rows_done);
        if (W.failed[v]) fprintf(stderr, " (the first at line %ld)", W.first_failed[v]);
        fputc('\n', stderr);
        failed |= W.failed[v] > 0;
    }
    if (o->stats) fprintf(stderr, "adcalc: %ld rows (block sweeps: %s)\n", W.rows_done, r->P.jit ? "compiled" : ad_block_isa());
    if (o->stats && o->jit) fprintf(stderr, "adcalc: jit: %s\n", r->J.note);
    if (o->stats && ad_tape_nguards(r->P.t) && path_stats(r) < 0) return out_of_memory(o);
    return W.status ? W.status : failed ? CLI_EXIT_CHECK_FAILED : 0;
}

int cli_batch(const cli_options *o)
{
    run r;
    memset(&r, 0, sizeof r);
    r.P.o = o;
    /* the header first: the vectors among the columns are the tape's */
    int status = columns(&r, &r.hline, &r.first);
    if (!status) status = record_all(&r);
    if (!status && cli_batch_field_kinds(&r.P) < 0) status = out_of_memory(o);
    if (!status) status = plan_rows(&r);
    if (!status && o->jit) status = compile(&r);
    if (!status && o->nexpect) status = expectations(&r);
    if (!status && cli_sigma_fields(o)) status = uncertainties(&r);
    if (!status) status = workspaces(&r);
    if (!status) status = rows(&r);
    run_free(&r);
    return status;
}
