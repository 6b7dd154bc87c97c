/* vmath.h - owns adcalc's own exp, log, sin and cos (adi_exp, adi_log,
 * adi_sin, adi_cos, adi_sin_core, adi_cos_core, adi_trig_ok) and their constant
 * tables.  The engine calls these instead of the C library everywhere, in
 * single-point and batch mode alike, so both give bit-identical results.
 *
 * Design rules:
 *  - branch-free bodies: arithmetic, bit moves through memcpy and `c ? a : b`
 *    selects on computed values, no calls, no early returns, so that GCC
 *    auto-vectorises `for (j...) Y[j] = adi_exp(A[j]);` at -O3
 *    -fno-trapping-math (baseline SSE2 and AVX2);
 *  - deterministic: plain double arithmetic written so that every rounding
 *    is explicit; no FMA (the project builds with -std=c11, i.e.
 *    -ffp-contract=off), no long double, so -O0/-O2/-O3, SSE2 and AVX2
 *    builds agree bit for bit (tests/test_vmath.c checks this);
 *  - tables are `static const` (no mutable state; thread-safe);
 *  - accuracy (max measured by tests/test_vmath.c against long double over
 *    1.2e7 inputs per function): exp 0.511 ulp, log 0.504, sin and cos
 *    0.515, for |x| <= AD_TRIG_MAX.
 *
 * Tables and coefficients were generated with mpmath at 256-bit precision
 * (the script is in the comment at the end of this file).  Minimax-like
 * coefficients are Chebyshev fits (mpmath.chebyfit) of the stated remainder,
 * rounded to double, with the resulting error (including coefficient
 * rounding) checked on a 4001-point grid at 200 bits; the figures are in
 * the comments next to each polynomial.
 */
#ifndef AD_VMATH_H
#define AD_VMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t adi_vm_bits(double x) { uint64_t u; memcpy(&u, &x, sizeof u); return u; }
static inline double adi_vm_double(uint64_t u) { double x; memcpy(&x, &u, sizeof x); return x; }

/* round-to-integer trick: for |t| < 2^51, (t + AD_VM_SHIFT) - AD_VM_SHIFT is
 * t rounded to nearest, and the low bits of t + AD_VM_SHIFT hold that
 * integer in two's complement */
#define AD_VM_SHIFT 0x1.8p52

/* ------------------------------------------------------------------ exp
 * exp(x) = 2^(k/128) * exp(r),  k = round(x * 128/ln2),
 *          r = x - k*ln2/128,   |r| <= ln2/256 (+ rounding) < 0.00271.
 * 2^(k/128) = 2^(k>>7) * 2^(j/128), j = k & 127, from the table below:
 * the bits of the double nearest 2^(j/128) minus j<<45 (so that adding
 * k<<45 puts k>>7 into the exponent field) and the relative tail
 * 2^(j/128)/hi - 1, so scale*(1 + tail) is 2^(j/128) to ~2^-106.
 * Reduction: Ln2hiN has 35 significant bits and |k| < 2^18, so k*Ln2hiN is
 * exact and x - k*Ln2hiN is exact (Sterbenz); the only rounding is in
 * subtracting k*Ln2loN, relative 2^-53 of r, i.e. < 0.003 ulp of the result.
 * exp(r) - 1 = r + r^2/2 + r^3/6 + r^4/24 + r^5/120 (Taylor), truncation
 * r^6/720 < 5.5e-19 (0.005 ulp).  The result scale + scale*tmp has one
 * final rounding, so the total is below 0.51 ulp.
 * Range: the scale is built with its exponent moved by -1009 (x >= 0) or
 * +1022 (x < 0) and multiplied back at the end (exact), so 2^(k>>7) never
 * leaves the normal range; results below 2^-1022 are rounded once, at the
 * subnormal precision, by adding 1 (the compensated sum below) before the
 * final exact scaling.  Outside [-746, 710] the result is selected
 * (0 or inf); nan propagates through the arithmetic. */
