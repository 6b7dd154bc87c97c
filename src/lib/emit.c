/* emit.c - derivative code as C (--emit-c): a plan's derivation step
 * (derive.c) unrolled over its tape into one self-contained C99 file.
 *
 * The emitted function computes the row a point gets (ad_layout: per
 * output the value, the gradient columns, J v, H v or H; then w^T J) with
 * the engines the plan chose, in the order adi_derive_here runs them, node
 * by node as the sweeps of forward.c, reverse.c and hessian.c do: ops.def's
 * rules as text (with the operands' variables for a, b and v), the numeric
 * helpers themselves (the engine's vmath.h, vmath.c, rulefns.h and
 * special.c, embedded by src/lib/embed-runtime.sh), the same chain-rule
 * terms (adi_term), the same --nondiff policy (policy.c) and the same
 * checks.  So its numbers are adcalc's to the bit, and it fails where
 * adcalc does, with a status for the error's class.
 *
 * Where a derivative overflowed a double, the sweep runs again in long
 * double as wide.c's does, with ops.def's WIDE partials.  Taylor
 * (--order) and the gradient check are refused by the command. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include "derive.h"
#include "alloc.h"

extern const char *const adi_emit_runtime[];   /* emit_rt.c */

/* ops.def's rules, as the text of their C expressions */
typedef struct {
    const char *val, *da, *db, *daa, *dab, *dbb, *dom, *sa, *sb;
} rule_text;

