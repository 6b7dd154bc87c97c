#!/usr/bin/env python3
"""vector_oracle.py - independent mpmath reference rows for adcalc's vectors
(issue 14): indexing, slices, literals with splicing, elementwise
arithmetic and functions, the reductions sum, prod, dot, norm, max, min,
len and the indexed sums sum(i = a..b, ...) and prod(i = a..b, ...).

Generates, deterministically, vector.tsv in the format of
tests/corpus/README.md: columns `id expr at value grad hessian`, `at` with
vector items such as `x=[1.5,-0.25,2]`, the gradient by the variables in
`at` order and each vector's elements in index order, the Hessian (row-
major, in that same order) for some rows and empty for the others.

Usage:
    python3 vector_oracle.py              # print the table to stdout
    python3 vector_oracle.py --write DIR  # write DIR/vector.tsv
    (the self-checks always run; the script exits non-zero if one fails)

Methods (nothing here uses adcalc, nor parses its expressions):
  A  each case is written twice in Python over mpmath numbers at 50
     digits: the function itself, and its gradient (and, for some, its
     Hessian) worked out by hand in closed form: the chained Rosenbrock
     function F5, softmax cross-entropy, log-sum-exp, a least-squares loss
     sum((A x - b)^2) with A and b written as literals, norm, prod, a
     quadratic form, a Gaussian log-likelihood, ...; each number is
     rounded ONCE to the nearest double.  A literal or coordinate stands
     for the double nearest its decimal text (D below), exactly.
  B  the gradient and Hessian again by (nested) mpmath.diff of the
     function alone, 40 digits beyond, must give the same doubles;
  C  everything is recomputed at 80 digits and must round to the same
     doubles.
"""

import sys

import mpmath
from mpmath import mp, mpf

from normal_oracle import dbl, fmt, partial, run

DPS = 50
DPS_CHECK = 80


def D(text):
    """the double nearest the decimal text, as an exact mpmath number"""
    return mpf(float(text))


# ---- points: (name, "value") or (name, ["v1", "v2", ...]), in order ----

def at_text(at):
    return ",".join("%s=[%s]" % (n, ",".join(v)) if isinstance(v, list) else "%s=%s" % (n, v) for n, v in at)


def coords(at):
    """the coordinates of the point, flat, in at order"""
    out = []
    for _, v in at:
        out.extend(D(s) for s in (v if isinstance(v, list) else [v]))
    return out


def env(at, p):
    """the flat coordinates p as a dict: name -> list (a vector) or number"""
    e, k = {}, 0
    for n, v in at:
        if isinstance(v, list):
            e[n] = list(p[k:k + len(v)])
            k += len(v)
        else:
            e[n] = p[k]
            k += 1
    return e


def spread(n):
    """n shortest-decimal coordinates in [-1.2, 1.2], deterministic"""
    return [repr(round(((i * 37) % 101) / 50 - 1.2 + 0.01 * (i % 3), 3)) for i in range(1, n + 1)]


# ---- the functions and their derivatives, by hand ----

def rosen(x):
    n = len(x)
    return sum(100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2 for i in range(n - 1))


def rosen_grad(x):
    n = len(x)
    g = []
    for k in range(n):
        d = 0
        if k < n - 1:
            d += -400 * x[k] * (x[k + 1] - x[k] ** 2) - 2 * (1 - x[k])
        if k > 0:
            d += 200 * (x[k] - x[k - 1] ** 2)
        g.append(d)
    return g


def rosen_hess(x):
    n = len(x)
    h = [[mpf(0)] * n for _ in range(n)]
    for k in range(n):
        if k < n - 1:
            h[k][k] += 1200 * x[k] ** 2 - 400 * x[k + 1] + 2
            h[k][k + 1] = h[k + 1][k] = -400 * x[k]
        if k > 0:
            h[k][k] += 200
    return h


def softmax(z):
    m = max(z)
    e = [mpmath.exp(v - m) for v in z]
    s = sum(e)
    return [v / s for v in e]


def lse(z):
    m = max(z)
    return m + mpmath.log(sum(mpmath.exp(v - m) for v in z))


def softmax_hess(z):
    s = softmax(z)
    return [[(s[i] if i == j else 0) - s[i] * s[j] for j in range(len(z))] for i in range(len(z))]


PROBS = [D("0.2"), D("0.5"), D("0.3")]
A = [["1.5", "-2", "0.5"], ["0.25", "1", "-1"], ["3", "0", "2"], ["-1", "0.5", "0.75"]]
B = ["1", "-2", "0.5", "3"]
A_M = [[D(a) for a in row] for row in A]
B_M = [D(b) for b in B]
LSQ_EXPR = "sum(([%s] - [%s])^2)" % (", ".join("dot([%s], x)" % ",".join(row) for row in A), ",".join(B))


