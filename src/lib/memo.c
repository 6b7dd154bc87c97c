/* memo.c - the spans of a loop, parsed once and replayed after.
 *
 * A loop runs its condition and its body again each time round, and
 * parsing them again each time (scanner, parser, name lookups) costs ten
 * times what recording their few nodes does.  So the first time a span is
 * parsed inside a loop, the parse notes the steps it records -- a name
 * resolved, a constant, an operation, a comparison, an element x[i] of a
 * vector -- and the next times
 * the steps are replayed: the same calls in the same order, so the tape
 * is the one the parse would have recorded, node for node (a constant is
 * recorded once per value, so its step reuses the node the parse got).
 * The notes hold for one recording: a session drops them after each
 * statement, as it may drop the statement's nodes.  Names are
 * resolved again at each replay (a loop rebinds them), comparisons decide
 * again (adi_compare), an element is looked up again by its index's value
 * (an index out of range parses the span, which says what is wrong).  A
 * name bound to a vector at a replay (a number when the span was noted)
 * parses the span, and from then on every time.  A
 * span with more than ADI_MEMO_STEPS steps, or
 * whose parse depends on more than its text (&&, ||, if(), a function of
 * the program or a derived one, an operand the notes cannot name) is
 * parsed every time. */
#include <math.h>
#include <string.h>
#include "parse.h"
#include "alloc.h"

#define ADI_MEMO_STEPS 256

enum { M_NAME, M_CONST, M_OP, M_CMP, M_NOT, M_INDEX };

struct adi_mstep {
    unsigned char kind;
    int code;              /* M_OP, M_CMP: the opcode */
    int32_t a, b;          /* M_OP, M_CMP: the steps of the operands (b: -1 for none) */
    int line, col;
    size_t off, len;       /* M_NAME, M_INDEX: the name, in the source */
    int iline, icol;       /* M_INDEX: where its index is (a: its step) */
    double v;              /* M_CONST: the value... */
    char text[40];         /* ...and its text (len bytes) */
    int32_t node;          /* the node it gave when it was parsed */
    /* M_NAME, M_INDEX: how it resolved at the last replay (see name, element) */
    int cached;
    size_t bgen, vgen;     /* the generations of the bindings and the inputs then */
    int32_t slot;          /* its slot among the bindings, or -1: an input...
                            * (M_INDEX: its vector's among the tape's, or -1) */
    int32_t input;         /* ...this node */
};

struct adi_memo {
    struct adi_mstep *step;
    size_t n;
    int32_t root;          /* the step of the value; -1 for a condition */
    int bad;               /* parsed every time */
    int tries;             /* notes that could not name an operand: tried again */
};

/* two names bound to one node in the first iteration (s = 0; i = 0) part
 * ways in the next: notes are tried a few times before giving up */
#define ADI_MEMO_TRIES 4

/* the statements of a block, split once */
struct adi_mblock {
    ad_stmt *st;
    size_t n;
};

void adi_memo_free(adi_prog *g)
{
    for (size_t i = 0; i < g->nmemo; i++) free(g->memo[i].step);
    free(g->memo);
    g->memo = NULL;
    g->nmemo = g->memocap = 0;
    adi_symtab_free(&g->memokeys);
    for (size_t i = 0; i < g->nblocks; i++) free(g->blocks[i].st);
    free(g->blocks);
    g->blocks = NULL;
    g->nblocks = g->blockcap = 0;
    adi_symtab_free(&g->blockkeys);
}