static const rule_text rules[AD_OP_COUNT] = {
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

/* the statuses of the emitted function (documented in its head) */
enum { ST_DOMAIN = 1, ST_NONDIFF = 4, ST_PATH = 7 };

typedef struct {
    FILE *f;
    const ad_plan *p;
    const ad_tape *t;
    const ad_emit_options *o;
    unsigned char *act;    /* the sweep being written: nodes that depend on a differentiated input */
    unsigned char *need;   /* ...and that an output depends on (their derivatives are carried) */
    int fails;             /* a FAIL was written: the function needs its label */
} emitter;

static void out(emitter *E, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(E->f, fmt, ap);
    va_end(ap);
}

/* writes rule text s with the operands a, b and the value v named as the
 * variables <pre>A, <pre>B, <pre>I (string literals are copied as they are) */
static void rule(emitter *E, const char *s, const char *pre, size_t i)
{
    const ad_instr c = E->t->code[i];
    for (const char *q = s; *q;) {
        if (*q == '"') {
            const char *e = q + 1;
            while (*e && *e != '"') e += e[0] == '\\' && e[1] ? 2 : 1;
            if (*e) e++;
            out(E, "%.*s", (int)(e - q), q);
            q = e;
            continue;
        }
        if (*q == '_' || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')) {
            const char *e = q;
            while (*e == '_' || (*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9')) e++;
            if (e - q == 1 && (*q == 'a' || *q == 'b' || *q == 'v'))
                out(E, "%s%" PRId32, pre, *q == 'a' ? c.a : *q == 'b' ? c.b : (int32_t)i);
            else if (e - q == 2 && q[0] == 'w' && (q[1] == 'a' || q[1] == 'b' || q[1] == 'v'))   /* WIDE's */
                out(E, "((adi_wide)%s%" PRId32 ")", pre, q[1] == 'a' ? c.a : q[1] == 'b' ? c.b : (int32_t)i);
            else
                out(E, "%.*s", (int)(e - q), q);
            q = e;
            continue;
        }
        fputc(*q++, E->f);
    }
}

/* the sweep's activity from the differentiated inputs diff, and which
 * active nodes an output depends on (all: every active node but a guard,
 * whose value feeds nothing) */
static void activity(emitter *E, const unsigned char *diff, int all)
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
static void tie_condition(emitter *E, size_t i)
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
            out(E, "%s!(v%" PRId32 " %s v%zu)", any ? " && " : "", c[j].b, op == AD_OP_MIN ? "<" : ">", i);
            any = 1;
        }
    if (!any) out(E, "1");
}

/* node i's partials into d[] as a sweep takes them (work.h's
 * adi_sweep_partials; sweep 0: as the Hessian's backward pass, without
 * the long-double retry) */
static void partials(emitter *E, size_t i, int sweep, int wide)
{
    const ad_tape *t = E->t;
    const ad_instr c = t->code[i];
    const rule_text *r = &rules[c.op];
    int aa = E->act[c.a] && 1, ab = c.b >= 0 && E->act[c.b];
    int counts = feeds(t, i) || adi_op_is_guard(c.op);   /* policy.c: a node only a guard uses */
    out(E, "    d[0] = ");
    rule(E, r->da, "v", i);
    out(E, "; d[1] = ");
    rule(E, r->db, "v", i);
    out(E, ";\n    s[0] = ");
    rule(E, r->sa, "v", i);
    out(E, "; s[1] = ");
    rule(E, r->sb, "v", i);
    out(E, ";\n");
    /* (wide: which partials only overflowed, as adc_point will say) */
    for (int j = 0; j < 2 && wide && wide_rules[c.op].da; j++)
        out(E, "    o[%d] = !isfinite(d[%d]) && s[%d] == ADI_OK && isinf(d[%d]);\n", j, j, j, j);
    out(E, "    %sadc_point(d, s, %d, %d, %d, ", sweep ? "(void)" : "z = ", counts && aa, counts && ab,
        wide_rules[c.op].da != NULL);
    tie_condition(E, i);
    out(E, ", %d, %d, &sing, &kink);\n", sweep, E->p->pol == AD_ZERO_SUBGRAD);
}

/* node i's partials as wide.c takes them, into wd[]: the sweep's, and
 * ops.def's WIDE rule in long double where a double only overflowed */
static void wide_partials(emitter *E, size_t i)
{
    const char *w[2] = {wide_rules[E->t->code[i].op].da, wide_rules[E->t->code[i].op].db};
    partials(E, i, 1, 1);
    for (int j = 0; j < 2; j++) {
        out(E, "    wd[%d] = ", j);
        if (w[0]) {
            out(E, "o[%d] ? (adi_wide)(", j);
            rule(E, w[j], "v", i);
            out(E, ") : ");
        }
        out(E, "d[%d];\n", j);
    }
}

/* the value pass (eval.c, or forward.c's when the first engine is
 * forward: then its activity's overflow checks come in node order) */
static void values(emitter *E, int interleave)
{
    const ad_tape *t = E->t;
    const ad_plan *p = E->p;
    size_t ni = t->ninputs, nc = t->nconsts;
    for (size_t i = 0; i < ni; i++) {
        size_t len;
        const char *name = ad_tape_input_name(t, i, &len);
        if (p->var_of_input[i] == SIZE_MAX)
            out(E, "    const double v%zu = NAN;   /* %.*s: no variable of x */\n", i, (int)(len > 60 ? 60 : len), name);
        else
            out(E, "    const double v%zu = x[%zu];   /* %.*s */\n", i, p->var_of_input[i], (int)(len > 60 ? 60 : len),
                name);
    }
    for (size_t i = ni; i < ni + nc; i++) {
        double v = t->cval[i - ni];
        if (isnan(v)) out(E, "    const double v%zu = NAN;\n", i);
        else if (isinf(v)) out(E, "    const double v%zu = %sHUGE_VAL;\n", i, v < 0 ? "-" : "");
        else out(E, "    const double v%zu = %a;   /* %.17g */\n", i, v, v);
    }
    for (size_t i = ni + nc; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const rule_text *r = &rules[c.op];
        int guard = adi_op_is_guard(c.op);
        out(E, "    /* t%zu = %s (line %d, column %d) */\n", i, adi_ops[c.op].name, (int)t->pos[i].line,
            (int)t->pos[i].col);
        E->fails = 1;
        if (!adi_is_null_literal(r->dom)) {
            out(E, "    if ((");
            rule(E, r->dom, "v", i);
            out(E, ") != NULL) FAIL(%d);\n", guard ? ST_PATH : ST_DOMAIN);
        }
        if (guard) continue;   /* its value (0) feeds nothing */
        out(E, "    const double v%zu = ", i);
        rule(E, r->val, "v", i);
        out(E, ";\n    if (isnan(v%zu)) FAIL(%d);\n", i, ST_DOMAIN);
        if (interleave && E->act[i] && feeds(t, i)) out(E, "    if (!isfinite(v%zu)) FAIL(%d);\n", i, ST_DOMAIN);
    }
}

/* reverse.c's overflow checks: an active value that is not finite */
static void finite_checks(emitter *E)
{
    const ad_tape *t = E->t;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++)
        if (E->act[i] && feeds(E->t, i) && !adi_op_is_guard(t->code[i].op))
            out(E, "    if (!isfinite(v%zu)) FAIL(%d);\n", i, ST_DOMAIN);
}

/* after a sweep: the policy's verdict (the singular point first), then
 * an answer that overflowed (after the long-double sweep, the Hessian's) */
static void verdict(emitter *E)
{
    E->fails = 1;
    out(E, "    if (sing) FAIL(%d);\n    if (kink) FAIL(%d);\n    if (over) FAIL(%d);\n", ST_DOMAIN, ST_NONDIFF,
        ST_DOMAIN);
}