def lsq(x):
    return sum((sum(a * v for a, v in zip(row, x)) - b) ** 2 for row, b in zip(A_M, B_M))


def lsq_grad(x):
    r = [sum(a * v for a, v in zip(row, x)) - b for row, b in zip(A_M, B_M)]
    return [2 * sum(A_M[i][k] * r[i] for i in range(len(r))) for k in range(len(x))]


def lsq_hess(x):
    n = len(x)
    return [[2 * sum(row[i] * row[j] for row in A_M) for j in range(n)] for i in range(n)]


def norm(v):
    return mpmath.sqrt(sum(t * t for t in v))


def norm_hess(x):
    r = norm(x)
    n = len(x)
    return [[((1 if i == j else 0) - x[i] * x[j] / r ** 2) / r for j in range(n)] for i in range(n)]


def prod(v):
    out = mpf(1)
    for t in v:
        out *= t
    return out


def prod_grad(x):
    return [prod(x[:k] + x[k + 1:]) for k in range(len(x))]


def prod_hess(x):
    n = len(x)
    return [[0 if i == j else prod([x[k] for k in range(n) if k not in (i, j)]) for j in range(n)] for i in range(n)]


def kern(i, j):
    """the quadratic form's matrix, 1-based: 1/(1 + (i-j)^2)"""
    return mpf(1) / (1 + (i - j) ** 2)


def quad(x):
    n = len(x)
    return sum(x[i] * x[j] * kern(i, j) for i in range(n) for j in range(n))


def quad_grad(x):
    n = len(x)
    return [2 * sum(kern(k, j) * x[j] for j in range(n)) for k in range(n)]


def quad_hess(x):
    n = len(x)
    return [[2 * kern(i, j) for j in range(n)] for i in range(n)]


def gauss(x, mu, s):
    return -sum((v - mu) ** 2 for v in x) / (2 * s ** 2) - len(x) * mpmath.log(s)


def gauss_grad(x, mu, s):
    n = len(x)
    dx = [-(v - mu) / s ** 2 for v in x]
    dmu = sum(v - mu for v in x) / s ** 2
    ds = sum((v - mu) ** 2 for v in x) / s ** 3 - n / s
    return dx + [dmu, ds]


def wmean(x):
    """softmax-weighted mean sum(exp(x)/sum(exp(x)) * x)"""
    s = softmax(x)
    return sum(a * b for a, b in zip(s, x))


def wmean_grad(x):
    s = softmax(x)
    m = wmean(x)
    return [s[k] * (1 + x[k] - m) for k in range(len(x))]


def cosine(u, w):
    """f(u, w) = dot(u, w)/norm(w)"""
    return sum(a * b for a, b in zip(u, w)) / norm(w)


def cosine_grad(u, w):
    r = norm(w)
    d = sum(a * b for a, b in zip(u, w))
    return [b / r for b in w] + [a / r - d * b / r ** 3 for a, b in zip(u, w)]


def flat(h):
    return [v for row in h for v in row]


X3 = ["1.5", "-0.25", "2"]
X4 = ["0.75", "-1.25", "0.5", "1.5"]
Y3 = ["-0.5", "2", "0.25"]
R100 = spread(100)
R5 = ["-1.2", "1", "0.5", "-0.75", "1.5"]

ROSEN_SUM = "sum(i = 1..%d, 100*(x[i+1] - x[i]^2)^2 + (1 - x[i])^2)"
ROSEN_SLICE = "sum(100*(x[2..%d] - x[1..%d]^2)^2 + (1 - x[1..%d])^2)"

