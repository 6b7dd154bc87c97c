/* taylor.c - higher-order forward mode: truncated Taylor arithmetic.
 *
 * Every node carries the coefficients y[0..K] of y(t) = f(x + t v) around
 * t = 0 (y[k] = f^(k) / k!).  Each primitive has a kernel tay_<name>, named
 * in ops.def, that computes y[1..K] from its operands' coefficients by the
 * standard recurrences (Griewank & Walther, "Evaluating Derivatives", ch.
 * 13): products are Cauchy products, and a function whose derivative obeys
 * y' = u a' (exp, sin, tan, ...) or r y' = a' (log, asin, atan, ...) gets
 * y[k] from u or r by one convolution.  y[0] is always the primal value
 * from ops.def, so values are bit-identical to the other engines. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "alloc.h"

typedef struct {
    int K;
    double *s1, *s2, *s3, *s4;   /* scratch series, K + 1 each */
} tay;

/* c = a * b, orders 0..K */
static void cauchy(const double *a, const double *b, double *c, int K)
{
    for (int k = 0; k <= K; k++) {
        double s = 0;
        for (int j = 0; j <= k; j++) s += a[j] * b[k - j];
        c[k] = s;
    }
}

/* y' = u a': y[k] = (1/k) sum_{j=1..k} j a[j] u[k-j] */
static double integ(const double *a, const double *u, int k)
{
    double s = 0;
    for (int j = 1; j <= k; j++) s += j * a[j] * u[k - j];
    return s / k;
}

/* r y' = a': y[k] = (k a[k] - sum_{j=1..k-1} r[j] (k-j) y[k-j]) / (k r[0]) */
static void inverse_rule(const double *a, const double *r, double *y, int K)
{
    for (int k = 1; k <= K; k++) {
        double s = k * a[k];
        for (int j = 1; j < k; j++) s -= r[j] * (k - j) * y[k - j];
        y[k] = s / (k * r[0]);
    }
}

/* y = sqrt(w), y[0] given */
static void sqrt_series(const double *w, double *y, int K)
{
    for (int k = 1; k <= K; k++) {
        double s = w[k];
        for (int j = 1; j < k; j++) s -= y[j] * y[k - j];
        y[k] = s / (2 * y[0]);
    }
}

/* y = exp(w), y[0] given.  Every coefficient is y[0] times a polynomial
 * in w's: where y[0] is 0 because w[0] is beyond -745 they are 0 too,
 * also where w's coefficients overflowed (exp(-a^2) for erf at a = 1e200,
 * where 0 * inf would give nan) */
static void exp_series(const double *w, double *y, int K)
{
    for (int k = 1; k <= K; k++) y[k] = y[0] == 0 ? 0 : integ(w, y, k);
}

/* y = log(w), y[0] given */
static void log_series(const double *w, double *y, int K)
{
    for (int k = 1; k <= K; k++) {
        double s = 0;
        for (int j = 1; j < k; j++) s += j * y[j] * w[k - j];
        y[k] = (w[k] - s / k) / w[0];
    }
}

/* y = a^p for a constant p and a[0] != 0, y[0] given */
static void power_series(const double *a, double p, double *y, int K)
{
    for (int k = 1; k <= K; k++) {
        double s = 0;
        for (int j = 1; j <= k; j++) s += (p * j - (k - j)) * a[j] * y[k - j];
        y[k] = s / (k * a[0]);
    }
}

/* y = q / r, y[0] given */
static void div_series(const double *q, const double *r, double *y, int K)
{
    for (int k = 1; k <= K; k++) {
        double s = q[k];
        for (int j = 0; j < k; j++) s -= y[j] * r[k - j];
        y[k] = s / r[0];
    }
}

/* sin/cos (hyp = -1) or sinh/cosh (hyp = 1) pair */
static void sincos_series(const double *a, double *s, double *c, int K, double hyp)
{
    for (int k = 1; k <= K; k++) {
        s[k] = integ(a, c, k);
        c[k] = hyp * integ(a, s, k);
    }
}

/* ---- the kernels named in ops.def ---- */
#define KERNEL(name) static void tay_##name(const double *A, const double *B, double *Y, tay *T)
#define K (T->K)

