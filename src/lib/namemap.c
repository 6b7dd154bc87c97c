/* namemap.c - names to positions, with vectors' elements by index (namemap.h). */
#include <string.h>
#include "namemap.h"
#include "alloc.h"

int adi_element_name(const char *name, size_t len, size_t *baselen, size_t *k)
{
    if (len < 4 || name[len - 1] != ']') return 0;
    size_t i = len - 1, v = 0;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
    /* i: the first digit; name[i-1] must be '[', and base nonempty */
    if (i < 2 || i == len - 1 || name[i - 1] != '[' || name[i] == '0' || len - 1 - i > 18) return 0;
    for (size_t j = i; j < len - 1; j++) v = 10 * v + (size_t)(name[j] - '0');
    *baselen = i - 1;
    *k = v;
    return 1;
}

void adi_names_init(adi_names *s) { memset(s, 0, sizeof *s); }

void adi_names_free(adi_names *s)
{
    adi_symtab_free(&s->plain);
    adi_symtab_free(&s->bases);
    for (size_t i = 0; i < s->nvec; i++) free(s->vec[i].pos);
    free(s->vec);
    adi_names_init(s);
}

/* the array that holds base[k], grown to k when that keeps the arrays
 * within a few times the names added (an element far beyond the others,
 * x[99999999] alone, is hashed instead); NULL when it does not hold it.
 * *oom is set when memory ran out */
static struct adi_namevec *array_for(adi_names *s, const char *base, size_t bl, size_t k, int *oom)
{
    int32_t b = adi_symtab_get(&s->bases, base, bl);
    if (b < 0) {
        if (adi_grow((void **)&s->vec, &s->veccap, s->nvec + 1, sizeof *s->vec) < 0 ||
            adi_symtab_put(&s->bases, base, bl, (int32_t)s->nvec) < 0) {
            *oom = 1;
            return NULL;
        }
        b = (int32_t)s->nvec++;
        s->vec[b] = (struct adi_namevec){NULL, 0, 0};
    }
    struct adi_namevec *v = &s->vec[b];
    if (k <= v->cap) return v;
    if (k > 4 * (s->count + 1) + 64) return NULL;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < k) cap *= 2;
    int32_t *pos = adi_realloc(v->pos, cap * sizeof *pos);
    if (!pos) {
        *oom = 1;
        return NULL;
    }
    memset(pos + v->cap, 0xff, (cap - v->cap) * sizeof *pos);   /* all -1 */
    v->pos = pos;
    v->cap = cap;
    return v;
}

int adi_names_add(adi_names *s, const char *name, size_t len, int32_t pos)
{
    size_t bl, k;
    int oom = 0;
    if (adi_element_name(name, len, &bl, &k)) {
        struct adi_namevec *v = array_for(s, name, bl, k, &oom);
        if (oom) return -1;
        if (v) {
            if (v->pos[k - 1] < 0 && (!v->spilled || adi_symtab_get(&s->plain, name, len) < 0)) {
                v->pos[k - 1] = pos;
                s->count++;
            }
            return 0;
        }
        int32_t b = adi_symtab_get(&s->bases, name, bl);
        if (b >= 0) s->vec[b].spilled = 1;
    }
    if (adi_symtab_get(&s->plain, name, len) >= 0) return 0;
    if (adi_symtab_put(&s->plain, name, len, pos) < 0) return -1;
    s->count++;
    return 0;
}

void adi_names_forget(adi_names *s, const char *name, size_t len)
{
    size_t bl, k;
    if (s->nvec && adi_element_name(name, len, &bl, &k)) {
        int32_t b = adi_symtab_get(&s->bases, name, bl);
        if (b >= 0 && k <= s->vec[b].cap) s->vec[b].pos[k - 1] = -1;
    }
    adi_symtab_forget(&s->plain, name, len);
}

int32_t adi_names_get(const adi_names *s, const char *name, size_t len)
{
    size_t bl, k;
    if (s->nvec && adi_element_name(name, len, &bl, &k)) {
        int32_t b = adi_symtab_get(&s->bases, name, bl);
        if (b >= 0 && k <= s->vec[b].cap && s->vec[b].pos[k - 1] >= 0) return s->vec[b].pos[k - 1];
        if (b >= 0 && !s->vec[b].spilled) return -1;
    }
    return adi_symtab_get(&s->plain, name, len);
}
