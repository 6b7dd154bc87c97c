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
