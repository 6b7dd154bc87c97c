/* test_engine.c - unit tests of the engine's public API (src/lib/adcalc.h),
 * linked against libadcalc.a.
 *
 * Prints TAP-style lines ("ok N - what" / "not ok N - what" followed by
 * "#" detail lines) and a final plan; exits 1 when a check failed.
 *
 * Areas: tape layout (node order, constant de-duplication, positions,
 * texts); ad_tape_reset and re-recording; replaying a recorded tape at many
 * points against parsing afresh; error classes and line:column positions
 * (syntax, names, arity, domain, singular points and kinks); forward
 * against reverse (and finite differences) on random well-conditioned
 * expressions; concurrent use from several threads (own tapes, and one
 * shared read-only tape); deep nesting and very long flat sums; control
 * flow (guards, AD_E_PATH, the paths ad_derive records, a plan with guards
 * shared by threads). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"


/* ---- reporter ---- */

static int ntest, nfail;

static int check(int cond, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int check(int cond, const char *fmt, ...)
{
    va_list ap;
    ntest++;
    if (!cond) nfail++;
    printf("%s %d - ", cond ? "ok" : "not ok", ntest);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
    return cond;
}

static void diag(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static void diag(const char *fmt, ...)
{
    va_list ap;
    fputs("#   ", stdout);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* ---- helpers ---- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(99);
    }
    return p;
}

static ad_errclass parse(ad_tape *t, const char *src, ad_diag *d)
{
    memset(d, 0, sizeof *d);
    return ad_parse(t, src, strlen(src), d);
}

static int name_is(const ad_tape *t, size_t i, const char *name)
{
    size_t len;
    const char *s = ad_tape_input_name(t, i, &len);
    return len == strlen(name) && memcmp(s, name, len) == 0;
}

/* inputs[] in tape order from names[]/vals[] (matched by name); -1 when a
 * tape input has no value */
static int bind(const ad_tape *t, const char *const *names, const double *vals, size_t n,
                double *inputs)
{
    for (size_t i = 0; i < ad_tape_ninputs(t); i++) {
        size_t j;
        for (j = 0; j < n; j++)
            if (name_is(t, i, names[j])) break;
        if (j == n) return -1;
        inputs[i] = vals[j];
    }
    return 0;
}

/* reverse mode, every input differentiated */
static ad_errclass rev_all(const ad_tape *t, ad_work *w, const double *x, ad_policy pol,
                           double *val, double *g, ad_diag *d)
{
    size_t n = ad_tape_ninputs(t);
    unsigned char *diff = xmalloc(n);
    memset(diff, 1, n);
    memset(d, 0, sizeof *d);
    ad_errclass e = ad_eval(t, w, x, d);
    if (!e) e = ad_reverse(t, w, diff, pol, g, d);
    if (!e) *val = ad_value(t, w);
    free(diff);
    return e;
}

/* forward mode, one sweep of width n with identity seeds */
static ad_errclass fwd_all(const ad_tape *t, ad_work *w, const double *x, ad_policy pol,
                           double *val, double *g, ad_diag *d)
{
    size_t n = ad_tape_ninputs(t);
    unsigned char *diff = xmalloc(n);
    double *seeds = xmalloc(n * n * sizeof *seeds);
    memset(diff, 1, n);
    memset(seeds, 0, n * n * sizeof *seeds);
    for (size_t i = 0; i < n; i++) seeds[i * n + i] = 1;
    memset(d, 0, sizeof *d);
    ad_errclass e = ad_forward(t, w, x, diff, seeds, n, pol, g, d);
    if (!e) *val = ad_value(t, w);
    free(diff);
    free(seeds);
    return e;
}

static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int close_rel(double a, double b, double tol)
{
    return fabs(a - b) <= tol * fmax(fabs(a), fabs(b));
}

/* deterministic generator (xorshift64*) so failures are reproducible */
typedef struct { uint64_t s; } rng;
static uint64_t rnext(rng *r)
{
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ULL;
}
static double runif(rng *r, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(rnext(r) >> 11) / 9007199254740992.0);
}
static int rint_(rng *r, int n) { return (int)(rnext(r) % (uint64_t)n); }

/* ---- 1. tape layout ---- */

static void test_layout(void)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    const char *src = "y*2 + x*y - 2.0 + pi + sin(x)*3 + 3.0e0 + z";
    ad_errclass e = parse(t, src, &d);
    if (!check(e == AD_E_NONE, "layout: '%s' parses", src)) {
        diag("%s %d:%d %s", ad_err_tag(e), d.line, d.col, d.msg);
        goto out;
    }
    size_t ni = ad_tape_ninputs(t), nc = ad_tape_nconsts(t), n = ad_tape_size(t);
    check(ni == 3 && nc == 3 && n == 16,
          "layout: 3 inputs, 3 constants (2 = 2.0, 3 = 3.0e0, pi), 16 nodes (got %zu, %zu, %zu)",
          ni, nc, n);
    if (ni != 3 || nc != 3 || n != 16) goto out;
    check(name_is(t, 0, "y") && name_is(t, 1, "x") && name_is(t, 2, "z"),
          "layout: inputs in order of first appearance: y x z");

    const ad_instr *c = ad_tape_code(t);
    int leaves_ok = 1;
    for (size_t i = 0; i < 6; i++)
        leaves_ok &= c[i].op == (i < 3 ? AD_OP_INPUT : AD_OP_CONST) && c[i].a == -1 && c[i].b == -1;
    check(leaves_ok, "layout: nodes 0-2 are inputs, 3-5 constants, without operands");

    const double *cv = ad_tape_consts(t);
    check(cv[0] == 2 && cv[1] == 3.141592653589793 && cv[2] == 3,
          "layout: constants in order of first appearance: 2, pi, 3 (got %.17g %.17g %.17g)",
          cv[0], cv[1], cv[2]);
    const char *want_text[] = {"2", "pi", "3"};
    int texts_ok = 1;
    for (size_t i = 0; i < 3; i++) {
        size_t len;
        const char *s = ad_tape_const_text(t, i, &len);
        texts_ok &= len == strlen(want_text[i]) && memcmp(s, want_text[i], len) == 0;
    }
    check(texts_ok, "layout: constant texts are the first spelling: 2 pi 3");

    /* y*2 + x*y - 2.0 + pi + sin(x)*3 + 3.0e0 + z, y=0 x=1 z=2 | 2 pi 3 */
    static const struct { uint32_t op; int32_t a, b; } want[] = {
        {AD_OP_MUL, 0, 3},  {AD_OP_MUL, 1, 0},  {AD_OP_ADD, 6, 7},  {AD_OP_SUB, 8, 3},
        {AD_OP_ADD, 9, 4},  {AD_OP_SIN, 1, -1}, {AD_OP_MUL, 11, 5}, {AD_OP_ADD, 10, 12},
        {AD_OP_ADD, 13, 5}, {AD_OP_ADD, 14, 2},
    };
    int ops_ok = 1;
    for (size_t i = 6; i < 16; i++) {
        int good = c[i].op == want[i - 6].op && c[i].a == want[i - 6].a && c[i].b == want[i - 6].b;
        if (!good)
            diag("node %zu: op %u (%d, %d), want op %u (%d, %d)", i, c[i].op, c[i].a, c[i].b,
                 want[i - 6].op, want[i - 6].a, want[i - 6].b);
        ops_ok &= good;
    }
    check(ops_ok, "layout: operations in execution order, operands renumbered");
    int ssa = 1;
    for (size_t i = 6; i < n; i++) ssa &= c[i].a >= 0 && (size_t)c[i].a < i && c[i].b < (int32_t)i;
    check(ssa, "layout: every operand precedes its operation");

    int l0, c0, l1, c1, l6, c6, l11, c11;
    ad_tape_pos(t, 0, &l0, &c0);
    ad_tape_pos(t, 1, &l1, &c1);
    ad_tape_pos(t, 6, &l6, &c6);
    ad_tape_pos(t, 11, &l11, &c11);
    check(l0 == 1 && c0 == 1 && l1 == 1 && c1 == 7 && l6 == 1 && c6 == 2 && l11 == 1 && c11 == 24,
          "layout: positions y 1:1, x 1:7, '*' 1:2, sin 1:24 (got %d:%d %d:%d %d:%d %d:%d)", l0, c0,
          l1, c1, l6, c6, l11, c11);

    double x[3] = {1.5, 0.5, -2}; /* y x z */
    double want_v = 1.5 * 2 + 0.5 * 1.5 - 2.0 + 3.141592653589793 + sin(0.5) * 3 + 3.0 + -2;
    e = ad_eval(t, w, x, &d);
    check(e == AD_E_NONE && close_rel(ad_value(t, w), want_v, 1e-15), "layout: value %.17g (want %.17g)",
          ad_value(t, w), want_v);

    /* de-duplication by value, not by spelling; variables named like functions */
    e = parse(t, "0.1 + 0.10000000000000001 + 1e-1 + 1 + 1.0 + 10e-1 + sinx*sin(x)", &d);
    check(e == AD_E_NONE && ad_tape_nconsts(t) == 2 && ad_tape_ninputs(t) == 2 &&
              name_is(t, 0, "sinx") && name_is(t, 1, "x"),
          "layout: equal constants share one node (0.1 x3, 1 x3), sinx is a variable");
    e = parse(t, "x + x*x - x", &d);
    check(e == AD_E_NONE && ad_tape_ninputs(t) == 1 && ad_tape_nconsts(t) == 0 &&
              ad_tape_size(t) == 4,
          "layout: a repeated variable is one input node (x + x*x - x: 4 nodes, got %zu)",
          ad_tape_size(t));
    e = parse(t, "2^3^2", &d);
    check(e == AD_E_NONE && ad_tape_ninputs(t) == 0 && ad_tape_nconsts(t) == 2 &&
              ad_tape_size(t) == 4 && ad_eval(t, w, NULL, &d) == AD_E_NONE && ad_value(t, w) == 512,
          "layout: constant-only 2^3^2 = 512 with 2 constants");
