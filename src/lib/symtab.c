/* symtab.c - open-addressing hash table (linear probing). */
#include <stdlib.h>
#include <string.h>
#include "symtab.h"
#include "alloc.h"

struct adi_symslot {
    uint64_t hash;
    size_t off, len;
    int32_t val;   /* -1: empty; -2: forgotten (the key stays, for probing) */
};

/* a word at a time: the keys of a loop's memo (memo.c) are 24 bytes, and
 * a byte-at-a-time hash (FNV-1a) spent a tenth of a recorded loop's time */
static uint64_t hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ULL;
        h ^= h >> 31;
    }
    if (len) {
        uint64_t w = 0;
        for (size_t i = 0; i < len; i++) w |= (uint64_t)p[i] << (8 * i);
        h = (h ^ w) * 0x94D049BB133111EBULL;
        h ^= h >> 29;
    }
    /* the finaliser of MurmurHash3: every bit reaches the low bits the
     * table indexes by (whole-number doubles differ only in high bits) */
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    return h ^ (h >> 33);
}

void adi_symtab_init(adi_symtab *s) { memset(s, 0, sizeof *s); }

void adi_symtab_free(adi_symtab *s)
{
    size_t gen = s->gen;
    free(s->slots);
    free(s->keys);
    adi_symtab_init(s);
    s->gen = gen + 1;
}

void adi_symtab_clear(adi_symtab *s)
{
    for (size_t i = 0; i < s->cap; i++) s->slots[i].val = -1;
    s->count = 0;
    s->keys_len = 0;
    s->gen++;
}

/* keys are short (names, doubles, memo keys): compared in line */
static int same(const unsigned char *a, const unsigned char *b, size_t len)
{
    for (; len >= 8; a += 8, b += 8, len -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y) return 0;
    }
    for (; len; a++, b++, len--)
        if (*a != *b) return 0;
    return 1;
}

static struct adi_symslot *find(const adi_symtab *s, uint64_t h, const void *key, size_t len)
{
    size_t mask = s->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        struct adi_symslot *e = &s->slots[i];
        if (e->val == -1) return e;
        if (e->hash == h && e->len == len && same((const unsigned char *)s->keys + e->off, key, len)) return e;
    }
}

int32_t adi_symtab_get(const adi_symtab *s, const void *key, size_t len)
{
    if (s->cap == 0) return -1;
    int32_t v = find(s, hash(key, len), key, len)->val;
    return v < 0 ? -1 : v;
}

void adi_symtab_forget(adi_symtab *s, const void *key, size_t len)
{
    if (s->cap == 0) return;
    struct adi_symslot *e = find(s, hash(key, len), key, len);
    if (e->val >= 0) {
        e->val = -2;
        s->gen++;
    }
}

int32_t adi_symtab_slot(const adi_symtab *s, const void *key, size_t len)
{
    if (s->cap == 0) return -1;
    struct adi_symslot *e = find(s, hash(key, len), key, len);
    return e->val < 0 ? -1 : (int32_t)(e - s->slots);
}

int32_t adi_symtab_slot_value(const adi_symtab *s, int32_t slot) { return s->slots[slot].val; }

int32_t *adi_symtab_next(adi_symtab *s, size_t *it)
{
    while (*it < s->cap) {
        struct adi_symslot *e = &s->slots[(*it)++];
        if (e->val >= 0) return &e->val;
    }
    return NULL;
}

static int grow(adi_symtab *s)
{
    size_t ncap = s->cap ? s->cap * 2 : 64;
    struct adi_symslot *old = s->slots, *ns = adi_malloc(ncap * sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < ncap; i++) ns[i].val = -1;
    size_t ocap = s->cap;
    s->slots = ns;
    s->cap = ncap;
    s->count = 0;   /* forgotten keys are dropped here */
    s->gen++;
    for (size_t i = 0; i < ocap; i++) {
        if (old[i].val < 0) continue;
        *find(s, old[i].hash, s->keys + old[i].off, old[i].len) = old[i];
        s->count++;
    }
    free(old);
    return 0;
}

int adi_symtab_set(adi_symtab *s, const void *key, size_t len, int32_t val)
{
    if (s->cap) {
        struct adi_symslot *e = find(s, hash(key, len), key, len);
        if (e->val != -1) {   /* there, or forgotten: its key is kept */
            s->gen += e->val == -2;   /* it comes back */
            e->val = val;
            return 0;
        }
    }
    return adi_symtab_put(s, key, len, val);
}

int adi_symtab_put(adi_symtab *s, const void *key, size_t len, int32_t val)
{
    if ((s->count + 1) * 2 > s->cap && grow(s) < 0) return -1;
    if (s->keys_len + len > s->keys_cap) {
        size_t nc = s->keys_cap ? s->keys_cap : 256;
        while (nc < s->keys_len + len) nc *= 2;
        char *nk = adi_realloc(s->keys, nc);
        if (!nk) return -1;
        s->keys = nk;
        s->keys_cap = nc;
    }
    if (len) memcpy(s->keys + s->keys_len, key, len);
    uint64_t h = hash(key, len);
    struct adi_symslot *e = find(s, h, key, len);
    s->count += e->val == -1;   /* a forgotten key's slot is counted already */
    s->gen++;
    e->hash = h;
    e->off = s->keys_len;
    e->len = len;
    e->val = val;
    s->keys_len += len;
    return 0;
}
