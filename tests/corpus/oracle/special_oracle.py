#!/usr/bin/env python3
"""special_oracle.py - independent mpmath reference rows for adcalc's step
functions and the gamma family (issue 15):

    sign(x)     -1, 0 or 1
    floor(x), ceil(x)
    round(x)    the nearest whole number, halves away from 0 (C's round)
    fmod(a, b)  a - trunc(a/b) b (C's fmod); b = 0 is a domain error
    gamma(x)    Gamma(x); poles at 0, -1, -2, ... are domain errors
    lgamma(x)   log|Gamma(x)| (mpmath.loggamma is the complex one, so
                log(abs(gamma(x))) here); the same poles
    digamma(x)  psi(x) = Gamma'(x)/Gamma(x); the same poles

Generates, deterministically, the rows of grad.tsv, hessian.tsv, jvp.tsv,
edge.tsv and taylor.tsv in the format of tests/corpus/README.md; they
follow the rows of oracle/normal_oracle.py (taylor.tsv: of sinc_oracle.py)
in each file.

Usage:
    python3 special_oracle.py              # print every file to stdout
    python3 special_oracle.py --write DIR  # write DIR/{grad,hessian,jvp,edge,taylor}.tsv
    (the self-checks always run; the script exits non-zero if one fails)

Methods (nothing here uses adcalc):
  A  each expression is a Python function of mpmath numbers (mpmath.gamma,
     mpmath.digamma, mpmath.floor, ... and the definitions above); the
     value, gradient and Hessian come from nested mpmath.diff (central
     differences with steps 1e-25 relative to each coordinate, 40 digits
     beyond mp.dps = 50), each rounded ONCE to the nearest double; the
     Taylor rows' f^(k) from mpmath.diff of order k, 40 digits further.
     The points are the doubles their text parses to (mpf(float(text))).
  B  for the functions alone, the closed forms
         gamma' = gamma psi, gamma'' = gamma (psi^2 + psi1),
         lgamma' = psi, lgamma'' = psi1, lgamma^(k) = psi^(k-1),
         digamma' = psi1, digamma'' = psi2, digamma^(k) = psi^(k),
     with mpmath.polygamma, and 0 (fmod: 1 and -trunc(a/b)) for the step
     functions between their jumps, must give the same doubles;
  C  everything is recomputed at dps = 80 and must round to the same
     doubles.
Edge rows at a jump (a kink, README "Rules" 5) give under zero-subgrad the
gradient with that operation's local derivative 0: the function written
with the kinked operation replaced by its value, differentiated by A.
"""

import sys

import mpmath
from mpmath import mp, mpf

# the rounding, printing and nested mpmath.diff of the ln/normpdf/normcdf
# oracle, the same here (its own point() reads the text as decimal, ours
# as the double it parses to)
from normal_oracle import at_text, dbl, fmt, partial, run

DPS = 50
DPS_CHECK = 80


def sign(x):
    return mpmath.sign(x)


def floor(x):
    return mpmath.floor(x)


def ceil(x):
    return mpmath.ceil(x)


def trunc(x):
    return mpmath.sign(x) * mpmath.floor(abs(x))


def round_(x):
    """C's round: halves away from 0"""
    return mpmath.sign(x) * mpmath.floor(abs(x) + mpf(1) / 2)


def fmod(a, b):
    if b == 0:
        raise ZeroDivisionError("fmod(a, 0)")
    return a - trunc(a / b) * b


def gamma(x):
    return mpmath.gamma(x)


def lgamma(x):
    return mpmath.log(abs(mpmath.gamma(x)))


def digamma(x):
    return mpmath.digamma(x)


pi = mpmath.pi

