#!/bin/sh
# jacobian-model.sh - the Jacobian of a small physical model: a projectile
# launched over flat ground at speed v (m/s) and elevation deg (degrees),
# without air resistance, g = 9.81 m/s^2.  Three outputs, one tape:
#
#   range          R = v^2*sin(2*th)/g       dR/dv = 2*v*sin(2*th)/g
#   flight time    T = 2*v*sin(th)/g         dT/dv = 2*sin(th)/g
#   top height     H = (v*sin(th))^2/(2*g)   dH/dv = v*sin(th)^2/g
#   th = deg*pi/180,   d/ddeg = pi/180 * d/dth:
#   dR/dth = 2*v^2*cos(2*th)/g, dT/dth = 2*v*cos(th)/g,
#   dH/dth = v^2*sin(th)*cos(th)/g
#
# g is given with -at like the others, and --wrt v,deg keeps it out of the
# columns.  The Jacobian then propagates measurement errors to first order:
# sigma_R^2 = (dR/dv*sigma_v)^2 + (dR/ddeg*sigma_deg)^2, and so on.  Last,
# the map from polar to Cartesian coordinates, whose Jacobian determinant is
# r (the r in dA = r dr dt).
#
# Checked against: the closed forms above, computed again here in awk (the
# script prints whether every entry agrees to 1e-12), and in python3 (math):
# at v = 20, deg = 30: R = 35.311943069701876, T = 2.0387359836901116,
# H = 5.096839959225279, J = [[3.5311943069701877, 0.7116531098855575],
# [0.10193679918450559, 0.06163096718430914], [0.5096839959225278,
# 0.30815483592154563]] (to within 1 ulp); with sigma_v = 0.5, sigma_deg = 1:
# sigma_R = 1.90362..., sigma_T = 0.0799760..., sigma_H = 0.399880...; at
# deg = 45, dR/ddeg = 8.7e-17, 0 up to the rounding of cos(pi/2) (the range
# is largest there).  Printed to 10 digits.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

th='deg*pi/180'
R="v^2*sin(2*$th)/g"
T="2*v*sin($th)/g"
H="(v*sin($th))^2/(2*g)"
point=v=20,deg=30,g=9.81

echo "# range, flight time and top height at 20 m/s and 30 degrees, and their Jacobian"
"$adcalc" -e "$R" -e "$T" -e "$H" -at "$point" --wrt v,deg --jacobian --precision 10

# the numbers of the JSON object, in order: 3 values, then the 3 x 2 Jacobian
numbers() {
    awk '{ s = $0; sub(/.*"values": /, "", s); sub(/, "vars".*/, "", s); gsub(/"[a-z]+": /, " ", s)
           gsub(/[][{},]/, " ", s); print s }'
}
fwd=$("$adcalc" -e "$R" -e "$T" -e "$H" -at "$point" --wrt v,deg --jacobian --format json | numbers)
rev=$("$adcalc" -e "$R" -e "$T" -e "$H" -at "$point" --wrt v,deg --jacobian --format json \
      --mode reverse | numbers)

echo "# the Jacobian against the closed forms (forward mode: one sweep of width 2)"
echo "$fwd" | awk -v v=20 -v deg=30 -v g=9.81 '{
    pi = atan2(0, -1); t = deg * pi / 180; k = pi / 180
    want[1] = 2*v*sin(2*t)/g;  want[2] = k * 2*v*v*cos(2*t)/g
    want[3] = 2*sin(t)/g;      want[4] = k * 2*v*cos(t)/g
    want[5] = v*sin(t)^2/g;    want[6] = k * v*v*sin(t)*cos(t)/g
    bad = 0
    for (i = 1; i <= 6; i++) {
        d = $(i + 3) - want[i]; if (d < 0) d = -d
        w = want[i] < 0 ? -want[i] : want[i]
        if (d > 1e-12 * w) bad++
    }
    printf "entries that differ from the closed forms by more than 1e-12: %d of 6\n", bad
}'
echo "$fwd $rev" | awk '{
    worst = 0
    for (i = 1; i <= 9; i++) {
        d = $i - $(i + 9); if (d < 0) d = -d
        w = $i < 0 ? -$i : $i
        if (w > 0 && d / w > worst) worst = d / w
    }
    printf "reverse mode (3 sweeps) gives the same numbers to 1e-14: %s\n", worst <= 1e-14 ? "yes" : "no"
}'

echo "# first-order error propagation: v = 20 +- 0.5 m/s, deg = 30 +- 1"
echo "$fwd" | awk -v sv=0.5 -v sd=1 '{
    split("R T H", name, " ")
    for (i = 1; i <= 3; i++) {
        dv = $(2 * i + 2); dd = $(2 * i + 3)
        printf "%s = %.10g +- %.4g\n", name[i], $i, sqrt((dv * sv)^2 + (dd * sd)^2)
    }
}'

echo "# at 45 degrees the range is largest: dR/ddeg vanishes (up to rounding)"
"$adcalc" -e "$R" -at v=20,deg=45,g=9.81 --wrt deg --format json |
    awk '{ s = $0; sub(/.*"deg": /, "", s); sub(/}.*/, "", s); s += 0
           printf "|dR/ddeg| < 1e-12: %s\n", (s < 1e-12 && s > -1e-12) ? "yes" : "no" }'

echo "# polar to Cartesian coordinates: the Jacobian, and its determinant r"
"$adcalc" -e 'r*cos(t)' -e 'r*sin(t)' -at r=2,t=0.5 --jacobian --precision 10
"$adcalc" -e 'r*cos(t)' -e 'r*sin(t)' -at r=2,t=0.5 --jacobian --format json | numbers |
    awk '{ printf "det J = %.10g (r = 2)\n", $3 * $6 - $4 * $5 }'
