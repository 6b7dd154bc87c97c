#!/bin/sh
# bench/batch.sh - batch mode (--points) against the peers, side by side.
#
#   bench/batch.sh /path/to/adcalc [/path/to/peers]
#
# The peers directory (default $BATCH_PEERS, else ../../shared/peers from
# this script) provides src/limit_filter.c, src/funcs.h, src/common.h and,
# for section "peers", its Makefile, gen_points, limit.c, adolc_bench.cpp
# and torch_bench.py.  Nothing in it is modified: section "peers" works on
# a copy of Makefile and src/ in the temporary directory.
#
# Sections (BATCH_SECTIONS, default "whole peers"):
#
# whole  Whole processes on the same input files, interleaved: the
#        hand-written limit filter (limit_filter.c, analytic gradients)
#        in binary and text mode against
#          adcalc -f Fk.expr --grad --points - --vars V --binary -j 1 / -j 2
#          adcalc -f Fk.expr --grad --points - --vars V -j 1 / -j 2  (text)
#        and an adcalc pass-through: the same command with the expression
#        "x0" (the first variable) instead of Fk, so the same rows are read
#        and the same number of columns written, on a one-node tape.
#        adcalc minus pass-through estimates adcalc's in-process cost.
#        Every command reads its input from a file and writes to /dev/null
#        in the timed runs (BATCH_SINK=file: to a file, which adds the cost
#        of page-cache writes, the same per byte for every program; it
#        makes the ratios smaller); an untimed first pass writes the outputs and
#        checks that adcalc's numbers equal the limit's to 1e-12 relative
#        (binary and text; -j 1 and -j 2 byte for byte).
#        Points: Fk.bin / Fk.txt as the peers' gen_points makes them
#        (splitmix64, seed 0x5EED0000 + k, same domains), BATCH_NPTS rows
#        (default 10^6) for every function, F5 too (the peers' F5 has 10^4:
#        its first 10^4 rows are the same); text F5 BATCH_F5_TEXT_NPTS
#        rows (default 10^5).
# peers  In-process figures, interleaved, on the peers' own points
#        (gen_points: F1..F4 10^6, F5 10^4): limit_O2 (limit.c),
#        adolc_bench (ADOL-C record once, replay = zos_forward +
#        fos_reverse), torch_bench.py vectorised with 1 and 2 threads, and
#        adcalc in process: an embedded C program linked with libadcalc.a
#        that parses and optimises Fk.expr like adcalc does and runs
#        ad_block_run (the engine of --points) over all points already in
#        memory, with 1 and 2 threads (5 passes, median).  ADOL-C is skipped
#        when libadolc-dev is missing, PyTorch when /usr/bin/python3 cannot
#        import torch.
#
# Exit status 1 when a check fails (the timings are never pass/fail).
#
# Each measurement is repeated BATCH_RUNS times (default 3), the order of
# the commands rotated from round to round; figures are medians, ratios are
# ratios of medians measured in the same invocation.  Figures in ns per
# point: wall time / rows, and for section whole also CPU time (user +
# system of the process) / rows, which a busy machine disturbs less (for
# -j 2 it adds up both threads).  Before each function's round the script
# waits, at most BATCH_IDLE_WAIT seconds (30), for the
# CPUs to be 90% idle over one second.
#
# Environment: BATCH_RUNS (3), BATCH_FUNCS ("F1 F2 F3 F4 F5"), BATCH_NPTS
# (1000000), BATCH_F5_TEXT_NPTS (100000), BATCH_SECTIONS ("whole peers"),
# BATCH_SINK (null or file),
# BATCH_PEERS (the peers directory), BATCH_LIBADCALC (default: libadcalc.a
# next to the binary), BATCH_WORK (a directory to keep the generated points
# in and reuse; default: a temporary directory removed at the end; the F5
# binary file alone is 800 MB), BATCH_PEER_RUNS (rounds of section peers,
# default BATCH_RUNS), BATCH_IDLE_WAIT (30), BATCH_LIBS (the libraries the
# in-process program links after libadcalc.a; default: LIBS of the
# Makefile next to it), CC (cc), PYTHON (/usr/bin/python3).
# Paths must not contain blanks.
set -u
LC_ALL=C
export LC_ALL

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 /path/to/adcalc [/path/to/peers]" >&2
    exit 2
