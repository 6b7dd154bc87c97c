#!/bin/sh
# bench/jit.sh - --jit (compiled batch replay) against the interpreter and
# the hand-written filter, side by side in one run.
#
#   bench/jit.sh /path/to/adcalc [/path/to/peers]
#
# For F1..F5 (the peers' functions and points, gen_points; F5's 10^4 rows
# repeated 10 times), whole processes on the same binary input, output to
# /dev/null, interleaved, JIT_RUNS rounds (default 5), medians in ns per
# point:
#   limit O2     shared/peers' limit_filter built -O2 (analytic gradients)
#   limit O3n    the same built -O3 -march=native
#   interpreter  adcalc -f Fk.expr --grad --points - --vars V --binary -j 1
#   jit          the same with --jit, the cache warm
# Before the timings, the --jit output is checked against the
# interpreter's, byte for byte.  Then the compile time with a cold cache
# (median of 3, from --stats) and the rows above which --jit pays back
# its compilation: compile / (interpreter - jit per row).  Last, in
# process: the compiled object's function (dlopen, blocks of 256 points
# already in memory) against the peers' fgK (funcs.h, -O2), 9 passes,
# medians.  Exit status 1 when a check fails.
set -u
adcalc=${1:?usage: bench/jit.sh ADCALC [PEERS]}
here=$(cd "$(dirname "$0")" && pwd)
peers=${2:-${BATCH_PEERS:-$here/../../shared/peers}}
runs=${JIT_RUNS:-5}
cc=${CC:-cc}
work=$(mktemp -d "${TMPDIR:-/tmp}/adcalc-jit-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
XDG_CACHE_HOME=$work/cache
export XDG_CACHE_HOME
fail=0

$cc -O2 -o "$work/limit_O2" "$peers/src/limit_filter.c" -lm || exit 1
$cc -O3 -march=native -o "$work/limit_O3n" "$peers/src/limit_filter.c" -lm || exit 1
$cc -O2 -o "$work/gen_points" "$peers/src/gen_points.c" -lm || exit 1
mkdir -p "$work/pts"
"$work/gen_points" "$work/pts" --no-txt >/dev/null || exit 1
for i in 1 2 3 4 5 6 7 8 9 10; do cat "$work/pts/F5.bin"; done >"$work/pts/F5x.bin"

. "$here/funcs.sh"
write_exprs "$work"
input() { if [ "$1" = F5 ]; then echo "$work/pts/F5x.bin"; else echo "$work/pts/$1.bin"; fi; }
rows() { if [ "$1" = F5 ]; then echo 100000; else echo 1000000; fi; }
now() { date +%s%N; }
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
run_one() {  # run_one F LABEL: the command, input to output /dev/null
    F=$1
    v=$(vars_of "$F")
    case $2 in
    L2) "$work/limit_O2" "$F" binary ;;
    L3) "$work/limit_O3n" "$F" binary ;;
    A) "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 ;;
    J) "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 --jit ;;
    esac <"$(input "$F")" >/dev/null
}

echo "adcalc --jit benchmark: $adcalc"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(uname -sm); $(getconf _NPROCESSORS_ONLN) cores;" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "cc: $($cc --version | head -n 1); rounds: $runs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
for F in F1 F2 F3 F4 F5; do
    v=$(vars_of "$F")
    # cold compiles (the cache emptied each time), then the check
    : >"$work/$F.compile"
    for k in 1 2 3; do
        rm -rf "$work/cache"
        "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 --jit --stats <"$(input "$F")" 2>&1 >/dev/null |
            sed -n 's/^adcalc: jit: compiled in \([0-9.]*\) s.*/\1/p' >>"$work/$F.compile"
    done
    "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 <"$(input "$F")" >"$work/i.out"
    "$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary -j 1 --jit <"$(input "$F")" >"$work/j.out"
    if cmp -s "$work/i.out" "$work/j.out"; then echo "$F: --jit output identical to the interpreter's ($(wc -c <"$work/j.out") bytes)"; else
        echo "$F: --jit output DIFFERS from the interpreter's"; fail=1; fi
    rm -f "$work/i.out" "$work/j.out"
    for lab in L2 L3 A J; do : >"$work/$F.$lab"; done
    r=0
    while [ "$r" -lt "$runs" ]; do
        for lab in $(echo "L2 L3 A J L2 L3 A" | cut -d' ' -f$((r % 4 + 1))-$((r % 4 + 4))); do
            t0=$(now)
            run_one "$F" "$lab"
            t1=$(now)
            echo $(((t1 - t0) / 1000)) >>"$work/$F.$lab"
        done
        r=$((r + 1))
    done
