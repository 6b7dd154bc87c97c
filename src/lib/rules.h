/* rules.h - the numeric helpers that ops.def's value and derivative rules
 * call, and the kernels that expand ops.def into switch statements used by
 * every engine and the dump.  Everything here is a pure function of its
 * arguments. */
#ifndef AD_RULES_H
#define AD_RULES_H

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

/* the type of ops.def's WIDE partials: long double where it has a wider
 * exponent than double (x86-64: 15 bits), else double, which cannot help */
#if LDBL_MAX_EXP > DBL_MAX_EXP
typedef long double adi_wide;
#define ADI_WIDE_USEFUL 1
#else
typedef double adi_wide;
#define ADI_WIDE_USEFUL 0
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

/* ---- kernels generated from ops.def ---- */

/* value of op at (a, b); leaves are not handled here */
static inline double adi_op_value(int op, double a, double b)
{
    (void)a; (void)b;
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: return (val);
#include "ops.def"
    }
    return NAN;
}

/* NULL when (a, b) is in op's domain, else the reason */
static inline const char *adi_op_domain(int op, double a, double b)
{
    (void)a; (void)b;
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: return (dom);
#include "ops.def"
    }
    return NULL;
}

/* op's WIDE partials (ops.def) at (a, b) with value v: 1, or 0 when op has
 * none */
static inline int adi_op_wide_partials(int op, double a, double b, double v, adi_wide p[2])
{
    adi_wide wa = a, wb = b, wv = v;
    (void)wa; (void)wb; (void)wv;
    switch (op) {
#define WIDE(E, da, db) \
    case AD_OP_##E: p[0] = (da); p[1] = (db); return 1;
#include "ops.def"
    }
    return 0;
}

/* the status of a partial that is not finite where the value is defined
 * (below): ADI_OVERFLOW where ops.def's WIDE rule has it, else singular;
 * out of line, as it is rare (ops.c) */
void adi_op_partials_not_finite(int op, double a, double b, double v, const double d[2], unsigned char st[2]);

/* local partials d/da, d/db of op at (a, b) with value v, and their status
 * (ADI_OK, ADI_SINGULAR or ADI_KINK) */
#if defined(__GNUC__)
#define ADI_HOT_INLINE static inline __attribute__((always_inline))
#else
#define ADI_HOT_INLINE static inline
#endif
/* (inlined wherever it is called: a sweep calls it once a node, and a
 * call per node costs a small tape a tenth of its time) */
ADI_HOT_INLINE void adi_op_partials(int op, double a, double b, double v, double d[2], unsigned char st[2])
{
    (void)a; (void)b; (void)v;
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: d[0] = (da); d[1] = (db); st[0] = (unsigned char)(sa); st[1] = (unsigned char)(sb); break;
#include "ops.def"
    default:
        d[0] = d[1] = 0;
        st[0] = st[1] = ADI_OK;
    }
    /* a partial that is not finite where the value is defined is no
     * derivative a double can carry: nan where the rule met 0 * inf (b
     * a^(b-1) for 0 < a < 1 and b overflowed to inf), inf where it
     * overflowed (1/x at x = 1e-310, where the true 1e310 is beyond the
     * doubles).  Such a point is singular, like the points ops.def names,
     * so that no nan or inf is printed as a derivative.  (The block replay
     * sees it in the gradient and hands the point to the engines, which
     * report it.) */
    if ((!isfinite(d[0]) && st[0] == ADI_OK) || (!isfinite(d[1]) && st[1] == ADI_OK))
        adi_op_partials_not_finite(op, a, b, v, d, st);
#ifdef AD_TEST_WRONG_RULE
    /* tests/check.am builds a copy of adcalc with one rule off by 0.1%,
     * to see --check catch it; never defined in the real build */
    if (op == AD_TEST_WRONG_RULE) d[0] *= 1.001;
#endif
}

/* 1 when op has a domain rule (ops.def's domain is not NULL) */
static inline int adi_op_has_domain(int op)
{
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: return !adi_is_null_literal(#dom);
#include "ops.def"
    }
    return 1;
}

/* 1 when op can report a kink or singular point (its statuses are not
 * both the literal ADI_OK) */
static inline int adi_op_has_status(int op)
{
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: return !(adi_is_ok_literal(#sa) && adi_is_ok_literal(#sb));
#include "ops.def"
    }
    return 1;
}

/* second partials d2/da2, d2/dadb, d2/db2 of op at (a, b) with value v */
static inline void adi_op_partials2(int op, double a, double b, double v, double q[3])
{
    (void)a; (void)b; (void)v;
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E: q[0] = (daa); q[1] = (dab); q[2] = (dbb); return;
#include "ops.def"
    }
    q[0] = q[1] = q[2] = 0;
}

#endif
