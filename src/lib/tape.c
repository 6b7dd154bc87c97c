/* tape.c - recording nodes, renumbering the finished tape, and the tape's
 * accessors. */
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "tape.h"
#include "rules.h"
#include "alloc.h"

ad_tape *ad_tape_new(void)
{
    ad_tape *t = adi_malloc(sizeof *t);
    if (!t) return NULL;
    memset(t, 0, sizeof *t);
    t->limit = AD_TAPE_DEFAULT_LIMIT;
    t->first_line = 1;
    t->max_iter = AD_TAPE_DEFAULT_ITERATIONS;
    adi_symtab_init(&t->vars);
    adi_symtab_init(&t->consts);
    adi_symtab_init(&t->vecs);
    return t;
}

void ad_tape_free(ad_tape *t)
{
    if (!t) return;
    free(t->code);
    free(t->pos);
    free(t->cval);
    free(t->text);
    free(t->rcval);
    free(t->rtext);
    free(t->rleaf);
    free(t->map);
    free(t->live);
    free(t->pool);
    free(t->outs);
    free(t->srcout);
    free(t->rval);
    free(t->rdep);
    free(t->feeds);
    free(t->names);
    adi_flow_free(t->flow);
    adi_symtab_free(&t->vars);
    adi_symtab_free(&t->consts);
    free(t->wholes);
    adi_symtab_free(&t->vecs);
    adi_names_free(&t->point);
    for (size_t i = 0; i < t->nvin; i++) {
        free(t->vin[i].name);
        free(t->vin[i].node);
    }
    free(t->vin);
    free(t);
}

void ad_tape_set_limit(ad_tape *t, size_t nodes) { t->limit = nodes; }
void ad_tape_set_iterations(ad_tape *t, size_t n) { t->max_iter = n; }
void ad_tape_set_first_line(ad_tape *t, int line) { t->first_line = line; }
size_t ad_tape_nguards(const ad_tape *t) { return t->nguards; }
void ad_tape_keep_names(ad_tape *t, int on) { t->keepnames = on != 0; }

int ad_tape_set_vector(ad_tape *t, const char *name, size_t namelen, size_t len)
{
    if (len > AD_VECTOR_MAX) return -1;
    int32_t i = adi_symtab_get(&t->vecs, name, namelen);
    if (i < 0) {
        if (len == 0) return 0;
        char *copy = adi_malloc(namelen + 1);
        if (!copy || adi_grow((void **)&t->vin, &t->vincap, t->nvin + 1, sizeof *t->vin) < 0 ||
            adi_symtab_put(&t->vecs, name, namelen, (int32_t)t->nvin) < 0) {
            free(copy);
            return -1;
        }
        memcpy(copy, name, namelen);
        copy[namelen] = 0;
        i = (int32_t)t->nvin++;
        t->vin[i] = (struct adi_vecin){copy, namelen, len, NULL, 0};
        return 0;
    }
    /* (0: the name is none, its slot stays).  The elements recorded so
     * far stay found: a session's vector that grows, shrinks and grows
     * again keeps its inputs */
    t->vin[i].len = len;
    return 0;
}

int ad_tape_set_point(ad_tape *t, const char *const *names, const double *values, size_t n)
{
    adi_names_free(&t->point);
    if (t->at == &t->point) {
        t->at = NULL;
        t->atv = NULL;
    }
    for (size_t i = 0; names && i < n; i++)
        if (adi_names_add(&t->point, names[i], strlen(names[i]), (int32_t)i) < 0) {
            adi_names_free(&t->point);
            return -1;
        }
    if (names) {
        t->at = &t->point;
        t->atv = values;
    }
    return 0;
}

int ad_tape_error_pathless(const ad_tape *t) { return t->pathless; }

size_t ad_tape_vector_len(const ad_tape *t, const char *name, size_t namelen)
{
    int32_t i = adi_symtab_get(&t->vecs, name, namelen);
    return i >= 0 ? t->vin[i].len : 0;
}

/* forgets the recorded elements from node n on */
static void forget_elements(ad_tape *t, size_t n)
{
    for (size_t i = 0; i < t->nvin; i++)
        for (size_t k = 0; k < t->vin[i].ncache; k++)
            if (t->vin[i].node[k] >= (int32_t)n) t->vin[i].node[k] = -1;
}

