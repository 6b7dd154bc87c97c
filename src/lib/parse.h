/* parse.h - state shared by the lexer (grammar/lexer.l), the parser
 * (grammar/parser.y) and the call builder (call.c) while one expression is
 * parsed and recorded. */
#ifndef AD_PARSE_H
#define AD_PARSE_H

#include <setjmp.h>
#include "tape.h"
#include "ops.h"

/* a parameter of a user function, bound to an argument's node while the
 * function's body is inlined */
typedef struct {
    const char *name;
    size_t len;
    int32_t node;
} adi_param;

/* a user function f(u, v) = body: spans of the program source */
typedef struct {
    size_t name_off, name_len;
    size_t *param_off, *param_len;
    size_t nparams;
    size_t body_off, body_len;
    int body_line, body_col;
    int defining;          /* its body is being checked: a call is recursion */
} adi_ufunc;

/* a binding a block not taken (or a session's statement) made, to undo
 * (flow.c, session.c); or an element it changed in place */
typedef struct {
    size_t off, len;       /* the name in the source; (vec) off: the element's index from 0 */
    int32_t prev;          /* what it was bound to, or -1; (vec) the element's node */
    int32_t vec;           /* 0: a binding; else the vector whose element changed */
} adi_undo;

/* the variable of a for loop running (it cannot be assigned) */
typedef struct {
    size_t off, len;
    int line, col;         /* the 'for' */
} adi_loopvar;

/* the program being recorded: its source, the names assignments have
 * bound (to recording indices) and the user functions */
typedef struct adi_prog {
    const char *src;
    size_t len;
    adi_symtab bindings;
    adi_symtab funcs;       /* name -> index in fn */
    adi_ufunc *fn;
    size_t nfn, fncap;
    int checking;          /* a body is being checked: free names are stand-ins */
    int skip;              /* inside a part not taken (&&, ||, if(), a block): no guards */
    int journal;           /* note every binding in undo (a session's statement) */
    size_t iterations;     /* loop iterations run so far (flow.c) */
    int blockdepth;        /* blocks of control flow open */
    adi_undo *undo;        /* bindings made inside blocks not taken */
    size_t nundo, undocap;
    adi_loopvar *loopvar;  /* the for loops running */
    size_t nloopvar, loopvarcap;
    void *scanner;         /* the scanner parse.c keeps (a yyscan_t), or NULL */
    char *spanbuf;         /* ...and its buffer */
    size_t spancap;
    volatile int scanning; /* it is in use */
    int inloop;            /* a loop is running: its spans are noted (memo.c) */
    int sumdepth;          /* indexed sums open (vector.c), counted with inlining depth */
    adi_symtab memokeys;   /* span -> its notes */
    struct adi_memo *memo;
    size_t nmemo, memocap;
    adi_symtab blockkeys;  /* a loop's blocks -> their statements */
    struct adi_mblock *blocks;
    size_t nblocks, blockcap;
    uintptr_t stack_top;   /* the C stack where recording began (the guard of call.c) */
    /* vector values (vector.c): each a run of element nodes in velem */
    struct adi_vec *vecs;
    size_t nvecs, veccap;
    int32_t *velem;
    size_t nvelem, velemcap;
    /* the input vectors named so far: incache[i] is the handle of the
     * tape's input vector i (0: not made yet), made on its first use and
     * shared by the later ones, so that a loop naming x does not copy its
     * n elements at every iteration.  The handles hold for the tape
     * incache_t at epoch incache_epoch; another tape, or one that has
     * forgotten nodes since, empties the cache (adi_vec_input) */
    int32_t *incache;
    size_t nincache;
    int32_t incache_max;   /* no handle in incache is above it */
    const void *incache_t;
    unsigned incache_epoch;
} adi_prog;

/* a program over src[0..len) with no names bound and no functions */
void adi_prog_init(adi_prog *g, const char *src, size_t len);
void adi_prog_free(adi_prog *g);
/* frees the scanner parse.c keeps in g */
void adi_prog_scanner_free(adi_prog *g);
/* Records statement st of g's source: a definition (a failed one leaves
 * no trace in g), or an assignment's right side or an expression, whose
 * node (recording index) *root receives; an assignment binds nothing
 * until adi_prog_bind.  0 or the error's class, with d set. */
ad_errclass adi_prog_stmt(ad_tape *t, adi_prog *g, const ad_stmt *st, int32_t *root, ad_diag *d);
/* binds an assignment's name to node (noted to be undone inside a block
 * not taken); 0 or -1 when out of memory */
