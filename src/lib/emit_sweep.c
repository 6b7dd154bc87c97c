/* emit_sweep.c - the function --emit-c writes (emit.h): a plan's
 * derivation step (derive.c) unrolled over its tape into straight-line C.
 *
 * The function computes the row a point gets (ad_layout: per output the
 * value, the gradient columns, J v, H v or H; then w^T J) with the engines
 * the plan chose, in the order adi_derive_here runs them, node by node as
 * the sweeps of forward.c, reverse.c, hessian.c and wide.c do: ops.def's
 * rules as text (with the operands' variables for a, b and v), the same
 * chain-rule terms (adi_term), the same --nondiff policy (policy.c) and
 * the same checks.  So its numbers are adcalc's to the bit, and it fails
 * where adcalc does, with a status for the error's class. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "emit.h"
#include "rules.h"

const adi_rule_text adi_emit_rules[AD_OP_COUNT] = {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    [AD_OP_##E] = {#val, #da, #db, #daa, #dab, #dbb, #dom, #sa, #sb},
#include "ops.def"
};

/* ops.def's WIDE partials, as text (NULL: none): where one is, an
 * infinite partial only overflowed, and wide.c's sweep uses it */
static const struct {
    const char *da, *db;
} wide_rules[AD_OP_COUNT] = {
#define WIDE(E, da, db) [AD_OP_##E] = {#da, #db},
#include "ops.def"
};

void adi_emit_rule(adi_emitter *E, const char *s, const char *pre, size_t i)
{
    const ad_instr c = E->t->code[i];
    for (const char *q = s; *q;) {
        if (*q == '"') {
            const char *e = q + 1;
            while (*e && *e != '"') e += e[0] == '\\' && e[1] ? 2 : 1;
            if (*e) e++;
            adi_emit_out(E, "%.*s", (int)(e - q), q);
            q = e;
            continue;
        }
        if (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
            const char *e = q;
            while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')) e++;
            if (e - q == 1 && *q == 'b' && c.b < 0)
                adi_emit_out(E, "0.0");   /* (a unary op's b: the block's zero row) */
            else if (e - q == 1 && (*q == 'a' || *q == 'b' || *q == 'v'))
                adi_emit_out(E, "%s%" PRId32, pre, *q == 'a' ? c.a : *q == 'b' ? c.b : (int32_t)i);
            else if (e - q == 2 && q[0] == 'w' && (q[1] == 'a' || q[1] == 'b' || q[1] == 'v'))   /* WIDE's */
                adi_emit_out(E, "((adi_wide)%s%" PRId32 ")", pre, q[1] == 'a' ? c.a : q[1] == 'b' ? c.b : (int32_t)i);
            else
                adi_emit_out(E, "%.*s", (int)(e - q), q);
            q = e;
            continue;
        }
        fputc(*q++, E->f);
    }
}

/* the sweep's activity from the differentiated inputs diff, and which
 * active nodes an output depends on (all: every active node but a guard,
 * whose value feeds nothing) */
static void activity(adi_emitter *E, const unsigned char *diff, int all)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    for (size_t i = 0; i < t->n; i++) {
        const ad_instr c = t->code[i];
        E->act[i] = i < ni ? diff[i] != 0 : i < ni + nc ? 0 : (E->act[c.a] || (c.b >= 0 && E->act[c.b]));
        E->need[i] = 0;
    }
    if (all) {
        for (size_t i = 0; i < t->n; i++) E->need[i] = E->act[i] && !adi_op_is_guard(t->code[i].op);
        return;
    }
    for (size_t o = 0; o < t->nout; o++) E->need[t->outs[o]] = E->act[t->outs[o]];
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->need[i]) continue;
        const ad_instr c = t->code[i];
        E->need[c.a] = E->act[c.a];
        if (c.b >= 0) E->need[c.b] = E->act[c.b];
    }
}

static int feeds(const ad_tape *t, size_t i) { return !t->feeds || t->feeds[i]; }

/* the condition under which a tie at min/max node i is a kink (eval.c's
 * adi_tie_is_kink): no later link of its n-ary chain undercuts it */
