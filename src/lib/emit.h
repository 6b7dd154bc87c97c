/* emit.h - what the two halves of --emit-c share (private): the writer's
 * state, and the function body emit_sweep.c writes for emit.c's file. */
#ifndef AD_EMIT_H
#define AD_EMIT_H

#include <stdio.h>
#include "derive.h"

/* the statuses of the emitted function (documented in its head) */
enum { ADI_EMIT_DOMAIN = 1, ADI_EMIT_INPUT = 2, ADI_EMIT_NONDIFF = 4, ADI_EMIT_PATH = 7 };

typedef struct {
    FILE *f;
    const ad_plan *p;
    const ad_tape *t;
    const ad_emit_options *o;
    unsigned char *act;    /* the sweep being written: nodes that depend on a differentiated input */
    unsigned char *need;   /* ...and that an output depends on (their derivatives are carried) */
    int fails;             /* a FAIL was written: the function needs its label */
    int runtime_sum;       /* the runtime written as its checksum (ad_emit_block_key) */
} adi_emitter;

/* printf onto the file being written (its errors are the stream's) */
void adi_emit_out(adi_emitter *E, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* ops.def's rules by opcode, as the text of their C expressions */
typedef struct {
    const char *val, *da, *db, *daa, *dab, *dbb, *dom, *sa, *sb;
} adi_rule_text;
extern const adi_rule_text adi_emit_rules[AD_OP_COUNT];
/* writes rule text s of node i with its operands a, b and its value v
 * named as the variables <pre>A, <pre>B, <pre>I (string literals are
 * copied as they are) */
void adi_emit_rule(adi_emitter *E, const char *s, const char *pre, size_t i);
/* the runtime every emitted file carries: adcalc's numeric code (or,
 * with E->runtime_sum, a comment naming its checksum) */
void adi_emit_runtime_text(adi_emitter *E);
/* writes the function: the plan's derivation step over its tape */
void adi_emit_function(adi_emitter *E);
/* writes --jit's block function (ad_emit_block_c), width 2 or 4 lanes */
void adi_emit_block(adi_emitter *E, int width);

#endif
