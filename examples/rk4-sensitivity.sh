#!/bin/sh
# rk4-sensitivity.sh - the classical Runge-Kutta method (RK4) in a for loop,
# and the sensitivity of its end state to the parameters: the fourth-order
# companion of euler-sensitivity.sh.
#
# y' = -k y, y(0) = y0, integrated to t = 1 in n steps of h = 1/n.  The
# four stages of a step are assignments in the loop's block; for this
# linear equation they collapse to one factor per step, the scheme's
# stability polynomial at z = -h k,
#   y_{i+1} = R(z) y_i,  R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24,
# so the scheme's end state and its sensitivities have closed forms,
#   y_n = y0 R^n,  dy_n/dy0 = R^n,  dy_n/dk = -h n y0 R^(n-1) R'(z),
#   R'(z) = 1 + z + z^2/2 + z^3/6,
# which adcalc's gradient (one reverse sweep through the n recorded steps)
# must match to rounding.  The ODE's own sensitivity, dy(1)/dk = -y0 e^-k,
# is a different number: the scheme is O(h^4) away from it, so each halving
# of h divides that difference by about 16 (Euler's divides it by 2).  The
# script prints both comparisons, so the two errors are not confused.
# n is not differentiated (--wrt y0,k): a loop's bound that depends on a
# differentiated variable is a tie at every point, shown at the end.
#
# Checked against: python3 fractions (R(-k/n)^n exactly) at y0 = 2,
# k = 1/2: n = 5: y = 1.2130618688467599, dy/dy0 = 0.60653093442337995,
# dy/dk = -1.2130562828443523; n = 10: dy/dk = -1.2130610202622792;
# n = 20: dy/dk = -1.2130613011975732; ODE (mpmath): -2 e^-0.5 =
# -1.2130613194252668, relative differences 4.2e-6, 2.5e-7, 1.5e-8.
# (The awk closed form here multiplies n - 1 factors, so it rounds more
# than adcalc: 1.5e-15 at n = 10, where adcalc is 5e-16 from the exact
# figure.)
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL
cat >rk4.ad <<'PROG'
# classical Runge-Kutta (RK4) for y' = -k*y on [0, 1], n steps
y = y0
h = 1/n
for i = 1..n {
  s1 = -k*y
  s2 = -k*(y + h/2*s1)
  s3 = -k*(y + h/2*s2)
  s4 = -k*(y + h*s3)
  y = y + h/6*(s1 + 2*s2 + 2*s3 + s4)
}
y
PROG
prev=
for n in 5 10 20; do
    echo "# n = $n steps"
    out=$("$adcalc" -f rk4.ad -at y0=2,k=0.5,n=$n --wrt y0,k --precision 17)
    printf '%s\n' "$out"
    ode=$(printf '%s\n' "$out" | awk -v n="$n" -v prev="$prev" '
        $1 == "value" { y = $3 } $1 == "d/dy0" { g0 = $3 } $1 == "d/dk" { gk = $3 }
        function rel(x, w) { r = (x - w) / w; return r < 0 ? -r : r }
        END {
            h = 1 / n; z = -h * 0.5
            R = 1 + z + z^2 / 2 + z^3 / 6 + z^4 / 24
            dR = 1 + z + z^2 / 2 + z^3 / 6
            p = 1; for (i = 0; i < n - 1; i++) p *= R       # R^(n-1)
            dy0 = p * R; dk = -h * n * 2 * p * dR
            printf "scheme (closed form): dy/dy0 = %.17g, dy/dk = %.17g\n", dy0, dk
            printf "  relative differences %.1e, %.1e: below 1e-9: %s\n", rel(g0, dy0), rel(gk, dk),
                   (rel(g0, dy0) < 1e-9 && rel(gk, dk) < 1e-9) ? "yes" : "no"
            ode = -2 * exp(-0.5); e = rel(gk, ode)
            printf "ODE: dy/dk = %.17g; the scheme is %.2g away (h^4 = %.3g)", ode, e, h^4
            if (prev != "") printf ", %.1f times less than with h = %g", prev / e, 2 * h
            printf "\n%.17g\n", e                     # for the next n
        }')
    printf '%s\n' "$ode" | sed '$d'
    prev=$(printf '%s\n' "$ode" | sed -n '$p')
done
echo "# differentiating n as well: the loop's bound is a tie at every point"
"$adcalc" -f rk4.ad -at y0=2,k=0.5,n=5 --grad 2>&1
echo "exit status $?"