static void tie_condition(adi_emitter *E, size_t i)
{
    const ad_tape *t = E->t;
    const ad_instr *c = t->code;
    uint32_t op = c[i].op;
    int any = 0;
    if (op == AD_OP_MIN || op == AD_OP_MAX)
        for (size_t j = i + 1; j < t->n; j++) {
            if (c[j].op != op || (size_t)c[j].a != j - 1 || t->pos[j].line != t->pos[i].line ||
                t->pos[j].col != t->pos[i].col)
                break;
            adi_emit_out(E, "%s!(v%" PRId32 " %s v%zu)", any ? " && " : "", c[j].b, op == AD_OP_MIN ? "<" : ">", i);
            any = 1;
        }
    if (!any) adi_emit_out(E, "1");
}

/* node i's partials into d[] as a sweep takes them (work.h's
 * adi_sweep_partials; sweep 0: as the Hessian's backward pass, without
 * the long-double retry) */
static void partials(adi_emitter *E, size_t i, int sweep, int wide)
{
    const ad_tape *t = E->t;
    const ad_instr c = t->code[i];
    const adi_rule_text *r = &adi_emit_rules[c.op];
    int aa = E->act[c.a] && 1, ab = c.b >= 0 && E->act[c.b];
    int counts = feeds(t, i) || adi_op_is_guard(c.op);   /* policy.c: a node only a guard uses */
    adi_emit_out(E, "    d[0] = ");
    adi_emit_rule(E, r->da, "v", i);
    adi_emit_out(E, "; d[1] = ");
    adi_emit_rule(E, r->db, "v", i);
    adi_emit_out(E, ";\n    s[0] = ");
    adi_emit_rule(E, r->sa, "v", i);
    adi_emit_out(E, "; s[1] = ");
    adi_emit_rule(E, r->sb, "v", i);
    adi_emit_out(E, ";\n");
    /* (wide: which partials are not the long double's, before adc_point
     * applies the policy: 1 only overflowed, as adc_point will say, 2
     * underflowed (ops.c's adi_op_partials_not_normal: ADI_OVERFLOW,
     * ADI_UNDERFLOW)) */
    for (int j = 0; j < 2 && wide && wide_rules[c.op].da; j++) {
        if (!(adi_op_wide_slots((int)c.op) >> j & 1)) {
            adi_emit_out(E, "    o[%d] = 0;\n", j);
            continue;
        }
        adi_emit_out(E, "    o[%d] = s[%d] != ADI_OK ? 0 : isinf(d[%d]) ? 1\n         : fabs(d[%d]) < DBL_MIN && (wr = (adi_wide)(",
                     j, j, j, j);
        adi_emit_rule(E, j ? wide_rules[c.op].db : wide_rules[c.op].da, "v", i);
        adi_emit_out(E, "), isfinite(wr) && wr != d[%d]) ? 2 : 0;\n", j);
    }
    adi_emit_out(E, "    %sadc_point(d, s, %d, %d, %d, ", sweep ? "(void)" : "z = ", counts && aa, counts && ab,
                 wide_rules[c.op].da != NULL);
    tie_condition(E, i);
    adi_emit_out(E, ", %d, %d, &sing, &kink);\n", sweep, E->p->pol == AD_ZERO_SUBGRAD);
}

/* forward.c's and reverse.c's: a partial of an operand on the path that
 * only overflowed or underflowed (o[], from partials) makes the
 * long-double sweep run, even where the answer is finite */
static void overflowed(adi_emitter *E, ad_instr c, int aa, int ab)
{
    if (wide_rules[c.op].da && (aa || ab))
        adi_emit_out(E, "        over |= %s || %s;\n", aa ? "o[0]" : "0", ab ? "o[1]" : "0");
}

/* node i's partials as wide.c takes them, into wd[]: the sweep's, and
 * ops.def's WIDE rule in long double where a double only overflowed or
 * underflowed */
static void wide_partials(adi_emitter *E, size_t i)
{
    const char *w[2] = {wide_rules[E->t->code[i].op].da, wide_rules[E->t->code[i].op].db};
    partials(E, i, 1, 1);
    for (int j = 0; j < 2; j++) {
        if (!w[0]) {
            adi_emit_out(E, "    wd[%d] = d[%d];\n", j, j);
            continue;
        }
        adi_emit_out(E, "    wr = (adi_wide)(");
        adi_emit_rule(E, w[j], "v", i);
        adi_emit_out(E, ");\n    wd[%d] = o[%d] ? wr : d[%d];\n", j, j, j);
    }
}