int adi_memo_stmts(adi_prog *g, size_t off, size_t end, int line, int col, const ad_stmt **st, size_t *n)
{
    size_t key[2] = {off, end};
    int32_t k = adi_symtab_get(&g->blockkeys, key, sizeof key);
    if (k < 0) {
        if (adi_grow((void **)&g->blocks, &g->blockcap, g->nblocks + 1, sizeof *g->blocks) < 0) return -1;
        struct adi_mblock *b = &g->blocks[g->nblocks];
        size_t cap = 0;
        ad_stmt one;
        b->st = NULL;
        b->n = 0;
        while (ad_next_stmt(g->src, end, &off, &line, &col, &one)) {
            if (one.kind == AD_STMT_EMPTY) continue;
            if (adi_grow((void **)&b->st, &cap, b->n + 1, sizeof *b->st) < 0) {
                free(b->st);
                return -1;
            }
            b->st[b->n++] = one;
        }
        if (adi_symtab_put(&g->blockkeys, key, sizeof key, (int32_t)g->nblocks) < 0) {
            free(b->st);
            return -1;
        }
        k = (int32_t)g->nblocks++;
    }
    *st = g->blocks[k].st;
    *n = g->blocks[k].n;
    return 0;
}

/* the next step of the parse being noted, or NULL */
static struct adi_mstep *next(adi_pctx *P, int kind, int line, int col, int32_t node)
{
    if (!P->capturing || P->capbad) return NULL;
    if (P->ncap == ADI_MEMO_STEPS) {
        P->capbad = 1;
        return NULL;
    }
    if (!P->cap && !(P->cap = adi_malloc(ADI_MEMO_STEPS * sizeof *P->cap))) longjmp(P->oom, 1);
    struct adi_mstep *s = &P->cap[P->ncap++];
    memset(s, 0, sizeof *s);
    s->kind = (unsigned char)kind;
    s->line = line;
    s->col = col;
    s->node = node;
    s->a = s->b = -1;
    return s;
}

/* the step that gave node, or -1 (then the notes are of no use) */
static int32_t step_of(adi_pctx *P, int32_t node)
{
    for (size_t i = P->ncap; i-- > 0;)
        if (P->cap[i].node == node && P->cap[i].kind != M_CMP && P->cap[i].kind != M_NOT) return (int32_t)i;
    P->capbad = 1;
    return -1;
}

void adi_memo_bad(adi_pctx *P) { P->capbad = 1; }

void adi_memo_name(adi_pctx *P, size_t off, size_t len, int line, int col, int32_t node)
{
    struct adi_mstep *s = next(P, M_NAME, line, col, node);
    if (!s) return;
    s->off = off;
    s->len = len;
}

void adi_memo_const(adi_pctx *P, double v, const char *text, size_t len, int line, int col, int32_t node)
{
    struct adi_mstep *s = next(P, M_CONST, line, col, node);
    if (!s) return;
    if (len >= sizeof s->text) {
        P->capbad = 1;
        return;
    }
    s->v = v;
    s->len = len;
    memcpy(s->text, text, len);
}

void adi_memo_op(adi_pctx *P, int kind_cmp, int code, int32_t a, int32_t b, int line, int col, int32_t node)
{
    if (!P->capturing || P->capbad) return;
    int32_t sa = step_of(P, a), sb = b >= 0 ? step_of(P, b) : -1;
    struct adi_mstep *s = next(P, kind_cmp ? M_CMP : M_OP, line, col, node);
    if (!s) return;
    s->code = code;
    s->a = sa;
    s->b = sb;
}

void adi_memo_not(adi_pctx *P) { next(P, M_NOT, 0, 0, -1); }

void adi_memo_index(adi_pctx *P, size_t off, size_t len, int32_t index, int line, int col, int iline, int icol,
                    int32_t node)
{
    if (!P->capturing || P->capbad) return;
    int32_t sa = step_of(P, index);
    struct adi_mstep *s = next(P, M_INDEX, line, col, node);
    if (!s) return;
    s->off = off;
    s->len = len;
    s->a = sa;
    s->iline = iline;
    s->icol = icol;
}

/* the steps whose node is looked up, not made: a name, a literal, an element */
static int found(const struct adi_mstep *s) { return s->kind == M_NAME || s->kind == M_CONST || s->kind == M_INDEX; }

