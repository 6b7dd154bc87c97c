/* emit_block.c - the C file --jit compiles (ad_emit_block_c): the block
 * replay of batch mode (block_sweep.c) written out for one plan's tape.
 *
 * block_sweep.c dispatches each instruction once per block and runs its
 * rule over the block's points; between instructions every value goes
 * through memory.  Here the tape is unrolled instead, point after point,
 * so that a compiler keeps the values in registers.  What is computed is
 * what the block computes, in the same order with the same expressions
 * (ops.def's rules as text, the runtime of emit.c):
 *   - every node's value, and a flag where the block flags one: a value
 *     beyond a double on a differentiated path (any nan elsewhere; only
 *     where adi_block_checks says), a domain error, a guard's tie;
 *   - per output, the reverse sweep with the plain product as the
 *     chain-rule term, each input adjoint's first contribution 0 + term
 *     (chain_term says why the others need not be), and the partials'
 *     statuses (kinks, singular points) as flags;
 *   - a flag for an input adjoint that is nan or infinite.
 * Where no lane loop follows the forward sweep, an input's adjoint is
 * stored into the rows once its last term is in, not kept to the end of
 * the sweep (stores_early); long rows are fetched ahead.
 * A flagged point is recomputed by the scalar engines, as after the
 * block; every other point gets the block's numbers, which are the scalar
 * engines' to the bit.  Which adjoint is written first is known here,
 * when the code is written, not while it runs. */
#include <inttypes.h>
#include <string.h>
#include "emit.h"
#include "block.h"
#include "alloc.h"

/* The points of a block go through the code `width` at a time, as the
 * lanes of GCC's vector types (gcc and clang): a rule that is plain
 * arithmetic of its operands (pure) is written once for all lanes, any
 * other (a call, a comparison, a choice) lane by lane. */

/* 1 when rule text s is only numbers, + - * / ( ) and the operands a, b, v */
static int pure(const char *s)
{
    for (const char *q = s; *q; q++) {
        if ((*q >= '0' && *q <= '9') || *q == '.') {
            while ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E') q++;
            q--;
        } else if ((*q == 'a' || *q == 'b' || *q == 'v') &&
                   !(q[1] == '_' || (q[1] >= 'a' && q[1] <= 'z') || (q[1] >= 'A' && q[1] <= 'Z') || (q[1] >= '0' && q[1] <= '9'))) {
            if (q > s && (q[-1] == '_' || (q[-1] >= 'a' && q[-1] <= 'z') || (q[-1] >= 'A' && q[-1] <= 'Z'))) return 0;
        } else if (!strchr(" +-*/()", *q)) {
            return 0;
        }
    }
    return 1;
}

/* When rule text s is a choice between a failure and none, "(C ? X :
 * NULL)" or "(C ? X : ADI_OK)" with C plain arithmetic and comparisons,
 * copies C into cond (size n) and returns 1: the failure's lanes are C's */
static int choice(const char *s, char *cond, size_t n)
{
    size_t len = strlen(s);
    const char *q = strstr(s, " ? "), *colon = q ? strstr(q, " : ") : NULL;
    if (s[0] != '(' || !colon || s[len - 1] != ')' || (size_t)(q - s) >= n) return 0;
    if (strcmp(colon, " : NULL)") != 0 && strcmp(colon, " : ADI_OK)") != 0) return 0;
    memcpy(cond, s + 1, (size_t)(q - s - 1));
    cond[q - s - 1] = 0;
    char plain[256];
    size_t k = 0;
    for (const char *c = cond; *c && k + 1 < sizeof plain; c++)   /* (the comparisons as operators) */
        plain[k++] = strchr("<>=!", *c) ? '+' : *c;
    plain[k] = 0;
    return strchr(cond, '(') == NULL && pure(plain);
}

/* 1 when a lane loop whose body is rule text s is marked `omp simd`
 * (jit.c compiles with -fopenmp-simd): adcalc's exp.  GCC's cost model
 * leaves a loop over adi_exp scalar (its table loads would be gathers);
 * marked, it is vectorised, with the same bits (vmath.h is written for
 * that).  Measured in process against the analytic gradients, 5 rounds
 * interleaved: F4 1.07x -> 0.76x, F3 0.54x -> 0.43x.  Marking the loops
 * of sin, cos, sqrt and erf as well made F3 slower (0.75x). */
static int simd_mark(const char *s)
{
    return s && strstr(s, "adi_exp(") != NULL;
}