/* the value pass (eval.c, or forward.c's when the first engine is
 * forward: then its activity's overflow checks come in node order) */
static void values(adi_emitter *E, int interleave)
{
    const ad_tape *t = E->t;
    const ad_plan *p = E->p;
    size_t ni = t->ninputs, nc = t->nconsts;
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(t, i, &len);
        if (p->var_of_input[i] == SIZE_MAX)
            adi_emit_out(E, "    const double v%zu = NAN;   /* %.*s: no variable of x */\n", i, (int)(len > 60 ? 60 : len), name);
        else
            adi_emit_out(E, "    const double v%zu = x[%zu];   /* %.*s */\n", i, p->var_of_input[i], (int)(len > 60 ? 60 : len),
                         name);
        adi_emit_out(E, "    (void)v%zu;\n", i);
    }
    /* (adcalc refuses a point that is not finite) */
    for (size_t i = 0; i < ni; i++)
        if (p->var_of_input[i] != SIZE_MAX) {
            adi_emit_out(E, "    if (!isfinite(v%zu)) FAIL(%d);\n", i, ADI_EMIT_INPUT);
            E->fails = 1;
        }
    for (size_t i = ni; i < ni + nc; i++) {
        double v = t->cval[i - ni];
        if (isnan(v)) adi_emit_out(E, "    const double v%zu = NAN;\n", i);
        else if (isinf(v)) adi_emit_out(E, "    const double v%zu = %sHUGE_VAL;\n", i, v < 0 ? "-" : "");
        else adi_emit_out(E, "    const double v%zu = %a;   /* %.17g */\n", i, v, v);
    }
    for (size_t i = ni + nc; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const adi_rule_text *r = &adi_emit_rules[c.op];
        int guard = adi_op_is_guard(c.op);
        adi_emit_out(E, "    /* t%zu = %s (line %d, column %d) */\n", i, adi_ops[c.op].name, (int)t->pos[i].line,
                     (int)t->pos[i].col);
        E->fails = 1;
        if (!adi_is_null_literal(r->dom)) {
            adi_emit_out(E, "    if ((");
            adi_emit_rule(E, r->dom, "v", i);
            adi_emit_out(E, ") != NULL) FAIL(%d);\n", guard ? ADI_EMIT_PATH : ADI_EMIT_DOMAIN);
        }
        if (guard) continue;   /* its value (0) feeds nothing */
        adi_emit_out(E, "    const double v%zu = ", i);
        adi_emit_rule(E, r->val, "v", i);
        adi_emit_out(E, ";\n    if (isnan(v%zu)) FAIL(%d);\n", i, ADI_EMIT_DOMAIN);
        if (interleave && E->act[i] && feeds(t, i)) adi_emit_out(E, "    if (!isfinite(v%zu)) FAIL(%d);\n", i, ADI_EMIT_DOMAIN);
    }
}

/* reverse.c's overflow checks: an active value that is not finite */
static void finite_checks(adi_emitter *E)
{
    const ad_tape *t = E->t;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++)
        if (E->act[i] && feeds(E->t, i) && !adi_op_is_guard(t->code[i].op))
            adi_emit_out(E, "    if (!isfinite(v%zu)) FAIL(%d);\n", i, ADI_EMIT_DOMAIN);
}

/* after a sweep: the policy's verdict (the singular point first), then
 * an answer that overflowed (after the long-double sweep, the Hessian's) */
static void verdict(adi_emitter *E)
{
    E->fails = 1;
    adi_emit_out(E, "    if (sing) FAIL(%d);\n    if (kink) FAIL(%d);\n    if (over) FAIL(%d);\n", ADI_EMIT_DOMAIN, ADI_EMIT_NONDIFF,
                 ADI_EMIT_DOMAIN);
}

/* forward.c: k tangents t<i>_<j> from seeds (ni x k) over the activity
 * of diff; the outputs' tangents into the caller's names T<r>_<j> */
