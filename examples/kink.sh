#!/bin/sh
# kink.sh - derivatives at a kink, under both --nondiff policies.
#
# abs(x) at x = 0 and relu(z) = max(z, 0) at z = 0 have no derivative: the
# slope is -1 on one side and +1 (abs) or 0 and 1 (relu) on the other.
#   --nondiff strict        (the default) refuses: an error naming the
#                           primitive and its arguments, exit status 4;
#   --nondiff zero-subgrad  uses 0 for the local partial, a valid subgradient
#                           of both abs and relu at 0 (0 lies in [-1, 1] and
#                           in [0, 1]), as ML frameworks do for relu.
# Off the kink the two policies agree.  stderr is folded into stdout here so
# the error messages show in the expected output.
#
# Checked against: the one-sided slopes by hand: d|x|/dx = sign(x) off 0;
# for relu(w*x + b) at w = 2, x = 0.5, b = -1 the argument is exactly 0, so
# the zero subgradient gives d/dw = d/db = 0; at b = -0.5 the neuron is active
# and d/dw = x = 0.5, d/db = 1.
adcalc=${ADCALC:-adcalc}

for policy in strict zero-subgrad; do
    echo "# abs(x) at x = 0, --nondiff $policy"
    "$adcalc" -e 'abs(x)' -at x=0 --grad --nondiff "$policy" 2>&1
    echo "exit status: $?"

    echo "# relu(w*x + b) at w = 2, x = 0.5, b = -1 (argument 0), --nondiff $policy"
    "$adcalc" -e 'relu(w*x + b)' -at w=2,x=0.5,b=-1 --wrt w,b --nondiff "$policy" 2>&1
    echo "exit status: $?"
done

echo "# off the kink (b = -0.5) strict is fine: d/dw = x, d/db = 1"
"$adcalc" -e 'relu(w*x + b)' -at w=2,x=0.5,b=-0.5 --wrt w,b 2>&1
echo "exit status: $?"

echo "# the value alone never fails: a kink only matters for derivatives"
"$adcalc" -e 'abs(x)' -at x=0 2>&1
echo "exit status: $?"