void adi_flow_free(adi_flowsrc *f)
{
    if (!f) return;
    free(f->text);
    free(f->len);
    free(f);
}

void ad_tape_reset(ad_tape *t)
{
    t->epoch++;
    t->n = t->ninputs = t->nconsts = t->nleaves = t->pool_len = 0;
    t->nomem = t->full = 0;
    t->nout = 0;
    t->nsrcout = 0;
    t->nnames = 0;
    t->nguards = 0;
    t->undecided = 0;
    t->pathless = 0;
    free(t->feeds);
    t->feeds = NULL;
    adi_flow_free(t->flow);
    t->flow = NULL;
    t->cursrc = 0;
    t->pin_line = t->pin_col = 0;
    adi_symtab_clear(&t->vars);
    adi_symtab_clear(&t->consts);
    if (t->nwholes) memset(t->wholes, 0xff, t->nwholes * sizeof *t->wholes);
    forget_elements(t, 0);
}

void adi_tape_reserve(ad_tape *t, size_t nodes, size_t leaves, size_t bytes)
{
    size_t max = adi_tape_limit(t);
    if (t->nomem || t->n >= max) return;
    if (nodes > max - t->n) nodes = max - t->n;
    if (leaves > nodes) leaves = nodes;
    if (bytes > UINT32_MAX - t->pool_len) bytes = UINT32_MAX - t->pool_len;
    /* (each array keeps its contents whether its growth fails or not) */
    size_t need = t->n + nodes, c1 = t->cap, c2 = t->cap, l1 = t->leafcap, l2 = t->leafcap, l3 = t->leafcap;
    int bad = adi_reserve((void **)&t->code, &c1, need, sizeof *t->code) < 0 ||
              adi_reserve((void **)&t->pos, &c2, need, sizeof *t->pos) < 0;
    t->cap = c1 < c2 ? c1 : c2;
    if (bad) return;
    if (leaves) {
        bad = adi_reserve((void **)&t->rcval, &l1, t->nleaves + leaves, sizeof *t->rcval) < 0 ||
              adi_reserve((void **)&t->rtext, &l2, t->nleaves + leaves, sizeof *t->rtext) < 0 ||
              adi_reserve((void **)&t->rleaf, &l3, t->nleaves + leaves, sizeof *t->rleaf) < 0 ||
              adi_reserve((void **)&t->pool, &t->pool_cap, t->pool_len + bytes, 1) < 0;
        t->leafcap = l1 < l2 ? (l1 < l3 ? l1 : l3) : (l2 < l3 ? l2 : l3);
        if (bad) return;
    }
    if (!t->novalues && adi_reserve((void **)&t->rval, &t->rvalcap, need, sizeof *t->rval) == 0)
        adi_reserve((void **)&t->rdep, &t->rdepcap, need, 1);
}

static int32_t push(ad_tape *t, uint32_t op, int32_t a, int32_t b, int line, int col)
{
    if (t->nomem) return -1;
    if (t->n >= adi_tape_limit(t)) {
        t->nomem = t->full = 1;
        return -1;
    }
    if (t->n == t->cap) {
        size_t c1 = t->cap, c2 = t->cap;
        if (adi_grow((void **)&t->code, &c1, t->n + 1, sizeof *t->code) < 0 ||
            adi_grow((void **)&t->pos, &c2, t->n + 1, sizeof *t->pos) < 0) {
            t->nomem = 1;
            return -1;
        }
        t->cap = c1 < c2 ? c1 : c2;
    }
    if (!t->novalues && (adi_grow((void **)&t->rval, &t->rvalcap, t->n + 1, sizeof *t->rval) < 0 ||
                         adi_grow((void **)&t->rdep, &t->rdepcap, t->n + 1, 1) < 0)) {
        t->nomem = 1;
        return -1;
    }
    t->code[t->n] = (ad_instr){op, a, b};
    if (t->pin_line) {
        line = t->pin_line;
        col = t->pin_col;
    }
    t->pos[t->n] = (adi_pos){line, col, t->cursrc};
    return (int32_t)t->n++;
}

