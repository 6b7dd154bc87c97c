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
# vectors (issue 14): the rows of the vector corpus, then programs that
# index, slice, splice, reduce and sum over ranges, at vector points
if [ -f "$src/tests/corpus/vector.tsv" ]; then
    grep -v '^#' "$src/tests/corpus/vector.tsv" | tail -n +2 | awk -F'\t' '{ print $3 "\t" $2 }' |
    while IFS="$(printf '\t')" read -r at expr; do
        i=$((i + 1))
        printf '%s%s\n%s' "$(printf "\\$(printf %o $((i % 16 + 64)))")" "$at" "$expr" > "$out/seed-vector-$i"
    done
fi
n=0
while IFS='	' read -r at prog; do
    n=$((n + 1))
    printf '%s%s\n%b' "$(printf "\\$(printf %o $((n * 5 % 16 + 64)))")" "$at" "$prog" > "$out/seed-vecprog-$n"
done <<'PROGS'
x=[1,2,3],y=5	sum(x^2) + y
x=[0.5,-1.5,2]	sum(i = 1..2, 100*(x[i+1] - x[i]^2)^2 + (1 - x[i])^2)
x=[0.5,-1.5,2]	sum(100*(x[2..3] - x[1..2]^2)^2 + (1 - x[1..2])^2)
x=[1,2],y=[3,-4]	dot(x, y) + norm(y) + prod([x, 2]) - len(zeros(2))
x=[0.25,0.5,1]	log(sum(exp(x))) - x[2]
x=[1,2,3]	max(x) - min(x) + sum(max(x, 2))
x=[3,1,2]	sum(i = 1..3, prod(j = 1..i, x[j]))
x=[1,2,3],y=0.5	f(u) = sum(u*y); v = x*2; f(v) + f(x[2..1])
x=[1,-2,3]	s = 0\nfor i = 1..len(x) {\n  s = s + abs(x[i])\n}\ns
x=[0.5,0.25]	if(x[1] > x[2], sum(sin(x)), prod(atan2(x, 1)))
x=[2,2,2]	max(x) + min(-x)
x=[1e-300,1e300]	norm(x) + sum(x[1..0])
PROGS
