/* test_tables.c - checks ops.def's side tables against its rules.
 *
 * The block replay (src/block.c) trusts two lists in ops.def that restate,
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

int main(void)
{
    int listed = 0;
#define PASSES(E, pa, pb)                          \
    if (pa) check_passes(AD_OP_##E, 0), listed++;  \
    if (pb) check_passes(AD_OP_##E, 1), listed++;
#define CARRIES(E, ca, cb)                         \
    if (ca) check_carries(AD_OP_##E, 0), listed++; \
    if (cb) check_carries(AD_OP_##E, 1), listed++;
#define OP(...)
#define DERIVED(...)
#include "ops.def"
#undef OP
#undef DERIVED
#undef PASSES
#undef CARRIES
    check(listed > 0, "the side tables are not empty");
    printf("1..%d\n", ntest);
    return nfail != 0;
}