static int32_t push_leaf(ad_tape *t, uint32_t op, double v, const char *text, size_t len,
                         int line, int col)
{
    if (len > UINT32_MAX || t->pool_len + len > UINT32_MAX) { t->nomem = 1; return -1; }
    size_t c1 = t->leafcap, c2 = t->leafcap, c3 = t->leafcap;
    if (adi_grow((void **)&t->rcval, &c1, t->nleaves + 1, sizeof *t->rcval) < 0 ||
        adi_grow((void **)&t->rtext, &c2, t->nleaves + 1, sizeof *t->rtext) < 0 ||
        adi_grow((void **)&t->rleaf, &c3, t->nleaves + 1, sizeof *t->rleaf) < 0 ||
        adi_grow((void **)&t->pool, &t->pool_cap, t->pool_len + len, 1) < 0) {
        t->nomem = 1;
        return -1;
    }
    t->leafcap = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    int32_t i = push(t, op, -1, -1, line, col);
    if (i < 0) return -1;
    memcpy(t->pool + t->pool_len, text, len);
    t->rcval[t->nleaves] = v;
    t->rtext[t->nleaves] = (adi_text){(uint32_t)t->pool_len, (uint32_t)len};
    t->rleaf[t->nleaves] = i;
    t->nleaves++;
    t->pool_len += len;
    return i;
}

static int32_t new_input(ad_tape *t, const char *name, size_t len, int line, int col)
{
    int32_t i = push_leaf(t, AD_OP_INPUT, 0, name, len, line, col);
    if (i < 0) return -1;
    t->ninputs++;
    if (t->novalues) return i;
    int32_t k = t->at ? adi_names_get(t->at, name, len) : -1;
    t->rval[i] = k >= 0 ? t->atv[k] : NAN;
    t->rdep[i] = 1;
    return i;
}

/* element k (from 1) of declared vector v, called name: its input, the
 * one recorded before or a new one (found by index, never hashed) */
static int32_t element(ad_tape *t, struct adi_vecin *v, size_t k, const char *name, size_t len, int line, int col)
{
    if (k > v->ncache) {
        int32_t *node = adi_realloc(v->node, v->len * sizeof *node);
        if (!node) {
            t->nomem = 1;
            return -1;
        }
        memset(node + v->ncache, 0xff, (v->len - v->ncache) * sizeof *node);   /* all -1 */
        v->node = node;
        v->ncache = v->len;
    }
    if (v->node[k - 1] >= 0) return v->node[k - 1];
    int32_t r = new_input(t, name, len, line, col);
    if (r >= 0) v->node[k - 1] = r;
    return r;
}

int32_t adi_rec_var(ad_tape *t, const char *name, size_t len, int line, int col)
{
    size_t bl, k;
    int32_t v;
    if (t->nvin && adi_element_name(name, len, &bl, &k) && (v = adi_symtab_get(&t->vecs, name, bl)) >= 0 &&
        k <= t->vin[v].len)
        return element(t, &t->vin[v], k, name, len, line, col);   /* x[k] of a declared vector x */
    int32_t i = adi_symtab_get(&t->vars, name, len);
    if (i >= 0) return i;
    i = new_input(t, name, len, line, col);
    if (i < 0 || adi_symtab_put(&t->vars, name, len, i) < 0) { t->nomem = 1; return -1; }
    return i;
}

int32_t adi_rec_element(ad_tape *t, const char *name, size_t len, size_t k, int line, int col)
{
    return adi_rec_vin_element(t, (size_t)adi_symtab_get(&t->vecs, name, len), k, line, col);
}

long adi_tape_vin(const ad_tape *t, const char *name, size_t len)
{
    int32_t i = adi_symtab_get(&t->vecs, name, len);
    return i >= 0 && t->vin[i].len ? i : -1;
}

void adi_tape_reserve_vector(ad_tape *t, const char *name, size_t len)
{
    int32_t i = adi_symtab_get(&t->vecs, name, len);
    if (i < 0) return;
    const struct adi_vecin *v = &t->vin[i];
    size_t fresh = v->len > v->ncache ? v->len - v->ncache : 0;
    for (size_t k = 0; k < v->ncache && k < v->len; k++) fresh += v->node[k] < 0;
    /* each named name[k]: the name, brackets and up to 9 digits (k <= AD_VECTOR_MAX) */
    if (fresh) adi_tape_reserve(t, fresh, fresh, fresh * (len + 11));
}