static void forward(adi_emitter *E, const unsigned char *diff, const double *seeds, size_t k, int checks, int all)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    activity(E, diff, all);
    adi_emit_out(E, "    {\n    int sing = 0, kink = 0, over = 0, o[2] = {0, 0};\n    double d[2];\n    int s[2];\n    adi_wide wr;\n"
                    "    (void)d;\n    (void)s;\n    (void)o;\n    (void)wr;\n");
    if (checks) finite_checks(E);
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < k && E->need[i]; j++) adi_emit_out(E, "    const double t%zu_%zu = %a;\n", i, j, seeds[i * k + j]);
    for (size_t i = ni + nc; i < t->n; i++) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        partials(E, i, 1, 1);
        overflowed(E, c, aa, ab);
        for (size_t j = 0; j < k && E->need[i]; j++) {
            adi_emit_out(E, "    const double t%zu_%zu = ", i, j);
            if (aa) adi_emit_out(E, "adi_term(d[0], t%" PRId32 "_%zu)", c.a, j);
            if (aa && ab) adi_emit_out(E, " + ");
            if (ab) adi_emit_out(E, "adi_term(d[1], t%" PRId32 "_%zu)", c.b, j);
            adi_emit_out(E, ";\n");
        }
    }
    for (size_t r = 0; r < t->nout; r++) {
        int32_t o = t->outs[r];
        for (size_t j = 0; j < k; j++) {
            if (E->act[o]) adi_emit_out(E, "    double T%zu_%zu = t%" PRId32 "_%zu;\n", r, j, o, j);
            else adi_emit_out(E, "    double T%zu_%zu = 0;\n", r, j);
            adi_emit_out(E, "    over |= !isfinite(T%zu_%zu);\n", r, j);
        }
    }
    /* wide.c's forward sweep again in long double: u<i>_<j> */
    adi_emit_out(E, "    if (over && !sing && !kink) {\n    int wok = ADI_WIDE_USEFUL;\n    adi_wide wd[2];\n"
                    "    (void)wd;\n");
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < k && E->need[i]; j++)
            adi_emit_out(E, "    const adi_wide u%zu_%zu = %a;\n    (void)u%zu_%zu;\n", i, j, seeds[i * k + j], i, j);
    for (size_t i = ni + nc; i < t->n; i++) {
        if (!E->need[i]) continue;
        const ad_instr c = t->code[i];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        wide_partials(E, i);
        for (size_t j = 0; j < k; j++) {
            adi_emit_out(E, "    const adi_wide u%zu_%zu = ", i, j);
            if (aa) adi_emit_out(E, "adc_wterm(wd[0], u%" PRId32 "_%zu)", c.a, j);
            else adi_emit_out(E, "0");
            if (ab) adi_emit_out(E, " + adc_wterm(wd[1], u%" PRId32 "_%zu);\n", c.b, j);
            else adi_emit_out(E, " + 0;\n");
            adi_emit_out(E, "    (void)u%zu_%zu;\n", i, j);
        }
    }
    for (size_t r = 0; r < t->nout; r++)
        for (size_t j = 0; j < k && E->act[t->outs[r]]; j++)
            adi_emit_out(E, "    wok = wok && adc_narrow(u%" PRId32 "_%zu, &T%zu_%zu);\n", t->outs[r], j, r, j);
    adi_emit_out(E, "    if (!wok) sing = 1;\n    over = 0;\n    }\n");
    verdict(E);
}

/* reverse.c: adjoints g<i> from the outputs' weights (NULL: unit r) over
 * the activity of diff; the inputs' adjoints into G<i> */
