/* ops.c - the tables expanded from ops.def: opcode names and arities, and
 * the list of callable functions (primitives and derived) that the lexer,
 * --help and the man page check all read. */
#include <string.h>
#include "ops.h"
#include "parse.h"
#include "rules.h"

const char adi_guard_failed[] = "the point takes another path";

const adi_opinfo adi_ops[AD_OP_COUNT] = {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    [AD_OP_##E] = {name, n, syn, doc},
#include "ops.def"
};

const adi_fninfo adi_functions[] = {
#define OP(E, name, n, mi, ma, df, val, da, db, daa, dab, dbb, dom, sa, sb, tay, syn, doc) \
    {name, sizeof name - 1, mi, ma, df, 0, AD_OP_##E, syn, doc, NULL},
#define DERIVED(E, name, mi, ma, df, params, expansion, doc) \
    {name, sizeof name - 1, mi, ma, df, 1, -1, expansion, doc, params},
#include "ops.def"
};
const size_t adi_nfunctions = sizeof adi_functions / sizeof adi_functions[0];

const adi_fninfo *adi_fn_lookup(const char *name, size_t len)
{
    for (size_t i = 0; i < adi_nfunctions; i++) {
        const adi_fninfo *f = &adi_functions[i];
        if (f->namelen == len && f->nargs_min > 0 && memcmp(f->name, name, len) == 0)
            return f;
    }
    return NULL;
}

int ad_reserved(const char *name, size_t len)
{
    if ((len == 2 && memcmp(name, "pi", 2) == 0) || (len == 1 && name[0] == 'e'))
        return AD_RESERVED_CONSTANT;
    static const char *const keywords[] = {"if", "else", "while", "for"};
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++)
        if (strlen(keywords[k]) == len && memcmp(keywords[k], name, len) == 0) return AD_RESERVED_KEYWORD;
    return adi_fn_lookup(name, len) || adi_vec_fn_lookup(name, len) >= 0 ? AD_RESERVED_FUNCTION : 0;
}

const char *ad_op_name(unsigned op) { return op < AD_OP_COUNT ? adi_ops[op].name : "?"; }

const char *ad_function(size_t i, const char **doc)
{
    /* the callable ones: operators and leaves have nargs_min 0 */
    for (size_t k = 0; k < adi_nfunctions; k++) {
        if (adi_functions[k].nargs_min == 0) continue;
        if (i-- == 0) {
            if (doc) *doc = adi_functions[k].doc;
            return adi_functions[k].name;
        }
    }
    return adi_vec_fn_doc(i, doc);   /* then the vector functions (vector.c) */
}

void adi_op_partials_not_normal(int op, double a, double b, double v, const double d[2], unsigned char st[2])
{
    /* an infinite one only overflowed where the op has a WIDE rule: it
     * has a finite partial wherever its value and operands are finite and
     * ops.def names no singular point, so an infinite one there is beyond
     * the doubles, not singular (whether long double can hold it is
     * wide.c's question, asked when a derivative needs it); a finite one
     * below DBL_MIN underflowed where the wide one is another number (not
     * where both are 0: 0/x's d/dx) */
    adi_wide w[2];
    int wide = adi_op_wide_partials(op, a, b, v, w);
    unsigned ws = adi_op_wide_slots(op);
    for (int j = 0; j < 2; j++) {
        if (st[j] != ADI_OK) continue;
        if (!isfinite(d[j])) st[j] = wide && isinf(d[j]) ? ADI_OVERFLOW : ADI_SINGULAR;
        else if (ws >> j & 1 && fabs(d[j]) < DBL_MIN && isfinite(w[j]) && w[j] != d[j]) st[j] = ADI_UNDERFLOW;
    }
}
