#!/bin/sh
# relativity.sh - the kinetic energy and momentum of an electron at 0.6 c,
# a program whose named subexpressions (beta, gam, E0) are used more than
# once:
#
#   beta = v/c,  gam = 1/sqrt(1 - beta^2),  E0 = m*c^2
#   (the Lorentz factor is gam: gamma is the gamma function)
#   K = (gam - 1)*E0,   p = gam*m*v
#   dK/dv = m*v*gam^3,   d2K/dv2 = m*gam^3*(1 + 3*beta^2*gam^2),
#   dp/dv = m*gam^3,     so dK/dv = v * dp/dv  (dK = v dp)
#
# At v = 0.6 c, gam = 1.25 and K = E0/4 = 127.75 keV (an electron's rest
# energy is 511 keV).  --order 2 along v gives K' and K''; --jacobian with
# one -e per output (each -e is a program of its own, so the definitions
# are repeated) gives dK/dv and dp/dv, and awk checks their ratio is v.
#
# Then at walking pace, v = 30 m/s: gam - 1 = 5e-15 is mostly rounding
# error, so K from (gam - 1)*E0 is 2% off the classical m*v^2/2, while
# its derivative is right, because automatic differentiation differentiates
# the formula (dgam/dv = v*gam^3/c^2 has no cancellation), not its
# rounding.  The stable form expm1(-log1p(-beta^2)/2) = gam - 1 fixes the
# value.  Last, the tape: p is not used by the output K, so it records no
# nodes (the tape is the same, node for node, without that line).
#
# Checked against: sympy (python3), exact rational inputs, 20 digits:
# K = 127.74973749904103844 keV, dK/dv = 1.9974715125313621722e-6 keV s/m,
# d2K/dv2 = 2.9844005670572027520e-14 keV s^2/m^2 (equal to the closed forms
# above); K = 2.0467764442059714919e-14 J, dK/dv = 3.2003021844583866645e-22,
# dp/dv = 1.7791765041992187500e-30, ratio 179875474.8 exactly; at 30 m/s,
# K = 4.0992226656750307868e-28 J, dK/dv = 2.7328151104500410490e-29
# (m*v*gam^3; m*v^2/2 = 4.099222665675e-28 and m*v differ from them only
# in the 15th digit); the rounded values 4.181176136e-28 (naive) and
# 4.099222666e-28 (stable) are those of the same formulas in python3 floats.
# The tape of K as recorded (--no-optimize), counted by hand: inputs m, v;
# constants 299792458, 1, 2 (equal constants share a node); 9 operations
# (v/c, beta^2, 1 - .., sqrt, 1/.., gam - 1, c^2, m*.., (gam - 1)*E0):
# 14 nodes, none of them from p = gam*m*v; the optimised tape (the
# default, compared here) has c^2 folded and beta^2 as sqr(beta), and no
# node from p either.  Printed to 10 digits.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

defs='c = 299792458              # the speed of light, m/s (exact)
beta = v/c
gam = 1/sqrt(1 - beta^2) # the Lorentz factor
E0 = m*c^2                 # rest energy, J
p = gam*m*v              # momentum, kg m/s
K = (gam - 1)*E0         # kinetic energy, J'
keV=1.602176634e-16        # J (exact)
electron=m=9.1093837015e-31,v=179875474.8

echo "# K in keV at 0.6 c, and its first two derivatives along v"
"$adcalc" -e "$defs
K/$keV" -at "$electron" --order 2 --seed v=1 --precision 10

echo "# dK/dv and dp/dv from one tape with two outputs; their ratio is v"
"$adcalc" -e "$defs
K" -e "$defs
p" -at "$electron" --jacobian --wrt v --format json |
    awk '{
        sub(/.*"jacobian": \[\[/, ""); sub(/\]\].*/, "")
        split($0, j, /\], \[/)
        printf "dK/dv = %.10g J s/m\ndp/dv = %.10g kg\nratio = %.10g m/s\n", j[1], j[2], j[1] / j[2]
    }'

echo "# at 30 m/s: the value of (gam - 1)*E0 is off, its derivative is not"
lorentz='c = 299792458; beta = v/c; gam = 1/sqrt(1 - beta^2);'
"$adcalc" -e "$lorentz (gam - 1)*m*c^2" -e "$lorentz expm1(-log1p(-beta^2)/2)*m*c^2" \
    -e 'm*v^2/2' -at m=9.1093837015e-31,v=30 --wrt v --precision 10

echo "# the tape of K: the unused statement p = ... records nothing"
with=$("$adcalc" -e "$defs
K" -at "$electron" --dump-tape=tsv)
without=$("$adcalc" -e "$(printf '%s\n' "$defs" | grep -v '^p =')
K" -at "$electron" --dump-tape=tsv)
if [ "$with" = "$without" ]; then
    echo "the same tape, node for node, with and without the line p = ..."
else
    echo "the tapes differ"
fi
