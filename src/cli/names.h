/* names.h - sets of names (variables, columns): the first repeated one,
 * and membership, in n log n. */
#ifndef CLI_NAMES_H
#define CLI_NAMES_H

#include <stddef.h>

typedef struct {
    const char *name;
    size_t len, at;   /* at: its index in the list it came from */
} cli_name;

/* the index of the first name that repeats an earlier one into *at (n
 * when none does); names are NUL-terminated, or lens[i] bytes long when
 * lens is not NULL.  0, or -1 when out of memory */
int cli_first_repeat(const char *const *names, const size_t *lens, size_t n, size_t *at);

/* names sorted for lookups (they must outlive the set) */
typedef struct {
    cli_name *e;
    size_t n;
} cli_nameset;
int cli_nameset_init(cli_nameset *s, const char *const *names, size_t n);   /* 0 or -1 */
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

#endif