# (expr as adcalc reads it, the same as a Python lambda, the point)
GRAD = [
    ("gamma(x)", lambda x: gamma(x), [("x", "0.5")]),
    ("gamma(x)", lambda x: gamma(x), [("x", "5.0")]),
    ("gamma(x)", lambda x: gamma(x), [("x", "-2.5")]),
    ("gamma(x)", lambda x: gamma(x), [("x", "10.25")]),
    ("gamma(x)", lambda x: gamma(x), [("x", "0.001")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "0.5")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "3.75")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "-2.5")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "1000000.0")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "250.5")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "1.0")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "0.25")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "1.4616321449683622")]),   # next to psi's zero
    ("digamma(x)", lambda x: digamma(x), [("x", "-0.5")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "-3.75")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "100.0")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "7.125")]),
    ("sign(x)*x^2", lambda x: sign(x) * x ** 2, [("x", "-1.5")]),
    ("floor(x)*x", lambda x: floor(x) * x, [("x", "2.5")]),
    ("ceil(x/2) + x", lambda x: ceil(x / 2) + x, [("x", "3.25")]),
    ("round(x)*sin(x)", lambda x: round_(x) * mpmath.sin(x), [("x", "1.75")]),
    ("round(x) + x^3", lambda x: round_(x) + x ** 3, [("x", "-2.25")]),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "7.5"), ("y", "2.0")]),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "-7.5"), ("y", "2.0")]),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "7.5"), ("y", "-2.0")]),
    ("fmod(x, 2*pi)", lambda x: fmod(x, 2 * pi), [("x", "20.0")]),
    ("fmod(x^2, y)*y", lambda x, y: fmod(x ** 2, y) * y, [("x", "3.0"), ("y", "4.0")]),
    ("lgamma(x + 1) - lgamma(x)", lambda x: lgamma(x + 1) - lgamma(x), [("x", "4.5")]),
    ("gamma(x)*digamma(y)", lambda x, y: gamma(x) * digamma(y), [("x", "3.5"), ("y", "2.25")]),
    ("lgamma(x*y)", lambda x, y: lgamma(x * y), [("x", "1.5"), ("y", "2.5")]),
    ("exp(lgamma(x) - lgamma(y))", lambda x, y: mpmath.exp(lgamma(x) - lgamma(y)), [("x", "6.5"), ("y", "4.25")]),
]

HESS = [
    ("gamma(x)", lambda x: gamma(x), [("x", "2.5")]),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "-1.5")]),
    ("digamma(x)", lambda x: digamma(x), [("x", "0.3")]),
    ("lgamma(x*y)", lambda x, y: lgamma(x * y), [("x", "1.5"), ("y", "2.0")]),
    ("gamma(x)/gamma(y)", lambda x, y: gamma(x) / gamma(y), [("x", "3.5"), ("y", "2.25")]),
    ("digamma(x) + lgamma(y)", lambda x, y: digamma(x) + lgamma(y), [("x", "-1.5"), ("y", "4.0")]),
    ("fmod(x, y)*x", lambda x, y: fmod(x, y) * x, [("x", "7.5"), ("y", "2.0")]),
    ("floor(x)*y^2", lambda x, y: floor(x) * y ** 2, [("x", "2.5"), ("y", "-1.25")]),
]

JVP = [
    ("gamma(x + y)", lambda x, y: gamma(x + y), [("x", "1.25"), ("y", "0.75")], ["1.0", "-0.5"]),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "5.5"), ("y", "1.5")], ["1.0", "2.0"]),
    ("digamma(x*y)", lambda x, y: digamma(x * y), [("x", "2.0"), ("y", "1.5")], ["0.5", "1.0"]),
    ("lgamma(x)*round(y)", lambda x, y: lgamma(x) * round_(y), [("x", "0.75"), ("y", "2.75")], ["-1.0", "3.0"]),
]

# (expr, the function, point, outcome under strict, the function at a kink
# with the kinked operation's value frozen, for zero-subgrad); the outcome
# is "ok" (value and gradient follow), "domain" (both policies) or
# "nondiff" (strict; zero-subgrad is "ok" with the frozen function)
EDGE = [
    ("sign(x)", lambda x: sign(x), [("x", "0.0")], "nondiff", lambda x: mpf(0)),
    ("sign(x)*x", lambda x: sign(x) * x, [("x", "0.0")], "nondiff", lambda x: 0 * x),
    ("floor(x)", lambda x: floor(x), [("x", "2.0")], "nondiff", lambda x: mpf(2)),
    ("floor(x) + x^2", lambda x: floor(x) + x ** 2, [("x", "-3.0")], "nondiff", lambda x: -3 + x ** 2),
    ("ceil(x)", lambda x: ceil(x), [("x", "-1.0")], "nondiff", lambda x: mpf(-1)),
    ("round(x)", lambda x: round_(x), [("x", "2.5")], "nondiff", lambda x: mpf(3)),
    ("round(x)*y", lambda x, y: round_(x) * y, [("x", "-0.5"), ("y", "2.0")], "nondiff", lambda x, y: -1 * y),
    ("round(x)", lambda x: round_(x), [("x", "0.0")], "ok", None),
    ("floor(x)*y", lambda x, y: floor(x) * y, [("x", "2.0"), ("y", "3.0")], "nondiff", lambda x, y: 2 * y),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "6.0"), ("y", "3.0")], "nondiff", lambda x, y: mpf(0)),
    ("fmod(x, 2)", lambda x: fmod(x, 2), [("x", "-4.0")], "nondiff", lambda x: mpf(0)),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "0.0"), ("y", "3.0")], "ok", None),
    ("fmod(x, y)", lambda x, y: fmod(x, y), [("x", "1.0"), ("y", "0.0")], "domain", None),
    ("fmod(x, x - x)", lambda x: fmod(x, x - x), [("x", "2.0")], "domain", None),
    ("gamma(x)", lambda x: gamma(x), [("x", "0.0")], "domain", None),
    ("gamma(x)", lambda x: gamma(x), [("x", "-1.0")], "domain", None),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "-1.0")], "domain", None),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "-2.0")], "domain", None),
    ("digamma(x)", lambda x: digamma(x), [("x", "0.0")], "domain", None),
    ("digamma(x)", lambda x: digamma(x), [("x", "-3.0")], "domain", None),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "1.0")], "ok", None),
    ("lgamma(x)", lambda x: lgamma(x), [("x", "2.0")], "ok", None),
    ("gamma(x)", lambda x: gamma(x), [("x", "1.0")], "ok", None),
    ("abs(x) + floor(x)", lambda x: abs(x) + floor(x), [("x", "0.0")], "nondiff", lambda x: mpf(0)),
    ("floor(x) + log(x)", lambda x: floor(x) + mpmath.log(x), [("x", "0.0")], "domain", None),
]