/* forward.c: k tangents t<i>_<j> from seeds (ni x k) over the activity
 * of diff; the outputs' tangents into the caller's names T<r>_<j> */
static void forward(emitter *E, const unsigned char *diff, const double *seeds, size_t k, int checks, int all)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    activity(E, diff, all);
    out(E, "    {\n    int sing = 0, kink = 0, over = 0;\n    double d[2];\n    int s[2];\n    (void)d;\n    (void)s;\n");
    if (checks) finite_checks(E);
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < k && E->need[i]; j++) out(E, "    const double t%zu_%zu = %a;\n", i, j, seeds[i * k + j]);
    for (size_t i = ni + nc; i < t->n; i++) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        partials(E, i, 1, 0);
        for (size_t j = 0; j < k && E->need[i]; j++) {
            out(E, "    const double t%zu_%zu = ", i, j);
            if (aa) out(E, "adi_term(d[0], t%" PRId32 "_%zu)", c.a, j);
            if (aa && ab) out(E, " + ");
            if (ab) out(E, "adi_term(d[1], t%" PRId32 "_%zu)", c.b, j);
            out(E, ";\n");
        }
    }
    for (size_t r = 0; r < t->nout; r++) {
        int32_t o = t->outs[r];
        for (size_t j = 0; j < k; j++) {
            if (E->act[o]) out(E, "    double T%zu_%zu = t%" PRId32 "_%zu;\n", r, j, o, j);
            else out(E, "    double T%zu_%zu = 0;\n", r, j);
            out(E, "    over |= !isfinite(T%zu_%zu);\n", r, j);
        }
    }
    /* wide.c's forward sweep again in long double: u<i>_<j> */
    out(E, "    if (over && !sing && !kink) {\n    int wok = ADI_WIDE_USEFUL, o[2] = {0, 0};\n    adi_wide wd[2];\n"
           "    (void)o;\n    (void)wd;\n");
    for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < k && E->need[i]; j++) out(E, "    const adi_wide u%zu_%zu = %a;\n", i, j, seeds[i * k + j]);
    for (size_t i = ni + nc; i < t->n; i++) {
        if (!E->need[i]) continue;
        const ad_instr c = t->code[i];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        wide_partials(E, i);
        for (size_t j = 0; j < k; j++) {
            out(E, "    const adi_wide u%zu_%zu = ", i, j);
            if (aa) out(E, "adc_wterm(wd[0], u%" PRId32 "_%zu)", c.a, j);
            else out(E, "0");
            if (ab) out(E, " + adc_wterm(wd[1], u%" PRId32 "_%zu);\n", c.b, j);
            else out(E, " + 0;\n");
        }
    }
    for (size_t r = 0; r < t->nout; r++)
        for (size_t j = 0; j < k && E->act[t->outs[r]]; j++)
            out(E, "    wok = wok && adc_narrow(u%" PRId32 "_%zu, &T%zu_%zu);\n", t->outs[r], j, r, j);
    out(E, "    if (!wok) sing = 1;\n    over = 0;\n    }\n");
    verdict(E);
}

/* reverse.c: adjoints g<i> from the outputs' weights (NULL: unit r) over
 * the activity of diff; the inputs' adjoints into G<i> */
