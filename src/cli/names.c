/* names.c - sets of names given on the command line or in a header
 * (names.h): repeated names, membership and a vector's elements (--wrt x
 * for x[1] .. x[n]), by sorting, so that 10^5 variables or columns cost
 * n log n, not n^2. */
#include <stdlib.h>
#include <string.h>
#include "adcalc.h"
#include "names.h"

typedef cli_name entry;

int cli_name_cmp(const void *x, const void *y)
{
    const entry *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, n);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* the name of item i: a NUL-terminated string, or len bytes when lens */
static entry item(const char *const *names, const size_t *lens, size_t i)
{
    return (entry){names[i], lens ? lens[i] : strlen(names[i]), i};
}

size_t cli_var_len(const char *name) { return strcspn(name, "["); }

int cli_parse_element(const char *s, size_t n, size_t *nl, size_t *k)
{
    const char *open = memchr(s, '[', n);
    if (!open) return 0;
    size_t i = (size_t)(open - s) + 1, v = 0;
    if (i + 1 >= n || s[n - 1] != ']') return -1;
    for (size_t j = i; j < n - 1; j++) {
        if (s[j] < '0' || s[j] > '9') return -1;
        if (v <= AD_VECTOR_MAX) v = 10 * v + (size_t)(s[j] - '0');
    }
    if (s[i] == '0' || v > AD_VECTOR_MAX) return -2;
    *nl = i - 1;
    *k = v;
    return 1;
}

/* the entries of names into e, sorted: every name, or with vars one per
 * variable (a number's name, a vector's by its element [1], cut to the
 * vector's name); their count */
static size_t entries(const char *const *names, const size_t *lens, size_t n, int vars, entry *e)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        entry x = item(names, lens, i);
        if (vars) {
            x.len = cli_var_len(x.name);
            if (x.name[x.len] && strcmp(x.name + x.len, "[1]") != 0) continue;
        }
        e[m++] = x;
    }
    qsort(e, m, sizeof *e, cli_name_cmp);
    return m;
}

static int first_repeat(const char *const *names, const size_t *lens, size_t n, int vars, size_t *at)
{
    entry *e = malloc((n ? n : 1) * sizeof *e);
    if (!e) return -1;
    size_t m = entries(names, lens, n, vars, e);
    *at = n;
    for (size_t i = 1; i < m; i++)
        if (e[i].len == e[i - 1].len && memcmp(e[i].name, e[i - 1].name, e[i].len) == 0 && e[i].at < *at)
            *at = e[i].at;
    free(e);
    return 0;
}

int cli_first_repeat(const char *const *names, const size_t *lens, size_t n, size_t *at)
{
    return first_repeat(names, lens, n, 0, at);
}

int cli_first_repeat_var(const char *const *names, size_t n, size_t *at)
{
    return first_repeat(names, NULL, n, 1, at);
}

static int nameset(cli_nameset *s, const char *const *names, size_t n, int vars)
{
    s->n = 0;
    s->e = malloc((n ? n : 1) * sizeof *s->e);
    if (!s->e) return -1;
    s->n = entries(names, NULL, n, vars, s->e);
    return 0;
}

int cli_nameset_init(cli_nameset *s, const char *const *names, size_t n) { return nameset(s, names, n, 0); }

int cli_nameset_vars(cli_nameset *s, const char *const *names, size_t n) { return nameset(s, names, n, 1); }

size_t cli_nameset_find(const cli_nameset *s, const char *name, size_t len)
{
    size_t lo = 0, hi = s->n;
    entry key = {name, len, 0};
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        entry m = {s->e[mid].name, s->e[mid].len, 0};
        int c = cli_name_cmp(&m, &key);
        if (c == 0) return s->e[mid].at;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return (size_t)-1;
}

void cli_nameset_free(cli_nameset *s)
{
    free(s->e);
    s->e = NULL;
    s->n = 0;
}

int cli_element(const char *s, size_t n, size_t *base, size_t *k)
{
    size_t nl, v;
    if (cli_parse_element(s, n, &nl, &v) != 1 || nl == 0) return 0;
    *base = nl;
    *k = v;
    return 1;
}

/* e against name[0..len) followed by '[', as by_name orders them */
static int cmp_bracket(const cli_name *e, const char *name, size_t len)
{
    int c = memcmp(e->name, name, e->len < len ? e->len : len);
    if (c) return c;
    if (e->len <= len) return -1;   /* a prefix of the key */
    if (e->name[len] != '[') return (unsigned char)e->name[len] < '[' ? -1 : 1;
    return e->len > len + 1;
}

size_t cli_nameset_vector(const cli_nameset *s, const char *name, size_t len)
{
    /* the names that start name[ follow each other in the sorted set */
    size_t lo = 0, hi = s->n, count = 0, most = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_bracket(&s->e[mid], name, len) < 0) lo = mid + 1;
        else hi = mid;
    }
    for (; lo < s->n && s->e[lo].len > len && memcmp(s->e[lo].name, name, len) == 0 && s->e[lo].name[len] == '[';
         lo++) {
        size_t b, k;
        if (!cli_element(s->e[lo].name, s->e[lo].len, &b, &k) || b != len) continue;
        count++;
        if (k > most) most = k;
    }
    return count == most ? count : 0;
}

/* (written by hand: a vector of 10^6 elements makes 10^6 of them) */
char *cli_element_name(const char *name, size_t nl, size_t k)
{
    char digits[24];
    size_t nd = 0;
    do digits[nd++] = (char)('0' + k % 10); while (k /= 10);
    char *s = malloc(nl + nd + 3), *p = s;
    if (!s) return NULL;
    memcpy(p, name, nl);
    p += nl;
    *p++ = '[';
    while (nd) *p++ = digits[--nd];
    *p++ = ']';
    *p = 0;
    return s;
}

/* the length of vector name[0..len) of the set, 0 when it is not one
 * (a name of the set itself is not: a column called x beside x[1]) */
static size_t vector_len(const cli_nameset *s, const char *name, size_t len)
{
    return cli_nameset_find(s, name, len) == (size_t)-1 ? cli_nameset_vector(s, name, len) : 0;
}

int cli_nameset_expand(const cli_nameset *s, const char *const *names, size_t n, char ***out, size_t *nout)
{
    size_t m = 0, j = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = vector_len(s, names[i], strlen(names[i]));
        m += k ? k : 1;
    }
    char **v = calloc(m ? m : 1, sizeof *v);
    if (!v) return -1;
    int ok = 1;
    for (size_t i = 0; ok && i < n; i++) {
        size_t len = strlen(names[i]), k = vector_len(s, names[i], len);
        if (!k && (ok = (v[j] = malloc(len + 1)) != NULL)) memcpy(v[j++], names[i], len + 1);
        for (size_t e = 1; ok && e <= k; e++) ok = (v[j++] = cli_element_name(names[i], len, e)) != NULL;
    }
    if (!ok) {
        cli_names_free(v, m);
        return -1;
    }
    *out = v;
    *nout = m;
    return 0;
}

void cli_names_free(char **names, size_t n)
{
    if (names)
        for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
}
