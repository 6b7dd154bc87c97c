/* namemap.h - a table of variable names to positions (a point's variables,
 * a tape's inputs) where a vector's elements, named x[1] ... x[n], are
 * found by their index rather than hashed one by one: a million elements
 * are a million hash probes that all miss the cache, and an array indexed
 * by k is read in order.  Other names are hashed (symtab.h). */
#ifndef AD_NAMEMAP_H
#define AD_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>
#include "symtab.h"

/* 1 when name[0..len) is base[k] as written canonically (a nonempty base,
 * k >= 1 in decimal without a leading zero); then *baselen and *k */
int adi_element_name(const char *name, size_t len, size_t *baselen, size_t *k);

typedef struct {
    adi_symtab plain;        /* other names, and elements the arrays do not hold */
    adi_symtab bases;        /* a vector's name -> its index in vec */
    struct adi_namevec {
        int32_t *pos;        /* pos[k-1]: the position of base[k], or -1 */
        size_t cap;
        int spilled;         /* some of its elements are in plain */
    } *vec;
    size_t nvec, veccap;
    size_t count;            /* names added */
} adi_names;

void adi_names_init(adi_names *s);
void adi_names_free(adi_names *s);
/* name -> pos, unless the name is there already (the first one counts);
 * 0, or -1 when out of memory */
int adi_names_add(adi_names *s, const char *name, size_t len, int32_t pos);
/* takes name out (a name not there is ignored; it needs no memory) */
void adi_names_forget(adi_names *s, const char *name, size_t len);
/* the position of name, or -1 */
int32_t adi_names_get(const adi_names *s, const char *name, size_t len);

#endif