static const struct { double tail; uint64_t sbits; } adi_vm_exp_tab[128] = {
    {0x0.0p+0, 0x3ff0000000000000ULL},
    {0x1.b3b4f1a88bf6ep-54, 0x3feff63da9fb3335ULL},
    {-0x1.160139cd8dc5dp-56, 0x3fefec9a3e778061ULL},
    {-0x1.05e7a108766d1p-54, 0x3fefe315e86e7f85ULL},
    {0x1.cd2523567f613p-55, 0x3fefd9b0d3158574ULL},
    {-0x1.bce8023f98efap-55, 0x3fefd06b29ddf6deULL},
    {0x1.0f74e61e6c861p-57, 0x3fefc74518759bc8ULL},
    {0x1.0a3e45b33d399p-54, 0x3fefbe3ecac6f383ULL},
    {0x1.79aa65d837b6dp-54, 0x3fefb5586cf9890fULL},
    {0x1.eb51a92fdeffcp-55, 0x3fefac922b7247f7ULL},
    {0x1.ebe3d702f9cd1p-60, 0x3fefa3ec32d3d1a2ULL},
    {-0x1.a033489906e0bp-57, 0x3fef9b66affed31bULL},
    {-0x1.556522a2fbd0ep-54, 0x3fef9301d0125b51ULL},
    {-0x1.080ef8c4eea55p-58, 0x3fef8abdc06c31ccULL},
    {-0x1.1c923b9d5f416p-54, 0x3fef829aaea92de0ULL},
    {0x1.0d3e3e95c55afp-55, 0x3fef7a98c8a58e51ULL},
    {-0x1.01b15eaa59348p-55, 0x3fef72b83c7d517bULL},
    {-0x1.f1ff055de323dp-55, 0x3fef6af9388c8deaULL},
    {0x1.b898c3f1353bfp-55, 0x3fef635beb6fcb75ULL},
    {-0x1.6d99c7611eb26p-54, 0x3fef5be084045cd4ULL},
    {0x1.aecf73e3a2f60p-54, 0x3fef54873168b9aaULL},
    {-0x1.fe782cb86389dp-55, 0x3fef4d5022fcd91dULL},
    {0x1.a6f4144a6c38dp-55, 0x3fef463b88628cd6ULL},
    {0x1.07a05b0e4047dp-55, 0x3fef3f49917ddc96ULL},
    {0x1.68efde3a8a894p-54, 0x3fef387a6e756238ULL},
    {0x1.75e18f274487dp-55, 0x3fef31ce4fb2a63fULL},
    {0x1.0472b981fe7f2p-55, 0x3fef2b4565e27cddULL},
    {-0x1.6b87b3f71085ep-54, 0x3fef24dfe1f56381ULL},
    {0x1.2f7e16d09ab31p-55, 0x3fef1e9df51fdee1ULL},
    {-0x1.d219b1a6fbffap-60, 0x3fef187fd0dad990ULL},
    {0x1.b3782720c0ab4p-55, 0x3fef1285a6e4030bULL},
    {0x1.e149289cecb8fp-57, 0x3fef0cafa93e2f56ULL},
    {0x1.34d754db0abb6p-55, 0x3fef06fe0a31b715ULL},
    {0x1.64201e2ac744cp-55, 0x3fef0170fc4cd831ULL},
    {0x1.fdd395dd3f84ap-55, 0x3feefc08b26416ffULL},
    {-0x1.6a3803b8e5b04p-55, 0x3feef6c55f929ff1ULL},
    {-0x1.24aedcc4b5068p-54, 0x3feef1a7373aa9cbULL},
    {-0x1.907f81b512d8ep-54, 0x3feeecae6d05d866ULL},
    {-0x1.1d1e83e9436d2p-56, 0x3feee7db34e59ff7ULL},
    {-0x1.91919b3ce1b15p-54, 0x3feee32dc313a8e5ULL},
    {0x1.59f48a72a4c6dp-55, 0x3feedea64c123422ULL},
    {-0x1.312607a28698ap-54, 0x3feeda4504ac801cULL},
    {-0x1.8a78f4817895bp-58, 0x3feed60a21f72e2aULL},
    {-0x1.c2c9b67499a1bp-56, 0x3feed1f5d950a897ULL},
    {0x1.363ed60c2ac11p-59, 0x3feece086061892dULL},
    {0x1.666093b0664efp-54, 0x3feeca41ed1d0057ULL},
    {0x1.ecce1daa10379p-57, 0x3feec6a2b5c13cd0ULL},
    {0x1.3ff8e3f0f1230p-54, 0x3feec32af0d7d3deULL},
    {0x1.690cebb7aafb0p-56, 0x3feebfdad5362a27ULL},
    {0x1.31dbdeb54e077p-54, 0x3feebcb299fddd0dULL},
    {-0x1.f94340071a38ep-55, 0x3feeb9b2769d2ca7ULL},
    {-0x1.7deccdc93a349p-55, 0x3feeb6daa2cf6642ULL},
    {-0x1.8dec6bd0f385fp-56, 0x3feeb42b569d4f82ULL},
    {-0x1.61246ec7b5cf6p-55, 0x3feeb1a4ca5d920fULL},
    {0x1.3350518fdd78ep-54, 0x3feeaf4736b527daULL},
    {0x1.b98b72f8a9b05p-56, 0x3feead12d497c7fdULL},
    {0x1.063e1e21c5409p-54, 0x3feeab07dd485429ULL},
    {0x1.4c7855019c6eap-60, 0x3feea9268a5946b7ULL},
    {0x1.432e62b64c035p-54, 0x3feea76f15ad2148ULL},
    {-0x1.ce44a6199769fp-55, 0x3feea5e1b976dc09ULL},
    {-0x1.c33c53bef4da8p-55, 0x3feea47eb03a5585ULL},
    {-0x1.45378892be9aep-55, 0x3feea34634ccc320ULL},
    {-0x1.3cedd78565858p-54, 0x3feea23882552225ULL},
    {0x1.710aa807e1964p-58, 0x3feea155d44ca973ULL},
    {-0x1.3b3efbf5e2228p-54, 0x3feea09e667f3bcdULL},
    {-0x1.a12ad8734b982p-57, 0x3feea012750bdabfULL},
    {-0x1.367efb86da9eep-57, 0x3fee9fb23c651a2fULL},
    {-0x1.0dc3d54e08851p-55, 0x3fee9f7df9519484ULL},
    {-0x1.81f647e5a3ecfp-56, 0x3fee9f75e8ec5f74ULL},
    {-0x1.6ee4ac08b7db0p-55, 0x3fee9f9a48a58174ULL},
    {-0x1.619321e55e68ap-55, 0x3fee9feb564267c9ULL},
    {0x1.09ccb5e09d4d3p-54, 0x3feea0694fde5d3fULL},
    {-0x1.b32dcb94da51dp-56, 0x3feea11473eb0187ULL},
    {0x1.4ecfd5467c06bp-54, 0x3feea1ed0130c132ULL},
    {0x1.5ebe1abd66c55p-57, 0x3feea2f336cf4e62ULL},
    {-0x1.8a1c52fb3cf42p-55, 0x3feea427543e1a12ULL},
    {-0x1.369b6f13b3734p-54, 0x3feea589994cce13ULL},
    {-0x1.05e843a19ff1ep-55, 0x3feea71a4623c7adULL},
    {-0x1.4d450d872576ep-54, 0x3feea8d99b4492edULL},
    {0x1.0ad675b0e8a00p-54, 0x3feeaac7d98a6699ULL},
    {0x1.db72fc1f0eab4p-55, 0x3feeace5422aa0dbULL},
    {-0x1.5b6609cc5e7ffp-57, 0x3feeaf3216b5448cULL},
    {0x1.bf68359f35f44p-56, 0x3feeb1ae99157736ULL},
    {-0x1.3091fa71e3d83p-54, 0x3feeb45b0b91ffc6ULL},
    {-0x1.da9b88b6c1e29p-58, 0x3feeb737b0cdc5e5ULL},
    {-0x1.c23f97c90b959p-57, 0x3feeba44cbc8520fULL},
    {-0x1.2434322f4f9aap-54, 0x3feebd829fde4e50ULL},
    {-0x1.5ca6cd7668e4bp-55, 0x3feec0f170ca07baULL},
    {0x1.1affc2b91ce27p-56, 0x3feec49182a3f090ULL},
    {0x1.dd235e10a73bbp-57, 0x3feec86319e32323ULL},
    {-0x1.7c50422622263p-55, 0x3feecc667b5de565ULL},
    {0x1.b1c86e3e231d5p-55, 0x3feed09bec4a2d33ULL},
    {-0x1.1bbd1d3bcbb15p-54, 0x3feed503b23e255dULL},
    {0x1.0cc319cee31d2p-54, 0x3feed99e1330b358ULL},
    {0x1.469846e735ab3p-55, 0x3feede6b5579fdbfULL},
    {-0x1.2dfcd978e9db4p-55, 0x3feee36bbfd3f37aULL},
    {0x1.c1a7792cb3387p-55, 0x3feee89f995ad3adULL},
    {-0x1.07b8f4ad1d9fap-54, 0x3feeee07298db666ULL},
    {-0x1.5c3d956dcaebap-58, 0x3feef3a2b84f15fbULL},
    {-0x1.0a40e3da6f640p-54, 0x3feef9728de5593aULL},
    {-0x1.8d6f438ad9334p-57, 0x3feeff76f2fb5e47ULL},
    {-0x1.1eee26b588a35p-54, 0x3fef05b030a1064aULL},
    {0x1.4ffd70a5fddcdp-56, 0x3fef0c1e904bc1d2ULL},
    {-0x1.1bdfbfa9298acp-54, 0x3fef12c25bd71e09ULL},
    {0x1.36eae30af0cb3p-56, 0x3fef199bdd85529cULL},
    {0x1.ee3325c9ffd94p-55, 0x3fef20ab5fffd07aULL},
    {0x1.4e08fd10959acp-55, 0x3fef27f12e57d14bULL},
    {0x1.3cdaf384e1a67p-57, 0x3fef2f6d9406e7b5ULL},
    {0x1.76b2c6c921968p-57, 0x3fef3720dcef9069ULL},
    {-0x1.08a1883ccb5d2p-55, 0x3fef3f0b555dc3faULL},
    {-0x1.fad5d3ffffa6fp-55, 0x3fef472d4a07897cULL},
    {-0x1.00dae3875a949p-54, 0x3fef4f87080d89f2ULL},
    {0x1.4a385a63d07a7p-56, 0x3fef5818dcfba487ULL},
    {-0x1.2919e2040220fp-55, 0x3fef60e316c98398ULL},
    {0x1.e5a50d5c192acp-55, 0x3fef69e603db3285ULL},
    {0x1.43a59ac016b4bp-55, 0x3fef7321f301b460ULL},
    {-0x1.2d52107b43e1fp-55, 0x3fef7c97337b9b5fULL},
    {-0x1.92ab93b470dc9p-55, 0x3fef864614f5a129ULL},
    {0x1.4b604603a88d3p-56, 0x3fef902ee78b3ff6ULL},
    {0x1.3c5ec519d7271p-55, 0x3fef9a51fbc74c83ULL},
    {-0x1.ff7128fd391f0p-55, 0x3fefa4afa2a490daULL},
    {-0x1.dae98e223747dp-55, 0x3fefaf482d8e67f1ULL},
    {0x1.ec3bc41aa2008p-55, 0x3fefba1bee615a27ULL},
    {0x1.42b94c3a9eb32p-55, 0x3fefc52b376bba97ULL},
    {0x1.a64a931d185eep-55, 0x3fefd0765b6e4540ULL},
    {-0x1.e37bae43be3edp-55, 0x3fefdbfdad9cbe14ULL},
    {0x1.7893b4d91cd9dp-56, 0x3fefe7c1819e90d8ULL},
    {0x1.305c14160cc89p-58, 0x3feff3c22b8f71f1ULL},
};