/* a loop over the lanes binding node i's operands (and its value, when
 * it has one yet: value) as doubles s<k>, opened: the vectors go through
 * arrays, which the vectoriser takes where it can (a vector's element in
 * a loop it does not).  The body, rule text body (NULL: a flag's test),
 * writes r_[l] (a result) or f_[l] (a flag); lanes_end puts them into the
 * vector to or into bad. */
static void lanes(adi_emitter *E, size_t i, int value, const char *body)
{
    const ad_instr c = E->t->code[i];
    adi_emit_out(E, "        {\n            double r_[ADC_W], a_[ADC_W], b_[ADC_W], v_[ADC_W];\n"
                    "            long long f_[ADC_W] = {0};\n            memcpy(a_, &v%" PRId32 ", sizeof a_);\n", c.a);
    if (c.b >= 0 && c.b != c.a) adi_emit_out(E, "            memcpy(b_, &v%" PRId32 ", sizeof b_);\n", c.b);
    if (value) adi_emit_out(E, "            memcpy(v_, &v%zu, sizeof v_);\n", i);
    if (simd_mark(body)) adi_emit_out(E, "#pragma omp simd\n");
    adi_emit_out(E, "            for (int l = 0; l < ADC_W; l++) {\n                const double s%" PRId32 " = a_[l];\n", c.a);
    if (c.b >= 0 && c.b != c.a) adi_emit_out(E, "                const double s%" PRId32 " = b_[l];\n", c.b);
    if (value) adi_emit_out(E, "                const double s%zu = v_[l];\n", i);
}

/* closes lanes(): r_ into the vector named to<n>, or (to NULL) f_ into bad */
static void lanes_end(adi_emitter *E, const char *to, size_t n)
{
    if (to) adi_emit_out(E, "            }\n            memcpy(&%s%zu, r_, sizeof r_);\n        }\n", to, n);
    else adi_emit_out(E, "            }\n            adc_vi f;\n            memcpy(&f, f_, sizeof f);\n            bad |= f;\n        }\n");
}

/* 1 when node i's statuses are vector comparisons, copied into cond
 * (an empty one: none), 0 when they go lane by lane */
static int status_vec(adi_emitter *E, size_t i, char cond[2][128])
{
    const ad_instr c = E->t->code[i];
    const adi_rule_text *r = &adi_emit_rules[c.op];
    int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b], vec = 1;
    for (int k = 0; k < 2; k++)
        if ((k ? ab : aa) && strcmp(k ? r->sb : r->sa, "ADI_OK") != 0) vec &= choice(k ? r->sb : r->sa, cond[k], 128);
        else cond[k][0] = 0;
    return vec;
}

/* node i's flags from the statuses of its partials at the active
 * operands (the block's stat kernel) */
static void status_flags(adi_emitter *E, size_t i)
{
    const ad_instr c = E->t->code[i];
    const adi_rule_text *r = &adi_emit_rules[c.op];
    int aa = E->act[c.a], ab = c.b >= 0 && E->act[c.b];
    if (!adi_op_has_status(c.op) || (!aa && !ab)) return;
    char cond[2][128];
    if (status_vec(E, i, cond)) {
        for (int k = 0; k < 2; k++) {
            if (!cond[k][0]) continue;
            adi_emit_out(E, "        bad |= (adc_vi)(");
            adi_emit_rule(E, cond[k], "v", i);
            adi_emit_out(E, ");\n");
        }
        return;
    }
    lanes(E, i, !adi_op_is_guard(c.op), NULL);
    adi_emit_out(E, "                f_[l] |= 0");
    for (int k = 0; k < 2; k++) {
        if (!(k ? ab : aa)) continue;
        adi_emit_out(E, " | ((");
        adi_emit_rule(E, k ? r->sb : r->sa, "s", i);
        adi_emit_out(E, ") != ADI_OK)");
    }
    adi_emit_out(E, ";\n");
    lanes_end(E, NULL, 0);
}

/* the flag of a value or adjoint beyond lim: !(|x| <= lim), nan included */
static void bound(adi_emitter *E, const char *x, size_t i, const char *lim)
{
    adi_emit_out(E, "        bad |= (adc_vi)~(adc_abs(%s%zu) <= ADC_SPLAT(%s));\n", x, i, lim);
}

