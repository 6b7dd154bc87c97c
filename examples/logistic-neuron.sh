#!/bin/sh
# logistic-neuron.sh - the weight gradient of one logistic neuron on one
# training sample, as backpropagation would compute it.
#
#   z = w1*x1 + w2*x2 + b,   s = sigmoid(z) = 1/(1 + exp(-z))
#   L = -(t*log(s) + (1 - t)*log(1 - s))          (binary cross-entropy)
#   dL/dw1 = (s - t)*x1,  dL/dw2 = (s - t)*x2,  dL/db = s - t
#
# The sample (x1, x2) = (1.5, 2) and target t are given with -at like the
# weights, but --wrt asks only for the weight derivatives.  The second
# expression is the same loss written with softplus, the overflow-safe form
# (log(1 + exp(-z)) = softplus(-z)); both give the same gradient.
#
# Checked against: the closed form (s - t)*x above in python3, with z = 0.25,
# s = 0.5621765008857981: for t = 1, L = 0.5759394198788437 and gradient
# (-0.656735248671303, -0.8756469982284039, -0.43782349911420193); for t = 0,
# L = 0.8259394198788435 and gradient (0.843264751328697, 1.1243530017715961,
# 0.5621765008857981).  Printed to 12 digits.
adcalc=${ADCALC:-adcalc}

z='(w1*x1 + w2*x2 + b)'
s="1/(1 + exp(-$z))"
loss="-(t*log($s) + (1 - t)*log(1 - $s))"
stable="t*softplus(-$z) + (1 - t)*softplus($z)"
weights=w1=0.5,w2=-0.3,b=0.1

echo "# positive sample (t = 1): the gradient is negative, so a step against it raises s"
"$adcalc" -e "$loss" -e "$stable" -at "$weights",x1=1.5,x2=2,t=1 --wrt w1,w2,b --precision 12

echo "# negative sample (t = 0), the gradient as JSON Lines"
"$adcalc" -e "$stable" -at "$weights",x1=1.5,x2=2,t=0 --wrt w1,w2,b --precision 12 --format json