static inline double adi_exp(double x)
{
    const double InvLn2N = 0x1.71547652b82fep+7;  /* 128/ln2 */
    const double Ln2hiN = 0x1.62e42fefc0000p-8;   /* ln2/128, 35 bits */
    const double Ln2loN = -0x1.c610ca86c3899p-44; /* ln2/128 - Ln2hiN */
    double kd = x * InvLn2N + AD_VM_SHIFT;
    uint64_t ki = adi_vm_bits(kd);
    kd -= AD_VM_SHIFT;
    double r = (x - kd * Ln2hiN) - kd * Ln2loN;
    uint64_t j = ki & 127;
    double tail = adi_vm_exp_tab[j].tail;
    /* 2^(k/128) with the exponent moved into range (see above) */
    uint64_t sbits = adi_vm_exp_tab[j].sbits + (ki << 45)
        + (x < 0 ? (uint64_t)1022 << 52 : -((uint64_t)1009 << 52));
    double scale = adi_vm_double(sbits);
    double r2 = r * r;
    double tmp = tail + r + r2 * (0.5 + r * 0x1.5555555555555p-3)
        + r2 * r2 * (0x1.5555555555555p-5 + r * 0x1.1111111111111p-7);
    double st = scale * tmp;
    double y = scale + st;
    /* subnormal results (y < 1 with x < 0 means exp(x) < 2^-1022): add 1
     * to round y + lo once at the precision 2^-52, which is 2^-1074 after
     * scaling; lo is the rounding error of y (Fast2Sum, |scale| > |st|).
     * Written with b in {0, 1} rather than a select of two results, which
     * GCC would turn into a masked (unvectorisable on SSE2) path */
    double lo = (scale - y) + st;
    /* b = 0 leaves y unchanged: y + lo rounds back to y */
    double b = ((x < 0) & (y < 1.0)) ? 1.0 : 0.0;
    double hi = b + y;
    lo = ((b - hi) + y) + lo;
    y = (hi + lo) - b;
    y = y * (x < 0 ? 0x1p-1022 : 0x1p1009);
    /* beyond [-746, 710] the computation above is meaningless (garbage
     * index bits, inf - inf): select the limits.  (Clamping x first would
     * be simpler, but GCC then threads the constant into the table loads
     * and makes them conditional, which does not vectorise.) */
    y = x > 710.0 ? INFINITY : y;
    return x < -746.0 ? 0.0 : y;
}

/* ------------------------------------------------------------------ log
 * x = 2^k z with z in [0.6875, 1.375) (subnormals are first scaled by
 * 2^52).  The top 7 bits of z's offset mantissa pick one of 128
 * subintervals (width 1/256 below 1, 1/128 above); the table gives
 * invc ~ 1/c for c the subinterval's centre (invc has 26 significant bits;
 * invc = 1 for the two subintervals next to 1), c = 1/invc as chi + clo
 * (to 2^-106) and log(c) as logc + logclo (to 2^-106).
 * r = z/c - 1 = (z - chi - clo) * invc, |r| < 0.0039 (< 0.0079 where c = 1),
 * is computed as a double-double r + rlo: z - chi is exact (Sterbenz), and
 * its Veltkamp split into two 26-bit halves makes both products with invc
 * exact.
 * log(x) = k*ln2 + log(c) + log1p(r); k*Ln2hi is exact (Ln2hi has 42 bits,
 * |k| < 1100) and the big terms are added with Fast2Sum (|k ln2 + log c| >=
 * |r| except in the two subintervals next to 1, where invc = c = 1 exactly
 * and log c = 0, so hi = r), so the result is one rounding of hi + lo plus
 * small terms.  There is no separate path near 1: with c = 1 there, r is
 * exact and log1p(r) = r - r^2/2 + r^3 q(r) loses nothing to cancellation.
 * q is a degree-5 Chebyshev fit of (log1p(r) - r + r^2/2)/r^3 on
 * |r| <= 1.02/128 (the c = 1 intervals reach 2^-7), error < 0.0004 ulp of
 * log1p(r).  Special inputs (x <= 0, inf, nan) are selected at the end. */
