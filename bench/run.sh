#!/bin/sh
# bench/run.sh - adcalc's benchmarks (not part of make check: timings on a
# shared machine are not pass/fail material).  Usage:
#
#   bench/run.sh /path/to/adcalc        (or: make bench, in a build dir)
#
# a. start-up: the README example against bench/const.c, a C program that
#    only prints the same text, side by side in BENCH_STARTUP_ROUNDS rounds
#    (default 60) of BENCH_STARTUP_RUNS runs each (default 25); medians
#    and the median of the rounds' ratios (target: adcalc within 1.3x of
#    const, issue 15).  Short rounds: this machine's speed drifts within
#    seconds, and a round of 200 runs saw ratios from 0.98 to 1.67.
# b. scaling: generated expressions of 10^5 and 10^6 operations (bench/gen.c
#    "chain": a left-deep sum of sin/exp/cos/tanh/mul/div terms over x, y),
#    read with -f, recorded and swept with --grad; median wall time of
#    BENCH_RUNS runs (default 5), peak RSS, the 10^5 -> 10^6 time ratio
#    (target <= 12x; at 10^6 under 1 s and 200 MB) and the tape's bytes per
#    node from the "# nodes:" header of --dump-tape (target <= 24).
# c. depth: 10^6 nested parentheses ((((x)))) - works or fails, and how -
#    and a flat left-deep sum of 10^6 terms x+y+x+...
# d. derivative sweeps in process: bench/deriv_bench.c, compiled with
#    ${CC:-cc} -O2 against libadcalc.a (next to the adcalc binary, or
#    BENCH_LIBADCALC) and the src/ headers, times ad_eval (value) against
#    ad_eval + ad_reverse (value + gradient) on the five benchmark functions
#    F1..F5 at many random points, and ad_hessian (whole Hessian of F5,
#    n = 100); medians, ratios (target: gradient within 3x of the value).
# e. statements from standard input: 10^4 and 10^5 lines of assignments,
#    each naming the one before, with --grad (target: 10^5 under 1 s, the
#    10^4 -> 10^5 time ratio <= 12x, i.e. within 1.2 times linear), and
#    x = x + 1 lines against bc.
#
# f. control flow (issue 13): batch rows of Black-Scholes (F4) with
#    --grad, the plain formula against the same inside if(S > 0, ..., 0)
#    with every row on the recorded path (target: within 10%); a 4-piece
#    function whose rows take its 4 paths in random order against the
#    same rows on one path (target: at most 2x); a while loop of 10^6
#    iterations (Euler steps, 6 nodes each) recorded and swept with
#    --grad, with and without the optimiser, and its peak RSS (target:
#    under 1 s).  BENCH_FLOW_ROWS rows (default 200000), -j 1.
# g. vectors (issue 14): bench/vector_bench.c, compiled like d, records,
#    optimises, plans and derives the gradient of the chained Rosenbrock
#    function of BENCH_VECTOR_N variables (default 10^6), written as an
#    indexed sum and with slices; medians of BENCH_VECTOR_REPS (default 3)
#    for each phase, the tape's nodes per element, and the analytic
#    gradient's time in C.  With BENCH_ADOLC_LARGE (the path of
#    shared/peers' build/adolc_large), ADOL-C's record and gradient times
#    for the same n, side by side.
#
# h. vector inputs (issue 14): a point of 10^5 and 10^6 elements read with
#    -at @FILE (a JSON object, ~20 MB at 10^6), the file alone (--version
#    after it: the options are parsed, nothing is recorded) and with
#    -e 'x[1]' (the plan over every element), median wall time and peak RSS
#    (target: 10^6 read under 1 s; the 10^5 -> 10^6 time ratio <= 12x);
#    and BENCH_VEC_ROWS (default 200000) batch rows of x[1],x[2],x[3],y as
#    CSV against the same rows as JSON objects, --grad -j 1 (target: JSON
#    rows within 2x of CSV).
#
# Timing uses hyperfine when it is installed (each group of commands is
# compared in one hyperfine invocation), else an interleaved shell loop timed
# with date +%s%N.  Peak RSS needs GNU time (/usr/bin/time -f %M).  Helpers
# are compiled with ${CC:-cc} -O2 into a temporary directory.
# Environment: BENCH_STARTUP_RUNS, BENCH_STARTUP_ROUNDS, BENCH_RUNS, BENCH_SIZES ("100000 1000000"),
# BENCH_DEPTH (1000000), BENCH_NO_HYPERFINE=1 to force the shell loop,
# BENCH_SECTIONS ("a b c d e f g h": the sections to run), BENCH_FLOW_ROWS, BENCH_STMT_SIZES
# ("10000 100000": section e's line counts), BENCH_LIBADCALC (the
# library for d), BENCH_DERIV_ARGS (deriv_bench's options, e.g. "-r 21"),
# BENCH_LDFLAGS (extra link flags for d, e.g. a sanitizer build's), BENCH_VECTOR_N,
# BENCH_VECTOR_REPS, BENCH_ADOLC_LARGE (section g), BENCH_VEC_ROWS (section h).
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ]; then
    echo "usage: $0 /path/to/adcalc" >&2
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
startup_runs=${BENCH_STARTUP_RUNS:-25}
startup_rounds=${BENCH_STARTUP_ROUNDS:-60}
runs=${BENCH_RUNS:-5}
sizes=${BENCH_SIZES:-"100000 1000000"}
depth=${BENCH_DEPTH:-1000000}
sections=${BENCH_SECTIONS:-"a b c d e f g h"}
stmt_sizes=${BENCH_STMT_SIZES:-"10000 100000"}
deriv_args=${BENCH_DERIV_ARGS:-}
lib=${BENCH_LIBADCALC:-$(dirname "$adcalc")/libadcalc.a}
case $lib in
/*) ;;
*) lib=$(pwd)/$lib ;;
esac
# want X: section X is in BENCH_SECTIONS
want() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }
point=x=0.3,y=0.7

work=$(mktemp -d "${TMPDIR:-/tmp}/adcalc-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

cc=${CC:-cc}
for prog in const gen; do
    if ! $cc -O2 -o "$work/$prog" "$here/$prog.c"; then
        echo "$0: cannot compile $here/$prog.c with $cc" >&2
        exit 1
    fi
done

hyperfine=
if [ -z "${BENCH_NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null 2>&1; then
    hyperfine=hyperfine
fi
gnutime=
if [ -x /usr/bin/time ] && /usr/bin/time -f %M -o "$work/probe" true 2>/dev/null; then
    gnutime=/usr/bin/time
fi

# q WORD: WORD single-quoted for sh and for hyperfine's command splitting
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

# median: the median of the numbers on stdin, one a line
median() {
    sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# timeit RUNS CMD...: runs each command string RUNS times side by side and
# prints one median wall time a line, in milliseconds.  Failing commands are
# timed too (section c may fail on purpose).
timeit() {
    n=$1
    shift
    if [ -n "$hyperfine" ]; then
        warm=$((n / 10))
        [ "$warm" -gt 3 ] && warm=3
        if ! $hyperfine -N -i --style none --warmup "$warm" --runs "$n" \
            --export-json "$work/hf.json" "$@" >"$work/hf.log" 2>&1; then
            echo "hyperfine failed:" >&2
            cat "$work/hf.log" >&2
            for c in "$@"; do echo nan; done
            return
        fi
        awk -F: '/"median"/ { gsub(/[ ,]/, "", $2); printf "%.3f\n", $2 * 1000 }' "$work/hf.json"
        return
    fi
    # the loop's own cost (two forks of date) is measured as command 0,
    # timed interleaved with the others, and its median subtracted
    k=0
    : >"$work/t.0"
    for c in "$@"; do
        k=$((k + 1))
        : >"$work/t.$k"
    done
    i=0
    while [ "$i" -lt "$n" ]; do
        t0=$(date +%s%N)
        t1=$(date +%s%N)
        echo "$(((t1 - t0) / 1000))" >>"$work/t.0"
        k=0
        for c in "$@"; do
            k=$((k + 1))
            t0=$(date +%s%N)
            eval "$c" >/dev/null 2>&1 </dev/null
            t1=$(date +%s%N)
            echo "$(((t1 - t0) / 1000))" >>"$work/t.$k"
        done
        i=$((i + 1))
    done
    base=$(median <"$work/t.0")
    k=0
    for c in "$@"; do
        k=$((k + 1))
        median <"$work/t.$k" | awk -v b="$base" '{ printf "%.3f\n", ($1 - b) / 1000 }'
    done
}

# peak_kb CMD: median peak resident set size of 3 runs, in KB ("n/a" without
# GNU time)
peak_kb() {
    if [ -z "$gnutime" ]; then
        echo n/a
        return
    fi
    for i in 1 2 3; do
        eval "$gnutime -f %M -o $(q "$work/rss") $1" >/dev/null 2>&1 </dev/null
        tail -n 1 "$work/rss"
    done | median
}

# same_output CMD-A CMD-B: "yes" when both command strings succeed and
# print the same, byte for byte, else "NO"
same_output() {
    if eval "$1" >"$work/same.a" 2>/dev/null </dev/null && eval "$2" >"$work/same.b" 2>/dev/null </dev/null &&
       cmp -s "$work/same.a" "$work/same.b"; then echo yes; else echo NO; fi
}

# ratio A B: A/B to 2 decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "nan" }'; }
# verdict OK?: "met" or "MISSED"
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == a + 0 && a <= b) ? 1 : 0 }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == k + 0) printf "%.1f", k / 1024; else printf "n/a" }'; }

A=$(q "$adcalc")
summary=$work/summary
: >"$summary"
row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >>"$summary"; }

echo "adcalc benchmarks: $adcalc"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(uname -sm), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cores"
if [ -n "$hyperfine" ]; then timer="$($hyperfine --version)"; else timer="shell loop (date +%s%N)"; fi
if [ -n "$gnutime" ]; then rsstool="GNU time -f %M"; else rsstool="unavailable (install GNU time)"; fi
echo "timer: $timer; peak RSS: $rsstool"
echo

# ---- a. start-up ----
# The two commands are timed side by side in each of startup_rounds rounds
# (hyperfine runs them one after the other, so a round is kept short for
# the machine's load to stay the same through it); the ratio is the median
# of the rounds' ratios, the times the medians of their medians.
if want a; then
    echo "== a. start-up: README example vs a C program printing a constant ($startup_rounds rounds of $startup_runs runs each)"
    readme="$A -e 'x*y+sin(x)' -at x=2,y=3 --grad"
    : >"$work/rounds"
    i=0
    while [ "$i" -lt "$startup_rounds" ]; do
        # the order alternates, so that neither always runs first
        if [ $((i % 2)) = 0 ]; then
            set -- $(timeit "$startup_runs" "$readme" "$(q "$work/const")")
        else
            set -- $(timeit "$startup_runs" "$(q "$work/const")" "$readme")
            set -- "$2" "$1"
        fi
        echo "$1 $2 $(ratio "$1" "$2")" >>"$work/rounds"
        i=$((i + 1))
    done
    t_readme=$(awk '{ print $1 }' "$work/rounds" | median)
    t_const=$(awk '{ print $2 }' "$work/rounds" | median)
    r=$(awk '{ print $3 }' "$work/rounds" | median)
    lo=$(awk '{ print $3 }' "$work/rounds" | sort -n | head -n 1)
    hi=$(awk '{ print $3 }' "$work/rounds" | sort -n | tail -n 1)
    echo "  adcalc -e 'x*y+sin(x)' -at x=2,y=3 --grad   median $t_readme ms"
    echo "  const (bench/const.c)                        median $t_const ms"
    echo "  ratio adcalc/const, median of rounds         ${r}x (rounds $lo..$hi; target <= 1.3x: $(verdict "$(le "$r" 1.3)"))"
    row "start-up, README example ($startup_rounds x $startup_runs runs)" "$t_readme ms" "const.c: $t_const ms; ratio ${r}x ($lo..$hi)" "<= 1.3x: $(verdict "$(le "$r" 1.3)")"
    echo
fi

# ---- b. scaling ----
if want b; then
    echo "== b. scaling: generated chain of N operations, -f FILE --grad ($runs runs each)"
    prev_t=
    prev_n=
    for n in $sizes; do
        f=$work/chain.$n
        "$work/gen" chain "$n" >"$f"
        size=$(wc -c <"$f" | tr -d ' ')
        cmd="$A -f $(q "$f") -at $point --grad"
        valcmd="$A -f $(q "$f") -at $point"
        set -- $(timeit "$runs" "$cmd" "$valcmd")
        t=$1 tv=$2
        kb=$(peak_kb "$cmd")
        header=$("$adcalc" -f "$f" -at "$point" --dump-tape 2>/dev/null | sed -n '/^# nodes:/{p;q;}')
        # "# nodes: N (I inputs, C constants, O operations); B bytes (P per node: ...)"
        set -- $(echo "$header" | sed -n 's/^# nodes: \([0-9]*\) .* \([0-9]*\) operations); \([0-9]*\) bytes (\([0-9]*\) per node.*/\1 \2 \3 \4/p')
        nodes=${1:-?} ops=${2:-?} bytes=${3:-?} per=${4:-?}
        bpo=$(awk -v b="$bytes" -v o="$ops" 'BEGIN { if (o > 0) printf "%.1f", b / o; else printf "nan" }')
        rss_per=$(awk -v k="$kb" -v o="$ops" 'BEGIN { if (k == k + 0 && o > 0) printf "%.0f", k * 1024 / o; else printf "n/a" }')
        result=$("$adcalc" -f "$f" -at "$point" --grad 2>&1 | tr '\n' ' ')
        echo "  N = $n: file $size bytes; $nodes nodes ($ops operations)"
        echo "    --grad median $t ms (value only: $tv ms); peak RSS $(mb "$kb") MB ($rss_per bytes/operation)"
        echo "    tape: $bytes bytes, $per bytes/node (instruction + primal), $bpo bytes/operation (target <= 24: $(verdict "$(le "$bpo" 24)"))"
        echo "    result: $result"
        row "chain $n ops, --grad (median of $runs)" "$t ms" "value only $tv ms; peak RSS $(mb "$kb") MB" ""
        row "chain $n ops, tape" "$per bytes/node" "$bpo bytes/operation ($bytes bytes)" "<= 24: $(verdict "$(le "$bpo" 24)")"
        if [ -n "$prev_t" ]; then
            r=$(ratio "$t" "$prev_t")
            echo "  ratio $prev_n -> $n: ${r}x (target <= 12x: $(verdict "$(le "$r" 12)"))"
            row "ratio $prev_n -> $n ops" "${r}x" "" "<= 12x: $(verdict "$(le "$r" 12)")"
        fi
        if [ "$n" = 1000000 ]; then
            ok_t=$(le "$t" 1000)
            ok_m=$(le "$kb" 204800)
            echo "  at 10^6: time < 1 s: $(verdict "$ok_t"); peak RSS < 200 MB: $(verdict "$ok_m")"
            row "10^6 ops: time, RSS" "$t ms, $(mb "$kb") MB" "" "< 1 s: $(verdict "$ok_t"); < 200 MB: $(verdict "$ok_m")"
        fi
        prev_t=$t
        prev_n=$n
    done
    echo