# (expr, point, value, gradient, Hessian or None): the last three are
# functions of the point as a dict (env); the Hessian's rows and columns,
# like the gradient, go in at order
CASES = [
    (ROSEN_SUM % 4, [("x", R5)], lambda e: rosen(e["x"]), lambda e: rosen_grad(e["x"]),
     lambda e: flat(rosen_hess(e["x"]))),
    (ROSEN_SLICE % (5, 4, 4), [("x", R5)], lambda e: rosen(e["x"]), lambda e: rosen_grad(e["x"]), None),
    ("n = 100; " + ROSEN_SUM.replace("%d", "n-1"), [("x", R100)], lambda e: rosen(e["x"]),
     lambda e: rosen_grad(e["x"]), None),
    (ROSEN_SLICE % (100, 99, 99), [("x", R100)], lambda e: rosen(e["x"]), lambda e: rosen_grad(e["x"]), None),
    ("log(sum(exp(z))) - dot([0.2,0.5,0.3], z)", [("z", X3)],
     lambda e: lse(e["z"]) - sum(p * v for p, v in zip(PROBS, e["z"])),
     lambda e: [s - p for s, p in zip(softmax(e["z"]), PROBS)], lambda e: flat(softmax_hess(e["z"]))),
    ("log(sum(exp(z))) - z[3]", [("z", X4)], lambda e: lse(e["z"]) - e["z"][2],
     lambda e: [s - (1 if k == 2 else 0) for k, s in enumerate(softmax(e["z"]))], None),
    ("log(sum(exp(x)))", [("x", ["10", "-3", "0.5", "12.25", "7"])], lambda e: lse(e["x"]),
     lambda e: softmax(e["x"]), None),
    (LSQ_EXPR, [("x", X3)], lambda e: lsq(e["x"]), lambda e: lsq_grad(e["x"]), lambda e: flat(lsq_hess(e["x"]))),
    ("norm(x)", [("x", ["3", "-4", "12"])], lambda e: norm(e["x"]), lambda e: [v / norm(e["x"]) for v in e["x"]],
     lambda e: flat(norm_hess(e["x"]))),
    ("norm(x - y)", [("x", X3), ("y", Y3)], lambda e: norm([a - b for a, b in zip(e["x"], e["y"])]),
     lambda e: [(a - b) / norm([a - b for a, b in zip(e["x"], e["y"])]) for a, b in zip(e["x"], e["y"])] +
     [-(a - b) / norm([a - b for a, b in zip(e["x"], e["y"])]) for a, b in zip(e["x"], e["y"])], None),
    ("prod(x)", [("x", X4)], lambda e: prod(e["x"]), lambda e: prod_grad(e["x"]), lambda e: flat(prod_hess(e["x"]))),
    ("prod(i = 1..4, 1 + x[i]/i)", [("x", X4)], lambda e: prod([1 + v / (k + 1) for k, v in enumerate(e["x"])]),
     lambda e: [prod([1 + v / (j + 1) for j, v in enumerate(e["x"]) if j != k]) / (k + 1) for k in range(4)], None),
    ("dot(x, y)", [("x", X3), ("y", Y3)], lambda e: sum(a * b for a, b in zip(e["x"], e["y"])),
     lambda e: e["y"] + e["x"], None),
    ("sum(i = 1..3, sum(j = 1..3, x[i]*x[j]/(1 + (i-j)^2)))", [("x", X3)], lambda e: quad(e["x"]),
     lambda e: quad_grad(e["x"]), lambda e: flat(quad_hess(e["x"]))),
    ("-sum((x - mu)^2)/(2*s^2) - len(x)*log(s)", [("x", ["1.5", "-0.25", "2", "0.75", "1"]), ("mu", "0.5"), ("s", "1.25")],
     lambda e: gauss(e["x"], e["mu"], e["s"]), lambda e: gauss_grad(e["x"], e["mu"], e["s"]), None),
    ("max(x) - 2*min(x) + x[2]", [("x", X4)], lambda e: max(e["x"]) - 2 * min(e["x"]) + e["x"][1],
     lambda e: [(1 if k == 3 else 0) - (2 if k == 1 else 0) + (1 if k == 1 else 0) for k in range(4)], None),
    ("sum(sqrt(1 + x^2)) + sum(tanh(x)*y)", [("x", X3), ("y", Y3)],
     lambda e: sum(mpmath.sqrt(1 + v * v) for v in e["x"]) + sum(mpmath.tanh(a) * b for a, b in zip(e["x"], e["y"])),
     lambda e: [a / mpmath.sqrt(1 + a * a) + b * mpmath.sech(a) ** 2 for a, b in zip(e["x"], e["y"])] +
     [mpmath.tanh(a) for a in e["x"]], None),
    ("sum([x, y, 1]^3)", [("x", X3), ("y", "0.5")], lambda e: sum(v ** 3 for v in e["x"]) + e["y"] ** 3 + 1,
     lambda e: [3 * v ** 2 for v in e["x"]] + [3 * e["y"] ** 2], None),
    ("dot([x, 0], [1, x])", [("x", X3)], lambda e: e["x"][0] + e["x"][1] * e["x"][0] + e["x"][2] * e["x"][1],
     lambda e: [1 + e["x"][1], e["x"][0] + e["x"][2], e["x"][1]], None),
    ("dot(x[1..3], x[2..4])", [("x", X4)], lambda e: sum(e["x"][k] * e["x"][k + 1] for k in range(3)),
     lambda e: [e["x"][1], e["x"][0] + e["x"][2], e["x"][1] + e["x"][3], e["x"][2]], None),
    ("v = exp(x); s = sum(v); sum(v/s * x)", [("x", X4)], lambda e: wmean(e["x"]), lambda e: wmean_grad(e["x"]),
     None),
    ("f(u, w) = dot(u, w)/norm(w); f(x, y)", [("x", X3), ("y", Y3)], lambda e: cosine(e["x"], e["y"]),
     lambda e: cosine_grad(e["x"], e["y"]), None),
    ("sum(atan2(x, y)) + sum(hypot(x, y))", [("x", X3), ("y", Y3)],
     lambda e: sum(mpmath.atan2(a, b) + mpmath.hypot(a, b) for a, b in zip(e["x"], e["y"])),
     lambda e: [b / (a * a + b * b) + a / mpmath.hypot(a, b) for a, b in zip(e["x"], e["y"])] +
     [-a / (a * a + b * b) + b / mpmath.hypot(a, b) for a, b in zip(e["x"], e["y"])], None),
    ("sum(i = 1..4, i*x[i]^2) + prod(i = 2..3, x[i])", [("x", X4)],
     lambda e: sum((k + 1) * v ** 2 for k, v in enumerate(e["x"])) + e["x"][1] * e["x"][2],
     lambda e: [2 * (k + 1) * v + (e["x"][2] if k == 1 else e["x"][1] if k == 2 else 0)
                for k, v in enumerate(e["x"])], None),
    ("if(x[1] > x[2], sum(x^2), prod(x))", [("x", X3)], lambda e: sum(v * v for v in e["x"]),
     lambda e: [2 * v for v in e["x"]], None),
    ("sum(x[2..1]) + prod(x[3..2]) + len(x[1..0]) + sum(x[2..3]*y)", [("x", X3), ("y", "-1.5")],
     lambda e: 1 + (e["x"][1] + e["x"][2]) * e["y"], lambda e: [0, e["y"], e["y"], e["x"][1] + e["x"][2]], None),
]


