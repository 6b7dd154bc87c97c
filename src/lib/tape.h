/* tape.h - the tape's layout (private to the engine) and the recording
 * interface the parser uses.
 *
 * While recording, nodes are appended in source order and leaves (inputs,
 * constants) are interleaved with operations.  adi_tape_finish() renumbers
 * them so that the finished tape lists inputs (in order of first
 * appearance), then constants, then operations in execution order, which is
 * the order of the dump and of every sweep. */
#ifndef AD_TAPE_H
#define AD_TAPE_H

#include "adcalc.h"
#include "symtab.h"
#include "namemap.h"
#include "ops.h"

/* A tape has at most ADI_NODE_MAX nodes: the numbers from ADI_VEC_BASE up
 * are the handles of vectors while recording (vector.c) */
#define ADI_VEC_BASE 0x40000000
#define ADI_NODE_MAX (ADI_VEC_BASE - 1)

typedef struct {
    int32_t line, col;
    int32_t src;         /* which of the recorded sources (0 when only one) */
} adi_pos;

typedef struct {
    uint32_t off, len;   /* text in the tape's pool: variable name or literal */
} adi_text;

/* a name a node has in the source (ad_tape_keep_names): an assigned name,
 * or a user function's result as "f(...)"; the text is in the tape's pool.
 * node is a recording index while recording; adi_tape_finish renumbers
 * them, drops the dead nodes' and sorts them by node (then in recording
 * order), for the picture (dump.c) */
typedef struct {
    int32_t node;
    adi_text text;
} adi_name;

/* what a tape with guards keeps to be recorded again at another point
 * (derive.c): its sources and how it was made */
typedef struct {
    char *text;          /* the sources, one after another */
    size_t *len;         /* the length of each */
    size_t n;
    int optimized;       /* ad_optimize ran on it */
} adi_flowsrc;

struct ad_tape {
    ad_instr *code;      /* n nodes */
    adi_pos *pos;         /* source position of each node */
    size_t n, cap;
    size_t ninputs, nconsts;
    int32_t *outs;       /* the output nodes, one per recorded source or
                          * one per element of a source's vector value */
    size_t nout, outcap;
    struct adi_srcout {
        size_t first, n; /* outs[first .. first+n) are the source's */
        int vector;      /* its value is a vector */
    } *srcout;           /* one per source (empty: source o is output o) */
    size_t nsrcout, srcoutcap;
    int32_t cursrc;      /* source being recorded */
    int32_t pin_line, pin_col;   /* nonzero: the position every node takes
                                  * (a derived function's call, call.c) */
    double *cval;        /* nconsts constant values (after finish) */
    adi_text *text;       /* ninputs + nconsts leaf texts (after finish) */

    /* recording state */
    double *rcval;       /* constant value of each leaf, in recording order */
    adi_text *rtext;
    int32_t *rleaf;      /* recording index of each leaf, in recording order */
    size_t nleaves, leafcap;
    uint32_t *map;
    size_t mapcap;
    unsigned char *live;  /* nodes an output depends on (adi_tape_finish) */
    size_t livecap;
    char *pool;
    size_t pool_len, pool_cap;
    adi_symtab vars, consts;
    int32_t *wholes;     /* the constant 0, 1, 2, ... by value, or -1: an
                          * indexed sum's indices, found without hashing */
    size_t nwholes;
    adi_symtab vecs;     /* declared vector variables: name -> index in vin
                          * (ad_tape_set_vector; kept by ad_tape_reset) */
    struct adi_vecin {
        char *name;      /* its name (namelen bytes) */
        size_t namelen, len;
        int32_t *node;   /* the recorded input of each element, or -1 */
        size_t ncache;   /* ...for elements 1 .. ncache (0: NULL) */
    } *vin;
    size_t nvin, vincap;
    int nomem;           /* an allocation failed while recording */
    int full;            /* ...or the recording reached limit nodes (1), or its
                          * vectors ADI_VEC_PER_NODE * limit elements in all (2) */
    size_t limit;
    int first_line;      /* the line number of each source's first line */

    /* control flow: the recording computes every node's value as it goes,
     * so that a comparison can decide which way the program goes */
    int novalues;        /* set: no values are computed (the optimiser's copy) */
    double *rval;        /* the value of each node, by recording index */
    unsigned char *rdep; /* 1 when the node depends on an input */
    size_t rvalcap, rdepcap;
    const adi_names *at;    /* the point recorded at: input name -> index */
    const double *atv;      /* ...in these values; at NULL: no point, inputs nan */
    size_t max_iter;     /* loop iterations a recording may run */
    unsigned epoch;      /* counted up when recorded nodes are forgotten
                          * (a reset, a rollback): what a recording keeps
                          * of the tape's nodes is stale when it changes */
    int undecided;       /* recorded at no point, a comparison met an input's
                          * nan: the path is no point's (flow.c stops loops) */
    int pathless;        /* the last recording failed after it was undecided */
    adi_names point;     /* ad_tape_set_point's names: at is &point while set */
    size_t nguards;      /* guard nodes (after finish) */
    unsigned char *feeds;   /* with guards: 1 for a node an output depends on
                             * (the others feed guards only); else NULL */
    adi_flowsrc *flow;   /* set when the tape has guards */