int adi_prog_bind(adi_prog *g, const ad_stmt *st, int32_t node);
/* records the statements of src[off..end) (a block: assignments and
 * control flow), the first at line:col */
ad_errclass adi_prog_block(ad_tape *t, adi_prog *g, size_t off, size_t end, int line, int col, ad_diag *d);
/* notes element k (from 0) of vector h, about to change in place, in the
 * undo log; 0 or -1 (out of memory) */
int adi_prog_note_element(adi_prog *g, int32_t h, size_t k);
/* undoes the bindings and elements noted since the undo log had mark entries */
void adi_prog_undo(adi_prog *g, size_t mark);
/* records statement st of control flow (if, while, for; flow.c) */
ad_errclass adi_flow_stmt(ad_tape *t, adi_prog *g, const ad_stmt *st, ad_diag *d);

/* statement scanning (program.c), over s[i..end): the first '{', '}' or
 * ';' outside parentheses; the '}' that closes the '{' at i; past blanks
 * and comments; whether 'else' is at i.  end when there is none. */
size_t adi_block_open(const char *s, size_t end, size_t i);
size_t adi_block_close(const char *s, size_t end, size_t i);
size_t adi_skip_space(const char *s, size_t end, size_t i);
int adi_is_else(const char *s, size_t end, size_t i);

#define ADI_MAX_INLINE_DEPTH 64   /* user functions calling user functions */
/* the C stack nested inlining may use: 64 levels take about 110 KB, so
 * they fit, and a stack limit of 256 KB still ends in the clear error of
 * the depth limit, not a crash (tests/hostile.test) */
#if defined(__SANITIZE_ADDRESS__)
#define ADI_SANITIZED_STACK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADI_SANITIZED_STACK 1
#endif
#endif
#ifdef ADI_SANITIZED_STACK
/* AddressSanitizer's frames are three to four times larger (red zones), and
 * its builds run on the default 8 MB stack: the same 64 levels fit */
#define ADI_INLINE_STACK (768 * 1024)
#else
#define ADI_INLINE_STACK (192 * 1024)
#endif

/* an expression's meaning: a number (its node, cond -1), a vector (its
 * handle, adi_is_vec, cond -1) or a condition (node -1, cond its outcome:
 * 0 or 1) */
typedef struct {
    int32_t node;
    int cond;
} adi_val;

typedef struct adi_pctx {
    ad_tape *t;
    adi_prog *prog;          /* NULL outside programs (never, today) */
    const adi_param *params; /* while inlining a user function */
    size_t nparams;
    int depth;              /* inlining depth */
    const char *src;
    size_t len;
    ad_diag *diag;
    int failed;             /* a diagnostic has been set */
    ad_errclass cls;        /* its class (also kept when diag is NULL) */
    int32_t root;           /* the output node (recording index) */
    int want_cond;          /* the span is a condition (flow.c's if, while) */
    int truth;              /* ...and its outcome */
    int32_t *args;          /* argument stack of the calls being parsed */
    size_t nargs, argcap;
    adi_pos *parens;         /* positions of the open '(' */
    size_t nparens, parencap;
    int line, col;          /* lexer position of the next byte */
    size_t off;
    int end_line, end_col;  /* just past the last token (not whitespace) */
    size_t end_off;
    jmp_buf oom;            /* where the lexer's allocator failure lands */
    size_t body_off;        /* where the body of sum(i = a..b, body) starts */
    int body_line, body_col, body_depth;
    int capturing, capbad;  /* the steps are noted (memo.c); they cannot be */
    struct adi_mstep *cap;
    size_t ncap;
} adi_pctx;

/* ---- vector.c: vector values while recording ----
 * A vector is a handle (ADI_VEC_BASE + its index in prog->vecs) wherever a
 * node can be: a binding, a parameter, a parse's root, an argument.  Its
 * elements are scalar nodes; the tape itself holds only scalars, so every
 * engine differentiates vectors unchanged.  Nodes stay below the base. */
struct adi_vec {
    size_t off, len;        /* its elements: velem[off .. off+len) */
    unsigned nbind;         /* names bound to it (counted up only): an
                             * element's assignment changes it in place
                             * when it is one name's alone */
    size_t input;           /* 1 + the tape's index of the input vector
                             * whose elements it holds unchanged (the
                             * program's cache of it), or 0 */
};
static inline int adi_is_vec(int32_t h) { return h >= ADI_VEC_BASE; }
/* a new vector of len elements (to be filled through adi_vec_el); leaves
 * through P->oom when out of memory */