KERNEL(leaf) { (void)A; (void)B; (void)Y; (void)T; }
KERNEL(zero) { (void)A; (void)B; for (int k = 1; k <= K; k++) Y[k] = 0; }
KERNEL(neg) { (void)B; for (int k = 1; k <= K; k++) Y[k] = -A[k]; }
KERNEL(add) { for (int k = 1; k <= K; k++) Y[k] = A[k] + B[k]; }
KERNEL(sub) { for (int k = 1; k <= K; k++) Y[k] = A[k] - B[k]; }
KERNEL(mul)
{
    for (int k = 1; k <= K; k++) {
        double s = 0;
        for (int j = 0; j <= k; j++) s += A[j] * B[k - j];
        Y[k] = s;
    }
}
KERNEL(div) { div_series(A, B, Y, K); }
KERNEL(sqr)
{
    (void)B;
    for (int k = 1; k <= K; k++) {
        double s = 0;
        for (int j = 0; j <= k; j++) s += A[j] * A[k - j];
        Y[k] = s;
    }
}
KERNEL(exp) { (void)B; exp_series(A, Y, K); }
KERNEL(expm1)
{
    (void)B;
    double *E = T->s1;
    E[0] = adi_exp(A[0]);
    exp_series(A, E, K);
    for (int k = 1; k <= K; k++) Y[k] = E[k];
}
KERNEL(log) { (void)B; log_series(A, Y, K); }
static void log_scaled(const double *A, double *Y, tay *T, double scale)
{
    double *L = T->s1;
    L[0] = adi_log(A[0]);
    log_series(A, L, K);
    for (int k = 1; k <= K; k++) Y[k] = L[k] / scale;
}
KERNEL(log2) { (void)B; log_scaled(A, Y, T, ADI_LN2); }
KERNEL(log10) { (void)B; log_scaled(A, Y, T, ADI_LN10); }
KERNEL(log1p)
{
    (void)B;
    double *W = T->s2;
    memcpy(W, A, (size_t)(K + 1) * sizeof *W);
    W[0] = 1 + A[0];
    log_scaled(W, Y, T, 1);
}
KERNEL(sqrt) { (void)B; sqrt_series(A, Y, K); }
KERNEL(cbrt) { (void)B; power_series(A, 1.0 / 3, Y, K); }
static void trig(const double *A, double *Y, tay *T, int want_sin, double hyp)
{
    double *S = T->s1, *C = T->s2;
    S[0] = hyp < 0 ? adi_sin(A[0]) : sinh(A[0]);
    C[0] = hyp < 0 ? adi_cos(A[0]) : cosh(A[0]);
    sincos_series(A, S, C, K, hyp);
    for (int k = 1; k <= K; k++) Y[k] = want_sin ? S[k] : C[k];
}
KERNEL(sin) { (void)B; trig(A, Y, T, 1, -1); }
KERNEL(cos) { (void)B; trig(A, Y, T, 0, -1); }
KERNEL(sinh) { (void)B; trig(A, Y, T, 1, 1); }
KERNEL(cosh) { (void)B; trig(A, Y, T, 0, 1); }
/* tan' = 1 + tan^2, tanh' = 1 - tanh^2: u built order by order */
static void tan_like(const double *A, double *Y, tay *T, double sign)
{
    double *U = T->s1;
    U[0] = 1 + sign * Y[0] * Y[0];
    for (int k = 1; k <= K; k++) {
        Y[k] = integ(A, U, k);
        double s = 0;
        for (int j = 0; j <= k; j++) s += Y[j] * Y[k - j];
        U[k] = sign * s;
    }
}
KERNEL(tan) { (void)B; tan_like(A, Y, T, 1); }
KERNEL(tanh) { (void)B; tan_like(A, Y, T, -1); }
/* r y' = a' with r = sqrt(s0 + s2 a^2) (root) or r = s0 + s2 a^2 */
static void inverse_fn(const double *A, double *Y, tay *T, double s0, double s2, int root, double sign)
{
    double *R = T->s1, *W = T->s2;
    cauchy(A, A, W, K);
    for (int k = 0; k <= K; k++) W[k] *= s2;
    W[0] += s0;
    if (root) {
        R[0] = sqrt(W[0]);
        sqrt_series(W, R, K);
    } else {
        memcpy(R, W, (size_t)(K + 1) * sizeof *R);
    }
    inverse_rule(A, R, Y, K);
    for (int k = 1; k <= K; k++) Y[k] *= sign;
}
KERNEL(asin) { (void)B; inverse_fn(A, Y, T, 1, -1, 1, 1); }
KERNEL(acos) { (void)B; inverse_fn(A, Y, T, 1, -1, 1, -1); }
KERNEL(atan) { (void)B; inverse_fn(A, Y, T, 1, 1, 0, 1); }
KERNEL(asinh) { (void)B; inverse_fn(A, Y, T, 1, 1, 1, 1); }
KERNEL(acosh) { (void)B; inverse_fn(A, Y, T, -1, 1, 1, 1); }
KERNEL(atanh) { (void)B; inverse_fn(A, Y, T, 1, -1, 0, 1); }
KERNEL(abs)
{
    (void)B;
    double s = A[0] > 0 ? 1 : -1;
    for (int k = 1; k <= K; k++) Y[k] = s * A[k];
}
/* erf' = (2/sqrt(pi)) exp(-a^2) */
static void erf_like(const double *A, double *Y, tay *T, double sign)
{
    double *W = T->s1, *E = T->s2;
    cauchy(A, A, W, K);
    for (int k = 0; k <= K; k++) W[k] = -W[k];
    E[0] = adi_exp(W[0]);
    exp_series(W, E, K);
    for (int k = 0; k <= K; k++) E[k] *= sign * ADI_2_SQRTPI;
    for (int k = 1; k <= K; k++) Y[k] = integ(A, E, k);
}
/* Y = f(a) from f's Taylor coefficients c[0..K] at a[0] (c is not T's
 * s2, s3 or s4), composed with b = a - a[0] by Horner's rule on series:
 * c0 + b (c1 + b (c2 + ...)); the whole series is left in T->s2 */