static const struct { double invc, logc, logclo, chi, clo; } adi_vm_log_tab[128] = {
    {0x1.734f0c8000000p+0, -0x1.7cc7f85446a0dp-2, -0x1.647ffbce5d485p-57, 0x1.60ffffd649c00p-1, 0x1.3b7243dab9bf8p-55},
    {0x1.7137870000000p+0, -0x1.76feed2347174p-2, -0x1.8f52616350ff3p-56, 0x1.62ffffdb40800p-1, 0x1.e6e95fcd98d79p-56},
    {0x1.6f26018000000p+0, -0x1.713e33d36a17cp-2, 0x1.d86fa058c6ce8p-56, 0x1.64ffffef9d400p-1, 0x1.81109fee537cbp-58},
    {0x1.6d1a628000000p+0, -0x1.6b85b512fa3fdp-2, 0x1.51c164675fdefp-56, 0x1.66ffffe882c00p-1, 0x1.8971efe641cb9p-57},
    {0x1.6b14908000000p+0, -0x1.65d5585dce00ap-2, -0x1.9ee4b6d265417p-57, 0x1.69000029f3c00p-1, 0x1.3804e42442918p-55},
    {0x1.6914738000000p+0, -0x1.602d083c091ecp-2, 0x1.f8ea484f18165p-56, 0x1.6b000028c4400p-1, 0x1.25028c20e8094p-55},
    {0x1.6719f38000000p+0, -0x1.5a8cae16edfa1p-2, 0x1.7c78af6f7aa79p-56, 0x1.6cffffdf90400p-1, 0x1.70f727df36093p-56},
    {0x1.6524f88000000p+0, -0x1.54f43236be1a8p-2, -0x1.74a091b004603p-58, 0x1.6effffd27bc00p-1, 0x1.6949bbd3311afp-55},
    {0x1.63356b8000000p+0, -0x1.4f637ea2a9810p-2, 0x1.6c5331250a85ap-56, 0x1.7100000902400p-1, 0x1.c270800aff3f2p-60},
    {0x1.614b368000000p+0, -0x1.49da7f32cc41fp-2, 0x1.9e74a168d444ap-57, 0x1.7300000342c00p-1, 0x1.d58c0004207b0p-63},
    {0x1.5f66438000000p+0, -0x1.44591eb839f48p-2, 0x1.145a51d3016bbp-56, 0x1.74ffffbecc401p-1, -0x1.268d0c7f82d81p-55},
    {0x1.5d867c0000000p+0, -0x1.3edf45841683dp-2, -0x1.61d6805503b2ep-56, 0x1.7700004362001p-1, -0x1.f231fee984fbdp-56},
    {0x1.5babcc8000000p+0, -0x1.396ce3aabbf54p-2, 0x1.4092cc61f7b6cp-56, 0x1.78ffffe22dc00p-1, 0x1.2df0c7e81db43p-56},
    {0x1.59d61f0000000p+0, -0x1.3401e0f4ecba1p-2, 0x1.9ceadc58a2760p-57, 0x1.7b000013fc800p-1, 0x1.0dd0c00e3a822p-57},
    {0x1.5805600000000p+0, -0x1.2e9e2b8e12286p-2, 0x1.e7dae5d9d17bep-58, 0x1.7d000017d0000p-1, 0x1.7d000017d0000p-57},
    {0x1.56397b8000000p+0, -0x1.2941af3a86b7bp-2, -0x1.82c0cefb2c675p-56, 0x1.7f00002c82400p-1, 0x1.4b08bc267843ep-55},
    {0x1.54725e8000000p+0, -0x1.23ec59ceeba49p-2, 0x1.62428b820f58fp-58, 0x1.80ffffe910c00p-1, 0x1.5dc08feb2a477p-57},
    {0x1.52aff58000000p+0, -0x1.1e9e16b9899f4p-2, -0x1.9a486e9e70772p-57, 0x1.82ffffe76f400p-1, 0x1.8f302fe6a930fp-57},
    {0x1.50f22e0000000p+0, -0x1.1956d385bc2fap-2, -0x1.271d68d22dc07p-56, 0x1.85000013c1000p-1, 0x1.00cd000d0a690p-57},
    {0x1.4f38f60000000p+0, -0x1.14167e6767782p-2, -0x1.a3024d732193fp-56, 0x1.8700003575000p-1, 0x1.d3bfc03ff3375p-55},
    {0x1.4d843c0000000p+0, -0x1.0edd064378081p-2, 0x1.2b5a4f75aeadap-56, 0x1.88ffffea82000p-1, 0x1.2ce3ffef8b880p-57},
    {0x1.4bd3ee0000000p+0, -0x1.09aa57a26c6d4p-2, 0x1.029e8c9cfbeacp-56, 0x1.8affffd341000p-1, 0x1.4468bfdb40224p-55},
    {0x1.4a27fb0000000p+0, -0x1.047e614be83b7p-2, -0x1.08669ce850d44p-56, 0x1.8cffffcf26800p-1, 0x1.80b0cfd0aa3e7p-55},
    {0x1.4880520000000p+0, -0x1.feb22276a07ccp-3, -0x1.a7de006adaa19p-57, 0x1.8f000026f7000p-1, 0x1.e70f802f90838p-56},
    {0x1.46dce38000000p+0, -0x1.f474b2a2df227p-3, 0x1.81e77bfab9db2p-58, 0x1.90ffffb856401p-1, -0x1.98b4f924f5a88p-56},
    {0x1.453d9e0000000p+0, -0x1.ea4448d84aaf3p-3, -0x1.63c6e5e4c4a36p-57, 0x1.9300003719000p-1, 0x1.e21ac041e9a85p-55},
    {0x1.43a2730000000p+0, -0x1.e020cc1e35ab5p-3, -0x1.6e248dd48547cp-58, 0x1.9500000d72800p-1, 0x1.c935000f2e428p-59},
    {0x1.420b528000000p+0, -0x1.d60a189f03514p-3, -0x1.2120f7f9a4cb7p-58, 0x1.96ffffdf02c00p-1, 0x1.564377e442081p-56},
    {0x1.40782d0000000p+0, -0x1.cc000c31b3c52p-3, -0x1.3b22a84336a9ep-58, 0x1.9900001591800p-1, 0x1.232c400f5ad56p-57},
    {0x1.3ee8f40000000p+0, -0x1.c20289a17f9b3p-3, -0x1.6d1aa31edfb45p-57, 0x1.9b00003696000p-1, 0x1.cffb003d9f561p-55},
    {0x1.3d5d990000000p+0, -0x1.b811725f823d2p-3, 0x1.9a2231ae2db38p-57, 0x1.9d000022af800p-1, 0x1.74dea01f50b27p-56},
    {0x1.3bd60d8000000p+0, -0x1.ae2ca68072bd4p-3, -0x1.a39953c48a569p-58, 0x1.9f000017e9400p-1, 0x1.60b07014522a7p-57},
    {0x1.3a52438000000p+0, -0x1.a45407fc6ab05p-3, -0x1.91007dc47dc71p-58, 0x1.a100000a2e400p-1, 0x1.fd08800c6d752p-60},
    {0x1.38d22d0000000p+0, -0x1.9a87777abaa37p-3, 0x1.c7c2035e5be2ep-57, 0x1.a3000048d5801p-1, -0x1.ab719ee64d402p-56},
    {0x1.3755bd0000000p+0, -0x1.90c6dae3cbcd9p-3, 0x1.22fb8c8db1112p-57, 0x1.a5000026a5800p-1, 0x1.c618a029af42bp-56},
    {0x1.35dce60000000p+0, -0x1.8712139d0e994p-3, -0x1.bd85f35f3d7f5p-57, 0x1.a6fffff7bd000p-1, 0x1.4a77fff98ba80p-60},
    {0x1.34679b0000000p+0, -0x1.7d690516f5acep-3, -0x1.b5507b709412fp-58, 0x1.a8ffffbb1a801p-1, -0x1.3532f073e03e0p-55},
    {0x1.32f5cf0000000p+0, -0x1.73cb9188fd14cp-3, 0x1.f859ffa05d301p-57, 0x1.aaffffc674800p-1, 0x1.f0532fbd1cca1p-55},
    {0x1.3187758000000p+0, -0x1.6a399d49bd383p-3, -0x1.00232bcfe9bf4p-57, 0x1.ad00001487400p-1, 0x1.f6f1a018110ffp-58},
    {0x1.301c828000000p+0, -0x1.60b30ee109474p-3, -0x1.e6dced893e274p-57, 0x1.af00003eb6c01p-1, -0x1.b7fa23ab0525bp-55},
    {0x1.2eb4ea0000000p+0, -0x1.5737cbb818cddp-3, 0x1.89b28f2355c72p-57, 0x1.b100002dab000p-1, 0x1.3442402082fccp-55},
    {0x1.2d50a00000000p+0, -0x1.4dc7b817bc1c7p-3, -0x1.6d82b87518f61p-57, 0x1.b300001b30000p-1, 0x1.b300001b30000p-57},
    {0x1.2bef990000000p+0, -0x1.4462ba909b3dbp-3, -0x1.5471dcbce6a3ep-57, 0x1.b4ffffd997800p-1, 0x1.b0179fda05ec7p-56},
    {0x1.2a91c90000000p+0, -0x1.3b08b5317f2a7p-3, -0x1.c5dad9110b8ccp-57, 0x1.b700004573801p-1, -0x1.40ce8f90c0adbp-55},
    {0x1.2937258000000p+0, -0x1.31b99339a4f82p-3, -0x1.b66e9163256dbp-58, 0x1.b900005849401p-1, 0x1.acaa1389d10c7p-57},
    {0x1.27dfa38000000p+0, -0x1.28753b7b1aba5p-3, 0x1.b024d9fbf1ce6p-57, 0x1.bb00000f24400p-1, 0x1.08fa60090e8edp-58},
    {0x1.268b380000000p+0, -0x1.1f3b93bf25d3fp-3, -0x1.9164f985780d5p-58, 0x1.bcffffb384001p-1, -0x1.6d58012134dfdp-56},
    {0x1.2539d80000000p+0, -0x1.160c80c4b27b0p-3, -0x1.42a900b31295bp-57, 0x1.beffffdd14000p-1, 0x1.5d37ffe4b7a00p-56},
    {0x1.23eb798000000p+0, -0x1.0ce7ed42cc28cp-3, -0x1.f445ffaf89327p-57, 0x1.c0ffffe9a3400p-1, 0x1.1d1e8ff1ccba5p-57},
    {0x1.22a0120000000p+0, -0x1.03cdbf7d1ec0cp-3, 0x1.f1d2c8b30d9b8p-61, 0x1.c30000412f001p-1, -0x1.a50d3fa8daea3p-55},
    {0x1.2157980000000p+0, -0x1.f57bc799005dbp-4, 0x1.b361575007a38p-58, 0x1.c500000714000p-1, 0x1.c500000714000p-61},
    {0x1.2012010000000p+0, -0x1.e3707d1b0487ap-4, 0x1.4eb313a317a67p-58, 0x1.c7000032a7800p-1, 0x1.68e970282dfd0p-55},
    {0x1.1ecf440000000p+0, -0x1.d1797ba21935fp-4, -0x1.46d7c186c013ap-58, 0x1.c8ffffa6be001p-1, 0x1.6ee3fc985778bp-57},
    {0x1.1d8f568000000p+0, -0x1.bf968825fca11p-4, 0x1.fb04fb7286cb9p-58, 0x1.caffffeaeec00p-1, 0x1.ef155fe946c4ep-58},
    {0x1.1c52300000000p+0, -0x1.adc78265aea86p-4, -0x1.6fb1ee5d321f4p-59, 0x1.ccffff9b28001p-1, 0x1.83cffecb2a804p-55},
    {0x1.1b17c68000000p+0, -0x1.9c0c32e0d2548p-4, -0x1.f8cbe3ccc2732p-59, 0x1.cefffffea4c00p-1, 0x1.046fffff3cac0p-65},
    {0x1.19e0118000000p+0, -0x1.8a6475f51dc27p-4, -0x1.359e6ef219f89p-58, 0x1.d10000317f400p-1, 0x1.5132e423e4aadp-55},
    {0x1.18ab080000000p+0, -0x1.78d01f23d82cep-4, -0x1.1794b0e70c647p-59, 0x1.d300005edc001p-1, 0x1.a25801f4f9e06p-56},
    {0x1.1778a18000000p+0, -0x1.674f078f65a79p-4, -0x1.5449d2d6b69e6p-60, 0x1.d500001dc5400p-1, 0x1.e3c5501eb5465p-57},
    {0x1.1648d50000000p+0, -0x1.55e0ff68e0383p-4, -0x1.158629d3b668fp-58, 0x1.d700001aad800p-1, 0x1.82d3c015e8fe6p-57},
    {0x1.151b9a0000000p+0, -0x1.4485dc8dbdfa6p-4, -0x1.e9a3457d2d1b8p-58, 0x1.d900006d03002p-1, -0x1.b813be8d6c8cfp-55},
    {0x1.13f0e90000000p+0, -0x1.333d821983f48p-4, -0x1.a557f019c701ep-61, 0x1.daffffb2ff801p-1, -0x1.c235a103044e6p-56},
    {0x1.12c8b88000000p+0, -0x1.2207b3fb8549cp-4, 0x1.04bef57327401p-60, 0x1.dd00003591c00p-1, 0x1.8107942b3d99ep-55},
    {0x1.11a3018000000p+0, -0x1.10e459b0ae82fp-4, -0x1.923ed6df7707ap-58, 0x1.df00002e4f400p-1, 0x1.1e8a5c1bb3e06p-55},
    {0x1.107fbc0000000p+0, -0x1.ffa694dab92fdp-5, -0x1.13070c1be888fp-62, 0x1.e0ffffc7a2000p-1, 0x1.a6c0ffce75620p-55},
    {0x1.0f5edf8000000p+0, -0x1.dda8a8ae7ee48p-5, 0x1.47a6d4a3360b6p-60, 0x1.e300004ce2401p-1, -0x1.e17e2706a4d4bp-56},
    {0x1.0e40658000000p+0, -0x1.bbcec47e8f41bp-5, 0x1.515860c7f43a0p-59, 0x1.e4ffffb87b401p-1, -0x1.5d0b2c63879a3p-55},
    {0x1.0d24458000000p+0, -0x1.9a187ebf3de79p-5, 0x1.0cb625f5a3b01p-59, 0x1.e6ffffcc29400p-1, 0x1.6126fbda6899bp-55},
    {0x1.0c0a788000000p+0, -0x1.7885986b577b9p-5, 0x1.d6507601dab88p-59, 0x1.e8ffffd57fc00p-1, 0x1.d8d2c7d6e7ae2p-56},
    {0x1.0af2f70000000p+0, -0x1.5715c0903ceebp-5, 0x1.f7fe2538dec2dp-59, 0x1.eb00004040801p-1, -0x1.e5e3cfb9954fbp-55},
    {0x1.09ddba8000000p+0, -0x1.35c8c23213069p-5, -0x1.82b7cfb02a1c5p-59, 0x1.ecffffd900c00p-1, 0x1.8ad867e0c461dp-56},
    {0x1.08cabb0000000p+0, -0x1.149e379005a82p-5, 0x1.0dd21183030b0p-59, 0x1.ef00006772801p-1, 0x1.679b712126fc2p-55},
    {0x1.07b9f28000000p+0, -0x1.e72bebd13ce4cp-6, 0x1.cd9777f1f8729p-61, 0x1.f1000033eec00p-1, 0x1.5b4ca4244a422p-55},
    {0x1.06ab5a0000000p+0, -0x1.a55f624c5c427p-6, -0x1.f306a56bda5b1p-60, 0x1.f2ffff94cb001p-1, 0x1.c218bec34caf0p-55},
    {0x1.059eea0000000p+0, -0x1.63d615c690bd6p-6, 0x1.a0ed4d3ca1f1fp-60, 0x1.f500000db3000p-1, 0x1.7f94000a7d0c0p-59},
    {0x1.04949d0000000p+0, -0x1.228fc15ea2e0ap-6, -0x1.ce84befbe7d26p-61, 0x1.f6ffff8729802p-1, -0x1.7c3c237ca78d8p-56},
    {0x1.038c6b8000000p+0, -0x1.c3173c2c75f05p-7, -0x1.bf6208d3b14cap-61, 0x1.f8fffff0b6400p-1, 0x1.d9ee3ff1a7099p-59},
    {0x1.0286500000000p+0, -0x1.4192bb96832bfp-7, 0x1.c55162cf66d18p-61, 0x1.faffff9118002p-1, -0x1.ef500153a67fbp-55},
    {0x1.0182438000000p+0, -0x1.81213c0586b3ep-8, 0x1.39d685d275619p-62, 0x1.fcffffcad0400p-1, 0x1.63af53dad56e0p-55},
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.0000000000000p+0, 0x0.0p+0, 0x0.0p+0, 0x1.0000000000000p+0, 0x0.0p+0},
    {0x1.fa11ca8000000p-1, 0x1.7dc47e1810a7bp-7, -0x1.4d76717a84751p-66, 0x1.0300001070c00p+0, 0x1.0b283010f54d1p-56},
    {0x1.f6310b0000000p-1, 0x1.3cea3d546a57bp-6, -0x1.425ad7e3e325fp-61, 0x1.04ffffe3f6800p+0, 0x1.81829fd69677dp-55},
    {0x1.f25f648000000p-1, 0x1.b9fbfa8af91a0p-6, -0x1.205cd77ad0bb0p-61, 0x1.06ffffdf61c00p+0, 0x1.02e81bdfe3b69p-54},
    {0x1.ee9c7f8000000p-1, 0x1.1b0d98da3d980p-5, -0x1.c12e889b6f881p-60, 0x1.0900000254400p+0, 0x1.4f640002f2a10p-62},
    {0x1.eae8078000000p-1, 0x1.58a5bdd48e4d7p-5, -0x1.b815c23a3bec7p-59, 0x1.0b000017ba400p+0, 0x1.0de69817fc3e0p-55},
    {0x1.e741aa8000000p-1, 0x1.95c82e648e3edp-5, 0x1.77839eba857c8p-61, 0x1.0cffffeab8c00p+0, 0x1.aee2cfddea8f1p-56},
    {0x1.e3a9178000000p-1, 0x1.d276baa5b0b53p-5, 0x1.3e78a79094a8fp-62, 0x1.0f000010ac400p+0, 0x1.0698f01027e8cp-56},
    {0x1.e01e020000000p-1, 0x1.075982498e472p-4, -0x1.fb25acff68f9dp-59, 0x1.10ffffeddf000p+0, 0x1.3430ffeb88bf0p-56},
    {0x1.dca01e0000000p-1, 0x1.253f6120a1419p-4, -0x1.8a1259e302f7ap-58, 0x1.12ffffe0d9000p+0, 0x1.c3b57fccd4708p-55},
    {0x1.d92f220000000p-1, 0x1.42edcd9a646f2p-4, -0x1.5f1582feaf49bp-58, 0x1.1500001d37000p+0, 0x1.8a66802998cf8p-55},
    {0x1.d5cac80000000p-1, 0x1.60658ad3750c4p-4, -0x1.188458ebcc614p-58, 0x1.170000045c000p+0, 0x1.170000045c000p-60},
    {0x1.d272ca0000000p-1, 0x1.7da76907b12cfp-4, -0x1.73b7eff915a12p-60, 0x1.190000266b000p+0, 0x1.5028402df580cp-54},
    {0x1.cf26e60000000p-1, 0x1.9ab42252033afp-4, -0x1.c99e337dce8bep-63, 0x1.1affffdb85000p+0, 0x1.2cf6bfd934314p-54},
    {0x1.cbe6d98000000p-1, 0x1.b78c819f0eda2p-4, -0x1.68d0e63cbb7e6p-58, 0x1.1cffffec3d400p+0, 0x1.5ec0cfe7ae219p-56},
    {0x1.c8b2658000000p-1, 0x1.d4313f12cb35fp-4, -0x1.dfa44c94ea6b5p-59, 0x1.1f00001dfd400p+0, 0x1.911b3829e9982p-55},
    {0x1.c5894d0000000p-1, 0x1.f0a30c99162a7p-4, -0x1.c58cda35cd289p-58, 0x1.2100000ab9800p+0, 0x1.9789000f1f958p-58},
    {0x1.c26b538000000p-1, 0x1.06715182a596ep-3, 0x1.1bf323f8ff577p-57, 0x1.2300000c38400p+0, 0x1.06b9600b0848dp-57},
    {0x1.bf583f0000000p-1, 0x1.147857da742adp-3, -0x1.a737ec22c04f9p-57, 0x1.24fffff08c800p+0, 0x1.a12e7fea000c4p-57},
    {0x1.bc4fd68000000p-1, 0x1.2266f0daa5accp-3, -0x1.4a1041a7f2884p-63, 0x1.26ffffe5c8c00p+0, 0x1.2a3477e57fd66p-55},
    {0x1.b951e28000000p-1, 0x1.303d727447fd4p-3, -0x1.963ce370eb63ap-58, 0x1.290000215ac00p+0, 0x1.df788835d8c95p-55},
    {0x1.b65e2e0000000p-1, 0x1.3dfc2c26cc62bp-3, -0x1.93a8d9e3256b5p-62, 0x1.2b000028e1000p+0, 0x1.65b0c030e72a4p-54},
    {0x1.b374848000000p-1, 0x1.4ba3700fa55e6p-3, 0x1.a140dff07a95dp-60, 0x1.2d00001f73c00p+0, 0x1.a4ac282bf4fd3p-55},
    {0x1.b094b30000000p-1, 0x1.59338e2582086p-3, 0x1.fd5baae678b0ep-59, 0x1.2f000014b6800p+0, 0x1.6a79c018c752ap-56},
    {0x1.adbe880000000p-1, 0x1.66acd4072ad51p-3, -0x1.d201c9c47fc0fp-59, 0x1.30fffffb3c000p+0, 0x1.30fffffb3c000p-60},
    {0x1.aaf1d30000000p-1, 0x1.740f8f30037a5p-3, -0x1.89e4062afe4dbp-58, 0x1.32fffffa9a800p+0, 0x1.848bfff92b8a0p-60},
    {0x1.a82e650000000p-1, 0x1.815c0a70357ebp-3, -0x1.0d9201aed2039p-60, 0x1.3500000de1800p+0, 0x1.3f42800e577ccp-57},
    {0x1.a574108000000p-1, 0x1.8e928dba86d41p-3, -0x1.358d851ad5345p-57, 0x1.36fffff903c00p+0, 0x1.41537ff8c85fep-59},
    {0x1.a2c2a88000000p-1, 0x1.9bb362d5dfb83p-3, 0x1.5c6e31effc48cp-57, 0x1.38fffffd3fc00p+0, 0x1.8c23fffc84af0p-62},
    {0x1.a01a018000000p-1, 0x1.a8bed06682f19p-3, 0x1.235c870f5c06bp-58, 0x1.3b0000184d400p+0, 0x1.dff5b02507345p-56},
    {0x1.9d79f18000000p-1, 0x1.b5b519bafb5a4p-3, 0x1.db37fdc11f5cbp-57, 0x1.3cfffff8e1400p+0, 0x1.47867ff8a4baap-59},
    {0x1.9ae24e8000000p-1, 0x1.c2968612c18c1p-3, 0x1.5162392cf602ap-58, 0x1.3f00001cf8c00p+0, 0x1.50cbb81e96808p-55},
    {0x1.9852f10000000p-1, 0x1.cf63541c9c5ddp-3, -0x1.084bf0a1e1580p-58, 0x1.40ffffe147800p+0, 0x1.78541fdbfbf2fp-55},
    {0x1.95cbb08000000p-1, 0x1.dc1bcb44bec7fp-3, -0x1.e08eb723f4b60p-59, 0x1.4300003185c00p+0, 0x1.e5f06c4a811cap-54},
    {0x1.934c680000000p-1, 0x1.e8c0250aa5a60p-3, -0x1.2e03a39ca7345p-59, 0x1.44fffffaec000p+0, 0x1.44fffffaec000p-60},
    {0x1.90d4f10000000p-1, 0x1.f550a608b7b37p-3, 0x1.c09f6e1370f6ep-57, 0x1.4700001a2f800p+0, 0x1.0c66e0157e3cfp-55},
    {0x1.8e65278000000p-1, 0x1.00e6c4d3d501dp-2, 0x1.c77a9748a5d7ep-57, 0x1.49000026e0400p+0, 0x1.25ffe422bd7cbp-54},
    {0x1.8bfce80000000p-1, 0x1.071b860cd590dp-2, 0x1.f1707f98133d5p-58, 0x1.4b0000052c000p+0, 0x1.4b0000052c000p-60},
    {0x1.899c0f8000000p-1, 0x1.0d46b526ab74bp-2, 0x1.593e40d643ddfp-56, 0x1.4cffffe502400p+0, 0x1.1808a7e94d4c6p-55},
    {0x1.87427c0000000p-1, 0x1.13686fa13a8b1p-2, -0x1.0a675a9140c2cp-58, 0x1.4effffd382000p+0, 0x1.7a2effcdc5c20p-54},
    {0x1.84f00c0000000p-1, 0x1.1980d34542370p-2, -0x1.10c2e4dad040fp-56, 0x1.510000223a000p+0, 0x1.bcf2002d30940p-55},
    {0x1.82a4a00000000p-1, 0x1.1f8ffa248a2f3p-2, -0x1.49fdf99b6f5b1p-56, 0x1.5300001530000p+0, 0x1.5300001530000p-56},
    {0x1.8060180000000p-1, 0x1.2596011df763ap-2, -0x1.deed8ae041291p-59, 0x1.5500000554000p+0, 0x1.5500000554000p-60},
    {0x1.7e22550000000p-1, 0x1.2b9303e589d25p-2, -0x1.204b5fd45a77fp-56, 0x1.570000136d800p+0, 0x1.19b3c00ff4ae6p-56},
    {0x1.7beb390000000p-1, 0x1.31871cf344185p-2, 0x1.fe0a6789b883cp-57, 0x1.5900001fab800p+0, 0x1.741f202228db7p-55},
    {0x1.79baa68000000p-1, 0x1.377266ccfd85cp-2, -0x1.0ca4535b3b252p-56, 0x1.5b0000368ec01p+0, -0x1.db0393a9af4ffp-54},
    {0x1.7790810000000p-1, 0x1.3d54faa21f710p-2, -0x1.4a065c6322238p-56, 0x1.5d000017db800p+0, 0x1.a181401c8a55ep-56},
    {0x1.756cac0000000p-1, 0x1.432ef2f84e814p-2, -0x1.bc98b83e79d6fp-59, 0x1.5f00001e2a000p+0, 0x1.4bce001c83b40p-55},
};

