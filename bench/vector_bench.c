/* vector_bench.c - in-process phases of a gradient over a vector of n
 * variables (links libadcalc.a; bench/run.sh section g builds and runs it).
 *
 * The chained Rosenbrock function F5 of n variables, written two ways:
 *
 *   sum   sum(i = 1..n-1, 100*(x[i+1] - x[i]^2)^2 + (1 - x[i])^2)
 *   slice sum(100*(x[2..n] - x[1..n-1]^2)^2 + (1 - x[1..n-1])^2)
 *
 * Each is recorded (ad_parse, with x declared a vector of n), optimised,
 * planned, and its gradient derived at one point (ad_derive: the primal
 * and the reverse sweep), REPS times; every phase's median is printed, with
 * the tape's nodes and bytes.  The gradient is checked against the
 * analytic one (relative 1e-13 of its magnitudes; a mismatch exits 1), and
 * the analytic gradient's own time is printed, as the floor a reverse
 * sweep is measured against.
 *
 * Points: x_i = splitmix64 uniform in [-2, 2], seed 0x5EED0005.
 *
 * usage: vector_bench [-n N] [-r REPS] [-f sum|slice] */
#define _POSIX_C_SOURCE 200809L  /* clock_gettime */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "adcalc.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* F5's gradient by hand, and the magnitudes of its terms */
static void analytic(const double *x, size_t n, double *g, double *mag)
{
    memset(g, 0, n * sizeof *g);
    memset(mag, 0, n * sizeof *mag);
    for (size_t i = 0; i + 1 < n; i++) {
        double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
        g[i] += -400 * x[i] * a - 2 * b;
        g[i + 1] += 200 * a;
        mag[i] += fabs(400 * x[i] * a) + fabs(2 * b);
        mag[i + 1] += fabs(200 * a);
    }
}

static void die(const char *what, const ad_diag *d)
{
    fprintf(stderr, "vector_bench: %s: %s\n", what, d ? d->msg : "out of memory");
    exit(1);
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int reps = 5;
    const char *only = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-n")) n = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "-r")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-f")) only = argv[i + 1];
    }
    if (n < 2 || reps < 1 || reps > 101) {
        fprintf(stderr, "usage: vector_bench [-n N >= 2] [-r REPS] [-f sum|slice]\n");
        return 2;
    }
    static const char *const forms[][2] = {
        {"sum", "sum(i = 1..len(x)-1, 100*(x[i+1] - x[i]^2)^2 + (1 - x[i])^2)"},
        {"slice", "n = len(x); sum(100*(x[2..n] - x[1..n-1]^2)^2 + (1 - x[1..n-1])^2)"},
    };
    double *x = malloc(n * sizeof *x), *g = malloc(n * sizeof *g), *mag = malloc(n * sizeof *mag);
    char **names = malloc(n * sizeof *names);
    if (!x || !g || !mag || !names) die("setup", NULL);
    uint64_t seed = 0x5EED0005;
    for (size_t i = 0; i < n; i++) {
        x[i] = -2 + 4 * ((double)(splitmix(&seed) >> 11) / 9007199254740992.0);
        if (!(names[i] = malloc(24))) die("setup", NULL);
        snprintf(names[i], 24, "x[%zu]", i + 1);
    }
    double t_an[101];
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        analytic(x, n, g, mag);
        t_an[r] = now_ns() - t0;
    }
    printf("n = %zu, %d repetitions, medians\n", n, reps);
    printf("  analytic gradient in C: %.2f ms\n", median(t_an, reps) / 1e6);
    for (size_t f = 0; f < 2; f++) {
        if (only && strcmp(only, forms[f][0])) continue;
        double t_rec[101], t_opt[101], t_plan[101], t_grad[101];
        size_t nodes = 0;
        for (int r = 0; r < reps; r++) {
            ad_diag d;
            ad_tape *t = ad_tape_new();
            ad_work *w = ad_work_new();
            if (!t || !w || ad_tape_set_vector(t, "x", 1, n) < 0) die("setup", NULL);
            ad_tape_set_limit(t, 1u << 30);
            double t0 = now_ns();
            if (ad_parse(t, forms[f][1], strlen(forms[f][1]), &d)) die("record", &d);
            double t1 = now_ns();
            if (ad_optimize(t, NULL) < 0) die("optimise", NULL);
            double t2 = now_ns();
            ad_request rq;
            memset(&rq, 0, sizeof rq);
            rq.vars = (const char *const *)names;
            rq.nvars = n;
            rq.cols = (const char *const *)names;
            rq.ncols = n;
            rq.grad = 1;
            ad_plan *p;
            if (ad_plan_new(t, &rq, &p, NULL, &d)) die("plan", &d);
            double *row = malloc(ad_plan_layout(p)->width * sizeof *row);
            if (!row) die("setup", NULL);
            double t3 = now_ns();
            if (ad_derive(p, w, x, row, NULL, &d)) die("derive", &d);
            double t4 = now_ns();
            t_rec[r] = t1 - t0;
            t_opt[r] = t2 - t1;
            t_plan[r] = t3 - t2;
            t_grad[r] = t4 - t3;
            nodes = ad_tape_size(t);
            analytic(x, n, g, mag);
            for (size_t i = 0; i < n; i++)
                if (!(fabs(row[1 + i] - g[i]) <= 1e-13 * mag[i] + 1e-300)) {
                    fprintf(stderr, "vector_bench: %s: d/dx[%zu] = %.17g, analytic %.17g\n", forms[f][0], i + 1,
                            row[1 + i], g[i]);
                    return 1;
                }
            free(row);
            ad_plan_free(p);
            ad_work_free(w);
            ad_tape_free(t);
        }
        printf("  %-5s record %8.1f ms  optimise %7.1f ms  plan %7.1f ms  value+gradient %7.1f ms  "
               "(%zu nodes, %.1f per element, %zu bytes)\n",
               forms[f][0], median(t_rec, reps) / 1e6, median(t_opt, reps) / 1e6, median(t_plan, reps) / 1e6,
               median(t_grad, reps) / 1e6, nodes, (double)nodes / (double)n, nodes * ad_node_bytes());
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(x);
    free(g);
    free(mag);
    return 0;
}
