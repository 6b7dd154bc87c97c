/* rulefns.h - the numeric helpers that ops.def's value and derivative
 * rules call: pure functions of their arguments, over adcalc's own
 * exp/log/sin/cos (vmath.h) and the polygamma functions (special.c).
 * --emit-c copies this file, vmath.h, vmath.c and special.c into the C it
 * writes (src/lib/embed-runtime.sh), so that emitted code computes
 * every rule exactly as the engine does: keep it free of anything but
 * <math.h>-level C99 and the ADI_ statuses of ops.h. */
#ifndef AD_RULEFNS_H
#define AD_RULEFNS_H

#include <float.h>
#include <math.h>
#include <stddef.h>
#include "ops.h"
#include "vmath.h"   /* adi_exp, adi_log, adi_sin, adi_cos: the engine's own, everywhere */

#define ADI_LN2 0.69314718055994530942
#define ADI_LN10 2.30258509299404568402
#define ADI_2_SQRTPI 1.12837916709551257390 /* 2/sqrt(pi) */
/* spellings used inside ops.def (a file that asks for POSIX or GNU
 * extensions has the C library's, the same numbers) */
#undef M_LN2
#undef M_LN10
#undef M_2_SQRTPI
#define M_LN2 ADI_LN2
#define M_LN10 ADI_LN10
#define M_2_SQRTPI ADI_2_SQRTPI

/* the spellings of ops.def's "no rule" entries (compared as text, at
 * compile time after inlining) */
static inline int adi_is_null_literal(const char *s) { return s[0] == 'N' && s[1] == 'U' && s[2] == 'L' && s[3] == 'L' && !s[4]; }
static inline int adi_is_ok_literal(const char *s) { return s[0] == 'A' && s[1] == 'D' && s[2] == 'I' && s[3] == '_' && s[4] == 'O' && s[5] == 'K' && !s[6]; }
static inline int adi_is_zero_literal(const char *s) { return s[0] == '0' && !s[1]; }

/* the type of ops.def's WIDE partials: long double where it has a wider
 * exponent than double (x86-64: 15 bits), else double, which cannot help */
#if LDBL_MAX_EXP > DBL_MAX_EXP
typedef long double adi_wide;
#define ADI_WIDE_USEFUL 1
#else
typedef double adi_wide;
#define ADI_WIDE_USEFUL 0
/* one chain-rule term p * x: zero when either factor is, even when the
 * other overflowed (IEEE's 0 * inf is nan; here a zero factor means "does
 * not depend on it") */
static inline double adi_term(double p, double x) { return (p == 0 || x == 0) ? 0 : p * x; }

#endif

static inline int rule_is_integer(double b) { return isfinite(b) && b == floor(b); }

/* a^b; rule_pow_domain has already rejected the undefined cases.  a^2 is
 * a*a, correctly rounded (the C library's pow is not always), and the same
 * value the optimiser's sqr gives */
static inline double rule_pow(double a, double b) { return b == 2 ? a * a : pow(a, b); }
static inline const char *rule_pow_domain(double a, double b)
{
    if (a < 0 && !rule_is_integer(b)) return "negative base with a non-integer exponent";
    if (a == 0 && b < 0) return "zero to a negative power";
    return NULL;
}
/* d/da a^b = b a^(b-1); at a = 0 this gives 1 for b = 1, 0 for b > 1 and
 * inf or nan where rule_pow_sing_a flags the point singular.  For b = 0 it
 * is 0 (a^0 is constant), also where a^-1 overflows (a below 2^-1024):
 * 0 * inf would be nan. */
static inline double rule_pow_da(double a, double b)
{
    if (b == 0) return 0;
    double p = pow(a, b - 1);
    /* a^(b-1) overflows where a^b / a does not (a of 1e-160, b near 0);
     * and b - 1 is b itself from 2^53 on, with the parity of an even b */
    return (isfinite(p) && b - 1 != b) || a == 0 ? b * p : b * pow(a, b) / a;
}
/* d/da a^b = b a^(b-1) in long double (ops.def's WIDE): |a|^(b-1) with
 * the sign that the parity of b - 1 gives a < 0 (b is an integer there,
 * and even from 2^53 on, where b - 1 rounds back to b) */