/* 1 when steps x and y give the same node whatever the iteration: the
 * same name, the same literal value, the same operation of such steps, or
 * elements of one vector whose indices are such steps (x[i] written twice;
 * x[i] and x[j] are not, even when i == j this time) */
static int same_step(const adi_pctx *P, int32_t a, int32_t b)
{
    while (a != b) {
        const struct adi_mstep *x = &P->cap[a], *y = &P->cap[b];
        if (x->kind != y->kind) return 0;
        switch (x->kind) {
        case M_CONST: return x->v == y->v || (x->v != x->v && y->v != y->v);
        case M_NAME: return x->len == y->len && !memcmp(P->src + x->off, P->src + y->off, x->len);
        case M_OP:
            if (x->code != y->code || (x->b < 0) != (y->b < 0) || (x->b >= 0 && !same_step(P, x->b, y->b)))
                return 0;
            break;
        case M_INDEX:
            if (x->len != y->len || memcmp(P->src + x->off, P->src + y->off, x->len)) return 0;
            break;
        default: return 0;
        }
        a = x->a;   /* the first operand, or the index: on to it */
        b = y->a;
    }
    return 1;
}

/* 1 when the notes replay the parse: every node an operand took came
 * from one step that will give it again (two names bound to one node, a
 * name and a literal, or x[i] and x[j] with i == j this time, could part
 * ways in the next iteration) */
static int unambiguous(const adi_pctx *P)
{
    for (size_t i = 0; i < P->ncap; i++) {
        const struct adi_mstep *x = &P->cap[i];
        if (!found(x)) continue;
        for (size_t j = i + 1; j < P->ncap; j++) {
            const struct adi_mstep *y = &P->cap[j];
            if (y->node != x->node || !found(y)) continue;
            if (!same_step(P, (int32_t)i, (int32_t)j)) return 0;
        }
    }
    return 1;
}

/* the key of a span: where it is and what it is parsed as */
typedef struct {
    size_t off, len;
    int cond;
} memo_key;

long adi_memo_find(adi_prog *g, size_t off, size_t len, int cond)
{
    memo_key k;
    memset(&k, 0, sizeof k);
    k.off = off;
    k.len = len;
    k.cond = cond;
    return adi_symtab_get(&g->memokeys, &k, sizeof k);
}

int adi_memo_usable(const adi_prog *g, long m) { return !g->memo[m].bad; }
int adi_memo_retry(const adi_prog *g, long m) { return g->memo[m].bad && g->memo[m].tries < ADI_MEMO_TRIES; }

void adi_memo_keep(adi_prog *g, adi_pctx *P, size_t off, size_t len, int cond, int32_t root)
{
    long mi = adi_memo_find(g, off, len, cond);
    if (mi < 0) {
        memo_key k;
        memset(&k, 0, sizeof k);
        k.off = off;
        k.len = len;
        k.cond = cond;
        if (adi_grow((void **)&g->memo, &g->memocap, g->nmemo + 1, sizeof *g->memo) < 0 ||
            adi_symtab_put(&g->memokeys, &k, sizeof k, (int32_t)g->nmemo) < 0)
            return;   /* out of memory here: the span is parsed again next time */
        mi = (long)g->nmemo++;
        memset(&g->memo[mi], 0, sizeof g->memo[mi]);
    }
    struct adi_memo *m = &g->memo[mi];
    int ambiguous = !P->capbad && !unambiguous(P);
    m->bad = P->capbad || ambiguous;
    m->tries = ambiguous ? m->tries + 1 : ADI_MEMO_TRIES;
    m->root = -1;
    if (!m->bad && !cond) {
        m->root = step_of(P, root);
        m->bad = P->capbad;
    }
    if (!m->bad) {
        m->step = P->cap;
        m->n = P->ncap;
        P->cap = NULL;   /* the memo has it now */
    }
}

