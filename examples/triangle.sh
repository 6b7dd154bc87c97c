#!/bin/sh
# triangle.sh - a user function called several times: dist(p, q), the
# length of a side, gives the three sides of a triangle ABC, and from them
# its area by Heron's formula and its perimeter, differentiated with respect
# to the six coordinates of the vertices.
#
#   dist(px, py, qx, qy) = hypot(px - qx, py - qy)
#   area = sqrt(s*(s - a)*(s - b)*(s - c)),  s = (a + b + c)/2
#
# Independent closed forms: the area is also the shoelace formula
# ((bx - ax)*(cy - ay) - (cx - ax)*(by - ay))/2, so its gradient is
#   d/dA = ((by - cy)/2, (cx - bx)/2),  d/dB = ((cy - ay)/2, (ax - cx)/2),
#   d/dC = ((ay - by)/2, (bx - ax)/2);
# the perimeter's gradient at a vertex is the sum of the unit vectors
# pointing to it along its two sides, e.g. d/dA = (A - B)/|AB| + (A - C)/|AC|.
#
# The body of dist is inlined at every call: the tape records hypot three
# times.  At a degenerate triangle (A = B) the side c is hypot(0, 0), a
# kink: the error points into the body of dist; under --nondiff
# zero-subgrad that side contributes nothing, and the perimeter's
# gradient is that of |AC| + |BC| with the hypot(0, 0) partials taken as 0.
#
# Checked against: the closed forms above in python3 (fractions, math.hypot)
# at the 3-4-5 triangle A = (0, 0), B = (4, 0), C = (0, 3): area 6,
# gradient (-3/2, -2, 3/2, 0, 0, 2); perimeter 12, gradient (-1, -1, 9/5,
# -3/5, -4/5, 8/5); at A = B = (0, 0), C = (0, 3) with the zero subgradient:
# perimeter 6, gradient (0, -1, 0, -1, 0, 2); 3 calls, so 3 hypot nodes.
adcalc=${ADCALC:-adcalc}

triangle='# the length of the segment from p to q
dist(px, py, qx, qy) = hypot(px - qx, py - qy)
a = dist(bx, by, cx, cy)   # the side opposite A
b = dist(cx, cy, ax, ay)   # opposite B
c = dist(ax, ay, bx, by)   # opposite C
s = (a + b + c)/2          # the semi-perimeter'
area="$triangle
sqrt(s*(s - a)*(s - b)*(s - c))   # Heron's formula"
perimeter="$triangle
2*s"
abc=ax=0,ay=0,bx=4,by=0,cx=0,cy=3

echo "# the area of the 3-4-5 triangle and its gradient"
"$adcalc" -e "$area" -at "$abc" --grad

echo "# its perimeter and its gradient"
"$adcalc" -e "$perimeter" -at "$abc" --grad

echo "# the tape of the perimeter: dist was inlined at each of its three calls"
"$adcalc" -e "$perimeter" -at "$abc" --dump-tape=tsv | cut -f2 | grep -c '^hypot$'

echo "# A = B: a kink inside the body of dist, then the zero subgradient"
"$adcalc" -e "$perimeter" -at ax=0,ay=0,bx=0,by=0,cx=0,cy=3 --grad 2>&1
echo "exit status $?"
"$adcalc" -e "$perimeter" -at ax=0,ay=0,bx=0,by=0,cx=0,cy=3 --grad --nondiff zero-subgrad
