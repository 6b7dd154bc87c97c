/* test_vmath.c - owns the checks of src/lib/vmath.h (adi_exp, adi_log, adi_sin,
 * adi_cos, adi_sin_core, adi_cos_core, adi_sincos_core, adi_trig_ok):
 *  - accuracy against the long double library (expl, logl, sinl, cosl) over
 *    random inputs on several ranges and over hard cases (near multiples
 *    of pi/2, the overflow and underflow thresholds, subnormals), with the
 *    max error in ulps bounded per function;
 *  - determinism: the inlined scalar functions (compiled with this file's
 *    flags) and the same header compiled a second time under
 *    #pragma GCC optimize("O3","no-trapping-math") in vectorised loops
 *    (baseline and, when the CPU has it, AVX2) agree bit for bit;
 *  - special values as glibc gives them;
 *  - how often each result differs from glibc's (reported, not bounded).
 * ADCALC_VMATH_N sets the number of random inputs per function (default
 * 2000000, spread over the ranges); exit status 1 if any check fails.
 * Under valgrind, whose x87 emulation has only double precision, the long
 * double reference is useless: the accuracy bounds are then skipped (the
 * rest still runs). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "vmath.h"

#define VM_PI 3.14159265358979323846

/* ---- the same header again, renamed, compiled for vectorisation ---- */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3", "no-trapping-math")
#define VM_HAVE_AVX2_VARIANT 1
#endif
#undef AD_VMATH_H
#undef AD_VM_SHIFT
#undef AD_TRIG_MAX
#define adi_vm_bits vec_vm_bits
#define adi_vm_double vec_vm_double
#define adi_vm_split26 vec_vm_split26
#define adi_vm_trig vec_vm_trig
#define adi_vm_trig2 vec_vm_trig2
#define adi_vm_pick vec_vm_pick
#define adi_sincos_core vec_sincos_core
#define adi_exp vec_exp
#define adi_log vec_log
#define adi_trig_ok vec_trig_ok
#define adi_sin_core vec_sin_core
#define adi_cos_core vec_cos_core
#define adi_sin vec_sin
#define adi_cos vec_cos
#include "vmath.h"
#undef adi_vm_bits
#undef adi_vm_double
#undef adi_vm_split26
#undef adi_vm_trig
#undef adi_vm_trig2
#undef adi_vm_pick
#undef adi_sincos_core
#undef adi_exp
#undef adi_log
#undef adi_trig_ok
#undef adi_sin_core
#undef adi_cos_core
#undef adi_sin
#undef adi_cos

enum { F_EXP, F_LOG, F_SIN, F_COS, NF };
static const char *const fname[NF] = {"exp", "log", "sin", "cos"};

/* the loops batch mode runs: Y[j] = f(A[j]) over a block */
#define VM_LOOPS(suffix, attr)                                                      \
    attr static void loop_##suffix(int f, double *restrict y, const double *restrict a, int n) \
    {                                                                               \
        int j;                                                                      \
        switch (f) {                                                                \
        case F_EXP: for (j = 0; j < n; j++) y[j] = vec_exp(a[j]); break;            \
        case F_LOG: for (j = 0; j < n; j++) y[j] = vec_log(a[j]); break;            \
        case F_SIN: for (j = 0; j < n; j++) y[j] = vec_sin_core(a[j]); break;       \
        default: for (j = 0; j < n; j++) y[j] = vec_cos_core(a[j]); break;          \
        }                                                                           \
    }                                                                               \
    /* sin or cos out of adi_sincos_core, as the block's forward sweep */          \
    attr static void loop_sc_##suffix(int f, double *restrict y, const double *restrict a, int n) \
    {                                                                               \
        for (int j = 0; j < n; j++) {                                               \
            double s, c;                                                            \
            vec_sincos_core(a[j], &s, &c);                                          \
            y[j] = f == F_SIN ? s : c;                                              \
        }                                                                           \
    }
VM_LOOPS(base, __attribute__((noinline)))
#ifdef VM_HAVE_AVX2_VARIANT
VM_LOOPS(avx2, __attribute__((noinline, target("avx2"))))
#pragma GCC pop_options
#endif