out:
    ad_tape_free(t);
    ad_work_free(w);
}

/* ---- 2. reset and re-recording ---- */

static void test_reset(void)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    double g[8], v;
    const char *big = "sin(a*b) + cos(c/d) + exp(e1) * log(f) + atan2(a, b) * hypot(c, d)";
    const char *names[] = {"a", "b", "c", "d", "e1", "f"};
    double vals[] = {0.3, -1.2, 2.5, 0.7, 0.1, 3.0}, x[8];
    ad_errclass e = parse(t, big, &d);
    e = e ? e : (bind(t, names, vals, 6, x) ? AD_E_NAME : AD_E_NONE);
    e = e ? e : rev_all(t, w, x, AD_STRICT, &v, g, &d);
    check(e == AD_E_NONE, "reset: a 6-variable expression evaluates");

    ad_tape_reset(t);
    check(ad_tape_size(t) == 0 && ad_tape_ninputs(t) == 0 && ad_tape_nconsts(t) == 0,
          "reset: ad_tape_reset empties the tape");

    const char *small = "p - q";
    const char *n2[] = {"p", "q"};
    double v2[] = {4, 1.5};
    e = parse(t, small, &d);
    int ok = e == AD_E_NONE && ad_tape_size(t) == 3 && ad_tape_ninputs(t) == 2 &&
             name_is(t, 0, "p") && name_is(t, 1, "q") && bind(t, n2, v2, 2, x) == 0 &&
             rev_all(t, w, x, AD_STRICT, &v, g, &d) == AD_E_NONE && v == 2.5 && g[0] == 1 &&
             g[1] == -1;
    check(ok, "reset: a smaller expression after reset: p - q = 2.5, grad (1, -1)");

    /* a failed parse leaves a usable tape */
    e = parse(t, "p - (q +", &d);
    check(e == AD_E_SYNTAX, "reset: failed parse reports ad/syntax (got %s)", ad_err_tag(e));
    e = parse(t, "q * q", &d);
    ok = e == AD_E_NONE && ad_tape_ninputs(t) == 1 && name_is(t, 0, "q") &&
         bind(t, n2, v2, 2, x) == 0 && rev_all(t, w, x, AD_STRICT, &v, g, &d) == AD_E_NONE &&
         v == 2.25 && g[0] == 3;
    check(ok, "reset: the tape works after a failed parse: q*q = 2.25, grad 3");

    /* the big one again, explicitly reset first; same results as before */
    double v0, g0[8];
    e = parse(t, big, &d);
    e = e ? e : (bind(t, names, vals, 6, x) ? AD_E_NAME : AD_E_NONE);
    e = e ? e : rev_all(t, w, x, AD_STRICT, &v0, g0, &d);
    ad_tape *fresh = ad_tape_new();
    ad_work *w2 = ad_work_new();
    double v1 = 0, g1[8];
    ad_errclass e1 = parse(fresh, big, &d);
    e1 = e1 ? e1 : (bind(fresh, names, vals, 6, x) ? AD_E_NAME : AD_E_NONE);
    e1 = e1 ? e1 : rev_all(fresh, w2, x, AD_STRICT, &v1, g1, &d);
    ok = e == AD_E_NONE && e1 == AD_E_NONE && same(v0, v1);
    for (int i = 0; ok && i < 6; i++) ok = same(g0[i], g1[i]);
    check(ok, "reset: re-recorded big expression equals a fresh tape's results");

    /* many re-recordings of different sizes on one tape and one work */
    rng r = {0x9E3779B97F4A7C15ULL};
    int bad = 0;
    for (int it = 0; it < 200 && !bad; it++) {
        int terms = 1 + rint_(&r, 60);
        char buf[2048];
        size_t o = 0;
        double want = 0;
        for (int k = 0; k < terms; k++) {
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%sv%d", k ? " + " : "", k);
            want += k * 0.5;
        }
        const char *nm[64];
        char nmbuf[64][16];
        double vv[64];
        for (int k = 0; k < terms; k++) {
            snprintf(nmbuf[k], sizeof nmbuf[k], "v%d", k);
            nm[k] = nmbuf[k];
            vv[k] = k * 0.5;
        }
        double xx[64], gg[64], val;
        if (parse(t, buf, &d) || ad_tape_ninputs(t) != (size_t)terms ||
            bind(t, nm, vv, (size_t)terms, xx) || rev_all(t, w, xx, AD_STRICT, &val, gg, &d) ||
            val != want)
            bad = 1;
        for (int k = 0; !bad && k < terms; k++)
            if (gg[k] != 1) bad = 1;
        if (bad) diag("iteration %d: %s", it, buf);
    }
    check(!bad, "reset: 200 re-recordings of sums of 1-60 variables on one tape");
    ad_tape_free(t);
    ad_tape_free(fresh);
    ad_work_free(w);
    ad_work_free(w2);
}

/* ---- 3. replay ---- */