/* Veltkamp split: hi has 26 significant bits, x - hi the other 27 */
static inline double adi_vm_split26(double x)
{
    double p = x * 0x1.0000002p27; /* 2^27 + 1 */
    return p - (p - x);
}

static inline double adi_log(double x)
{
    const double Ln2hi = 0x1.62e42fefa3800p-1;  /* 42 bits */
    const double Ln2lo = 0x1.ef35793c76730p-45;
    const uint64_t Off = 0x3fe6000000000000;    /* bits of 0.6875 */
    int sub = x < 0x1p-1022;
    double xn = sub ? x * 0x1p52 : x;
    uint64_t ix = adi_vm_bits(xn);
    uint64_t tmp = ix - Off;
    uint64_t i = (tmp >> 45) & 127;
    /* k = (int64_t)tmp >> 52 (|k| <= 1077), as a double without a 64-bit
     * arithmetic shift or conversion (neither exists in SSE2/AVX2) */
    uint64_t kb = ((tmp >> 52) + 2048) & 4095;
    double kd = (adi_vm_double(0x4330000000000000 | kb) - (0x1p52 + 2048)) - (sub ? 52.0 : 0.0);
    double z = adi_vm_double(ix - (tmp & 0xfff0000000000000));
    double invc = adi_vm_log_tab[i].invc, logc = adi_vm_log_tab[i].logc;
    double logclo = adi_vm_log_tab[i].logclo, chi = adi_vm_log_tab[i].chi;
    double clo = adi_vm_log_tab[i].clo;
    /* r + rlo = (z - chi - clo) * invc, to 2^-105 relative */
    double d = z - chi;
    double dh = adi_vm_split26(d);
    double p1 = dh * invc, p2 = (d - dh) * invc - clo * invc;
    double r = p1 + p2;
    double rlo = (p1 - r) + p2;
    /* k ln2 + log c + r = hi + lo exactly (two Fast2Sums) but for the
     * rounding of k*Ln2lo + logclo, 2^-100 */
    double a = kd * Ln2hi;
    double w = a + logc;
    double wlo = (a - w) + logc;
    double hi = w + r;
    double lo = (w - hi) + r;
    double r2 = r * r;
    double q = (0x1.5555555555565p-2 + r * -0x1.000000000000ep-2)
        + r2 * ((0x1.99999990f09cdp-3 + r * -0x1.5555554d8a0abp-3)
                + r2 * (0x1.2497d5b7fc033p-3 + r * -0x1.0004fe8506a69p-3));
    lo = lo + (wlo + (kd * Ln2lo + logclo) + rlo * (1.0 - r));
    double y = hi + (lo + (r2 * -0.5 + r2 * r * q));
    /* x <= 0, inf, nan */
    double special = x < 0 ? NAN : x == 0 ? -INFINITY : x + x;
    return ((x > 0) & (x < INFINITY)) ? y : special;
}

