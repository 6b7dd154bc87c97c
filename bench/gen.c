/* gen.c - generates large adcalc expressions for bench/run.sh.
 *
 *   gen chain N    a left-deep sum of mixed terms over x and y with exactly N
 *                  operations on the tape (mul, sin, add, neg, exp, sub, div,
 *                  cos, tanh):  x + sin(x*0.5) - exp(-y)*x + x*y/3 - cos(y) ...
 *   gen flat N     x + y + x + y ... : N terms, N-1 additions (left-deep)
 *   gen parens N   N nested parentheses around x: ((((x))))
 *
 * Expressions use only x and y (give -at x=0.3,y=0.7) and the constants 0.5
 * and 3, so the tape is inputs + 2 constants + operations.  One line, no
 * trailing newline needed; written to stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the repeating terms of "chain", each with its operation count (including
 * the + or - that joins it to the running sum) */
static const struct { const char *text; long ops; } terms[] = {
    {" + sin(x*0.5)", 3},      /* mul sin add */
    {" - exp(-y)*x", 4},       /* neg exp mul sub */
    {" + x*y/3", 3},           /* mul div add */
    {" - cos(y)", 2},          /* cos sub */
    {" + tanh(x - y)", 3},     /* sub tanh add */
};

static int usage(void)
{
    fputs("usage: gen chain|flat|parens N\n", stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3) return usage();
    char *end;
    long n = strtol(argv[2], &end, 10);
    if (*argv[2] == 0 || *end || n < 1) return usage();
    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    if (strcmp(argv[1], "chain") == 0) {
        long left = n;
        size_t k = 0, nt = sizeof terms / sizeof terms[0];
        fputs("x", stdout);
        while (left > 0) {
            if (terms[k].ops <= left) {
                fputs(terms[k].text, stdout);
                left -= terms[k].ops;
            } else {
                fputs(" + y", stdout);   /* one add: pads to exactly n */
                left -= 1;
            }
            k = (k + 1) % nt;
            /* no line breaks: a program ends a statement at a line end that
             * follows a name, and every term here starts with an operator */
        }
    } else if (strcmp(argv[1], "flat") == 0) {
        fputs("x", stdout);
        for (long i = 1; i < n; i++) fputs(i % 2 ? "+y" : "+x", stdout);
    } else if (strcmp(argv[1], "parens") == 0) {
        for (long i = 0; i < n; i++) putchar('(');
        putchar('x');
        for (long i = 0; i < n; i++) putchar(')');
    } else {
        return usage();
    }
    putchar('\n');
    return fflush(stdout) == 0 ? 0 : 1;
}
