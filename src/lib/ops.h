/* ops.h - the static description of every primitive and function,
 * expanded from ops.def (the opcodes themselves are public: adcalc.h). */
#ifndef AD_OPS_H
#define AD_OPS_H

#include <stddef.h>
#include "adcalc.h"

#define ADI_VARIADIC 0x7fffffff /* nargs_max of min/max: any number >= nargs_min */

/* status of a local partial derivative at a point */
enum { ADI_OK = 0, ADI_SINGULAR = 1, ADI_KINK = 2,
       ADI_SINGULAR_HIGHER = 3, /* first derivative fine, a higher one infinite */
       ADI_OVERFLOW = 4,        /* finite, but beyond a double: ops.def's WIDE */
       ADI_OVERFLOW_HIGHER = 5, /* a higher derivative beyond a double (--hessian) */
       ADI_UNDERFLOW = 6        /* below a double's normal range, digits lost: ops.def's WIDE */ };

/* the domain "error" of a guard (ops.def) that does not hold: not an
 * error, another path (AD_E_PATH); compared by address */
extern const char adi_guard_failed[];
#define ADI_GUARD_FAILED adi_guard_failed
/* 1 for the guard opcodes (ops.def: LT ... NE) */
static inline int adi_op_is_guard(unsigned op) { return op >= AD_OP_LT && op <= AD_OP_NE; }

typedef struct {
    const char *name;     /* dump name, and call name when callable */
    int nargs;            /* operands on the tape: 0, 1 or 2 */
    const char *synopsis; /* "A + B" */
    const char *doc;
} adi_opinfo;

extern const adi_opinfo adi_ops[AD_OP_COUNT];

/* a name that can be called as name(...) */
typedef struct {
    const char *name;
    size_t namelen;
    int nargs_min, nargs_max;
    double dflt;           /* the optional last argument's default */
    int derived;           /* 0: primitive opcode; 1: derived function */
    int code;              /* the ad_opcode of a primitive */
    const char *synopsis;  /* "sin(x)", or the expansion that defines a derived one */
    const char *doc;
    const char *params;    /* a derived one's parameters: "x, lo, hi" */
} adi_fninfo;

extern const adi_fninfo adi_functions[];
extern const size_t adi_nfunctions;

/* the callable function called name[0..len), or NULL */
const adi_fninfo *adi_fn_lookup(const char *name, size_t len);


#endif
