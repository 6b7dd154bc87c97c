#!/bin/sh
# emit-gradient.sh - the gradient of a small model as C code (--emit-c):
# a damped oscillator's displacement x(t) = A exp(-c t) cos(w t) at t = 1.5,
# differentiated with respect to its parameters A, c and w, written as a C
# function, compiled into a tiny program with its header (--emit-header),
# and checked against adcalc itself at three parameter sets: the program's
# numbers and adcalc's are the same doubles, to the last bit.
#
# Checked against: the closed form, with e = exp(-c t):
#   dx/dA = e cos(w t), dx/dc = -t A e cos(w t), dx/dw = -t A e sin(w t);
# at A = 2, c = 0.3, w = 4, python3's math gives x = 1.2244632102380422 and
# (0.6122316051190211, -1.8366948153570635, 0.5344895629531742): the first
# line below, to within a unit or two of the last place.
adcalc=${ADCALC:-adcalc}
cc=${CC:-cc}
model='A*exp(-c*1.5)*cos(w*1.5)'

"$adcalc" -e "$model" -at A=2,c=0.3,w=4 --grad --emit-c --emit-name oscillator > oscillator.c
"$adcalc" -e "$model" -at A=2,c=0.3,w=4 --grad --emit-c --emit-name oscillator --emit-header > oscillator.h
cat > main.c <<'C'
#include <stdio.h>
#include "oscillator.h"
int main(void)
{
    double x[oscillator_NX], out[oscillator_NOUT];
    while (scanf("%lf %lf %lf", &x[0], &x[1], &x[2]) == 3) {
        int st = oscillator(x, out);
        printf("%d\t%.17g\t%.17g\t%.17g\t%.17g\n", st, out[0], out[1], out[2], out[3]);
    }
    return 0;
}
C
$cc -std=c99 -O2 -o oscillator main.c oscillator.c -lm || exit 1

echo "# the function's declaration"
grep '^int oscillator' oscillator.h
echo "# value, d/dA, d/dc, d/dw at three parameter sets: the compiled code, then adcalc"
for p in "2 0.3 4" "1 0.1 6.5" "0.5 2 -1"; do
    set -- $p
    mine=$(echo "$p" | ./oscillator)
    theirs=$("$adcalc" -e "$model" -at A=$1,c=$2,w=$3 --grad --format tsv --precision 17)
    echo "$mine"
    echo "0	$theirs"
    if [ "$mine" = "0	$theirs" ]; then echo "# the same"; else echo "# DIFFERENT"; fi
done