int32_t adi_rec_vin_element(ad_tape *t, size_t vi, size_t k, int line, int col)
{
    struct adi_vecin *v = &t->vin[vi];
    const char *name = v->name;
    size_t len = v->namelen;
    if (k <= v->ncache && v->node[k - 1] >= 0) return v->node[k - 1];
    char small[96], *buf = small;
    if (len + 24 > sizeof small && !(buf = adi_malloc(len + 24))) {
        t->nomem = 1;
        return -1;
    }
    /* name[k] */
    char digits[24];
    size_t nd = 0, j = len;
    for (size_t q = k; nd == 0 || q; q /= 10) digits[nd++] = (char)('0' + q % 10);
    memcpy(buf, name, len);
    buf[j++] = '[';
    while (nd) buf[j++] = digits[--nd];
    buf[j++] = ']';
    int32_t r = element(t, v, k, buf, j, line, col);
    if (buf != small) free(buf);
    return r;
}

/* the slot in wholes of the constant v, when v is a whole number below 4
 * per node recorded (the array stays within the tape's size); else NULL,
 * and v is hashed.  The array grows by doubling, taking in the constants
 * recorded before in the range it gains, so that a value is never two
 * constants */
static int32_t *whole_slot(ad_tape *t, double v)
{
    if (!(v >= 0) || v != floor(v) || (v == 0 && signbit(v))) return NULL;
    if (v >= (double)t->nwholes) {
        if (v >= 4.0 * (double)t->n + 64) return NULL;
        size_t cap = t->nwholes ? t->nwholes : 64, old = t->nwholes;
        while ((double)cap <= v) cap *= 2;
        int32_t *w = adi_realloc(t->wholes, cap * sizeof *w);
        if (!w) return NULL;
        memset(w + old, 0xff, (cap - old) * sizeof *w);   /* all -1 */
        t->wholes = w;
        t->nwholes = cap;
        for (size_t l = 0; l < t->nleaves; l++) {
            double c = t->rcval[l];
            if (t->code[t->rleaf[l]].op == AD_OP_CONST && c >= (double)old && c < (double)cap && c == floor(c) &&
                !signbit(c) && w[(size_t)c] < 0)
                w[(size_t)c] = t->rleaf[l];
        }
    }
    return &t->wholes[(size_t)v];
}

int32_t adi_rec_const(ad_tape *t, double v, const char *text, size_t len, int line, int col)
{
    int32_t *w = whole_slot(t, v), i;
    if (w && *w >= 0) return *w;
    if (!w && (i = adi_symtab_get(&t->consts, &v, sizeof v)) >= 0) return i;
    i = push_leaf(t, AD_OP_CONST, v, text, len, line, col);
    if (i < 0) return -1;
    if (w) *w = i;
    else if (adi_symtab_put(&t->consts, &v, sizeof v, i) < 0) { t->nomem = 1; return -1; }
    t->nconsts++;
    if (t->novalues) return i;
    t->rval[i] = v;
    t->rdep[i] = 0;
    return i;
}

int32_t adi_rec_op(ad_tape *t, int op, int32_t a, int32_t b, int line, int col)
{
    int32_t i = push(t, (uint32_t)op, a, b, line, col);
    if (i < 0 || t->novalues) return i;
    double vb = b >= 0 ? t->rval[b] : 0;
    t->rval[i] = adi_op_value(op, t->rval[a], vb);
    t->rdep[i] = !adi_op_is_guard((unsigned)op) && (t->rdep[a] || (b >= 0 && t->rdep[b]));
    return i;
}

int adi_tape_name(ad_tape *t, int32_t node, const char *name, size_t len, const char *suffix)
{
    if (!t->keepnames || node < 0) return 0;
    size_t sl = strlen(suffix), all = len + sl;
    if (t->nnames) {   /* a loop's y = x, once per iteration: noted once */
        const adi_name *last = &t->names[t->nnames - 1];
        if (last->node == node && last->text.len == all && !memcmp(t->pool + last->text.off, name, len) &&
            !memcmp(t->pool + last->text.off + len, suffix, sl))
            return 0;
    }
    if (all > UINT32_MAX || t->pool_len + all > UINT32_MAX ||
        adi_grow((void **)&t->names, &t->namecap, t->nnames + 1, sizeof *t->names) < 0 ||
        adi_grow((void **)&t->pool, &t->pool_cap, t->pool_len + all, 1) < 0) {
        t->nomem = 1;
        return -1;
    }
    memcpy(t->pool + t->pool_len, name, len);
    memcpy(t->pool + t->pool_len + len, suffix, sl);
    t->names[t->nnames++] = (adi_name){node, {(uint32_t)t->pool_len, (uint32_t)all}};
    t->pool_len += all;
    return 0;
}

