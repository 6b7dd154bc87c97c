/* parse.h - state shared by the lexer (grammar/lexer.l), the parser
 * (grammar/parser.y) and the call builder (call.c) while one expression is
 * parsed and recorded. */
#ifndef AD_PARSE_H
#define AD_PARSE_H

#include <setjmp.h>
#include "tape.h"
#include "ops.h"

typedef struct ad_pctx {
    ad_tape *t;
    const char *src;
    size_t len;
    ad_diag *diag;
    int failed;             /* a diagnostic has been set */
    ad_errclass cls;        /* its class (also kept when diag is NULL) */
    int32_t root;           /* the output node (recording index) */
    int32_t *args;          /* argument stack of the calls being parsed */
    size_t nargs, argcap;
    ad_pos *parens;         /* positions of the open '(' */
    size_t nparens, parencap;
    int line, col;          /* lexer position of the next byte */
    size_t off;
    int end_line, end_col;  /* just past the last token (not whitespace) */
    size_t end_off;
    jmp_buf oom;            /* where the lexer's allocator failure lands */
} ad_pctx;

/* sets the diagnostic (first one wins) and marks the parse failed */
void ad_perror(ad_pctx *P, ad_errclass cls, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* up to max bytes of s, made printable, for messages: "abc..." */
const char *ad_quote(char *buf, size_t bufsz, const char *s, size_t len);

/* records fn(args...) with the nargs arguments on top of P->args; returns
 * the node or -1 after setting a diagnostic */
int32_t ad_call(ad_pctx *P, const ad_fninfo *fn, size_t nargs, int line, int col);
/* the closest function name to name (for "did you mean"), or NULL */
const char *ad_suggest_function(const char *name, size_t len);

#endif
