/* deriv_bench.c - in-process benchmark of the engine's sweeps (links
 * libadcalc.a; bench/run.sh section d builds and runs it).
 *
 * The five benchmark functions of the peer comparison (F1 x*y + sin(x),
 * F2 Rosenbrock in 2 variables, F3 a 10-variable exp/sin/log sum, F4 the
 * Black-Scholes call in (S, K, T, r, v), F5 the chained Rosenbrock in 100
 * variables) are each recorded once with ad_parse, then swept at many
 * random points:
 *
 *   (a) ad_eval alone                      (value: the primal sweep)
 *   (b) ad_eval + ad_reverse               (value + full gradient)
 *   (c) ad_hessian of F5, identity seeds   (gradient + whole Hessian, k = n)
 *
 * (a) and (b) are timed over the same points, batch against batch, one
 * after the other, alternating which goes first, REPS times; (c) is timed
 * in the same repetitions, next to F5's (b).  Reported: the median ns per
 * point (per Hessian for c) over the repetitions, the ratio of the medians
 * (b)/(a) (target <= 3), and (c) / (n * b), the Hessian against n
 * gradients.  The process's CPU time over wall time is printed as a
 * contention flag (well below 1: another process took the core).
 *
 * Points: splitmix64 seeded 0x5EED0000 + k for Fk, F1-F3 and F5 every
 * variable in [-2, 2], F4 S, K in [50, 150], T in [0.1, 2], r in [0, 0.1],
 * v in [0.1, 0.5] - the same rows, in the same order, as the peer
 * benchmarks' gen_points.  Before timing, every gradient (and the F5
 * Hessian) is checked against a hand-written analytic one at the first 1000
 * points (and 20 Hessians); a mismatch is an error (exit 1).
 *
 * Variants F2' and F5' write the squares as products (x*x instead of x^2):
 * not part of the benchmark, they show what the pow instruction costs.
 *
 * usage: deriv_bench [-r REPS] [-s SCALE] [-H HESSIANS] [-f F1,F5,...]
 *   REPS      repetitions (default 11; medians over them)
 *   SCALE     multiplies the points per batch (default 1: 100000 points for
 *             F1, F2, F4, 20000 for F3, 2000 for F5)
 *   HESSIANS  F5 Hessians per batch (default 10)
 *   -f        only these functions (F2' and F5' run with F2 and F5)
 *   -q        no variants F2', F5'
 */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "adcalc.h"

#define N5 100

/* ---- clocks, random points, medians ---- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static double u01(uint64_t *s) { return (double)(splitmix64(s) >> 11) * 0x1.0p-53; }

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* median of t[0..r) (sorts a copy) */
static double median(const double *t, int r)
{
    double *c = malloc((size_t)r * sizeof *c);
    if (!c) abort();
    memcpy(c, t, (size_t)r * sizeof *c);
    qsort(c, (size_t)r, sizeof *c, cmp_dbl);
    double m = r % 2 ? c[r / 2] : (c[r / 2 - 1] + c[r / 2]) / 2;
    free(c);
    return m;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "deriv_bench: out of memory\n");
        exit(1);
    }
    return p;
}

/* ---- the functions: analytic value and gradient (for the check) ---- */

static double fg1(const double *x, double *g)
{
    g[0] = x[1] + cos(x[0]);
    g[1] = x[0];
    return x[0] * x[1] + sin(x[0]);
}

static double fg2(const double *x, double *g)
{
    double a = 1 - x[0], b = x[1] - x[0] * x[0];
    g[0] = -2 * a - 400 * x[0] * b;
    g[1] = 200 * b;
    return a * a + 100 * b * b;
}

static double fg3(const double *x, double *g)
{
    double s = 0;
    for (int i = 0; i < 10; i++) g[i] = 0;
    for (int i = 0; i < 9; i++) {
        double q = 1 + x[i] * x[i], e = exp(-x[i] * x[i]);
        s += e * sin(x[i + 1]) + log(q);
        g[i] += -2 * x[i] * e * sin(x[i + 1]) + 2 * x[i] / q;
        g[i + 1] += e * cos(x[i + 1]);
    }
    double r = sqrt(1 + x[9] * x[9]);
    g[9] += x[9] / r;
    return s + r;
}

