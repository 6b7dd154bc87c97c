/* test_namemap.c - the lookups that find a vector's elements by index
 * rather than by hashing their names, against the plain search they stand
 * for:
 *   - namemap.c: random lists of names (numbers' names, elements in any
 *     order, repeats, elements far beyond the others, names that only look
 *     like elements) looked up in an adi_names table and by a linear search
 *     for the first occurrence;
 *   - tape.c: an element recorded by name (x[3]) and by index is one input,
 *     and stays one after a rollback; a whole-number constant is one node
 *     whatever the order its values come in, however the array that finds
 *     them grows, and after a rollback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "namemap.h"
#include "tape.h"
#include "unit.h"

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void element_names(void)
{
    struct {
        const char *s;
        int is;
        size_t base, k;
    } c[] = {
        {"x[1]", 1, 1, 1},     {"xy[12]", 1, 2, 12}, {"x[0]", 0, 0, 0},   {"x[01]", 0, 0, 0},
        {"[1]", 0, 0, 0},      {"x[]", 0, 0, 0},     {"x[1a]", 0, 0, 0},  {"x[1]]", 0, 0, 0},
        {"x", 0, 0, 0},        {"x1]", 0, 0, 0},     {"a[b][2]", 1, 4, 2}, {"x[1234567890123456789]", 0, 0, 0},
        {"x[123456789012345678]", 1, 1, 123456789012345678u},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        size_t b = 0, k = 0;
        int is = adi_element_name(c[i].s, strlen(c[i].s), &b, &k);
        CHECK(is == c[i].is && (!is || (b == c[i].base && k == c[i].k)), "adi_element_name(%s) = %d %zu %zu", c[i].s,
              is, b, k);
    }
}

/* a random name: a number's, or an element of one of three vectors,
 * mostly near the others, sometimes far, sometimes not canonical */
static void random_name(char *buf, size_t n)
{
    static const char *base[] = {"x", "y", "xs"};
    uint64_t r = next();
    switch (r % 8) {
    case 0: snprintf(buf, 32, "v%u", (unsigned)(r >> 8) % 50); break;
    case 1: snprintf(buf, 32, "%s[%u]", base[(r >> 8) % 3], (unsigned)((r >> 16) % 100000000) + 1); break;
    case 2: snprintf(buf, 32, "%s[0%u]", base[(r >> 8) % 3], (unsigned)(r >> 16) % 9); break;
    default: snprintf(buf, 32, "%s[%zu]", base[(r >> 8) % 3], (size_t)((r >> 16) % (2 * n + 1)) + 1); break;
    }
}

static void tables(void)
{
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + next() % (round < 150 ? 40 : 3000);
        char(*names)[32] = malloc(n * sizeof *names);
        adi_names s;
        adi_names_init(&s);
        for (size_t i = 0; i < n; i++) {
            random_name(names[i], n);
            CHECK(adi_names_add(&s, names[i], strlen(names[i]), (int32_t)i) == 0, "add");
        }
        /* every name added, and as many that may not be */
        for (size_t q = 0; q < 2 * n; q++) {
            char other[32];
            const char *key = q < n ? names[q] : (random_name(other, n), other);
            int32_t want = -1;
            for (size_t i = 0; i < n && want < 0; i++)
                if (!strcmp(names[i], key)) want = (int32_t)i;
            int32_t got = adi_names_get(&s, key, strlen(key));
            CHECK(got == want, "round %d: %s at %d, not %d", round, key, got, want);
        }
        adi_names_free(&s);
        free(names);
    }
}

static void tape_elements(void)
{
    ad_tape *t = ad_tape_new();
    CHECK(ad_tape_set_vector(t, "x", 1, 5) == 0, "set_vector");
    int32_t a = adi_rec_var(t, "x[3]", 4, 1, 1);
    int32_t b = adi_rec_element(t, "x", 1, 3, 1, 1);
    int32_t c = adi_rec_var(t, "x[6]", 4, 1, 1);   /* beyond the vector: a name like any other */
    int32_t d = adi_rec_var(t, "x[6]", 4, 1, 1);
    CHECK(a >= 0 && a == b, "x[3] by name %d, by index %d", a, b);
    CHECK(c >= 0 && c == d && c != a, "x[6]: %d then %d", c, d);
    CHECK(t->ninputs == 2, "%zu inputs, not 2", t->ninputs);
    adi_tape_mark m = adi_tape_mark_at(t);
    int32_t e = adi_rec_element(t, "x", 1, 1, 1, 1);
    adi_tape_rollback(t, &m);
    int32_t f = adi_rec_var(t, "x[1]", 4, 1, 1);
    CHECK(e >= 0 && f == e && adi_rec_element(t, "x", 1, 1, 1, 1) == f && t->ninputs == 3,
          "x[1] after a rollback: %d, then %d (%zu inputs)", e, f, t->ninputs);
    ad_tape_free(t);
}

static void tape_constants(void)
{
    for (int round = 0; round < 50; round++) {
        ad_tape *t = ad_tape_new();
        double v[400];
        int32_t node[400];
        size_t n = 0;
        for (int i = 0; i < 400; i++) {
            uint64_t r = next();
            double x = r % 5 == 0 ? -(double)((r >> 8) % 100) : r % 7 == 0 ? 0.5 * (double)((r >> 8) % 1000)
                     : r % 11 == 0 ? -0.0 : (double)((r >> 8) % (round < 25 ? 300 : 100000));
            int32_t k = adi_rec_const(t, x, "c", 1, 1, 1);
            size_t j = 0;
            while (j < n && memcmp(&v[j], &x, sizeof x)) j++;
            if (j < n) {
                CHECK(k == node[j], "round %d: %g is node %d, then %d", round, x, node[j], k);
            } else {
                CHECK(k >= 0 && t->nconsts == n + 1, "round %d: %g is a new constant", round, x);
                v[n] = x;
                node[n++] = k;
            }
            /* an operation now and then: the array may hold more */
            if (r % 3 == 0) adi_rec_op(t, AD_OP_ADD, k, k, 1, 1);
            if (i == 200) {
                adi_tape_mark m = adi_tape_mark_at(t);
                int32_t z = adi_rec_const(t, 12345.0, "c", 1, 1, 1);
                int had = 0;
                for (size_t q = 0; q < n; q++) had |= v[q] == 12345.0;
                adi_tape_rollback(t, &m);
                if (!had) CHECK(adi_rec_const(t, 12345.0, "c", 1, 1, 1) == z, "12345 after a rollback");
                adi_tape_rollback(t, &m);
            }
        }
        ad_tape_free(t);
    }
}

int main(void)
{
    element_names();
    tables();
    tape_elements();
    tape_constants();
    return unit_done();
}
