/* hessian.c - second-order adjoints (forward over reverse).  A forward
 * sweep carries k tangents per node; the reverse sweep then carries, next
 * to each adjoint, its k tangents, using the second-order partials of
 * ops.def.  For output f, input seeds S (n x k) give the gradient and
 * H S: with S the identity, the whole Hessian in one pass of width n. */
#include <stdint.h>
#include <string.h>
#include "work.h"
#include "rules.h"
#include "alloc.h"

/* The second-order backward pass after ad_forward's sweep: adjoints in
 * w->adj, their k tangents in w->tadj, the policy's points in nd.  With
 * locate it returns where an entry that is not finite at the end
 * appeared: the node nearest the inputs whose finite partials, adjoints
 * and tangents gave a product that overflowed; else SIZE_MAX.  Locating
 * costs 2k tests per node, so ad_hessian runs it only when an entry came
 * out not finite. */
static size_t backward(const ad_tape *t, ad_work *w, size_t k, ad_policy pol, int locate, adi_nondiff *nd)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts, kk = k ? k : 1, over = SIZE_MAX;
    const double *v = w->val, *T = w->tan;
    double *adj = w->adj, *TA = w->tadj;
    const unsigned char *act = w->act;
    memset(adj, 0, n * sizeof *adj);
    memset(TA, 0, n * kk * sizeof *TA);
    if (t->nout) adj[t->outs[0]] = 1;
    adi_nondiff_init(nd);
    for (size_t i = n; i-- > ni + nc;) {
        if (!act[i]) continue;
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        int aa = act[c.a], ab = c.b >= 0 && act[c.b];
        double p[2], q[3];
        unsigned char st[2];
        adi_op_partials((int)c.op, a, b, v[i], p, st);
        adi_op_partials2((int)c.op, a, b, v[i], q);
        adi_note_underflow(t, i, st, aa, ab, nd); /* no long-double retry here */
        unsigned zero = adi_policy(t, v, i, st, aa, ab, pol, nd);
        for (int j = 0; j < 2; j++)
            if (zero >> j & 1) {
                /* the operation is taken as flat in that operand */
                p[j] = 0;
                q[j == 0 ? 0 : 2] = 0;
                q[1] = 0;
            }
        /* a second derivative that is infinite (x^1.5 at 0) is singular too */
        int bad2 = adi_feeds(t, i) &&
                   ((aa && !isfinite(q[0])) || (aa && ab && !isfinite(q[1])) || (ab && !isfinite(q[2])));
        if (bad2 && adi_policy_higher(pol, nd, i, ADI_SINGULAR_HIGHER)) {
            if (!isfinite(q[0])) q[0] = 0;
            if (!isfinite(q[1])) q[1] = 0;
            if (!isfinite(q[2])) q[2] = 0;
        }
        double g = adj[i];
        const double *G = TA + i * kk;
        const double *Ta = T + (size_t)c.a * kk, *Tb = ab ? T + (size_t)c.b * kk : NULL;
        /* finite partials, adjoints and tangents (of the differentiated
         * operands: pow's partial for a constant exponent is nan at a
         * negative base), before their products are added */
        int fin = 0;
        if (locate) {
            fin = isfinite(g) && (!aa || (isfinite(p[0]) && isfinite(q[0]))) && (!ab || (isfinite(p[1]) && isfinite(q[2]))) &&
                  (!(aa && ab) || isfinite(q[1]));
            for (size_t j = 0; j < k && fin; j++)
                fin = isfinite(G[j]) && (!aa || isfinite(Ta[j])) && (!ab || isfinite(Tb[j]));
        }
        /* zero adjoints, tangents and partials pass nothing on (adi_term) */
#define TERM(p, x) adi_term(p, x)
        if (aa) {
            adj[c.a] += TERM(p[0], g);
            double *D = TA + (size_t)c.a * kk;
            for (size_t j = 0; j < k; j++)
                D[j] += TERM(p[0], G[j]) + (g != 0 ? g * (TERM(q[0], Ta[j]) + (ab ? TERM(q[1], Tb[j]) : 0)) : 0);
        }
        if (ab) {
            adj[c.b] += TERM(p[1], g);
            double *D = TA + (size_t)c.b * kk;
            for (size_t j = 0; j < k; j++)
                D[j] += TERM(p[1], G[j]) + (g != 0 ? g * ((aa ? TERM(q[1], Ta[j]) : 0) + TERM(q[2], Tb[j])) : 0);
        }
#undef TERM
        if (!fin) continue;
        int ov = (aa && !isfinite(adj[c.a])) || (ab && !isfinite(adj[c.b]));
        for (size_t j = 0; j < k && !ov; j++)
            ov = (aa && !isfinite(TA[(size_t)c.a * kk + j])) || (ab && !isfinite(TA[(size_t)c.b * kk + j]));
        if (ov) over = i;
    }
    return over;
}

ad_errclass ad_hessian(const ad_tape *t, ad_work *w, const double *inputs,
                       const unsigned char *diff, const double *seeds, size_t k,
                       ad_policy pol, double *grad, double *hs, ad_diag *d)
{
    size_t n = t->n, ni = t->ninputs, kk = k ? k : 1;
    double *fo = adi_malloc(t->nout * kk * sizeof *fo);
    if (!fo) return adi_err_nomem(d);
    ad_errclass e = ad_forward(t, w, inputs, diff, seeds, k, pol, fo, d);
    free(fo);
    if (e) return e;
    if (adi_work_reserve(w, n, 0, 1) < 0 || n > SIZE_MAX / kk ||
        adi_grow((void **)&w->tadj, &w->tadjcap, n * kk, sizeof *w->tadj) < 0)
        return adi_err_nomem(d);
    const double *adj = w->adj, *TA = w->tadj;
    const unsigned char *act = w->act;
    adi_nondiff nd;
    backward(t, w, k, pol, 0, &nd);
    w->has_adj = 1;
    /* a gradient or H S entry that is not finite (and not the policy's
     * error): an error where it began */
    int bad = 0;
    for (size_t i = 0; i < ni && !bad; i++)
        for (size_t j = 0; j <= k && !bad && act[i]; j++) bad = !isfinite(j < k ? TA[i * kk + j] : adj[i]);
    if (bad && nd.sing == SIZE_MAX && nd.kink == SIZE_MAX) {
        size_t over = backward(t, w, k, pol, 1, &nd);
        if (over == SIZE_MAX) over = (size_t)t->outs[0];   /* (not reached: a term overflowed) */
        adi_nondiff_note(&nd, over, ADI_OVERFLOW_HIGHER);
    }
    e = adi_nondiff_verdict(t, w, &nd, d);
    if (e) return e;
    for (size_t i = 0; i < ni; i++) {
        grad[i] = act[i] ? adj[i] : 0;
        for (size_t j = 0; j < k; j++) hs[i * k + j] = act[i] ? TA[i * kk + j] : 0;
    }
    return AD_E_NONE;
}