/* -------------------------------------------------------------- sin, cos
 * Reduction: k = round(x * 2/pi), r = x - k*pi/2 as a double-double rh + rl,
 * with pi/2 = P1 + P2 + P3 + P4: P1, P2, P3 are pi/2 and the successive
 * remainders rounded to 33 bits (they have 31, 32 and 28 significant bits),
 * P4 the next 53 bits, so pi/2 is known to 2^-150.  For |k| <= 2^21,
 * k*P1, k*P2 and k*P3 are exact, x - k*P1 is exact (Sterbenz), the next two
 * subtractions are TwoSums and only k*P4 (< 2^-82) and the final
 * renormalisation round: the absolute error of rh + rl is below 2^-130
 * plus 2^-105 |r|, while |r| > 2^-55 for every double in range (the closest
 * to a multiple of pi/2 is 0x1.9eb7148f354d6p+20, |r| = 2^-54.1;
 * tests/test_vmath.c checks the doubles next to every k pi/2 in range), so
 * r has relative error < 2^-75.  Hence AD_TRIG_MAX = 2^21 * pi/2
 * (~3.29e6); beyond it (and for inf, nan) adi_sin and adi_cos call the C
 * library.  (At 2^23 * pi/2 the products are no longer exact and the test
 * fails by millions of ulps.)
 * Kernels on |r| <= pi/4 (slightly more when x*2/pi rounds across a half):
 *   sin r = r - r^3/6 + r^5 S(r^2),  cos r = 1 - r^2/2 + r^4/24 + r^6 C(r^2),
 * with S a degree-5 Chebyshev fit of (sin r - r + r^3/6)/r^5 and C a
 * degree-5 fit of (cos r - 1 + r^2/2 - r^4/24)/r^6, both in z = r^2 on
 * [0, (pi/4)^2]; their errors are 0.0003 and 0.0001 ulp of the result.
 * The large terms are computed nearly exactly: with hd = rh rounded to 13
 * bits and t = rh - hd, hd^2, hd^3 and hd^4 are exact; r^2 = hd^2 + t(rh +
 * hd), r^3 = hd^3 + t(rh^2 + rh hd + hd^2), r^4 = hd^4 + zl(2 hd^2 + zl)
 * with zl = r^2 - hd^2 (corrections 2^-12 of the term, so their rounding
 * does not matter); for q = -hd^3 * fl(1/6), which is within 2^-52 of
 * -hd^3/6, the remainder hd^3 + 6q = (hd^3 + 4q) + 2q is exact (two
 * Sterbenz subtractions), so -hd^3/6 = q - (hd^3 + 6q)/6 with only the tiny
 * second term rounded (no division needed); likewise hd^4/24 = q4 +
 * ((hd^4 - 16 q4) - 8 q4)/24.  The leading
 * sums use Fast2Sum, so each result is one rounding of a value accurate to
 * about 0.01 ulp.
 * The quadrant (k + 1 for cos) mod 4 selects +-sin r or +-cos r. */