done
echo
echo "Whole process, --binary -j 1, ns per point (median of $runs):"
echo
echo "| F | rows | limit -O2 | limit -O3 -march=native | interpreter | --jit | jit/limit O2 | jit/limit O3n | jit/interpreter | compile (s, cold) | rows where --jit pays |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for F in F1 F2 F3 F4 F5; do
    n=$(rows "$F")
    m() { median <"$work/$F.$1" | awk -v n="$n" '{ printf "%.1f", $1 * 1000 / n }'; }
    c=$(median <"$work/$F.compile")
    awk -v F="$F" -v n="$n" -v l2="$(m L2)" -v l3="$(m L3)" -v a="$(m A)" -v j="$(m J)" -v c="$c" 'BEGIN {
        pay = (a > j) ? sprintf("%.0f", c * 1e9 / (a - j)) : "never"
        printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.2fx | %.2fx | %.2fx | %.3f | %s |\n", F, n, l2, l3, a, j, j / l2, j / l3, j / a, c, pay
    }'
done
echo

# ---- in process: the compiled function against the analytic gradient ----
cat >"$work/inproc.c" <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "funcs.h"
typedef int blockfn(size_t, const double *, size_t, const long *, const double *, double *, size_t, unsigned char *);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y); }
int main(int argc, char **argv)
{
    int k = atoi(argv[2]), n = atoi(argv[3]);
    FILE *f = fopen(argv[4], "rb");
    size_t np = 0, cap = 1 << 16;
    double *x = malloc(cap * n * sizeof *x);
    while (np < cap && fread(x + np * n, sizeof *x, n, f) == (size_t)n) np++;
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    blockfn *fn;
    void *s = dlsym(h, "adcalc_jit");
    memcpy(&fn, &s, sizeof s);
    long *xcol = malloc(n * sizeof *xcol);
    for (int i = 0; i < n; i++) xcol[i] = i;
    double *out = malloc(np * (n + 1) * sizeof *out), *g = malloc(n * sizeof *g), tj[9], tl[9], sink = 0;
    unsigned char fl[256];
    for (int r = 0; r < 9; r++) {
        double t0 = now();
        for (size_t j = 0; j < np; j += 256)
            fn(np - j < 256 ? np - j : 256, x + j * n, n, xcol, NULL, out + j * (n + 1), n + 1, fl);
        tj[r] = (now() - t0) / np;
        t0 = now();
        for (size_t p = 0; p < np; p++) {
            double *o = out + p * (n + 1);
            const double *xp = x + p * n;
            o[0] = k == 1 ? fg1(xp, g) : k == 2 ? fg2(xp, g) : k == 3 ? fg3(xp, g) : k == 4 ? fg4(xp, g) : fg5(xp, g);
            memcpy(o + 1, g, n * sizeof *g);
        }
        tl[r] = (now() - t0) / np;
        sink += out[0];
    }
    qsort(tj, 9, sizeof *tj, cmpd);
    qsort(tl, 9, sizeof *tl, cmpd);
    printf("%.1f %.1f %g\n", tj[4], tl[4], sink * 0);
    return 0;
}
EOF
if $cc -O2 -I"$peers/src" -o "$work/inproc" "$work/inproc.c" -ldl -lm; then
    echo "In process, points in memory (the compiled block function against the peers' fgK at -O2), ns per point, median of 9:"
    echo
    echo "| F | points | --jit's function | analytic (limit O2) | ratio |"
    echo "|---|---|---|---|---|"
    for F in F1 F2 F3 F4 F5; do
        v=$(vars_of "$F")
        so=$("$adcalc" -f "$work/$F.expr" --grad --points - --vars "$v" --binary --jit --stats <"$(input "$F")" 2>&1 >/dev/null |
            sed -n 's/^adcalc: jit: \(loaded\|compiled in .* cached as\) \(.*\.so\).*/\2/p')
        set -- $("$work/inproc" "$so" "${F#F}" "$(nvars "$F")" "$(input "$F")")
        awk -v F="$F" -v a="$1" -v b="$2" 'BEGIN { printf "| %s | 65536 | %.1f | %.1f | %.2fx |\n", F, a, b, a / b }'
    done
    echo
fi
[ "$fail" = 0 ] && echo "check: passed" || echo "check: FAILED"
exit "$fail"