int32_t adi_vec_new(adi_pctx *P, size_t len);
/* the elements and length of vector h (valid until the next adi_vec_new) */
int32_t *adi_vec_el(const adi_prog *g, int32_t h);
size_t adi_vec_len(const adi_prog *g, int32_t h);
/* the node of name[0..len) when it is a declared vector input or a vector
 * binding: the vector (input vectors are recorded element by element) */
int32_t adi_vec_input(adi_pctx *P, const char *name, size_t len, size_t n, int line, int col);
/* ...as a vector of its own, to be changed in place */
int32_t adi_vec_input_copy(adi_pctx *P, const char *name, size_t len, size_t n, int line, int col);
/* the arena is cut back to nvecs vectors and nvelem elements (an indexed
 * sum's term is done): an input's cached vector made above the cut is
 * moved down to it, and the new counts are set */
void adi_vec_cut(adi_prog *g, size_t nvecs, size_t nvelem);
/* between a session's statements: the arena keeps only the vectors a name
 * is bound to, or that hold tape t's input vectors (the cache), moved down
 * in order, their handles changed where they are held; 0, or -1 when out
 * of memory (then nothing changes) */
int adi_vec_compact(adi_prog *g, const ad_tape *t);
/* name[index] and name[lo..hi] (indices start at 1); -1 after a diagnostic */
int32_t adi_vec_index(adi_pctx *P, const char *name, size_t len, int32_t index, int line, int col, int iline,
                      int icol);
int32_t adi_vec_slice(adi_pctx *P, const char *name, size_t len, int32_t lo, int32_t hi, int line, int col,
                      int lline, int lcol, int hline, int hcol);
/* a op b elementwise (code an operator of ops.def; b -1 for a unary one),
 * a scalar broadcast; -1 after a diagnostic */
int32_t adi_vec_op(adi_pctx *P, int code, int32_t a, int32_t b, int line, int col);
/* fn applied elementwise to the nargs arguments on top of P->args (some
 * vectors, of one length), or max(v), min(v) of one vector; pops them */
int32_t adi_vec_call(adi_pctx *P, const adi_fninfo *fn, size_t nargs, int line, int col);
/* the vector functions (sum, prod, dot, norm, len, zeros): the one called
 * name[0..len), or -1; its call with the nargs arguments on top of P->args */
int adi_vec_fn_lookup(const char *name, size_t len);
const char *adi_vec_fn_name(int f);
/* vector function f (0, 1, ...) and its doc line; NULL past the last */
const char *adi_vec_fn_doc(size_t f, const char **doc);
int32_t adi_vec_fn_call(adi_pctx *P, int f, size_t nargs, int line, int col);
/* [a, b, ...]: the nargs numbers on top of P->args as a vector */
int32_t adi_vec_literal(adi_pctx *P, size_t nargs, int line, int col);
/* sum or prod (f) of the body src[P->body_off..end) over name = lo..hi;
 * -1 after a diagnostic */
int32_t adi_vec_indexed(adi_pctx *P, int f, size_t name_off, size_t name_len, int32_t lo, int32_t hi, size_t end,
                        int line, int col, int lline, int lcol, int hline, int hcol);
/* "a vector of N elements where a number is needed" at line:col: 1, or
 * 0 when h is not a vector */
int adi_vec_not_scalar(adi_pctx *P, int32_t h, int line, int col, const char *hint);
/* the same for a parse's root outside the parser */
ad_errclass adi_vec_root_error(const adi_prog *g, int32_t h, int line, int col, const char *where, ad_diag *d);
void adi_vec_free(adi_prog *g);
/* notes that a name bound to prev is now bound to h */
void adi_vec_bound(adi_prog *g, int32_t h, int32_t prev);
/* an expression's value h, at line:col, as outputs: an empty vector has
 * none (AD_E_DOMAIN in d: its length may be the point's) */
ad_errclass adi_vec_value(const adi_prog *g, int32_t h, int line, int col, ad_diag *d);
/* the assignment st of an element, name[index] = value (*root, the value's
 * node): *root becomes the vector to bind to name, the old one with the
 * element changed: in place when no other name holds it (noted in the
 * undo log when one is kept), else in a copy */
ad_errclass adi_vec_assign(ad_tape *t, adi_prog *g, const ad_stmt *st, int32_t *root, ad_diag *d);