static void reverse(emitter *E, const unsigned char *diff, const double *wout, size_t unit, int checks)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    activity(E, diff, 0);
    out(E, "    {\n    int sing = 0, kink = 0, over = 0;\n    double d[2];\n    int s[2];\n    (void)d;\n    (void)s;\n");
    if (checks) finite_checks(E);
    for (size_t i = 0; i < t->n; i++)
        if (E->need[i]) out(E, "    double g%zu = 0;\n", i);
    for (size_t o = 0; o < t->nout; o++) {
        double w = wout ? wout[o] : o == unit;
        if (w != 0 && E->need[t->outs[o]]) out(E, "    g%" PRId32 " += %a;\n", t->outs[o], w);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        partials(E, i, 1, 0);
        if (!E->need[i]) continue;
        out(E, "    if (g%zu != 0) {\n", i);
        if (E->act[c.a]) out(E, "        g%" PRId32 " += adi_term(d[0], g%zu);\n", c.a, i);
        if (c.b >= 0 && E->act[c.b]) out(E, "        g%" PRId32 " += adi_term(d[1], g%zu);\n", c.b, i);
        out(E, "    }\n");
    }
    /* (an input no derivative goes to, or one no column asks for, is still named) */
    for (size_t i = 0; i < ni; i++) {
        if (E->need[i]) out(E, "    double G%zu = g%zu;\n    over |= !isfinite(G%zu);\n", i, i, i);
        else out(E, "    double G%zu = 0;\n", i);
        out(E, "    (void)G%zu;\n", i);
    }
    /* wide.c's reverse sweep again in long double: adjoints u<i> */
    out(E, "    if (over && !sing && !kink) {\n    int wok = ADI_WIDE_USEFUL, o[2] = {0, 0};\n    adi_wide wd[2];\n"
           "    (void)o;\n    (void)wd;\n");
    for (size_t i = 0; i < t->n; i++)
        if (E->need[i]) out(E, "    adi_wide u%zu = 0;\n", i);
    for (size_t o = 0; o < t->nout; o++) {
        double w = wout ? wout[o] : o == unit;
        if (w != 0 && E->need[t->outs[o]]) out(E, "    u%" PRId32 " += %a;\n", t->outs[o], w);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->need[i]) continue;
        const ad_instr c = t->code[i];
        out(E, "    if (u%zu != 0) {\n", i);
        wide_partials(E, i);
        if (E->act[c.a]) out(E, "    u%" PRId32 " += adc_wterm(wd[0], u%zu);\n", c.a, i);
        if (c.b >= 0 && E->act[c.b]) out(E, "    u%" PRId32 " += adc_wterm(wd[1], u%zu);\n", c.b, i);
        out(E, "    }\n");
    }
    for (size_t i = 0; i < ni; i++)
        if (E->need[i]) out(E, "    wok = wok && adc_narrow(u%zu, &G%zu);\n", i, i);
    out(E, "    if (!wok) sing = 1;\n    over = 0;\n    }\n");
    verdict(E);
}

/* hessian.c's backward pass after forward()'s k tangents t<i>_<j>:
 * adjoints g<i> and their tangents h<i>_<j> of output 0 */
static void second_order(emitter *E, size_t k, ad_policy pol)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    out(E, "    double q[3];\n    unsigned z;\n    sing = kink = over = 0;\n");
    for (size_t i = 0; i < t->n; i++) {
        if (!E->act[i]) continue;
        out(E, "    double g%zu = %s;\n", i, t->nout && (size_t)t->outs[0] == i ? "1" : "0");
        for (size_t j = 0; j < k; j++) out(E, "    double h%zu_%zu = 0;\n", i, j);
    }
    for (size_t i = t->n; i-- > ni + nc;) {
        if (!E->act[i]) continue;
        const ad_instr c = t->code[i];
        const rule_text *r = &rules[c.op];
        int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
        partials(E, i, 0, 0);
        out(E, "    q[0] = ");
        rule(E, r->daa, "v", i);
        out(E, "; q[1] = ");
        rule(E, r->dab, "v", i);
        out(E, "; q[2] = ");
        rule(E, r->dbb, "v", i);
        out(E, ";\n    if (z & 1) q[0] = q[1] = 0;\n    if (z & 2) q[2] = q[1] = 0;\n");
        if (feeds(t, i)) {
            out(E, "    if (");
            if (aa) out(E, "!isfinite(q[0]) || ");
            if (aa && ab) out(E, "!isfinite(q[1]) || ");
            if (ab) out(E, "!isfinite(q[2]) || ");
            out(E, "0) {\n");
            if (pol == AD_ZERO_SUBGRAD)
                out(E, "        if (!isfinite(q[0])) q[0] = 0;\n        if (!isfinite(q[1])) q[1] = 0;\n"
                       "        if (!isfinite(q[2])) q[2] = 0;\n");
            else out(E, "        sing = 1;\n");
            out(E, "    }\n");
        }
        if (aa) {
            out(E, "    g%" PRId32 " += adi_term(d[0], g%zu);\n", c.a, i);
            for (size_t j = 0; j < k; j++) {
                out(E, "    h%" PRId32 "_%zu += adi_term(d[0], h%zu_%zu) + (g%zu != 0 ? g%zu * (adi_term(q[0], t%" PRId32
                       "_%zu) + ", c.a, j, i, j, i, i, c.a, j);
                if (ab) out(E, "adi_term(q[1], t%" PRId32 "_%zu)) : 0);\n", c.b, j);
                else out(E, "0) : 0);\n");
            }
        }
        if (ab) {
            out(E, "    g%" PRId32 " += adi_term(d[1], g%zu);\n", c.b, i);
            for (size_t j = 0; j < k; j++) {
                out(E, "    h%" PRId32 "_%zu += adi_term(d[1], h%zu_%zu) + (g%zu != 0 ? g%zu * (", c.b, j, i, j, i, i);
                if (aa) out(E, "adi_term(q[1], t%" PRId32 "_%zu)", c.a, j);
                else out(E, "0");
                out(E, " + adi_term(q[2], t%" PRId32 "_%zu)) : 0);\n", c.b, j);
            }
        }
    }
    for (size_t i = 0; i < ni; i++) {
        if (!E->act[i]) {
            out(E, "    const double G%zu = 0;\n    (void)G%zu;\n", i, i);
            for (size_t j = 0; j < k; j++) out(E, "    const double H%zu_%zu = 0;\n    (void)H%zu_%zu;\n", i, j, i, j);
            continue;
        }
        out(E, "    const double G%zu = g%zu;\n    over |= !isfinite(G%zu);\n", i, i, i);
        for (size_t j = 0; j < k; j++)
            out(E, "    const double H%zu_%zu = h%zu_%zu;\n    over |= !isfinite(H%zu_%zu);\n", i, j, i, j, i, j);
    }
    verdict(E);
}

