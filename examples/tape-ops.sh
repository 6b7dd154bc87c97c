#!/bin/sh
# tape-ops.sh - look inside the tape: dump the recorded operations of the
# Black-Scholes call price (see black-scholes.sh) as TSV, as recorded
# (--no-optimize) and as optimised (the default), and count them by kind
# with awk; then the counts that --stats reports on standard error.
#
# TSV columns: index op a b param value d_a d_b adjoint synopsis (one row per
# node: inputs first, then constants, then operations in evaluation order).
# As recorded, d1 is written twice, so its operations are recorded twice;
# equal constants share one node (0.5 is written twice but recorded once).
# The optimiser shares an operation that repeats an earlier one on the same
# operands (all of the second d1, and sqrt(T), v*sqrt(T) ...), folds
# sqrt(2), whose operand is a constant, into the constant 1.4142135623730951,
# and records v^2 as sqr(v).  The price is the same to the bit.
#
# Checked against: an independent count with python3's ast module (^ read
# as **).  As recorded: add 6, const 3, div 8, erf 2, exp 1, input 5, log 2,
# mul 11, neg 1, pow 2, sqrt 5, sub 2; 48 nodes.  Optimised, by hashing each
# operation with its operands bottom-up, pow(a, 2) as sqr(a) and constant
# operands folded: add 4, const 4 (0.5, 1, 2, sqrt(2)), div 5, erf 2, exp 1,
# input 5, log 1, mul 8, neg 1, sqr 1, sqrt 1, sub 2; 35 nodes; per recorded
# node 2 folded (sqrt(2) twice), 12 shared, 2 powers as squares.
adcalc=${ADCALC:-adcalc}

d1='(log(S/K) + (r + v^2/2)*T)/(v*sqrt(T))'
d2="($d1 - v*sqrt(T))"
call="S*0.5*(1 + erf($d1/sqrt(2))) - K*exp(-r*T)*0.5*(1 + erf($d2/sqrt(2)))"
point=S=100,K=100,T=1,r=0.05,v=0.2

echo "# nodes on the tape by kind: as recorded, and optimised"
{
    "$adcalc" -e "$call" -at "$point" --dump-tape=tsv --no-optimize | awk -F'\t' '{ print "raw", $2 }'
    "$adcalc" -e "$call" -at "$point" --dump-tape=tsv | awk -F'\t' '{ print "opt", $2 }'
} | awk '{ n[$1, $2]++; kind[$2] = 1; all[$1]++ }
    END {
        for (op in kind) printf "%-6s %8d %9d\n", op, n["raw", op], n["opt", op]
        printf "~total %8d %9d\n", all["raw"], all["opt"]
    }' | LC_ALL=C sort | sed 's/^~total/total /; 1i\
kind   recorded optimised'

echo "# what --stats says (on standard error)"
"$adcalc" -e "$call" -at "$point" --stats 2>&1 >/dev/null
"$adcalc" -e "$call" -at "$point" --stats --no-optimize 2>&1 >/dev/null

echo "# the price from both tapes"
"$adcalc" -e "$call" -at "$point"
"$adcalc" -e "$call" -at "$point" --no-optimize