static void test_replay(void)
{
    const char *src = "sin(x*y) + exp(z/3) * hypot(x, z) - atan2(y, x) + log1p(x*x) / (2 + "
                      "cos(y)) + max(x, z) * tanh(y - z) + cbrt(x + 5) + abs(y)";
    const char *names[] = {"x", "y", "z"};
    ad_tape *rec = ad_tape_new(), *fresh = ad_tape_new();
    ad_work *w = ad_work_new(), *wf = ad_work_new();
    ad_diag d;
    if (!check(parse(rec, src, &d) == AD_E_NONE, "replay: expression parses once")) goto out;
    rng r = {12345};
    int mism = 0, errs = 0, npts = 2000;
    for (int p = 0; p < npts; p++) {
        double pt[3] = {runif(&r, -3, 3), runif(&r, -3, 3), runif(&r, -3, 3)};
        double x[3], xf[3], v1 = 0, v2 = 0, v3 = 0, v4 = 0, g1[3], g2[3], g3[3], g4[3];
        if (bind(rec, names, pt, 3, x)) { errs++; continue; }
        ad_errclass a = rev_all(rec, w, x, AD_STRICT, &v1, g1, &d);
        ad_errclass b = fwd_all(rec, w, x, AD_STRICT, &v2, g2, &d);
        ad_errclass c = parse(fresh, src, &d);
        if (c || bind(fresh, names, pt, 3, xf)) { errs++; continue; }
        ad_errclass e3 = rev_all(fresh, wf, xf, AD_STRICT, &v3, g3, &d);
        ad_errclass e4 = fwd_all(fresh, wf, xf, AD_STRICT, &v4, g4, &d);
        if (a || b || e3 || e4) { errs++; continue; }
        int ok = same(v1, v3) && same(v2, v4);
        for (int i = 0; i < 3; i++) ok &= same(g1[i], g3[i]) && same(g2[i], g4[i]);
        if (!ok && mism++ < 3)
            diag("point (%.17g, %.17g, %.17g): replay %.17g / fresh %.17g", pt[0], pt[1], pt[2],
                 v1, v3);
    }
    check(mism == 0 && errs == 0,
          "replay: %d points, recorded tape replayed == parsed afresh, both modes, bitwise "
          "(%d mismatches, %d errors)", npts, mism, errs);

    /* a domain error during a replay does not spoil later replays */
    const char *src2 = "log(x) * sqrt(y) + x / y";
    const char *n2[] = {"x", "y"};
    if (parse(rec, src2, &d) != AD_E_NONE) {
        check(0, "replay: second expression parses");
        goto out;
    }
    double pts[][2] = {{2, 3}, {-1, 3}, {2, 3}, {2, 0}, {2, 3}, {0.5, 0.25}};
    int ok = 1;
    for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
        double x[2], v1 = 0, v2 = 0, g1[2], g2[2];
        bind(rec, n2, pts[p], 2, x);
        ad_errclass a = rev_all(rec, w, x, AD_STRICT, &v1, g1, &d);
        ad_errclass b = fwd_all(rec, w, x, AD_STRICT, &v2, g2, &d);
        ad_errclass want = (pts[p][0] <= 0 || pts[p][1] == 0) ? AD_E_DOMAIN : AD_E_NONE;
        /* y = 0: sqrt is singular (strict) and x / 0 a domain error: both domain */
        double X = pts[p][0], Y = pts[p][1];
        double wv = log(X) * sqrt(Y) + X / Y;
        double wgx = sqrt(Y) / X + 1 / Y;
        double wgy = log(X) * 0.5 / sqrt(Y) - (X / Y) / Y;
        if (a != want || b != want) {
            ok = 0;
            diag("point %zu: %s/%s, want %s", p, ad_err_tag(a), ad_err_tag(b), ad_err_tag(want));
        } else if (!want && !(close_rel(v1, wv, 1e-15) && same(v1, v2) &&
                              close_rel(g1[0], wgx, 1e-14) && close_rel(g1[1], wgy, 1e-14) &&
                              close_rel(g2[0], wgx, 1e-14) && close_rel(g2[1], wgy, 1e-14))) {
            ok = 0;
            diag("point %zu: value %.17g grad %.17g %.17g", p, v1, g1[0], g1[1]);
        }
    }
    check(ok, "replay: errors at some points, correct results at the others (same tape)");
out:
    ad_tape_free(rec);
    ad_tape_free(fresh);
    ad_work_free(w);
    ad_work_free(wf);
}

/* ---- 4. errors and positions ---- */

static void test_parse_errors(void)
{
    static const struct {
        const char *src;
        ad_errclass cls;
        int line, col;
        const char *msg; /* substring of the message, or NULL */
    } cases[] = {
        {"x + * y", AD_E_SYNTAX, 1, 5, "'*'"},
        {"x +\n  * y", AD_E_SYNTAX, 2, 3, NULL},
        {"x +\n\n    y )", AD_E_SYNTAX, 3, 7, ")"},
        {"2x", AD_E_SYNTAX, 1, 1, "2x"},
        {"x $ y", AD_E_SYNTAX, 1, 3, "$"},
        {"(x + 1", AD_E_SYNTAX, 1, 7, "1:1"},
        {"x + 1)", AD_E_SYNTAX, 1, 6, ")"},
        {"x +", AD_E_SYNTAX, 1, 4, "end of input"},
        {"x y", AD_E_SYNTAX, 1, 3, NULL},
        {"", AD_E_SYNTAX, 0, 0, NULL},
        {"x ** 2", AD_E_SYNTAX, 1, 3, "^"},
        {"1 + foo(x)", AD_E_NAME, 1, 5, "foo"},
        {"sinn(x)", AD_E_NAME, 1, 1, "sin"},
        {"2 *\n exq(x)", AD_E_NAME, 2, 2, "exq"},
        {"atan2(x)", AD_E_SYNTAX, 1, 1, "atan2"},
        {"1 +\n sin(x, y)", AD_E_SYNTAX, 2, 2, "sin"},
        {"min(x)", AD_E_SYNTAX, 1, 1, "min"},
        {"x * sin()", AD_E_SYNTAX, 1, 5, "sin"},
        {"pow(x, 2, 3)", AD_E_SYNTAX, 1, 1, "pow"},
        {"1e999", AD_E_SYNTAX, 1, 1, NULL},
    };
    ad_tape *t = ad_tape_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ad_diag d;
        ad_errclass e = parse(t, cases[i].src, &d);
        int ok = e == cases[i].cls && (cases[i].line == 0 || (d.line == cases[i].line &&
                                                               d.col == cases[i].col)) &&
                 (!cases[i].msg || strstr(d.msg, cases[i].msg)) && d.cls == e;
        char shown[64];
        size_t k = 0;
        for (const char *s = cases[i].src; *s && k < sizeof shown - 3; s++) {
            if (*s == '\n') { shown[k++] = '\\'; shown[k++] = 'n'; }
            else shown[k++] = *s;
        }
        shown[k] = 0;
        if (!check(ok, "errors: '%s' -> %s at %d:%d", shown, ad_err_tag(cases[i].cls),
                   cases[i].line, cases[i].col))
            diag("got %s at %d:%d: %s", ad_err_tag(e), d.line, d.col, d.msg);
        check(ad_tape_size(t) == 0, "errors: nothing recorded after '%s'", shown);
    }
    /* no diagnostic record: still the class, no crash */
    ad_errclass e1 = ad_parse(t, "x +", 3, NULL), e2 = ad_parse(t, "nope(1)", 7, NULL);
    ad_errclass e3 = ad_parse(t, "sin(1, 2)", 9, NULL);
    check(e1 == AD_E_SYNTAX && e3 == AD_E_SYNTAX,
          "errors: ad_parse with d == NULL: 'x +' and 'sin(1, 2)' -> ad/syntax (got %s, %s)",
          ad_err_tag(e1), ad_err_tag(e3));
    check(e2 == AD_E_NAME, "errors: ad_parse with d == NULL: 'nope(1)' -> ad/name (got %s)",
          ad_err_tag(e2));
    /* the source is src[0..len), not NUL-terminated */
    ad_diag d;
    memset(&d, 0, sizeof d);
    check(ad_parse(t, "x + y + (", 5, &d) == AD_E_NONE && ad_tape_ninputs(t) == 2,
          "errors: only len bytes of the source are read ('x + y' of 'x + y + (')");
    ad_tape_free(t);
}

