/* rules.h - the kernels that expand ops.def into switch statements used
 * by every engine and the dump, over the numeric helpers its rules call
 * (rulefns.h).  Everything here is a pure function of its arguments. */
#ifndef AD_RULES_H
#define AD_RULES_H

#include "rulefns.h"

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

/* the partials of op that have a WIDE rule (ops.def): bit 0 d/da, bit 1
 * d/db (none for a unary op's, whose rule is 0); a constant wherever op is */
static inline unsigned adi_op_wide_slots(int op)
{
    switch (op) {
#define WIDE(E, da, db) \
    case AD_OP_##E: return 1u | (adi_is_zero_literal(#db) ? 0u : 2u);
#include "ops.def"
    }
    return 0;
}

/* the status of a partial that is not a normal double where the value is
 * defined (below): not finite, ADI_OVERFLOW where ops.def's WIDE rule has
 * it, else singular; below DBL_MIN where a WIDE rule has one, ADI_UNDERFLOW
 * when the wide partial differs (digits lost, or all of them); out of
 * line, as it is rare (ops.c) */
void adi_op_partials_not_normal(int op, double a, double b, double v, const double d[2], unsigned char st[2]);

/* local partials d/da, d/db of op at (a, b) with value v, and their status
 * (ADI_OK, ADI_SINGULAR or ADI_KINK; ADI_OVERFLOW, ADI_UNDERFLOW where a
 * double cannot hold one that long double can) */
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
    unsigned ws = 0;   /* adi_op_wide_slots, folded in each case */
    switch (op) {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    case AD_OP_##E:                                                                      \
        d[0] = (da); d[1] = (db);                                                        \
        st[0] = (unsigned char)(sa); st[1] = (unsigned char)(sb);                        \
        ws = adi_op_wide_slots(AD_OP_##E);                                               \
        break;
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
    /* So too, where the op has a WIDE rule, a partial below double's
     * normal range: it lost digits, or all of them (d/dx 1/x at x = 1e200
     * is -1e-400, 0 in a double), which a factor it meets need not hide:
     * d/dx 1e300*(1/x) at x = 1e160 is -1e-20, of which a subnormal d/dx
     * 1/x = -1e-320 keeps 3 digits.  ADI_UNDERFLOW says so. */
    if ((!isfinite(d[0]) && st[0] == ADI_OK) || (!isfinite(d[1]) && st[1] == ADI_OK) ||
        (ws & 1 && fabs(d[0]) < DBL_MIN && st[0] == ADI_OK) || (ws & 2 && fabs(d[1]) < DBL_MIN && st[1] == ADI_OK))
        adi_op_partials_not_normal(op, a, b, v, d, st);
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
