#!/bin/sh
# taylor.sh - derivatives of higher order with --order K: the Taylor
# coefficients of f along a line, from one sweep of truncated Taylor
# arithmetic (each node carries K + 1 coefficients), printed as the
# derivatives f^(k) = k! * (coefficient k).
#
#   sin(x) at 0          1, 0, -1, 0, ... (period 4)
#   exp(x) at 0          all 1: the Taylor polynomial of degree 10, summed
#                        here in awk, gives exp(0.5) to about 1e-11
#   kinetic energy       K(v) = m*c^2*(1/sqrt(1 - v^2/c^2) - 1), per unit mass
#   of special           and with c = 1:  K = v^2/2 + 3/8 v^4 + 5/16 v^6
#   relativity           + 35/128 v^8 + ..., Newton's v^2/2 first; so
#                        K''(0) = 1, K''''(0) = 4!*3/8 = 9, K^(6)(0) = 225,
#                        K^(8)(0) = 11025, the odd ones 0
#   along a direction    --seed v: the second derivative of t -> f(x + t*v)
#                        is v^T H v, which --hessian --seed v (H*v) confirms
#
# Checked against: the series above by hand ((1 - u)^(-1/2) = sum of
# binomial(2k, k)/4^k u^k, so K^(2k)(0) = (2k)!*binomial(2k, k)/4^k
# = ((2k - 1)!!)^2); the exp polynomial in python3 (sum of 0.5^k/k!,
# k <= 10: 1.6487212706873655, exp(0.5) = 1.6487212707001282, difference
# 1.28e-11); for exp(x*y) at (1, 0.5) along (1, -2): d/dt f = (y - 2x) f,
# d2/dt2 f = ((y - 2x)^2 - 4) f = -1.75*e^0.5 = -2.885262223725224, and
# H*v = (-2.75*e^0.5, -0.5*e^0.5) by sympy, so v.(H*v) = -1.75*e^0.5.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

echo "# sin at 0: the derivatives cycle 1, 0, -1, 0"
"$adcalc" -e 'sin(x)' -at x=0 --order 8

echo "# relativistic kinetic energy per unit mass (c = 1) at rest: 1, 9, 225, 11025"
"$adcalc" -e '1/sqrt(1 - v^2) - 1' -at v=0 --order 8

echo "# exp at 0 to order 10, and its Taylor polynomial at 0.5 against exp(0.5)"
"$adcalc" -e 'exp(x)' -at x=0 --order 10 --format json
exact=$("$adcalc" -e 'exp(x)' -at x=0.5)
"$adcalc" -e 'exp(x)' -at x=0 --order 10 --format json | awk -v h=0.5 -v exact="$exact" '{
    s = $0; sub(/.*"derivatives": \[/, "", s); sub(/\].*/, "", s)
    n = split(s, d, ", ")
    p = 1; term = 1                       # the value exp(0) = 1
    for (k = 1; k <= n; k++) { term *= h / k; p += d[k] * term }
    e = p - exact; if (e < 0) e = -e
    printf "degree %d: %.15g, exp(0.5) = %.15g, error below 1e-10: %s\n", n, p, exact, e < 1e-10 ? "yes" : "no"
}'

echo "# along the direction v = (1, -2) from (1, 0.5): f(t) = exp(x*y) on the line"
"$adcalc" -e 'exp(x*y)' -at x=1,y=0.5 --order 2 --seed x=1,y=-2 --precision 12
echo "# its second derivative is v . (H v), with H v from --hessian --seed"
d2=$("$adcalc" -e 'exp(x*y)' -at x=1,y=0.5 --order 2 --seed x=1,y=-2 | awk '$1 == "f^(2)" { print $3 }')
"$adcalc" -e 'exp(x*y)' -at x=1,y=0.5 --hessian --seed x=1,y=-2 |
    awk -v d2="$d2" '$1 == "hvp[x]" { hx = $3 } $1 == "hvp[y]" { hy = $3 } END {
        q = 1 * hx + (-2) * hy
        e = q - d2; if (e < 0) e = -e
        printf "v . (H v) = %.12g, the same as f^(2) to 1e-14: %s\n", q, e <= 1e-14 * (q < 0 ? -q : q) ? "yes" : "no"
    }'
