/* jit.h - --jit: batch mode's block replay compiled to machine code with
 * the system's C compiler, cached and loaded (jit.c). */
#ifndef CLI_JIT_H
#define CLI_JIT_H

#include "adcalc.h"

/* the longest tape --jit compiles, in nodes: a compiler's time and memory
 * grow faster than the function it compiles (documented in adcalc.1) */
#define CLI_JIT_MAX_NODES 10000
/* the stack the compiled function may take per node, in bytes (jit.c) */
#define CLI_JIT_FRAME_PER_NODE 128
/* the seconds a compilation may take before it is stopped */
#define CLI_JIT_TIMEOUT 30

typedef struct {
    void *handle;        /* the loaded object, or NULL */
    ad_block_fn *fn;     /* its block replay, or NULL: the interpreter replays */
    char note[320];      /* for --stats: what was done, or why not */
} cli_jit;

/* plan p's block replay as machine code: from the cache, or compiled and
 * cached.  0, with J->fn NULL where it cannot be (J->note says why), or
 * -1 when out of memory */
int cli_jit_load(cli_jit *J, const ad_plan *p, const ad_tape *t);
void cli_jit_free(cli_jit *J);

#endif
