#!/bin/sh
# nn-layer.sh - backpropagation through a small neural network written as a
# program: a dense layer of two tanh units and a linear read-out, with a
# squared loss, its intermediates named as in a textbook:
#
#   z_i = w_i1*x1 + w_i2*x2 + b_i,   h_i = tanh(z_i)       (i = 1, 2)
#   y = v1*h1 + v2*h2 + c,           L = (y - t)^2/2
#
# Backpropagation by hand, for comparison:
#   dL/dc = y - t,   dL/dv_i = (y - t)*h_i,
#   dL/db_i = (y - t)*v_i*(1 - h_i^2),   dL/dw_ij = dL/db_i * x_j
#
# The program is read from standard input (-f -); the sample (x1, x2) and
# its target t are given with -at like the nine parameters, and --wrt asks
# for the parameter gradient only.  Then one step of gradient descent,
# w <- w - 0.1*dL/dw, computed in awk from the JSON gradient, and the loss
# again at the new parameters: it falls.
#
# Checked against: the hand-derived formulas above in python3 (math.tanh),
# with y = 0.9759984111847317: L = 0.2284869259621408, gradient
# (0.3684973041579014, -0.8843935299789633, 0.7369946083158028,
# -0.2703723263400056, 0.6488935832160133, -0.5407446526800112,
# 0.3533210000488, 0.006759758788056523, 0.6759984111847317) in the --wrt
# order, equal to the printed 12 digits; the step done again in python3
# gives the same new parameters to 12 digits and L = 0.029376103246349324
# (down from 0.228...; a rate of 0.5 would overshoot, to 1.06...).
adcalc=${ADCALC:-adcalc}
LC_ALL=C; export LC_ALL    # awk reads and prints numbers with a "."

program='# a dense layer of two tanh units and a linear read-out
z1 = w11*x1 + w12*x2 + b1
z2 = w21*x1 + w22*x2 + b2
h1 = tanh(z1)
h2 = tanh(z2)
y = v1*h1 + v2*h2 + c
(y - t)^2/2     # the loss: the last expression is the output'
sample=x1=0.5,x2=-1.2,t=0.3
params=w11=0.1,w12=-0.4,b1=0.05,w21=0.7,w22=0.2,b2=-0.1,v1=1.5,v2=-0.8,c=0.2
wrt=w11,w12,b1,w21,w22,b2,v1,v2,c

echo "# the loss and its gradient with respect to the weights and biases"
printf '%s\n' "$program" | "$adcalc" -f - -at "$sample,$params" --wrt "$wrt" --precision 12

echo "# one step of gradient descent with rate 0.1"
new=$(printf '%s\n' "$program" |
    "$adcalc" -f - -at "$sample,$params" --wrt "$wrt" --format json |
    awk -v params="$params" '{
        sub(/.*"gradient": \{/, ""); sub(/\}\}$/, "")
        n = split($0, g, ", ")
        split(params, p, ",")
        for (i = 1; i <= n; i++) {
            split(g[i], kv, ": "); split(p[i], nv, "=")
            printf "%s%s=%.17g", (i > 1 ? "," : ""), nv[1], nv[2] - 0.1 * kv[2]
        }
    }')
echo "$new" | tr ',' '\n' | awk -F= '{ printf "%-4s %.12g\n", $1, $2 }'
echo "# the loss after the step"
printf '%s\n' "$program" | "$adcalc" -f - -at "$sample,$new" --precision 12