fi

# ---- c. depth ----
if want c; then
    echo "== c. depth: $depth nested parentheses, and a flat sum of $depth terms ($runs runs each)"
    for kind in parens flat; do
        f=$work/$kind.$depth
        "$work/gen" "$kind" "$depth" >"$f"
        cmd="$A -f $(q "$f") -at $point --grad"
        "$adcalc" -f "$f" -at "$point" --grad >"$work/out" 2>"$work/err"
        rc=$?
        set -- $(timeit "$runs" "$cmd")
        t=$1
        kb=$(peak_kb "$cmd")
        if [ "$rc" -eq 0 ]; then
            how="works: $(tr '\n' ' ' <"$work/out")"
            status=works
        else
            how="fails (exit $rc): $(sed -n 1p "$work/err")"
            status="fails (exit $rc)"
        fi
        case $kind in
        parens) what="$depth nested parentheses ((((x))))" ;;
        flat) what="flat sum of $depth terms x+y+x+..." ;;
        esac
        echo "  $what: $how"
        echo "    median $t ms; peak RSS $(mb "$kb") MB"
        row "$what" "$t ms" "peak RSS $(mb "$kb") MB" "$status"
    done
    echo
fi

# ---- d. derivative sweeps, in process ----
if want d; then
    echo "== d. derivative sweeps in process (bench/deriv_bench.c linked with $lib)"
    # shellcheck disable=SC2086 # BENCH_LDFLAGS is a list of flags
    if [ ! -f "$lib" ]; then
        echo "  skipped: no $lib (set BENCH_LIBADCALC)"
        row "d. derivative sweeps" "skipped" "no libadcalc.a" ""
    elif ! $cc -O2 -I"$here/../src/lib" -o "$work/deriv_bench" "$here/deriv_bench.c" "$lib" -lm -ldouble-conversion -lpthread \
        ${BENCH_LDFLAGS:-} >"$work/cc.log" 2>&1; then
        echo "  skipped: cannot compile $here/deriv_bench.c with $cc:"
        sed 's/^/    /' "$work/cc.log"
        row "d. derivative sweeps" "skipped" "deriv_bench.c does not compile" ""
    else
        # shellcheck disable=SC2086 # word splitting of the arguments is wanted
        "$work/deriv_bench" $deriv_args >"$work/deriv.out" 2>"$work/deriv.err"
        rc=$?
        grep -v '^RESULT' "$work/deriv.out" | sed 's/^/  /'
        sed 's/^/  /' "$work/deriv.err"
        if [ "$rc" -ne 0 ]; then
            echo "  deriv_bench failed (exit $rc)"
            row "d. derivative sweeps" "failed (exit $rc)" "$(sed -n 1p "$work/deriv.err")" ""
        else
            # RESULT key=value ... lines -> summary rows
            awk '
                /^RESULT/ {
                    delete kv
                    for (i = 2; i <= NF; i++) { split($i, p, "="); kv[p[1]] = p[2] }
                    if ("reps" in kv) { reps = kv["reps"]; next }
                    n++; fn[n] = kv["fn"]; nv[n] = kv["n"]; ev[n] = kv["eval_ns"]; gr[n] = kv["grad_ns"]
                    ra[n] = kv["ratio"]; he[n] = kv["hess_ns"]; ng[n] = kv["ngrad_ns"]
                }
                END {
                    for (i = 1; i <= n; i++) {
                        if (fn[i] == "F5-hessian") {
                            printf "| d. F5 Hessian (n = %s, identity seeds), median of %s | %.1f us | n x (b) = %.1f us; ratio %.2fx | |\n",
                                nv[i], reps, he[i] / 1000, ng[i] / 1000, ra[i]
                            continue
                        }
                        variant = fn[i] ~ /'"'"'$/
                        target = variant ? "variant: squares as x*x" : (ra[i] <= 3 ? "<= 3x: met" : "<= 3x: MISSED")
                        printf "| d. %s (n = %s), value + gradient, median of %s | %.1f ns/point | value only %.1f ns/point; ratio %.2fx | %s |\n",
                            fn[i], nv[i], reps, gr[i], ev[i], ra[i], target
                    }
                }' "$work/deriv.out" >>"$summary"
        fi
    fi
    echo