fi
case $1 in
/*) adcalc=$1 ;;
*) adcalc=$(pwd)/$1 ;;
esac
if [ ! -x "$adcalc" ]; then
    echo "$0: '$1' is not an executable" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
peers=${2:-${BATCH_PEERS:-$here/../../shared/peers}}
if [ ! -f "$peers/src/limit_filter.c" ]; then
    echo "$0: no peers directory at '$peers' (give it as the second argument or BATCH_PEERS)" >&2
    exit 2
fi
peers=$(cd "$peers" && pwd)
runs=${BATCH_RUNS:-3}
peer_runs=${BATCH_PEER_RUNS:-$runs}
funcs=${BATCH_FUNCS:-"F1 F2 F3 F4 F5"}
npts=${BATCH_NPTS:-1000000}
npts5t=${BATCH_F5_TEXT_NPTS:-100000}
sections=${BATCH_SECTIONS:-"whole peers"}
lib=${BATCH_LIBADCALC:-$(dirname "$adcalc")/libadcalc.a}
cc=${CC:-cc}
py=${PYTHON:-/usr/bin/python3}
want() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }
fail=0   # a check failed: exit status 1

work=$(mktemp -d "${TMPDIR:-/tmp}/adcalc-batch.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
if [ -n "${BATCH_WORK:-}" ]; then
    mkdir -p "$BATCH_WORK" || exit 1
    pts=$(cd "$BATCH_WORK" && pwd)
else
    pts=$work/points
    mkdir -p "$pts"
fi

# ---------------------------------------------------------------- helpers
# runt IN OUT PROG ARGS...: runs PROG with stdin IN and stdout OUT, prints
# "wall_ns cpu_ns status" (cpu = user + system time of the child)
cat >"$work/runt.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t p = fork();
    if (p < 0) return 2;
    if (p == 0) {
        int fi = open(argv[1], O_RDONLY), fo = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fi < 0 || fo < 0) { perror("runt: open"); _exit(126); }
        dup2(fi, 0);
        dup2(fo, 1);
        close(fi);
        close(fo);
        execvp(argv[3], argv + 3);
        perror(argv[3]);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(p, &st, 0, &ru) < 0) return 2;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double wall = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
    double cpu = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
    printf("%.0f %.0f %d\n", wall, cpu, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return 0;
}
EOF
# cmpf bin|txt K LIMIT ADCALC POINTS.bin: compares the outputs of the limit
# and of adcalc for function FK number by number (text: lines that do not
# start with a number, the header, are skipped; row i is point i of
# POINTS.bin).  A number passes when |a - l| <= 1e-12 max(|a|, |l|)
# (relative), or when |a - l| <= 2^-50 C, C the largest |l| of its column
# over the whole file: a difference of a few units in the last place of the
# column's scale, left where the result is a cancellation (a gradient
# component summed from terms much larger than itself; Black-Scholes far
# out of the money, where every number of the row is below 1e-30).  For the
# numbers beyond 1e-12 relative it also prints their relative error against
# a reference in long double (the limit's formulas with 64-bit mantissas),
# for adcalc and for the limit.  Exit status 1 when the rows differ in
# number or a number fails both tests.
cat >"$work/cmpf.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define TOL 1e-12
typedef long double LD;
static LD rf(int k, const double *xd, LD *g)
{
    LD x[100], s = 0;
    int n = k == 0 || k == 1 ? 2 : k == 2 ? 10 : k == 3 ? 5 : 100;
    for (int i = 0; i < n; i++) { x[i] = xd[i]; g[i] = 0; }
    switch (k) {
    case 0:
        g[0] = x[1] + cosl(x[0]);
        g[1] = x[0];
        return x[0] * x[1] + sinl(x[0]);
    case 1: {
        LD a = 1 - x[0], b = x[1] - x[0] * x[0];
        g[0] = -2 * a - 400 * x[0] * b;
        g[1] = 200 * b;
        return a * a + 100 * b * b;
    }
    case 2:
        for (int i = 0; i < 9; i++) {
            LD q = 1 + x[i] * x[i], e = expl(-x[i] * x[i]), sn = sinl(x[i + 1]), cs = cosl(x[i + 1]);
            s += e * sn + logl(q);
            g[i] += -2 * x[i] * e * sn + 2 * x[i] / q;
            g[i + 1] += e * cs;
        }
        {
            LD r = sqrtl(1 + x[9] * x[9]);
            g[9] += x[9] / r;
            return s + r;
        }
    case 3: {
        LD S = x[0], K = x[1], T = x[2], r = x[3], v = x[4], sT = sqrtl(T);
        LD d1 = (logl(S / K) + (r + v * v / 2) * T) / (v * sT), d2 = d1 - v * sT;
        LD N1 = 0.5L * (1 + erfl(d1 / sqrtl(2))), N2 = 0.5L * (1 + erfl(d2 / sqrtl(2)));
        LD disc = expl(-r * T), KdN2 = K * disc * N2;
        LD Sphi = S / sqrtl(2 * 3.14159265358979323846264338327950288L) * expl(-d1 * d1 / 2);
        g[0] = N1;
        g[1] = -disc * N2;
        g[2] = Sphi * v / (2 * sT) + r * KdN2;
        g[3] = T * KdN2;
        g[4] = Sphi * sT;
        return S * N1 - KdN2;
    }
    default:
        for (int i = 0; i < 99; i++) {
            LD b = x[i + 1] - x[i] * x[i], a = 1 - x[i];
            s += 100 * b * b + a * a;
            g[i] += -400 * x[i] * b - 2 * a;
            g[i + 1] += 200 * b;
        }
        return s;
    }
}
static double maxrel, worst_l, worst_a, worst_r, maxerr_a, maxerr_l, colmax[101];
static long over, unexpl, nvals;  /* unexpl: failing both tests */
static void row(int k, const double *pt, const double *l, const double *a, int n)
{
    LD ref[101];
    int refd = 0;
    for (int i = 0; i < n; i++) {
        double x = l[i], y = a[i], d = fabs(x - y), m = fmax(fabs(x), fabs(y)), r;
        nvals++;
        if (x == y || (isnan(x) && isnan(y))) continue;
        r = m > 0 ? d / m : INFINITY;
        if (r > maxrel) maxrel = r;
        if (r <= TOL) continue;
        over++;
        if (!refd) { ref[0] = rf(k, pt, ref + 1); refd = 1; }
        LD R = ref[i], ea = fabsl(y - R), el = fabsl(x - R), s = fabsl(R) > 0 ? fabsl(R) : 1;
        if ((double)(ea / s) > maxerr_a) maxerr_a = (double)(ea / s);
        if ((double)(el / s) > maxerr_l) maxerr_l = (double)(el / s);
        if (!(d <= 0x1p-50 * colmax[i])) {
            unexpl++;
            worst_l = x; worst_a = y; worst_r = (double)R;
        }
    }
}
/* the numbers of the next data line: count, or -1 at the end */
static int txtrow(FILE *f, double *v, int cap)
{
    static char line[1 << 16];
    for (;;) {
        if (!fgets(line, sizeof line, f)) return -1;
        char *s = line, *e;
        int k = 0;
        while (*s == ' ') s++;
        if (!strchr("+-.0123456789in", *s)) continue;   /* header or comment */
        while (k < cap) {
            v[k] = strtod(s, &e);
            if (e == s) break;
            k++;
            s = e;
            while (*s == ',' || *s == ' ' || *s == '\t') s++;
            if (*s == '\n' || !*s) break;
        }
        return k;
    }
}
int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[1], "bin") && strcmp(argv[1], "txt"))) {
        fprintf(stderr, "usage: cmpf bin|txt K LIMIT ADCALC POINTS.bin\n");
        return 2;
    }
    int txt = !strcmp(argv[1], "txt"), k = atoi(argv[2]) - 1;
    int n = k == 0 || k == 1 ? 2 : k == 2 ? 10 : k == 3 ? 5 : 100;
    FILE *fl = fopen(argv[3], "rb"), *fa = fopen(argv[4], "rb"), *fp = fopen(argv[5], "rb");
    if (!fl || !fa || !fp) { perror("cmpf"); return 2; }
    long rl = 0, ra = 0;
    int bad = 0;
    double l[512], a[512], pt[100];
    /* pass 1: the scale of each column */
    for (;;) {
        int gl = txt ? txtrow(fl, l, 512) : (int)fread(l, sizeof *l, n + 1, fl);
        if (gl != n + 1) break;
        for (int i = 0; i <= n; i++)
            if (fabs(l[i]) > colmax[i]) colmax[i] = fabs(l[i]);
    }
    rewind(fl);
    for (;;) {
        int gl, ga;
        if (txt) {
            gl = txtrow(fl, l, 512);
            ga = txtrow(fa, a, 512);
            gl = gl < 0 ? 0 : gl == n + 1 ? n + 1 : -1;
            ga = ga < 0 ? 0 : ga == n + 1 ? n + 1 : -1;
        } else {
            gl = (int)fread(l, sizeof *l, n + 1, fl);
            ga = (int)fread(a, sizeof *a, n + 1, fa);
        }
        if (gl < 0 || ga < 0) { bad = 1; break; }
        rl += gl == n + 1;
        ra += ga == n + 1;
        if (gl != n + 1 || ga != n + 1) break;
        if (fread(pt, sizeof *pt, n, fp) != (size_t)n) { bad = 1; break; }
        row(k, pt, l, a, n + 1);
    }
    if (rl != ra) bad = 1;
    printf("rows %ld/%ld, %ld numbers: max rel. difference %.2g; %ld beyond 1e-12", rl, ra, nvals, maxrel, over);
    if (over)
        printf(" (their rel. error against long double: adcalc <= %.2g, limit <= %.2g), %ld beyond 2^-50 of the column's scale too",
               maxerr_a, maxerr_l, unexpl);
    if (unexpl) printf(": e.g. limit %.17g adcalc %.17g ref %.17g", worst_l, worst_a, worst_r);
    printf("\n");
    return bad || unexpl ? 1 : 0;
}
EOF
# genpts K NPTS NTXT DIR: DIR/FK.bin (NPTS rows) and DIR/FK.txt (the first
# NTXT rows, %.17g) exactly as the peers' gen_points makes them
cat >"$work/genpts.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static uint64_t sm(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    int k = atoi(argv[1]) - 1;
    long np = atol(argv[2]), nt = atol(argv[3]);
    static const int N[5] = {2, 2, 10, 5, 100};
    static const double lo4[5] = {50, 50, 0.1, 0.0, 0.1}, hi4[5] = {150, 150, 2.0, 0.1, 0.5};
    if (k < 0 || k > 4) return 2;
    int n = N[k];
    char path[4096];
    snprintf(path, sizeof path, "%s/F%d.bin", argv[4], k + 1);
    FILE *fb = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/F%d.txt", argv[4], k + 1);
    FILE *ft = fopen(path, "w");
    if (!fb || !ft) { perror(path); return 1; }
    uint64_t s = 0x5EED0000ULL + (uint64_t)(k + 1);
    double x[100];
    for (long p = 0; p < np; p++) {
        for (int i = 0; i < n; i++) {
            double u = (double)(sm(&s) >> 11) * 0x1.0p-53;
            x[i] = k == 3 ? lo4[i] + (hi4[i] - lo4[i]) * u : -2.0 + 4.0 * u;
        }
        fwrite(x, sizeof *x, n, fb);
        if (p < nt)
            for (int i = 0; i < n; i++) fprintf(ft, "%.17g%c", x[i], i + 1 < n ? ',' : '\n');
    }
    if (fclose(fb) || fclose(ft)) { perror("genpts"); return 1; }
    return 0;
}
EOF
# inproc EXPRFILE VARS POINTS.bin THREADS REPS [OUT.bin]: adcalc in process,
# the engine of --points (ad_block_run_rows, the rows replayed where they
# lie, as --binary does) on points already in memory; one ad_block per
# thread for the whole run, as each batch worker keeps its own
cat >"$work/inproc.c" <<'EOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "adcalc.h"
static const ad_tape *T;
static unsigned char *diff;
static long *cols, *colof;
static size_t ni, ncol, B;
static const double *X;
static double *R;
static long flagged;
/* one thread's share of the points, and its workspace: the ad_block and
 * the flags live as long as the run (as in adcalc's batch mode, where each
 * worker keeps its block for all its chunks), so a pass times the replay,
 * not malloc and the first touch of fresh pages */
