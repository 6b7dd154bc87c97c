#!/bin/sh
# bench/emit.sh - the code --emit-c writes, in process, against the
# hand-written analytic gradients of the peers (funcs.h): value + gradient
# of F1-F5 over the same points, ns per point, interleaved rounds, medians
# and the ratio.  Usage:
#   bench/emit.sh /path/to/adcalc [/path/to/peers]
# Environment: EMIT_NPTS (points, 200000; F5 20000), EMIT_RUNS (rounds, 7),
# CC (cc), EMIT_CFLAGS (-O2).  Both sides are compiled with the same
# compiler and flags, into one program, timed in turns.
set -e
adcalc=${1:?usage: bench/emit.sh ADCALC [PEERS]}
peers=${2:-${EMIT_PEERS:-$(dirname "$0")/../../shared/peers}}
[ -r "$peers/src/funcs.h" ] || { echo "emit.sh: no $peers/src/funcs.h" >&2; exit 1; }
cc=${CC:-cc}
flags=${EMIT_CFLAGS:--O2}
npts=${EMIT_NPTS:-200000}
runs=${EMIT_RUNS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

at_of() {   # a point for -at: the variable order of funcs.h
    case $1 in
    F1 | F2) echo x=0.5,y=1.5 ;;
    F4) echo S=100,K=95,T=0.5,r=0.03,v=0.25 ;;
    F3) awk 'BEGIN { for (i = 0; i < 10; i++) printf "%sx%d=0.%d", i ? "," : "", i, i + 1; print "" }' ;;
    F5) awk 'BEGIN { for (i = 0; i < 100; i++) printf "%sx%d=0.5", i ? "," : "", i; print "" }' ;;
    esac
}
printf '%s\n' 'x*y + sin(x)' >"$work/F1.expr"
printf '%s\n' '(1-x)^2 + 100*(y-x^2)^2' >"$work/F2.expr"
awk 'BEGIN { for (i = 0; i < 9; i++) printf "exp(-x%d^2)*sin(x%d) + log(1+x%d^2) + ", i, i + 1, i; print "sqrt(1+x9^2)" }' >"$work/F3.expr"
printf '%s\n' 'N(z) = 0.5*(1+erf(z/sqrt(2)))' 'd1 = (log(S/K)+(r+v^2/2)*T)/(v*sqrt(T))' 'd2 = d1 - v*sqrt(T)' \
    'S*N(d1) - K*exp(-r*T)*N(d2)' >"$work/F4.expr"
awk 'BEGIN { for (i = 0; i < 99; i++) printf "%s100*(x%d-x%d^2)^2 + (1-x%d)^2", i ? " + " : "", i + 1, i, i; print "" }' >"$work/F5.expr"

printf '%-4s %12s %12s %8s %14s\n' F "emitted ns" "analytic ns" ratio "max rel diff"
for F in F1 F2 F3 F4 F5; do
    k=${F#F}
    n=$npts
    [ "$F" = F5 ] && n=$((npts / 10))
    "$adcalc" -f "$work/$F.expr" -at "$(at_of $F)" --grad --emit-c --emit-name "emitted" >"$work/e$k.c"
    nv=$(grep -c '^ \*   x\[' "$work/e$k.c")
    cat >"$work/h$k.c" <<C
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "funcs.h"
int emitted(const double *x, double *out);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }
static int cmp(const void *a, const void *b) { double d = *(const double *)a - *(const double *)b; return (d > 0) - (d < 0); }
int main(void)
{
    const int n = $n, nv = $nv, runs = $runs;
    double *x = malloc(sizeof(double) * n * nv), *o = malloc(sizeof(double) * (nv + 1)), g[128];
    double te[64], ta[64], sink = 0, worst = 0;
    uint64_t s = 88172645463325252u;
    for (int i = 0; i < n * nv; i++) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        x[i] = 0.5 + (double)(s >> 11) / 9007199254740992.0;   /* [0.5, 1.5): every F defined */
    }
    for (int r = 0; r < runs; r++) {
        double t0 = now();
        for (int p = 0; p < n; p++) { if (emitted(x + (size_t)p * nv, o)) return 1; sink += o[1]; }
        double t1 = now();
        for (int p = 0; p < n; p++) sink += fg$k(x + (size_t)p * nv, g);
        double t2 = now();
        te[r] = (t1 - t0) / n;
        ta[r] = (t2 - t1) / n;
    }
    for (int p = 0; p < n; p += 97) {
        emitted(x + (size_t)p * nv, o);
        double v = fg$k(x + (size_t)p * nv, g);
        for (int j = 0; j <= nv; j++) {
            double a = j ? g[j - 1] : v, e = o[j], d = fabs(a - e) / (fabs(a) > 1e-300 ? fabs(a) : 1);
            if (d > worst) worst = d;
        }
    }
    qsort(te, runs, sizeof *te, cmp);
    qsort(ta, runs, sizeof *ta, cmp);
    printf("%-4s %12.1f %12.1f %7.2fx %14.2e\n", "$F", te[runs / 2], ta[runs / 2], te[runs / 2] / ta[runs / 2], worst);
    return sink == 42.4242 ? 2 : 0;
}
C
    $cc $flags -I"$peers/src" -o "$work/b$k" "$work/h$k.c" "$work/e$k.c" -lm
    "$work/b$k"
done