fi

# ---- e. statements from standard input ----
if want e; then
    echo "== e. statements from standard input: chains of assignments ($runs runs each)"
    # named: a_i = a_{i-1}*1.0000001 + sin(a_{i-1})*1e-6, then a_N (each
    # line names the one before); self: x = x + 1, N times, then x (bc
    # reads the same file)
    prev_t=
    for n in $stmt_sizes; do
        awk -v n="$n" 'BEGIN { print "a0 = x"; for (i = 1; i <= n; i++) printf "a%d = a%d*1.0000001 + sin(a%d)*1e-6\n", i, i - 1, i - 1; print "a" n }' >"$work/named.$n"
        awk -v n="$n" 'BEGIN { print "x = 0.5"; for (i = 1; i <= n; i++) print "x = x + 1"; print "x" }' >"$work/self.$n"
        named="sh -c $(q "$A -at x=0.5 --grad <$(q "$work/named.$n")")"
        self="sh -c $(q "$A <$(q "$work/self.$n")")"
        bcself="sh -c $(q "bc -q <$(q "$work/self.$n")")"
        if command -v bc >/dev/null 2>&1; then
            set -- $(timeit "$runs" "$named" "$self" "$bcself")
        else
            set -- $(timeit "$runs" "$named" "$self") n/a
        fi
        t=$1 ts=$2 tb=$3
        echo "  $n lines: named chain with --grad $t ms; x = x + 1: adcalc $ts ms, bc $tb ms"
        row "e. $n assignment lines, each naming the one before, --grad" "$t ms" "x = x + 1 lines: adcalc $ts ms, bc $tb ms" \
            "$(if [ "$n" -ge 100000 ]; then echo "under 1 s: $(verdict "$(le "$t" 1000)")"; fi)"
        if [ -n "$prev_t" ]; then
            # linear: the time ratio within 1.2 times the ratio of the sizes
            r=$(ratio "$t" "$prev_t") lim=$(awk -v a="$n" -v b="$prev_n" 'BEGIN { printf "%.1f", 1.2 * a / b }')
            echo "  $prev_n -> $n lines: time ratio ${r}x"
            row "e. $prev_n -> $n lines (named chain)" "${r}x" "" "<= ${lim}x: $(verdict "$(le "$r" "$lim")")"
        fi
        prev_t=$t
        prev_n=$n
    done
    echo