def derivs_by_diff(f, at, order):
    """method B: value, gradient (and Hessian) by mpmath.diff, as doubles"""
    p = coords(at)
    n = len(p)

    def g(*q):
        return f(env(at, list(q)))
    with mpmath.workdps(mp.dps + 40):
        val = dbl(g(*p))
        grad = [dbl(partial(g, p, [i])) for i in range(n)]
        hess = [dbl(partial(g, p, [i, j])) for i in range(n) for j in range(n)] if order > 1 else []
    return val, grad, hess


def rows(dps):
    """method A at dps digits: the table's rows"""
    mp.dps = dps
    out = []
    for k, (expr, at, f, g, h) in enumerate(CASES):
        e = env(at, coords(at))
        val = dbl(f(e))
        grad = [dbl(v) for v in g(e)]
        hess = [dbl(v) for v in h(e)] if h else []
        assert len(grad) == len(coords(at)) and len(hess) in (0, len(grad) ** 2), expr
        out.append("v%04d\t%s\t%s\t%s\t%s\t%s" % (k + 1, expr, at_text(at), fmt(val), " ".join(fmt(v) for v in grad),
                                                  " ".join(fmt(v) for v in hess)))
    return {"vector": out}


HEAD = {"vector": "# adcalc reference corpus: vectors, value, gradient and (some rows) Hessian. "
                  "Format and semantics: README.md (tests/corpus/oracle/vector_oracle.py)\n"
                  "id\texpr\tat\tvalue\tgrad\thessian"}


def self_check(out):
    """methods B and C; returns the number of failures"""
    bad = 0
    again = rows(DPS_CHECK)
    if out != again:
        print("FAIL: vector.tsv differs at %d digits" % DPS_CHECK, file=sys.stderr)
        bad += 1
    mp.dps = DPS
    for k, (expr, at, f, g, h) in enumerate(CASES):
        val, grad, hess = derivs_by_diff(f, at, 2 if h else 1)
        e = env(at, coords(at))
        want = (dbl(f(e)), [dbl(v) for v in g(e)], [dbl(v) for v in h(e)] if h else [])
        if (val, grad, hess) != want:
            print("FAIL: v%04d %s: by hand %r, by mpmath.diff %r" % (k + 1, expr, want, (val, grad, hess)),
                  file=sys.stderr)
            bad += 1
    print("vector_oracle: %d rows, %d self-check failures" % (len(out["vector"]), bad), file=sys.stderr)
    return bad


if __name__ == "__main__":
    sys.exit(run(rows, self_check, HEAD, DPS))