adi_tape_mark adi_tape_mark_at(const ad_tape *t)
{
    return (adi_tape_mark){t->n, t->nleaves, t->pool_len, t->ninputs, t->nconsts, t->nnames};
}

/* a constant rolled back: out of the array or the hash */
static void forget_const(ad_tape *t, double v)
{
    if (v >= 0 && v < (double)t->nwholes && v == floor(v) && !(v == 0 && signbit(v))) t->wholes[(size_t)v] = -1;
    adi_symtab_forget(&t->consts, &v, sizeof v);
}

void adi_tape_rollback(ad_tape *t, const adi_tape_mark *m)
{
    for (size_t l = m->nleaves; l < t->nleaves; l++) {
        if (t->code[t->rleaf[l]].op == AD_OP_INPUT)
            adi_symtab_forget(&t->vars, t->pool + t->rtext[l].off, t->rtext[l].len);
        else
            forget_const(t, t->rcval[l]);
    }
    forget_elements(t, m->n);
    t->epoch++;
    t->n = m->n;
    t->nleaves = m->nleaves;
    t->pool_len = m->pool_len;
    t->ninputs = m->ninputs;
    t->nconsts = m->nconsts;
    t->nnames = m->nnames;
    t->nomem = t->full = 0;
}

ad_errclass adi_err_recording(const ad_tape *t, const char *what, ad_diag *d)
{
    size_t limit = adi_tape_limit(t);
    if (!t->full) return ad_diag_set(d, AD_E_IO, 0, 0, "%s", what);
    ad_errclass e = t->full == 2
                        ? ad_diag_set(d, AD_E_IO, 0, 0, "the vectors would hold more than %zu elements in all",
                                      ADI_VEC_PER_NODE * limit)
                        : ad_diag_set(d, AD_E_IO, 0, 0, "the tape would exceed %zu nodes", limit);
    if (d) d->hint = AD_HINT_TAPE_LIMIT;
    return e;
}

size_t adi_tape_leaf(const ad_tape *t, int32_t r)
{
    size_t lo = 0, hi = t->nleaves;   /* rleaf is in recording order */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->rleaf[mid] <= r) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* a before b: by node, then in recording order (the pool grows with it) */
static int by_node(const void *x, const void *y)
{
    const adi_name *a = x, *b = y;
    if (a->node != b->node) return a->node < b->node ? -1 : 1;
    return a->text.off < b->text.off ? -1 : a->text.off > b->text.off;
}

/* the names, by recording index, as names of the finished tape's nodes
 * (t->map, t->live: adi_tape_finish's), sorted by node */
static void rename_nodes(ad_tape *t)
{
    size_t k = 0;
    for (size_t j = 0; j < t->nnames; j++) {
        adi_name m = t->names[j];
        if (!t->live[m.node]) continue;
        m.node = (int32_t)t->map[m.node];
        t->names[k++] = m;
    }
    t->nnames = k;
    if (k > 1) qsort(t->names, k, sizeof *t->names, by_node);
}

/* Renumbering in place: a tape of millions of nodes (a loop's) spent more
 * on the fresh pages of a second copy than on the work.  Operations move
 * down over the dead nodes and leaves (each goes to no later index than
 * its own), then up past the leaves in one memmove; the leaves' positions
 * wait in a buffer of their own meanwhile. */
