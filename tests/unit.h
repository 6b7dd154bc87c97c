/* unit.h - the counting check of the engine's unit test programs
 * (test_namemap.c, test_alloc.c): each CHECK counts, the first 20 that
 * fail are printed with their line, and main ends with
 * `return unit_done();`, which prints the totals and is 1 if any failed. */
#ifndef ADCALC_TESTS_UNIT_H
#define ADCALC_TESTS_UNIT_H
#include <stdio.h>

static long fails, checks;

#define CHECK(c, ...)                                  \
    do {                                               \
        checks++;                                      \
        if (!(c) && fails++ < 20) {                    \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                       \
            printf("\n");                              \
        }                                              \
    } while (0)

static int unit_done(void)
{
    printf("%ld checks, %ld failed\n", checks, fails);
    return fails != 0;
}
#endif
