#!/bin/sh
# tape-picture.sh - draw the tape: --dump-tape=dot writes a Graphviz graph
# with one box per node (its operation, value and adjoint), an edge from
# each operand to its operation, the inputs as blue houses and the output
# with a double yellow border.  The script writes tape.dot (in a scratch
# directory of its own, removed at the end), prints its
# counts and the adjoints of the inputs (they are the gradient), and, only
# if Graphviz's dot is installed, renders tape.svg and checks that the
# picture has the same nodes and edges (printing something only if not), so
# the output is the same with or without Graphviz.  To look at it:
#
#   adcalc -f prog.adc -at x=0.3,y=0.4 --grad --dump-tape=dot | dot -Tsvg > tape.svg
#
# The program: a user function, inlined twice, and a named intermediate
#
#   sq(u) = u*u,   r = sqrt(sq(x) + sq(y)),   f = r*exp(-r)
#   df/dx = (1 - r)*exp(-r)*x/r,   df/dy = (1 - r)*exp(-r)*y/r
#
# Checked against: the closed form in python3 (math.exp) at (0.3, 0.4),
# r = 0.5: f = 0.3032653298563167, df/dx = 0.18195919791379003,
# df/dy = 0.2426122638850534, the adjoints printed; the nodes counted by
# hand: inputs x, y, no constants, and 7 operations (x*x, y*y, +, sqrt,
# -r, exp, *): 9 nodes; edges 2 for each binary operation (x*x has two
# edges from x) and 1 for each unary one: 2+2+2+1+1+1+2 = 11.  Run without
# dot on the PATH, the script prints the same.
adcalc=${ADCALC:-adcalc}
work=$(mktemp -d "${TMPDIR:-/tmp}/tape-picture.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

"$adcalc" -f - -at x=0.3,y=0.4 --grad --dump-tape=dot >"$work/tape.dot" <<'EOF'
sq(u) = u*u                 # inlined at both calls
r = sqrt(sq(x) + sq(y))     # the distance from the origin
r*exp(-r)
EOF

nodes=$(grep -c '^  t[0-9]* \[' "$work/tape.dot")
edges=$(grep -c -- '->' "$work/tape.dot")
inputs=$(grep -c 'shape=invhouse' "$work/tape.dot")
outputs=$(grep -c 'peripheries=2' "$work/tape.dot")
echo "# tape.dot: $nodes nodes ($inputs inputs, $outputs output), $edges edges"
echo "# the inputs' labels, whose adjoints are the gradient"
grep 'shape=invhouse' "$work/tape.dot" | sed 's/.*label="\([^"]*\)".*/\1/; s/\\n/; /g'
echo "# the output's label"
grep 'peripheries=2' "$work/tape.dot" | sed 's/.*label="\([^"]*\)".*/\1/; s/\\n/; /g'

if command -v dot >/dev/null 2>&1; then
    if dot -Tsvg "$work/tape.dot" >"$work/tape.svg" 2>"$work/dot.err"; then
        n=$(grep -c 'class="node"' "$work/tape.svg")
        e=$(grep -c 'class="edge"' "$work/tape.svg")
        [ "$n" = "$nodes" ] && [ "$e" = "$edges" ] ||
            echo "tape.svg has $n nodes and $e edges, tape.dot $nodes and $edges"
    else
        echo "dot -Tsvg failed:"
        cat "$work/dot.err"
    fi
fi