/* Black-Scholes call and its closed-form Greeks */
static double fg4(const double *x, double *g)
{
    double S = x[0], K = x[1], T = x[2], r = x[3], v = x[4], sT = sqrt(T);
    double d1 = (log(S / K) + (r + v * v / 2) * T) / (v * sT), d2 = d1 - v * sT;
    double N1 = 0.5 * (1 + erf(d1 / sqrt(2))), N2 = 0.5 * (1 + erf(d2 / sqrt(2)));
    double disc = exp(-r * T), KdN2 = K * disc * N2;
    double Sphi = S * exp(-0.5 * d1 * d1) / sqrt(2 * 3.14159265358979323846);
    g[0] = N1;
    g[1] = -disc * N2;
    g[2] = Sphi * v / (2 * sT) + r * KdN2;
    g[3] = T * KdN2;
    g[4] = Sphi * sT;
    return S * N1 - KdN2;
}

static double fg5(const double *x, double *g)
{
    double s = 0;
    for (int i = 0; i < N5; i++) g[i] = 0;
    for (int i = 0; i < N5 - 1; i++) {
        double b = x[i + 1] - x[i] * x[i], a = 1 - x[i];
        s += 100 * b * b + a * a;
        g[i] += -400 * x[i] * b - 2 * a;
        g[i + 1] += 200 * b;
    }
    return s;
}

/* the Hessian of F5 (tridiagonal), row-major N5 x N5 */
static void h5(const double *x, double *H)
{
    memset(H, 0, sizeof(double) * N5 * N5);
    for (int i = 0; i < N5 - 1; i++) {
        H[i * N5 + i] += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
        H[i * N5 + i + 1] += -400 * x[i];
        H[(i + 1) * N5 + i] += -400 * x[i];
        H[(i + 1) * N5 + i + 1] += 200;
    }
}

/* ---- the benchmark table ---- */

typedef struct {
    const char *name;      /* F1 ... */
    int k;                 /* 1..5: seed and domain */
    int n;                 /* variables */
    int variant;           /* squares as products */
    long npts;             /* points per batch at scale 1 */
    double (*fg)(const double *, double *);
    char *src;             /* the expression */
    const char *vars[N5];  /* variable names, in the order of the point rows */
    char varbuf[N5][8];
} bench_fn;

/* appends to a growing string */
typedef struct {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_add(sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (m < 0) abort();
        if (b->s && b->len + (size_t)m < b->cap) {
            b->len += (size_t)m;
            return;
        }
        b->cap = (b->cap + (size_t)m + 1) * 2;
        b->s = realloc(b->s, b->cap);
        if (!b->s) abort();
        if (b->len == 0) b->s[0] = 0;
    }
}