/* ---- memo.c: a loop's spans, parsed once and replayed ---- */
/* the notes of a step of the parse being noted (no-ops when it is not) */
void adi_memo_name(adi_pctx *P, size_t off, size_t len, int line, int col, int32_t node);
void adi_memo_const(adi_pctx *P, double v, const char *text, size_t len, int line, int col, int32_t node);
void adi_memo_op(adi_pctx *P, int cmp, int code, int32_t a, int32_t b, int line, int col, int32_t node);
void adi_memo_not(adi_pctx *P);
void adi_memo_index(adi_pctx *P, size_t off, size_t len, int32_t index, int line, int col, int iline, int icol,
                    int32_t node);
void adi_memo_bad(adi_pctx *P);   /* this parse cannot be replayed */
/* the notes of span [off, off+len) parsed as a condition or not, or -1 */
long adi_memo_find(adi_prog *g, size_t off, size_t len, int cond);
int adi_memo_usable(const adi_prog *g, long m);
int adi_memo_retry(const adi_prog *g, long m);   /* not usable, but worth noting again */
/* keeps P's notes of a successful parse (root: its node) */
void adi_memo_keep(adi_prog *g, adi_pctx *P, size_t off, size_t len, int cond, int32_t root);
/* records the notes again: 0, -1 when out of memory (t says), or -2 when
 * the span must be parsed instead (an index out of range) */
int adi_memo_replay(ad_tape *t, adi_prog *g, long m, int32_t *root, int *truth);
void adi_memo_free(adi_prog *g);
/* the statements of block src[off..end) (first at line:col), split once
 * and kept: 0, or -1 when out of memory */
int adi_memo_stmts(adi_prog *g, size_t off, size_t end, int line, int col, const ad_stmt **st, size_t *n);

/* P for recording on t in g, with no parse running (diagnostics into d) */
void adi_pctx_init(adi_pctx *P, ad_tape *t, adi_prog *g, ad_diag *d);
/* sets the diagnostic (first one wins) and marks the parse failed */
void adi_perror(adi_pctx *P, ad_errclass cls, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* up to max bytes of s, made printable, for messages: "abc..." */
const char *adi_quote(char *buf, size_t bufsz, const char *s, size_t len);

/* records fn(args...) with the nargs arguments on top of P->args; returns
 * the node or -1 after setting a diagnostic */
int32_t adi_call(adi_pctx *P, const adi_fninfo *fn, size_t nargs, int line, int col);
/* 1 after the error of nesting too deep (user functions, indexed sums):
 * ADI_MAX_INLINE_DEPTH levels, or the C stack they may take; else 0 */
int adi_nesting_error(adi_pctx *P, int line, int col, const char *what);
/* inlines user function number fn with the nargs arguments on top of
 * P->args; the node or -1 after setting a diagnostic */
int32_t adi_inline_call(adi_pctx *P, size_t fn, size_t nargs, int line, int col);
/* the node a name stands for: a parameter, an assigned name, or an input */
int32_t adi_resolve_name(adi_pctx *P, const char *name, size_t len, int line, int col);
/* the user function called name, or -1 */
long adi_user_function(const adi_pctx *P, const char *name, size_t len);

/* Parses src[off..off+len) of prog (positions counted from line:col) as one
 * expression and records it; returns its root node, or -1 with *e and d
 * set.  params bind names while a user function is inlined. */
int32_t adi_parse_any(ad_tape *t, adi_prog *prog, size_t off, size_t len, int line, int col,
                      const adi_param *params, size_t nparams, int depth, int want_cond, int *truth, ad_diag *d,
                      ad_errclass *e);
/* (a wrapper of no frame of its own: user functions' bodies parse nested,
 * a level at a time, under the stack guard of call.c) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int32_t adi_parse_span(ad_tape *t, adi_prog *prog, size_t off, size_t len, int line, int col,
                                     const adi_param *params, size_t nparams, int depth, ad_diag *d,
                                     ad_errclass *e)
{
    return adi_parse_any(t, prog, off, len, line, col, params, nparams, depth, 0, NULL, d, e);
}
/* The outcome of comparison code (AD_OP_LT ... AD_OP_NE) of nodes a and b
 * by their recorded values; when either depends on an input (and P is not
 * skipping), the outcome is recorded as a guard at line:col.  Leaves
 * through P->oom when out of memory. */
int adi_compare(adi_pctx *P, int code, int32_t a, int32_t b, int line, int col);
/* Parses span [off, off+len) of prog as a condition: 0 or 1, or -1 with *e
 * and d set */
int adi_parse_cond(ad_tape *t, adi_prog *prog, size_t off, size_t len, int line, int col, ad_diag *d,
                   ad_errclass *e);

/* the closest function name to name (for "did you mean"), or NULL */
const char *adi_suggest_function(const char *name, size_t len);

#endif