    /* the names of nodes, only when asked for (keepnames): recording
     * without them notes nothing, so batches and replays pay nothing */
    int keepnames;
    adi_name *names;
    size_t nnames, namecap;
};

void adi_flow_free(adi_flowsrc *f);

/* recording; each returns the new node's recording index, or -1 when out
 * of memory; each node's value (rval) and dependence on an input (rdep)
 * are set as it is recorded */
int32_t adi_rec_var(ad_tape *t, const char *name, size_t len, int line, int col);
int32_t adi_rec_const(ad_tape *t, double v, const char *text, size_t len, int line, int col);
int32_t adi_rec_op(ad_tape *t, int op, int32_t a, int32_t b, int line, int col);
/* room made at once for nodes more nodes, leaves of them leaves with
 * bytes of text, when about that many are to be recorded (a vector's
 * elements, the optimiser's copy): the arrays are not grown and copied
 * again and again.  Never beyond the tape's limit.  An estimate, not a
 * need: room that cannot be had is left to the pushes, which report out
 * of memory if they cannot grow either */
void adi_tape_reserve(ad_tape *t, size_t nodes, size_t leaves, size_t bytes);
/* adi_tape_reserve for the elements of declared vector name[0..len) not
 * recorded yet, when all are about to be */
void adi_tape_reserve_vector(ad_tape *t, const char *name, size_t len);
/* notes that node (a recording index) is called name[0..len) followed by
 * suffix (a NUL-terminated string, "" for none), when the tape keeps
 * names; a name the node has just been given is not noted again.  0, or
 * -1 when out of memory (t->nomem set) */
int adi_tape_name(ad_tape *t, int32_t node, const char *name, size_t len, const char *suffix);
/* the input name[k] (1 <= k <= its length) of declared vector name:
 * recorded once, then the same node (no name is looked up); -1 when out
 * of memory */
int32_t adi_rec_element(ad_tape *t, const char *name, size_t len, size_t k, int line, int col);
/* the same by the vector's slot: adi_tape_vin(t, name, len), -1 when name
 * is no declared vector (memo.c's replays keep the slot) */
long adi_tape_vin(const ad_tape *t, const char *name, size_t len);
int32_t adi_rec_vin_element(ad_tape *t, size_t vi, size_t k, int line, int col);
/* records node (a recording index) as the next output; 0 or -1 */
int adi_tape_add_output(ad_tape *t, int32_t node);
/* records the n nodes (recording indices) as the outputs of the next
 * source, whose value is a vector (vector) or a number; 0 or -1 */
int adi_tape_add_source(ad_tape *t, const int32_t *nodes, size_t n, int vector);
/* gives u (a copy of t being made) t's sources' outputs; 0 or -1 */
int adi_tape_copy_sources(ad_tape *u, const ad_tape *t);
/* declares on u the vectors declared on t: 0 or -1 */
int adi_tape_copy_vectors(ad_tape *u, const ad_tape *t);
/* frees what only recording needs, on a finished tape (its nodes, values,
 * texts and outputs stay) */
void adi_tape_release_spare(ad_tape *t);
/* what finished tape t keeps as spare capacity, for a copy being made of
 * it: buffers of at least t's node count, handed out as *map and *flags
 * (NULL when t has none; the caller frees them).  The fresh pages of a copy
 * of millions of nodes cost more than recording it. */
void adi_tape_lend_spare(ad_tape *t, int32_t **map, unsigned char **flags, double **vals);
/* renumbers to inputs, constants, operations; 0 or -1 when out of memory */
int adi_tape_finish(ad_tape *t);

/* a recording tape's extent, to go back to (a session's statement that
 * failed, or that is not kept) */
typedef struct {
    size_t n, nleaves, pool_len, ninputs, nconsts, nnames;
} adi_tape_mark;
adi_tape_mark adi_tape_mark_at(const ad_tape *t);
/* the most nodes t may hold: its limit (--max-nodes), never beyond what
 * a node's index can number */
static inline size_t adi_tape_limit(const ad_tape *t)
{
    return t->limit < ADI_NODE_MAX ? t->limit : ADI_NODE_MAX;
}
/* the elements a recording's vectors may hold in all, per node of its limit */
#define ADI_VEC_PER_NODE 8
/* the error of a recording that could not go on (t->nomem): the tape's
 * limit (full), else what (out of memory) */
ad_errclass adi_err_recording(const ad_tape *t, const char *what, ad_diag *d);
/* drops every node recorded after m, and the names and constants they
 * brought; needs no memory */
void adi_tape_rollback(ad_tape *t, const adi_tape_mark *m);
/* the leaf (input or constant) at recording index r, while recording: its
 * index in rcval and rtext */
size_t adi_tape_leaf(const ad_tape *t, int32_t r);

#endif