# (expr, the function of x, the point, K): f'(x) .. f^(K)(x)
TAYLOR = [
    ("gamma(x)", lambda x: gamma(x), "2.5", 4),
    ("gamma(x)", lambda x: gamma(x), "-1.5", 6),
    ("gamma(x)", lambda x: gamma(x), "10.5", 5),
    ("lgamma(x)", lambda x: lgamma(x), "0.5", 8),
    ("lgamma(x)", lambda x: lgamma(x), "-2.5", 5),
    ("digamma(x)", lambda x: digamma(x), "1.0", 6),
    ("digamma(x)", lambda x: digamma(x), "3.75", 8),
    ("digamma(x)", lambda x: digamma(x), "-0.75", 6),
    ("digamma(x)", lambda x: digamma(x), "0.25", 8),
    ("lgamma(exp(x))", lambda x: lgamma(mpmath.exp(x)), "0.25", 5),
    ("gamma(x^2)", lambda x: gamma(x ** 2), "1.25", 4),
    ("fmod(x^2, 3)", lambda x: fmod(x ** 2, 3), "2.0", 4),
    ("floor(x)*x", lambda x: floor(x) * x, "2.5", 3),
]


def point(at):
    return [mpf(float(v)) for _, v in at]


def at_text(at):
    return ",".join("%s=%s" % (n, v) for n, v in at)


def derivs(f, at, order):
    """value, gradient (and Hessian) by mpmath.diff, as doubles"""
    p = point(at)
    n = len(p)
    with mpmath.workdps(mp.dps + 40):
        val = dbl(f(*p))
        grad = [dbl(partial(f, p, [i])) for i in range(n)]
        hess = [dbl(partial(f, p, [i, j])) for i in range(n) for j in range(n)] if order > 1 else []
    return val, grad, hess


def taylor(f, x, K):
    """f'(x) .. f^(K)(x) by mpmath.diff, as doubles"""
    with mpmath.workdps(mp.dps + 40):
        return [dbl(mpmath.diff(f, x, k)) for k in range(1, K + 1)]


def closed(expr, p):
    """method B: the functions alone (value, first and second partials in
    the point's coordinates, row-major), by their closed forms"""
    x = p[0]
    pg = mpmath.polygamma
    if expr == "gamma(x)":
        g, s = gamma(x), digamma(x)
        return [g, g * s, g * (s * s + pg(1, x))]
    if expr == "lgamma(x)":
        return [lgamma(x), digamma(x), pg(1, x)]
    if expr == "digamma(x)":
        return [digamma(x), pg(1, x), pg(2, x)]
    if expr == "fmod(x, y)":
        return [fmod(x, p[1]), 1, -trunc(x / p[1]), 0, 0, 0, 0]
    return None


def closed_taylor(expr, x, K):
    if expr == "lgamma(x)":
        return [mpmath.polygamma(k - 1, x) for k in range(1, K + 1)]
    if expr == "digamma(x)":
        return [mpmath.polygamma(k, x) for k in range(1, K + 1)]
    return None


