/* eval.c - the workspace, the primal forward sweep (values only) and the
 * wording of evaluation errors. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "numfmt.h"
#include "alloc.h"

ad_work *ad_work_new(void)
{
    ad_work *w = adi_malloc(sizeof *w);
    if (w) memset(w, 0, sizeof *w);
    return w;
}

void ad_work_free(ad_work *w)
{
    if (!w) return;
    free(w->val);
    free(w->adj);
    free(w->tan);
    free(w->act);
    free(w->tadj);
    free(w->scratch);
    adi_paths_free(w->paths);
    free(w);
}

double *adi_work_scratch(ad_work *w, size_t n)
{
    if (adi_grow((void **)&w->scratch, &w->scratchcap, n ? n : 1, sizeof *w->scratch) < 0) return NULL;
    return w->scratch;
}


int adi_work_reserve(ad_work *w, size_t n, size_t k, int need_adj)
{
    if (adi_grow((void **)&w->val, &w->valcap, n, sizeof *w->val) < 0 ||
        adi_grow((void **)&w->act, &w->actcap, n, sizeof *w->act) < 0)
        return -1;
    if (need_adj && adi_grow((void **)&w->adj, &w->adjcap, n, sizeof *w->adj) < 0) return -1;
    if (k > 0) {
        if (n > SIZE_MAX / k) return -1;
        if (adi_grow((void **)&w->tan, &w->tancap, n * k, sizeof *w->tan) < 0) return -1;
    }
    return 0;
}

ad_errclass adi_err_nomem(ad_diag *d)
{
    return ad_diag_set(d, AD_E_IO, 0, 0, "out of memory");
}

/* "log(-1)" or "1 / 0": the operation at node i with its operand values */
static void describe(const ad_tape *t, const ad_work *w, size_t i, char *buf, size_t n)
{
    const ad_instr *c = &t->code[i];
    char A[32] = "", B[32] = "";
    if (c->a >= 0) adi_fmt_double(A, sizeof A, w->val[c->a]);
    if (c->b >= 0) adi_fmt_double(B, sizeof B, w->val[c->b]);
    adi_synopsis(buf, n, (int)c->op, A, B);
}

ad_errclass adi_err_domain(const ad_tape *t, const ad_work *w, size_t i, const char *why, ad_diag *d)
{
    char what[96];
    describe(t, w, i, what, sizeof what);
    ad_errclass e = why == ADI_GUARD_FAILED ? AD_E_PATH : AD_E_DOMAIN;
    ad_diag_set(d, e, t->pos[i].line, t->pos[i].col, "%s: %s", what, why);
    if (d) d->src = t->pos[i].src;
    return e;
}

ad_errclass adi_err_point(const ad_tape *t, const ad_work *w, size_t i, int status, ad_diag *d)
{
    char what[96];
    describe(t, w, i, what, sizeof what);
    ad_errclass e;
    if (status == ADI_SINGULAR)
        e = ad_diag_set(d, AD_E_DOMAIN, t->pos[i].line, t->pos[i].col,
                        "%s: derivative is infinite or undefined here", what);
    else if (status == ADI_OVERFLOW)
        e = ad_diag_set(d, AD_E_DOMAIN, t->pos[i].line, t->pos[i].col,
                        "%s: derivative is beyond the range of a double here", what);
    else if (status == ADI_UNDERFLOW)
        e = ad_diag_set(d, AD_E_DOMAIN, t->pos[i].line, t->pos[i].col,
                        "%s: derivative underflows a double here (digits lost below 2.2e-308), and --hessian and --order do not redo it in long double",
                        what);
    else if (status == ADI_OVERFLOW_HIGHER)
        e = ad_diag_set(d, AD_E_DOMAIN, t->pos[i].line, t->pos[i].col,
                        "%s: a higher derivative is beyond the range of a double here", what);
    else if (status == ADI_SINGULAR_HIGHER)
        e = ad_diag_set(d, AD_E_DOMAIN, t->pos[i].line, t->pos[i].col,
                        "%s: a higher derivative is infinite or undefined here", what);
    else if (adi_op_is_guard(t->code[i].op)) {
        char v[32];
        adi_fmt_double(v, sizeof v, w->val[t->code[i].a]);
        e = ad_diag_set(d, AD_E_NONDIFF, t->pos[i].line, t->pos[i].col,
                        "a tie: both sides of this comparison are %s, where the function may have a kink or a jump", v);
    }
    else
        e = ad_diag_set(d, AD_E_NONDIFF, t->pos[i].line, t->pos[i].col,
                        "%s: not differentiable here", what);
    if (d) {
        d->src = t->pos[i].src;
        d->hint = e == AD_E_NONDIFF && adi_op_is_guard(t->code[i].op) ? AD_HINT_POLICY_TIE
                  : e == AD_E_NONDIFF ? AD_HINT_POLICY_SUBGRAD : status == ADI_OVERFLOW || status == ADI_OVERFLOW_HIGHER || status == ADI_UNDERFLOW ? AD_HINT_NONE
                                                                                 : AD_HINT_POLICY_ZERO;
    }
    return e;
}

/* min(a, b, c) is recorded as the chain min(min(a, b), c): consecutive
 * links with the same opcode, each taking the previous link as operand a,
 * all at the source position of the call.  A tie inside a link (a == b)
 * is a kink of min(a, b, c) only when the tied value is the overall
 * minimum, i.e. no later argument of the chain undercuts it.  A nested
 * min(min(a, b), c) written by the user has two call positions and keeps
 * the plain two-argument rule. */
int adi_tie_is_kink(const ad_tape *t, const double *v, size_t i)
{
    const ad_instr *c = t->code;
    uint32_t op = c[i].op;
    if (op != AD_OP_MIN && op != AD_OP_MAX) return 1;
    for (size_t j = i + 1; j < t->n; j++) {
        if (c[j].op != op || (size_t)c[j].a != j - 1 || t->pos[j].line != t->pos[i].line ||
            t->pos[j].col != t->pos[i].col)
            break;
        double b = v[c[j].b];
        if (op == AD_OP_MIN ? b < v[i] : b > v[i]) return 0;
    }
    return 1;
}

ad_errclass ad_eval(const ad_tape *t, ad_work *w, const double *inputs, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    if (adi_work_reserve(w, n, 0, 0) < 0) return adi_err_nomem(d);
    w->n = n;
    w->has_adj = 0;
    memset(w->act, 0, n);
    double *v = w->val;
    for (size_t i = 0; i < ni; i++) v[i] = inputs[i];
    for (size_t i = 0; i < nc; i++) v[ni + i] = t->cval[i];
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        const char *why = adi_op_domain((int)c.op, a, b);
        if (why) return adi_err_domain(t, w, i, why, d);
        v[i] = adi_op_value((int)c.op, a, b);
        if (isnan(v[i])) return adi_err_domain(t, w, i, ADI_NAN_REASON, d);
    }
    return AD_E_NONE;
}

const ad_tape *ad_work_tape(const ad_work *w) { return w->tape; }

double ad_output_value(const ad_tape *t, const ad_work *w, size_t o)
{
    return w->val[t->outs[o]];
}

double ad_value(const ad_tape *t, const ad_work *w)
{
    return t->nout ? w->val[t->outs[0]] : 0;
}
