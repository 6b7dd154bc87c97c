#!/bin/sh
# call-spread.sh - a piecewise function written with the conditional
# expression if(c, a, b): the payoff at expiry of a bull call spread, its
# value and its derivatives on each piece in one batch run, and what
# happens at a strike, where the payoff has a kink.
#
# Long a call struck at K1, short one struck at K2 > K1:
#   call(s, k) = if(s > k, s - k, 0)       (max(s - k, 0))
#   payoff     = call(S, K1) - call(S, K2)
# is 0 below K1, S - K1 between the strikes, K2 - K1 above K2.  if()
# records only the branch taken, so each row's derivatives are those of
# its piece: (d/dS, d/dK1, d/dK2) = (0, 0, 0), (1, -1, 0), (0, -1, 1).
# The rows take three paths (adcalc records each at the first row that
# takes it and replays it for the rows that follow).  The script checks
# every row against the payoff and the slopes computed in awk from the
# pieces.
#
# At a strike the two sides of the comparison are equal.  Under the
# default --nondiff strict that is an error (the payoff has a kink there),
# at the comparison in the body of call(); under zero-subgrad the branch
# the values choose (S > K2 is false at S = K2) gives the derivatives of
# the middle piece.  Near a strike, --check's stencil crosses it: no
# verdict ("branch") for the variables it straddles.  A jump is not a
# kink: the digital payoff if(S > K, 1, 0) has derivative 0 on both sides,
# and adcalc, differentiating the branch taken, gives 0 (the jump's delta
# function at K is in no path).
#
# Checked against: the pieces by hand, K1 = 100, K2 = 120: S = 90 -> 0;
# 104.5 -> 4.5; 117 -> 17; 130 and 150 -> 20.  At S = 120: 20 from either
# side, the middle piece's slopes (1, -1, 0).  At S = 100 + 2^-20 the value
# is 2^-20 = 9.5367431640625e-07, within the step of --check's stencil
# (sqrt(eps) * 100 = 1.5e-06) of the strike K1 = 100: S and K1 straddle
# it, K2 is 20 away.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL
cat >spread.ad <<'PROG'
# a bull call spread at expiry: long a call at K1, short a call at K2 > K1
call(s, k) = if(s > k, s - k, 0)
call(S, K1) - call(S, K2)
PROG
printf 'S K1 K2\n90 100 120\n104.5 100 120\n117 100 120\n130 100 120\n150 100 120\n' >spot.txt
echo "# payoff and its derivatives on each piece (one batch run, three paths)"
"$adcalc" -f spread.ad --points spot.txt --grad --format tsv --header --stats 2>&1 |
    grep -v '^adcalc: tape:' | grep -v '^adcalc: [0-9]* rows' | tee payoff.txt
echo "# the same from the pieces, in awk"
grep '^[0-9]' spot.txt >spot.rows; grep '^[-0-9]' payoff.txt >payoff.rows
paste -d ' ' spot.rows payoff.rows | awk '
    NF == 7 {
        S = $1; K1 = $2; K2 = $3
        v = (S > K1 ? S - K1 : 0) - (S > K2 ? S - K2 : 0)
        dS = (S > K1 && S <= K2) ? 1 : 0; dK1 = S > K1 ? -1 : 0; dK2 = S > K2 ? 1 : 0
        printf "S = %s: payoff %g, slopes (%g, %g, %g): agree: %s\n", S, v, dS, dK1, dK2,
               (v == $4 && dS == $5 && dK1 == $6 && dK2 == $7) ? "yes" : "no"
    }'
echo "# exactly at the strike K2: a kink, so strict refuses derivatives"
"$adcalc" -f spread.ad -at S=120,K1=100,K2=120 --grad 2>&1
echo "exit status $?"
echo "# ... zero-subgrad takes the branch the values choose (S > K2 is false)"
"$adcalc" -f spread.ad -at S=120,K1=100,K2=120 --grad --nondiff zero-subgrad
echo "# ... and the value alone never fails"
"$adcalc" -f spread.ad -at S=120,K1=100,K2=120
echo "# 2^-20 above the strike K1: the check's stencil crosses it"
"$adcalc" -f spread.ad -at S=100.00000095367431640625,K1=100,K2=120 --check
echo "# a jump: the digital payoff's derivative is 0 on either side"
"$adcalc" -e 'if(S > K, 1, 0)' -at S=105,K=100 --grad