/* ---- the engines in adi_derive_here's order, each filling its part of out[] ---- */

static void do_jvp(emitter *E, int first)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    if (p->fwd_jvp) {
        forward(E, p->seeddiff, p->seed, 1, !first, 0);
        for (size_t r = 0; r < L->m; r++) out(E, "    out[%zu] = T%zu_0 + 0.0;\n", r * L->per_out + L->jvp, r);
        out(E, "    }\n");
        return;
    }
    for (size_t r = 0; r < L->m; r++) {
        reverse(E, p->seeddiff, NULL, r, 1);
        out(E, "    double sum = 0;\n");
        for (size_t i = 0; i < p->ni; i++)
            if (p->seeddiff[i]) out(E, "    sum += G%zu * %a;\n", i, p->seed[i]);
        out(E, "    out[%zu] = sum;\n    }\n", r * L->per_out + L->jvp);
    }
}

/* out[at + c] for each column c: the tape input's name<i>, or 0 */
static void columns(emitter *E, size_t at, const char *name)
{
    const ad_plan *p = E->p;
    for (size_t c = 0; c < p->L.ncols; c++) {
        if (p->col_input[c] >= 0) out(E, "    out[%zu] = %s%ld;\n", at + c, name, p->col_input[c]);
        else out(E, "    out[%zu] = 0;\n", at + c);
    }
}

static void do_grad(emitter *E, int first)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    if (p->fwd_grad) {
        forward(E, p->diff, p->unit, p->k, !first, 0);
        for (size_t r = 0; r < L->m; r++)
            for (size_t c = 0, col = 0; c < L->ncols; c++) {
                size_t at = r * L->per_out + L->grad + c;
                if (p->col_input[c] >= 0) out(E, "    out[%zu] = T%zu_%zu;\n", at, r, col++);
                else out(E, "    out[%zu] = 0;\n", at);
            }
        out(E, "    }\n");
        return;
    }
    for (size_t r = 0; r < L->m; r++) {
        reverse(E, p->diff, NULL, r, 1);
        columns(E, r * L->per_out + L->grad, "G");
        out(E, "    }\n");
    }
}

static void do_hessian(emitter *E, int first)
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
            if (in[a] >= 0) out(E, "    out[%zu] = H%ld_0;\n", L->hvp + a, in[a]);
            else out(E, "    out[%zu] = 0;\n", L->hvp + a);
        }
    } else {
        for (size_t a = 0; a < nc; a++)
            for (size_t b = 0, col = 0; b < nc; b++) {
                size_t at = L->hessian + a * nc + b;
                if (in[b] >= 0 && in[a] >= 0) out(E, "    out[%zu] = H%ld_%zu;\n", at, in[a], col);
                else out(E, "    out[%zu] = 0;\n", at);
                if (in[b] >= 0) col++;
            }
    }
    out(E, "    }\n");
}

static void do_vjp(emitter *E)
{
    const ad_plan *p = E->p;
    reverse(E, p->diff, p->weights, 0, 1);
    columns(E, p->L.vjp, "G");
    out(E, "    }\n");
}

/* ---- the file ---- */

/* the name of out[i] for the comment: "value", "d/dx", ... */
static void field_name(emitter *E, size_t i)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    const ad_emit_options *o = E->o;
    size_t nc = L->ncols;
    if (L->vjp != AD_ABSENT && i >= L->vjp) {
        out(E, "w^T J: d/d%s", ad_plan_column(p, i - L->vjp));
        return;
    }
    size_t r = i / L->per_out, f = i % L->per_out;
    if (L->m > 1) {
        const char *src = r < o->noutputs ? o->outputs[r] : "";
        int len = 0;
        while (src[len] && src[len] != '\n' && src[len] != '*' && len < 40) len++;   /* (no end of comment) */
        out(E, "output %zu (%.*s%s): ", r + 1, len, src, src[len] ? "..." : "");
    }
    if (f == 0) out(E, "value");
    else if (L->grad != AD_ABSENT && f >= L->grad && f < L->grad + nc) out(E, "d/d%s", ad_plan_column(p, f - L->grad));
    else if (f == L->jvp) out(E, "J v");
    else if (L->hvp != AD_ABSENT && f >= L->hvp && f < L->hvp + nc) out(E, "H v: d/d%s", ad_plan_column(p, f - L->hvp));
    else if (L->hessian != AD_ABSENT && f >= L->hessian)
        out(E, "d2/d%sd%s", ad_plan_column(p, (f - L->hessian) / nc), ad_plan_column(p, (f - L->hessian) % nc));
}