static void build(bench_fn *f)
{
    sbuf b = {0};
    const char *sq = f->variant ? "" : "^2";
    switch (f->k) {
    case 1:
        sb_add(&b, "x*y + sin(x)");
        break;
    case 2:
        if (f->variant) sb_add(&b, "(1-x)*(1-x) + 100*(y-x*x)*(y-x*x)");
        else sb_add(&b, "(1-x)^2 + 100*(y-x^2)^2");
        break;
    case 3:
        for (int i = 0; i < 9; i++)
            sb_add(&b, "%sexp(-x%d^2)*sin(x%d) + log(1 + x%d^2)", i ? " + " : "", i, i + 1, i);
        sb_add(&b, " + sqrt(1 + x9^2)");
        break;
    case 4: {
        const char *d1 = "(log(S/K) + (r + v^2/2)*T)/(v*sqrt(T))";
        sb_add(&b, "S*0.5*(1 + erf(%s/sqrt(2))) - K*exp(-r*T)*0.5*(1 + erf((%s - v*sqrt(T))/sqrt(2)))",
               d1, d1);
        break;
    }
    case 5:
        for (int i = 0; i < N5 - 1; i++) {
            if (f->variant)
                sb_add(&b, "%s100*(x%d-x%d*x%d)*(x%d-x%d*x%d) + (1-x%d)*(1-x%d)", i ? " + " : "",
                       i + 1, i, i, i + 1, i, i, i, i);
            else
                sb_add(&b, "%s100*(x%d-x%d%s)%s + (1-x%d)%s", i ? " + " : "", i + 1, i, sq, sq, i, sq);
        }
        break;
    }
    f->src = b.s;
    static const char *const v2[] = {"x", "y"}, *const v4[] = {"S", "K", "T", "r", "v"};
    for (int i = 0; i < f->n; i++) {
        if (f->k == 1 || f->k == 2) f->vars[i] = v2[i];
        else if (f->k == 4) f->vars[i] = v4[i];
        else {
            snprintf(f->varbuf[i], sizeof f->varbuf[i], "x%d", i);
            f->vars[i] = f->varbuf[i];
        }
    }
}

/* npts rows of n values in Fk's domain (the peers' gen_points rows) */
static double *gen_points(int k, int n, long npts)
{
    static const double lo4[5] = {50, 50, 0.1, 0.0, 0.1}, hi4[5] = {150, 150, 2.0, 0.1, 0.5};
    uint64_t s = 0x5EED0000ULL + (uint64_t)k;
    double *x = xmalloc((size_t)n * (size_t)npts * sizeof *x);
    for (long p = 0; p < npts; p++)
        for (int i = 0; i < n; i++) {
            double u = u01(&s);
            x[(size_t)p * n + i] = k == 4 ? lo4[i] + (hi4[i] - lo4[i]) * u : -2.0 + 4.0 * u;
        }
    return x;
}

static void die_diag(const char *what, const bench_fn *f, ad_errclass e, const ad_diag *d)
{
    fprintf(stderr, "deriv_bench: %s of %s failed: %s: %s (line %d col %d)\n", what, f->name,
            ad_err_tag(e), d->msg, d->line, d->col);
    exit(1);
}

/* ---- timed batches ---- */

static volatile double sink;

/* (a): the primal sweep at every point */
static double batch_eval(const ad_tape *t, ad_work *w, const double *X, int n, long npts,
                         const bench_fn *f)
{
    ad_diag d;
    double acc = 0, t0 = now_ns();
    for (long p = 0; p < npts; p++) {
        ad_errclass e = ad_eval(t, w, X + (size_t)p * n, &d);
        if (e) die_diag("ad_eval", f, e, &d);
        acc += ad_value(t, w);
    }
    double dt = now_ns() - t0;
    sink = acc;
    return dt;
}

/* (b): value and gradient at every point */
static double batch_grad(const ad_tape *t, ad_work *w, const double *X, int n, long npts,
                         const unsigned char *diff, double *g, const bench_fn *f)
{
    ad_diag d;
    double acc = 0, t0 = now_ns();
    for (long p = 0; p < npts; p++) {
        ad_errclass e = ad_eval(t, w, X + (size_t)p * n, &d);
        if (e) die_diag("ad_eval", f, e, &d);
        e = ad_reverse(t, w, diff, AD_STRICT, g, &d);
        if (e) die_diag("ad_reverse", f, e, &d);
        acc += ad_value(t, w) + g[0];
    }
    double dt = now_ns() - t0;
    sink = acc;
    return dt;
}

/* (c): whole Hessians, identity seeds */
static double batch_hess(const ad_tape *t, ad_work *w, const double *X, int n, long nh,
                         const unsigned char *diff, const double *seeds, double *g, double *H,
                         const bench_fn *f)
{
    ad_diag d;
    double acc = 0, t0 = now_ns();
    for (long p = 0; p < nh; p++) {
        ad_errclass e = ad_hessian(t, w, X + (size_t)p * n, diff, seeds, (size_t)n, AD_STRICT, g, H, &d);
        if (e) die_diag("ad_hessian", f, e, &d);
        acc += H[0];
    }
    double dt = now_ns() - t0;
    sink = acc;
    return dt;
}

