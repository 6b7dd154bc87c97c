#!/bin/sh
# tape-ops.sh - look inside the tape: dump the recorded operations of the
# Black-Scholes call price (see black-scholes.sh) as TSV and count them by
# kind with awk, then show the size line of the text dump.
#
# TSV columns: index op a b param value d_a d_b adjoint synopsis (one row per
# node: inputs first, then constants, then operations in evaluation order).
# There is no common-subexpression elimination: d1 is written twice, so its
# operations are recorded twice.  Equal constants share one node (0.5 is
# written twice but recorded once; the constants are 0.5, 1 and 2).
#
# Checked against: an independent count of the same expression's operators,
# calls, distinct names and distinct numbers with python3's ast module
# (^ read as **): add 6, const 3, div 8, erf 2, exp 1, input 5, log 2,
# mul 11, neg 1, pow 2, sqrt 5, sub 2; 48 nodes in all.
adcalc=${ADCALC:-adcalc}

d1='(log(S/K) + (r + v^2/2)*T)/(v*sqrt(T))'
d2="($d1 - v*sqrt(T))"
call="S*0.5*(1 + erf($d1/sqrt(2))) - K*exp(-r*T)*0.5*(1 + erf($d2/sqrt(2)))"
point=S=100,K=100,T=1,r=0.05,v=0.2

echo "# nodes on the tape by kind"
"$adcalc" -e "$call" -at "$point" --dump-tape=tsv |
    awk -F'\t' '{ n[$2]++ } END { for (op in n) printf "%-6s %3d\n", op, n[op] }' |
    LC_ALL=C sort

echo "# total (sum of the column above)"
"$adcalc" -e "$call" -at "$point" --dump-tape=tsv | awk 'END { print NR }'

echo "# the size line of the text dump"
"$adcalc" -e "$call" -at "$point" --dump-tape | grep '^# nodes:'