/* one evaluation-error case, in reverse (ad_eval + ad_reverse) and forward mode */
static void eval_case(const char *src, const char *const *names, const double *vals, size_t n,
                      const unsigned char *diff_by_name, ad_policy pol, ad_errclass want,
                      int line, int col, double want_v, const double *want_g)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    const char *pn = pol == AD_STRICT ? "strict" : "zero-subgrad";
    ad_errclass e = parse(t, src, &d);
    size_t ni = ad_tape_ninputs(t);
    double x[8], g[8], out[8], seeds[64];
    unsigned char diff[8];
    if (e || ni > 8 || bind(t, names, vals, n, x)) {
        check(0, "eval: '%s' parses (%s %s)", src, ad_err_tag(e), d.msg);
        goto out;
    }
    memset(seeds, 0, sizeof seeds);
    for (size_t i = 0; i < ni; i++) {
        size_t j;
        for (j = 0; j < n; j++)
            if (name_is(t, i, names[j])) break;
        diff[i] = diff_by_name ? diff_by_name[j] : 1;
        seeds[i * ni + i] = 1;
    }
    for (int mode = 0; mode < 2; mode++) {
        memset(&d, 0, sizeof d);
        if (mode == 0) {
            e = ad_eval(t, w, x, &d);
            if (!e) e = ad_reverse(t, w, diff, pol, g, &d);
        } else {
            e = ad_forward(t, w, x, diff, seeds, ni, pol, out, &d);
            memcpy(g, out, ni * sizeof *g);
        }
        const char *mn = mode ? "forward" : "reverse";
        char shown[64];
        size_t k = 0;
        for (const char *p = src; *p && k < sizeof shown - 3; p++) {
            if (*p == '\n') { shown[k++] = '\\'; shown[k++] = 'n'; }
            else shown[k++] = *p;
        }
        shown[k] = 0;
        int ok = e == want && d.cls == e && (want == AD_E_NONE || (d.line == line && d.col == col));
        if (ok && want == AD_E_NONE) {
            ok = close_rel(ad_value(t, w), want_v, 1e-15) || ad_value(t, w) == want_v;
            for (size_t i = 0; i < ni; i++) {
                size_t j;
                for (j = 0; j < n; j++)
                    if (name_is(t, i, names[j])) break;
                ok &= close_rel(g[i], want_g[j], 1e-15) || g[i] == want_g[j];
            }
        }
        if (!check(ok, "eval: %s, %s, '%s' -> %s%s", mn, pn, shown, ad_err_tag(want),
                   want ? " at the failing operation" : " with value and gradient")) {
            diag("got %s at %d:%d: %s (want %d:%d)", ad_err_tag(e), d.line, d.col, d.msg, line,
                 col);
            if (!e) {
                diag("value %.17g (want %.17g)", ad_value(t, w), want_v);
                for (size_t i = 0; i < ni; i++) diag("g[%zu] = %.17g", i, g[i]);
            }
        }
    }
out:
    ad_tape_free(t);
    ad_work_free(w);
}

static void test_eval_errors(void)
{
    const char *x[] = {"x"}, *xy[] = {"x", "y"};
    double one[] = {1}, zero[] = {0}, m8[] = {-8}, x1y2[] = {1, 2}, z2[] = {0, 0}, t2[] = {2, 2};
    double g0[] = {0, 0}, gsum[] = {1.5, 1.5};
    unsigned char only_y[] = {0, 1}, none[] = {0, 0};

    /* domain errors: position of the failing operation, both policies */
    for (int p = 0; p < 2; p++) {
        ad_policy pol = p ? AD_ZERO_SUBGRAD : AD_STRICT;
        eval_case("1 + log(x - 2)", x, one, 1, NULL, pol, AD_E_DOMAIN, 1, 5, 0, NULL);
        eval_case("x / (y - y)", xy, x1y2, 2, NULL, pol, AD_E_DOMAIN, 1, 3, 0, NULL);
        eval_case("x +\n  2 * sqrt(x - 3)", x, one, 1, NULL, pol, AD_E_DOMAIN, 2, 7, 0, NULL);
        eval_case("(-8)^(1/3) + x", x, one, 1, NULL, pol, AD_E_DOMAIN, 1, 5, 0, NULL);
        eval_case("x^y", xy, (double[]){-8, 0.5}, 2, NULL, pol, AD_E_DOMAIN, 1, 2, 0, NULL);
        eval_case("pow(x, -1)", x, zero, 1, NULL, pol, AD_E_DOMAIN, 1, 1, 0, NULL);
        eval_case("atan2(x, x)", x, zero, 1, NULL, pol, AD_E_DOMAIN, 1, 1, 0, NULL);
        eval_case("asin(x / 2) + acosh(x)", x, (double[]){2.5}, 1, NULL, pol, AD_E_DOMAIN, 1, 1, 0,
                  NULL);
        /* everything is evaluated: the unselected branch, a factor times 0 */
        eval_case("max(x, log(x - 5)) + 0 * sqrt(-x)", x, one, 1, NULL, pol, AD_E_DOMAIN, 1, 8, 0,
                  NULL);
        eval_case("0 * log(x - 5)", x, one, 1, NULL, pol, AD_E_DOMAIN, 1, 5, 0, NULL);
        /* domain takes precedence over a kink (strict) */
        eval_case("abs(x) + log(x)", x, zero, 1, NULL, pol, AD_E_DOMAIN, 1, 10, 0, NULL);
    }
    /* cbrt of a negative number is fine: -2, derivative 1/12 */
    eval_case("cbrt(x)", x, m8, 1, NULL, AD_STRICT, AD_E_NONE, 0, 0, -2, (double[]){1.0 / 12});
    eval_case("pow(x, 3)", x, (double[]){-2}, 1, NULL, AD_STRICT, AD_E_NONE, 0, 0, -8,
              (double[]){12});

    /* singular derivatives: strict -> domain at the operation; zero-subgrad -> 0 */
    eval_case("1 + sqrt(x)", x, zero, 1, NULL, AD_STRICT, AD_E_DOMAIN, 1, 5, 0, NULL);
    eval_case("1 + sqrt(x)", x, zero, 1, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0, 0, 1, g0);
    eval_case("pow(x, 0.5)", x, zero, 1, NULL, AD_STRICT, AD_E_DOMAIN, 1, 1, 0, NULL);
    eval_case("x^y", xy, z2, 2, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0, 0, 1, g0);
    eval_case("asin(x)", x, one, 1, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0, 0, asin(1.0), g0);
    eval_case("x^2", x, zero, 1, NULL, AD_STRICT, AD_E_NONE, 0, 0, 0, g0);
    eval_case("pow(x, 1)", x, zero, 1, NULL, AD_STRICT, AD_E_NONE, 0, 0, 0, (double[]){1});
    /* domain precedes the singular sqrt and the tied max */
    eval_case("max(x, y) * sqrt(x - y)", xy, t2, 2, NULL, AD_STRICT, AD_E_DOMAIN, 1, 13, 0, NULL);

    /* kinks: strict -> nondiff at the (first) kink; zero-subgrad -> 0 */
    eval_case("2 * abs(x - 1)", x, one, 1, NULL, AD_STRICT, AD_E_NONDIFF, 1, 5, 0, NULL);
    eval_case("2 * abs(x - 1)", x, one, 1, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0, 0, 0, g0);
    eval_case("max(x, y) + 1", xy, t2, 2, NULL, AD_STRICT, AD_E_NONDIFF, 1, 1, 0, NULL);
    eval_case("max(x, y) + 1", xy, t2, 2, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0, 0, 3, g0);
    eval_case("x*y + abs(x - y)", xy, (double[]){1.5, 1.5}, 2, NULL, AD_ZERO_SUBGRAD, AD_E_NONE, 0,
              0, 2.25, gsum);
    eval_case("hypot(x, y)", xy, z2, 2, NULL, AD_STRICT, AD_E_NONDIFF, 1, 1, 0, NULL);
    eval_case("abs(x) +\n abs(y)", xy, z2, 2, NULL, AD_STRICT, AD_E_NONDIFF, 1, 1, 0, NULL);
    eval_case("min(x, 3) * abs(y)", xy, (double[]){3, 0}, 2, NULL, AD_STRICT, AD_E_NONDIFF, 1, 1,
              0, NULL);
    /* a kink matters only downstream of a differentiated input */
    eval_case("abs(x) * y", xy, (double[]){0, 1}, 2, only_y, AD_STRICT, AD_E_NONE, 0, 0, 0, g0);
    eval_case("abs(x) + sqrt(y)", xy, z2, 2, none, AD_STRICT, AD_E_NONE, 0, 0, 0, g0);
}

/* ---- 5. forward against reverse on random expressions ---- */

#define NV 4
static const char *const vname[NV] = {"x0", "x1", "x2", "x3"};

/* appends a random well-conditioned expression (real-analytic everywhere,
 * moderate values) to buf; single: each variable used at most once */
