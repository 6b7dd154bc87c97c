#!/bin/sh
# newton-step.sh - one step of Newton's method for minimizing a function of
# two variables, with the gradient g and the Hessian H from one adcalc call:
#
#   x1 = x0 - H^-1 g       (H d = g solved by Cramer's rule in awk)
#
# --hessian prints the gradient too (--grad is given anyway, for clarity);
# --format json puts value, gradient and Hessian on one line for awk.
#
#   quadratic   f = x^2 + x*y + 2*y^2 + 7*y  from (4, 3): Newton's model of a
#               quadratic is exact, so one step lands on the minimum (1, -2),
#               where f = -7 and the gradient is exactly 0;
#   Rosenbrock  f = (1 - x)^2 + 100*(y - x^2)^2  from the classic start
#               (-1.2, 1): H is positive definite there, so the step goes
#               downhill, and f falls from 24.2 to about 4.73.
#
# Checked against: the analytic gradient and Hessian in exact rational
# arithmetic (python3 fractions).  Quadratic: g(4, 3) = (11, 23),
# H = [[2, 1], [1, 4]], d = (3, 5), x1 = (1, -2), f(x1) = -7.  Rosenbrock:
# g = (-1078/5, -88), H = [[1330, 480], [480, 200]], det H = 35600,
# d = (-11/445, -847/2225), x1 = (-523/445, 3072/2225)
# = (-1.1752808988764045, 1.3806741573033707), f(x1) = 4.731884325266609,
# g(x1) = (-4.6378164146224865, -0.12220679207170812).  Printed to 10 digits.
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

# newton F X0 Y0: prints the point, f, g, H, the new point and f there
newton() {
    f=$1 x0=$2 y0=$3
    # {"expr": ..., "value": V, "gradient": {"x": GX, "y": GY}, "hessian": [[A, B], [C, D]]}
    json=$("$adcalc" -e "$f" -at "x=$x0,y=$y0" --grad --hessian --format json) || return
    step=$(printf '%s\n' "$json" | awk -v x0="$x0" -v y0="$y0" '{
        s = $0
        sub(/.*"value": /, "", s)             # drop the expression text
        gsub(/"[a-z]+": /, " ", s)            # drop the keys
        gsub(/[][{},]/, " ", s)               # and the brackets
        split(s, n, " ")                      # V GX GY A B C D
        gx = n[2]; gy = n[3]; a = n[4]; b = n[5]; c = n[6]; d = n[7]
        det = a * d - b * c
        dx = (d * gx - b * gy) / det
        dy = (a * gy - c * gx) / det
        printf "f0 = %.10g\n", n[1]
        printf "g  = (%.10g, %.10g)\n", gx, gy
        printf "H  = [[%.10g, %.10g], [%.10g, %.10g]], det H = %.10g\n", a, b, c, d, det
        printf "H positive definite: %s\n", (a > 0 && det > 0) ? "yes" : "no"
        printf "x1 = %.17g\ny1 = %.17g\n", x0 - dx, y0 - dy
    }')
    printf '%s\n' "$step" | grep -v '^[xy]1 = '
    x1=$(printf '%s\n' "$step" | awk '$1 == "x1" { print $3 }')
    y1=$(printf '%s\n' "$step" | awk '$1 == "y1" { print $3 }')
    f0=$(printf '%s\n' "$step" | awk '$1 == "f0" { print $3 }')
    printf '%s\n' "$step" | awk '$1 == "x1" { x = $3 } $1 == "y1" { y = $3 }
        END { printf "new point (x1, y1) = (%.10g, %.10g), where:\n", x, y }'
    "$adcalc" -e "$f" -at "x=$x1,y=$y1" --grad --precision 10
    f1=$("$adcalc" -e "$f" -at "x=$x1,y=$y1")
    awk -v f0="$f0" -v f1="$f1" 'BEGIN {
        printf "f decreased: %s (%.10g -> %.10g)\n", (f1 < f0) ? "yes" : "no", f0, f1 }'
}

echo "# a quadratic, from (4, 3): one step reaches the minimum (1, -2)"
newton 'x^2 + x*y + 2*y^2 + 7*y' 4 3

echo "# Rosenbrock's function, from (-1.2, 1): one step downhill"
newton '(1 - x)^2 + 100*(y - x^2)^2' -1.2 1
