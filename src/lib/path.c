/* path.c - derivatives of a program with control flow, at any point.
 *
 * A tape records the path its recording took (flow.c) and the decisions
 * that path depended on, its guards.  At a point where every guard holds,
 * the tape is the program there, and its derivatives are the program's.
 * Elsewhere the point takes another path: it is recorded again at that
 * point (ADOL-C's retaping), and the workspace keeps the tapes of the
 * last ADI_PATHS paths it met (within ADI_PATHS_NODES nodes), so that
 * points which take a handful of paths replay them.  A path's tape depends on its decisions only, never
 * on the point it was recorded at, so a point's row is the same whichever
 * earlier points filled the cache: byte-identical to deriving it alone.
 *
 * Which tape a point takes is decided before any engine runs, by a sweep
 * of values that checks every guard and ignores domain errors: a node of
 * another path that fails before that path's first failing guard (sqrt
 * of a negative, in a branch this point does not take) is no error of
 * this point's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "derive.h"
#include "alloc.h"

#define ADI_PATHS 8
/* ...and at most this many nodes in all (a loop's path can be millions
 * of nodes): past it, the least recently used go, the newest stays */
#define ADI_PATHS_NODES ((size_t)1 << 22)

typedef struct {
    ad_tape *t;            /* NULL: the plan's own tape */
    ad_plan *p;
    unsigned long used;    /* when it last served a point */
} adi_pathent;

struct adi_paths {
    const ad_plan *of;     /* the plan whose paths these are */
    uint64_t key;          /* ...and its key, in case its memory was reused */
    adi_pathent e[ADI_PATHS];
    size_t n;
    unsigned long clock, base_used;
    size_t replayed, recorded;   /* points replayed on a kept tape, or recorded */
    uint64_t *seen;        /* the paths met (their tapes' hashes) */
    size_t nseen, seencap;
    adi_symtab seenset;    /* ...as a set */
};

/* ---- the request a plan keeps for the plans of other paths ---- */

static char **dupv(const char *const *v, size_t n)
{
    char **c = adi_calloc(n, sizeof *c);
    for (size_t i = 0; c && i < n; i++)
        if (!(c[i] = adi_strdup(v[i]))) return NULL;   /* freed with the plan (n entries, some NULL) */
    return c;
}

static void freev(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) free(v[i]);
    free(v);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t fnv_names(uint64_t h, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) h = fnv(h, v[i], strlen(v[i]) + 1);
    return fnv(h, &n, sizeof n);
}

/* a hash of tape t's path.  A program's tape is decided by the outcomes
 * of its comparisons on inputs: each is a guard (the other outcome is
 * another guard op), or, for a 'for' bound on an input, a guard that the
 * bound equals a constant (another outcome: another constant).  So the
 * guards, where they stand, and the constants identify a path: not the
 * millions of other nodes of a loop's tape. */
static uint64_t path_hash(const ad_tape *t)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ t->n;
    for (size_t i = t->ninputs + t->nconsts; i < t->n; i++) {
        const ad_instr c = t->code[i];
        if (!adi_op_is_guard(c.op)) continue;
        h = (h ^ ((uint64_t)i << 8 ^ c.op)) * 0x100000001b3ULL;
        h = (h ^ ((uint64_t)(uint32_t)c.a << 32 ^ (uint32_t)c.b)) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    for (size_t i = 0; i < t->nconsts; i++) {
        uint64_t v;
        memcpy(&v, &t->cval[i], sizeof v);
        h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
        h ^= h >> 29;
    }
    return h;
}

/* past the last guard of t */
static size_t last_guard(const ad_tape *t)
{
    size_t n = t->n;
    while (n > t->ninputs + t->nconsts && !adi_op_is_guard(t->code[n - 1].op)) n--;
    return n;
}