static void gen(rng *r, int depth, char *buf, size_t cap, size_t *o, int nv, int *used,
                int single)
{
#define OUT(...) (*o += (size_t)snprintf(buf + *o, *o < cap ? cap - *o : 0, __VA_ARGS__))
    if (depth == 0 || rint_(r, 10) < 2) {
        int v = rint_(r, nv);
        if (single && used[v]) {
            for (v = 0; v < nv && used[v]; v++) {}
        }
        if (v < nv && rint_(r, 4) != 0) {
            used[v] = 1;
            OUT("%s", vname[v]);
        } else {
            OUT("%.3g", runif(r, 0.25, 2.5));
        }
        return;
    }
    static const char *const un[][2] = {
        {"sin(", ")"},          {"cos(", ")"},           {"atan(", ")"},
        {"tanh(", ")"},         {"erf(", ")"},           {"asinh(", ")"},
        {"exp(sin(", "))"},     {"log(2 + cos(", "))"},  {"hypot(", ", 0.5)"},
        {"cbrt(2 + sin(", "))"}, {"1 / (1.5 + sin(", "))"}, {"expm1(tanh(", "))"},
        {"log1p(exp(tanh(", ")))"}, {"sqrt(3 + sin(", "))"}, {"-(", ")"},
        {"acos(0.5*tanh(", "))"}, {"(", ")^2"},          {"erfc(", ")"},
    };
    static const char *const bin[][3] = {
        {"(", " + ", ")"},       {"(", " - ", ")"},           {"(", " * ", ")"},
        {"(", " / (2 + tanh(", ")))"}, {"pow(1.5 + sin(", "), tanh(", "))"},
        {"atan2(", ", 2 + cos(", "))"}, {"hypot(", ", 1 + ", "^2)"},
    };
    int nu = (int)(sizeof un / sizeof un[0]), nb = (int)(sizeof bin / sizeof bin[0]);
    int k = rint_(r, nu + nb);
    if (k < nu) {
        OUT("%s", un[k][0]);
        gen(r, depth - 1, buf, cap, o, nv, used, single);
        OUT("%s", un[k][1]);
    } else {
        k -= nu;
        OUT("%s", bin[k][0]);
        gen(r, depth - 1, buf, cap, o, nv, used, single);
        OUT("%s", bin[k][1]);
        gen(r, depth - 1, buf, cap, o, nv, used, single);
        OUT("%s", bin[k][2]);
    }
#undef OUT
}

static void test_random(void)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    rng r = {0xC0FFEE1234567ULL};
    char buf[65536];
    int nexpr = 0, npoints = 0, bad_fr = 0, bad_fd = 0, bad_k1 = 0, bad_jvp = 0, errs = 0;
    int bad_single = 0;
    double worst_fr = 0, worst_fd = 0;
    for (int e_i = 0; e_i < 400; e_i++) {
        int single = e_i % 2;
        int nv = 1 + rint_(&r, NV), used[NV] = {0};
        size_t o = 0;
        gen(&r, 3 + rint_(&r, 5), buf, sizeof buf, &o, nv, used, single);
        if (o >= sizeof buf) continue;
        ad_diag d;
        if (parse(t, buf, &d) != AD_E_NONE) {
            errs++;
            diag("does not parse: %s (%s)", buf, d.msg);
            continue;
        }
        nexpr++;
        size_t ni = ad_tape_ninputs(t);
        for (int p = 0; p < 5; p++) {
            double pt[NV], x[NV], vr = 0, vf = 0, gr[NV] = {0}, gf[NV] = {0};
            for (int i = 0; i < NV; i++) pt[i] = runif(&r, -2, 2);
            if (bind(t, (const char *const *)vname, pt, NV, x)) { errs++; continue; }
            npoints++;
            if (rev_all(t, w, x, AD_STRICT, &vr, gr, &d) || fwd_all(t, w, x, AD_STRICT, &vf, gf, &d)) {
                errs++;
                diag("%s: %s %s", buf, ad_err_tag(d.cls), d.msg);
                continue;
            }
            if (!same(vr, vf)) bad_fr++;
            for (size_t i = 0; i < ni; i++) {
                /* single-occurrence expressions: one path product each, so the two
                 * modes differ only by the association of the product */
                double diff = fabs(gf[i] - gr[i]), m = fmax(fabs(gf[i]), fabs(gr[i]));
                double rel = diff == 0 ? 0 : diff / m;
                if (rel > worst_fr) worst_fr = rel;
                if (single && !(diff <= 1e-13 * m)) {
                    bad_single++;
                    diag("single %s at point %d: d/d%zu fwd %.17g rev %.17g", buf, p, i, gf[i], gr[i]);
                } else if (!single && !(diff <= 1e-10 * fmax(m, 1e-3))) {
                    bad_fr++;
                    diag("%s at point %d: d/d%zu fwd %.17g rev %.17g", buf, p, i, gf[i], gr[i]);
                }
            }
            /* width 1, one direction at a time: the same numbers bitwise */
            unsigned char diff[NV];
            memset(diff, 1, sizeof diff);
            for (size_t j = 0; j < ni; j++) {
                double seed[NV] = {0}, out = 0;
                seed[j] = 1;
                if (ad_forward(t, w, x, diff, seed, 1, AD_STRICT, &out, &d) || !same(out, gf[j]))
                    bad_k1++;
            }
            /* a random direction: forward jvp against gradient . seed */
            double seed[NV], jf = 0, jr = 0, sabs = 0;
            for (size_t j = 0; j < ni; j++) {
                seed[j] = runif(&r, -1, 1);
                jr += gr[j] * seed[j];
                sabs += fabs(gr[j] * seed[j]);
            }
            if (ad_forward(t, w, x, diff, seed, 1, AD_STRICT, &jf, &d) ||
                !(fabs(jf - jr) <= 1e-12 * fmax(sabs, 1e-3)))
                bad_jvp++;
            /* central differences (derivatives are real derivatives) */
            for (size_t j = 0; j < ni; j++) {
                double h = 1e-5 * fmax(1, fabs(x[j])), xp[NV], vp, vm;
                memcpy(xp, x, sizeof xp);
                xp[j] = x[j] + h;
                if (ad_eval(t, w, xp, &d)) { bad_fd++; continue; }
                vp = ad_value(t, w);
                xp[j] = x[j] - h;
                if (ad_eval(t, w, xp, &d)) { bad_fd++; continue; }
                vm = ad_value(t, w);
                double fd = (vp - vm) / (2 * h);
                double err = fabs(fd - gr[j]) / fmax(1, fabs(gr[j]));
                if (err > worst_fd) worst_fd = err;
                if (err > 1e-5) {
                    bad_fd++;
                    diag("%s: d/d%zu reverse %.17g, central difference %.17g", buf, j, gr[j], fd);
                }
            }
        }
    }
    check(errs == 0 && nexpr > 300, "random: %d expressions parse and evaluate at %d points",
          nexpr, npoints);
    check(bad_single == 0, "random: single-occurrence expressions, forward == reverse within 1e-13 "
          "relative (%d bad)", bad_single);
    check(bad_fr == 0, "random: forward and reverse agree (%d bad; worst relative %.3g)", bad_fr,
          worst_fr);
    check(bad_k1 == 0, "random: width-1 sweeps == columns of the width-n sweep (%d bad)", bad_k1);
    check(bad_jvp == 0, "random: forward jvp == gradient . seed (%d bad)", bad_jvp);
    check(bad_fd == 0, "random: gradients match central differences (%d bad; worst %.3g)", bad_fd,
          worst_fd);
    ad_tape_free(t);
    ad_work_free(w);
}

/* ---- 6. threads ---- */

#define NEXPR 40
#define NPTS 25
#define NTHREADS 4
static char *thr_expr[NEXPR];
static double thr_pts[NPTS][NV];
typedef struct {
    double v, g[NV], fg[NV];
    ad_errclass e;
    int line, col;
} result;
static result base[NEXPR][NPTS];

