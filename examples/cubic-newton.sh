#!/bin/sh
# cubic-newton.sh - Newton's method in a while loop, differentiated twice
# with respect to the parameter of the equation it solves, for several
# parameters in one batch run; and the one point where the derivative of
# the loop is not that of the solution.
#
# z^3 + z = p has one real root z(p) for every p.  The program iterates
#   z <- z - (z^3 + z - p) / (3 z^2 + 1)
# from z = 1 until the residual is below 1e-15 (1 + |p|): each p takes its
# own number of iterations, so each row of the batch takes its own path
# (adcalc records it at the first row that takes it).  --hessian gives the
# value, dz/dp and d2z/dp2 of the recorded iterations.  Two independent
# references:
#   - the implicit function theorem with f(z, p) = z^3 + z - p, evaluated
#     at adcalc's z (in awk):
#       dz/dp = -f_p / f_z = 1 / (3 z^2 + 1),
#       d2z/dp2 = -6 z (dz/dp)^3 = -6 z / (3 z^2 + 1)^3;
#   - the closed form (Cardano, in its hyperbolic form, good for any p)
#       z = 2/sqrt(3) sinh(asinh(3 sqrt(3) p / 2) / 3),
#     differentiated by adcalc as a formula: no loop, no branch.
# The relative differences are of the order of the rounding of the last
# iteration.
#
# At p = 2 the start z = 1 is already the root, the loop runs no iteration,
# and the path recorded is the constant 1: dz/dp = 0, the derivative of
# what was computed but not the solution's 1/4.  A Newton step taken at the
# root has the solution's first derivative whatever the derivative of its
# start (f = 0 there), so finishing with one more step fixes dz/dp; a
# second one fixes d2z/dp2 too.  --check does not catch it: the points of
# its stencil, p = 2 +- h, run iterations, another path, so it gives no
# verdict ("branch").
#
# Checked against: mpmath at 50 digits (findroot, and the derivatives from
# the implicit function theorem): p = 0.5: z = 0.42385379906978327,
# dz/dp = 0.64979110267249804, d2z/dp2 = -0.69773195245296500; p = 10:
# z = 2, 1/13 = 0.076923076923076923, -12/2197 = -0.0054619936276741010;
# p = -3: z = -1.2134116627622296, 0.18460049422892548,
# 0.045799210705490992; p = 1000: z = 9.9666667905349733,
# 0.0033444442377229306, -2.2370364851395654e-06; p = 2: z = 1, 1/4,
# -6/64 = -0.09375.  (The loop's d2z/dp2 at p = -3 is the least accurate
# figure, 7e-15 off.)
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL
cat >cubic.ad <<'PROG'
# z^3 + z = p by Newton's method, from z = 1
z = 1
while abs(z^3 + z - p) > 1e-15*(1 + abs(p)) {
  z = z - (z^3 + z - p)/(3*z^2 + 1)
}
z
PROG
printf 'p\n0.5\n10\n-3\n1000\n' >p.txt
echo "# the loop, four values of p in one batch run (each a path of its own)"
"$adcalc" -f cubic.ad --points p.txt --hessian --format tsv --header --precision 17 --stats 2>&1 |
    grep -v '^adcalc: tape:' | grep -v '^adcalc: [0-9]* rows' | tee loop.txt
echo "# the closed form z = 2/sqrt(3)*sinh(asinh(3*sqrt(3)*p/2)/3), no loop"
"$adcalc" -e '2/sqrt(3)*sinh(asinh(3*sqrt(3)*p/2)/3)' --points p.txt --hessian --format tsv --header --precision 17 |
    tee closed.txt
echo "# the loop against the implicit function theorem (at the loop's z) and the closed form"
rows() { grep '^[-0-9]' "$1"; }    # the rows of numbers, without the header
rows p.txt >p.rows; rows loop.txt >loop.rows; rows closed.txt >closed.rows
paste -d ' ' p.rows loop.rows closed.rows | awk '
    function rel(x, y) { r = (x - y) / y; return (r < 0 ? -r : r) + 0 }   # + 0: no -0
    NF == 7 {
        p = $1; z = $2; d1 = $3; d2 = $4; c1 = $6; c2 = $7
        u = 3 * z * z + 1; i1 = 1 / u; i2 = -6 * z / (u * u * u)
        printf "p = %s: implicit dz/dp = %.17g, d2z/dp2 = %.17g\n", p, i1, i2
        a = rel(d1, i1); b = rel(d2, i2); c = rel(d1, c1); d = rel(d2, c2)
        printf "  relative differences: implicit %.1e, %.1e; closed form %.1e, %.1e: below 1e-9: %s\n",
               a, b, c, d, (a < 1e-9 && b < 1e-9 && c < 1e-9 && d < 1e-9) ? "yes" : "no"
    }'
echo "# p = 2: z = 1 is the root already, no iteration runs: the derivatives of a constant"
"$adcalc" -f cubic.ad -at p=2 --hessian
echo "# ... and --check cannot tell: its stencil's points run iterations, another path"
"$adcalc" -f cubic.ad -at p=2 --check | grep '^p '
echo "# ... one more Newton step after the loop gives the solution's dz/dp = 1/4"
sed '$d' cubic.ad >cubic1.ad
printf 'z = z - (z^3 + z - p)/(3*z^2 + 1)\nz\n' >>cubic1.ad
"$adcalc" -f cubic1.ad -at p=2 --hessian
echo "# ... and a second one its d2z/dp2 = -6/64 too"
sed '$d' cubic1.ad >cubic2.ad
printf 'z = z - (z^3 + z - p)/(3*z^2 + 1)\nz\n' >>cubic2.ad
"$adcalc" -f cubic2.ad -at p=2 --hessian