int adi_plan_paths(ad_plan *p, const ad_request *rq)
{
    adi_request *c = &p->rq;
    size_t m = p->t->nout;
    c->r = *rq;
    c->vars = dupv(rq->vars, rq->nvars);
    c->cols = dupv(rq->cols, rq->ncols);
    c->seed_vars = dupv(rq->seed_vars, rq->nseed);
    c->seed = adi_calloc(rq->nseed, sizeof *c->seed);
    c->weights = rq->weights ? adi_calloc(m, sizeof *c->weights) : NULL;
    if (!c->vars || !c->cols || !c->seed_vars || !c->seed || (rq->weights && !c->weights)) return -1;
    if (rq->nseed) memcpy(c->seed, rq->seed, rq->nseed * sizeof *c->seed);
    if (rq->weights) memcpy(c->weights, rq->weights, m * sizeof *c->weights);
    c->r.vars = (const char *const *)c->vars;
    c->r.cols = (const char *const *)c->cols;
    c->r.seed_vars = (const char *const *)c->seed_vars;
    c->r.seed = c->seed;
    c->r.weights = c->weights;
    /* the point's variables by name (the first of a repeated name counts) */
    for (size_t i = 0; i < rq->nvars; i++) {
        if (adi_names_add(&p->vars, rq->vars[i], strlen(rq->vars[i]), (int32_t)i) < 0) return -1;
    }
    /* what the paths depend on: the program, the request */
    const adi_flowsrc *f = p->t->flow;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0, off = 0; i < f->n; off += f->len[i++]) h = fnv(h, f->text + off, f->len[i]);
    h = fnv_names(h, rq->vars, rq->nvars);
    h = fnv_names(h, rq->cols, rq->ncols);
    h = fnv_names(h, rq->seed_vars, rq->nseed);
    if (rq->nseed) h = fnv(h, rq->seed, rq->nseed * sizeof *rq->seed);
    if (rq->weights) h = fnv(h, rq->weights, m * sizeof *rq->weights);
    int flags[] = {rq->grad, rq->jacobian, rq->hessian, rq->order, rq->check, (int)rq->mode, (int)rq->policy,
                   rq->many, f->optimized};
    double tol[] = {rq->step_scale, rq->rtol, rq->atol};
    size_t lim[] = {p->t->limit, p->t->max_iter};
    h = fnv(h, flags, sizeof flags);
    h = fnv(h, tol, sizeof tol);
    p->key = fnv(h, lim, sizeof lim);
    p->path = path_hash(p->t);
    p->lastguard = last_guard(p->t);
    return 0;
}

void adi_plan_paths_free(ad_plan *p)
{
    adi_request *c = &p->rq;
    freev(c->vars, c->r.nvars);
    freev(c->cols, c->r.ncols);
    freev(c->seed_vars, c->r.nseed);
    free(c->seed);
    free(c->weights);
    adi_names_free(&p->vars);
}

/* ---- the workspace's paths ---- */

static void flush(struct adi_paths *P)
{
    for (size_t i = 0; i < P->n; i++) {
        ad_plan_free(P->e[i].p);
        ad_tape_free(P->e[i].t);
    }
    P->n = 0;
}

void adi_paths_free(struct adi_paths *P)
{
    if (!P) return;
    flush(P);
    free(P->seen);
    adi_symtab_free(&P->seenset);
    free(P);
}

/* the workspace's paths of plan p, emptied if they were another plan's */
static struct adi_paths *paths_of(ad_work *w, const ad_plan *p)
{
    struct adi_paths *P = w->paths;
    if (!P) {
        P = w->paths = adi_calloc(1, sizeof *P);
        if (!P) return NULL;
    }
    if (P->of != p || P->key != p->key) {
        flush(P);
        P->of = p;
        P->key = p->key;
        P->base_used = 0;
    }
    return P;
}

/* 1 when every guard of plan q's tape holds at the point, 0 when one does
 * not, -1 when out of memory.  Values only (up to the last guard), domain
 * errors ignored. */
static int holds(const ad_plan *q, ad_work *w, const double *point)
{
    const ad_tape *t = q->t;
    size_t n = q->lastguard, ni = t->ninputs, nc = t->nconsts;
    if (adi_work_reserve(w, n, 0, 0) < 0) return -1;
    double *v = w->val;
    for (size_t i = 0; i < ni; i++) v[i] = q->var_of_input[i] == SIZE_MAX ? NAN : point[q->var_of_input[i]];
    for (size_t i = 0; i < nc; i++) v[ni + i] = t->cval[i];
    for (size_t i = ni + nc; i < n; i++) {
        const ad_instr c = t->code[i];
        double a = v[c.a], b = c.b >= 0 ? v[c.b] : 0;
        if (adi_op_is_guard(c.op) && adi_op_domain((int)c.op, a, b)) return 0;
        v[i] = adi_op_value((int)c.op, a, b);
    }
    return 1;
}

/* notes that a point took the path of plan q; 0 or -1 when out of memory */
static int met(struct adi_paths *P, const ad_plan *q)
{
    uint64_t h = q->path;
    if (adi_symtab_get(&P->seenset, &h, sizeof h) >= 0) return 0;
    if (adi_grow((void **)&P->seen, &P->seencap, P->nseen + 1, sizeof *P->seen) < 0 ||
        adi_symtab_put(&P->seenset, &h, sizeof h, 0) < 0)
        return -1;
    P->seen[P->nseen++] = h;
    return 0;
}