int adi_tape_finish(ad_tape *t)
{
    if (t->nomem) return -1;
    size_t n = t->n, nl = t->nleaves;
    /* the recording's values have decided its path: their buffers are
     * spare from here (adi_tape_lend_spare), and its flags of dependence
     * become the flags of liveness */
    if (!t->live && t->rdep && t->rdepcap >= n) {
        t->live = t->rdep;
        t->livecap = t->rdepcap;
        t->rdep = NULL;
        t->rdepcap = 0;
    }
    if (adi_grow((void **)&t->map, &t->mapcap, n, sizeof *t->map) < 0 ||
        adi_grow((void **)&t->live, &t->livecap, n, 1) < 0)
        return -1;
    free(t->cval);
    free(t->text);
    t->cval = adi_malloc((t->nconsts ? t->nconsts : 1) * sizeof *t->cval);
    t->text = adi_malloc((nl ? nl : 1) * sizeof *t->text);
    adi_pos *lpos = adi_malloc((nl ? nl : 1) * sizeof *lpos);
    if (!t->cval || !t->text || !lpos) {
        free(lpos);
        return -1;
    }

    /* dead code: operations and constants no output depends on (a program's
     * unused statements, a function body checked but never called).  The
     * operands of a node were recorded before it, so one backward pass
     * finds what is live.  Inputs always stay. */
    memset(t->live, 0, n);
    for (size_t o = 0; o < t->nout; o++) t->live[t->outs[o]] = 1;
    for (size_t r = n; r-- > 0;) {
        if (t->code[r].op == AD_OP_INPUT || adi_op_is_guard(t->code[r].op)) t->live[r] = 1;
        if (!t->live[r]) continue;
        if (t->code[r].a >= 0) t->live[t->code[r].a] = 1;
        if (t->code[r].b >= 0) t->live[t->code[r].b] = 1;
    }
    size_t nconsts = 0;
    for (size_t l = 0; l < nl; l++) nconsts += t->code[t->rleaf[l]].op == AD_OP_CONST && t->live[t->rleaf[l]];
    t->nconsts = nconsts;

    /* leaves first: inputs, then constants, each in recording order */
    size_t in = 0, cn = t->ninputs;
    for (size_t l = 0; l < nl; l++) {
        int32_t r = t->rleaf[l];
        if (!t->live[r]) continue;
        size_t dst = t->code[r].op == AD_OP_INPUT ? in++ : cn++;
        t->map[r] = (uint32_t)dst;
        t->text[dst] = t->rtext[l];
        lpos[dst] = t->pos[r];
        if (dst >= t->ninputs) t->cval[dst - t->ninputs] = t->rcval[l];
    }
    /* then the operations, in execution order (an operand, recorded
     * before its user, has its new index already) */
    size_t nleaf = t->ninputs + nconsts, k = 0;
    t->nguards = 0;
    for (size_t r = 0; r < n; r++) {
        ad_instr c = t->code[r];
        if (!t->live[r] || c.op == AD_OP_INPUT || c.op == AD_OP_CONST) continue;
        t->map[r] = (uint32_t)(nleaf + k);
        if (c.a >= 0) c.a = (int32_t)t->map[c.a];
        if (c.b >= 0) c.b = (int32_t)t->map[c.b];
        t->nguards += adi_op_is_guard(c.op);
        t->code[k] = c;   /* k <= r: nothing unread is overwritten */
        t->pos[k++] = t->pos[r];
    }
    memmove(t->code + nleaf, t->code, k * sizeof *t->code);
    memmove(t->pos + nleaf, t->pos, k * sizeof *t->pos);
    for (size_t i = 0; i < nleaf; i++) {
        t->code[i] = (ad_instr){i < t->ninputs ? AD_OP_INPUT : AD_OP_CONST, -1, -1};
        t->pos[i] = lpos[i];
    }
    free(lpos);
    for (size_t o = 0; o < t->nout; o++) t->outs[o] = (int32_t)t->map[t->outs[o]];
    rename_nodes(t);
    size_t next = nleaf + k;
    t->n = next;
    free(t->feeds);
    t->feeds = NULL;
    if (t->nguards) {
        /* what the outputs depend on, apart from what only guards use */
        t->feeds = adi_calloc(next, 1);
        if (!t->feeds) return -1;
        for (size_t o = 0; o < t->nout; o++) t->feeds[t->outs[o]] = 1;
        for (size_t i = next; i-- > 0;) {
            if (!t->feeds[i]) continue;
            if (t->code[i].a >= 0) t->feeds[t->code[i].a] = 1;
            if (t->code[i].b >= 0) t->feeds[t->code[i].b] = 1;
        }
    }
    return 0;
}

void adi_tape_lend_spare(ad_tape *t, int32_t **map, unsigned char **flags, double **vals)
{
    *map = NULL;
    *flags = NULL;
    *vals = NULL;
    if (t->rval && t->rvalcap >= t->n) {
        *vals = t->rval;
        t->rval = NULL;
        t->rvalcap = 0;
    }
    if (t->map && t->mapcap >= t->n) {
        *map = (int32_t *)t->map;
        t->map = NULL;
        t->mapcap = 0;
    }
    if (t->live && t->livecap >= t->n) {
        *flags = t->live;
        t->live = NULL;
        t->livecap = 0;
    }
}

