#!/usr/bin/env python3
"""normal_oracle.py - independent mpmath reference rows for adcalc's `ln`,
`normpdf` and `normcdf` (issue 15).

    ln(x)      = log(x)
    normpdf(x) = exp(-x^2/2) / sqrt(2 pi)
    normcdf(x) = erfc(-x / sqrt(2)) / 2

Generates, deterministically, the rows of grad.tsv, hessian.tsv, jvp.tsv
and edge.tsv in the format of tests/corpus/README.md; they follow the sinc
rows (oracle/sinc_oracle.py) in each file.

Usage:
    python3 normal_oracle.py              # print every file to stdout
    python3 normal_oracle.py --write DIR  # write DIR/{grad,hessian,jvp,edge}.tsv
    (the self-checks always run; the script exits non-zero if one fails)

Methods (nothing here uses adcalc):
  A  each expression is a Python function of mpmath numbers, using
     mpmath.log, mpmath.npdf and mpmath.ncdf; the value, gradient and
     Hessian come from nested mpmath.diff (central differences with steps
     1e-25 relative to each coordinate, 40 digits beyond mp.dps = 50),
     each rounded ONCE to the nearest double;
  B  for the three functions alone, the closed forms
         ln' = 1/x, ln'' = -1/x^2,
         normpdf' = -x phi, normpdf'' = (x^2 - 1) phi,
         normcdf' = phi, normcdf'' = -x phi
     (phi = exp(-x^2/2)/sqrt(2 pi), normcdf = erfc(-x/sqrt(2))/2 with
     mpmath.erfc) must give the same doubles;
  C  everything is recomputed at dps = 80 and must round to the same
     doubles.
"""

import sys

import mpmath
from mpmath import mp, mpf

DPS = 50
DPS_CHECK = 80

ln = mpmath.log
normpdf = mpmath.npdf
normcdf = mpmath.ncdf

# (expr as adcalc reads it, the same as a Python lambda, the point)
GRAD = [
    ("ln(x)", lambda x: ln(x), [("x", "0.5")]),
    ("ln(x)", lambda x: ln(x), [("x", "3.0")]),
    ("ln(x)", lambda x: ln(x), [("x", "1e-150")]),   # ln'' = -1e300: a Taylor of order 2 is finite
    ("ln(x)", lambda x: ln(x), [("x", "10000000000.0")]),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "0.0")]),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "1.5")]),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "-2.25")]),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "7.0")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "0.0")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "1.5")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "-2.25")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "-7.0")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "-20.0")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "6.0")]),
    ("normcdf((x - m)/s)", lambda x, m, s: normcdf((x - m) / s), [("x", "1.2"), ("m", "0.5"), ("s", "2.0")]),
    ("x*ln(y) + normpdf(x - y)", lambda x, y: x * ln(y) + normpdf(x - y), [("x", "0.75"), ("y", "2.5")]),
    ("S*normcdf(ln(S/K)/v + v/2) - K*normcdf(ln(S/K)/v - v/2)",
     lambda S, K, v: S * normcdf(ln(S / K) / v + v / 2) - K * normcdf(ln(S / K) / v - v / 2),
     [("S", "100.0"), ("K", "95.0"), ("v", "0.2")]),
    ("ln(normcdf(x))", lambda x: ln(normcdf(x)), [("x", "-3.5")]),
    ("normpdf(x)/normcdf(x)", lambda x: normpdf(x) / normcdf(x), [("x", "-1.25")]),
    ("ln(1 + x^2)*normcdf(y)", lambda x, y: ln(1 + x ** 2) * normcdf(y), [("x", "-0.3"), ("y", "0.8")]),
]

