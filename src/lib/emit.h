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
} adi_emitter;

/* printf onto the file being written (its errors are the stream's) */
void adi_emit_out(adi_emitter *E, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* writes the function: the plan's derivation step over its tape */
void adi_emit_function(adi_emitter *E);

#endif