/* the forward sweep: inputs, constants, and every node's value and flags */
static void values(adi_emitter *E, const unsigned char *chk)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, nc = t->nconsts;
    for (size_t i = 0; i < ni; i++)
        adi_emit_out(E, "        adc_vd v%zu;\n        if (xcol[%zu] >= 0) v%zu = ADC_LOAD(xcol[%zu]);\n"
                        "        else v%zu = ADC_SPLAT(fixed[%zu]);\n", i, i, i, i, i, i);
    for (size_t i = ni; i < ni + nc; i++)
        adi_emit_out(E, "        const adc_vd v%zu = ADC_SPLAT(adc_k[%zu]);\n", i, i - ni);
    for (size_t i = ni + nc; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const adi_rule_text *r = &adi_emit_rules[c.op];
        int guard = adi_op_is_guard(c.op);
        if (guard) {
            /* its value (0) feeds nothing: only its test */
        } else if (pure(r->val)) {
            adi_emit_out(E, "        const adc_vd v%zu = ", i);
            adi_emit_rule(E, r->val, "v", i);
            adi_emit_out(E, ";\n");
        } else {
            adi_emit_out(E, "        adc_vd v%zu;\n", i);
            lanes(E, i, 0, r->val);
            adi_emit_out(E, "                r_[l] = ");
            adi_emit_rule(E, r->val, "s", i);
            adi_emit_out(E, ";\n");
            lanes_end(E, "v", i);
        }
        if (chk[i] && !guard) bound(E, "v", i, E->act[i] ? "DBL_MAX" : "INFINITY");
        char cond[128];
        if (!adi_is_null_literal(r->dom) && choice(r->dom, cond, sizeof cond)) {
            adi_emit_out(E, "        bad |= (adc_vi)(");
            adi_emit_rule(E, cond, "v", i);
            adi_emit_out(E, ");\n");
        } else if (!adi_is_null_literal(r->dom)) {
            lanes(E, i, 0, NULL);
            adi_emit_out(E, "                f_[l] |= (");
            adi_emit_rule(E, r->dom, "s", i);
            adi_emit_out(E, ") != NULL;\n");
            lanes_end(E, NULL, 0);
        }
        if (E->act[i] && guard) status_flags(E, i);
    }
}

/* one chain-rule term into operand o (slot k) of node i: g<o> = p * g<i>
 * when first, else g<o> += p * g<i>, p the partial (text s); one not
 * plain arithmetic is computed lane by lane into p<o>_<i>_<k>.
 *
 * The block starts every adjoint at 0 + term; here only an input's does.
 * 0 + t differs from t only when t is -0, and a zero's sign changes no
 * nonzero number downstream (p * +-0 is a zero, y + +-0 is y), nor a nan
 * (inf * +-0 is the same nan): what it can change is the sign of a zero
 * adjoint further down.  An input's adjoint is a sum from 0 + its first
 * term, and a sum that starts at +0 is +0 whenever it is zero, whatever
 * the signs of its zero terms: so the input's adjoints, which are all that
 * is written, are the block's to the bit, with one add each where the
 * block has one per node. */
/* node i's partial in operand slot k (operand o, rule text s) as a
 * vector: the rule itself when plain arithmetic, else chain_term's
 * p<o>_<k>_<i> */
static void partial_vec(adi_emitter *E, size_t i, int k, int32_t o, const char *s)
{
    if (pure(s)) {
        adi_emit_out(E, "(");
        adi_emit_rule(E, s, "v", i);
        adi_emit_out(E, ")");
    } else {
        adi_emit_out(E, "p%" PRId32 "_%d_%zu", o, k, i);
    }
}

static void chain_term(adi_emitter *E, size_t i, int k, int32_t o, const char *s, int first)
{
    if (!pure(s)) {
        char to[32];
        snprintf(to, sizeof to, "p%" PRId32 "_%d_", o, k);
        adi_emit_out(E, "        adc_vd %s%zu;\n", to, i);
        lanes(E, i, 1, s);
        adi_emit_out(E, "                r_[l] = ");
        adi_emit_rule(E, s, "s", i);
        adi_emit_out(E, ";\n");
        lanes_end(E, to, i);
    }
    if (!first) adi_emit_out(E, "        g%" PRId32 " += ", o);
    else adi_emit_out(E, (size_t)o < E->t->ninputs ? "        adc_vd g%" PRId32 " = 0.0 + " : "        adc_vd g%" PRId32 " = ", o);
    partial_vec(E, i, k, o, s);
    adi_emit_out(E, " * g%zu;\n", i);
    /* a partial with a WIDE rule below DBL_MIN may have underflowed (the
     * block's under kernel): the flag takes the point to the scalar
     * engines, which decide (ops.c) and redo it in long double where it
     * did; where it did not (0/x's d/dx), they give the block's bits */
    if (adi_op_wide_slots((int)E->t->code[i].op) >> k & 1) {
        adi_emit_out(E, "        bad |= (adc_vi)(adc_abs(");
        partial_vec(E, i, k, o, s);
        adi_emit_out(E, ") < ADC_SPLAT(DBL_MIN));\n");
    }
}

