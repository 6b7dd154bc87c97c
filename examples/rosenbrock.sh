#!/bin/sh
# rosenbrock.sh - the gradient of Rosenbrock's banana function
#
#   f(x, y) = (1 - x)^2 + 100*(y - x^2)^2
#   df/dx = -2*(1 - x) - 400*x*(y - x^2),   df/dy = 200*(y - x^2)
#
# at the classic starting point (-1.2, 1), at the minimum (1, 1) where the
# gradient is exactly zero, and for the chained 4-variable version
# sum_i (1 - x_i)^2 + 100*(x_{i+1} - x_i^2)^2, also zero at (1, 1, 1, 1).
#
# Checked against: the analytic gradient above in exact rational arithmetic
# (python3 fractions): f(-1.2, 1) = 24.2, grad = (-215.6, -88); and by hand for
# the 4-variable point (0, 0, 0, 0): f = 3, grad = (-2, -2, -2, 0).
# Printed to 12 digits: the full-precision result is -215.59999999999997
# because -1.2 and 1.44 are not exact in binary.
adcalc=${ADCALC:-adcalc}

f='(1 - x)^2 + 100*(y - x^2)^2'

echo "# at the starting point (-1.2, 1): f falls steeply as x grows"
"$adcalc" -e "$f" -at x=-1.2,y=1 --grad --precision 12

echo "# at the minimum (1, 1): value and gradient are exactly zero"
"$adcalc" -e "$f" -at x=1,y=1 --grad

echo "# the same, as JSON Lines for a program (an optimizer's stopping test)"
"$adcalc" -e "$f" -at x=1,y=1 --grad --format json

f4='(1 - a)^2 + 100*(b - a^2)^2 + (1 - b)^2 + 100*(c - b^2)^2 + (1 - c)^2 + 100*(d - c^2)^2'
echo "# four variables, chained: at the origin, then at the minimum (1, 1, 1, 1)"
"$adcalc" -e "$f4" -at a=0,b=0,c=0,d=0 --grad
"$adcalc" -e "$f4" -at a=1,b=1,c=1,d=1 --grad