fi

# ---- f. control flow ----
if want f; then
    nrows=${BENCH_FLOW_ROWS:-200000}
    echo "== f. control flow: $nrows batch rows, -j 1, --grad; a 10^6-iteration loop ($runs runs each)"
    # Black-Scholes rows (S, K, T, r, v), all with S > 0
    awk -v n="$nrows" 'BEGIN { srand(13); print "S,K,T,r,v"; for (i = 0; i < n; i++)
        printf "%.6f,%.6f,%.6f,%.6f,%.6f\n", 50 + 100 * rand(), 50 + 100 * rand(), 0.1 + 1.9 * rand(), 0.1 * rand(), 0.1 + 0.4 * rand() }' >"$work/bs.csv"
    bs='N(z) = 0.5*(1+erf(z/sqrt(2)))
d1 = (log(S/K)+(r+v^2/2)*T)/(v*sqrt(T))
d2 = d1 - v*sqrt(T)'
    printf '%s\nS*N(d1) - K*exp(-r*T)*N(d2)\n' "$bs" >"$work/f4.ad"
    printf '%s\nif(S > 0, S*N(d1) - K*exp(-r*T)*N(d2), 0)\n' "$bs" >"$work/f4if.ad"
    plain="$A -f $(q "$work/f4.ad") --points $(q "$work/bs.csv") --grad -j 1"
    guarded="$A -f $(q "$work/f4if.ad") --points $(q "$work/bs.csv") --grad -j 1"
    same=$(same_output "$plain" "$guarded")
    set -- $(timeit "$runs" "$plain" "$guarded")
    r=$(ratio "$2" "$1")
    echo "  F4 rows: plain $1 ms, inside if(S > 0, ...) $2 ms: ${r}x (target <= 1.10x: $(verdict "$(le "$r" 1.10)")); outputs identical: $same"
    row "f. F4 $nrows rows --grad, inside if(S > 0, ...) vs plain" "$2 ms vs $1 ms" "${r}x; outputs identical: $same" "<= 1.10x: $(verdict "$(le "$r" 1.10)")"
    # four pieces of equal cost; rows on one piece, or on all four at random
    cat >"$work/pw.ad" <<'PW'
