/* optimize.c - tape optimisation before replay: constant folding, common
 * subexpressions, pow(a, 2) as sqr(a), dead nodes.
 *
 * The finished tape is recorded again, node by node, onto a fresh tape:
 * an operation whose operands are all constants becomes a constant (its
 * value computed by the same rule as at run time, so bit-identical; not
 * when the rule reports a domain error, which must still be reported when
 * the tape runs); an operation already recorded with the same operands is
 * reused when it is among the last 2^13 to 2^14 operations (CSE_WINDOW;
 * not min/max, whose chains of n-ary calls must stay adjacent);
 * adi_tape_finish then drops what no output uses.  Values are unchanged to
 * the bit; a reused node sums its adjoint contributions in one place, so
 * derivatives can differ from the raw tape's in the last bits. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tape.h"
#include "rules.h"
#include "numfmt.h"
#include "alloc.h"

/* the operations recorded so far, by (op, a, b): open addressing, 16 bytes
 * a slot, for tapes of millions of nodes */
typedef struct {
    int32_t op, a, b, node;   /* node -1: empty */
} cse_slot;

typedef struct {
    cse_slot *slot;
    size_t cap, count;
} cse_table;

static size_t cse_hash(int32_t op, int32_t a, int32_t b)
{
    uint64_t h = (uint64_t)(uint32_t)op * 0x9E3779B97F4A7C15ULL;
    h ^= (uint64_t)(uint32_t)a * 0xC2B2AE3D27D4EB4FULL;
    h ^= (uint64_t)(uint32_t)b * 0x165667B19E3779F9ULL;
    return (size_t)(h ^ (h >> 29));
}

static cse_slot *cse_find(cse_table *c, int32_t op, int32_t a, int32_t b)
{
    size_t mask = c->cap - 1;
    for (size_t i = cse_hash(op, a, b) & mask;; i = (i + 1) & mask) {
        cse_slot *s = &c->slot[i];
        if (s->node < 0 || (s->op == op && s->a == a && s->b == b)) return s;
    }
}

/* a table of ncap slots, uninitialised */
static cse_slot *cse_alloc(size_t ncap)
{
    return adi_malloc(ncap * sizeof(cse_slot));
}

/* Twins are looked for among the last 2^13 to 2^14 operations: two
 * generations of at most CSE_WINDOW entries each, the older dropped when
 * the newer is full.  A table of the whole tape misses the cache on every
 * lookup once a tape has millions of nodes (a loop's), and its twins are
 * near (a loop-invariant operation, recorded again each iteration, finds
 * the previous iteration's); tapes below CSE_WINDOW operations share
 * exactly as with one table.  Both generations (256 KB each) stay in a
 * core's L2 cache beside the tapes streaming past: with 2^15 (1 MB each)
 * the lookups of a 10^6-iteration loop took 0.1 s more. */
#define CSE_WINDOW ((size_t)1 << 13)

/* the newer generation is full: it becomes the older, an empty one the newer */
static int cse_rotate(cse_table *c, cse_table *old)
{
    cse_table t = *old;
    *old = *c;
    if (!t.slot && !(t.slot = cse_alloc(c->cap))) {
        *c = *old;
        *old = t;
        return -1;
    }
    t.cap = c->cap;
    for (size_t i = 0; i < t.cap; i++) t.slot[i].node = -1;
    t.count = 0;
    *c = t;
    return 0;
}

static int cse_grow(cse_table *c, size_t want)
{
    size_t ncap = c->cap ? c->cap * 2 : 16;   /* small: most tapes are short, and a run touches every slot */
    while (ncap < want) ncap *= 2;
    cse_slot *old = c->slot, *ns = cse_alloc(ncap);
    if (!ns) return -1;
    for (size_t i = 0; i < ncap; i++) ns[i].node = -1;
    size_t ocap = c->cap;
    c->slot = ns;
    c->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].node >= 0) *cse_find(c, old[i].op, old[i].a, old[i].b) = old[i];
    free(old);
    return 0;
}

/* the cheaper ops of REDUCE in ops.def */
static const struct {
    int op, slot;
    double k;
    int into;
} reduce[] = {
#define REDUCE(E, slot, k, INTO) {AD_OP_##E, slot, k, AD_OP_##INTO},
#include "ops.def"
};

/* what is known of each node of the new tape */
enum {
    CONSTANT = 1,   /* a constant: its value is in cv */
    OPERAND = 2     /* an operation in the CSE table has it as an operand */
};

/* op(a, b) as a cheaper op of one operand, when REDUCE has one for it */
static int reduced(int *op, int32_t *a, int32_t *b, const unsigned char *flag, const double *cv)
{
    for (size_t r = 0; r < sizeof reduce / sizeof reduce[0]; r++) {
        int32_t k = reduce[r].slot ? *b : *a, other = reduce[r].slot ? *a : *b;
        if (reduce[r].op != *op || k < 0 || !(flag[k] & CONSTANT) || cv[k] != reduce[r].k) continue;
        *op = reduce[r].into;
        *a = other;
        *b = -1;
        return 1;
    }
    return 0;
}