/* ---- scalar side: the header as the engine sees it ---- */
static double scalar(int f, double x)
{
    switch (f) {
    case F_EXP: return adi_exp(x);
    case F_LOG: return adi_log(x);
    case F_SIN: return adi_sin(x);
    default: return adi_cos(x);
    }
}
static double glibc(int f, double x)
{
    switch (f) {
    case F_EXP: return exp(x);
    case F_LOG: return log(x);
    case F_SIN: return sin(x);
    default: return cos(x);
    }
}
static long double reference(int f, double x)
{
    switch (f) {
    case F_EXP: return expl(x);
    case F_LOG: return logl(x);
    case F_SIN: return sinl(x);
    default: return cosl(x);
    }
}

static uint64_t rng_state = 0x243F6A8885A308D3ULL;
static uint64_t rng(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double uniform(double lo, double hi) { return lo + (hi - lo) * ((double)(rng() >> 11) * 0x1p-53); }
static uint64_t bits(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
static double from_bits(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }

static int failures;
static int have_ld; /* long double really is x87 extended at run time */
static int have_avx2;

/* error of y in ulps of the exact value r (ulps of doubles near r,
 * subnormal spacing below 2^-1022); overflow counts as exact when r rounds
 * to inf */
static double ulp_error(double y, long double r)
{
    if (isnan(y) || isnan(r)) return isnan(y) && isnan(r) ? 0 : 1e9;
    if (isinf(y)) {
        long double lim = 0x1p1024L * (1 - 0x1p-54L);
        if (signbit(y) ? r <= -lim : r >= lim) return 0;
        return 1e9;
    }
    if (isinf(r)) return 1e9;
    int e = r == 0 ? -1022 : ilogbl(r);
    if (e < -1022) e = -1022;
    long double u = ldexpl(1.0L, e - 52);
    return (double)(fabsl((long double)y - r) / u);
}

/* one range of one function */
struct stats { double maxerr, worst_x; long n, diff_glibc; };

#define BLOCK 256
static void run_block(int f, const double *a, int n, struct stats *st)
{
    double ys[BLOCK], yv[BLOCK];
    loop_base(f, yv, a, n);
    for (int j = 0; j < n; j++) {
        double x = a[j];
        /* adi_sin/adi_cos inside the range are exactly the cores */
        double y = scalar(f, x);
        ys[j] = y;
        if (f >= F_SIN && !adi_trig_ok(x)) yv[j] = y;
        if (bits(y) != bits(yv[j]) && !(isnan(y) && isnan(yv[j]))) {
            if (failures++ < 20)
                printf("FAIL %s(%a): scalar %a, vectorised loop %a\n", fname[f], x, y, yv[j]);
        }
        double g = glibc(f, x);
        if (bits(g) != bits(y) && !(isnan(g) && isnan(y))) st->diff_glibc++;
        if (have_ld) {
            double e = ulp_error(y, reference(f, x));
            if (e > st->maxerr) { st->maxerr = e; st->worst_x = x; }
        }
        st->n++;
    }
    if (f >= F_SIN) {
        /* adi_sincos_core, scalar and in a loop: the same bits as the cores */
        loop_sc_base(f, yv, a, n);
        for (int j = 0; j < n; j++) {
            if (!adi_trig_ok(a[j])) continue;
            double s, c;
            adi_sincos_core(a[j], &s, &c);
            double y = f == F_SIN ? s : c;
            if ((bits(y) != bits(ys[j]) || bits(yv[j]) != bits(ys[j])) && failures++ < 20)
                printf("FAIL sincos(%a) %s: %a scalar, %a loop, %a %s_core\n", a[j], fname[f], y, yv[j], ys[j], fname[f]);
        }
    }
#ifdef VM_HAVE_AVX2_VARIANT
    if (have_avx2 && f >= F_SIN) {
        loop_sc_avx2(f, yv, a, n);
        for (int j = 0; j < n; j++)
            if (adi_trig_ok(a[j]) && bits(yv[j]) != bits(ys[j]) && failures++ < 20)
                printf("FAIL sincos(%a) %s: AVX2 loop %a, %a %s_core\n", a[j], fname[f], yv[j], ys[j], fname[f]);
    }
    if (have_avx2) {
        loop_avx2(f, yv, a, n);
        for (int j = 0; j < n; j++) {
            if (f >= F_SIN && !adi_trig_ok(a[j])) continue;
            if (bits(ys[j]) != bits(yv[j]) && !(isnan(ys[j]) && isnan(yv[j]))) {
                if (failures++ < 20)
                    printf("FAIL %s(%a): scalar %a, AVX2 loop %a\n", fname[f], a[j], ys[j], yv[j]);
            }
        }
    }
#endif
}

/* the bounds the test enforces (max over all ranges), in ulps */
static const double bound[NF] = {0.515, 0.51, 0.52, 0.52};
static double overall[NF];

static void report(int f, const char *range, const struct stats *st)
{
    if (have_ld)
        printf("%-4s %-28s n=%9ld  max %.4f ulp (at %-24a)  differs from glibc %7.4f%%\n", fname[f], range, st->n,
               st->maxerr, st->worst_x, 100.0 * (double)st->diff_glibc / (double)(st->n ? st->n : 1));
    else
        printf("%-4s %-28s n=%9ld  max n/a  differs from glibc %7.4f%%\n", fname[f], range, st->n,
               100.0 * (double)st->diff_glibc / (double)(st->n ? st->n : 1));
    if (st->maxerr > overall[f]) overall[f] = st->maxerr;
}

static void run_range(int f, const char *name, long n, double (*gen)(const double *p), const double *p)
{
    struct stats st = {0, 0, 0, 0};
    double a[BLOCK];
    while (n > 0) {
        int m = n > BLOCK ? BLOCK : (int)n;
        for (int j = 0; j < m; j++) a[j] = gen(p);
        run_block(f, a, m, &st);
        n -= m;
    }
    report(f, name, &st);
}

static double gen_uniform(const double *p) { return uniform(p[0], p[1]); }
/* |x| log-uniform in [2^p0, 2^p1], random sign if p2 */
static double gen_logu(const double *p)
{
    double x = exp2(uniform(p[0], p[1]));
    return p[2] != 0 && (rng() & 1) ? -x : x;
}
static double gen_near1(const double *p) { return 1 + gen_logu(p); }
/* every positive finite double with its exponent uniform (bits uniform) */
static double gen_posbits(const double *p)
{
    (void)p;
    uint64_t u;
    do u = rng() >> 1; while (u == 0 || u >= 0x7ff0000000000000ULL);
    return from_bits(u);
}

/* ---- special values ---- */
static void expect(const char *what, double got, double want)
{
    int ok = isnan(want) ? isnan(got) : bits(got) == bits(want);
    if (!ok) {
        failures++;
        printf("FAIL %s: got %a, want %a\n", what, got, want);
    }
}

static void special_values(void)
{
    volatile double zero = 0.0; /* keep the calls at run time */
    double inf = INFINITY, nan_ = NAN;
    expect("exp(+0)", adi_exp(zero), 1.0);
    expect("exp(-0)", adi_exp(-zero), 1.0);
    expect("exp(-inf)", adi_exp(-inf), 0.0);
    expect("exp(inf)", adi_exp(inf), inf);
    expect("exp(nan)", adi_exp(nan_), nan_);
    expect("exp(1000)", adi_exp(1000 + zero), inf);
    expect("exp(-1000)", adi_exp(-1000 + zero), 0.0);
    expect("exp(709.782712893384)", adi_exp(709.782712893384), exp(709.782712893384));
    expect("exp(709.7827128933841)", adi_exp(709.7827128933841), inf);
    expect("exp(1)", adi_exp(1 + zero), exp(1.0));
    expect("exp(-745.1332191019411)", adi_exp(-745.1332191019411), exp(-745.1332191019411));
    expect("exp(-745.1332191019412)", adi_exp(-745.1332191019412), exp(-745.1332191019412));
    expect("exp(-745.2)", adi_exp(-745.2), 0.0);
    expect("exp(-744.44007192138122)", adi_exp(-744.44007192138122), exp(-744.44007192138122));
    /* tiny arguments: 1 rounded correctly */
    expect("exp(2^-60)", adi_exp(0x1p-60), 1.0);
    expect("exp(-2^-60)", adi_exp(-0x1p-60), 1.0);
    expect("exp(2^-53)", adi_exp(0x1p-53), 1.0);
    expect("exp(-2^-54)", adi_exp(-0x1p-54), 1.0);
    expect("exp(-2^-53)", adi_exp(-0x1p-53), 0x1.fffffffffffffp-1);
    expect("exp(2^-52)", adi_exp(0x1p-52), 0x1.0000000000001p0);
    expect("exp(min subnormal)", adi_exp(0x1p-1074), 1.0);
    expect("log(+0)", adi_log(zero), -inf);
    expect("log(-0)", adi_log(-zero), -inf);
    expect("log(-1)", adi_log(-1 + zero), nan_);
    expect("log(-inf)", adi_log(-inf), nan_);
    expect("log(-min subnormal)", adi_log(-0x1p-1074), nan_);
    expect("log(inf)", adi_log(inf), inf);
    expect("log(nan)", adi_log(nan_), nan_);
    expect("log(1)", adi_log(1 + zero), 0.0);
    expect("log(2)", adi_log(2 + zero), log(2.0));
    expect("log(min subnormal)", adi_log(0x1p-1074), log(0x1p-1074));
    expect("log(max subnormal)", adi_log(0x0.fffffffffffffp-1022), log(0x0.fffffffffffffp-1022));
    expect("log(DBL_MIN)", adi_log(DBL_MIN), log(DBL_MIN));
    expect("log(DBL_MAX)", adi_log(DBL_MAX), log(DBL_MAX));
    expect("log(1+2^-52)", adi_log(0x1.0000000000001p0), log(0x1.0000000000001p0));
    expect("log(1-2^-53)", adi_log(0x1.fffffffffffffp-1), log(0x1.fffffffffffffp-1));
    expect("sin(+0)", adi_sin(zero), 0.0);
    expect("sin(-0)", adi_sin(-zero), -0.0);
    expect("sin_core(-0)", adi_sin_core(-zero), -0.0);
    {
        double sz, cz;
        adi_sincos_core(-zero, &sz, &cz);
        expect("sincos_core(-0): sin", sz, -0.0);
        expect("sincos_core(-0): cos", cz, 1.0);
    }
    expect("sin(2^-30)", adi_sin(0x1p-30), 0x1p-30);
    expect("sin(-2^-30)", adi_sin(-0x1p-30), -0x1p-30);
    expect("sin(min subnormal)", adi_sin(0x1p-1074), 0x1p-1074);
    expect("sin(-DBL_MIN)", adi_sin(-DBL_MIN), -DBL_MIN);
    expect("cos(+0)", adi_cos(zero), 1.0);
    expect("cos(-0)", adi_cos(-zero), 1.0);
    expect("cos(2^-30)", adi_cos(0x1p-30), 1.0);
    expect("sin(inf)", adi_sin(inf), sin(inf));
    expect("cos(-inf)", adi_cos(-inf), cos(-inf));
    expect("sin(nan)", adi_sin(nan_), nan_);
    expect("cos(nan)", adi_cos(nan_), nan_);
    expect("sin(1e300)", adi_sin(1e300), sin(1e300));
    expect("cos(1e22)", adi_cos(1e22), cos(1e22));
    expect("sin(pi)", adi_sin(VM_PI), sin(VM_PI));
    expect("cos(pi/2)", adi_cos((VM_PI / 2)), cos((VM_PI / 2)));
    /* the range predicate */
    if (!adi_trig_ok(AD_TRIG_MAX) || !adi_trig_ok(-AD_TRIG_MAX) || adi_trig_ok(nextafter(AD_TRIG_MAX, inf))
        || adi_trig_ok(inf) || adi_trig_ok(-inf) || adi_trig_ok(nan_) || !adi_trig_ok(0)) {
        failures++;
        printf("FAIL adi_trig_ok at its bound or on inf/nan\n");
    }
    /* beyond the bound adi_sin/adi_cos are the C library's */
    for (int i = 0; i < 1000; i++) {
        double x = uniform(AD_TRIG_MAX, 1e9) * (i & 1 ? -1 : 1);
        expect("sin beyond AD_TRIG_MAX", adi_sin(x), sin(x));
        expect("cos beyond AD_TRIG_MAX", adi_cos(x), cos(x));
    }
}

/* the doubles nearest to k pi/2 (and their neighbours) for every k, or
 * every stride-th k, in range: the hardest arguments for the reduction */
static void trig_hard_cases(long stride)
{
    struct stats st[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    double a[BLOCK];
    int m = 0;
    const long double pio2 = 1.57079632679489661923132169163975144L;
    long kmax = (long)(AD_TRIG_MAX / 1.5707963267948966);
    double closest = 1, closest_x = 0;
    for (long k = 1; k <= kmax; k += stride) {
        long double t = (long double)k * pio2;
        double x0 = (double)t;
        double c[3] = {nextafter(x0, 0), x0, nextafter(x0, INFINITY)};
        for (int i = 0; i < 3; i++) {
            if (!adi_trig_ok(c[i])) continue;
            a[m++] = (k & 1) ? -c[i] : c[i];
            /* |c - k pi/2| in long double, pi/2 in three parts, the first of
             * 40 bits so that k * it and c minus that are exact */
            long double rem = ((long double)c[i] - k * (long double)0x1.921fb54442p+0)
                - k * (long double)0x1.a308d313198a3p-41 - k * (long double)-0x1.fc8f8cbb5bf6cp-97;
            long double rel = fabsl(rem) / t;
            if (rel < closest) { closest = (double)rel; closest_x = c[i]; }
            if (m == BLOCK) {
                run_block(F_SIN, a, m, &st[0]);
                run_block(F_COS, a, m, &st[1]);
                m = 0;
            }
        }
    }
    if (m) {
        run_block(F_SIN, a, m, &st[0]);
        run_block(F_COS, a, m, &st[1]);
    }
    report(F_SIN, "near k*pi/2", &st[0]);
    report(F_COS, "near k*pi/2", &st[1]);
    printf("     closest double to a multiple of pi/2 in range: %a, |x - k pi/2| / x = %.3g\n", closest_x, closest);
}

int main(void)
{
    const char *s = getenv("ADCALC_VMATH_N");
    long n = s ? atol(s) : 2000000;
    if (n < 1000) n = 1000;
    {
        volatile long double one = 1.0L, tiny = 0x1p-60L;
        have_ld = LDBL_MANT_DIG >= 64 && one + tiny != one;
    }
#ifdef VM_HAVE_AVX2_VARIANT
    __builtin_cpu_init();
    have_avx2 = __builtin_cpu_supports("avx2");
#endif
    printf("n = %ld per function; AVX2 loop %s; long double reference %s\n", n,
           have_avx2 ? "checked" : "not available", have_ld ? "on" : "off (accuracy bounds skipped)");
    special_values();

    double p[3];
#define RANGE(f, name, frac, gen, a0, a1, a2) \
    (p[0] = (a0), p[1] = (a1), p[2] = (a2), run_range(f, name, (long)(n * (frac)) + 1, gen, p))
    RANGE(F_EXP, "[-1, 1]", 0.2, gen_uniform, -1, 1, 0);
    RANGE(F_EXP, "[-50, 50]", 0.2, gen_uniform, -50, 50, 0);
    RANGE(F_EXP, "[-745.2, 709.8]", 0.3, gen_uniform, -745.2, 709.8, 0);
    RANGE(F_EXP, "[-745.2, -708] (subnormal)", 0.2, gen_uniform, -745.2, -708, 0);
    RANGE(F_EXP, "[709, 710] (overflow)", 0.05, gen_uniform, 709, 710, 0);
    RANGE(F_EXP, "|x| in [2^-70, 2^-20]", 0.05, gen_logu, -70, -20, 1);
    RANGE(F_LOG, "all positive doubles", 0.4, gen_posbits, 0, 0, 0);
    RANGE(F_LOG, "[0.5, 2]", 0.3, gen_uniform, 0.5, 2, 0);
    RANGE(F_LOG, "[0.9, 1.1]", 0.2, gen_uniform, 0.9, 1.1, 0);
    RANGE(F_LOG, "1 +- [2^-60, 2^-4]", 0.1, gen_near1, -60, -4, 1);
    for (int f = F_SIN; f <= F_COS; f++) {
        RANGE(f, "[-pi, pi]", 0.3, gen_uniform, -VM_PI, VM_PI, 0);
        RANGE(f, "[-1e5, 1e5]", 0.3, gen_uniform, -1e5, 1e5, 0);
        RANGE(f, "[-AD_TRIG_MAX, AD_TRIG_MAX]", 0.3, gen_uniform, -AD_TRIG_MAX, AD_TRIG_MAX, 0);
        RANGE(f, "|x| in [2^-40, 2^-2]", 0.1, gen_logu, -40, -2, 1);
    }
    trig_hard_cases(n >= 1000000 ? 1 : 1000000 / n);

    for (int f = 0; f < NF; f++) {
        if (!have_ld) break;
        int bad = overall[f] > bound[f];
        printf("%s: max error %.4f ulp, bound %.3f: %s\n", fname[f], overall[f], bound[f], bad ? "FAIL" : "ok");
        failures += bad;
    }
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