if x < -1 {
  y = exp(-x^2)*sin(x) + log(1 + x^2)
} else if x < 0 {
  y = exp(-x^2)*cos(x) + log(2 + x^2)
} else if x < 1 {
  y = exp(-x^2)*sin(2*x) + log(3 + x^2)
} else {
  y = exp(-x^2)*cos(2*x) + log(4 + x^2)
}
y
PW
    awk -v n="$nrows" 'BEGIN { srand(7); print "x"; for (i = 0; i < n; i++) printf "%.9f\n", -2 + 4 * rand() }' >"$work/pw4.csv"
    awk -v n="$nrows" 'BEGIN { srand(7); print "x"; for (i = 0; i < n; i++) printf "%.9f\n", 1 + rand() }' >"$work/pw1.csv"
    one="$A -f $(q "$work/pw.ad") --points $(q "$work/pw1.csv") --grad -j 1"
    four="$A -f $(q "$work/pw.ad") --points $(q "$work/pw4.csv") --grad -j 1"
    paths=$("$adcalc" -f "$work/pw.ad" --points "$work/pw4.csv" --grad -j 1 --stats 2>&1 >/dev/null | sed -n 's/^adcalc: paths: //p')
    set -- $(timeit "$runs" "$one" "$four")
    r=$(ratio "$2" "$1")
    echo "  4-piece function: rows on one path $1 ms, on 4 paths at random $2 ms: ${r}x (target <= 2x: $(verdict "$(le "$r" 2)")); $paths"
    row "f. $nrows rows on 4 paths at random vs on one" "$2 ms vs $1 ms" "${r}x; $paths" "<= 2x: $(verdict "$(le "$r" 2)")"
    # a while loop of 10^6 Euler steps: y' = -k y to t = 1, h = 1e-6
    printf 'y = y0\nt = 0\nwhile t < 1 - h/2 {\n  y = y + h*(-k*y)\n  t = t + h\n}\ny\n' >"$work/euler.ad"
    loop="$A -f $(q "$work/euler.ad") -at y0=1,k=0.5,h=1e-6 --grad"
    loopno="$A -f $(q "$work/euler.ad") -at y0=1,k=0.5,h=1e-6 --grad --no-optimize"
    set -- $(timeit "$runs" "$loop" "$loopno")
    kb=$(peak_kb "$loop")
    kbno=$(peak_kb "$loopno")
    res=$("$adcalc" -f "$work/euler.ad" -at y0=1,k=0.5,h=1e-6 --grad | tr '\n' ' ')
    echo "  while loop, 10^6 iterations, --grad: $1 ms, peak RSS $(mb "$kb") MB; --no-optimize: $2 ms, $(mb "$kbno") MB (target < 1 s: $(verdict "$(le "$1" 1000)"), without the optimiser: $(verdict "$(le "$2" 1000)"))"
    echo "    result: $res"
    row "f. while loop of 10^6 iterations, --grad" "$1 ms, $(mb "$kb") MB" "--no-optimize: $2 ms, $(mb "$kbno") MB" "< 1 s: $(verdict "$(le "$1" 1000)"); --no-optimize: $(verdict "$(le "$2" 1000)")"
    echo