static double *compose(const double *c, const double *A, double *Y, tay *T)
{
    double *r = T->s2, *tmp = T->s3, *b = T->s4;
    memcpy(b, A, (size_t)(K + 1) * sizeof *b);
    b[0] = 0;
    memset(r, 0, (size_t)(K + 1) * sizeof *r);
    r[0] = c[K];
    for (int n = K - 1; n >= 0; n--) {
        cauchy(b, r, tmp, K);
        memcpy(r, tmp, (size_t)(K + 1) * sizeof *r);
        r[0] += c[n];
    }
    for (int k = 1; k <= K; k++) Y[k] = r[k];
    return r;
}
/* sinc(a): its coefficients at a[0] (rule_sinc_series), composed */
KERNEL(sinc)
{
    (void)B;
    rule_sinc_series(A[0], T->s1, K);
    compose(T->s1, A, Y, T);
}
/* digamma(a): psi^(n)(a0)/n! (adi_polygamma_series, special.c), composed */
KERNEL(digamma)
{
    (void)B;
    adi_polygamma_series(A[0], T->s1, K);
    compose(T->s1, A, Y, T);
}
/* lgamma(a): lgamma^(n) = psi^(n-1), so the coefficient of order n >= 1
 * is psi^(n-1)(a0)/(n-1)! / n; composed */
static double *lgamma_series(const double *A, double *Y, tay *T)
{
    double *c = T->s1;
    adi_polygamma_series(A[0], c, K > 0 ? K - 1 : 0);
    for (int n = K; n >= 1; n--) c[n] = c[n - 1] / n;
    c[0] = lgamma(A[0]);
    return compose(c, A, Y, T);
}
KERNEL(lgamma) { (void)B; lgamma_series(A, Y, T); }
/* gamma(a) = gamma(a0) exp(lgamma(a) - lgamma(a0)): the sign of gamma is
 * that of gamma(a0) near a0, and |gamma| = exp(lgamma), so y' = y L' with
 * L = lgamma(a) (exp_series) */
KERNEL(gamma)
{
    (void)B;
    double v = Y[0], *L = lgamma_series(A, Y, T);
    L[0] = 0;
    Y[0] = 1;
    exp_series(L, Y, K);
    for (int k = 1; k <= K; k++) Y[k] *= v;
    Y[0] = v;
}
KERNEL(erf) { (void)B; erf_like(A, Y, T, 1); }
KERNEL(erfc) { (void)B; erf_like(A, Y, T, -1); }
/* a^p with a(0) = 0: a = t^m b(t), b(0) != 0, so a^p = t^(m p) b^p where
 * that is analytic: p whole, or b(0) > 0 and m p whole (even when m is
 * even, since then (t^m)^p = |t|^(m p)).  The series is then b^p shifted
 * by m p; otherwise the derivatives below order m p are 0 and the next is
 * infinite (nan).  For odd m and fractional p, a < 0 on one side is outside
 * the domain, so the derivatives are those from the side where a > 0. */