/* records p's program at the point onto a new tape, made as p's was */
static ad_errclass record(const ad_plan *p, const double *point, ad_tape **out, ad_diag *d)
{
    const adi_flowsrc *f = p->t->flow;
    ad_tape *t = ad_tape_new();
    const char **src = adi_calloc(f->n, sizeof *src);
    ad_errclass e = AD_E_NONE;
    if (!t || !src) {
        e = adi_err_nomem(d);
    } else {
        for (size_t i = 0, off = 0; i < f->n; off += f->len[i++]) src[i] = f->text + off;
        t->limit = p->t->limit;
        t->max_iter = p->t->max_iter;
        t->first_line = p->t->first_line;
        t->keepnames = p->t->keepnames;
        t->at = &p->vars;
        t->atv = point;
        size_t failed = 0;
        if (adi_tape_copy_vectors(t, p->t) < 0) {
            e = adi_err_nomem(d);
        } else {
            e = ad_parse_many(t, src, f->len, f->n, &failed, d);
            if (e && d) d->src = (int)failed;
        }
        t->at = NULL;
        t->atv = NULL;
        if (!e && f->optimized && ad_optimize(t, NULL) < 0) e = adi_err_nomem(d);
    }
    free(src);
    if (e) {
        ad_tape_free(t);
        return e;
    }
    *out = t;
    return AD_E_NONE;
}

/* "a number", or "a vector of n elements", into buf */
static const char *shape(char *buf, size_t size, int vector, size_t n)
{
    if (!vector) snprintf(buf, size, "a number");
    else snprintf(buf, size, "a vector of %zu element%s", n, n == 1 ? "" : "s");
    return buf;
}

/* The outputs of the tape recorded at a point are those of p's tape: as
 * many for each source, a vector where it had one.  The row of every
 * point is laid out by p (its columns, the printers' grouping, batch
 * mode's header), so a value whose length depends on the path (a loop
 * that appends, a branch that picks a slice) is an error at that point,
 * never a row of another width: 0, or AD_E_DOMAIN with d at the source. */
static ad_errclass same_outputs(const ad_tape *of, const ad_tape *t, ad_diag *d)
{
    for (size_t s = 0; s < ad_tape_nsources(of) && s < ad_tape_nsources(t); s++) {
        size_t f0, f1;
        int v0, v1;
        size_t n0 = ad_tape_source_outputs(of, s, &f0, &v0), n1 = ad_tape_source_outputs(t, s, &f1, &v1);
        if (n0 == n1 && v0 == v1) continue;
        /* where the point's value was computed (its first element) */
        int line = 1, col = 1;
        if (n1) ad_tape_pos(t, ad_tape_output(t, f1), &line, &col);
        char a[64], b[64];
        ad_errclass e = ad_diag_set(d, AD_E_DOMAIN, line, col,
                                    "the value is %s at this point but %s where the program was first recorded: "
                                    "a value's length cannot depend on the path it takes",
                                    shape(a, sizeof a, v1, n1), shape(b, sizeof b, v0, n0));
        if (d) d->src = (int)s;
        return e;
    }
    return AD_E_NONE;
}

/* the plan a point takes after a miss: recorded, and kept in place of the
 * least recently used */
static ad_errclass add_path(struct adi_paths *P, const ad_plan *p, const double *point, ad_plan **q, ad_diag *d)
{
    ad_tape *t;
    ad_errclass e = record(p, point, &t, d);
    if (!e && (e = same_outputs(p->t, t, d))) ad_tape_free(t);
    if (e) return e;
    e = ad_plan_new(t, &p->rq.r, q, NULL, d);
    if (e) {
        ad_tape_free(t);
        return e;
    }
    (*q)->path = path_hash(t);
    (*q)->lastguard = last_guard(t);
    /* room: the least recently used go, while the cache is full or its
     * nodes and the new tape's exceed the budget */
    for (;;) {
        size_t nodes = t->n;
        for (size_t i = 0; i < P->n; i++) nodes += P->e[i].t->n;
        if (P->n == 0 || (P->n < ADI_PATHS && nodes <= ADI_PATHS_NODES)) break;
        size_t old = 0;
        for (size_t i = 1; i < P->n; i++)
            if (P->e[i].used < P->e[old].used) old = i;
        ad_plan_free(P->e[old].p);
        ad_tape_free(P->e[old].t);
        P->e[old] = P->e[--P->n];
    }
    P->e[P->n++] = (adi_pathent){t, *q, ++P->clock};
    return AD_E_NONE;
}

/* p's own tape and the kept ones, the most recently used first: their
 * plans and when they were used; the count */
static size_t candidates(struct adi_paths *P, const ad_plan *p, const ad_plan **cand, unsigned long **stamp)
{
    cand[0] = p;
    stamp[0] = &P->base_used;
    size_t nc = 1;
    for (size_t i = 0; i < P->n; i++, nc++) {
        size_t j = nc;
        for (; j > 0 && *stamp[j - 1] < P->e[i].used; j--) {
            cand[j] = cand[j - 1];
            stamp[j] = stamp[j - 1];
        }
        cand[j] = P->e[i].p;
        stamp[j] = &P->e[i].used;
    }
    return nc;
}

