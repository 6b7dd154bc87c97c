/* parse.c - running the Flex scanner and Bison parser over one span of a
 * program (an expression), recording it on a tape, and turning every
 * failure (syntax, names, nesting, memory) into a diagnostic.  Whole
 * sources and their statements are program.c's, which calls this; the
 * grammar's names and calls are call.c's.  call.c calls this again for
 * the body of a user function and the expansion of a derived one: the
 * one recursion of the parse layer, bounded by the inlining depth and its
 * stack guard (call.c). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "parse.h"
#include "parser.h"
#define YYSTYPE ADI_YYSTYPE
#define YYLTYPE ADI_YYLTYPE
#include "lexer.h"
#include "alloc.h"

void adi_prog_scanner_free(adi_prog *g)
{
    if (g->scanner) adi_yylex_destroy(g->scanner);
    free(g->spanbuf);
    g->scanner = NULL;
    g->spanbuf = NULL;
    g->spancap = 0;
}

void adi_pctx_init(adi_pctx *P, ad_tape *t, adi_prog *g, ad_diag *d)
{
    memset(P, 0, sizeof *P);
    P->t = t;
    P->prog = g;
    P->src = g->src;
    P->len = g->len;
    P->diag = d;
}

void adi_perror(adi_pctx *P, ad_errclass cls, int line, int col, const char *fmt, ...)
{
    if (P->failed) return;
    P->failed = 1;
    P->cls = cls;
    if (!P->diag) return;
    P->diag->cls = cls;
    P->diag->line = line;
    P->diag->col = col;
    P->diag->src = 0;
    P->diag->hint = AD_HINT_NONE;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(P->diag->msg, sizeof P->diag->msg, fmt, ap);
    va_end(ap);
}

const char *adi_quote(char *buf, size_t bufsz, const char *s, size_t len)
{
    size_t max = bufsz - 4, j = 0;
    for (size_t i = 0; i < len && j < max; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[j++] = (c >= 32 && c < 127) ? (char)c : '?';
    }
    if (len > max) {
        memcpy(buf + j, "...", 3);
        j += 3;
    }
    buf[j] = 0;
    return buf;
}

int adi_compare(adi_pctx *P, int code, int32_t a, int32_t b, int line, int col)
{
    adi_memo_op(P, 1, code, a, b, line, col, -1);
    const ad_tape *t = P->t;
    double x = t->rval[a], y = t->rval[b];
    int truth, neg;
    switch (code) {
    case AD_OP_LT: truth = x < y; neg = AD_OP_GE; break;
    case AD_OP_LE: truth = x <= y; neg = AD_OP_GT; break;
    case AD_OP_GT: truth = x > y; neg = AD_OP_LE; break;
    case AD_OP_GE: truth = x >= y; neg = AD_OP_LT; break;
    case AD_OP_EQ: truth = x == y; neg = AD_OP_NE; break;
    default: truth = x != y; neg = AD_OP_EQ; break;
    }
    if (P->prog->skip || !(t->rdep[a] || t->rdep[b])) return truth;
    if (adi_rec_op(P->t, truth ? code : neg, a, b, line, col) < 0) longjmp(P->oom, 1);
    if (!t->at && !t->undecided && (x != x || y != y)) {
        /* recorded at no point: an input's value is nan, so this path is
         * no real point's; a guard that holds nowhere (nan == nan) makes
         * every point record its own, and loops stop (flow.c) */
        ad_tape *tw = P->t;
        tw->undecided = 1;
        int32_t k = adi_rec_const(tw, NAN, "nan", 3, line, col);
        if (k < 0 || adi_rec_op(tw, AD_OP_EQ, k, k, line, col) < 0) longjmp(P->oom, 1);
    }
    return truth;
}

/* the error of a recording that ran out of memory or reached the limit */
static int32_t memory_error(const ad_tape *t, ad_diag *d, ad_errclass *e)
{
    *e = adi_err_recording(t, "out of memory while parsing", d);
    return -1;
}

/* a loop's span replayed from its notes (memo.c): its root node; out of
 * line, so that its locals stay out of parse's frame, which nests once per
 * level of user functions */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int32_t replay(ad_tape *t, adi_prog *prog, long mi, int *truth, ad_diag *d, ad_errclass *e)
{
    int32_t root;
    int tr;
    int rc = adi_memo_replay(t, prog, mi, &root, &tr);
    if (rc == -2 && !t->nomem) return -2;
    if (rc < 0 || t->nomem) return memory_error(t, d, e);
    *e = AD_E_NONE;
    if (truth) *truth = tr;
    return root;
}

