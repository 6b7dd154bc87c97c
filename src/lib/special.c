/* special.c - the polygamma functions psi^(n)(x) = d^n/dx^n psi(x), psi =
 * digamma = Gamma'/Gamma, which the C library does not have: the
 * derivatives of gamma, lgamma and digamma (ops.def) and their Taylor
 * coefficients (taylor.c) need them.
 *
 * One routine gives all of c[n] = psi^(n)(x) / n!, n = 0..K, at once:
 *
 *   x > 0: the recurrence psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! x^-(n+1)
 *     (Abramowitz & Stegun 6.4.6) moves x up to w = x + N >= 10 + K, where
 *     the asymptotic expansions hold to far below a double's precision:
 *       psi(w) ~ ln w - 1/(2w) - sum_j B_2j / (2j w^2j)                (A&S 6.3.18)
 *       psi^(n)(w) / n! = (-1)^(n+1) zeta(n+1, w), and the Euler-Maclaurin
 *       tail of the Hurwitz zeta function, s = n + 1,
 *       zeta(s, w) ~ w^(1-s)/(s-1) + w^-s/2
 *                    + sum_j B_2j/(2j)! s(s+1)...(s+2j-2) w^(-s-2j+1)   (DLMF 25.11.43 with
 *     the sum over the N shifted points, DLMF 25.11.5), j = 1..10;
 *   x < 0: the reflection formula (DLMF 5.15.6 differentiated n times)
 *       psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi d^n/dx^n cot(pi x),
 *     where d^n/dx^n cot(pi x) / n! = pi^n p_n(cot(pi x)), p_0(c) = c,
 *     p_(n+1)(c) = -(1 + c^2) p_n'(c) / (n + 1) (since d cot(u)/du =
 *     -(1 + cot^2 u)): polynomials whose coefficients have one sign each,
 *     so nothing cancels inside them;
 *   psi itself for 0 < x < 10, where the sums above cancel to about
 *     5e-16 absolutely (10 ulps near psi's zero x0 = 1.46163), comes from
 *     its Taylor series about x0 on [1, 2) (psi_small).
 *
 * Accuracy (against mpmath): a few units in the last place for x > 0; for
 * x < 0 the two terms of the reflection formula can cancel (near the zeros
 * of psi^(n) between the poles), where the error is a few units in the last
 * place of the larger term.  At x = 0, -1, -2, ... (the poles: domain
 * errors before this is called) the result is inf or nan. */
#include <math.h>
#include "rulefns.h"

#define PI 3.14159265358979323846

/* B_2j / (2j)!, j = 1..10 (Bernoulli numbers, A&S table 23.2) */
static const double bern_fact[10] = {
    1.0 / 6 / 2,
    -1.0 / 30 / 24,
    1.0 / 42 / 720,
    -1.0 / 30 / 40320,
    5.0 / 66 / 3628800,
    -691.0 / 2730 / 479001600,
    7.0 / 6 / 87178291200.0,
    -3617.0 / 510 / 20922789888000.0,
    43867.0 / 798 / 6402373705728000.0,
    -174611.0 / 330 / 2432902008176640000.0,
};

/* psi about its zero x0 = 1.4616321449683623 (x0_hi + x0_lo):
 * psi(x0 + d) = sum_k psi_x0[k-1] d^k, the coefficients psi^(k)(x0)/k! =
 * (-1)^(k+1) zeta(k+1, x0) printed by mpmath at 50 digits.  Used on [1, 2),
 * |d| <= 0.54, where the terms fall by 0.37 each (the pole at 0 is 1.46
 * away): 46 of them reach 1e-20 */
#define PSI_X0_HI 1.4616321449683622
#define PSI_X0_LO 9.549995429965697e-17
#define PSI_X0_N 46
static const double psi_x0[PSI_X0_N] = {
    0.96767224544762117, -0.44276316898359211, 0.25849976095565101, -0.16394270544240653,
    0.10782405069126237, -0.072199561256454711, 0.048804288164143107, -0.033161126474847359,
    0.022597648232218105, -0.015424765904948959, 0.010538791616612175, -0.0072045343863568682,
    0.0049267813957298534, -0.0033698016554393281, 0.0023051263267349278, -0.0015769367714301973,
    0.0010788252019162966, -0.00073807093899600513, 0.00050495326583460204, -0.0003454680251063077,
    0.00023635601564027053, -0.00016170622091974803, 0.00011063372768747411, -0.000075691795821950659,
    0.000051785757952220809, -0.000035430070947659606, 0.000024240066118601318, -0.000016584242271854133,
    0.00001134638458466385, -0.0000077628176684620944, 0.0000053110609208898634, -0.0000036336507898010457,
    0.0000024860227331295379, -0.0000017008538854332607, 0.0000011636675363548843, -0.00000079614254312419704,
    0.00000054469419306694453, -0.0000003726616128343823, 0.00000025496265520215543, -0.00000017443695117727745,
    0.00000011934394829830243, -0.000000081651151894884088, 0.000000055862996835321714, -0.000000038219600619174942,
    0.000000026148576951961866, -0.000000017889984864911493,
};