static void reverse(adi_emitter *E, const unsigned char *diff, const double *wout, size_t unit, int checks)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    activity(E, diff, 0);
    adi_emit_out(E, "    {\n    int sing = 0, kink = 0, over = 0, o[2] = {0, 0};\n    double d[2];\n    int s[2];\n    adi_wide wr;\n"
                    "    (void)d;\n    (void)s;\n    (void)o;\n    (void)wr;\n");
    if (checks) finite_checks(E);
    for (size_t i = 0; i < t->n; i++)
        if (E->need[i]) adi_emit_out(E, "    double g%zu = 0;\n", i);
    for (size_t o = 0; o < t->nout; o++) {
        double w = wout ? wout[o] : o == unit;
        if (w != 0 && E->need[t->outs[o]]) adi_emit_out(E, "    g%" PRId32 " += %a;\n", t->outs[o], w);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        partials(E, i, 1, 1);
        if (!E->need[i]) continue;
        adi_emit_out(E, "    if (g%zu != 0) {\n", i);
        overflowed(E, c, E->act[c.a], c.b >= 0 && E->act[c.b]);
        if (E->act[c.a]) adi_emit_out(E, "        g%" PRId32 " += adi_term(d[0], g%zu);\n", c.a, i);
        if (c.b >= 0 && E->act[c.b]) adi_emit_out(E, "        g%" PRId32 " += adi_term(d[1], g%zu);\n", c.b, i);
        adi_emit_out(E, "    }\n");
    }
    /* (an input no derivative goes to, or one no column asks for, is still named) */
    for (size_t i = 0; i < ni; i++) {
        if (E->need[i]) adi_emit_out(E, "    double G%zu = g%zu;\n    over |= !isfinite(G%zu);\n", i, i, i);
        else adi_emit_out(E, "    double G%zu = 0;\n", i);
        adi_emit_out(E, "    (void)G%zu;\n", i);
    }
    /* wide.c's reverse sweep again in long double: adjoints u<i> */
    adi_emit_out(E, "    if (over && !sing && !kink) {\n    int wok = ADI_WIDE_USEFUL;\n    adi_wide wd[2];\n"
                    "    (void)wd;\n");
    for (size_t i = 0; i < t->n; i++)
        if (E->need[i]) adi_emit_out(E, "    adi_wide u%zu = 0;\n", i);
    for (size_t o = 0; o < t->nout; o++) {
        double w = wout ? wout[o] : o == unit;
        if (w != 0 && E->need[t->outs[o]]) adi_emit_out(E, "    u%" PRId32 " += %a;\n", t->outs[o], w);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->need[i]) continue;
        const ad_instr c = t->code[i];
        adi_emit_out(E, "    if (u%zu != 0) {\n", i);
        wide_partials(E, i);
        if (E->act[c.a]) adi_emit_out(E, "    u%" PRId32 " += adc_wterm(wd[0], u%zu);\n", c.a, i);
        if (c.b >= 0 && E->act[c.b]) adi_emit_out(E, "    u%" PRId32 " += adc_wterm(wd[1], u%zu);\n", c.b, i);
        adi_emit_out(E, "    }\n");
    }
    for (size_t i = 0; i < ni; i++)
        if (E->need[i]) adi_emit_out(E, "    wok = wok && adc_narrow(u%zu, &G%zu);\n", i, i);
    adi_emit_out(E, "    if (!wok) sing = 1;\n    over = 0;\n    }\n");
    verdict(E);
}

/* hessian.c's backward pass after forward()'s k tangents t<i>_<j>:
 * adjoints g<i> and their tangents h<i>_<j> of output 0 */