typedef struct { size_t lo, hi; long fl; ad_block *bk; unsigned char *flg; } range;
static double now(int which)
{
    struct timespec ts;
    clock_gettime(which, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}
/* the rows replayed where they lie, as adcalc --binary does
 * (ad_block_run_rows: row stride ncol, input i in column colof[i]) */
static void *work(void *arg)
{
    range *r = arg;
    for (size_t p = r->lo; p < r->hi; p += B) {
        size_t np = r->hi - p < B ? r->hi - p : B;
        if (ad_block_run_rows(T, r->bk, diff, 1, np, X + p * ncol, ncol, colof, NULL, cols, ncol,
                              R + p * (ncol + 1), ncol + 1, r->flg) < 0) {
            fprintf(stderr, "inproc: out of memory\n");
            exit(1);
        }
        for (size_t j = 0; j < np; j++) r->fl += r->flg[j] != 0;
    }
    return NULL;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
int main(int argc, char **argv)
{
    if (argc < 6) { fprintf(stderr, "usage: inproc EXPRFILE VARS POINTS THREADS REPS [OUT]\n"); return 2; }
    int nth = atoi(argv[4]), reps = atoi(argv[5]);
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    static char src[1 << 20];
    size_t len = fread(src, 1, sizeof src, f);
    fclose(f);
    ad_tape *t = ad_tape_new();
    ad_diag d;
    ad_optstats st;
    if (ad_parse(t, src, len, &d) || ad_optimize(t, &st) < 0) { fprintf(stderr, "inproc: %s\n", d.msg); return 1; }
    T = t;
    ni = ad_tape_ninputs(t);
    /* the columns */
    char *names[512];
    char *vs = strdup(argv[2]);
    for (char *s = strtok(vs, ","); s && ncol < 512; s = strtok(NULL, ",")) names[ncol++] = s;
    cols = malloc(ncol * sizeof *cols);
    colof = malloc((ni ? ni : 1) * sizeof *colof);
    diff = malloc(ni ? ni : 1);
    for (size_t j = 0; j < ncol; j++) cols[j] = -1;
    for (size_t i = 0; i < ni; i++) {
        size_t l;
        const char *nm = ad_tape_input_name(t, i, &l);
        colof[i] = -1;
        diff[i] = 1;
        for (size_t j = 0; j < ncol; j++)
            if (strlen(names[j]) == l && !memcmp(names[j], nm, l)) { colof[i] = (long)j; cols[j] = (long)i; }
        if (colof[i] < 0) { fprintf(stderr, "inproc: input '%.*s' is not a column\n", (int)l, nm); return 1; }
    }
    B = ad_block_width(t);
    /* the points */
    f = fopen(argv[3], "rb");
    if (!f) { perror(argv[3]); return 1; }
    fseek(f, 0, SEEK_END);
    size_t npts = (size_t)ftell(f) / (8 * ncol);
    rewind(f);
    double *x = malloc(npts * ncol * 8);
    R = calloc(npts * (ncol + 1), 8);
    if (!x || !R || fread(x, 8 * ncol, npts, f) != npts) { fprintf(stderr, "inproc: cannot read points\n"); return 1; }
    fclose(f);
    X = x;
    double tm[64], wall = 0, cpu = 0;
    if (reps > 63) reps = 63;
    if (nth < 1 || nth > 64) nth = 1;
    range rg[64];
    for (int k = 0; k < nth; k++) {
        rg[k].bk = ad_block_new();
        rg[k].flg = malloc(B);
        if (!rg[k].bk || !rg[k].flg) { fprintf(stderr, "inproc: out of memory\n"); return 1; }
    }
    for (int rep = -1; rep < reps; rep++) {   /* rep -1: warm-up */
        pthread_t th[64];
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        for (int k = 0; k < nth; k++) {
            /* split on block boundaries */
            size_t nb = (npts + B - 1) / B;
            rg[k].lo = nb * k / nth * B;
            rg[k].hi = nb * (k + 1) / nth * B;
            rg[k].fl = 0;
            if (rg[k].hi > npts) rg[k].hi = npts;
            if (nth == 1) work(&rg[k]);
            else pthread_create(&th[k], NULL, work, &rg[k]);
        }
        flagged = 0;
        for (int k = 0; k < nth; k++) {
            if (nth > 1) pthread_join(th[k], NULL);
            flagged += rg[k].fl;
        }
        double w = now(CLOCK_MONOTONIC) - t0;
        if (rep >= 0) { tm[rep] = w; wall += w; cpu += now(CLOCK_PROCESS_CPUTIME_ID) - c0; }
    }
    qsort(tm, reps, sizeof *tm, cmpd);
    printf("RESULT method=adcalc-inproc-%dt npts=%zu median_ns_per_pt=%.3f min_ns_per_pt=%.3f reps=%d "
           "cpu_over_wall=%.3f block=%zu flagged=%ld nodes=%zu\n",
           nth, npts, tm[reps / 2] / npts, tm[0] / npts, reps, cpu / wall, B, flagged, ad_tape_size(t));
    if (argc > 6) {
        f = fopen(argv[6], "wb");
        if (!f || fwrite(R, 8 * (ncol + 1), npts, f) != npts || fclose(f)) { perror(argv[6]); return 1; }
    }
    return 0;
}
EOF
for prog in runt cmpf genpts; do
    if ! $cc -O2 -o "$work/$prog" "$work/$prog.c" -lm; then
        echo "$0: cannot compile $prog.c with $cc" >&2
        exit 1
    fi
done
if ! $cc -O2 -Wall -o "$work/limit_filter" "$peers/src/limit_filter.c" -lm; then
    echo "$0: cannot compile $peers/src/limit_filter.c" >&2
    exit 1
fi

# the expressions and their variables
. "$here/funcs.sh"
write_exprs "$work"
for F in F1 F2 F3 F4 F5; do
    # pass-through: the first variable alone
    vars_of $F | cut -d, -f1 >"$work/$F.pass"
done

# wait_idle: waits (at most BATCH_IDLE_WAIT seconds, default 30) until the
# CPUs were at least 90% idle over one second, as the peers' driver does;
# notes it when it gives up
idle_wait=${BATCH_IDLE_WAIT:-30}
busy_rounds=0
wait_idle() {
    waited=0
    while :; do
        i0=$(awk '/^cpu /{ print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat 2>/dev/null)
        sleep 1
        i1=$(awk '/^cpu /{ print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat 2>/dev/null)
        idle=$(echo "$i0 $i1" | awk '{ d = $4 - $2; print d > 0 ? ($3 - $1) / d : 1 }')
        [ "$(awk -v i="$idle" 'BEGIN { print (i >= 0.9) }')" = 1 ] && return 0
        waited=$((waited + 1))
        if [ "$waited" -ge "$idle_wait" ]; then
            busy_rounds=$((busy_rounds + 1))
            return 0
        fi
    done
}

# median of the numbers on stdin
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == a + 0 && b == b + 0 && b > 0) printf "%.2f", a / b; else printf "n/a" }'; }
fmt() { awk -v a="$1" 'BEGIN { if (a != a + 0) print "n/a"; else if (a >= 100) printf "%.0f\n", a; else if (a >= 10) printf "%.1f\n", a; else printf "%.2f\n", a }'; }
# verdict RATIO MAX: met / MISSED
verdict() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != a + 0) print "n/a"; else print (a <= b) ? "met" : "MISSED" }'; }

