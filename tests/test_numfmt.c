/* test_numfmt.c - the shortest round-trip formatter (numfmt.c over
 * double-conversion): for millions of doubles (random bit patterns, random
 * decimals, integers, powers of ten, subnormals, boundaries) the text reads
 * back as the same double, and no shorter %.Ng text would: the digits are
 * the fewest possible. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static long fails, checked;

static int sigdigits(const char *s)
{
    int n = 0, started = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s >= '1' && *s <= '9') started = 1;
        if (started && *s >= '0' && *s <= '9') n++;
    }
    /* trailing zeros of a whole number do not count */
    return n;
}

static void check(double x)
{
    if (!isfinite(x)) return;
    char buf[40], alt[400];
    adi_fmt_double(buf, sizeof buf, x);
    checked++;
    double y = strtod(buf, NULL);
    if (memcmp(&x, &y, sizeof x) != 0) {
        if (fails++ < 10) printf("FAIL round trip: %.17g printed as %s reads %.17g\n", x, buf, y);
        return;
    }
    /* fewest digits: one digit fewer never reads back */
    int d = sigdigits(buf);
    if (d > 1 && x != 0 && strchr(buf, '.') != NULL) {
        snprintf(alt, sizeof alt, "%.*g", d - 1, x);
        if (strtod(alt, NULL) == x && fails++ < 10)
            printf("FAIL not shortest: %.17g printed as %s, but %s reads back too\n", x, buf, alt);
    }
}

int main(void)
{
    long n = getenv("NUMFMT_N") ? atol(getenv("NUMFMT_N")) : 2000000;
    for (long i = 0; i < n; i++) {
        uint64_t b = next();
        double x;
        memcpy(&x, &b, sizeof x);
        check(x);                                   /* any bit pattern */
        check((double)(int64_t)(next() % 2000000001) / 1000.0 - 1e6);  /* short decimals */
    }
    for (int e = -324; e <= 308; e++) {
        check(pow(10, e));
        check(-pow(10, e) * 3);
        check(nextafter(pow(10, e), 0));
    }
    for (long i = 0; i < 100000; i++) check((double)i);
    check(5e-324);
    check(2.2250738585072014e-308);
    check(1.7976931348623157e308);
    check(0.1);
    check(1.0 / 3);
    /* the layout rules of the man page: whole numbers below 1e21 in full */
    struct { double x; const char *want; } lay[] = {
        {100, "100"}, {1e21, "1e+21"}, {1e-5, "1e-05"}, {0.0001, "0.0001"}, {0.1, "0.1"},
        {-0.0, "-0"}, {0, "0"}, {2.5e10, "25000000000"}, {5e6, "5000000"}, {1e20, "100000000000000000000"}, {-2.5e19, "-25000000000000000000"}, {123456789000, "123456789000"},
        {1e16, "10000000000000000"}, {1.5e21, "1.5e+21"}, {1e22, "1e+22"}, {1e-7, "1e-07"}, {0.30000000000000004, "0.30000000000000004"}, {5e-324, "5e-324"},
    };
    for (size_t i = 0; i < sizeof lay / sizeof lay[0]; i++) {
        char buf[40];
        adi_fmt_double(buf, sizeof buf, lay[i].x);
        checked++;
        if (strcmp(buf, lay[i].want) != 0) {
            fails++;
            printf("FAIL layout: %.17g printed as %s, want %s\n", lay[i].x, buf, lay[i].want);
        }
    }
    printf("%ld doubles checked, %ld failures\n", checked, fails);
    return fails ? 1 : 0;
}