HESS = [
    ("ln(x*y)", lambda x, y: ln(x * y), [("x", "2.0"), ("y", "0.25")]),
    ("normpdf(x)*y", lambda x, y: normpdf(x) * y, [("x", "0.6"), ("y", "-1.5")]),
    ("normcdf(x*y)", lambda x, y: normcdf(x * y), [("x", "1.1"), ("y", "-0.9")]),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "-2.25")]),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "1.5")]),
    ("ln(x)", lambda x: ln(x), [("x", "0.125")]),
    ("S*normcdf(ln(S/K)/v + v/2) - K*normcdf(ln(S/K)/v - v/2)",
     lambda S, K, v: S * normcdf(ln(S / K) / v + v / 2) - K * normcdf(ln(S / K) / v - v / 2),
     [("S", "100.0"), ("K", "95.0"), ("v", "0.2")]),
]

JVP = [
    ("normcdf(x - y)", lambda x, y: normcdf(x - y), [("x", "0.3"), ("y", "1.1")], ["1.0", "0.5"]),
    ("ln(x)*normpdf(y)", lambda x, y: ln(x) * normpdf(y), [("x", "4.0"), ("y", "-0.5")], ["-1.0", "2.0"]),
    ("normpdf(x*y) + ln(y)", lambda x, y: normpdf(x * y) + ln(y), [("x", "1.5"), ("y", "0.75")], ["0.25", "-1.0"]),
]

# (expr, point, outcome under strict, outcome under zero-subgrad); the
# outcome is "ok" (value and gradient follow) or "domain"
EDGE = [
    ("ln(x)", lambda x: ln(x), [("x", "0.0")], "domain"),
    ("ln(x)", lambda x: ln(x), [("x", "-1.0")], "domain"),
    ("ln(x)", lambda x: ln(x), [("x", "1.0")], "ok"),
    ("normcdf(x)", lambda x: normcdf(x), [("x", "0.0")], "ok"),
    ("normpdf(x)", lambda x: normpdf(x), [("x", "0.0")], "ok"),
]


def dbl(v):
    """the nearest double of an mpmath number"""
    return float(v)


def fmt(x):
    return "%.17g" % x if x != 0 else "0"


def point(at):
    return [mpf(v) for _, v in at]


def at_text(at):
    return ",".join("%s=%s" % (n, v) for n, v in at)


def partial(f, p, ks):
    """the partial derivative of f at p, once by each coordinate index in
    ks, by nested mpmath.diff with a step relative to the coordinate (so
    that 1e-300 is not crossed into the negatives), at 40 more digits"""
    if not ks:
        return f(*p)
    i, rest = ks[0], ks[1:]
    h = abs(p[i]) * mpf(10) ** -25 if p[i] != 0 else mpf(10) ** -25

    def along(t):
        q = list(p)
        q[i] = t
        return partial(f, q, rest)
    return mpmath.diff(along, p[i], h=h)


def derivs(f, at, order):
    """value, gradient (and Hessian) by mpmath.diff, as doubles"""
    p = point(at)
    n = len(p)
    with mpmath.workdps(mp.dps + 40):
        val = dbl(f(*p))
        grad = [dbl(partial(f, p, [i])) for i in range(n)]
        hess = [dbl(partial(f, p, [i, j])) for i in range(n) for j in range(n)] if order > 1 else []
    return val, grad, hess


def closed(expr, x):
    """method B: the functions alone, by their closed forms"""
    phi = mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)
    if expr == "ln(x)":
        return ln(x), 1 / x, -1 / x ** 2
    if expr == "normpdf(x)":
        return phi, -x * phi, (x * x - 1) * phi
    if expr == "normcdf(x)":
        return mpmath.erfc(-x / mpmath.sqrt(2)) / 2, phi, -x * phi
    return None