echo "adcalc batch-mode benchmark: $adcalc"
echo "peers: $peers"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -sm); $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores;" \
    "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')"
echo "cc: $($cc --version 2>/dev/null | head -n 1); rounds: $runs"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo

# ---------------------------------------------------------------- points
npts_txt() { if [ "$1" = F5 ] && [ "$npts5t" -lt "$npts" ]; then echo "$npts5t"; else echo "$npts"; fi; }
want whole && for F in $funcs; do
    k=${F#F}
    stamp="$npts $(npts_txt $F)"
    if [ -f "$pts/$F.stamp" ] && [ "$(cat "$pts/$F.stamp")" = "$stamp" ] && [ -f "$pts/$F.bin" ] && [ -f "$pts/$F.txt" ]; then
        continue
    fi
    echo "generating $F: $npts binary rows, $(npts_txt $F) text rows in $pts"
    "$work/genpts" "$k" "$npts" "$(npts_txt $F)" "$pts" || exit 1
    echo "$stamp" >"$pts/$F.stamp"
done

# ---------------------------------------------------------------- whole
# cmd F LABEL: sets the positional parameters to "IN PROG ARGS..."
run_cmd() {
    F=$1 lab=$2 out=$3
    v=$(vars_of "$F")
    case $lab in
    L.bin) set -- "$pts/$F.bin" "$work/limit_filter" "$F" binary ;;
    L.txt) set -- "$pts/$F.txt" "$work/limit_filter" "$F" text ;;
    A.bin1) set -- "$pts/$F.bin" "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 ;;
    A.bin2) set -- "$pts/$F.bin" "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 2 ;;
    P.bin1) set -- "$pts/$F.bin" "$adcalc" -f "$work/$F.pass" --grad --points - --vars "$v" --binary -j 1 ;;
    A.txt1) set -- "$pts/$F.txt" "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" -j 1 ;;
    A.txt2) set -- "$pts/$F.txt" "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" -j 2 ;;
    P.txt1) set -- "$pts/$F.txt" "$adcalc" -f "$work/$F.pass" --grad --points - --vars "$v" -j 1 ;;
    esac
    in=$1
    shift
    "$work/runt" "$in" "$out" "$@"
}
labels="L.bin A.bin1 A.bin2 P.bin1 L.txt A.txt1 A.txt2 P.txt1"
nlab=8

