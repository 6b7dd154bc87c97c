#!/bin/sh
# euler-sensitivity.sh - an explicit Euler integrator in a for loop, and
# the sensitivity of its end state to the parameters.
#
# y' = -k y, y(0) = y0, integrated to t = 1 in n steps of h = 1/n:
#   y_{i+1} = y_i - h k y_i,  so  y_n = y0 (1 - k/n)^n
# The loop runs n times (n is a whole number given with -at; the loop
# variable i is a constant in the body); adcalc records the n steps and
# one reverse sweep gives the gradient.  The discrete scheme has closed
# forms for its sensitivities,
#   dy_n/dy0 = (1 - k/n)^n,   dy_n/dk = -y0 (1 - k/n)^(n-1),
# which adcalc must match to rounding; the ODE itself has y(1) = y0 e^-k,
# dy/dk = -y0 e^-k, which the scheme approaches with an error of order h:
# the script prints both differences, so the two errors are not confused.
# (n itself is not differentiated, --wrt y0,k: a loop's bound that depends
# on a differentiated variable is a tie at every point.)
#
# Checked against: python3 fractions for (1 - k/n)^n at y0 = 2, k = 0.5,
# n = 10 and 1000: y_10 = 1.1974738784767578, dy/dk = -1.2604988194492188;
# y_1000 = 1.2129096456801232, dy/dk = -1.213516403882064; the ODE:
# 2 e^-0.5 = 1.2130613194252668.  (The awk closed form here multiplies
# n - 1 times, so it rounds more than adcalc: 6e-14 at n = 1000.)
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL
cat >euler.ad <<'PROG'
# explicit Euler for y' = -k*y on [0, 1], n steps
y = y0
h = 1/n
for i = 1..n {
  y = y - h*k*y
}
y
PROG
for n in 10 1000; do
    echo "# n = $n steps"
    out=$("$adcalc" -f euler.ad -at y0=2,k=0.5,n=$n --grad --wrt y0,k --precision 17)
    printf '%s\n' "$out"
    printf '%s\n' "$out" | awk -v n="$n" '
        $1 == "value" { y = $3 } $1 == "d/dy0" { g0 = $3 } $1 == "d/dk" { gk = $3 }
        function rel(x, z) { r = (x - z) / z; return r < 0 ? -r : r }
        END {
            q = 1 - 0.5 / n
            p = 1; for (i = 0; i < n - 1; i++) p *= q      # (1 - k/n)^(n-1)
            dy0 = p * q; dk = -2 * p
            printf "scheme (closed form): dy/dy0 = %.17g, dy/dk = %.17g\n", dy0, dk
            printf "  relative differences %.1e, %.1e: below 1e-9: %s\n", rel(g0, dy0), rel(gk, dk),
                   (rel(g0, dy0) < 1e-9 && rel(gk, dk) < 1e-9) ? "yes" : "no"
            ode = -2 * exp(-0.5)
            printf "ODE: dy/dk = %.17g; the scheme is %.2g away (order h = %g)\n", ode, rel(gk, ode), 1 / n
        }'
done