static void second_order(adi_emitter *E, size_t k, ad_policy pol)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    adi_emit_out(E, "    double q[3];\n    unsigned z;\n    (void)q;\n    (void)z;\n    sing = kink = over = 0;\n");
    for (size_t i = 0; i < t->n; i++) {
        if (!E->act[i]) continue;
        adi_emit_out(E, "    double g%zu = %s;\n", i, t->nout && (size_t)t->outs[0] == i ? "1" : "0");
        for (size_t j = 0; j < k; j++) adi_emit_out(E, "    double h%zu_%zu = 0;\n", i, j);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        const adi_rule_text *r = &adi_emit_rules[c.op];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        partials(E, i, 0, 1);
        /* hessian.c: a partial that underflowed fails the point */
        if (wide_rules[c.op].da && feeds(t, i) && (aa || ab))
            adi_emit_out(E, "    if (%s || %s) sing = 1;\n", aa ? "o[0] == 2" : "0", ab ? "o[1] == 2" : "0");
        adi_emit_out(E, "    q[0] = ");
        adi_emit_rule(E, r->daa, "v", i);
        adi_emit_out(E, "; q[1] = ");
        adi_emit_rule(E, r->dab, "v", i);
        adi_emit_out(E, "; q[2] = ");
        adi_emit_rule(E, r->dbb, "v", i);
        adi_emit_out(E, ";\n    if (z & 1) q[0] = q[1] = 0;\n    if (z & 2) q[2] = q[1] = 0;\n");
        if (feeds(t, i)) {
            adi_emit_out(E, "    if (");
            if (aa) adi_emit_out(E, "!isfinite(q[0]) || ");
            if (aa && ab) adi_emit_out(E, "!isfinite(q[1]) || ");
            if (ab) adi_emit_out(E, "!isfinite(q[2]) || ");
            adi_emit_out(E, "0) {\n");
            if (pol == AD_ZERO_SUBGRAD)
                adi_emit_out(E, "        if (!isfinite(q[0])) q[0] = 0;\n        if (!isfinite(q[1])) q[1] = 0;\n"
                                "        if (!isfinite(q[2])) q[2] = 0;\n");
            else adi_emit_out(E, "        sing = 1;\n");
            adi_emit_out(E, "    }\n");
        }
        if (aa) {
            adi_emit_out(E, "    g%" PRId32 " += adi_term(d[0], g%zu);\n", c.a, i);
            for (size_t j = 0; j < k; j++) {
                adi_emit_out(E, "    h%" PRId32 "_%zu += adi_term(d[0], h%zu_%zu) + (g%zu != 0 ? g%zu * (adi_term(q[0], t%" PRId32
                                "_%zu) + ", c.a, j, i, j, i, i, c.a, j);
                if (ab) adi_emit_out(E, "adi_term(q[1], t%" PRId32 "_%zu)) : 0);\n", c.b, j);
                else adi_emit_out(E, "0) : 0);\n");
            }
        }
        if (ab) {
            adi_emit_out(E, "    g%" PRId32 " += adi_term(d[1], g%zu);\n", c.b, i);
            for (size_t j = 0; j < k; j++) {
                adi_emit_out(E, "    h%" PRId32 "_%zu += adi_term(d[1], h%zu_%zu) + (g%zu != 0 ? g%zu * (", c.b, j, i, j, i, i);
                if (aa) adi_emit_out(E, "adi_term(q[1], t%" PRId32 "_%zu)", c.a, j);
                else adi_emit_out(E, "0");
                adi_emit_out(E, " + adi_term(q[2], t%" PRId32 "_%zu)) : 0);\n", c.b, j);
            }
        }
    }
    for (size_t i = 0; i < ni; i++) {
        if (!E->act[i]) {
            adi_emit_out(E, "    const double G%zu = 0;\n    (void)G%zu;\n", i, i);
            for (size_t j = 0; j < k; j++) adi_emit_out(E, "    const double H%zu_%zu = 0;\n    (void)H%zu_%zu;\n", i, j, i, j);
            continue;
        }
        adi_emit_out(E, "    const double G%zu = g%zu;\n    over |= !isfinite(G%zu);\n", i, i, i);
        for (size_t j = 0; j < k; j++)
            adi_emit_out(E, "    const double H%zu_%zu = h%zu_%zu;\n    over |= !isfinite(H%zu_%zu);\n", i, j, i, j, i, j);
    }
    verdict(E);
}

/* ---- the engines in adi_derive_here's order, each filling its part of out[] ---- */

static void do_jvp(adi_emitter *E, int first)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    if (p->fwd_jvp) {
        forward(E, p->seeddiff, p->seed, 1, !first, 0);
        for (size_t r = 0; r < L->m; r++) adi_emit_out(E, "    out[%zu] = T%zu_0 + 0.0;\n", r * L->per_out + L->jvp, r);
        adi_emit_out(E, "    }\n");
        return;
    }
    for (size_t r = 0; r < L->m; r++) {
        reverse(E, p->seeddiff, NULL, r, 1);
        adi_emit_out(E, "    double sum = 0;\n");
        for (size_t i = 0; i < p->ni; i++)
            if (p->seeddiff[i]) adi_emit_out(E, "    sum += G%zu * %a;\n", i, p->seed[i]);
        adi_emit_out(E, "    out[%zu] = sum;\n    }\n", r * L->per_out + L->jvp);
    }
}

