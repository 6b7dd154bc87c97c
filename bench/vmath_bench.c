/* vmath_bench.c - owns the speed comparison of src/lib/vmath.h against glibc:
 * nanoseconds per element of the batch-mode loop Y[j] = f(A[j]) over a
 * block of 256 points, for glibc's exp/log/sin/cos and adi_exp, adi_log,
 * adi_sin_core, adi_cos_core (median of 15 runs of ~20 ms each).  Not part
 * of the build; compile by hand, once per target:
 *   gcc -std=c11 -O2 -I src/lib bench/vmath_bench.c src/lib/vmath.c -o vmath_bench -lm
 *   gcc -std=c11 -O2 -mavx2 -I src/lib bench/vmath_bench.c src/lib/vmath.c -o vmath_bench_avx2 -lm
 * The pragma below is the one the block engine compiles its loops with; it
 * must come before the #include so the inline functions get it too. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "vmath.h"

#define NP 256
#define RUNS 15

#define LOOP(name, expr) \
    __attribute__((noinline)) static void name(double *restrict y, const double *restrict a) \
    { for (int j = 0; j < NP; j++) { double x = a[j]; y[j] = (expr); } }
LOOP(l_exp, exp(x))
LOOP(l_ad_exp, adi_exp(x))
LOOP(l_log, log(x))
LOOP(l_ad_log, adi_log(x))
LOOP(l_sin, sin(x))
LOOP(l_ad_sin, adi_sin_core(x))
LOOP(l_cos, cos(x))
LOOP(l_ad_cos, adi_cos_core(x))

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static int cmp(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return a < b ? -1 : a > b;
}

static volatile double sink;
static double bench(void (*f)(double *restrict, const double *restrict), const double *a)
{
    double y[NP], t[RUNS];
    long reps = 1;
    for (;;) { /* calibrate to ~20 ms per run */
        double t0 = now();
        for (long r = 0; r < reps; r++) f(y, a);
        if (now() - t0 > 0.02) break;
        reps *= 2;
    }
    for (int i = 0; i < RUNS; i++) {
        double t0 = now();
        for (long r = 0; r < reps; r++) { f(y, a); sink = y[r & (NP - 1)]; }
        t[i] = (now() - t0) / ((double)reps * NP) * 1e9;
    }
    qsort(t, RUNS, sizeof t[0], cmp);
    return t[RUNS / 2];
}

int main(void)
{
    static double a[4][NP];
    srand(1);
    for (int j = 0; j < NP; j++) {
        double u = rand() / (RAND_MAX + 1.0);
        a[0][j] = -50 + 100 * u;        /* exp */
        a[1][j] = exp(-7 + 14 * u);     /* log, 1e-3 .. 1e3 */
        a[2][j] = -3.14159 + 6.28318 * u; /* sin, cos on [-pi, pi] */
        a[3][j] = -1e5 + 2e5 * u;       /* sin, cos on [-1e5, 1e5] */
    }
#ifdef __AVX2__
    const char *isa = "AVX2";
#else
    const char *isa = "SSE2";
#endif
    printf("%s, ns per element, 256-element loop, median of %d\n", isa, RUNS);
    printf("exp  [-50, 50]      glibc %6.2f   adi_exp      %6.2f\n", bench(l_exp, a[0]), bench(l_ad_exp, a[0]));
    printf("log  [1e-3, 1e3]    glibc %6.2f   adi_log      %6.2f\n", bench(l_log, a[1]), bench(l_ad_log, a[1]));
    printf("sin  [-pi, pi]      glibc %6.2f   adi_sin_core %6.2f\n", bench(l_sin, a[2]), bench(l_ad_sin, a[2]));
    printf("cos  [-pi, pi]      glibc %6.2f   adi_cos_core %6.2f\n", bench(l_cos, a[2]), bench(l_ad_cos, a[2]));
    printf("sin  [-1e5, 1e5]    glibc %6.2f   adi_sin_core %6.2f\n", bench(l_sin, a[3]), bench(l_ad_sin, a[3]));
    printf("cos  [-1e5, 1e5]    glibc %6.2f   adi_cos_core %6.2f\n", bench(l_cos, a[3]), bench(l_ad_cos, a[3]));
    return 0;
}
