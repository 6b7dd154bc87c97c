# tests/lib.sh - helpers for the shell tests (sourced).  Each test prints
# TAP ("ok N - name" / "not ok N - name") and is run by automake's TAP
# driver.  $ADCALC is the binary under test; $ADCALC_WRAPPER (valgrind under
# --enable-valgrind) is put in front of it.
: "${ADCALC:?ADCALC not set: run through make check}"
: "${top_srcdir:?top_srcdir not set}"
tap_n=0
tap_fail=0
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/adcalc-test.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

adcalc() { $ADCALC_WRAPPER "$ADCALC" "$@"; }

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
# skip WHAT: a check this build cannot make (TAP's SKIP, counted apart)
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; }
not_ok() {
    tap_n=$((tap_n + 1)); tap_fail=$((tap_fail + 1))
    echo "not ok $tap_n - $1"
    shift
    for line in "$@"; do printf '#   %s\n' "$line"; done
}
# run CMD...: captures $out, $err and $rc
run() {
    "$@" >"$TMPD/out" 2>"$TMPD/err" </dev/null
    rc=$?
    out=$(cat "$TMPD/out"); err=$(cat "$TMPD/err")
}
# expect NAME RC STDOUT STDERR -- ARGS...: exact stdout, stderr and exit status
expect() {
    name=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    run adcalc "$@"
    if [ "$rc" = "$want_rc" ] && [ "$out" = "$want_out" ] && [ "$err" = "$want_err" ]; then
        ok "$name"
    else
        not_ok "$name" "args: $*" "rc: $rc (want $want_rc)" "stdout: $out" "want:   $want_out" \
            "stderr: $err" "want:   $want_err"
    fi
}
# STRIDE: 1 in the plain build; 10 when $ADCALC runs under a checker (ASan
# or valgrind), where a process costs 10-50 times as much.  The sweeps over
# the whole corpus (optlevels, check, emit, program and batch's corpus
# sections) take every STRIDE-th case there: the checker's job is the code
# paths, which a tenth of the corpus walks; the plain build, which CI also
# runs, takes every case.  stride: a filter keeping lines 1, 1 + STRIDE, ...
if [ -n "${ADCALC_WRAPPER:-}" ] || ldd "$ADCALC" 2>/dev/null | grep -q libasan; then STRIDE=10; else STRIDE=1; fi
export STRIDE
stride() { awk -v s="$STRIDE" 's == 1 || NR % s == 1'; }
done_testing() { echo "1..$tap_n"; [ "$tap_fail" -eq 0 ]; }