fi

# ---- g. vectors, in process ----
if want g; then
    vn=${BENCH_VECTOR_N:-1000000}
    echo "== g. a gradient over $vn variables in process (bench/vector_bench.c linked with $lib)"
    # shellcheck disable=SC2086 # BENCH_LDFLAGS is a list of flags
    if [ ! -f "$lib" ]; then
        echo "  skipped: no $lib (set BENCH_LIBADCALC)"
        row "g. vectors" "skipped" "no libadcalc.a" ""
    elif ! $cc -O2 -I"$here/../src/lib" -o "$work/vector_bench" "$here/vector_bench.c" "$lib" -lm -ldouble-conversion \
        -lpthread ${BENCH_LDFLAGS:-} >"$work/cc.log" 2>&1; then
        echo "  skipped: cannot compile $here/vector_bench.c with $cc:"
        sed 's/^/    /' "$work/cc.log"
        row "g. vectors" "skipped" "vector_bench.c does not compile" ""
    else
        "$work/vector_bench" -n "$vn" -r "${BENCH_VECTOR_REPS:-3}" >"$work/vector.out" 2>&1
        rc=$?
        sed 's/^/  /' "$work/vector.out"
        if [ "$rc" -ne 0 ]; then
            row "g. vectors" "failed (exit $rc)" "$(tail -1 "$work/vector.out")" ""
        else
            sed -n 's/^ *\(sum\|slice\) *\(.*\)$/| g. F5, n = '"$vn"', \1 form | \2 | | |/p' "$work/vector.out" >>"$summary"
        fi
        if [ -n "${BENCH_ADOLC_LARGE:-}" ]; then
            (cd "$work" && "$BENCH_ADOLC_LARGE" "$vn") 2>&1 | sed 's/^/  adolc_large: /'
        fi
    fi
    echo