/* vector e's lanes into the points' rows at number `at` (ADC_STORE: a
 * full block's lanes without a loop) */
static void store(adi_emitter *E, size_t at, const char *e)
{
    adi_emit_out(E, "        ADC_STORE(%zu, %s);\n", at, e);
}

/* input i's adjoint, complete: its flag when nan or infinite, and (early)
 * its stores into the row section from base, at each of its columns */
static void complete(adi_emitter *E, size_t i, size_t base, const long *col, const long *next, int early)
{
    char e[32];
    bound(E, "g", i, "DBL_MAX");
    snprintf(e, sizeof e, "g%zu", i);
    for (long k = col[i]; early && k >= 0; k = next[k]) store(E, base + (size_t)k, e);
}

/* the reverse sweep of output r and the stores of its row section.
 * set[] (t->n): scratch, 1 where an adjoint has been written, 2 once an
 * input's is complete (checked, and stored when early).  For an input i:
 * last[i], the first node that reads it, whose term is the last its
 * adjoint gets; col[i], its first column or -1; next[k], its column after
 * column k or -1.  An input's adjoint is checked as soon as it is
 * complete, and stored then when early (stores_early), else the row is
 * written at the end. */
static void reverse(adi_emitter *E, size_t r, size_t per, int grad, unsigned char *set, const size_t *last,
                    const long *col, const long *next, int early)
{
    const ad_tape *t = E->t;
    size_t ni = t->ninputs, first = ni + t->nconsts, out = (size_t)t->outs[r], base = r * per + 1;
    char e[32];
    memset(set, 0, t->n);
    adi_emit_out(E, "        {\n");
    snprintf(e, sizeof e, "v%zu", out);
    if (early) store(E, r * per, e);
    if (grad && E->act[out]) {
        adi_emit_out(E, "        const adc_vd g%zu = ADC_SPLAT(1.0);\n", out);
        set[out] = 1;
        for (size_t i = t->n; i-- > first;) {
            if (!E->act[i]) continue;
            const ad_instr c = t->code[i];
            const adi_rule_text *rt = &adi_emit_rules[c.op];
            if (!adi_op_is_guard(c.op)) status_flags(E, i);
            if (!set[i]) continue;   /* its adjoint is 0: it passes nothing on */
            for (int k = 0; k < 2; k++) {
                int32_t o = k ? c.b : c.a;
                if (o < 0 || !E->act[o]) continue;
                chain_term(E, i, k, o, k ? rt->db : rt->da, !set[o]);
                set[o] = 1;
            }
            for (int k = 0; k < 2; k++) {
                int32_t o = k ? c.b : c.a;
                if (o < 0 || (size_t)o >= ni || set[o] != 1 || last[o] != i) continue;
                complete(E, (size_t)o, base, col, next, early);
                set[o] = 2;
            }
        }
        /* (an input whose first reader passed it nothing) */
        for (size_t i = 0; i < ni; i++)
            if (E->act[i] && set[i] == 1) {
                complete(E, i, base, col, next, early);
                set[i] = 2;
            }
    }
    if (early) {
        for (size_t k = 0; grad && k < E->p->L.ncols; k++) {
            long in = E->p->col_input[k];
            if (in < 0 || set[in] != 2) store(E, base + k, "ADC_SPLAT(0.0)");
        }
        adi_emit_out(E, "        }\n");
        return;
    }
    adi_emit_out(E, "        for (int l = 0; l < nl; l++) {\n            double *o = out + (j + l) * stride;\n"
                    "            o[%zu] = v%zu[l];\n", r * per, out);
    for (size_t k = 0; grad && k < E->p->L.ncols; k++) {
        long in = E->p->col_input[k];
        if (in >= 0 && set[in] == 2) adi_emit_out(E, "            o[%zu] = g%ld[l];\n", base + k, in);
        else adi_emit_out(E, "            o[%zu] = 0.0;\n", base + k);
    }
    adi_emit_out(E, "        }\n        }\n");
}