static inline adi_wide rule_pow_da_wide(double a, double b)
{
    if (a == 0) return (adi_wide)NAN;
    adi_wide m = (adi_wide)b * powl(fabsl((adi_wide)a), (adi_wide)b - 1);
    return a < 0 && fmod(b, 2) == 0 ? -m : m;
}
/* d/db a^b = a^b ln a for a > 0; 0 at a = 0 (b > 0); undefined for a < 0 */
static inline double rule_pow_db(double a, double b, double v)
{
    (void)b;
    if (a > 0) return v * adi_log(a);
    if (a == 0) return 0;
    return NAN;
}
static inline int rule_pow_sing_a(double a, double b)
{
    return (a == 0 && b >= 0 && b < 1) ? ADI_SINGULAR : ADI_OK;
}
static inline int rule_pow_sing_b(double a, double b)
{
    if (a == 0 && b == 0) return ADI_SINGULAR;
    if (a < 0) return ADI_SINGULAR; /* a^b is defined only at integer b */
    return ADI_OK;
}

/* second partials of a^b (a > 0, or the cases the status flags allow) */
static inline double rule_pow_daa(double a, double b)
{
    if (b == 1 || b == 0) return 0;
    double p = pow(a, b - 2);
    /* a^(b-2) overflows where (a^b / a) / a does not */
    return isfinite(p) || a == 0 ? b * (b - 1) * p : b * (b - 1) * pow(a, b) / a / a;
}
static inline double rule_pow_dab(double a, double b)
{
    if (a > 0) return pow(a, b - 1) * (1 + b * adi_log(a));
    if (a == 0 && b > 1) return 0;
    return NAN;
}
static inline double rule_pow_dbb(double a, double b, double v)
{
    (void)b;
    if (a > 0) {
        double l = adi_log(a);
        return v * l * l;
    }
    return a == 0 ? 0 : NAN;
}

static inline double rule_atan2_dy(double y, double x)
{
    double h = hypot(y, x);
    return (x / h) / h;
}
static inline double rule_atan2_dx(double y, double x)
{
    double h = hypot(y, x);
    return (-y / h) / h;
}
/* d2/dy2 and d2/dxdy of atan2(y, x); d2/dx2 = -d2/dy2 */
static inline double rule_atan2_dyy(double y, double x)
{
    double h = hypot(y, x);
    return (-2 * (y / h) * (x / h)) / (h * h);
}
static inline double rule_atan2_dxy(double y, double x)
{
    double h = hypot(y, x);
    return ((y / h) * (y / h) - (x / h) * (x / h)) / (h * h);
}

/* log(1 + exp(t)) / beta with t = beta x, never overflowing */
static inline double rule_softplus(double x, double beta)
{
    double t = beta * x;
    return (t > 0 ? t + log1p(adi_exp(-t)) : log1p(adi_exp(t))) / beta;
}
static inline double rule_sigmoid(double t)
{
    if (t >= 0) return 1 / (1 + adi_exp(-t));
    double e = adi_exp(t);
    return e / (1 + e);
}

/* sigma'(t) = sigma(t) (1 - sigma(t)) = e / (1 + e)^2 with e = exp(-|t|):
 * no 1 - sigma(t), which cancels to 0 from t of about 37 */
static inline double rule_dsigmoid(double t)
{
    double e = adi_exp(-fabs(t));
    return e / ((1 + e) * (1 + e));
}

/* tanh'(x) = 1 - tanh(x)^2 = 4 e / (1 + e)^2 with e = exp(-2|x|): from the
 * value, (1 - v)(1 + v) cancels once |tanh x| rounds to 1 (|x| > 19),
 * where the true derivative is a normal double down to |x| of about 354 */
static inline double rule_dtanh(double x, double v)
{
    if (fabs(v) < 0.5) return (1 - v) * (1 + v);
    double e = adi_exp(-2 * fabs(x));
    return 4 * e / ((1 + e) * (1 + e));
}

/* sin(u)/u, and its limit 1 at 0 */
static inline double rule_sinc(double u) { return u == 0 ? 1 : adi_sin(u) / u; }