#define AD_TRIG_MAX 0x1.921fb54442d18p+21 /* 2^21 * pi/2 */

static inline int adi_trig_ok(double x) { return fabs(x) <= AD_TRIG_MAX; }

/* sin and cos of the reduced argument, *sn and *cs, and the low bits of
 * the quadrant in *quad: both come out of one reduction, and
 * adi_vm_pick(sn, cs, quad) is sin x, adi_vm_pick(sn, cs, quad + 1) cos x */
static inline void adi_vm_trig2(double x, double *snp, double *csp, uint64_t *quadp)
{
    const double TwoOverPi = 0x1.45f306dc9c883p-1;
    const double P1 = 0x1.921fb54400000p+0, P2 = 0x1.0b4611a600000p-34;
    const double P3 = 0x1.3198a2e000000p-69, P4 = 0x1.b839a252049c1p-104;
    double kd = x * TwoOverPi + AD_VM_SHIFT;
    *quadp = adi_vm_bits(kd);
    kd -= AD_VM_SHIFT;
    double a = x - kd * P1;
    double b = kd * P2, c = kd * P3;
    /* (h, l) = a - b exactly (TwoSum) */
    double h = a - b;
    double bv = h - a;
    double l = (a - (h - bv)) - (b + bv);
    /* (h, l) += -c */
    double h2 = h - c;
    double cv = h2 - h;
    l += (h - (h2 - cv)) - (c + cv);
    l -= kd * P4;
    double rh = h2 + l;
    double rl = (h2 - rh) + l;
    /* shared: 13-bit head of rh, so that hd^2, hd^3 and hd^4 are exact */
    double pv = rh * 0x1.0000000001p40; /* 2^40 + 1 */
    double hd = pv - (pv - rh);
    double t = rh - hd;
    double hd2 = hd * hd;
    double z = rh * rh;
    double z2 = z * z;
    /* sin r = r - r^3/6 + r^5 S(r^2) */
    double h3 = hd2 * hd;
    double q = h3 * -0x1.5555555555555p-3;              /* ~ -hd^3/6 */
    double qlo = ((h3 + 4.0 * q) + 2.0 * q) * -0x1.5555555555555p-3;
    double corr3 = t * ((z + rh * hd) + hd2); /* r^3 - hd^3 */
    double sp = 0x1.1111111111111p-7 + z * -0x1.a01a01a019ed6p-13
        + z2 * (0x1.71de3a550cb5fp-19 + z * -0x1.ae6455342226dp-26
                + z2 * (0x1.61225b39932c3p-33 + z * -0x1.ab93fa646995ap-41));
    double s1 = rh + q;
    double se = (rh - s1) + q;
    /* cos r = 1 - r^2/2 + r^4/24 + r^6 C(r^2) */
    double hz = 0.5 * hd2;
    double zl = t * (rh + hd);   /* r^2 - hd^2 */
    double w = 1.0 - hz;
    double we = (1.0 - w) - hz;
    /* hd^4/24 = q4 + e4/24 exactly, as for hd^3/6 above */
    double h4 = hd2 * hd2;
    double q4 = h4 * 0x1.5555555555555p-5;               /* ~ hd^4/24 */
    double e4 = (h4 - 16.0 * q4) - 8.0 * q4;
    double c4lo = (e4 + zl * (2.0 * hd2 + zl)) * 0x1.5555555555555p-5; /* + (r^4 - hd^4)/24 */
    double cp = -0x1.6c16c16c16c17p-10 + z * 0x1.a01a01a019f8ap-16
        + z2 * (-0x1.27e4fb775f631p-22 + z * 0x1.1eed8e6c48003p-29
                + z2 * (-0x1.93957de4a69aep-37 + z * 0x1.abe6c87c32b7cp-45));
    double w2 = w + q4;
    double we2 = (w - w2) + q4;
    /* the low part rl of the argument: sin(rh + rl) = sin rh + rl cos rh
     * and cos(rh + rl) = cos rh - rl sin rh, up to rl^2 < 2^-106; s1 and w2
     * are sin rh and cos rh to 0.3% */
    double sn = s1 + (se + (qlo + (corr3 * -0x1.5555555555555p-3 + (rh * z2 * sp + rl * w2))));
    double cs = w2 + (we2 + (we + (((c4lo - 0.5 * zl) + z * z2 * cp) - rl * s1)));
    *snp = sn;
    *csp = cs;
}