/* parse + eval + reverse + forward of every expression at every point */
static void compute_all(result (*res)[NPTS], int rounds)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < NEXPR; i++) {
            ad_diag d;
            ad_errclass e = parse(t, thr_expr[i], &d);
            for (int p = 0; p < NPTS; p++) {
                result *R = &res[i][p];
                memset(R, 0, sizeof *R);
                double x[NV], fv = 0;
                if (!e && bind(t, (const char *const *)vname, thr_pts[p], NV, x)) e = AD_E_NAME;
                R->e = e ? e : rev_all(t, w, x, AD_ZERO_SUBGRAD, &R->v, R->g, &d);
                if (!R->e) R->e = fwd_all(t, w, x, AD_ZERO_SUBGRAD, &fv, R->fg, &d);
                if (R->e) {
                    R->line = d.line;
                    R->col = d.col;
                }
            }
        }
    ad_tape_free(t);
    ad_work_free(w);
}

static int same_results(result (*a)[NPTS], result (*b)[NPTS])
{
    for (int i = 0; i < NEXPR; i++)
        for (int p = 0; p < NPTS; p++) {
            const result *x = &a[i][p], *y = &b[i][p];
            if (x->e != y->e || x->line != y->line || x->col != y->col || !same(x->v, y->v))
                return 0;
            for (int j = 0; j < NV; j++)
                if (!same(x->g[j], y->g[j]) || !same(x->fg[j], y->fg[j])) return 0;
        }
    return 1;
}

/* all threads start together, so their sweeps overlap */
static pthread_barrier_t start_line;

/* every round is compared with the single-threaded results */
typedef struct {
    result (*res)[NPTS];
    int mismatches;
} own_job;

static void *thread_own(void *arg)
{
    own_job *J = arg;
    pthread_barrier_wait(&start_line);
    for (int round = 0; round < 10; round++) {
        compute_all(J->res, 1);
        if (!same_results(base, J->res)) J->mismatches++;
    }
    return NULL;
}

/* one shared, read-only tape; each thread its own workspace */
static ad_tape *shared_tape;
typedef struct {
    int first, mismatches;
    double v[NPTS], g[NPTS][NV];
    ad_errclass e[NPTS];
} shared_job;
static shared_job shared_want;

static void *thread_shared(void *arg)
{
    shared_job *J = arg;
    ad_work *w = ad_work_new();
    pthread_barrier_wait(&start_line);
    for (int round = 0; round < 40; round++)
        for (int k = 0; k < NPTS; k++) {
            int p = (k + J->first) % NPTS;
            double x[NV];
            ad_diag d;
            bind(shared_tape, (const char *const *)vname, thr_pts[p], NV, x);
            J->e[p] = rev_all(shared_tape, w, x, AD_ZERO_SUBGRAD, &J->v[p], J->g[p], &d);
            int ok = J->e[p] == shared_want.e[p] && same(J->v[p], shared_want.v[p]);
            for (int j = 0; j < NV; j++) ok &= same(J->g[p][j], shared_want.g[p][j]);
            if (!ok) J->mismatches++;
        }
    ad_work_free(w);
    return NULL;
}

static void test_threads(void)
{
    rng r = {777};
    char buf[65536];
    for (int i = 0; i < NEXPR; i++) {
        int used[NV] = {0};
        size_t o = 0;
        if (i == 0) {
            thr_expr[i] = strdup("log(x0) + abs(x1) * sqrt(x2) + max(x3, 0)");
            continue;
        }
        gen(&r, 5, buf, sizeof buf, &o, NV, used, 0);
        thr_expr[i] = strdup(buf);
    }
    for (int p = 0; p < NPTS; p++)
        for (int j = 0; j < NV; j++) thr_pts[p][j] = p == 0 ? 0 : runif(&r, -2, 2);
    compute_all(base, 1);

    result (*res)[NEXPR][NPTS] = xmalloc(NTHREADS * sizeof *res);
    own_job own[NTHREADS];
    pthread_t th[NTHREADS];
    if (pthread_barrier_init(&start_line, NULL, NTHREADS) != 0) {
        check(0, "threads: pthread_barrier_init");
        free(res);
        return;
    }
    int started = 0;
    for (int k = 0; k < NTHREADS; k++) {
        own[k].res = res[k];
        own[k].mismatches = 0;
        if (pthread_create(&th[k], NULL, thread_own, &own[k]) == 0) started++;
        else break;
    }
    if (started < NTHREADS) {   /* the barrier would never open */
        fprintf(stderr, "cannot start %d threads\n", NTHREADS);
        exit(99);
    }
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
    int ok = started == NTHREADS, bad = 0;
    for (int k = 0; k < NTHREADS; k++) bad += own[k].mismatches;
    check(ok && bad == 0, "threads: %d threads x 10 rounds, own tapes and workspaces, "
          "parse+eval+reverse+forward == single-threaded results, errors and positions too "
          "(%d rounds differ)", NTHREADS, bad);
    free(res);

    /* one shared tape: the sum of all the expressions (long sweeps, so the
     * threads' sweeps overlap) */
    ad_diag d;
    size_t biglen = 16;
    for (int i = 1; i < NEXPR; i++) biglen += 10 * (strlen(thr_expr[i]) + 5);
    char *big = xmalloc(biglen);
    size_t o = 0;
    for (int rep = 0; rep < 10; rep++)
        for (int i = 1; i < NEXPR; i++)
            o += (size_t)sprintf(big + o, "%s(%s)", o ? " + " : "", thr_expr[i]);
    shared_tape = ad_tape_new();
    if (parse(shared_tape, big, &d) != AD_E_NONE || ad_tape_ninputs(shared_tape) != NV) {
        check(0, "threads: the shared expression parses, with %d inputs", NV);
    } else {
        shared_job jobs[NTHREADS];
        shared_job *want = &shared_want;
        memset(want, 0, sizeof *want);
        memset(jobs, 0, sizeof jobs);
        ad_work *w = ad_work_new();
        for (int p = 0; p < NPTS; p++) {
            double x[NV];
            bind(shared_tape, vname, thr_pts[p], NV, x);
            want->e[p] = rev_all(shared_tape, w, x, AD_ZERO_SUBGRAD, &want->v[p], want->g[p], &d);
        }
        ad_work_free(w);
        for (int k = 0; k < NTHREADS; k++) jobs[k].first = k * 7;
        started = 0;
        for (int k = 0; k < NTHREADS; k++)
            if (pthread_create(&th[k], NULL, thread_shared, &jobs[k]) == 0) started++;
            else break;
        if (started < NTHREADS) {
            fprintf(stderr, "cannot start %d threads\n", NTHREADS);
            exit(99);
        }
        for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
        bad = 0;
        for (int k = 0; k < NTHREADS; k++) bad += jobs[k].mismatches;
        check(bad == 0, "threads: one shared read-only tape (%zu nodes), %d threads with own "
              "workspaces, every sweep == single-threaded results (%d differ)",
              ad_tape_size(shared_tape), NTHREADS, bad);
    }
    free(big);
    ad_tape_free(shared_tape);
    pthread_barrier_destroy(&start_line);
    for (int i = 0; i < NEXPR; i++) free(thr_expr[i]);
}

/* ---- 7. deep nesting and long expressions ---- */