fi

# ---- h. vector inputs ----
if want h; then
    vrows=${BENCH_VEC_ROWS:-200000}
    echo "== h. vector inputs: -at @FILE of 10^5 and 10^6 elements; $vrows batch rows, CSV and JSON ($runs runs each)"
    prev_t=
    for n in 100000 1000000; do
        awk -v n="$n" 'BEGIN { srand(5); printf "{\"x\": ["
            for (i = 1; i <= n; i++) printf "%s%.17g", (i > 1 ? ", " : ""), 2 * rand() - 1; print "], \"y\": 0.5}" }' >"$work/pt.$n.json"
        readonly_="$A -at @$(q "$work/pt.$n.json") --version"
        planned="$A -at @$(q "$work/pt.$n.json") -e x[1]"
        set -- $(timeit "$runs" "$readonly_" "$planned")
        t=$1 tp=$2
        kb=$(peak_kb "$readonly_")
        echo "  $n elements ($(wc -c <"$work/pt.$n.json") bytes): read $t ms, peak RSS $(mb "$kb") MB; with -e 'x[1]' $tp ms"
        row "h. -at @FILE, $n elements" "$t ms, $(mb "$kb") MB" "with -e 'x[1]' (plan over every element): $tp ms" \
            "$(if [ "$n" -ge 1000000 ]; then echo "under 1 s: $(verdict "$(le "$t" 1000)")"; fi)"
        if [ -n "$prev_t" ]; then
            r=$(ratio "$t" "$prev_t")
            echo "  10^5 -> 10^6 elements: time ratio ${r}x"
            row "h. -at @FILE, 10^5 -> 10^6 elements" "${r}x" "" "<= 12x: $(verdict "$(le "$r" 12)")"
        fi
        prev_t=$t
    done
    awk -v n="$vrows" 'BEGIN { srand(9); print "x[1],x[2],x[3],y"; for (i = 0; i < n; i++)
        printf "%.6f,%.6f,%.6f,%.6f\n", 4 * rand() - 2, 4 * rand() - 2, 4 * rand() - 2, 0.5 + rand() }' >"$work/v.csv"
    awk -F, 'NR > 1 { printf "{\"x\": [%s, %s, %s], \"y\": %s}\n", $1, $2, $3, $4 }' "$work/v.csv" >"$work/v.jsonl"
    e='sum(x^2)*y + prod(x)'
    csv="$A -e $(q "$e") --points $(q "$work/v.csv") --grad -j 1"
    jsonl="$A -e $(q "$e") --points $(q "$work/v.jsonl") --grad -j 1"
    same=$(same_output "$csv" "$jsonl")
    set -- $(timeit "$runs" "$csv" "$jsonl")
    r=$(ratio "$2" "$1")
    echo "  $vrows rows x[1],x[2],x[3],y: CSV $1 ms, JSON rows $2 ms: ${r}x (target <= 2x: $(verdict "$(le "$r" 2)")); outputs identical: $same"
    row "h. $vrows rows of a vector of 3 and a number, --grad, JSON vs CSV" "$2 ms vs $1 ms" "${r}x; outputs identical: $same" "<= 2x: $(verdict "$(le "$r" 2)")"
    echo
fi

echo "== summary (markdown)"
echo "| benchmark | median / figure | details | target |"
echo "|---|---|---|---|"
cat "$summary"