/* select and negate with bit operations: SSE2 has no 64-bit integer
 * compare to build a select mask from quad */
static inline double adi_vm_pick(double sn, double cs, uint64_t quad)
{
    quad &= 3;
    uint64_t m = -(quad & 1);
    uint64_t yb = (adi_vm_bits(cs) & m) | (adi_vm_bits(sn) & ~m);
    return adi_vm_double(yb ^ ((quad & 2) << 62));
}

static inline double adi_vm_trig(double x, uint64_t cos_shift)
{
    double sn, cs;
    uint64_t quad;
    adi_vm_trig2(x, &sn, &cs, &quad);
    return adi_vm_pick(sn, cs, quad + cos_shift);
}

/* valid when adi_trig_ok(x); garbage (but no traps or UB) otherwise */
static inline double adi_sin_core(double x)
{
    double y = adi_vm_trig(x, 0);
    return x == 0 ? x : y; /* keep the sign of zero */
}
static inline double adi_cos_core(double x) { return adi_vm_trig(x, 1); }

/* both at once, the same bits as adi_sin_core and adi_cos_core */
static inline void adi_sincos_core(double x, double *s, double *c)
{
    double sn, cs;
    uint64_t quad;
    adi_vm_trig2(x, &sn, &cs, &quad);
    double y = adi_vm_pick(sn, cs, quad);
    *s = x == 0 ? x : y;
    *c = adi_vm_pick(sn, cs, quad + 1);
}

static inline double adi_sin(double x) { return adi_trig_ok(x) ? adi_sin_core(x) : sin(x); }
static inline double adi_cos(double x) { return adi_trig_ok(x) ? adi_cos_core(x) : cos(x); }

/* Generator of the tables and constants above (Python 3 + mpmath):

import mpmath as mp, struct
mp.mp.prec = 256
bits = lambda d: struct.unpack('<Q', struct.pack('<d', d))[0]
D = lambda v: float(mp.mpf(v))                   # round to nearest double
def round_bits(v, nb):                           # v rounded to nb bits
    s = mp.mpf(2) ** (mp.floor(mp.log(abs(v), 2)) - nb + 1)
    return float(mp.nint(v / s) * s)
for i in range(128):                             # exp: {tail, sbits}
    v = mp.mpf(2) ** (mp.mpf(i) / 128); hi = D(v)
    print(D((v - hi) / hi).hex(), hex(bits(hi) - (i << 45)))
c = mp.log(2) / 128; hi = round_bits(c, 35)      # Ln2hiN, Ln2loN
print(D(128 / mp.log(2)).hex(), hi.hex(), D(c - hi).hex())
p = mp.pi / 2; P1 = round_bits(p, 33); P2 = round_bits(p - P1, 33)
P3 = round_bits(p - P1 - P2, 33); P4 = D(p - P1 - P2 - P3)
l2hi = round_bits(mp.log(2), 42); l2lo = D(mp.log(2) - l2hi)
for i in range(128):                             # log: {invc, logc, logclo, chi, clo}
    a, w = (0.6875 + mp.mpf(i) / 256, mp.mpf(1) / 256) if i < 80 else (1 + mp.mpf(i - 80) / 128, mp.mpf(1) / 128)
    invc = 1.0 if i in (79, 80) else round_bits(1 / (a + w / 2), 26)
    L = -mp.log(invc); c = 1 / mp.mpf(invc); chi = D(c)
    print(invc.hex(), D(L).hex(), D(L - D(L)).hex(), chi.hex(), D(c - chi).hex())

Polynomials: mp.chebyfit(f, [a, b], degree + 1) of the remainder functions
named in the comments, coefficients rounded to double; the error of the
whole approximation (with the rounded coefficients) was then evaluated at
200 bits on 4001 points of the interval, in ulps of the result. */

#endif /* AD_VMATH_H */