static void head(emitter *E)
{
    const ad_emit_options *o = E->o;
    const ad_layout *L = &E->p->L;
    out(E, "/* %s.%s - generated by adcalc %s --emit-c: do not edit.\n *\n", o->name, o->header ? "h" : "c",
        o->version);
    for (size_t s = 0; s < o->noutputs; s++) {
        const char *src = o->outputs[s];
        out(E, " * %s ", s ? "  " : "of");
        for (size_t c = 0; src[c] && c < 200; c++) {
            if (src[c] == '\n') out(E, "\n *    ");
            else if ((src[c] == '*' && src[c + 1] == '/') || (src[c] == '/' && src[c + 1] == '*'))
                out(E, "%c ", src[c]);   /* (the comment neither ends nor nests) */
            else fputc(src[c], E->f);
        }
        out(E, "\n");
    }
    out(E, " *\n * int %s(const double *x, double *out) computes at the point x what adcalc\n"
           " * prints for it with the same options, by the same operations in the\n"
           " * same order: the same numbers to the last bit.  x[] holds:\n", o->name);
    for (size_t v = 0; v < o->nvars; v++) out(E, " *   x[%zu]  %s\n", v, o->vars[v]);
    out(E, " * and out[] (%zu numbers, the fields of --format tsv in order):\n", L->width);
    for (size_t i = 0; i < L->width; i++) {
        out(E, " *   out[%zu]  ", i);
        field_name(E, i);
        out(E, "\n");
    }
    out(E, " * It returns 0, or with every out[] NaN:\n"
           " *   %d  a domain error: no real value, a derivative infinite, undefined or\n"
           " *      beyond a double\n"
           " *   %d  a kink (or a tie at a comparison) under --nondiff strict\n"
           " *   %d  the point takes another path through the program's control flow\n"
           " *      than the one written here (adcalc would record that one)\n"
           " * the exit statuses of adcalc for the first two.  The --nondiff policy is %s.\n",
        ST_DOMAIN, ST_NONDIFF, ST_PATH, E->p->pol == AD_ZERO_SUBGRAD ? "zero-subgrad" : "strict");
    out(E, " * Thread-safe: no state.  Build with a C99 compiler without -ffast-math:\n"
           " *   cc -std=c99 -O2 -c %s.c   (link with -lm)\n */\n", o->name);
}

/* the declarations: the whole of --emit-header, and the .c file's own */
static void declarations(emitter *E)
{
    const ad_emit_options *o = E->o;
    out(E, "enum { %s_NX = %zu, %s_NOUT = %zu };\n", o->name, o->nvars, o->name, E->p->L.width);
    out(E, "int %s(const double *x, double *out);\n", o->name);
}

/* what the embedded runtime needs from ops.h, then the runtime, then the
 * policy of one node as the sweeps apply it */
