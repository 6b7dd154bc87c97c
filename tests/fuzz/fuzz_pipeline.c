/* fuzz_pipeline.c - libFuzzer target over the whole pipeline: option
 * parsing of -at values, parsing and recording, the primal sweep, forward
 * and reverse mode, the tape dump in every format and the result printers.
 *
 * Input: byte 0 picks the options (policy, output format, dump, seeds,
 * Hessian, Taylor order, Jacobian); then the -at text up to the first
 * newline, where x=[1,2,3] gives a vector (declared on every tape the
 * checks below record, as the command declares it); the rest is the
 * expression (for the Jacobian, split in two at the first ';').  Besides
 * the sanitizers, it checks two invariants: forward and reverse mode agree
 * on the outcome class and, when they succeed, on the value to the bit;
 * and the block replay of batch mode, on the optimised tape at a few
 * points made of awkward values (zeros, subnormals, 1e-310, 1e308, the
 * edges of exp's and sin's ranges), gives each point's value and gradient
 * to the bit where the scalar engines succeed, and flags every point where
 * they fail (block_check); at those points forward mode succeeds where
 * reverse does, with a gradient within 1e-13 of the terms' magnitudes (or
 * DBL_MIN, where they are subnormal), and
 * the Hessian's pass gives reverse's gradient to the bit (engines_check);
 * and the statements run one at a time in a session (the REPL's engine)
 * give each expression statement the value, inputs and error class of the
 * whole program made of the statements kept before it (session_check);
 * and a program with control flow gives each point the same row whatever
 * its workspace derived before, and the block replay agrees (paths_check).
 * Build: make fuzz (clang with -fsanitize=fuzzer,address,undefined). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"
#include "work.h"      /* the values of the last sweep (engines_check) */
#include "options.h"
#include "results.h"
#include "report.h"
#include "run.h"

/* loops run to a limit (a loop over 1/x at x = 1e-310 does): a small one
 * keeps each input fast under the sanitizers */
#define FUZZ_ITERATIONS 2000

