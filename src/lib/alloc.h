/* alloc.h - the engine's allocation entry points.  All engine allocations go
 * through these so that out-of-memory is always reported (never a crash) and
 * so that tests can make the n-th allocation fail on purpose (see
 * tests/inject_alloc.c, loaded with LD_PRELOAD). */
#ifndef AD_ALLOC_H
#define AD_ALLOC_H

#include <stdlib.h>
#include <string.h>

static inline void *adi_malloc(size_t n) { return malloc(n ? n : 1); }
static inline void *adi_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
/* n zeroed elements of size elem (at least one byte); NULL on overflow too */
static inline void *adi_calloc(size_t n, size_t elem) { return calloc(n ? n : 1, elem ? elem : 1); }
static inline char *adi_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}
/* grows *p (of *cap elements of size elem) to hold at least need; 0 or -1 */
int adi_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
