#!/bin/sh
# make-seeds.sh SRCDIR OUTDIR - the fuzzer's seed corpus, drawn from the
# reference corpus and the hostile-input catalogue: one file per case,
# a flags byte, the -at text, a newline, the expression.
src=$1 out=$2
mkdir -p "$out"
i=0
for f in "$src"/tests/corpus/grad.tsv "$src"/tests/corpus/edge.tsv "$src"/tests/corpus/jvp.tsv; do
    [ -f "$f" ] || continue
    grep -v '^#' "$f" | tail -n +2 | awk -F'\t' 'NR % 7 == 1 { print $3 "\t" $2 }' |
    while IFS="$(printf '\t')" read -r at expr; do
        i=$((i + 1))
        printf '%s%s\n%s' "$(printf "\\$(printf %o $((i % 16 + 64)))")" "$at" "$expr" > "$out/seed-$(basename "$f" .tsv)-$i"
    done
done
# control flow: programs that branch and loop (the grammar of issue 13)
n=0
while IFS= read -r prog; do
    n=$((n + 1))
    printf '%sx=0.5,y=-2\n%b' "$(printf "\\$(printf %o $((n % 16 + 64)))")" "$prog" > "$out/seed-flow-$n"
done <<'PROGS'
if(x > 0, sqrt(x), log(-x))
if(x == 0, 1, sin(x)/x) + if(y < 1 && x != 0, y, 2)
if x > 0 {\n  z = x^2\n} else if y > 0 {\n  z = y\n} else {\n  z = -x\n}\nz
z = 1\nwhile abs(z^2 - x) > 1e-12 {\n  z = z - (z^2 - x)/(2*z)\n}\nz
s = 0\nfor i = 1..4 {\n  s = s + x^i/i\n}\ns*y
t = 0\nwhile t < 1 { t = t + x\n if t > y { t = t + 0.5 } }\nt
!(x < y) || x > 3
PROGS
