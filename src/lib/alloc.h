/* alloc.h - the engine's allocation entry points.  All engine allocations go
 * through these so that out-of-memory is always reported (never a crash) and
 * so that tests can make the n-th allocation fail on purpose (see
 * tests/inject_alloc.c, loaded with LD_PRELOAD), and so that a large block
 * is hinted to be backed by huge pages (alloc.c). */
#ifndef AD_ALLOC_H
#define AD_ALLOC_H

#include <stdlib.h>
#include <string.h>

/* blocks of at least this many bytes are hinted to be backed by huge pages */
#define ADI_LARGE ((size_t)4 << 20)
/* the hint (alloc.c) for the live block p of at least bytes bytes, just
 * allocated: its pages (whole) are asked to be backed by huge pages */
void adi_hint_large(void *p, size_t bytes);

static inline void *adi_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (n >= ADI_LARGE) adi_hint_large(p, n);
    return p;
}
static inline void *adi_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (n >= ADI_LARGE) adi_hint_large(q, n);
    return q;
}
/* n zeroed elements of size elem (at least one byte); NULL on overflow too */
static inline void *adi_calloc(size_t n, size_t elem)
{
    size_t nn = n ? n : 1, ee = elem ? elem : 1;
    void *p = calloc(nn, ee);
    if (p && nn >= ADI_LARGE / ee) adi_hint_large(p, nn * ee);   /* (calloc checked the product) */
    return p;
}
static inline char *adi_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    return p ? memcpy(p, s, n) : NULL;
}
/* grows *p (of *cap elements of size elem) to hold at least need; 0 or -1 */
int adi_grow(void **p, size_t *cap, size_t need, size_t elem);
/* grows *p (of *cap elements of size elem) when it holds fewer than need:
 * room made once for what is known to come.  To need, or to twice *cap
 * when that is more, so that a run of reservations copies no more than
 * adi_grow's doubling would; 0 or -1 */
int adi_reserve(void **p, size_t *cap, size_t need, size_t elem);

#endif