if want whole; then
    # where the timed runs write: /dev/null, or (BATCH_SINK=file) a file in
    # the temporary directory, truncated by every run (page-cache writes
    # add the same cost per byte to every program)
    case ${BATCH_SINK:-null} in
    file) sink=$work/sink.out ;;
    *) sink=/dev/null ;;
    esac
    echo "== whole processes, ns per point (median of $runs interleaved runs; input from a file, output to $sink)"
    t=$work/times
    mkdir -p "$t"
    checks=$work/checks
    : >"$checks"
    for F in $funcs; do
        n=$(nvars $F)
        # the check pass (untimed; also warms the page cache)
        for lab in $labels; do
            set -- $(run_cmd $F $lab "$work/out.$lab")
            if [ "${3:-1}" != 0 ]; then
                echo "$F $lab: exit status ${3:-?}" >&2
                fail=1
            fi
        done
        cb=$("$work/cmpf" bin "${F#F}" "$work/out.L.bin" "$work/out.A.bin1" "$pts/$F.bin") || fail=1
        ct=$("$work/cmpf" txt "${F#F}" "$work/out.L.txt" "$work/out.A.txt1" "$pts/$F.bin") || fail=1
        if cmp -s "$work/out.A.bin1" "$work/out.A.bin2" && cmp -s "$work/out.A.txt1" "$work/out.A.txt2"; then
            j12="identical"
        else
            j12="DIFFER"
            fail=1
        fi
        echo "$F binary: $cb" >>"$checks"
        echo "$F text:   $ct" >>"$checks"
        echo "$F -j 1 vs -j 2 (binary and text): $j12" >>"$checks"
        rm -f "$work"/out.*
        for lab in $labels; do : >"$t/$F.$lab"; : >"$t/$F.$lab.cpu"; done
        r=0
        while [ "$r" -lt "$runs" ]; do
            wait_idle
            # rotate the order from round to round
            i=0
            while [ "$i" -lt "$nlab" ]; do
                lab=$(echo $labels | tr ' ' '\n' | sed -n "$(((i + r) % nlab + 1))p")
                set -- $(run_cmd $F $lab "$sink")
                echo "$1" >>"$t/$F.$lab"
                echo "$2" >>"$t/$F.$lab.cpu"
                i=$((i + 1))
            done
            r=$((r + 1))
        done
        for lab in $labels; do
            case $lab in *txt*) np=$(npts_txt $F) ;; *) np=$npts ;; esac
            median <"$t/$F.$lab" | awk -v n="$np" '{ printf "%.3f\n", $1 / n }' >"$t/$F.$lab.med"
            median <"$t/$F.$lab.cpu" | awk -v n="$np" '{ printf "%.3f\n", $1 / n }' >"$t/$F.$lab.cmed"
        done
        echo "  $F done: limit bin $(fmt "$(cat "$t/$F.L.bin.med")"), adcalc bin -j1 $(fmt "$(cat "$t/$F.A.bin1.med")")," \
            "limit txt $(fmt "$(cat "$t/$F.L.txt.med")"), adcalc txt -j1 $(fmt "$(cat "$t/$F.A.txt1.med")") ns/point"
    done
    echo
    echo "Binary (--binary; whole process, ns/point):"
    echo
    echo "| F | n | points | limit | adcalc -j 1 | ratio | target | adcalc -j 2 | ratio | pass-through -j 1 | adcalc - pass-through | CPU: limit | CPU: adcalc -j 1 | CPU ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for F in $funcs; do
        m() { cat "$t/$F.$1.med"; }
        c() { cat "$t/$F.$1.cmed"; }
        case $F in F2) tg=5 ;; F5) tg=3 ;; *) tg=1.5 ;; esac
        r1=$(ratio "$(m A.bin1)" "$(m L.bin)")
        r2=$(ratio "$(m A.bin2)" "$(m L.bin)")
        est=$(awk -v a="$(m A.bin1)" -v b="$(m P.bin1)" 'BEGIN { print a - b }')
        echo "| $F | $(nvars $F) | $npts | $(fmt "$(m L.bin)") | $(fmt "$(m A.bin1)") | ${r1}x | <= ${tg}x: $(verdict "$r1" "$tg") |" \
            "$(fmt "$(m A.bin2)") | ${r2}x | $(fmt "$(m P.bin1)") | $(fmt "$est") |" \
            "$(fmt "$(c L.bin)") | $(fmt "$(c A.bin1)") | $(ratio "$(c A.bin1)" "$(c L.bin)")x |"
    done
    echo
    echo "Text (comma-separated rows in, shortest round-trip numbers out; whole process, ns/point):"
    echo
    echo "| F | points | limit text | adcalc -j 1 | ratio | target <= 1.3x | adcalc -j 2 | ratio | pass-through -j 1 | CPU: limit | CPU: adcalc -j 1 | CPU ratio |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for F in $funcs; do
        m() { cat "$t/$F.$1.med"; }
        c() { cat "$t/$F.$1.cmed"; }
        r1=$(ratio "$(m A.txt1)" "$(m L.txt)")
        r2=$(ratio "$(m A.txt2)" "$(m L.txt)")
        echo "| $F | $(npts_txt $F) | $(fmt "$(m L.txt)") | $(fmt "$(m A.txt1)") | ${r1}x | $(verdict "$r1" 1.3) |" \
            "$(fmt "$(m A.txt2)") | ${r2}x | $(fmt "$(m P.txt1)") |" \
            "$(fmt "$(c L.txt)") | $(fmt "$(c A.txt1)") | $(ratio "$(c A.txt1)" "$(c L.txt)")x |"
    done
    echo
    echo "cpu/wall of the one-thread commands (median; below 0.95 means the machine was busy):"
    for F in $funcs; do
        printf '  %s:' "$F"
        for lab in L.bin A.bin1 L.txt A.txt1; do
            w=$(median <"$t/$F.$lab")
            c=$(median <"$t/$F.$lab.cpu")
            printf ' %s %s' "$lab" "$(ratio "$c" "$w")"
        done
        printf '   (-j 2: A.bin2 %s)\n' "$(ratio "$(median <"$t/$F.A.bin2.cpu")" "$(median <"$t/$F.A.bin2")")"
    done
    echo
    echo "Check, adcalc against the limit's analytic gradients (pass: every number within 1e-12 relative):"
    sed 's/^/  /' "$checks"
    if [ "$fail" = 0 ]; then echo "  check: passed"; else echo "  check: FAILED"; fi
    echo