int main(int argc, char **argv)
{
    int reps = 11, nhess = 10, variants = 1;
    double scale = 1;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) scale = atof(argv[++i]);
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) nhess = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-f") && i + 1 < argc) only = argv[++i];
        else if (!strcmp(argv[i], "-q")) variants = 0;
        else {
            fprintf(stderr, "usage: %s [-r REPS] [-s SCALE] [-H HESSIANS] [-f F1,F5,...] [-q]\n", argv[0]);
            return 2;
        }
    }
    if (reps < 1 || nhess < 1 || !(scale > 0)) {
        fprintf(stderr, "deriv_bench: REPS, HESSIANS and SCALE must be positive\n");
        return 2;
    }

    bench_fn fns[] = {
        {.name = "F1", .k = 1, .n = 2, .npts = 100000, .fg = fg1},
        {.name = "F2", .k = 2, .n = 2, .npts = 100000, .fg = fg2},
        {.name = "F2'", .k = 2, .n = 2, .npts = 100000, .fg = fg2, .variant = 1},
        {.name = "F3", .k = 3, .n = 10, .npts = 20000, .fg = fg3},
        {.name = "F4", .k = 4, .n = 5, .npts = 100000, .fg = fg4},
        {.name = "F5", .k = 5, .n = N5, .npts = 2000, .fg = fg5},
        {.name = "F5'", .k = 5, .n = N5, .npts = 2000, .fg = fg5, .variant = 1},
    };
    enum { NF = sizeof fns / sizeof fns[0] };
    int use[NF];
    int nf = 0, f5 = -1;
    for (int j = 0; j < NF; j++) {
        char base[3] = {fns[j].name[0], fns[j].name[1], 0};
        use[j] = (!only || strstr(only, base)) && (variants || !fns[j].variant);
        if (!use[j]) continue;
        nf++;
        if (!strcmp(fns[j].name, "F5")) f5 = j;
    }
    if (!nf) {
        fprintf(stderr, "deriv_bench: no function selected\n");
        return 2;
    }

    ad_tape *tape[NF] = {0};
    double *X[NF] = {0};
    long npts[NF];
    size_t nodes[NF], ops[NF];
    ad_work *w = ad_work_new();
    unsigned char diff[N5];
    double g[N5], ga[N5], *H = xmalloc(sizeof(double) * N5 * N5), *Ha = xmalloc(sizeof(double) * N5 * N5);
    double *seeds = xmalloc(sizeof(double) * N5 * N5);
    if (!w) abort();
    memset(diff, 1, sizeof diff);
    memset(seeds, 0, sizeof(double) * N5 * N5);
    for (int i = 0; i < N5; i++) seeds[i * N5 + i] = 1;

    /* record, generate points (in the tape's input order), check */
    for (int j = 0; j < NF; j++) {
        if (!use[j]) continue;
        bench_fn *f = &fns[j];
        build(f);
        ad_diag d;
        tape[j] = ad_tape_new();
        if (!tape[j]) abort();
        ad_errclass e = ad_parse(tape[j], f->src, strlen(f->src), &d);
        if (e) die_diag("ad_parse", f, e, &d);
        int n = f->n;
        if (ad_tape_ninputs(tape[j]) != (size_t)n) {
            fprintf(stderr, "deriv_bench: %s records %zu inputs, expected %d\n", f->name,
                    ad_tape_ninputs(tape[j]), n);
            return 1;
        }
        nodes[j] = ad_tape_size(tape[j]);
        ops[j] = nodes[j] - ad_tape_ninputs(tape[j]) - ad_tape_nconsts(tape[j]);
        /* perm[i]: the row column of tape input i */
        int perm[N5];
        for (int i = 0; i < n; i++) {
            size_t len;
            const char *nm = ad_tape_input_name(tape[j], (size_t)i, &len);
            perm[i] = -1;
            for (int c = 0; c < n; c++)
                if (strlen(f->vars[c]) == len && !memcmp(f->vars[c], nm, len)) perm[i] = c;
            if (perm[i] < 0) {
                fprintf(stderr, "deriv_bench: %s: unexpected input %.*s\n", f->name, (int)len, nm);
                return 1;
            }
        }
        npts[j] = (long)(f->npts * scale);
        if (npts[j] < 1) npts[j] = 1;
        long ngen = npts[j] > 1000 ? npts[j] : 1000;
        double *rows = gen_points(f->k, n, ngen);
        X[j] = xmalloc((size_t)n * (size_t)ngen * sizeof(double));
        for (long p = 0; p < ngen; p++)
            for (int i = 0; i < n; i++) X[j][(size_t)p * n + i] = rows[(size_t)p * n + perm[i]];

        /* the check: value and gradient at the first 1000 points */
        double worst = 0;
        for (long p = 0; p < 1000; p++) {
            const double *x = X[j] + (size_t)p * n;
            e = ad_eval(tape[j], w, x, &d);
            if (e) die_diag("ad_eval", f, e, &d);
            e = ad_reverse(tape[j], w, diff, AD_STRICT, g, &d);
            if (e) die_diag("ad_reverse", f, e, &d);
            double v = f->fg(rows + (size_t)p * n, ga);
            double err = fabs(ad_value(tape[j], w) - v) / (1 + fabs(v));
            for (int i = 0; i < n; i++) {
                double ei = fabs(g[i] - ga[perm[i]]) / (1 + fabs(ga[perm[i]]));
                if (ei > err) err = ei;
            }
            if (err > worst) worst = err;
        }
        if (worst > 1e-9) {
            fprintf(stderr, "deriv_bench: %s: value or gradient differs from the analytic one "
                            "(relative error %.3g)\n", f->name, worst);
            return 1;
        }
        if (j == f5) {
            /* the Hessian at 20 points, in the tape's input order */
            double hw = 0;
            for (long p = 0; p < 20; p++) {
                const double *x = X[j] + (size_t)p * n;
                e = ad_hessian(tape[j], w, x, diff, seeds, (size_t)n, AD_STRICT, g, H, &d);
                if (e) die_diag("ad_hessian", f, e, &d);
                h5(rows + (size_t)p * n, Ha);
                for (int i = 0; i < n; i++)
                    for (int c = 0; c < n; c++) {
                        double ha = Ha[perm[i] * n + perm[c]];
                        double ei = fabs(H[i * n + c] - ha) / (1 + fabs(ha));
                        if (ei > hw) hw = ei;
                    }
            }
            if (hw > 1e-9) {
                fprintf(stderr, "deriv_bench: F5: Hessian differs from the analytic one "
                                "(relative error %.3g)\n", hw);
                return 1;
            }
        }
        free(rows);
    }

    /* warm-up: one untimed batch of each */
    for (int j = 0; j < NF; j++) {
        if (!use[j]) continue;
        batch_grad(tape[j], w, X[j], fns[j].n, npts[j], diff, g, &fns[j]);
        batch_eval(tape[j], w, X[j], fns[j].n, npts[j], &fns[j]);
    }
    if (f5 >= 0) batch_hess(tape[f5], w, X[f5], N5, 2, diff, seeds, g, H, &fns[f5]);

    /* the timed repetitions: per function (a) and (b) back to back,
     * alternating the order; (c) after F5 */
    double *ta = xmalloc(sizeof(double) * NF * (size_t)reps);
    double *tb = xmalloc(sizeof(double) * NF * (size_t)reps);
    double *tc = xmalloc(sizeof(double) * (size_t)reps);
    double *pr = xmalloc(sizeof(double) * (size_t)reps);
    double wall0 = now_ns(), cpu0 = cpu_ns();
    for (int r = 0; r < reps; r++) {
        for (int j = 0; j < NF; j++) {
            if (!use[j]) continue;
            const bench_fn *f = &fns[j];
            if (r % 2 == 0) {
                ta[j * reps + r] = batch_eval(tape[j], w, X[j], f->n, npts[j], f);
                tb[j * reps + r] = batch_grad(tape[j], w, X[j], f->n, npts[j], diff, g, f);
            } else {
                tb[j * reps + r] = batch_grad(tape[j], w, X[j], f->n, npts[j], diff, g, f);
                ta[j * reps + r] = batch_eval(tape[j], w, X[j], f->n, npts[j], f);
            }
            if (j == f5) tc[r] = batch_hess(tape[j], w, X[j], N5, nhess, diff, seeds, g, H, f);
        }
    }
    double cpu_wall = (cpu_ns() - cpu0) / (now_ns() - wall0);

    printf("deriv_bench: %d repetitions, medians; points per batch scaled by %g; "
           "cpu/wall %.2f%s\n", reps, scale, cpu_wall,
           cpu_wall < 0.9 ? " (contended: another process took the core)" : "");
    printf("%-4s %4s %6s %5s %8s %12s %12s %12s %7s %7s  %s\n", "fn", "n", "nodes", "ops", "points",
           "(a) ns/pt", "(b) ns/pt", "rev ns/pt", "(b)/(a)", "paired", "target (b)/(a) <= 3");
    for (int j = 0; j < NF; j++) {
        if (!use[j]) continue;
        double ma = median(ta + j * reps, reps) / npts[j];
        double mb = median(tb + j * reps, reps) / npts[j];
        for (int r = 0; r < reps; r++) pr[r] = tb[j * reps + r] / ta[j * reps + r];
        double rp = median(pr, reps);
        double rat = mb / ma;
        printf("%-4s %4d %6zu %5zu %8ld %12.1f %12.1f %12.1f %7.2f %7.2f  %s\n", fns[j].name,
               fns[j].n, nodes[j], ops[j], npts[j], ma, mb, mb - ma, rat, rp,
               fns[j].variant ? "(variant: squares as x*x)" : rat <= 3 ? "met" : "MISSED");
        printf("RESULT fn=%s n=%d nodes=%zu ops=%zu points=%ld eval_ns=%.2f grad_ns=%.2f "
               "ratio=%.3f paired_ratio=%.3f\n", fns[j].name, fns[j].n, nodes[j], ops[j], npts[j],
               ma, mb, rat, rp);
    }
    if (f5 >= 0) {
        double mc = median(tc, reps) / nhess;
        double mb = median(tb + f5 * reps, reps) / npts[f5];
        for (int r = 0; r < reps; r++)
            pr[r] = (tc[r] / nhess) / (N5 * tb[f5 * reps + r] / npts[f5]);
        printf("(c) F5 Hessian (n = %d, identity seeds, k = %d, %d per batch): %.1f us per Hessian; "
               "n gradients (n x (b)) %.1f us; ratio %.2f (paired %.2f)\n",
               N5, N5, nhess, mc / 1e3, N5 * mb / 1e3, mc / (N5 * mb), median(pr, reps));
        printf("RESULT fn=F5-hessian n=%d hess_ns=%.1f ngrad_ns=%.1f ratio=%.3f paired_ratio=%.3f\n",
               N5, mc, N5 * mb, mc / (N5 * mb), median(pr, reps));
    }
    printf("RESULT reps=%d cpu_over_wall=%.3f\n", reps, cpu_wall);

    for (int j = 0; j < NF; j++) {
        ad_tape_free(tape[j]);
        free(X[j]);
        free(fns[j].src);
    }
    ad_work_free(w);
    free(H);
    free(Ha);
    free(seeds);
    free(ta);
    free(tb);
    free(tc);
    free(pr);
    return 0;
}