/* out[at + c] for each column c: the tape input's name<i>, or 0 */
static void columns(adi_emitter *E, size_t at, const char *name)
{
    const ad_plan *p = E->p;
    for (size_t c = 0; c < p->L.ncols; c++) {
        if (p->col_input[c] >= 0) adi_emit_out(E, "    out[%zu] = %s%ld;\n", at + c, name, p->col_input[c]);
        else adi_emit_out(E, "    out[%zu] = 0;\n", at + c);
    }
}

static void do_grad(adi_emitter *E, int first)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    if (p->fwd_grad) {
        forward(E, p->diff, p->unit, p->k, !first, 0);
        for (size_t r = 0; r < L->m; r++)
            for (size_t c = 0, col = 0; c < L->ncols; c++) {
                size_t at = r * L->per_out + L->grad + c;
                if (p->col_input[c] >= 0) adi_emit_out(E, "    out[%zu] = T%zu_%zu;\n", at, r, col++);
                else adi_emit_out(E, "    out[%zu] = 0;\n", at);
            }
        adi_emit_out(E, "    }\n");
        return;
    }
    for (size_t r = 0; r < L->m; r++) {
        reverse(E, p->diff, NULL, r, 1);
        columns(E, r * L->per_out + L->grad, "G");
        adi_emit_out(E, "    }\n");
    }
}

static void do_hessian(adi_emitter *E, int first)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    int hvp = L->hvp != AD_ABSENT;
    size_t k = hvp ? 1 : p->k, nc = L->ncols;
    const long *in = p->col_input;
    /* (the backward pass uses every active node's tangents) */
    forward(E, p->bothdiff, hvp ? p->seed : p->unit, k, !first, 1);
    second_order(E, k, p->pol);
    columns(E, L->grad, "G");
    if (hvp) {
        for (size_t a = 0; a < nc; a++) {
            if (in[a] >= 0) adi_emit_out(E, "    out[%zu] = H%ld_0;\n", L->hvp + a, in[a]);
            else adi_emit_out(E, "    out[%zu] = 0;\n", L->hvp + a);
        }
    } else {
        for (size_t a = 0; a < nc; a++)
            for (size_t b = 0, col = 0; b < nc; b++) {
                size_t at = L->hessian + a * nc + b;
                if (in[b] >= 0 && in[a] >= 0) adi_emit_out(E, "    out[%zu] = H%ld_%zu;\n", at, in[a], col);
                else adi_emit_out(E, "    out[%zu] = 0;\n", at);
                if (in[b] >= 0) col++;
            }
    }
    adi_emit_out(E, "    }\n");
}

static void do_vjp(adi_emitter *E)
{
    const ad_plan *p = E->p;
    reverse(E, p->diff, p->weights, 0, 1);
    columns(E, p->L.vjp, "G");
    adi_emit_out(E, "    }\n");
}

void adi_emit_function(adi_emitter *E)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    const ad_tape *t = E->t;
    int hess = L->hvp != AD_ABSENT || L->hessian != AD_ABSENT;
    /* the first engine: when it is forward, its overflow checks come with the values */
    const unsigned char *fdiff = L->jvp != AD_ABSENT ? (p->fwd_jvp ? p->seeddiff : NULL)
                                 : hess ? p->bothdiff : L->grad != AD_ABSENT && p->fwd_grad ? p->diff : NULL;
    if (fdiff) activity(E, fdiff, 0);
    adi_emit_out(E, "int %s(const double *x, double *out)\n{\n    int st = 0;\n", E->o->name);
    if (t->ninputs == 0) adi_emit_out(E, "    (void)x;\n");
    values(E, fdiff != NULL);
    int first = 1;
    if (L->jvp != AD_ABSENT) do_jvp(E, first), first = 0;
    if (hess) do_hessian(E, first), first = 0;
    else if (L->grad != AD_ABSENT) do_grad(E, first), first = 0;
    if (L->vjp != AD_ABSENT) do_vjp(E);
    for (size_t r = 0; r < L->m; r++) adi_emit_out(E, "    out[%zu] = v%" PRId32 ";\n", r * L->per_out, t->outs[r]);
    if (!E->fails) {
        adi_emit_out(E, "    return st;\n}\n");
        return;
    }
    adi_emit_out(E, "    return 0;\nfail:\n    for (size_t i = 0; i < %zu; i++) out[i] = NAN;\n    return st;\n}\n", L->width);
}

