#!/bin/sh
# directional.sh - a directional derivative (Jacobian-vector product) with
# --seed, checked against the gradient dotted with the same direction.
#
#   f(x, y, z) = x^2*y + exp(y*z) - log(x + z)   at (1, 2, 0.5)
#   grad f = (2*x*y - 1/(x + z),  x^2 + z*exp(y*z),  y*exp(y*z) - 1/(x + z))
#   direction v = (1, -1, 2):  D_v f = grad f . v
#
# --seed runs one forward (dual-number) sweep and gives D_v f directly;
# --grad runs one reverse sweep and gives every partial.  A seed with one 1
# and zeros elsewhere picks out one partial derivative.
#
# Checked against: the analytic gradient above in python3:
# grad = (3.3333333333333335, 2.3591409142295223, 4.769896990251423),
# f = 4.31281672035088, grad . v = 10.513986399606658.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

f='x^2*y + exp(y*z) - log(x + z)'
point=x=1,y=2,z=0.5

echo "# the directional derivative along v = (1, -1, 2), forward mode"
"$adcalc" -e "$f" -at "$point" --seed x=1,y=-1,z=2 --precision 12

echo "# the gradient, reverse mode (kept at full precision for the check below)"
grad=$("$adcalc" -e "$f" -at "$point" --grad --precision 17)
printf '%s\n' "$grad" | awk '{ printf "%-5s = %.12g\n", $1, $3 }'

echo "# grad . v computed by awk from that gradient, and the check against jvp"
jvp=$("$adcalc" -e "$f" -at "$point" --seed x=1,y=-1,z=2 --precision 17 |
      awk '$1 == "jvp" { print $3 }')
printf '%s\n' "$grad" | awk -v jvp="$jvp" '
    $1 == "d/dx" { g += $3 * 1 }
    $1 == "d/dy" { g += $3 * -1 }
    $1 == "d/dz" { g += $3 * 2 }
    END {
        printf "grad . v = %.12g\n", g
        d = g - jvp; if (d < 0) d = -d
        printf "agree to 12 digits: %s\n", (d <= 1e-12 * (jvp < 0 ? -jvp : jvp)) ? "yes" : "no"
    }'

echo "# a unit seed picks out one partial derivative: d/dz"
"$adcalc" -e "$f" -at "$point" --seed z=1 --precision 12