static void power_at_zero(const double *A, double p, double *Y, tay *T)
{
    int m = 1;
    while (m <= K && A[m] == 0) m++;
    if (m > K) {                     /* a vanishes to every order we keep */
        for (int k = 1; k <= K; k++) Y[k] = p > 0 ? 0 : NAN;
        return;
    }
    double mp = m * p;
    if (mp > K) {                    /* t^(m p) vanishes to every order we keep */
        for (int k = 1; k <= K; k++) Y[k] = 0;
        return;
    }
    int analytic = rule_is_integer(p) ||
                   (A[m] > 0 && rule_is_integer(mp) && (m % 2 == 1 || fmod(mp, 2) == 0));
    if (analytic && mp >= 0) {
        double *Bs = T->s1, *P = T->s2;
        int s = (int)mp, n = K - s;   /* b^p is needed to order K - m p */
        for (int k = 1; k <= K; k++) Y[k] = 0;
        if (n < 0) return;
        for (int j = 0; j <= n; j++) Bs[j] = m + j <= K ? A[m + j] : 0;
        P[0] = pow(Bs[0], p);
        power_series(Bs, p, P, n);
        for (int j = 0; j <= n; j++) if (s + j >= 1) Y[s + j] = P[j];
        return;
    }
    for (int k = 1; k <= K; k++) Y[k] = k < mp ? 0 : NAN;
}

KERNEL(pow)
{
    int b_moves = 0;
    for (int k = 1; k <= K; k++) b_moves |= B[k] != 0;
    if (!b_moves) {
        double p = B[0];
        if (A[0] != 0) {
            power_series(A, p, Y, K);
        } else {
            power_at_zero(A, p, Y, T);
        }
        return;
    }
    if (A[0] > 0) {
        /* a^b = exp(b log a) */
        double *L = T->s1, *M = T->s2;
        L[0] = adi_log(A[0]);
        log_series(A, L, K);
        cauchy(B, L, M, K);
        exp_series(M, Y, K);
    } else if (A[0] == 0) {
        int m = 1;
        while (m <= K && A[m] == 0) m++;
        if (m > K) {
            for (int k = 1; k <= K; k++) Y[k] = 0;   /* a stays 0: 0^b = 0 for b > 0 */
            return;
        }
        /* a = t^m c: a^b = t^(m b0) c^b0 exp(m (b - b0) log t ...); the
         * moving exponent adds t^(m b0 + 1) log t, so orders up to m b0
         * are those of a^b0 and the next are infinite */
        power_at_zero(A, B[0], Y, T);
        for (int k = 1; k <= K; k++)
            if (k > m * B[0]) Y[k] = NAN;
    } else {
        for (int k = 1; k <= K; k++) Y[k] = NAN;
    }
}
KERNEL(atan2)
{
    /* v' = (b a' - a b') / (a^2 + b^2) */
    double *R = T->s1, *N = T->s2, *Q = T->s3, *W = T->s4;
    cauchy(A, A, R, K);
    cauchy(B, B, W, K);
    for (int k = 0; k <= K; k++) R[k] += W[k];
    for (int m = 0; m < K; m++) {
        double s = 0;
        for (int j = 0; j <= m; j++)
            s += (m - j + 1) * (B[j] * A[m - j + 1] - A[j] * B[m - j + 1]);
        N[m] = s;
    }
    for (int m = 0; m < K; m++) {
        double s = N[m];
        for (int j = 0; j < m; j++) s -= Q[j] * R[m - j];
        Q[m] = s / R[0];
        Y[m + 1] = Q[m] / (m + 1);
    }
}
KERNEL(hypot)
{
    double *W = T->s1, *V = T->s2;
    cauchy(A, A, W, K);
    cauchy(B, B, V, K);
    for (int k = 0; k <= K; k++) W[k] += V[k];
    sqrt_series(W, Y, K);
}
KERNEL(min)
{
    const double *S = A[0] <= B[0] ? A : B;
    for (int k = 1; k <= K; k++) Y[k] = S[k];
}
KERNEL(max)
{
    const double *S = A[0] >= B[0] ? A : B;
    for (int k = 1; k <= K; k++) Y[k] = S[k];
}
/* fmod(a, b) = a - n b with n = trunc(a0/b0) the same whole number near
 * (a0, b0) between jumps (at a jump the policy has frozen both operands:
 * rule_fmod_jump is a kink): every order is a[k] - n b[k] */
