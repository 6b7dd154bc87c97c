#!/bin/sh
# tape-picture.sh - draw the tape: --dump-tape=dot writes a Graphviz graph
# with one box per node (its operation, value and adjoint in 6 digits, and
# the names the program gives it: "r = sqrt", "sq(...) = mul"), an edge
# from each operand to its operation (labelled A and B for the two operands
# of a binary one, as in its synopsis A * B), the inputs as blue houses and
# the output with a double yellow border, under a one-line title.  The
# script writes tape.dot in a scratch directory of its own (mktemp -d,
# removed at the end whatever happens), prints its counts, the title, the
# named nodes and the adjoints of the inputs (they are the gradient), and,
# only if Graphviz's dot is installed, renders tape.svg and tape.png there
# and checks that the picture has the same nodes and edges and that the PNG
# is one (printing something only if not), so the output is the same with
# or without Graphviz.  To look at it:
#
#   adcalc -f prog.adc -at x=0.3,y=0.4 --grad --dump-tape=dot | dot -Tpng > tape.png
#
# The program: a user function, inlined twice, and a named intermediate
#
#   sq(u) = u*u,   r = sqrt(sq(x) + sq(y)),   f = r*exp(-r)
#   df/dx = (1 - r)*exp(-r)*x/r,   df/dy = (1 - r)*exp(-r)*y/r
#
# Checked against: the closed form in python3 (math.exp) at (0.3, 0.4),
# r = 0.5: f = 0.3032653298563167, df/dx = 0.18195919791379003,
# df/dy = 0.2426122638850534, the adjoints printed in 6 digits; the nodes
# counted by hand: inputs x, y, no constants, and 7 operations (x*x, y*y,
# +, sqrt, -r, exp, *): 9 nodes; edges 2 for each binary operation (x*x
# has two edges from x, A and B) and 1 for each unary one: 2+2+2+1+1+1+2 =
# 11, 8 of them labelled; named: the two calls of sq and r.  The title is
# the program on one line without its comments.  Run without dot on the
# PATH, the script prints the same.
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
labelled=$(grep -c -- '-> t[0-9]* \[label="[AB]"\]' "$work/tape.dot")
echo "# tape.dot: $nodes nodes ($inputs inputs, $outputs output), $edges edges ($labelled labelled A or B)"
echo "# the title"
sed -n 's/^  label="\(.*\)";$/\1/p' "$work/tape.dot"
echo "# the named nodes"
grep '^  t[0-9]* \[label="t[0-9]*: [^\\]* = ' "$work/tape.dot" | sed 's/.*label="\([^"]*\)".*/\1/; s/\\n/; /g'
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
    # a PNG starts with the 8 bytes 137 P N G \r \n 26 \n
    if dot -Tpng "$work/tape.dot" >"$work/tape.png" 2>"$work/dot.err"; then
        sig=$(od -An -tx1 -N8 "$work/tape.png" | tr -d ' \n')
        [ "$sig" = 89504e470d0a1a0a ] || echo "tape.png is no PNG (it starts with $sig)"
    else
        echo "dot -Tpng failed:"
        cat "$work/dot.err"
    fi
fi