static void test_deep(void)
{
    const size_t N = 1000000;
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    char *s = xmalloc(2 * N + 16);
    const char *x1[] = {"x"};
    double xv[] = {1.25}, in[1], v = 0, g[1] = {0};

    /* 10^6 nested parentheses */
    size_t o = 0;
    for (size_t i = 0; i < N; i++) s[o++] = '(';
    s[o++] = 'x';
    for (size_t i = 0; i < N; i++) s[o++] = ')';
    memset(&d, 0, sizeof d);
    ad_errclass e = ad_parse(t, s, o, &d);
    if (e == AD_E_NONE) {
        int ok = ad_tape_size(t) == 1 && bind(t, x1, xv, 1, in) == 0 &&
                 rev_all(t, w, in, AD_STRICT, &v, g, &d) == AD_E_NONE && v == 1.25 && g[0] == 1;
        check(ok, "deep: 10^6 nested parentheses parse; value x, gradient 1");
    } else {
        check(e == AD_E_SYNTAX && d.cls == AD_E_SYNTAX && ad_tape_size(t) == 0,
              "deep: 10^6 nested parentheses give a clean ad/syntax (got %s: %s)", ad_err_tag(e),
              d.msg);
    }
    /* unbalanced: clean syntax error */
    e = ad_parse(t, s, o - 1, &d);
    check(e == AD_E_SYNTAX, "deep: 10^6 '(' with one ')' missing -> ad/syntax (got %s: %.80s)",
          ad_err_tag(e), d.msg);

    /* 10^6 nested unary minus and 10^5 nested calls: long chains on the tape */
    o = 0;
    for (size_t i = 0; i < N; i++) s[o++] = '-';
    s[o++] = 'x';
    e = ad_parse(t, s, o, &d);
    if (e == AD_E_NONE) {
        double fv = 0, fg[1] = {0};
        int ok = ad_tape_size(t) == N + 1 && bind(t, x1, xv, 1, in) == 0 &&
                 rev_all(t, w, in, AD_STRICT, &v, g, &d) == AD_E_NONE && v == 1.25 && g[0] == 1 &&
                 fwd_all(t, w, in, AD_STRICT, &fv, fg, &d) == AD_E_NONE && fv == 1.25 && fg[0] == 1;
        check(ok, "deep: 10^6 nested unary minus: value x, gradient 1, both modes");
    } else {
        check(e == AD_E_SYNTAX, "deep: 10^6 nested unary minus give a clean ad/syntax (got %s)",
              ad_err_tag(e));
    }
    size_t M = 100000;
    char *s2 = xmalloc(M * 6 + 16);
    o = 0;
    for (size_t i = 0; i < M; i++) { memcpy(s2 + o, "atan(", 5); o += 5; }
    s2[o++] = 'x';
    for (size_t i = 0; i < M; i++) s2[o++] = ')';
    e = ad_parse(t, s2, o, &d);
    if (e == AD_E_NONE) {
        double want = 1.25, dw = 1;
        for (size_t i = 0; i < M; i++) {
            dw *= 1 / (1 + want * want);
            want = atan(want);
        }
        int ok = bind(t, x1, xv, 1, in) == 0 && rev_all(t, w, in, AD_STRICT, &v, g, &d) == 0 &&
                 same(v, want) && close_rel(g[0], dw, 1e-10);
        check(ok, "deep: 10^5 nested atan calls: value %.17g (want %.17g), gradient %.17g (want "
              "%.17g)", v, want, g[0], dw);
    } else {
        check(e == AD_E_SYNTAX, "deep: 10^5 nested calls give a clean ad/syntax (got %s)",
              ad_err_tag(e));
    }
    free(s2);
    free(s);

    /* a flat sum of 10^6 terms over 1000 variables */
    size_t NVAR = 1000;
    char *f = xmalloc(N * 16 + 16);
    double *vals = xmalloc(NVAR * sizeof *vals), *wantg = xmalloc(NVAR * sizeof *wantg);
    char (*nm)[8] = xmalloc(NVAR * sizeof *nm);
    const char **names = xmalloc(NVAR * sizeof *names);
    for (size_t k = 0; k < NVAR; k++) {
        snprintf(nm[k], sizeof nm[k], "v%zu", k);
        names[k] = nm[k];
        vals[k] = (double)k / 1000 - 0.3;
        wantg[k] = 0;
    }
    o = 0;
    double want = 0;
    for (size_t i = 0; i < N; i++) {
        size_t k = (i * 7919) % NVAR;
        const char *op = i == 0 ? "" : (i % 5 == 4 ? " - " : " + ");
        double term;
        if (i % 3 == 0) {
            o += (size_t)sprintf(f + o, "%s%s", op, nm[k]);
            term = vals[k];
            wantg[k] += i % 5 == 4 ? -1 : 1;
        } else if (i % 3 == 1) {
            o += (size_t)sprintf(f + o, "%s2*%s", op, nm[k]);
            term = 2 * vals[k];
            wantg[k] += i % 5 == 4 ? -2 : 2;
        } else {
            o += (size_t)sprintf(f + o, "%s0.5", op);
            term = 0.5;
        }
        want = i == 0 ? term : (i % 5 == 4 ? want - term : want + term);
    }
    memset(&d, 0, sizeof d);
    e = ad_parse(t, f, o, &d);
    if (check(e == AD_E_NONE, "deep: a flat sum of 10^6 terms parses (%s %s)", ad_err_tag(e),
              e ? d.msg : "")) {
        size_t ni = ad_tape_ninputs(t);
        double *x = xmalloc(ni * sizeof *x), *gr = xmalloc(ni * sizeof *gr);
        double *gw = xmalloc(ni * sizeof *gw);
        int ok = ni == NVAR && ad_tape_nconsts(t) == 2 && bind(t, names, vals, NVAR, x) == 0;
        for (size_t i = 0; ok && i < ni; i++) {
            size_t len;
            const char *s3 = ad_tape_input_name(t, i, &len);
            char tmp[16] = "";
            if (len > 1 && len < sizeof tmp) memcpy(tmp, s3 + 1, len - 1);  /* not NUL-terminated */
            size_t k = (size_t)strtoul(tmp, NULL, 10);
            gw[i] = k < NVAR ? wantg[k] : NAN;
        }
        ok = ok && rev_all(t, w, x, AD_STRICT, &v, gr, &d) == AD_E_NONE && same(v, want);
        for (size_t i = 0; ok && i < ni; i++) {
            ok = gr[i] == gw[i];
            if (!ok) diag("partial %zu: %.17g want %.17g", i, gr[i], gw[i]);
        }
        if (!ok) diag("ni %zu nconsts %zu value %a want %a", ni, ad_tape_nconsts(t), v, want);
        check(ok, "deep: flat sum, reverse: value %.17g (want %.17g) and all 1000 partials exact", v,
              want);
        /* forward, one sweep of width 4 over the first 4 inputs */
        unsigned char *diff = xmalloc(ni);
        double *seeds = xmalloc(ni * 4 * sizeof *seeds), out[4];
        memset(diff, 0, ni);
        memset(seeds, 0, ni * 4 * sizeof *seeds);
        for (size_t j = 0; j < 4 && j < ni; j++) {
            diff[j] = 1;
            seeds[j * 4 + j] = 1;
        }
        ok = ni >= 4 && ad_forward(t, w, x, diff, seeds, 4, AD_STRICT, out, &d) == AD_E_NONE &&
             same(ad_value(t, w), want);
        for (size_t j = 0; ok && j < 4; j++) ok = out[j] == gw[j];
        check(ok, "deep: flat sum, forward width 4: value and partials exact");
        free(diff);
        free(seeds);
        free(x);
        free(gr);
        free(gw);
    }
    free(f);
    free(vals);
    free(wantg);
    free(nm);
    free(names);

    /* a flat sum of 10^6 distinct variables */
    f = xmalloc(N * 12 + 16);
    o = 0;
    for (size_t i = 0; i < N; i++) o += (size_t)sprintf(f + o, "%sq%zu", i ? "+" : "", i);
    e = ad_parse(t, f, o, &d);
    if (check(e == AD_E_NONE && ad_tape_ninputs(t) == N,
              "deep: a sum of 10^6 distinct variables parses with 10^6 inputs")) {
        double *x = xmalloc(N * sizeof *x), *gr = xmalloc(N * sizeof *gr);
        int ok = 1;
        for (size_t i = 0; i < N; i++) {
            size_t len;
            const char *s3 = ad_tape_input_name(t, i, &len);
            char tmp[16];
            snprintf(tmp, sizeof tmp, "q%zu", i);
            ok &= len == strlen(tmp) && memcmp(s3, tmp, len) == 0;
            x[i] = 1.0 / 1024;
        }
        ok = ok && rev_all(t, w, x, AD_STRICT, &v, gr, &d) == AD_E_NONE && v == N / 1024.0;
        for (size_t i = 0; ok && i < N; i++) ok = gr[i] == 1;
        check(ok, "deep: 10^6 inputs in order, value %.17g, every partial 1", v);
        free(x);
        free(gr);
    }
    free(f);
    ad_tape_free(t);
    ad_work_free(w);
}


/* ---- 8. control flow: guards, paths, threads ---- */

