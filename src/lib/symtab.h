/* symtab.h - a small open-addressing hash table from byte strings to ints,
 * used for variable names and for de-duplicating constants.  It owns copies
 * of its keys. */
#ifndef AD_SYMTAB_H
#define AD_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    struct adi_symslot *slots;
    size_t cap, count;     /* cap is a power of two, or 0 */
    char *keys;            /* all keys, back to back */
    size_t keys_len, keys_cap;
    size_t gen;            /* changes when a key comes or goes, or slots move */
} adi_symtab;

void adi_symtab_init(adi_symtab *s);
void adi_symtab_free(adi_symtab *s);
void adi_symtab_clear(adi_symtab *s);  /* empty, keeping capacity */
/* value stored under key, or -1 */
int32_t adi_symtab_get(const adi_symtab *s, const void *key, size_t len);
/* stores key -> val (key must be absent); returns 0, or -1 when out of memory */
int adi_symtab_put(adi_symtab *s, const void *key, size_t len, int32_t val);
/* stores key -> val, replacing any earlier value; 0 or -1 */
int adi_symtab_set(adi_symtab *s, const void *key, size_t len, int32_t val);
/* removes key (absent keys are ignored); it needs no memory */
void adi_symtab_forget(adi_symtab *s, const void *key, size_t len);
/* the slot of key, or -1; while gen stays the same, the slot holds key and
 * adi_symtab_slot_value reads its value as set last (memo.c's names) */
int32_t adi_symtab_slot(const adi_symtab *s, const void *key, size_t len);
int32_t adi_symtab_slot_value(const adi_symtab *s, int32_t slot);
/* the value of each key in turn, from *it = 0 on: changing it through the
 * pointer keeps the key and its slot; NULL after the last */
int32_t *adi_symtab_next(adi_symtab *s, size_t *it);

#endif