static FILE *sink(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

/* an error's text, made as the command makes it (and dropped) */
static void drop_error(const ad_diag *d)
{
    char msg[600];
    cli_message(d, msg, sizeof msg);
}

/* the vectors of the -at text (x=[1,2,3]) declared on t before it
 * records, as the command does (cli_record): without them x[i] and sum(x)
 * are errors on the tapes the checks below record themselves */
static void declare_at(ad_tape *t, const char *at_text)
{
    cli_bindings b = {0};
    ad_diag d;
    if (!cli_add_bindings("-at", at_text, &b, &d)) cli_declare_vectors(&b, t);
    cli_bindings_free(&b);
}

static ad_errclass one(int argc, char **argv, ad_tape *t, ad_work *w, double *value,
                       int dumpit)
{
    cli_options o;
    ad_diag d;
    ad_errclass e = cli_options_parse(&o, argc, argv, &d);
    if (e) {
        drop_error(&d);
        cli_options_free(&o);
        return e;
    }
    int joint = o.jacobian || o.adjoint;
    cli_point pt;
    e = cli_evaluate(&o, o.src, joint ? o.nsrc : 1, t, w, &pt, &d);
    if (e) {
        drop_error(&d);
    } else {
        cli_buf b = {0};
        *value = pt.row[0];
        if (joint) cli_print_joint_text(&b, &o, &pt.answer);
        else cli_print_text(&b, &o, &o.src[0], &pt.answer, 1);
        cli_json_exprs(&b, o.src, joint ? o.nsrc : 1, joint);
        cli_buf_putc(&b, 0);
        cli_print_json(&b, &o, "\"e\"", joint, 1, NULL, &pt.answer);
        cli_buf_free(&b);
        if (dumpit && !joint)
            for (int f = 0; f < 3; f++)
                ad_dump(sink(), t, w, o.policy, (ad_dump_format)f,
                        o.src[0].src, o.src[0].len);
    }
    cli_point_free(&pt);
    cli_options_free(&o);
    return e;
}

/* values near the edges the block must treat as the scalar engines do:
 * zeros, kinks, overflow, underflow, the end of sin's fast reduction */
static const double awkward[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 1e-300, -1e-300, 1e300, -1e300, 1e-8,
    709.0, 710.0, -745.0, -746.0, 3.2e6, 3294198.0, 3.3e6, 1e7, -1e22, 1.5707963267948966,
    3.141592653589793, 0.7853981633974483, 100.0, -0.5, 4.9e-324, 1.7976931348623157e308,
    1e-310, -1e-310, 1e308, -1e308, 2.2250738585072014e-308, 1e-320, 1e154, 1e-154};

static uint64_t mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* the expression recorded and optimised as batch mode does, replayed by
 * the block for 8 points and by ad_eval + ad_reverse point by point */
static void print_point(const double *x, size_t ni)
{
    fprintf(stderr, "  at");
    for (size_t i = 0; i < ni; i++) fprintf(stderr, " %s%a", i ? ", " : "", x[i]);
    fprintf(stderr, "\n");
}

/* a and b agree: within 1e-13 of scale (the two engines add the same
 * terms in other orders), or within DBL_MIN (subnormal results keep fewer
 * bits), or equal */
static int agree(double a, double b, double scale)
{
    return a == b || fabs(a - b) <= 1e-13 * scale || fabs(a - b) <= DBL_MIN;
}

/* Whether forward and reverse disagree on d/dx_i only through the range
 * of double: an intermediate adjoint or tangent that underflowed (losing
 * bits) or overflowed in one engine and not the other.  Scaling the
 * output's adjoint (reverse) or the input's tangent (forward) by a power
 * of two moves every intermediate of that engine by the same exact factor;
 * if the scaled run agrees with the other engine, the two differ by range
 * alone.  No scale helps where the tape's values themselves span more than
 * double's range (1e-300 next to cosh(710)): a product of partials can
 * underflow in one order and not in the other; nor where both results are
 * below 2^-900, what is left of a product of partials that spans more than
 * double's range (exp(-690) times 1/sqrt(1+1e600)).  All are a known limit
 * of double-range derivatives (the closing note of issue 12), not reported
 * here. */
static int range_only(const ad_tape *t, ad_work *w, const double *x, const unsigned char *diff,
                      size_t i, double g, double gf)
{
    static const int shifts[] = {-900, -600, -300, 300, 600, 900};
    ad_diag d;
    if (fmax(fabs(g), fabs(gf)) < 0x1p-900) return 1;
    /* the engine's own long double sweeps (wide.c), which neither
     * overflow nor underflow on the way: where one agrees with the other
     * engine, the double one lost to range (man adcalc, BUGS).  Agreeing
     * is to 1e-6 here: the terms' magnitudes, the scale of agree() above,
     * are what underflowed, and summation orders through cancelling terms
     * differ by 1e-7 (the fuzzer's own case: log1p's argument 2.2e-16 made
     * of 0.5000000000000002 - 0.5) */
    double wr[16], wf[16], sd[16 * 16] = {0};
    for (size_t k = 0; k < ad_tape_ninputs(t); k++) sd[k * ad_tape_ninputs(t) + k] = 1;
    if (!ad_eval(t, w, x, &d) && !ad_reverse(t, w, diff, AD_STRICT, wr, &d) &&
        adi_reverse_wide(t, w, NULL, AD_STRICT, wr) == 0 && fabs(wr[i] - gf) <= 1e-6 * fabs(gf))
        return 1;
    if (!ad_forward(t, w, x, diff, sd, ad_tape_ninputs(t), AD_STRICT, wf, &d) &&
        adi_forward_wide(t, w, sd, ad_tape_ninputs(t), AD_STRICT, wf) == 0 && fabs(wf[i] - g) <= 1e-6 * fabs(g))
        return 1;
    double out[16], seeds[16] = {0}, wout[16] = {0};
    for (size_t k = 0; k < sizeof shifts / sizeof *shifts; k++) {
        double s = ldexp(1, shifts[k]);
        wout[0] = s;
        if (!ad_eval(t, w, x, &d) && !ad_reverse_outputs(t, w, diff, AD_STRICT, wout, out, &d) &&
            isfinite(out[i]) && out[i] != 0 && agree(ldexp(out[i], -shifts[k]), gf, fabs(gf)))
            return 1;
        seeds[i] = s;
        if (!ad_forward(t, w, x, diff, seeds, 1, AD_STRICT, out, &d) && isfinite(out[0]) && out[0] != 0 &&
            agree(ldexp(out[0], -shifts[k]), g, fabs(g)))
            return 1;
    }
    if (ad_eval(t, w, x, &d)) return 0;
    double lo = INFINITY, hi = 0;
    for (size_t k = 0; k < ad_tape_size(t); k++) {
        double v = fabs(w->val[k]);
        if (v != 0 && isfinite(v)) lo = fmin(lo, v), hi = fmax(hi, v);
    }
    return hi > 0 && log2(hi) - log2(lo) > 1000;
}

/* forward mode and the gradient of the Hessian's pass against the reverse
 * gradient g at x (which succeeded): the same outcome; the forward
 * gradient within 1e-13 of the sum of the terms' magnitudes (the two add
 * the same terms in other orders), the Hessian's bit for bit (its adjoint
 * part is the reverse sweep) */
static void engines_check(const ad_tape *t, ad_work *w, const double *x, size_t ni, const double *g)
{
    double gf[16], seeds[16 * 16], mag[16], hg[16], hs[16];
    unsigned char diff[16];
    ad_diag d;
    memset(seeds, 0, sizeof seeds);
    for (size_t i = 0; i < ni; i++) {
        diff[i] = 1;
        seeds[i * ni + i] = 1;
    }
    ad_errclass ef = ad_forward(t, w, x, diff, seeds, ni, AD_STRICT, gf, &d);
    /* both engines redo an overflowed point in long double (wide.c), so
     * forward fails where reverse succeeds only if one of them is wrong:
     * reverse is, when its own long double sweep does not fit a double
     * either (an adjoint underflowed to 0 and dropped a term that is
     * beyond the doubles: the underflow limit of man adcalc, BUGS) */
    double wr[16];
    if (ef == AD_E_DOMAIN && strstr(d.msg, "beyond the range of a double") && !ad_eval(t, w, x, &d) &&
        !ad_reverse(t, w, diff, AD_STRICT, wr, &d) && adi_reverse_wide(t, w, NULL, AD_STRICT, wr) == 1)
        return;
    if (ef) {
        fprintf(stderr, "engines: forward fails (%s: %s) where reverse succeeds\n", ad_err_tag(ef), d.msg);
        print_point(x, ni);
        abort();
    }
    if (ad_eval(t, w, x, &d) || ad_reverse_magnitudes(t, w, diff, AD_STRICT, mag, &d)) return;
    /* a subnormal value on the tape keeps a few bits only, and the two
     * engines multiply by it at different moments: there they can differ
     * by far more than 1e-13, both correctly rounded, so no verdict */
    for (size_t i = 0; i < ad_tape_size(t); i++)
        if (w->val[i] != 0 && fabs(w->val[i]) < DBL_MIN) return;
    for (size_t i = 0; i < ni; i++) {
        if (agree(g[i], gf[i], fmax(mag[i], fmax(fabs(g[i]), fabs(gf[i])))) ||
            range_only(t, w, x, diff, i, g[i], gf[i]))
            continue;
        fprintf(stderr, "engines: d/dx%zu forward %a, reverse %a (terms %a)\n", i, gf[i], g[i], mag[i]);
        print_point(x, ni);
        abort();
    }
    double v[16] = {0};
    v[0] = 1;
    if (ad_hessian(t, w, x, diff, v, 1, AD_STRICT, hg, hs, &d)) return;   /* a second derivative may not exist */
    for (size_t i = 0; i < ni; i++)
        if (memcmp(&hg[i], &g[i], sizeof g[i]) != 0) {
            fprintf(stderr, "engines: d/dx%zu of the Hessian's pass %a, reverse %a\n", i, hg[i], g[i]);
            print_point(x, ni);
            abort();
        }
}

static void block_check(const char *at_text, const char *expr, const uint8_t *data, size_t size)
{
    enum { NP = 8 };
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_block *bk = ad_block_new();
    ad_diag d;
    ad_optstats st;
    if (t) {
        ad_tape_set_iterations(t, FUZZ_ITERATIONS);
        declare_at(t, at_text);
    }
    if (!t || !w || !bk || ad_parse(t, expr, strlen(expr), &d) || ad_optimize(t, &st) < 0 ||
        ad_tape_noutputs(t) != 1 || ad_tape_ninputs(t) > 16 || ad_block_width(t) < NP)
        goto out;
    size_t ni = ad_tape_ninputs(t);
    uint64_t h = size;
    for (size_t k = 0; k < size; k++) h = mix(h ^ data[k]);
    double x[NP * 16], out[NP * 17], g[16];
    unsigned char diff[16], fl[NP];
    long cols[16];
    for (size_t i = 0; i < ni; i++) {
        diff[i] = 1;
        cols[i] = (long)i;
    }
    for (size_t k = 0; k < NP * ni; k++) {
        h = mix(h);
        x[k] = awkward[h % (sizeof awkward / sizeof *awkward)];
        /* a few ulps off, but finite: points are finite numbers (batch
         * mode rejects a row with inf or nan before any replay) */
        double y = x[k] * (1.0 + 0x1p-52 * (double)((h >> 16) & 7));
        if ((h >> 8) & 1 && y - y == 0) x[k] = y;
    }
    if (ad_block_run(t, bk, diff, 1, NP, x, cols, ni, out, ni + 1, fl) < 0) goto out;
    for (size_t j = 0; j < NP; j++) {
        ad_errclass e = ad_eval(t, w, x + j * ni, &d);
        if (!e) e = ad_reverse(t, w, diff, AD_STRICT, g, &d);
        if (e) {
            if (!fl[j]) {
                fprintf(stderr, "block: point %zu fails alone (%s: %s) but the block did not flag it\n", j,
                        ad_err_tag(e), d.msg);
                print_point(x + j * ni, ni);
                abort();
            }
            continue;
        }
        engines_check(t, w, x + j * ni, ni, g);
        if (fl[j]) continue;   /* flagging is allowed to be cautious */
        double v = ad_value(t, w);
        if (memcmp(&v, &out[j * (ni + 1)], sizeof v) != 0) {
            fprintf(stderr, "block: point %zu value %a, alone %a\n", j, out[j * (ni + 1)], v);
            print_point(x + j * ni, ni);
            abort();
        }
        /* a nan derivative may differ in its sign bit (see the closing
         * note of 2026-11-22: a partial that is nan at finite values, as
         * b a^(b-1) for b = inf, is printed as nan, not reported) */
        for (size_t i = 0; i < ni; i++)
            if (memcmp(&g[i], &out[j * (ni + 1) + 1 + i], sizeof g[i]) != 0 &&
                !(g[i] != g[i] && out[j * (ni + 1) + 1 + i] != out[j * (ni + 1) + 1 + i])) {
                fprintf(stderr, "block: point %zu d/dx%zu %a, alone %a\n", j, i, out[j * (ni + 1) + 1 + i], g[i]);
                print_point(x + j * ni, ni);
                abort();
            }
    }
out:
    ad_block_free(bk);
    ad_work_free(w);
    ad_tape_free(t);
}

/* A program with control flow (a tape with guards), at points made of
 * awkward values: each point's row and error class are the same whether
 * its workspace has derived other points before (and kept their paths) or
 * not, and the block replay of the rows (sorted by path) gives every row
 * it does not flag to the bit (paths_check). */
static void paths_check(const char *at_text, const char *expr, const uint8_t *data, size_t size)
{
    enum { NP = 8 };
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new(), *alone = ad_work_new();
    ad_block *bk = ad_block_new();
    ad_plan *p = NULL;
    ad_diag d;
    if (t) {
        ad_tape_set_iterations(t, FUZZ_ITERATIONS);
        declare_at(t, at_text);
    }
    if (!t || !w || !alone || !bk || ad_parse(t, expr, strlen(expr), &d) || ad_optimize(t, NULL) < 0 ||
        !ad_tape_nguards(t) || ad_tape_noutputs(t) != 1 || ad_tape_ninputs(t) > 16)
        goto out;
    size_t ni = ad_tape_ninputs(t);
    char names[16][64];
    const char *vars[16];
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *nm = ad_tape_input_name(t, i, &len);
        if (len >= sizeof names[i]) goto out;
        memcpy(names[i], nm, len);
        names[i][len] = 0;
        vars[i] = names[i];
    }
    ad_request rq;
    memset(&rq, 0, sizeof rq);
    rq.vars = vars;
    rq.nvars = ni;
    rq.cols = vars;
    rq.ncols = ni;
    rq.grad = 1;
    rq.many = 1;
    rq.policy = (data[0] & 1) ? AD_ZERO_SUBGRAD : AD_STRICT;
    size_t unbound;
    if (ad_plan_new(t, &rq, &p, &unbound, &d)) goto out;
    uint64_t h = size ^ 0x5bd1e995;
    for (size_t k = 0; k < size; k++) h = mix(h ^ data[k]);
    double x[NP * 16], rows[NP * 17], row[17], brows[NP * 17];
    unsigned char fl[NP];
    for (size_t k = 0; k < NP * ni; k++) {
        h = mix(h);
        x[k] = awkward[h % (sizeof awkward / sizeof *awkward)];
    }
    ad_errclass es[NP];
    for (size_t j = 0; j < NP; j++) {
        es[j] = ad_derive(p, w, x + j * ni, rows + j * (ni + 1), NULL, &d);
        ad_work_free(alone);
        alone = ad_work_new();
        if (!alone) goto out;
        ad_errclass ea = ad_derive(p, alone, x + j * ni, row, NULL, &d);
        if (ea == AD_E_IO || es[j] == AD_E_IO) goto out;   /* the tape or iteration limit */
        if (ea != es[j] || (!ea && memcmp(row, rows + j * (ni + 1), (ni + 1) * sizeof *row) != 0)) {
            fprintf(stderr, "paths: point %zu alone %s, after others %s\n", j, ad_err_tag(ea), ad_err_tag(es[j]));
            print_point(x + j * ni, ni);
            abort();
        }
        if (es[j] == AD_E_PATH) {
            fprintf(stderr, "paths: ad/path escaped ad_derive\n");
            abort();
        }
    }
    if (ad_derive_rows(p, bk, w, NP, x, ni, ni, NULL, brows, fl) < 0) goto out;
    for (size_t j = 0; j < NP; j++) {
        if (fl[j]) continue;
        if (es[j] || memcmp(brows + j * (ni + 1), rows + j * (ni + 1), (ni + 1) * sizeof *rows) != 0) {
            fprintf(stderr, "paths: block row %zu differs from the point (%s)\n", j, ad_err_tag(es[j]));
            print_point(x + j * ni, ni);
            abort();
        }
    }
out:
    ad_plan_free(p);
    ad_block_free(bk);
    ad_work_free(w);
    ad_work_free(alone);
    ad_tape_free(t);
}