def rows(dps):
    mp.dps = dps
    g, h, j, e, t = [], [], [], [], []
    for k, (expr, f, at) in enumerate(GRAD):
        val, grad, _ = derivs(f, at, 1)
        g.append("g%04d\t%s\t%s\t%s\t%s" % (2071 + k, expr, at_text(at), fmt(val), " ".join(fmt(x) for x in grad)))
    for k, (expr, f, at) in enumerate(HESS):
        val, grad, hess = derivs(f, at, 2)
        h.append("h%04d\t%s\t%s\t%s\t%s\t%s" % (330 + k, expr, at_text(at), fmt(val), " ".join(fmt(x) for x in grad),
                                                " ".join(fmt(x) for x in hess)))
    for k, (expr, f, at, seed) in enumerate(JVP):
        p = point(at)
        s = [mpf(float(v)) for v in seed]
        val = dbl(f(*p))
        with mpmath.workdps(dps + 40):
            jv = dbl(mpmath.diff(lambda u: f(*[a + u * b for a, b in zip(p, s)]), 0, h=mpf(10) ** -25))
        seed_text = ",".join("%s=%s" % (n, v) for (n, _), v in zip(at, seed))
        j.append("j%04d\t%s\t%s\t%s\t%s\t%s" % (320 + k, expr, at_text(at), seed_text, fmt(val), fmt(jv)))
    for k, (expr, f, at, outcome, frozen) in enumerate(EDGE):
        for pol, tag in (("strict", "s"), ("zero-subgrad", "z")):
            head = "e%04d%s\t%s\t%s\t%s" % (213 + k, tag, expr, at_text(at), pol)
            if outcome == "domain":
                e.append(head + "\tdomain\t\t")
            elif outcome == "nondiff" and pol == "strict":
                e.append(head + "\tnondiff\t\t")
            else:
                val = dbl(f(*point(at)))
                _, grad, _ = derivs(frozen or f, at, 1)
                e.append(head + "\tok\t%s\t%s" % (fmt(val), " ".join(fmt(x) for x in grad)))
    for k, (expr, f, x, K) in enumerate(TAYLOR):
        d = taylor(f, mpf(float(x)), K)
        t.append("t%04d\t%s\tx=%s\t%d\t%s" % (13 + k, expr, x, K, " ".join(fmt(v) for v in d)))
    return {"grad": g, "hessian": h, "jvp": j, "edge": e, "taylor": t}


HEAD = {
    "grad": "# sign, floor, ceil, round, fmod, gamma, lgamma, digamma: value and gradient "
            "(tests/corpus/oracle/special_oracle.py)\nid\texpr\tat\tvalue\tgrad",
    "hessian": "# sign, floor, ceil, round, fmod, gamma, lgamma, digamma: value, gradient and Hessian "
               "(tests/corpus/oracle/special_oracle.py)\nid\texpr\tat\tvalue\tgrad\thessian",
    "jvp": "# sign, floor, ceil, round, fmod, gamma, lgamma, digamma: directional derivatives "
           "(tests/corpus/oracle/special_oracle.py)\nid\texpr\tat\tseed\tvalue\tjvp",
    "edge": "# sign, floor, ceil, round, fmod, gamma, lgamma, digamma: outcomes at jumps and poles "
            "(tests/corpus/oracle/special_oracle.py)\nid\texpr\tat\tpolicy\texpect\tvalue\tgrad",
    "taylor": "# gamma, lgamma, digamma, fmod, floor: Taylor derivatives f'(x) .. f^(K)(x) "
              "(tests/corpus/oracle/special_oracle.py)\nid\texpr\tat\tK\tderivs",
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
    checked = 0
    for expr, f, at in GRAD + HESS:
        p = point(at)
        c = closed(expr, p)
        if c is None:
            continue
        val, grad, hess = derivs(f, at, 2)
        want = [val] + grad + hess
        got = [dbl(v) for v in c][:len(want)]
        checked += 1
        if got != want:
            print("FAIL: %s at %s: closed form %r, mpmath.diff %r" % (expr, at_text(at), got, want), file=sys.stderr)
            bad += 1
    for expr, f, x, K in TAYLOR:
        c = closed_taylor(expr, mpf(float(x)), K)
        if c is None:
            continue
        want = taylor(f, mpf(float(x)), K)
        got = [dbl(v) for v in c]
        checked += 1
        if got != want:
            print("FAIL: taylor %s at %s: closed form %r, mpmath.diff %r" % (expr, x, got, want), file=sys.stderr)
            bad += 1
    print("special_oracle: %d closed-form checks, %d self-check failures" % (checked, bad), file=sys.stderr)
    return bad


if __name__ == "__main__":
    sys.exit(run(rows, self_check, HEAD, DPS))