/* psi(x) for 0 < x < 10: psi(y) on [1, 2) from its series about x0, with
 * psi(x) = psi(x - 1) + 1/(x - 1) down to there (terms of one sign, and
 * x - k is exact), or psi(x) = psi(x + 1) - 1/x from (0, 1) */
static double psi_small(double x)
{
    double y = x, acc = 0;
    if (y < 1) {
        acc = -1 / y;
        y += 1;
    }
    while (y >= 2) {
        y -= 1;
        acc += 1 / y;
    }
    double d = (y - PSI_X0_HI) - PSI_X0_LO, t = 0;
    for (int k = PSI_X0_N - 1; k >= 0; k--) t = (t + psi_x0[k]) * d;
    return t + acc;
}

/* the largest K the reflection formula serves (its polynomials live on the
 * stack); higher coefficients at x < 0 are nan */
#define REFLECT_MAX 128

static void series_positive(double x, double *c, int K)
{
    double W = 10 + K;
    int N = x >= W ? 0 : (int)ceil(W - x);
    double w = x + N;
    for (int n = 0; n <= K; n++) c[n] = 0;
    /* the shifted points, smallest terms first */
    for (int k = N - 1; k >= 0; k--) {
        double u = 1 / (x + k), p = u;
        for (int n = 0; n <= K; n++) {
            c[n] += p;
            p *= u;
        }
    }
    /* psi^(n)(x)/n! = (-1)^(n+1) [sum + zeta tail] for n >= 1; psi = tail - sum */
    double iw = 1 / w, iw2 = iw * iw;
    double s0 = 0, p = iw2, f = 1;   /* f = (2j-1)! */
    for (int j = 1; j <= 10; j++) {
        s0 += bern_fact[j - 1] * f * p;
        p *= iw2;
        f *= (2 * j) * (2 * j + 1);
    }
    c[0] = log(w) - 0.5 * iw - s0 - c[0];
    double wp = iw;   /* w^-n */
    for (int n = 1; n <= K; n++) {
        double s = n + 1, tail = wp / n + 0.5 * wp * iw, q = wp * iw * iw, r = s;   /* r = s(s+1)...(s+2j-2) */
        for (int j = 1; j <= 10; j++) {
            tail += bern_fact[j - 1] * r * q;
            r *= (s + 2 * j - 1) * (s + 2 * j);
            q *= iw2;
        }
        c[n] = (n % 2 ? 1 : -1) * (c[n] + tail);
        wp *= iw;
    }
    if (x > 0 && x < 10) c[0] = psi_small(x);
}

void adi_polygamma_series(double x, double *c, int K)
{
    if (isnan(x) || x == -INFINITY) {   /* (a nan would make N below no number) */
        for (int n = 0; n <= K; n++) c[n] = NAN;
        return;
    }
    if (x >= 0) {
        series_positive(x, c, K);
        return;
    }
    series_positive(1 - x, c, K);
    double r = x - nearbyint(x);   /* exact for |x| < 2^52; 0 beyond: a pole */
    /* cot(pi r), from tan of the smaller angle: near r = +-1/2, where
     * cot is near 0, as tan(pi (1/2 - |r|)) with 1/2 - |r| exact (cos
     * of pi r would carry pi r's rounding as an error of 6e-17 there) */
    double ct = fabs(r) <= 0.25 ? 1 / tan(PI * r) : tan(PI * copysign(0.5 - fabs(r), r));
    double q[REFLECT_MAX + 2], nq[REFLECT_MAX + 2], pw = PI;
    int deg = 1;   /* p_n has degree n + 1 */
    for (int i = 0; i < REFLECT_MAX + 2; i++) q[i] = 0;
    q[1] = 1;
    for (int n = 0; n <= K; n++) {
        if (n > REFLECT_MAX) {
            c[n] = NAN;
            continue;
        }
        double pv = 0;
        for (int i = deg; i >= 0; i--) pv = pv * ct + q[i];
        c[n] = (n % 2 ? -c[n] : c[n]) - pw * pv;
        pw *= PI;
        if (n == K || n == REFLECT_MAX) continue;
        /* coefficient m of -(1 + c^2) p'(c) / (n + 1) */
        for (int m = 0; m <= deg + 1; m++) {
            double s = (m + 1 <= deg ? (m + 1) * q[m + 1] : 0) + (m >= 1 ? (m - 1) * q[m - 1] : 0);
            nq[m] = -s / (n + 1);
        }
        deg++;
        for (int m = 0; m <= deg; m++) q[m] = nq[m];
    }
}

double adi_psi(int n, double x)
{
    double c[3];
    adi_polygamma_series(x, c, n);
    return n == 2 ? 2 * c[2] : c[n];
}