static void runtime(emitter *E)
{
    out(E, "\n#include <float.h>\n#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n");
    if (E->o->with_main) out(E, "#include <stdio.h>\n#include <stdlib.h>\n");
    out(E, "\n/* ---- the runtime: adcalc's own numeric code (vmath, rulefns, special), as the\n"
           " * engine runs it; the same in every emitted file ---- */\n");
    out(E, "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n#pragma clang diagnostic push\n"
           "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n");
    out(E, "enum { ADI_OK = %d, ADI_SINGULAR = %d, ADI_KINK = %d, ADI_SINGULAR_HIGHER = %d, ADI_OVERFLOW = %d,\n"
           "       ADI_OVERFLOW_HIGHER = %d };\n#define ADI_GUARD_FAILED \"another path\"\n",
        ADI_OK, ADI_SINGULAR, ADI_KINK, ADI_SINGULAR_HIGHER, ADI_OVERFLOW, ADI_OVERFLOW_HIGHER);
    for (size_t i = 0; adi_emit_runtime[i]; i++) fputs(adi_emit_runtime[i], E->f);
    out(E, "/* node partials d[] with statuses s[] as the sweeps take them: a partial\n"
           " * that is not finite where ops.def names no point is singular, or beyond\n"
           " * a double where the op has a wide rule (wide; sweep: then left to the\n"
           " * overflow check); then the --nondiff policy at the differentiated\n"
           " * operands (aa, ab): a tie that is no kink (tie 0) passes, zero-subgrad\n"
           " * takes the partial as 0 (the bits of those returned), strict notes it\n"
           " * (adcalc's policy.c) */\n"
           "#if defined(__GNUC__)\n#define ADC_INLINE static inline __attribute__((always_inline))\n#else\n"
           "#define ADC_INLINE static inline\n#endif\n"
           "ADC_INLINE unsigned adc_point(double d[2], int s[2], int aa, int ab, int wide, int tie, int sweep, int zero_subgrad,\n"
           "                      int *sing, int *kink)\n{\n"
           "    unsigned zero = 0;\n"
           "    for (int j = 0; j < 2; j++) {\n"
           "        if (!isfinite(d[j]) && s[j] == ADI_OK) s[j] = wide && isinf(d[j]) ? ADI_OVERFLOW : ADI_SINGULAR;\n"
           "        if (sweep && s[j] == ADI_OVERFLOW) s[j] = ADI_OK;\n"
           "    }\n"
           "    for (int j = 0; j < 2; j++) {\n"
           "        if (!(j ? ab : aa) || s[j] == ADI_OK || (s[j] == ADI_KINK && !tie)) continue;\n"
           "        if (s[j] == ADI_OVERFLOW) *sing = 1;\n"
           "        else if (zero_subgrad) zero |= 1u << j, d[j] = 0;\n"
           "        else if (s[j] == ADI_KINK) *kink = 1;\n"
           "        else *sing = 1;\n"
           "    }\n    return zero;\n}\n\n"
           "/* wide.c's chain-rule term in long double, and the rounding back to a\n"
           " * double of a derivative that fits one (0 where it does not) */\n"
           "ADC_INLINE adi_wide adc_wterm(adi_wide p, adi_wide x) { return (p == 0 || x == 0) ? 0 : p * x; }\n"
           "ADC_INLINE int adc_narrow(adi_wide x, double *y)\n{\n"
           "    if (!(x == x) || x > DBL_MAX || x < -DBL_MAX) return 0;\n"
           "    *y = (double)x;\n    return 1;\n}\n\n");
    out(E, "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n"
           "#define FAIL(status) do { st = (status); goto fail; } while (0)\n"
           "/* ---- the end of the runtime ---- */\n\n");
}

static void function(emitter *E)
{
    const ad_plan *p = E->p;
    const ad_layout *L = &p->L;
    const ad_tape *t = E->t;
    int hess = L->hvp != AD_ABSENT || L->hessian != AD_ABSENT;
    /* the first engine: when it is forward, its overflow checks come with the values */
    const unsigned char *fdiff = L->jvp != AD_ABSENT ? (p->fwd_jvp ? p->seeddiff : NULL)
                                 : hess ? p->bothdiff : L->grad != AD_ABSENT && p->fwd_grad ? p->diff : NULL;
    if (fdiff) activity(E, fdiff, 0);
    out(E, "int %s(const double *x, double *out)\n{\n    int st = 0;\n", E->o->name);
    if (t->ninputs == 0) out(E, "    (void)x;\n");
    values(E, fdiff != NULL);
    int first = 1;
    if (L->jvp != AD_ABSENT) do_jvp(E, first), first = 0;
    if (hess) do_hessian(E, first), first = 0;
    else if (L->grad != AD_ABSENT) do_grad(E, first), first = 0;
    if (L->vjp != AD_ABSENT) do_vjp(E);
    for (size_t r = 0; r < L->m; r++) out(E, "    out[%zu] = v%" PRId32 ";\n", r * L->per_out, t->outs[r]);
    if (!E->fails) {
        out(E, "    return st;\n}\n");
        return;
    }
    out(E, "    return 0;\nfail:\n    for (size_t i = 0; i < %zu; i++) out[i] = NAN;\n    return st;\n}\n", L->width);
}