#define FLOW_PTS 64
static const char flow_src[] =
    "z = 1\n"
    "while abs(z^2 - p) > 1e-13*p {\n  z = z - (z^2 - p)/(2*z)\n}\n"
    "if p > 4 { z = z*q } else if p > 1 { z = z + q } else { z = z - sin(q) }\n"
    "z";
static double flow_pts[FLOW_PTS][2];
static double flow_want[FLOW_PTS][3];
static ad_plan *flow_plan;

/* sqrt(p)*q, sqrt(p) + q or sqrt(p) - sin(q), and the gradient */
static void flow_closed(double p, double q, double out[3])
{
    double r = sqrt(p);
    if (p > 4) { out[0] = r * q; out[1] = q / (2 * r); out[2] = r; }
    else if (p > 1) { out[0] = r + q; out[1] = 1 / (2 * r); out[2] = 1; }
    else { out[0] = r - sin(q); out[1] = 1 / (2 * r); out[2] = -cos(q); }
}

typedef struct {
    int first, bad;
} flow_job;

static void *flow_thread(void *arg)
{
    flow_job *j = arg;
    ad_work *w = ad_work_new();
    ad_diag d;
    double row[3];
    for (int k = 0; k < 4 * FLOW_PTS; k++) {
        int i = (j->first + k * 7) % FLOW_PTS;
        if (ad_derive(flow_plan, w, flow_pts[i], row, NULL, &d) || memcmp(row, flow_want[i], sizeof row) != 0)
            j->bad++;
    }
    ad_work_free(w);
    return NULL;
}

static void test_flow(void)
{
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    ad_errclass e = ad_parse(t, flow_src, strlen(flow_src), &d);
    check(e == AD_E_NONE && ad_tape_nguards(t) > 0, "flow: a program with while and if records guards (%zu)",
          ad_tape_nguards(t));
    /* recorded at no point: the inputs were nan, and a real point fails a guard */
    double x[2] = {2, 3};
    e = ad_eval(t, w, x, &d);
    check(e == AD_E_PATH, "flow: ad_eval of the tape at another path's point is AD_E_PATH (%s)", ad_err_tag(e));
    ad_optimize(t, NULL);
    const char *vars[] = {"p", "q"};
    ad_request rq;
    memset(&rq, 0, sizeof rq);
    rq.vars = vars;
    rq.nvars = 2;
    rq.cols = vars;
    rq.ncols = 2;
    rq.grad = 1;
    size_t unbound;
    e = ad_plan_new(t, &rq, &flow_plan, &unbound, &d);
    check(e == AD_E_NONE, "flow: a plan over a tape with guards");
    if (e) goto out;
    rng r = {4242};
    int worst_ok = 1, ntapes = 0;
    const ad_tape *last = NULL;
    double worst = 0;
    for (int i = 0; i < FLOW_PTS; i++) {
        flow_pts[i][0] = i % 3 == 0 ? runif(&r, 0.2, 0.9) : i % 3 == 1 ? runif(&r, 1.5, 3.5) : runif(&r, 5, 50);
        flow_pts[i][1] = runif(&r, -2, 2);
        e = ad_derive(flow_plan, w, flow_pts[i], flow_want[i], NULL, &d);
        if (e) {
            worst_ok = 0;
            diag("point %d: %s %s", i, ad_err_tag(e), d.msg);
            continue;
        }
        ntapes += ad_work_tape(w) != last;
        last = ad_work_tape(w);
        double c[3];
        flow_closed(flow_pts[i][0], flow_pts[i][1], c);
        for (int k = 0; k < 3; k++) {
            double rel = fabs(flow_want[i][k] - c[k]) / fmax(1e-300, fabs(c[k]));
            if (rel > worst) worst = rel;
        }
    }
    check(worst_ok && worst < 1e-9, "flow: %d points on 3 paths (and loops of several lengths) against the "
          "closed forms: worst relative error %.2g", FLOW_PTS, worst);
    check(ntapes > 3, "flow: the workspace's tape follows the points' paths (%d changes)", ntapes);
    size_t rp, rc, ns;
    const uint64_t *seen;
    ad_work_paths(w, &rp, &rc, &seen, &ns);
    check(rp + rc == FLOW_PTS && rc >= 3 && ns >= 3, "flow: %zu points replayed, %zu recorded, %zu paths", rp, rc, ns);
    /* the same points in a fresh workspace each: the same bits */
    int differ = 0;
    for (int i = 0; i < FLOW_PTS; i++) {
        ad_work *w1 = ad_work_new();
        double row[3];
        if (ad_derive(flow_plan, w1, flow_pts[i], row, NULL, &d) || memcmp(row, flow_want[i], sizeof row) != 0)
            differ++;
        ad_work_free(w1);
    }
    check(differ == 0, "flow: each point alone gives the bits it gave after the others (%d differ)", differ);
    /* one plan, four threads, each its own workspace (and so its own paths) */
    flow_job jobs[NTHREADS];
    pthread_t th[NTHREADS];
    int started = 0, bad = 0;
    for (int k = 0; k < NTHREADS; k++) {
        jobs[k] = (flow_job){k * 11, 0};
        if (pthread_create(&th[k], NULL, flow_thread, &jobs[k]) == 0) started++;
    }
    for (int k = 0; k < started; k++) pthread_join(th[k], NULL);
    for (int k = 0; k < started; k++) bad += jobs[k].bad;
    check(started == NTHREADS && bad == 0, "flow: one plan with guards shared by %d threads, each with its "
          "own workspace: every row == single-threaded (%d differ)", NTHREADS, bad);
    ad_plan_free(flow_plan);
out:
    ad_work_free(w);
    ad_tape_free(t);
}

/* ad_tape_set_point: a recording at no point that fails on a path no point
 * takes says so (ad_tape_error_pathless); recorded at the point, the path
 * is the point's, its guards hold there, and the point is unset after */
static void test_point(void)
{
    static const char src[] = "if x > 0 { k = 2 } else { k = 5 }; v = [x, 2*x, 3*x]; v[k]";
    ad_tape *t = ad_tape_new();
    ad_work *w = ad_work_new();
    ad_diag d;
    ad_errclass e = ad_parse(t, src, strlen(src), &d);
    check(e == AD_E_DOMAIN && ad_tape_error_pathless(t), "point: at no point, x > 0 on nan takes the else "
          "branch, whose v[5] fails: pathless (%s, %d)", ad_err_tag(e), ad_tape_error_pathless(t));
    const char *names[] = {"x"};
    double x = 1.5;
    check(ad_tape_set_point(t, names, &x, 1) == 0, "point: ad_tape_set_point");
    e = ad_parse(t, src, strlen(src), &d);
    check(e == AD_E_NONE && ad_tape_nguards(t) == 1, "point: recorded at x = 1.5, the path of k = 2 (%s, %zu guards)",
          ad_err_tag(e), ad_tape_nguards(t));
    double v = 0;
    if (!e) e = ad_eval(t, w, &x, &d);
    if (!e) v = ad_value(t, w);
    check(e == AD_E_NONE && v == 3, "point: its value there is 2*x = 3 (%g)", v);
    x = -1;
    check(ad_tape_set_point(t, names, &x, 1) == 0 && ad_parse(t, src, strlen(src), &d) == AD_E_DOMAIN &&
              !ad_tape_error_pathless(t) && d.col == 57,
          "point: at x = -1 the point's own path fails, not pathless, at v[k] (col %d)", d.col);
    ad_tape_set_point(t, NULL, NULL, 0);
    e = ad_parse(t, "x*2", 3, &d);
    check(e == AD_E_NONE && !ad_tape_error_pathless(t), "point: unset, a recording is at no point again");
    ad_work_free(w);
    ad_tape_free(t);
}

int main(void)
{
    test_layout();
    test_reset();
    test_replay();
    test_parse_errors();
    test_eval_errors();
    test_random();
    test_threads();
    if (!getenv("ADCALC_SKIP_DEEP")) test_deep();
    test_flow();
    test_point();
    printf("1..%d\n", ntest);
    if (nfail) printf("# %d of %d checks failed\n", nfail, ntest);
    return nfail ? 1 : 0;
}