fi

# ---------------------------------------------------------------- peers
if want peers; then
    echo "== in process, ns per point (median over $peer_runs interleaved rounds of each program's own median)"
    pd=$work/peers
    mkdir -p "$pd/points" "$pd/grads" "$pd/tapes" "$pd/raw"
    cp -R "$peers/Makefile" "$peers/src" "$pd/"
    chmod -R u+w "$pd"
    (cd "$pd" && make -s build/limit_O2 build/gen_points build/limit_filter) >"$pd/make.log" 2>&1 || {
        echo "$0: cannot build the peers (see below)" >&2
        cat "$pd/make.log" >&2
        exit 1
    }
    have_adolc=0
    (cd "$pd" && make -s build/adolc_bench) >>"$pd/make.log" 2>&1 && have_adolc=1
    have_torch=0
    "$py" -c 'import torch, numpy' >/dev/null 2>&1 && have_torch=1
    [ "$have_adolc" = 1 ] || echo "  (ADOL-C skipped: cannot build adolc_bench; apt-get install -y libadolc-dev)"
    [ "$have_torch" = 1 ] || echo "  (PyTorch skipped: $py cannot import torch; apt-get install -y python3-torch python3-numpy)"
    "$pd/build/gen_points" "$pd/points" --no-txt >/dev/null || exit 1
    # the same points as section whole (its files are longer for F5)
    for F in $funcs; do
        if [ -f "$pts/$F.bin" ]; then
            sz=$(wc -c <"$pd/points/$F.bin")
            [ "$(wc -c <"$pts/$F.bin")" -lt "$sz" ] && sz=$(wc -c <"$pts/$F.bin")
            cmp -s -n "$sz" "$pd/points/$F.bin" "$pts/$F.bin" || echo "  WARNING: $F points differ from the peers' gen_points"
        fi
    done
    ok=0
    # the libraries adcalc links with: LIBS of the build directory's Makefile
    libs=${BATCH_LIBS:-$(sed -n 's/^LIBS = //p' "$(dirname "$lib")/Makefile" 2>/dev/null)}
    [ -n "$libs" ] || libs="-ldouble-conversion -lm"
    if [ -f "$lib" ] && $cc -O2 -I"$here/../src/lib" -o "$work/inproc" "$work/inproc.c" "$lib" $libs -lstdc++ -lm -lpthread 2>"$work/inproc.log"; then
        ok=1
    else
        echo "  (adcalc in process skipped: cannot build against '$lib':"
        sed 's/^/    /' "$work/inproc.log" 2>/dev/null | head -n 5
        echo "  )"
    fi
    raw=$pd/raw/all.txt
    : >"$raw"
    progs="limit inproc1 inproc2 adolc torch1 torch2"
    r=0
    while [ "$r" -lt "$peer_runs" ]; do
        for F in $funcs; do
            i=0
            wait_idle
            while [ "$i" -lt 6 ]; do
                p=$(echo $progs | tr ' ' '\n' | sed -n "$(((i + r) % 6 + 1))p")
                i=$((i + 1))
                export PEERS_FUNCS=$F
                case $p in
                limit) "$pd/build/limit_O2" "$pd/points" "$pd/grads" limit-O2 ;;
                inproc1 | inproc2)
                    [ "$ok" = 1 ] || continue
                    o=
                    [ "$r" = 0 ] && o=$pd/grads/inproc.${p#inproc}.$F.bin
                    "$work/inproc" "$work/$F.expr" "$(vars_of $F)" "$pd/points/$F.bin" "${p#inproc}" 5 $o | sed "s/method=/func=$F method=/" ;;
                adolc)
                    [ "$have_adolc" = 1 ] || continue
                    (cd "$pd/tapes" && ../build/adolc_bench ../points ../grads 1000) | grep 'method=adolc-replay' ;;
                torch1)
                    [ "$have_torch" = 1 ] || continue
                    PEERS_TORCH_THREADS=1 "$py" "$pd/src/torch_bench.py" "$pd/points" "$pd/grads" 100 10 ;;
                torch2)
                    [ "$have_torch" = 1 ] || continue
                    PEERS_TORCH_THREADS=2 "$py" "$pd/src/torch_bench.py" "$pd/points" "$pd/grads" 100 10 | grep -v torch-scalar ;;
                esac
            done
        done >>"$raw" 2>>"$pd/raw/stderr.txt"
        r=$((r + 1))
    done
    unset PEERS_FUNCS
    # med F METHOD: median over the rounds
    med() {
        grep "RESULT" "$raw" | grep " func=$1 " | grep " method=$2 " |
            sed 's/.*median_ns_per_pt=\([^ ]*\).*/\1/' | median
    }
    echo
    echo "| F | points | limit (C -O2) | adcalc -j 1 | adcalc -j 2 | PyTorch 1 thread | PyTorch 2 threads | ADOL-C replay | adcalc/PyTorch, 1 thread | adcalc/PyTorch, 2 threads | ADOL-C/adcalc -j 1 | adcalc -j 1/limit |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
    for F in $funcs; do
        l=$(med $F limit-O2)
        a1=$(med $F adcalc-inproc-1t)
        a2=$(med $F adcalc-inproc-2t)
        t1=$(med $F torch-vec-1t)
        t2=$(med $F torch-vec)
        ad=$(med $F adolc-replay)
        np=$(grep "RESULT" "$raw" | grep " func=$F " | grep " method=limit-O2 " | head -n 1 | sed 's/.*npts=\([0-9]*\).*/\1/')
        echo "| $F | $np | $(fmt "$l") | $(fmt "$a1") | $(fmt "$a2") | $(fmt "$t1") | $(fmt "$t2") | $(fmt "$ad") |" \
            "$(ratio "$a1" "$t1")x | $(ratio "$a2" "$t2")x | $(ratio "$ad" "$a1")x | $(ratio "$a1" "$l")x |"
    done
    echo
    echo "cpu/wall (median) and details:"
    for F in $funcs; do
        printf '  %s:' "$F"
        for p in limit-O2 adcalc-inproc-1t adcalc-inproc-2t torch-vec-1t torch-vec adolc-replay; do
            c=$(grep "RESULT" "$raw" | grep "func=$F " | grep "method=$p " | sed 's/.*cpu_over_wall=\([^ ]*\).*/\1/' | median)
            printf ' %s %s' "$p" "$c"
        done
        grep "RESULT func=$F method=adcalc-inproc-1t " "$raw" | head -n 1 | sed 's/.*\(block=[0-9]*\) \(flagged=[0-9]*\) \(nodes=[0-9]*\).*/  (\1 \2 \3)/'
    done
    if [ "$ok" = 1 ]; then
        echo "check, adcalc in process against limit_filter on the same points:"
        for F in $funcs; do
            n=$(nvars $F)
            "$pd/build/limit_filter" "$F" binary <"$pd/points/$F.bin" >"$work/lim.bin"
            res=$("$work/cmpf" bin "${F#F}" "$work/lim.bin" "$pd/grads/inproc.1.$F.bin" "$pd/points/$F.bin") || fail=1
            printf '  %s: -j 1 %s; -j 2 ' "$F" "$res"
            if cmp -s "$pd/grads/inproc.1.$F.bin" "$pd/grads/inproc.2.$F.bin"; then
                echo "identical to -j 1"
            else
                echo "DIFFERS from -j 1"
                fail=1
            fi
            rm -f "$work/lim.bin"
        done
    fi
    if [ -s "$pd/raw/stderr.txt" ]; then
        echo "stderr of the peers (first lines):"
        grep -v '^$' "$pd/raw/stderr.txt" | head -n 5 | sed 's/^/  /'
    fi
    echo
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null);" \
    "rounds started on a busy machine after waiting ${idle_wait} s for it: $busy_rounds"
[ "$fail" = 0 ] || echo "$0: a check FAILED (see above)" >&2
exit "$fail"
