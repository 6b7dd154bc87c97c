/* test_tables.c - checks ops.def's side tables against its rules.
 *
 * Also: REDUCE (the optimiser's cheaper op) gives the same value and
 * partials as the op it replaces; BRANCH (the check's kink sides) changes
 * across every kink; every DERIVED expansion records with its parameters
 * as its only variables; WIDE (partials in long double) agrees with the
 * double rules and takes over only where they overflowed.
 *
 * The block replay (src/lib/block.c) trusts two lists in ops.def that restate,
 * for speed, what the value and partial rules already say:
 *   CARRIES(E, a, b): an inf or nan in that operand always reaches the
 *     result, so the block checks for them further down;
 *   PASSES(E, a, b): the partial with respect to that operand is exactly 1,
 *     so the operand may share the result's adjoint row.
 * A wrong entry gives wrong numbers only at awkward points, so this test
 * evaluates the rules themselves over many operand values (both signs,
 * zeros, subnormals, huge values, inf, nan) and fails on any point that
 * contradicts a table.  TAP output; exits 1 on a failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "rules.h"

static int ntest, nfail;

static void check(int ok, const char *what)
{
    ntest++;
    if (!ok) nfail++;
    printf("%sok %d - %s\n", ok ? "" : "not ", ntest, what);
}

/* operand values: the awkward ones, and a spread of ordinary ones */
static const double vals[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 0.1, -0.7, 1e-300, -1e-300, 4.9e-324,
    -4.9e-324, 1e300, -1e300, 1.7976931348623157e308, -1.7976931348623157e308, 1e-8, 123.456,
    -98765.4321, 3.29e6, 1e7, 1e16, 709.78, -745.2, 0.9999999999999999, 1.0000000000000002,
};
#define NVALS (sizeof vals / sizeof vals[0])

/* the rules, as the engines expand them (rules.h) */
static double value(int op, double a, double b) { return adi_op_value(op, a, b); }
static const char *domain(int op, double a, double b) { return adi_op_domain(op, a, b); }
static const char *opname(int op) { return adi_ops[op].name; }

static double partial(int op, int k, double a, double b, double v)
{
    double d[2];
    unsigned char st[2];
    adi_op_partials(op, a, b, v, d, st);
    return d[k];
}

/* PASSES: the partial is 1 at every point of the domain */
static void check_passes(int op, int k)
{
    char what[96], first[160] = "";
    long bad = 0;
    for (size_t i = 0; i < NVALS; i++)
        for (size_t j = 0; j < NVALS; j++)
            for (int sa = 0; sa < 2; sa++) {
                double a = sa ? -vals[i] : vals[i], b = vals[j];
                if (domain(op, a, b)) continue;
                double p = partial(op, k, a, b, value(op, a, b));
                if (!(p == 1.0) && !bad++)
                    snprintf(first, sizeof first, "# %s: d/d%c at (%g, %g) is %g", opname(op), k ? 'b' : 'a',
                             a, b, p);
            }
    snprintf(what, sizeof what, "PASSES: %s's partial w.r.t. %c is exactly 1", opname(op), k ? 'b' : 'a');
    check(bad == 0, what);
    if (bad) printf("%s (%ld points)\n", first, bad);
}

/* CARRIES: an inf or nan in operand k gives an inf or nan result, whatever
 * the other operand; a point outside the domain is an error already */
static void check_carries(int op, int k)
{
    static const double odd[] = {INFINITY, -INFINITY, NAN, -NAN};
    char what[96], first[160] = "";
    long bad = 0;
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < NVALS; j++)
            for (int s = 0; s < 2; s++) {
                double other = s ? -vals[j] : vals[j];
                double a = k ? other : odd[i], b = k ? odd[i] : other;
                if (adi_ops[op].nargs < 2) b = 0;
                if (domain(op, a, b)) continue;
                double y = value(op, a, b);
                if (isfinite(y) && !bad++)
                    snprintf(first, sizeof first, "# %s(%g, %g) = %g is finite", opname(op), a, b, y);
            }
    snprintf(what, sizeof what, "CARRIES: %s carries an inf or nan in %c to its result", opname(op),
             k ? 'b' : 'a');
    check(bad == 0, what);
    if (bad) printf("%s (%ld points)\n", first, bad);
}

/* REDUCE: into(a) is op with operand slot fixed at k, to the bit */
static void check_reduce(int op, int slot, double k, int into)
{
    char what[120], first[160] = "";
    long bad = 0;
    for (size_t i = 0; i < NVALS; i++)
        for (int sa = 0; sa < 2; sa++) {
            double x = sa ? -vals[i] : vals[i], a = slot ? x : k, b = slot ? k : x;
            if (domain(op, a, b)) continue;
            double v = value(op, a, b), w = value(into, x, 0);
            double p = partial(op, 1 - slot, a, b, v), q = partial(into, 0, x, 0, w);
            int same = (v == w || (v != v && w != w)) && (p == q || (p != p && q != q));
            if (!same && !bad++)
                snprintf(first, sizeof first, "# at %g: %s %g, %g; %s %g, %g", x, opname(op), v, p, opname(into), w, q);
        }
    snprintf(what, sizeof what, "REDUCE: %s with a constant %g is %s", opname(op), k, opname(into));
    check(bad == 0, what);
    if (bad) printf("%s (%ld points)\n", first, bad);
}

/* BRANCH: at every kink the side differs from the side a step away */
static double side(int op, double a, double b)
{
    (void)a;
    (void)b;
    switch (op) {
#define BRANCH(E, s) case AD_OP_##E: return (s);
#include "ops.def"
    }
    return 0;
}