/* a name's node.  Looking it up again (bindings, then inputs) each time
 * round was a fifth of a loop's recording; while neither table has gained
 * or lost a key since the last replay, the name is where it was then: a
 * binding in the same slot (whose value is the latest assignment) or the
 * same input.  The notes are the recording's own (one tape). */
static int32_t name(adi_pctx *P, adi_prog *g, struct adi_mstep *s)
{
    const ad_tape *t = P->t;
    if (s->cached && s->bgen == g->bindings.gen) {
        if (s->slot >= 0) return adi_symtab_slot_value(&g->bindings, s->slot);
        if (s->vgen == t->vars.gen) return s->input;
    }
    int32_t r = adi_resolve_name(P, g->src + s->off, s->len, s->line, s->col);
    if (r < 0) return r;
    s->cached = 1;
    s->bgen = g->bindings.gen;
    s->vgen = t->vars.gen;
    s->slot = adi_symtab_slot(&g->bindings, g->src + s->off, s->len);
    s->input = r;
    return r;
}

/* element x[index] of M_INDEX step s.  While neither the bindings nor the
 * declared vectors have changed since the last replay, x is the declared
 * input vector it was then (s->slot in the tape's vectors, or -1: not
 * one), and a whole index within it finds the element without a name
 * looked up; anything else goes through adi_vec_index, which says what is
 * wrong */
static int32_t element(adi_pctx *P, adi_prog *g, struct adi_mstep *s, int32_t index)
{
    ad_tape *t = P->t;
    if (s->cached && s->bgen == g->bindings.gen && s->vgen == t->vecs.gen && s->slot >= 0 && !adi_is_vec(index) &&
        !t->rdep[index]) {
        double v = t->rval[index];
        if (v >= 1 && v <= (double)t->vin[s->slot].len && v == floor(v)) {
            int32_t r = adi_rec_vin_element(t, (size_t)s->slot, (size_t)v, s->line, s->col);
            if (r < 0) longjmp(P->oom, 1);
            return r;
        }
    }
    const char *name = g->src + s->off;
    int32_t r = adi_vec_index(P, name, s->len, index, s->line, s->col, s->iline, s->icol);
    if (r < 0 || P->failed) return r;
    s->cached = 1;
    s->bgen = g->bindings.gen;
    s->vgen = t->vecs.gen;
    s->slot = adi_symtab_get(&g->bindings, name, s->len) >= 0 ? -1 : (int32_t)adi_tape_vin(t, name, s->len);
    return r;
}

int adi_memo_replay(ad_tape *t, adi_prog *g, long mi, int32_t *root, int *truth)
{
    struct adi_memo *m = &g->memo[mi];
    int32_t node[ADI_MEMO_STEPS];
    adi_pctx P;
    adi_pctx_init(&P, t, g, NULL);
    volatile int tr = 0;
    if (setjmp(P.oom)) return -1;
    for (size_t i = 0; i < m->n; i++) {
        struct adi_mstep *s = &m->step[i];
        int32_t r = 0;
        switch (s->kind) {
        case M_NAME:
            r = name(&P, g, s);
            if (r >= 0 && adi_is_vec(r)) {
                m->bad = 1;   /* the name is a vector now: the notes hold scalars only */
                m->tries = ADI_MEMO_TRIES;
                return -2;
            }
            break;
        case M_CONST: r = s->node; break;   /* constants are shared: the node of the parse */
        case M_OP: r = adi_rec_op(t, s->code, node[s->a], s->b >= 0 ? node[s->b] : -1, s->line, s->col); break;
        case M_CMP:
            tr = adi_compare(&P, s->code, node[s->a], node[s->b], s->line, s->col);
            break;
        case M_NOT: tr = !tr; break;
        case M_INDEX:
            r = element(&P, g, s, node[s->a]);
            if (P.failed) return -2;   /* this time the index is wrong: the parse will say how */
            break;
        }
        if (r < 0) return -1;
        node[i] = r;
    }
    *truth = tr;
    *root = m->root >= 0 ? node[m->root] : -1;
    return 0;
}