void adi_tape_release_spare(ad_tape *t)
{
    free(t->map);
    free(t->live);
    free(t->rcval);
    free(t->rtext);
    free(t->rleaf);
    free(t->rval);
    free(t->rdep);
    t->rval = NULL;
    t->rdep = NULL;
    t->rvalcap = t->rdepcap = 0;
    t->map = NULL;
    t->live = NULL;
    t->rcval = NULL;
    t->rtext = NULL;
    t->rleaf = NULL;
    t->mapcap = t->livecap = t->leafcap = 0;
    t->nleaves = 0;
    adi_symtab_free(&t->vars);
    adi_symtab_free(&t->consts);
    free(t->wholes);
    t->wholes = NULL;
    t->nwholes = 0;
}

size_t ad_tape_size(const ad_tape *t) { return t->n; }
size_t ad_tape_ninputs(const ad_tape *t) { return t->ninputs; }
size_t ad_tape_nconsts(const ad_tape *t) { return t->nconsts; }
const ad_instr *ad_tape_code(const ad_tape *t) { return t->code; }
const double *ad_tape_consts(const ad_tape *t) { return t->cval; }
size_t ad_node_bytes(void) { return sizeof(ad_instr) + sizeof(double); }

const char *ad_tape_input_name(const ad_tape *t, size_t i, size_t *len)
{
    *len = t->text[i].len;
    return t->pool + t->text[i].off;
}

const char *ad_tape_const_text(const ad_tape *t, size_t i, size_t *len)
{
    return ad_tape_input_name(t, t->ninputs + i, len);
}

size_t ad_tape_noutputs(const ad_tape *t) { return t->nout; }
size_t ad_tape_output(const ad_tape *t, size_t o) { return (size_t)t->outs[o]; }
int ad_tape_source(const ad_tape *t, size_t i) { return t->pos[i].src; }

int adi_tape_add_source(ad_tape *t, const int32_t *nodes, size_t n, int vector)
{
    if (adi_grow((void **)&t->srcout, &t->srcoutcap, t->nsrcout + 1, sizeof *t->srcout) < 0) {
        t->nomem = 1;
        return -1;
    }
    t->srcout[t->nsrcout++] = (struct adi_srcout){t->nout, n, vector};
    for (size_t k = 0; k < n; k++)
        if (adi_tape_add_output(t, nodes[k]) < 0) return -1;
    return 0;
}

int adi_tape_copy_sources(ad_tape *u, const ad_tape *t)
{
    if (t->nsrcout && adi_grow((void **)&u->srcout, &u->srcoutcap, t->nsrcout, sizeof *u->srcout) < 0) return -1;
    if (t->nsrcout) memcpy(u->srcout, t->srcout, t->nsrcout * sizeof *t->srcout);
    u->nsrcout = t->nsrcout;
    return 0;
}

int adi_tape_copy_vectors(ad_tape *u, const ad_tape *t)
{
    for (size_t i = 0; i < t->nvin; i++)
        if (ad_tape_set_vector(u, t->vin[i].name, t->vin[i].namelen, t->vin[i].len) < 0) return -1;
    return 0;
}

size_t ad_tape_nsources(const ad_tape *t) { return t->nsrcout ? t->nsrcout : t->nout; }

size_t ad_tape_source_outputs(const ad_tape *t, size_t s, size_t *first, int *vector)
{
    if (!t->nsrcout) {
        *first = s;
        if (vector) *vector = 0;
        return 1;
    }
    *first = t->srcout[s].first;
    if (vector) *vector = t->srcout[s].vector;
    return t->srcout[s].n;
}

int adi_tape_add_output(ad_tape *t, int32_t node)
{
    if (adi_grow((void **)&t->outs, &t->outcap, t->nout + 1, sizeof *t->outs) < 0) {
        t->nomem = 1;
        return -1;
    }
    t->outs[t->nout++] = node;
    return 0;
}

void ad_tape_pos(const ad_tape *t, size_t i, int *line, int *col)
{
    *line = t->pos[i].line;
    *col = t->pos[i].col;
}