ad_errclass adi_derive_path(const ad_plan *p, ad_work *w, const double *point, double *row, ad_check_result *chk,
                            ad_diag *d)
{
    struct adi_paths *P = paths_of(w, p);
    if (!P) return adi_err_nomem(d);
    const ad_plan *cand[ADI_PATHS + 1];
    unsigned long *stamp[ADI_PATHS + 1];
    size_t nc = candidates(P, p, cand, stamp);
    for (size_t c = 0; c < nc; c++) {
        int h = holds(cand[c], w, point);
        if (h < 0) return adi_err_nomem(d);
        if (!h) continue;
        *stamp[c] = ++P->clock;
        P->replayed++;
        if (met(P, cand[c]) < 0) return adi_err_nomem(d);
        return adi_derive_here(cand[c], w, point, row, chk, d);
    }
    ad_plan *q;
    ad_errclass e = add_path(P, p, point, &q, d);
    if (e) return e;
    P->recorded++;
    if (met(P, q) < 0) return adi_err_nomem(d);
    e = adi_derive_here(q, w, point, row, chk, d);
    if (e == AD_E_PATH)   /* a guard recorded at this point that does not hold here: a bug */
        e = ad_diag_set(d, AD_E_DOMAIN, 0, 0, "internal error: the path recorded at this point does not hold");
    return e;
}

void ad_work_paths(const ad_work *w, size_t *replayed, size_t *recorded, const uint64_t **seen, size_t *nseen)
{
    const struct adi_paths *P = w->paths;
    *replayed = P ? P->replayed : 0;
    *recorded = P ? P->recorded : 0;
    *seen = P ? P->seen : NULL;
    *nseen = P ? P->nseen : 0;
}


/* the rows' scratch in the workspace: a point, the rows of one path, their
 * results and flags, and each row's path */
typedef struct {
    double *point, *rows, *out;
    unsigned char *flags;
    signed char *path;
} rows_scratch;

static int scratch_rows(ad_work *w, const ad_plan *p, size_t np, size_t stride, rows_scratch *r)
{
    size_t nv = p->rq.r.nvars, width = p->L.width;
    size_t need = nv + np * stride + np * width + np + np;   /* in doubles, flags and paths rounded up */
    double *sc = adi_work_scratch(w, need);
    if (!sc) return -1;
    r->point = sc;
    r->rows = r->point + nv;
    r->out = r->rows + np * stride;
    r->flags = (unsigned char *)(r->out + np * width);
    r->path = (signed char *)(r->out + np * width + np);
    return 0;
}

int adi_derive_rows_paths(const ad_plan *p, ad_block *b, ad_work *w, size_t np, const double *rows, size_t stride,
                          size_t nlead, const double *tail, double *out, unsigned char *flags)
{
    struct adi_paths *P = paths_of(w, p);
    rows_scratch r;
    if (!P || scratch_rows(w, p, np, stride, &r) < 0) return -1;
    const ad_plan *cand[ADI_PATHS + 1];
    unsigned long *stamp[ADI_PATHS + 1];
    size_t nc = candidates(P, p, cand, stamp);
    /* which path each row takes: the guards' prefix of each tape, tried
     * in order (a row none holds for is flagged: ad_derive records it) */
    size_t nv = p->rq.r.nvars;
    if (nv > nlead) memcpy(r.point + nlead, tail, (nv - nlead) * sizeof *r.point);
    for (size_t j = 0; j < np; j++) {
        memcpy(r.point, rows + j * stride, nlead * sizeof *r.point);
        r.path[j] = -1;
        for (size_t c = 0; c < nc; c++) {
            int h = holds(cand[c], w, r.point);
            if (h < 0) return -1;
            if (h) {
                r.path[j] = (signed char)c;
                break;
            }
        }
        flags[j] = 1;
    }
    /* each path's rows, gathered, replayed in one block, scattered back */
    size_t width = p->L.width;
    for (size_t c = 0; c < nc; c++) {
        size_t ng = 0;
        for (size_t j = 0; j < np; j++)
            if (r.path[j] == (signed char)c) memcpy(r.rows + ng++ * stride, rows + j * stride, stride * sizeof *rows);
        if (!ng) continue;
        if (adi_derive_rows_on(cand[c], b, ng, r.rows, stride, nlead, tail, r.out, r.flags) < 0) return -1;
        size_t g = 0, ok = 0;
        for (size_t j = 0; j < np; j++) {
            if (r.path[j] != (signed char)c) continue;
            memcpy(out + j * width, r.out + g * width, width * sizeof *out);
            flags[j] = r.flags[g++];
            ok += !flags[j];
        }
        *stamp[c] = ++P->clock;
        P->replayed += ok;
        if (ok && met(P, cand[c]) < 0) return -1;
    }
    return 0;
}