/* --emit-c=main: points from stdin, rows to stdout */
static void main_program(emitter *E)
{
    const char *f = E->o->name;
    size_t nx = E->o->nvars, w = E->p->L.width;
    out(E, "\n/* reads a point per line of stdin (%zu numbers: x[0] ...), writes its out[]\n"
           " * on a line (%%.17g, tab-separated; nan after a failure, which stderr\n"
           " * names); blank lines are skipped.  Exit status: 0, the first failure's\n"
           " * status, 2 for a line that is not %zu numbers, 5 for a read or write error */\n", nx, nx);
    out(E, "int main(void)\n{\n"
           "    double adc_x[%zu], adc_y[%zu];\n"
           "    char *adc_line = NULL;\n"
           "    size_t adc_cap = 0, adc_len = 0;\n"
           "    unsigned long adc_lineno = 0;\n"
           "    int adc_status = 0, adc_c;\n"
           "    for (;;) {\n"
           "        adc_c = getchar();\n"
           "        if (adc_c != EOF && adc_c != '\\n') {\n"
           "            if (adc_len + 1 >= adc_cap) {\n"
           "                char *adc_l = adc_cap > ((size_t)-1) / 4 ? NULL : realloc(adc_line, adc_cap ? 2 * adc_cap : 256);\n"
           "                if (!adc_l) { fprintf(stderr, \"%s: out of memory\\n\"); free(adc_line); return 5; }\n"
           "                adc_line = adc_l;\n"
           "                adc_cap = adc_cap ? 2 * adc_cap : 256;\n"
           "            }\n"
           "            adc_line[adc_len++] = (char)adc_c;\n"
           "            continue;\n"
           "        }\n"
           "        if (adc_c == EOF && adc_len == 0) break;\n"
           "        adc_lineno++;\n"
           "        if (!adc_line) adc_line = malloc(adc_cap = 256);\n"
           "        if (!adc_line) { fprintf(stderr, \"%s: out of memory\\n\"); return 5; }\n"
           "        adc_line[adc_len] = 0;\n"
           "        adc_len = 0;\n"
           "        char *adc_p = adc_line, *adc_e;\n"
           "        size_t adc_n = 0;\n"
           "        while (*adc_p == ' ' || *adc_p == '\\t' || *adc_p == '\\r') adc_p++;\n"
           "        if (!*adc_p) { if (adc_c == EOF) break; continue; }\n"
           "        for (;;) {\n"
           "            while (*adc_p == ' ' || *adc_p == '\\t' || *adc_p == '\\r') adc_p++;\n"
           "            if (!*adc_p) break;\n"
           "            double adc_v = strtod(adc_p, &adc_e);\n"
           "            if (adc_e == adc_p || adc_n == %zu) { adc_n = %zu + 1; break; }\n"
           "            adc_x[adc_n++] = adc_v;\n"
           "            adc_p = adc_e;\n"
           "        }\n"
           "        if (adc_n != %zu) {\n"
           "            fprintf(stderr, \"%s: line %%lu: expected %zu numbers\\n\", adc_lineno);\n"
           "            free(adc_line);\n"
           "            return 2;\n"
           "        }\n"
           "        int adc_st = %s(adc_x, adc_y);\n"
           "        if (adc_st) {\n"
           "            fprintf(stderr, \"%s: line %%lu: %%s\\n\", adc_lineno, adc_st == %d ? \"domain error\" : adc_st == %d ?\n"
           "                    \"not differentiable (a kink)\" : \"the point takes another path\");\n"
           "            if (!adc_status) adc_status = adc_st;\n"
           "        }\n"
           "        for (size_t adc_i = 0; adc_i < %zu; adc_i++) printf(\"%%s%%.17g\", adc_i ? \"\\t\" : \"\", adc_y[adc_i]);\n"
           "        putchar('\\n');\n"
           "        if (adc_c == EOF) break;\n"
           "    }\n"
           "    free(adc_line);\n"
           "    if (ferror(stdin)) { fprintf(stderr, \"%s: read error\\n\"); return 5; }\n"
           "    if (fflush(stdout) != 0 || ferror(stdout)) { fprintf(stderr, \"%s: write error\\n\"); return 5; }\n"
           "    return adc_status;\n}\n",
        nx ? nx : 1, w ? w : 1, f, f, nx, nx, nx, f, nx, f, f, ST_DOMAIN, ST_NONDIFF, w, f, f);
}

int ad_emit_c(FILE *f, const ad_plan *p, const ad_emit_options *o)
{
    const ad_tape *t = p->t;
    emitter E = {f, p, t, o, adi_malloc(t->n ? t->n : 1), adi_malloc(t->n ? t->n : 1), 0};
    int rc = -2;
    if (E.act && E.need) {
        head(&E);
        if (o->header) {
            out(&E, "#ifndef %s_H\n#define %s_H\n\n", o->name, o->name);
            declarations(&E);
            out(&E, "\n#endif\n");
        } else {
            runtime(&E);
            declarations(&E);
            out(&E, "\n");
            function(&E);
            if (o->with_main) main_program(&E);
        }
        rc = fflush(f) != 0 || ferror(f) ? -1 : 0;
    }
    free(E.act);
    free(E.need);
    return rc;
}