KERNEL(fmod)
{
    double n = rule_fmod_quot(A[0], B[0]);
    for (int k = 1; k <= K; k++) Y[k] = A[k] - n * B[k];
}
KERNEL(softplus)
{
    /* t = beta x; s = sigma(t), s' = s (1 - s) t'; sp' = s t'; y = sp / beta */
    double *Tt = T->s1, *S = T->s2, *U = T->s3, *SP = T->s4;
    cauchy(A, B, Tt, K);
    S[0] = rule_sigmoid(Tt[0]);
    U[0] = S[0] * (1 - S[0]);
    for (int k = 1; k <= K; k++) {
        S[k] = integ(Tt, U, k);
        double s = S[k];
        for (int j = 0; j <= k; j++) s -= S[j] * S[k - j];
        U[k] = s;
    }
    SP[0] = B[0] * Y[0];
    for (int k = 1; k <= K; k++) SP[k] = integ(Tt, S, k);
    div_series(SP, B, Y, K);
}
#undef K

static void kernel(int op, const double *A, const double *B, double *Y, tay *T)
{
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tayk, syn, doc) \
    case AD_OP_##E: tay_##tayk(A, B, Y, T); return;
#include "ops.def"
    }
}

ad_errclass ad_taylor(const ad_tape *t, ad_work *w, const double *inputs,
                      const unsigned char *diff, const double *dir, int K,
                      ad_policy pol, double *coef, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts, m = (size_t)K + 1;
    if (K < 0 || adi_work_reserve(w, n, m, 0) < 0) return adi_err_nomem(d);
    double *scratch = adi_malloc(6 * m * sizeof *scratch);
    if (!scratch) return adi_err_nomem(d);
    tay T = {K, scratch, scratch + m, scratch + 2 * m, scratch + 3 * m};
    double *ca = scratch + 4 * m, *cb = scratch + 5 * m;   /* operands frozen by the policy */
    w->n = n;
    w->has_adj = 0;
    double *v = w->val, *C = w->tan;
    unsigned char *act = w->act;
    for (size_t i = 0; i < ni + nc; i++) {
        double *Y = C + i * m;
        memset(Y, 0, m * sizeof *Y);
        Y[0] = v[i] = i < ni ? inputs[i] : t->cval[i - ni];
        act[i] = i < ni && diff[i];
        if (act[i] && K >= 1) Y[1] = dir[i];
    }
    adi_nondiff nd;
    adi_nondiff_init(&nd);
    ad_errclass e = AD_E_NONE;
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        const char *why = adi_op_domain((int)c.op, a, b);
        if (why) { e = adi_err_domain(t, w, i, why, d); goto out; }
        double *Y = C + i * m;
        memset(Y, 0, m * sizeof *Y);
        Y[0] = v[i] = adi_op_value((int)c.op, a, b);
        if (isnan(v[i])) { e = adi_err_domain(t, w, i, ADI_NAN_REASON, d); goto out; }
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        act[i] = (unsigned char)(aa || ab);
        if (!act[i]) continue;
        if (!isfinite(v[i]) && adi_feeds(t, i)) { e = adi_err_domain(t, w, i, ADI_INF_REASON, d); goto out; }
        const double *A = C + (size_t)c.a * m, *B = c.b >= 0 ? C + (size_t)c.b * m : cb;
        if (c.b < 0) memset(cb, 0, m * sizeof *cb);
        double p[2];
        unsigned char st[2];
        adi_op_partials((int)c.op, a, b, v[i], p, st);
        adi_note_underflow(t, i, st, aa, ab, &nd); /* no long-double retry here */
        unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, &nd);
        for (int j = 0; j < 2; j++)
            if (zero >> j & 1) {
                /* a zero derivative in that operand, to every order: freeze it */
                double *F = j == 0 ? ca : cb;
                memset(F, 0, m * sizeof *F);
                F[0] = j == 0 ? a : b;
                if (j == 0) A = F; else B = F;
            }
        kernel((int)c.op, A, B, Y, &T);
        /* an infinite higher derivative (x^1.5 at 0, order 2) is singular */
        for (int k = 1; k <= K && adi_feeds(t, i); k++) {
            if (isfinite(Y[k])) continue;
            /* (a point already noted keeps its first status) */
            if ((pol == AD_ZERO_SUBGRAD || nd.sing == SIZE_MAX) &&
                adi_policy_higher(pol, &nd, i, k == 1 ? ADI_SINGULAR : ADI_SINGULAR_HIGHER))
                for (int r = k; r <= K; r++) Y[r] = 0;
            break;
        }
    }
    if ((e = adi_nondiff_verdict(t, w, &nd, d))) goto out;
    if (t->nout) memcpy(coef, C + (size_t)t->outs[0] * m, m * sizeof *coef);
out:
    free(scratch);
    return e;
}