static void check_branch(int op)
{
    char what[96];
    long kinks = 0, bad = 0;
    for (size_t i = 0; i < NVALS; i++)
        for (size_t j = 0; j < NVALS; j++) {
            double a = vals[i], b = vals[j], d[2];
            unsigned char st[2];
            if (domain(op, a, b)) continue;
            adi_op_partials(op, a, b, value(op, a, b), d, st);
            if (st[0] != ADI_KINK && st[1] != ADI_KINK) continue;
            kinks++;
            double h = 1e-3 * (fabs(a) + 1);
            if (side(op, a, b) == side(op, a + h, b) && side(op, a, b) == side(op, a - h, b)) bad++;
        }
    snprintf(what, sizeof what, "BRANCH: %s changes side across each of its %ld kinks", opname(op), kinks);
    check(kinks > 0 && bad == 0, what);
}

/* WIDE: where the double partial is finite, the long double one agrees
 * with it (1e-12 relative, or the least subnormal where the double one
 * underflowed: a wrong rule is off by far more, while the double pow's
 * a^(b-1) is 1.5e-14 off at a = 1e-300, b = 0.1, where the rounding of
 * b - 1 meets ln a = -690); where the double one overflowed
 * and the wide one is finite, the status says so (ADI_OVERFLOW), and no
 * partial is ADI_OVERFLOW where the wide one is not finite; where the
 * double one is below DBL_MIN and differs from the wide one, it says so
 * (ADI_UNDERFLOW) */
static void check_wide(int op)
{
    char what[160], first[200] = "";
    long bad = 0, overflowed = 0, underflowed = 0;
    for (size_t i = 0; i < NVALS; i++)
        for (size_t j = 0; j < NVALS; j++) {
            double a = vals[i], b = vals[j], d[2];
            unsigned char st[2];
            adi_wide w[2];
            if (domain(op, a, b) || !isfinite(a) || !isfinite(b)) continue;
            double v = value(op, a, b);
            if (!isfinite(v)) continue;
            adi_op_partials(op, a, b, v, d, st);
            if (!adi_op_wide_partials(op, a, b, v, w)) continue;
            for (int k = 0; k < adi_ops[op].nargs; k++) {
                int ok;
                /* (div's double d/db, -v/b, carries the rounding of a
                 * subnormal v, half its least subnormal, divided by b;
                 * the wide rule, -a/b^2, does not) */
                long double carried = op == AD_OP_DIV && k == 1 ? 2.5e-324L / fabsl((long double)b) : 0;
                if (st[k] == ADI_UNDERFLOW)
                    ok = fabs(d[k]) < DBL_MIN && w[k] != d[k] && fabsl(w[k] - d[k]) <= 1e-12L * fabsl(w[k]) + 5e-324L + carried,
                    underflowed++;
                else if (isfinite(d[k]))
                    /* (a double below DBL_MIN whose wide partial is a
                     * normal double lost digits: it says so) */
                    ok = st[k] != ADI_OVERFLOW && (w[k] != w[k] || fabsl(w[k] - d[k]) <= 1e-12L * fabsl(w[k]) + 5e-324L) &&
                         !(fabs(d[k]) < DBL_MIN && fabsl(w[k]) >= DBL_MIN && st[k] == ADI_OK);
                else if (st[k] == ADI_OVERFLOW)
                    ok = w[k] == w[k] && w[k] - w[k] == 0 && fabsl(w[k]) > DBL_MAX, overflowed++;
                else
                    ok = 1;
                if (!ok && !bad++)
                    snprintf(first, sizeof first, "# at (%g, %g): d/d%c double %g (status %d), long double %Lg", a, b,
                             k ? 'b' : 'a', d[k], st[k], w[k]);
            }
        }
    snprintf(what, sizeof what, "WIDE: %s's long double partials agree, and take over where %ld overflowed, %ld underflowed",
             opname(op), overflowed, underflowed);
    check(bad == 0 && overflowed > 0, what);
    if (bad) printf("%s (%ld points)\n", first, bad);
}

/* DERIVED: name(q0, q1, ...) records with the arguments as its only inputs */
static void check_derived(void)
{
    ad_tape *t = ad_tape_new();
    for (size_t f = 0; f < adi_nfunctions; f++) {
        const adi_fninfo *fn = &adi_functions[f];
        if (!fn->derived) continue;
        char src[200], what[160];
        int n = snprintf(src, sizeof src, "%s(", fn->name);
        for (int k = 0; k < fn->nargs_max; k++) n += snprintf(src + n, sizeof src - (size_t)n, "%sq%d", k ? ", " : "", k);
        snprintf(src + n, sizeof src - (size_t)n, ")");
        ad_diag d;
        ad_errclass e = ad_parse(t, src, strlen(src), &d);
        snprintf(what, sizeof what, "DERIVED: %s records %s with its %d arguments as its only inputs", src,
                 fn->synopsis, fn->nargs_max);
        check(t && !e && ad_tape_ninputs(t) == (size_t)fn->nargs_max, what);
    }
    ad_tape_free(t);
}

int main(void)
{
    int listed = 0;
#define PASSES(E, pa, pb)                          \
    if (pa) check_passes(AD_OP_##E, 0), listed++;  \
    if (pb) check_passes(AD_OP_##E, 1), listed++;
#define CARRIES(E, ca, cb)                         \
    if (ca) check_carries(AD_OP_##E, 0), listed++; \
    if (cb) check_carries(AD_OP_##E, 1), listed++;
#include "ops.def"
    check(listed > 0, "the side tables are not empty");
#define REDUCE(E, slot, k, INTO) check_reduce(AD_OP_##E, slot, k, AD_OP_##INTO);
#define BRANCH(E, s) check_branch(AD_OP_##E);
#define WIDE(E, da, db) check_wide(AD_OP_##E);
#include "ops.def"
    check_derived();
    printf("1..%d\n", ntest);
    return nfail != 0;
}