/* sinc's Taylor coefficients at u, c[n] = sinc^(n)(u) / n! for n <= K
 * (K <= 100).  Differentiating u sinc(u) = sin(u) n times and dividing by
 * n! gives u c[n] + c[n-1] = sin^(n)(u) / n!: solved for c[n] while n <=
 * |u|, and for c[n-1] from far above K downwards (from c = 0 there) for
 * n > |u|, the direction in which each is stable (Miller's method, as for
 * Bessel functions); near 0 this never divides by u, and no difference of
 * nearly equal terms is formed. */
static inline void rule_sinc_series(double u, double *c, int K)
{
    double s = adi_sin(u), co = adi_cos(u), au = fabs(u);
    const double sig[4] = {s, co, -s, -co};   /* sin^(n)(u) for n mod 4 */
    if (!(au <= DBL_MAX)) {   /* nan or inf in: a point the engines fail */
        for (int n = 0; n <= K; n++) c[n] = NAN;
        return;
    }
    int M = au >= K ? K : (int)au;
    c[0] = rule_sinc(u);
    double inv = 1;   /* 1/n! */
    for (int n = 1; n <= M; n++) {
        inv /= n;
        c[n] = (sig[n & 3] * inv - c[n - 1]) / u;
    }
    if (M >= K) return;
    /* start where the error of c = 0 has been damped below 2^-64 */
    int N = K + 2;
    double damp = 1;
    while (N < 160 && damp > 0x1p-64) damp *= au / ++N;
    double invN = 1, cn = 0;
    for (int n = 2; n <= N; n++) invN /= n;
    for (int n = N; n > M + 1; n--) {
        double prev = sig[n & 3] * invN - u * cn;   /* c[n - 1] */
        invN *= n;
        cn = prev;
        if (n - 1 <= K) c[n - 1] = prev;
    }
}

/* sinc^(n)(u) / n! for n = 1 or 2 */
static inline double rule_sinc_d(double u, int n)
{
    double c[3];
    rule_sinc_series(u, c, 2);
    return c[n];
}

/* ---- gamma and its kin (the polygamma functions are in special.c) ---- */

/* c[n] = psi^(n)(x) / n! for n = 0..K, psi = digamma = Gamma'/Gamma */
void adi_polygamma_series(double x, double *c, int K);
/* psi^(n)(x) for n = 0 (digamma), 1 (trigamma) or 2 (tetragamma) */
double adi_psi(int n, double x);

/* the poles of gamma, lgamma and digamma: 0, -1, -2, ... (and -inf) */
static inline const char *rule_gamma_domain(double x)
{
    return x <= 0 && (x == floor(x) || isinf(x)) ? "pole at a non-positive integer" : NULL;
}

/* ---- step functions: constant between jumps, a kink at each jump ---- */

/* sign(x): -1, 0 or 1; a zero keeps its sign, a nan stays nan */
static inline double rule_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : x; }
/* 1 at a jump of round(x), the half-integers (x - trunc(x) is exact) */
static inline int rule_round_jump(double x) { return fabs(x - trunc(x)) == 0.5; }
/* n = trunc(a/b), the whole number with fmod(a, b) = a - n b exactly:
 * (a - fmod(a, b)) / b is n within a few roundings, and n is whole */
static inline double rule_fmod_quot(double a, double b) { return round((a - fmod(a, b)) / b); }
/* 1 at a jump of fmod(a, b): a/b a whole number other than 0 (at a = 0,
 * fmod(a, b) = a on both sides) */
static inline int rule_fmod_jump(double a, double b) { return a != 0 && fmod(a, b) == 0; }
/* which piece of fmod(a, b) the point is on (ops.def's BRANCH): n, or
 * where n overflows (b below a * 2^-1024) n b, which tells the pieces
 * apart along a */
static inline double rule_fmod_side(double a, double b)
{
    double n = rule_fmod_quot(a, b);
    return isfinite(n) ? n : a - fmod(a, b);
}

/* one chain-rule term p * x: zero when either factor is, even when the
 * other overflowed (IEEE's 0 * inf is nan; here a zero factor means "does
 * not depend on it") */
static inline double adi_term(double p, double x) { return (p == 0 || x == 0) ? 0 : p * x; }

#endif
