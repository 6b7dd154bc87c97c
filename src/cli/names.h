/* names.h - sets of names (variables, columns): the first repeated one,
 * membership and a vector's elements, in n log n. */
#ifndef CLI_NAMES_H
#define CLI_NAMES_H

#include <stddef.h>

typedef struct {
    const char *name;
    size_t len, at;   /* at: its index in the list it came from */
} cli_name;
/* the order of cli_names: by name, then by at (for qsort) */
int cli_name_cmp(const void *a, const void *b);

/* the index of the first name that repeats an earlier one into *at (n
 * when none does); names are NUL-terminated, or lens[i] bytes long when
 * lens is not NULL.  0, or -1 when out of memory */
int cli_first_repeat(const char *const *names, const size_t *lens, size_t n, size_t *at);

/* Variables: a number is one name, a vector x of n elements the names
 * x[1] .. x[n].  The variable a name is of: its first cli_var_len bytes
 * (x for x[3]). */
size_t cli_var_len(const char *name);
/* s[0..n) as NAME[K], K from 1 to AD_VECTOR_MAX without leading zeros:
 * 1 with *nl NAME's length (NAME is not checked) and *k K; 0 when s has
 * no '['; -1 when it has one but not that form (NAME[x], NAME[1), -2 for
 * digits that are not such a K (NAME[0], NAME[01]) */
int cli_parse_element(const char *s, size_t n, size_t *nl, size_t *k);
/* as cli_first_repeat, by variable: a vector is one (its elements are
 * not repeats of each other), *at the index of the repeat's first name */
int cli_first_repeat_var(const char *const *names, size_t n, size_t *at);

/* names sorted for lookups (they must outlive the set) */
typedef struct {
    cli_name *e;
    size_t n;
} cli_nameset;
int cli_nameset_init(cli_nameset *s, const char *const *names, size_t n);   /* 0 or -1 */
/* the set of the variables of names (find a vector by its name: the
 * index of its element [1]) */
int cli_nameset_vars(cli_nameset *s, const char *const *names, size_t n);
/* the index of name[0..len) in the list, or (size_t)-1 */
size_t cli_nameset_find(const cli_nameset *s, const char *name, size_t len);
void cli_nameset_free(cli_nameset *s);

/* 1 when s[0..n) is an element NAME[K] (K from 1, in decimal without a
 * leading 0): *base is NAME's length, *k the index */
int cli_element(const char *s, size_t n, size_t *base, size_t *k);
/* the length of vector name[0..len) among the set's names: how many of
 * its elements name[1], name[2], ... the set has, when they are 1 .. n
 * (as -at x=[...] gives them); 0 when it has none */
size_t cli_nameset_vector(const cli_nameset *s, const char *name, size_t len);
/* "name[k]", newly allocated (name is nl bytes), or NULL */
char *cli_element_name(const char *name, size_t nl, size_t k);
/* names[0..n) with each vector of the set (a name not in it whose
 * elements name[1] .. name[k] are: --wrt x) replaced by its elements, in
 * its place: *out a new array of *nout newly allocated names (free with
 * cli_names_free).  0, or -1 when out of memory */
int cli_nameset_expand(const cli_nameset *s, const char *const *names, size_t n, char ***out, size_t *nout);
void cli_names_free(char **names, size_t n);

#endif