def rows(dps):
    mp.dps = dps
    g, h, j, e = [], [], [], []
    for k, (expr, f, at) in enumerate(GRAD):
        val, grad, _ = derivs(f, at, 1)
        g.append("g%04d\t%s\t%s\t%s\t%s" % (2051 + k, expr, at_text(at), fmt(val), " ".join(fmt(x) for x in grad)))
    for k, (expr, f, at) in enumerate(HESS):
        val, grad, hess = derivs(f, at, 2)
        h.append("h%04d\t%s\t%s\t%s\t%s\t%s" % (323 + k, expr, at_text(at), fmt(val), " ".join(fmt(x) for x in grad),
                                                " ".join(fmt(x) for x in hess)))
    for k, (expr, f, at, seed) in enumerate(JVP):
        p = point(at)
        s = [mpf(v) for v in seed]
        val = dbl(f(*p))
        with mpmath.workdps(dps + 40):
            jv = dbl(mpmath.diff(lambda t: f(*[a + t * b for a, b in zip(p, s)]), 0, h=mpf(10) ** -25))
        seed_text = ",".join("%s=%s" % (n, v) for (n, _), v in zip(at, seed))
        j.append("j%04d\t%s\t%s\t%s\t%s\t%s" % (317 + k, expr, at_text(at), seed_text, fmt(val), fmt(jv)))
    for k, (expr, f, at, outcome) in enumerate(EDGE):
        for pol, tag in (("strict", "s"), ("zero-subgrad", "z")):
            if outcome == "ok":
                val, grad, _ = derivs(f, at, 1)
                e.append("e%04d%s\t%s\t%s\t%s\tok\t%s\t%s" % (208 + k, tag, expr, at_text(at), pol, fmt(val),
                                                              " ".join(fmt(x) for x in grad)))
            else:
                e.append("e%04d%s\t%s\t%s\t%s\tdomain\t\t" % (208 + k, tag, expr, at_text(at), pol))
    return {"grad": g, "hessian": h, "jvp": j, "edge": e}


HEAD = {
    "grad": "# ln, normpdf, normcdf: value and gradient (tests/corpus/oracle/normal_oracle.py)\n"
            "id\texpr\tat\tvalue\tgrad",
    "hessian": "# ln, normpdf, normcdf: value, gradient and Hessian (tests/corpus/oracle/normal_oracle.py)\n"
               "id\texpr\tat\tvalue\tgrad\thessian",
    "jvp": "# ln, normpdf, normcdf: directional derivatives (tests/corpus/oracle/normal_oracle.py)\n"
           "id\texpr\tat\tseed\tvalue\tjvp",
    "edge": "# ln, normpdf, normcdf: outcomes at domain edges (tests/corpus/oracle/normal_oracle.py)\n"
            "id\texpr\tat\tpolicy\texpect\tvalue\tgrad",
}


def self_check(out):
    """methods B and C; returns the number of failures"""
    bad = 0
    again = rows(DPS_CHECK)
    for name in out:
        if out[name] != again[name]:
            print("FAIL: %s.tsv differs at %d digits" % (name, DPS_CHECK), file=sys.stderr)
            bad += 1
    mp.dps = DPS
    for expr, f, at in GRAD + HESS:
        c = closed(expr, point(at)[0]) if len(at) == 1 else None
        if c is None:
            continue
        val, grad, hess = derivs(f, at, 2)
        want = (val, grad[0], hess[0])
        got = tuple(dbl(v) for v in c)
        if got != want:
            print("FAIL: %s at %s: closed form %r, mpmath.diff %r" % (expr, at_text(at), got, want), file=sys.stderr)
            bad += 1
    print("normal_oracle: %d self-check failures" % bad, file=sys.stderr)
    return bad


def emit(out, head, argv):
    """the rows of each table (out: name -> lines) under its header
    (head: name -> line): into DIR/name.tsv with --write DIR, else on
    standard output (run below writes every oracle's tables with it)"""
    if len(argv) == 3 and argv[1] == "--write":
        for name, r in out.items():
            with open("%s/%s.tsv" % (argv[2], name), "w") as fh:
                fh.write(head[name] + "\n" + "\n".join(r) + "\n")
    else:
        for name, r in out.items():
            print(head[name])
            print("\n".join(r))


def run(rows, self_check, head, dps):
    """an oracle script's work: its rows at dps digits, its self-checks,
    its tables (emit); the exit status (1 when a self-check failed).
    special_oracle.py and vector_oracle.py run with it too"""
    out = rows(dps)
    bad = self_check(out)
    emit(out, head, sys.argv)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(run(rows, self_check, HEAD, DPS))