int32_t adi_parse_any(ad_tape *t, adi_prog *prog, size_t off, size_t len, int line, int col,
                      const adi_param *params, size_t nparams, int depth, int want_cond, int *truth, ad_diag *d,
                      ad_errclass *e)
{
    if (len > (size_t)INT32_MAX - 2 || off > (size_t)INT32_MAX - 2 - len) {
        *e = ad_diag_set(d, AD_E_SYNTAX, 0, 0, "program longer than 2 GiB");
        return -1;
    }
    /* a loop's span: replayed from its notes, or noted as it is parsed */
    int memo = prog->inloop && depth == 0 && !params && !prog->checking;
    long mi = memo ? adi_memo_find(prog, off, len, want_cond) : -1;
    if (mi >= 0 && adi_memo_usable(prog, mi)) {
        int32_t r = replay(t, prog, mi, truth, d, e);
        if (r != -2) return r;
        mi = -1;   /* parsed, and not noted again */
        memo = 0;
    }
    adi_pctx P;
    adi_pctx_init(&P, t, prog, d);
    P.capturing = memo && (mi < 0 || adi_memo_retry(prog, mi));
    P.params = params;
    P.nparams = nparams;
    P.depth = depth;
    P.line = P.end_line = line;
    P.col = P.end_col = col;
    P.off = P.end_off = off;
    P.root = -1;
    P.want_cond = want_cond;

    /* the program's scanner and span buffer, kept between parses (a loop
     * parses its body again each time round); a parse inside a parse (a
     * user function's body) has a scanner of its own */
    int shared = !prog->scanning;
    yyscan_t volatile scanner = NULL;
    YY_BUFFER_STATE volatile buf = NULL;
    volatile int status = 0;
    int skip = prog->skip;   /* an error leaves the parse inside a part not taken */
    if (shared) prog->scanning = 1;
    if (setjmp(P.oom)) {
        status = -1;
    } else if (shared) {
        if ((!prog->scanner && adi_yylex_init(&prog->scanner) != 0) ||
            adi_grow((void **)&prog->spanbuf, &prog->spancap, len + 2, 1) < 0) {
            status = -1;
        } else {
            scanner = prog->scanner;
            adi_yyset_extra(&P, scanner);
            memcpy(prog->spanbuf, prog->src + off, len);
            prog->spanbuf[len] = prog->spanbuf[len + 1] = 0;   /* flex's end of buffer */
            buf = adi_yy_scan_buffer(prog->spanbuf, len + 2, scanner);
            status = adi_yyparse(scanner, &P);
        }
    } else if (adi_yylex_init_extra(&P, (yyscan_t *)&scanner) != 0) {
        status = -1;
    } else {
        adi_yy_scan_bytes(prog->src + off, (int)len, scanner);
        status = adi_yyparse(scanner, &P);
    }
    if (shared) {
        if (buf) adi_yy_delete_buffer(buf, prog->scanner);
        if (status != 0 && prog->scanner) {
            /* after an error, a fresh scanner next time */
            adi_yylex_destroy(prog->scanner);
            prog->scanner = NULL;
        }
        prog->scanning = 0;
    } else if (scanner) {
        adi_yylex_destroy(scanner);
    }
    prog->skip = skip;
    free(P.args);
    free(P.parens);

    if (t->full || status == -1 || t->nomem || (status == 2 && !P.failed)) {
        free(P.cap);
        return memory_error(t, d, e);
    }
    if (status != 0 || P.failed) {
        free(P.cap);
        *e = P.failed ? P.cls : ad_diag_set(d, AD_E_SYNTAX, line, col, "syntax error");
        return -1;
    }
    if (P.capturing) adi_memo_keep(prog, &P, off, len, want_cond, P.root);
    free(P.cap);
    *e = AD_E_NONE;
    if (truth) *truth = P.truth;
    return P.root;
}

int adi_parse_cond(ad_tape *t, adi_prog *prog, size_t off, size_t len, int line, int col, ad_diag *d,
                   ad_errclass *e)
{
    int truth = 0;
    adi_parse_any(t, prog, off, len, line, col, NULL, 0, 0, 1, &truth, d, e);
    return *e ? -1 : truth;
}