int ad_optimize(ad_tape *t, ad_optstats *st)
{
    size_t n = t->n, ni = t->ninputs, nc = t->nconsts;
    if (st) {
        memset(st, 0, sizeof *st);
        st->before = n;
    }
    ad_tape *u = ad_tape_new();
    int32_t *map = NULL;
    unsigned char *flag = NULL;   /* CONSTANT, OPERAND, by recording index of u */
    /* the value of each constant recorded on u, by recording index (u has
     * at most one node per node of t) */
    double *cv = NULL;
    if (u) {
        u->limit = t->limit;
        u->max_iter = t->max_iter;
        u->novalues = 1;   /* the values were the recording's business */
        u->keepnames = t->keepnames;
        u->first_line = t->first_line;
        adi_tape_lend_spare(t, &map, &flag, &cv);
    }
    adi_tape_release_spare(t);   /* the new tape is about to need the memory */
    if (!map) map = adi_malloc((n ? n : 1) * sizeof *map);
    if (!flag) flag = adi_malloc(n ? n : 1);
    if (!cv) cv = adi_malloc((n ? n : 1) * sizeof *cv);
    cse_table cse = {NULL, 0, 0}, prev = {NULL, 0, 0};
    int rc = -1;
    /* the vectors first: the copy finds their elements by index */
    if (!u || !map || !cv || !flag || adi_tape_copy_vectors(u, t) < 0) goto out;
    /* u has at most t's nodes: its arrays are made once, not grown */
    adi_tape_reserve(u, n, t->nleaves, t->pool_len);
    memset(flag, 0, n);
    for (size_t i = 0; i < n; i++) {
        const ad_instr c = t->code[i];
        int line = t->pos[i].line, col = t->pos[i].col;
        u->cursrc = t->pos[i].src;
        if (i < ni) {
            size_t len;
            const char *name = ad_tape_input_name(t, i, &len);
            map[i] = adi_rec_var(u, name, len, line, col);
        } else if (i < ni + nc) {
            size_t len;
            const char *text = ad_tape_const_text(t, i - ni, &len);
            map[i] = adi_rec_const(u, t->cval[i - ni], text, len, line, col);
            if (map[i] >= 0) {
                flag[map[i]] |= CONSTANT;
                cv[map[i]] = t->cval[i - ni];
            }
        } else {
            int op = (int)c.op;
            int32_t a = map[c.a], b = c.b >= 0 ? map[c.b] : -1;
            if (reduced(&op, &a, &b, flag, cv) && st) st->strength++;
            /* all operands constant: fold, unless the rule says no */
            if ((flag[a] & CONSTANT) && (b < 0 || (flag[b] & CONSTANT))) {
                double va = cv[a], vb = b >= 0 ? cv[b] : 0;
                if (!adi_op_domain(op, va, vb)) {
                    double v = adi_op_value(op, va, vb);
                    if (isfinite(v)) {
                        char text[40];
                        adi_fmt_double(text, sizeof text, v);
                        map[i] = adi_rec_const(u, v, text, strlen(text), line, col);
                        if (st) st->folded++;
                        if (map[i] < 0) goto out;
                        flag[map[i]] |= CONSTANT;
                        cv[map[i]] = v;
                        continue;
                    }
                }
            }
            /* the same operation on the same operands: reuse it */
            if (op != AD_OP_MIN && op != AD_OP_MAX) {
                if ((cse.count + 1) * 2 > cse.cap &&
                    (cse.count >= CSE_WINDOW ? cse_rotate(&cse, &prev) : cse_grow(&cse, 0)) < 0)
                    goto out;
                /* a twin has a and b as operands: none can be there when
                 * either is an operand for the first time (a fresh node,
                 * in most of a loop's operations), and the older
                 * generation need not be searched */
                int fresh = !(flag[a] & OPERAND) || (b >= 0 && !(flag[b] & OPERAND));
                cse_slot *s = cse_find(&cse, op, a, b);
                if (s->node < 0 && prev.cap && !fresh) {
                    const cse_slot *q = cse_find(&prev, op, a, b);
                    if (q->node >= 0) {
                        *s = *q;   /* a twin in the older generation: keep it in the newer */
                        cse.count++;
                    }
                }
                if (s->node >= 0) {
                    map[i] = s->node;
                    if (st) st->shared++;
                    continue;
                }
                map[i] = adi_rec_op(u, op, a, b, line, col);
                if (map[i] < 0) goto out;
                *s = (cse_slot){op, a, b, map[i]};
                cse.count++;
                flag[a] |= OPERAND;
                if (b >= 0) flag[b] |= OPERAND;
            } else {
                map[i] = adi_rec_op(u, op, a, b, line, col);
            }
        }
        if (map[i] < 0) goto out;
    }
    /* the names go with their nodes (to the node a shared or folded one
     * became) */
    for (size_t k = 0; k < t->nnames; k++)
        if (adi_tape_name(u, map[t->names[k].node], t->pool + t->names[k].text.off, t->names[k].text.len, "") < 0)
            goto out;
    for (size_t o = 0; o < t->nout; o++)
        if (adi_tape_add_output(u, map[t->outs[o]]) < 0) goto out;
    if (adi_tape_copy_sources(u, t) < 0) goto out;
    if (adi_tape_finish(u) < 0) goto out;
    /* the optimised tape takes the place of the old one */
    ad_tape tmp = *t;
    *t = *u;
    *u = tmp;
    t->novalues = 0;
    /* ...keeping what it was recorded from */
    t->flow = u->flow;
    u->flow = NULL;
    if (t->flow) t->flow->optimized = 1;
    if (st) st->after = t->n;
    rc = 0;
out:
    free(map);
    free(cv);
    free(flag);
    free(cse.slot);
    free(prev.slot);
    ad_tape_free(u);
    return rc;
}