/* expression statement's value on tape t at the point: each input's
 * value by name, through the derivation step (which records the path the
 * point takes when the tape has guards); AD_E_NAME when the point has
 * none */
static ad_errclass value_at(const ad_tape *t, ad_work *w, const cli_bindings *at, double *v)
{
    ad_request rq;
    memset(&rq, 0, sizeof rq);
    rq.vars = (const char *const *)at->names;
    rq.nvars = at->n;
    ad_plan *p;
    size_t unbound;
    ad_diag d;
    ad_errclass e = ad_plan_new(t, &rq, &p, &unbound, &d);
    if (e) return e;
    double row[1];
    if (ad_plan_layout(p)->width == 1) {
        e = ad_derive(p, w, at->values, row, NULL, &d);
        if (!e) *v = row[0];
    } else {
        e = AD_E_USAGE;
    }
    ad_plan_free(p);
    return e;
}

/* The session (the REPL's engine, ad_session_run) against whole programs:
 * each expression statement of expr, run after the statements the session
 * kept, records what the program of the kept statements' text and that
 * statement records: the same inputs in the same order, the same value to
 * the bit, or an error of the same class. */
static void session_check(const char *at_text, const char *expr)
{
    cli_bindings at = {0};
    ad_diag d;
    ad_session *s = ad_session_new();
    ad_tape *out = ad_tape_new(), *whole = ad_tape_new();
    ad_work *w = ad_work_new();
    if (s) ad_session_set_iterations(s, FUZZ_ITERATIONS);
    if (whole) ad_tape_set_iterations(whole, FUZZ_ITERATIONS);
    if (!cli_add_bindings("-at", at_text, &at, &d) && s && out && whole && w &&
        !ad_session_point(s, (const char *const *)at.names, at.values, at.n) &&
        !cli_declare_vectors(&at, whole)) {
        size_t len = strlen(expr), pos = 0;
        int line = 1, col = 1;
        ad_stmt st;
        while (ad_next_stmt(expr, len, &pos, &line, &col, &st)) {
            if (st.kind == AD_STMT_EMPTY) continue;
            ad_stmt_kind kind;
            size_t unbound, tl;
            int kept;
            ad_errclass es = ad_session_run(s, expr + st.off, st.len, &kind, out, &unbound, &d);
            if (es == AD_E_IO) break;   /* the tape limit: the session ends */
            if (kind != AD_STMT_EXPR) continue;
            const char *text = ad_session_text(s, &tl, &kept);
            ad_errclass ew = ad_parse(whole, text, tl, &d);
            double vs = 0, vw = 0;
            if (!es) es = value_at(out, w, &at, &vs);
            if (!ew) ew = value_at(whole, w, &at, &vw);
            int same = es == ew && (es || memcmp(&vs, &vw, sizeof vs) == 0 || (vs != vs && vw != vw));
            if (same && !es) {
                /* the program's tape at the point: the path it took there
                 * (a program with guards is recorded at the point) */
                const ad_tape *wt = ad_work_tape(w) ? ad_work_tape(w) : whole;
                same = ad_tape_ninputs(out) == ad_tape_ninputs(wt);
                for (size_t i = 0; same && i < ad_tape_ninputs(out); i++) {
                    size_t l1, l2;
                    const char *n1 = ad_tape_input_name(out, i, &l1), *n2 = ad_tape_input_name(wt, i, &l2);
                    same = l1 == l2 && !memcmp(n1, n2, l1);
                }
            }
            if (!same) {
                fprintf(stderr, "session and program differ at '%.*s': %s %.17g vs %s %.17g (%zu vs %zu inputs)\n",
                        (int)st.len, expr + st.off, ad_err_tag(es), vs, ad_err_tag(ew), vw,
                        es ? 0 : ad_tape_ninputs(out), ew ? 0 : ad_tape_ninputs(whole));
                abort();
            }
        }
    }
    cli_bindings_free(&at);   /* its vectors too */
    ad_session_free(s);
    ad_tape_free(out);
    ad_tape_free(whole);
    ad_work_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    uint8_t flags = data[0];
    const char *rest = (const char *)data + 1;
    size_t n = size - 1;
    const char *nl = memchr(rest, '\n', n);
    size_t atlen = nl ? (size_t)(nl - rest) : 0;
    char *at = malloc(atlen + 1), *expr = malloc(n - (nl ? atlen + 1 : 0) + 1);
    memcpy(at, rest, atlen);
    at[atlen] = 0;
    size_t elen = n - (nl ? atlen + 1 : 0);
    memcpy(expr, nl ? nl + 1 : rest, elen);
    expr[elen] = 0;   /* argv strings end at the first NUL, as on a real command line */

    const char *policy = (flags & 1) ? "zero-subgrad" : "strict";
    const char *fmt = (flags & 2) ? "json" : "text";
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    double vf = 0, vr = 0;
    char *fw[18] = {"adcalc", "-e", expr, "--grad", "--mode", "forward", "--nondiff", (char *)policy,
                    "--format", (char *)fmt, "--max-iterations", "2000"};
    char *rv[18] = {"adcalc", "-e", expr, "--grad", "--mode", "reverse", "--nondiff", (char *)policy,
                    "--format", (char *)fmt, "--max-iterations", "2000"};
    int argc = 12;
    if (atlen) {
        fw[argc] = rv[argc] = "-at";
        argc++;
        fw[argc] = rv[argc] = at;
        argc++;
    }
    ad_errclass ef = one(argc, fw, t, w, &vf, 0);
    ad_errclass er = one(argc, rv, t, w, &vr, (flags & 4) != 0);
    if (ef != er) {
        fprintf(stderr, "forward and reverse disagree: %s vs %s\n", ad_err_tag(ef), ad_err_tag(er));
        abort();
    }
    if (!ef && memcmp(&vf, &vr, sizeof vf) != 0 && !(vf != vf && vr != vr)) {
        fprintf(stderr, "values differ: %.17g vs %.17g\n", vf, vr);
        abort();
    }
    block_check(at, expr, data, size);
    paths_check(at, expr, data, size);
    session_check(at, expr);
    if (flags & 16) {
        char *hv[18] = {"adcalc", "-e", expr, "--hessian", "--nondiff", (char *)policy, "--format", (char *)fmt,
                        "--max-iterations", "2000"};
        double v = 0;
        int n = 10;
        if (atlen) { hv[n++] = "-at"; hv[n++] = at; }
        if (flags & 8 && atlen) { hv[n++] = "--seed"; hv[n++] = at; }
        one(n, hv, t, w, &v, 0);
    }
    if (flags & 32) {
        char ord[8];
        snprintf(ord, sizeof ord, "%d", 1 + flags % 7 * 3);
        char *ov[18] = {"adcalc", "-e", expr, "--order", ord, "--nondiff", (char *)policy, "--format", (char *)fmt,
                        "--max-iterations", "2000"};
        double v = 0;
        int n = 11;
        if (atlen) { ov[n++] = "-at"; ov[n++] = at; ov[n++] = "--seed"; ov[n++] = at; }
        one(n, ov, t, w, &v, 0);
        char *cv[16] = {"adcalc", "-e", expr, "--check", "--nondiff", (char *)policy, "--max-iterations", "2000"};
        n = 8;
        if (atlen) { cv[n++] = "-at"; cv[n++] = at; }
        one(n, cv, t, w, &v, 0);
    }
    if (flags & 64) {
        /* two outputs of one tape */
        char *semi = strchr(expr, ';');
        char *e2 = semi ? semi + 1 : expr;
        if (semi) *semi = 0;
        char *jv[22] = {"adcalc", "-e", expr, "-e", e2, "--jacobian", "--adjoint", "1,-2", "--mode",
                        (flags & 128) ? "reverse" : "auto", "--format", (char *)fmt, "--max-iterations", "2000"};
        double v = 0;
        int n = 14;
        if (atlen) { jv[n++] = "-at"; jv[n++] = at; jv[n++] = "--seed"; jv[n++] = at; }
        one(n, jv, t, w, &v, 0);
    }
    if (flags & 8) {
        /* a seed on every -at variable: the directional derivative path */
        char *sv[16] = {"adcalc", "-e", expr, "--seed", at, "--nondiff", (char *)policy, "--max-iterations", "2000"};
        double v = 0;
        if (atlen) {
            sv[9] = "-at";
            sv[10] = at;
            one(11, sv, t, w, &v, 0);
        }
    }
    ad_tape_free(t);
    ad_work_free(w);
    free(at);
    free(expr);
    return 0;
}