/* 1 when no lane loop follows the forward sweep (the reverse sweep's
 * partials and statuses are plain arithmetic): then an input's adjoint is
 * stored as soon as it is complete (F5 in process, points in L2: 0.89x
 * the hand-written gradient where the stores at the end gave 0.98x).  A
 * store before a lane loop kept GCC from vectorising the loop (F1: 6.2 ns
 * a point became 15.5), so otherwise the row is written lane by lane at
 * the end. */
static int stores_early(adi_emitter *E)
{
    const ad_tape *t = E->t;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        const adi_rule_text *r = &adi_emit_rules[c.op];
        char cond[2][128];
        if (!E->act[i]) continue;
        if (adi_op_has_status(c.op) && !status_vec(E, i, cond)) return 0;
        if ((E->act[c.a] && !pure(r->da)) || (c.b >= 0 && E->act[c.b] && !pure(r->db))) return 0;
    }
    return 1;
}

void adi_emit_block(adi_emitter *E, int width)
{
    const ad_tape *t = E->t;
    const ad_plan *p = E->p;
    int grad = p->L.grad != AD_ABSENT;
    size_t per = 1 + (grad ? p->L.ncols : 0);
    size_t ni = t->ninputs, nc = p->L.ncols;
    unsigned char *chk = E->need, *set = adi_malloc(t->n ? t->n : 1);
    size_t *last = adi_malloc((ni ? ni : 1) * sizeof *last);
    long *col = adi_malloc((ni ? ni : 1) * sizeof *col), *next = adi_malloc((nc ? nc : 1) * sizeof *next);
    if (!set || !last || !col || !next) {
        E->fails = -1;
        goto done;
    }
    for (size_t i = 0; i < ni; i++) last[i] = SIZE_MAX, col[i] = -1;
    for (size_t i = t->n; i-- > ni + t->nconsts;) {
        const ad_instr c = t->code[i];
        if ((size_t)c.a < ni) last[c.a] = i;
        if (c.b >= 0 && (size_t)c.b < ni) last[c.b] = i;
    }
    for (size_t k = nc; k-- > 0;) {
        long in = p->col_input[k];
        next[k] = in >= 0 ? col[in] : -1;
        if (in >= 0) col[in] = (long)k;
    }
    /* the block's activity: the differentiated inputs, when a gradient is asked */
    for (size_t i = 0; i < t->n; i++) {
        const ad_instr c = t->code[i];
        E->act[i] = i < t->ninputs ? grad && p->diff[i]
                    : i < t->ninputs + t->nconsts ? 0
                                                  : (E->act[c.a] || (c.b >= 0 && E->act[c.b]));
    }
    adi_block_checks(t, chk);
    adi_emit_out(E, "/* the lanes: %d points at a time */\n#define ADC_W %d\n"
                    "typedef double adc_vd __attribute__((vector_size(%d)));\n"
                    "typedef long long adc_vi __attribute__((vector_size(%d)));\n"
                    "typedef unsigned long long adc_vu __attribute__((vector_size(%d)));\n",
                 width, width, 8 * width, 8 * width, 8 * width);
    adi_emit_out(E, "#define ADC_SPLAT(c) ((adc_vd){(c)");
    for (int l = 1; l < width; l++) adi_emit_out(E, ", (c)");
    adi_emit_out(E, "})\n#define ADC_LOAD(c) ((adc_vd){rw[0][c]");
    for (int l = 1; l < width; l++) adi_emit_out(E, ", rw[%d][c]", l);
    adi_emit_out(E, "})\n");
    adi_emit_out(E, "#define ADC_STORE(k, e) do { const adc_vd e_ = (e); \\\n"
                    "        if (nl == ADC_W) { ");
    for (int l = 0; l < width; l++) adi_emit_out(E, "out[(j + %d) * stride + (k)] = e_[%d]; ", l, l);
    adi_emit_out(E, "} \\\n        else for (int l = 0; l < nl; l++) out[(j + l) * stride + (k)] = e_[l]; } while (0)\n"
                    "static inline adc_vd adc_abs(adc_vd x) { return (adc_vd)((adc_vu)x & 0x7fffffffffffffffull); }\n"
                    "/* sin and cos as the block takes them: nan beyond the range of the\n"
                    " * argument reduction, which flags the point (block_sweep.c) */\n"
                    "static inline double adc_bsin(double x) { return adi_trig_ok(x) ? adi_sin_core(x) : NAN; }\n"
                    "static inline double adc_bcos(double x) { return adi_trig_ok(x) ? adi_cos_core(x) : NAN; }\n"
                    "#define adi_sin adc_bsin\n#define adi_cos adc_bcos\n\n");
    /* the constants, where the compiler cannot see them: a call with a
     * constant argument would be evaluated while compiling (GCC folds
     * pow(x, -1) into 1/x, sinh(1.3) with MPFR), the last bit not always
     * the C library's that the interpreter calls */
    adi_emit_out(E, "double adc_k[%zu] = {", t->nconsts ? t->nconsts : 1);
    for (size_t k = 0; k < t->nconsts; k++) {
        double v = t->cval[k];
        adi_emit_out(E, k == 0 ? "\n    " : k % 4 ? ", " : ",\n    ");
        if (isnan(v)) adi_emit_out(E, "NAN");
        else if (isinf(v)) adi_emit_out(E, "%sHUGE_VAL", v < 0 ? "-" : "");
        else adi_emit_out(E, "%a", v);
    }
    adi_emit_out(E, "%s};\n\n", t->nconsts ? "\n" : "0");
    adi_emit_out(E, "int %s(size_t np, const double *restrict x, size_t xstride, const long *restrict xcol,\n"
                    "        const double *restrict fixed, double *restrict out, size_t stride,\n"
                    "        unsigned char *restrict flags)\n{\n"
                    "    for (size_t j = 0; j < np; j += ADC_W) {\n"
                    "        const int nl = np - j < ADC_W ? (int)(np - j) : ADC_W;\n"
                    "        const double *rw[ADC_W];\n"
                    "        for (int l = 0; l < ADC_W; l++) rw[l] = x + (j + (l < nl ? l : 0)) * xstride;\n"
                    "        adc_vi bad = {0};\n",
                 E->o->name);
    /* output rows of 16 numbers or more (F5: 100 in, 101 out): the next
     * block's input rows, read while these are computed, and the rows this
     * block writes, taken for writing before its stores (F5 in process,
     * 41 rounds: 1.2-1.4x the hand-written gradient where prefetching two
     * blocks ahead gave 1.3-1.5x; F1-F3's short rows only lost by it) */
    if (p->L.width >= 16)
        adi_emit_out(E, "        if (j + 2 * ADC_W <= np)\n"
                        "            for (size_t m = 0; m < ADC_W * xstride; m += 8) __builtin_prefetch(x + (j + ADC_W) * xstride + m);\n"
                        "        for (size_t m = 0; m < (size_t)nl * stride; m += 8) __builtin_prefetch(out + j * stride + m, 1);\n");
    values(E, chk);
    int early = stores_early(E);
    for (size_t r = 0; r < t->nout; r++) reverse(E, r, per, grad, set, last, col, next, early);
    adi_emit_out(E, "        for (int l = 0; l < nl; l++) flags[j + l] = bad[l] != 0;\n    }\n    return 0;\n}\n");
done:
    free(set);
    free(last);
    free(col);
    free(next);
}

/* the file of ad_emit_block_c, its runtime as the runtime's checksum
 * when runtime_sum (ad_emit_block_key) */
static int block_file(FILE *f, const ad_plan *p, const char *name, int width, int runtime_sum)
{
    const ad_tape *t = p->t;
    ad_emit_options o = {0};
    o.name = name;
    adi_emitter E = {f, p, t, &o, adi_malloc(t->n ? t->n : 1), adi_malloc(t->n ? t->n : 1), 0, runtime_sum};
    int rc = -2;
    if (E.act && E.need) {
        adi_emit_out(&E, "/* %s.c - adcalc's batch replay of one tape, written by --jit for the\n"
                         " * C compiler */\n", name);
        adi_emit_runtime_text(&E);
        adi_emit_block(&E, width == 4 ? 4 : 2);
        rc = E.fails < 0 ? -2 : fflush(f) != 0 || ferror(f) ? -1 : 0;
    }
    free(E.act);
    free(E.need);
    return rc;
}

int ad_emit_block_c(FILE *f, const ad_plan *p, const char *name, int width)
{
    return block_file(f, p, name, width, 0);
}

int ad_emit_block_key(FILE *f, const ad_plan *p, const char *name, int width)
{
    return block_file(f, p, name, width, 1);
}
