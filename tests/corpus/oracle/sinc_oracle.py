#!/usr/bin/env python3
"""sinc_oracle.py - independent mpmath reference rows for adcalc's `sinc`.

sinc(x) = sin(x)/x, sinc(0) = 1 (the entire continuous extension).

Generates, deterministically (no randomness), the rows of
    grad.tsv  hessian.tsv  jvp.tsv  edge.tsv  taylor.tsv
in the format of tests/corpus/README.md, and runs self-checks.

Usage:
    python3 sinc_oracle.py              # print every file to stdout
    python3 sinc_oracle.py --write DIR  # write DIR/{grad,hessian,jvp,edge,taylor}.tsv
    python3 sinc_oracle.py --check      # self-checks only (report on stderr)
    (--write also runs the self-checks; the script exits non-zero if any fails)

Methods (nothing here uses adcalc):
  A  "closed form": the expression is parsed (corpus grammar) and evaluated
     in mpmath with second-order multivariate jets (value, gradient,
     Hessian) built by the chain rule from closed-form local derivatives;
     for taylor.tsv with univariate truncated Taylor series.  The local
     derivatives of sinc come from its Maclaurin series
         sinc^(n)(u) = sum_{2m>=n} (-1)^m u^(2m-n) / ((2m-n)! (2m+1))
     for |u| <= 2 (exact at u = 0, no cancellation near 0) and from
     Leibniz' rule on sin(u) * u^-1 with 30 guard digits for |u| > 2.
     Every reference number is computed at mp.dps = 50 and rounded ONCE to
     the nearest double; it is recomputed at dps = 80 and must round to
     the same double.
  B  mpmath.diff (high-precision central differences) of a plain mpmath
     evaluation of the same expression that uses mpmath.sinc, with the
     working precision raised for tiny coordinates; jvp via d/dt f(p + t s).
     Taylor rows: mpmath.diffs at dps 50 and 80.  For sinc itself also
  C  the integral representation sinc^(n)(u) = int_0^1 t^n cos(u t + n pi/2) dt
     (mpmath.quad), for the primitive's derivatives at every sinc argument
     with |u| <= 100.
  D  conditioning: a plain binary64 forward-mode evaluation (with a
     series-based double sinc near 0) must agree with every reference to
     relative 1e-12 (exact zeros exactly), as the corpus README requires.
"""

import math
import re
import sys

import mpmath
from mpmath import mp, mpf
from mpmath.libmp import to_float

DPS = 50
DPS_CHECK = 80

# ----------------------------------------------------------------------------
# Parser (grammar of tests/corpus/README.md, plus the function `sinc`)
# ----------------------------------------------------------------------------

UNARY = set("sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh exp "
            "log log2 log10 log1p expm1 sqrt cbrt abs erf erfc sinc".split())
BINARY = set("pow min max atan2 hypot".split())
FUNCS = UNARY | BINARY

TOKEN_RE = re.compile(r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
                      r"|(?P<id>[A-Za-z][A-Za-z0-9_]*)|(?P<op>[-+*/^(),]))")


def tokenize(s):
    toks, pos = [], 0
    s = s.rstrip()
    while pos < len(s):
        m = TOKEN_RE.match(s, pos)
        if not m:
            raise SyntaxError("bad char at %d in %r" % (pos, s))
        pos = m.end()
        if m.group("num"):
            toks.append(("num", m.group("num")))
        elif m.group("id"):
            toks.append(("id", m.group("id")))
        else:
            toks.append(("op", m.group("op")))
    toks.append(("end", None))
    return toks


class Parser:
    def __init__(self, s):
        self.t = tokenize(s)
        self.i = 0

    def peek(self):
        return self.t[self.i]

    def take(self, kind=None, val=None):
        tok = self.t[self.i]
        if (kind and tok[0] != kind) or (val and tok[1] != val):
            raise SyntaxError("expected %s %s, got %r" % (kind, val, tok))
        self.i += 1
        return tok

    def parse(self):
        e = self.expr()
        self.take("end")
        return e

    def expr(self):
        a = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            a = ("add" if op == "+" else "sub", a, self.term())
        return a

    def term(self):
        a = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            a = ("mul" if op == "*" else "div", a, self.unary())
        return a

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            return ("neg", self.unary())
        return self.power()

    def power(self):
        a = self.primary()
        if self.peek() == ("op", "^"):
            self.take()
            a = ("pow", a, self.unary())
        return a

    def primary(self):
        kind, val = self.peek()
        if kind == "num":
            self.take()
            return ("num", val)
        if kind == "id":
            self.take()
            if val == "pi":
                return ("pi",)
            if val in FUNCS:
                self.take("op", "(")
                args = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.take("op", ")")
                want = 1 if val in UNARY else 2
                if len(args) != want:
                    raise SyntaxError("%s takes %d args" % (val, want))
                return ("call", val, args)
            if val == "e":
                raise SyntaxError("identifier e is not allowed")
            return ("var", val)
        if (kind, val) == ("op", "("):
            self.take()
            a = self.expr()
            self.take("op", ")")
            return a
        raise SyntaxError("unexpected %r" % ((kind, val),))


def variables(node, out=None):
    """Variables in order of first appearance, left to right."""
    if out is None:
        out = []
    if node[0] == "var":
        if node[1] not in out:
            out.append(node[1])
    elif node[0] in ("num", "pi"):
        pass
    elif node[0] == "call":
        for a in node[2]:
            variables(a, out)
    else:
        for a in node[1:]:
            variables(a, out)
    return out


def depends(node):
    return bool(variables(node))


# ----------------------------------------------------------------------------
# sinc derivatives
# ----------------------------------------------------------------------------

def sinc_derivs_mp(u, K):
    """[sinc^(n)(u) for n = 0..K], accurate to the current precision."""
    prec_out = mp.prec
    with mp.extradps(30):
        u = mpf(u)
        res = []
        if abs(u) <= 2:
            tiny = mpf(2) ** (-(mp.prec + 20))
            for n in range(K + 1):
                s = mpf(0)
                m = (n + 1) // 2
                while True:
                    p = 2 * m - n
                    term = (-1) ** m * u ** p / (mpmath.factorial(p) * (2 * m + 1))
                    s += term
                    if term == 0 or (p > 4 and abs(term) <= tiny * abs(s)):
                        break
                    m += 1
                res.append(s)
        else:
            s, c = mpmath.sin(u), mpmath.cos(u)
            sd = [s, c, -s, -c]
            for n in range(K + 1):
                acc = mpf(0)
                for k in range(n + 1):
                    j = n - k
                    acc += (mpmath.binomial(n, k) * sd[k % 4] * (-1) ** j
                            * mpmath.factorial(j) / u ** (j + 1))
                res.append(acc)
    with mp.workprec(prec_out):
        return [+r for r in res]


def sinc_derivs_quad(u, K):
    """Method C: sinc^(n)(u) = int_0^1 t^n cos(u t + n pi/2) dt."""
    with mp.extradps(20):
        u = mpf(u)
        out = []
        # cos(ut + n pi/2) written exactly as +-cos(ut) / +-sin(ut), so that
        # tiny u keeps its relative accuracy
        trig = [lambda v: mpmath.cos(v), lambda v: -mpmath.sin(v),
                lambda v: -mpmath.cos(v), lambda v: mpmath.sin(v)]
        for n in range(K + 1):
            # quad stops on an absolute error estimate: for odd n the result
            # is O(u), so integrate t^n sin(ut)/u instead (exactly 0 at u=0)
            sc = u if (n % 2 and u != 0) else mpf(1)
            if n % 2 and u == 0:
                out.append(mpf(0))
                continue
            f = lambda t, n=n, sc=sc: t ** n * trig[n % 4](u * t) / sc
            npts = max(2, int(abs(u) / 2) + 2)
            out.append(sc * mpmath.quad(f, mpmath.linspace(0, 1, npts)))
    return [+v for v in out]


def sinc_derivs_float(u):
    """Binary64 sinc, sinc', sinc'' (method D only)."""
    if abs(u) < 1.0:
        res = []
        for n in range(3):
            s = 0.0
            for m in range(20, (n + 1) // 2 - 1, -1):   # small terms first
                p = 2 * m - n
                if p < 0:
                    continue
                s += (-1) ** m * u ** p / (math.factorial(p) * (2 * m + 1))
            res.append(s)
        return res
    f0 = math.sin(u) / u
    f1 = (math.cos(u) - f0) / u
    f2 = -f0 - 2.0 * f1 / u
    return [f0, f1, f2]


# ----------------------------------------------------------------------------
# Numeric backends
# ----------------------------------------------------------------------------

class Domain(Exception):
    pass


class MPBackend:
    name = "mp"

    def num(self, text):           # a literal is the double nearest its text
        return mpf(float(text))

    def pi(self):
        return +mpmath.pi

    def c(self, x):
        return mpf(x)

    def is_int(self, x):
        return x == mpmath.nint(x)

    sqrt = staticmethod(mpmath.sqrt)
    exp = staticmethod(mpmath.exp)
    log = staticmethod(mpmath.log)
    sin = staticmethod(mpmath.sin)
    cos = staticmethod(mpmath.cos)
    tan = staticmethod(mpmath.tan)
    asin = staticmethod(mpmath.asin)
    acos = staticmethod(mpmath.acos)
    atan = staticmethod(mpmath.atan)
    sinh = staticmethod(mpmath.sinh)
    cosh = staticmethod(mpmath.cosh)
    tanh = staticmethod(mpmath.tanh)
    asinh = staticmethod(mpmath.asinh)
    acosh = staticmethod(mpmath.acosh)
    atanh = staticmethod(mpmath.atanh)
    log1p = staticmethod(mpmath.log1p)
    expm1 = staticmethod(mpmath.expm1)
    erf = staticmethod(mpmath.erf)
    erfc = staticmethod(mpmath.erfc)
    atan2 = staticmethod(mpmath.atan2)
    hypot = staticmethod(mpmath.hypot)

    def cbrt(self, x):
        return mpmath.sign(x) * mpmath.cbrt(abs(x))

    def powr(self, a, b):
        return mpmath.power(a, b)

    def sinc012(self, u):
        return sinc_derivs_mp(u, 2)


class FloatBackend:
    name = "float"

    def num(self, text):
        return float(text)

    def pi(self):
        return math.pi

    def c(self, x):
        return float(x)

    def is_int(self, x):
        return x == math.floor(x)

    sqrt = staticmethod(math.sqrt)
    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    sin = staticmethod(math.sin)
    cos = staticmethod(math.cos)
    tan = staticmethod(math.tan)
    asin = staticmethod(math.asin)
    acos = staticmethod(math.acos)
    atan = staticmethod(math.atan)
    sinh = staticmethod(math.sinh)
    cosh = staticmethod(math.cosh)
    tanh = staticmethod(math.tanh)
    asinh = staticmethod(math.asinh)
    acosh = staticmethod(math.acosh)
    atanh = staticmethod(math.atanh)
    log1p = staticmethod(math.log1p)
    expm1 = staticmethod(math.expm1)
    erf = staticmethod(math.erf)
    erfc = staticmethod(math.erfc)
    atan2 = staticmethod(math.atan2)
    hypot = staticmethod(math.hypot)
    cbrt = staticmethod(math.cbrt)

    def powr(self, a, b):
        return a ** b

    def sinc012(self, u):
        return sinc_derivs_float(u)


def unary_local(name, u, B):
    """(f, f', f'') at u; u is assumed inside the domain (checked by caller)."""
    c = B.c
    if name == "sin":
        s, co = B.sin(u), B.cos(u)
        return s, co, -s
    if name == "cos":
        s, co = B.sin(u), B.cos(u)
        return co, -s, -co
    if name == "tan":
        t = B.tan(u)
        s2 = 1 + t * t
        return t, s2, 2 * t * s2
    if name == "asin":
        r = B.sqrt(1 - u * u)
        return B.asin(u), 1 / r, u / (r * r * r)
    if name == "acos":
        r = B.sqrt(1 - u * u)
        return B.acos(u), -1 / r, -u / (r * r * r)
    if name == "atan":
        d = 1 + u * u
        return B.atan(u), 1 / d, -2 * u / (d * d)
    if name == "sinh":
        return B.sinh(u), B.cosh(u), B.sinh(u)
    if name == "cosh":
        return B.cosh(u), B.sinh(u), B.cosh(u)
    if name == "tanh":
        t = B.tanh(u)
        d = 1 - t * t
        return t, d, -2 * t * d
    if name == "asinh":
        r = B.sqrt(1 + u * u)
        return B.asinh(u), 1 / r, -u / (r * r * r)
    if name == "acosh":
        r = B.sqrt(u * u - 1)
        return B.acosh(u), 1 / r, -u / (r * r * r)
    if name == "atanh":
        d = 1 - u * u
        return B.atanh(u), 1 / d, 2 * u / (d * d)
    if name == "exp":
        e = B.exp(u)
        return e, e, e
    if name == "expm1":
        e = B.exp(u)
        return B.expm1(u), e, e
    if name == "log":
        return B.log(u), 1 / u, -1 / (u * u)
    if name == "log2":
        l2 = B.log(c(2))
        return B.log(u) / l2, 1 / (u * l2), -1 / (u * u * l2)
    if name == "log10":
        l10 = B.log(c(10))
        return B.log(u) / l10, 1 / (u * l10), -1 / (u * u * l10)
    if name == "log1p":
        return B.log1p(u), 1 / (1 + u), -1 / ((1 + u) * (1 + u))
    if name == "sqrt":
        s = B.sqrt(u)
        return s, 1 / (2 * s), -1 / (4 * u * s)
    if name == "cbrt":
        r = B.cbrt(u)
        return r, 1 / (3 * r * r), -2 / (9 * r ** 5)
    if name == "abs":
        return abs(u), (c(1) if u > 0 else c(-1)), c(0)
    if name == "erf":
        d = 2 / B.sqrt(B.pi()) * B.exp(-u * u)
        return B.erf(u), d, -2 * u * d
    if name == "erfc":
        d = 2 / B.sqrt(B.pi()) * B.exp(-u * u)
        return B.erfc(u), -d, 2 * u * d
    if name == "sinc":
        return tuple(B.sinc012(u))
    raise ValueError(name)


# ----------------------------------------------------------------------------
# Method A: second-order multivariate jets with the edge policies
# ----------------------------------------------------------------------------

class Jet:
    __slots__ = ("v", "g", "H")

    def __init__(self, v, g, H):
        self.v, self.g, self.H = v, g, H


class Outcome:
    def __init__(self):
        self.nondiff = False
        self.margin = []          # corpus conditioning rule violations
        self.sinc_args = []       # every argument sinc was evaluated at


class JetEval:
    """policy: None (plain, every singular/kink point is an error),
    'strict' or 'zero-subgrad' (README rules 1-6)."""

    def __init__(self, B, point, names, policy=None):
        self.B, self.point, self.names, self.policy = B, point, names, policy
        self.n = len(names)
        self.out = Outcome()

    def zero(self):
        z = self.B.c(0)
        return [z] * self.n, [[z] * self.n for _ in range(self.n)]

    def const(self, v):
        g, H = self.zero()
        return Jet(v, g, H)

    def note(self, msg):
        self.out.margin.append(msg)

    def check_mag(self, v):
        if abs(v) > 1e8:
            self.note("intermediate |%s| > 1e8" % mpmath.nstr(v, 5))

    def special(self, kind, what):
        """kind 'singular' or 'kink' of an operation whose operand depends on
        a variable.  Returns True if the local derivative is to be zeroed."""
        if self.policy is None:
            raise Domain("%s %s outside the plain-row domain" % (kind, what))
        if self.policy == "strict":
            if kind == "singular":
                raise Domain("singular derivative: " + what)
            self.out.nondiff = True
            return True          # value goes on; derivatives are not used
        return True              # zero-subgrad

    def un(self, a, f0, f1, f2):
        n = self.n
        g = [f1 * a.g[i] for i in range(n)]
        H = [[f1 * a.H[i][j] + f2 * a.g[i] * a.g[j] for j in range(n)] for i in range(n)]
        return Jet(f0, g, H)

    def bi(self, a, b, f, fa, fb, faa, fab, fbb):
        n = self.n
        g = [fa * a.g[i] + fb * b.g[i] for i in range(n)]
        H = [[fa * a.H[i][j] + fb * b.H[i][j] + faa * a.g[i] * a.g[j]
              + fab * (a.g[i] * b.g[j] + b.g[i] * a.g[j]) + fbb * b.g[i] * b.g[j]
              for j in range(n)] for i in range(n)]
        return Jet(f, g, H)

    def ev(self, node):
        B = self.B
        k = node[0]
        if k == "num":
            return self.const(B.num(node[1]))
        if k == "pi":
            return self.const(B.pi())
        if k == "var":
            i = self.names.index(node[1])
            g, H = self.zero()
            g[i] = B.c(1)
            v = self.point[i]
            self.check_mag(v)
            return Jet(v, g, H)
        if k == "neg":
            a = self.ev(node[1])
            return self.un(a, -a.v, B.c(-1), B.c(0))
        if k in ("add", "sub", "mul", "div", "pow"):
            a, b = self.ev(node[1]), self.ev(node[2])
            r = self.binop(k, a, b, node[1], node[2])
        elif k == "call":
            if node[1] in UNARY:
                a = self.ev(node[2][0])
                r = self.unop(node[1], a, node[2][0])
            else:
                a, b = self.ev(node[2][0]), self.ev(node[2][1])
                r = self.binop(node[1], a, b, node[2][0], node[2][1])
        else:
            raise ValueError(k)
        self.check_mag(r.v)
        return r

    def unop(self, name, a, an):
        B, u = self.B, a.v
        dep = depends(an)
        zero_local = False
        M = 0.01
        if name in ("log", "log2", "log10"):
            if u <= 0:
                raise Domain(name)
            if u < M:
                self.note("%s arg < 0.01" % name)
        elif name == "log1p":
            if u <= -1:
                raise Domain(name)
            if u < -0.99:
                self.note("log1p arg < -0.99")
        elif name == "sqrt":
            if u < 0:
                raise Domain(name)
            if u == 0 and dep:
                zero_local = self.special("singular", "sqrt(0)")
                if zero_local:
                    return self.const(B.c(0))
            elif u < M:
                self.note("sqrt arg < 0.01")
        elif name == "cbrt":
            if u == 0 and dep:
                self.special("singular", "cbrt(0)")
                return self.const(B.c(0))
            if abs(u) < M:
                self.note("|cbrt arg| < 0.01")
        elif name in ("asin", "acos"):
            if abs(u) > 1:
                raise Domain(name)
            if abs(u) == 1 and dep:
                self.special("singular", name + "(+-1)")
                return self.const(B.asin(u) if name == "asin" else B.acos(u))
            if abs(u) > 0.99:
                self.note("|%s arg| > 0.99" % name)
        elif name == "atanh":
            if abs(u) >= 1:
                raise Domain(name)
            if abs(u) > 0.99:
                self.note("|atanh arg| > 0.99")
        elif name == "acosh":
            if u < 1:
                raise Domain(name)
            if u == 1 and dep:
                self.special("singular", "acosh(1)")
                return self.const(B.c(0))
            if u < 1.01:
                self.note("acosh arg < 1.01")
        elif name == "abs":
            if u == 0 and dep:
                self.special("kink", "abs(0)")
                return self.const(B.c(0))
            if abs(u) < M:
                self.note("|abs arg| < 0.01")
        elif name == "tan":
            if abs(B.cos(u)) < M:
                self.note("|cos| < 0.01 under tan")
        if name == "sinc":
            self.out.sinc_args.append(u)
        f0, f1, f2 = unary_local(name, u, B)
        return self.un(a, f0, f1, f2)

    def binop(self, k, a, b, an, bn):
        B = self.B
        x, y = a.v, b.v
        z, one = B.c(0), B.c(1)
        M = 0.01
        if k == "add":
            return self.bi(a, b, x + y, one, one, z, z, z)
        if k == "sub":
            return self.bi(a, b, x - y, one, -one, z, z, z)
        if k == "mul":
            return self.bi(a, b, x * y, y, x, z, one, z)
        if k == "div":
            if y == 0:
                raise Domain("division by zero")
            if abs(y) < M:
                self.note("|divisor| < 0.01")
            return self.bi(a, b, x / y, 1 / y, -x / (y * y), z, -1 / (y * y),
                           2 * x / (y * y * y))
        if k == "pow":
            return self.power(a, b, an, bn)
        if k in ("min", "max"):
            depa, depb = depends(an), depends(bn)
            if x == y and (depa or depb):
                self.special("kink", k + " tie")
                return self.const(x)
            if abs(x - y) < M * max(1, abs(x), abs(y)):
                self.note("%s operands close" % k)
            pick_a = (x < y) if k == "min" else (x > y)
            if pick_a:
                return self.bi(a, b, x, one, z, z, z, z)
            return self.bi(a, b, y, z, one, z, z, z)
        if k == "hypot":
            h = B.hypot(x, y)
            if h == 0 and (depends(an) or depends(bn)):
                self.special("kink", "hypot(0,0)")
                return self.const(z)
            if h < M:
                self.note("hypot near origin")
            h3 = h * h * h
            return self.bi(a, b, h, x / h, y / h, y * y / h3, -x * y / h3, x * x / h3)
        if k == "atan2":
            # atan2(y_arg, x_arg): here a is the first argument (y), b the second (x)
            yy, xx = x, y
            if yy == 0 and xx == 0:
                raise Domain("atan2(0,0)")
            r2 = xx * xx + yy * yy
            ang = B.atan2(yy, xx)
            if B.sqrt(r2) < M or abs(ang) > B.pi() - M:
                self.note("atan2 near origin/branch cut")
            r4 = r2 * r2
            return self.bi(a, b, ang, xx / r2, -yy / r2,
                           -2 * xx * yy / r4, (yy * yy - xx * xx) / r4, 2 * xx * yy / r4)
        raise ValueError(k)

    def power(self, a, b, an, bn):
        B = self.B
        x, y = a.v, b.v
        z, one = B.c(0), B.c(1)
        depa, depb = depends(an), depends(bn)
        if x > 0:
            const_int = (not depb) and B.is_int(y)
            if x < 0.01 and (not const_int or y <= 0):
                self.note("pow base < 0.01")
            f = B.powr(x, y)
            L = B.log(x)
            return self.bi(a, b, f, y * B.powr(x, y - 1), f * L,
                           y * (y - 1) * B.powr(x, y - 2),
                           B.powr(x, y - 1) * (1 + y * L), f * L * L)
        if x < 0:
            if not B.is_int(y):
                raise Domain("negative base, non-integer exponent")
            if depb:
                raise ValueError("d/d(exponent) of a negative base is unspecified")
            if y <= 0 and x > -0.01:
                self.note("pow |base| < 0.01")
            f = B.powr(x, y)
            return self.bi(a, b, f, y * B.powr(x, y - 1), z,
                           y * (y - 1) * B.powr(x, y - 2), z, z)
        # x == 0
        if y < 0:
            raise Domain("0^negative")
        if y == 0:
            if depa or depb:
                self.special("singular", "0^0")
                return self.const(one)
            return self.const(one)
        if y < 1:
            if depa:
                self.special("singular", "0^b, 0<b<1")
                return self.const(z)
            return self.const(z)
        fa = one if y == 1 else z
        faa = B.c(2) if y == 2 else z
        if 1 < y < 2 and depa:
            faa = None
        if faa is None:
            raise ValueError("second derivative of 0^b, 1<b<2 not needed")
        return self.bi(a, b, z, fa, z, faa, z, z)


def jet_eval(expr, point, names, B, policy=None):
    ev = JetEval(B, point, names, policy)
    r = ev.ev(Parser(expr).parse())
    return r, ev.out


# ----------------------------------------------------------------------------
# Method B: plain mpmath evaluation (mpmath.sinc) + mpmath.diff
# ----------------------------------------------------------------------------

def plain_eval(node, env):
    k = node[0]
    if k == "num":
        return mpf(float(node[1]))
    if k == "pi":
        return +mpmath.pi
    if k == "var":
        return env[node[1]]
    if k == "neg":
        return -plain_eval(node[1], env)
    if k == "call":
        args = [plain_eval(a, env) for a in node[2]]
        name = node[1]
        if name == "sinc":
            return mpmath.sinc(args[0])
        if name == "cbrt":
            return mpmath.sign(args[0]) * mpmath.cbrt(abs(args[0]))
        if name == "log2":
            return mpmath.log(args[0], 2)
        if name == "abs":
            return abs(args[0])
        if name == "pow":
            return mpmath.power(*args)
        if name == "min":
            return min(args)
        if name == "max":
            return max(args)
        return getattr(mpmath, name)(*args)
    a, b = plain_eval(node[1], env), plain_eval(node[2], env)
    if k == "add":
        return a + b
    if k == "sub":
        return a - b
    if k == "mul":
        return a * b
    if k == "div":
        return a / b
    if k == "pow":
        return mpmath.power(a, b)
    raise ValueError(k)


def diff_dps(coords):
    """Working dps for mpmath.diff: the absolute step is ~2^-(prec+10), so
    tiny coordinates need the precision raised to resolve them."""
    small = [abs(c) for c in coords if c != 0]
    extra = 0
    if small:
        extra = max(0, int(-math.log10(min(small))) * 2)
    return mp.dps + 10 + extra


def method_b(expr, coords, names, seed=None, hessian=False):
    tree = Parser(expr).parse()
    n = len(names)
    with mp.workdps(diff_dps(coords)):
        X = [mpf(c) for c in coords]

        def f(*args):
            return plain_eval(tree, dict(zip(names, args)))

        val = f(*X)
        grad = []
        for i in range(n):
            o = [0] * n
            o[i] = 1
            grad.append(mpmath.diff(f, X, tuple(o)))
        H = None
        if hessian:
            H = [[None] * n for _ in range(n)]
            for i in range(n):
                for j in range(i, n):
                    o = [0] * n
                    o[i] += 1
                    o[j] += 1
                    H[i][j] = H[j][i] = mpmath.diff(f, X, tuple(o))
        jvp = None
        if seed is not None:
            S = [mpf(s) for s in seed]
            jvp = mpmath.diff(lambda t: f(*[X[i] + t * S[i] for i in range(n)]), 0)
        return val, grad, H, jvp


# ----------------------------------------------------------------------------
# Method A for taylor.tsv: univariate truncated Taylor series
# ----------------------------------------------------------------------------

def ts_mul(a, b):
    K = len(a) - 1
    return [sum(a[i] * b[k - i] for i in range(k + 1)) for k in range(K + 1)]


def ts_div(a, b):
    K = len(a) - 1
    q = []
    for k in range(K + 1):
        q.append((a[k] - sum(q[i] * b[k - i] for i in range(k))) / b[0])
    return q


def ts_compose(derivs, u):
    """f(u(t)) given derivs[k] = f^(k)(u0), series u."""
    K = len(u) - 1
    d = [mpf(0)] + list(u[1:])
    out = [derivs[0]] + [mpf(0)] * K
    p = [mpf(1)] + [mpf(0)] * K
    for k in range(1, K + 1):
        p = ts_mul(p, d)
        coef = derivs[k] / mpmath.factorial(k)
        out = [out[i] + coef * p[i] for i in range(K + 1)]
    return out


def ts_eval(node, x0, K, sinc_args):
    k = node[0]
    if k == "num":
        return [mpf(float(node[1]))] + [mpf(0)] * K
    if k == "pi":
        return [+mpmath.pi] + [mpf(0)] * K
    if k == "var":
        return [mpf(x0), mpf(1)] + [mpf(0)] * (K - 1)
    if k == "neg":
        return [-c for c in ts_eval(node[1], x0, K, sinc_args)]
    if k == "call":
        name = node[1]
        if name not in ("sinc", "sin", "cos", "exp", "log"):
            raise ValueError("taylor: %s not supported" % name)
        u = ts_eval(node[2][0], x0, K, sinc_args)
        u0 = u[0]
        if name == "sinc":
            sinc_args.append(u0)
            dv = sinc_derivs_mp(u0, K)
        elif name == "sin":
            dv = [mpmath.sin(u0 + j * mpmath.pi / 2) for j in range(K + 1)]
        elif name == "cos":
            dv = [mpmath.cos(u0 + j * mpmath.pi / 2) for j in range(K + 1)]
        elif name == "exp":
            dv = [mpmath.exp(u0)] * (K + 1)
        else:
            dv = [mpmath.log(u0)] + [(-1) ** (j - 1) * mpmath.factorial(j - 1) / u0 ** j
                                     for j in range(1, K + 1)]
        return ts_compose(dv, u)
    a = ts_eval(node[1], x0, K, sinc_args)
    b = ts_eval(node[2], x0, K, sinc_args)
    if k == "add":
        return [p + q for p, q in zip(a, b)]
    if k == "sub":
        return [p - q for p, q in zip(a, b)]
    if k == "mul":
        return ts_mul(a, b)
    if k == "div":
        return ts_div(a, b)
    if k == "pow":
        if any(c != 0 for c in b[1:]) or b[0] != mpmath.nint(b[0]) or b[0] < 0:
            raise ValueError("taylor: only constant non-negative integer powers")
        p = int(b[0])
        r = [mpf(1)] + [mpf(0)] * K
        for _ in range(p):
            r = ts_mul(r, a)
        return r
    raise ValueError(k)


def taylor_A(expr, x0, K, sinc_args=None):
    c = ts_eval(Parser(expr).parse(), x0, K, sinc_args if sinc_args is not None else [])
    return [c[k] * mpmath.factorial(k) for k in range(1, K + 1)]


def taylor_B(expr, x0, K):
    tree = Parser(expr).parse()
    name = variables(tree)[0]
    f = lambda t: plain_eval(tree, {name: t})
    with mp.workdps(diff_dps([x0])):
        ds = [mpmath.diff(f, mpf(x0), k) for k in range(1, K + 1)]
    return [+d for d in ds]


# ----------------------------------------------------------------------------
# Formatting helpers
# ----------------------------------------------------------------------------

def rnd(x):
    """Round an mpf once to the nearest double."""
    return to_float(mpf(x)._mpf_, rnd="n")


def g17(x):
    d = rnd(x) if not isinstance(x, float) else x
    if d == 0:
        d = 0.0                      # never print -0
    return "%.17g" % d


def fmt_point(names, coords_text):
    return ",".join("%s=%s" % (n, t) for n, t in zip(names, coords_text))


def shortest(x):
    return repr(float(x))


def snap(a50, a80, where, notes):
    """The exact value 0 (e.g. sin(pi)/pi) comes out as rounding noise at
    finite precision; the noise shrinks with precision, a true value does
    not.  Snap to 0 when dps 50 and dps 80 disagree and both are noise."""
    if a50 != 0 and abs(a50) < mpf(10) ** -40 and abs(a80) < mpf(10) ** -70 \
            and rel_err(a50, a80) > 1e-10:
        notes.append("%s: %s (dps 50) / %s (dps 80) is exactly 0" % (
            where, mpmath.nstr(a50, 3), mpmath.nstr(a80, 3)))
        return mpf(0)
    return a50


def rel_err(a, b):
    a, b = mpf(a), mpf(b)
    if a == b:
        return mpf(0)
    return abs(a - b) / max(abs(a), abs(b))


# ----------------------------------------------------------------------------
# The cases
# ----------------------------------------------------------------------------
# A point is a list of (name, value); values are Python floats and are
# written with repr() (shortest round-trip).  Names must be in order of
# first appearance (asserted).

PI = 3.141592653589793   # the double nearest pi

GRAD_CASES = [
    ("sinc(x)", [("x", 0.0)]),
    ("sinc(x)", [("x", 1e-300)]),
    ("sinc(x)", [("x", -1e-300)]),
    ("sinc(x)", [("x", 1e-08)]),
    ("sinc(x)", [("x", -1e-08)]),
    ("sinc(x)", [("x", 0.0001)]),
    ("sinc(x)", [("x", -0.0001)]),
    ("sinc(x)", [("x", 0.1)]),
    ("sinc(x)", [("x", -0.1)]),
    ("sinc(x)", [("x", 1.0)]),
    ("sinc(x)", [("x", -1.0)]),
    ("sinc(x)", [("x", PI)]),
    ("sinc(x)", [("x", -PI)]),
    ("sinc(x)", [("x", 3.5)]),
    ("sinc(x)", [("x", -3.5)]),
    ("sinc(x)", [("x", 100.0)]),
    ("sinc(x)", [("x", -100.0)]),
    ("sinc(x)", [("x", 1e6)]),
    ("sinc(x)", [("x", -1e6)]),
    ("sinc(x)", [("x", 1e15)]),
    ("sinc(x)", [("x", -1e15)]),
    ("sinc(t)", [("t", 2 * PI)]),
    ("sinc(x*y)", [("x", 0.0), ("y", 2.5)]),
    ("sinc(x * y)", [("x", 0.5), ("y", -1.75)]),
    ("sinc(x-1)", [("x", 1.0)]),
    ("sinc(sqrt(x))", [("x", 2.25)]),
    ("sinc(sqrt(w))", [("w", 0.0625)]),
    ("sinc(pi*t)", [("t", 0.25)]),
    ("exp(sinc(x))", [("x", -0.7)]),
    ("log(2 + sinc(u))", [("u", 4.25)]),
    ("(sinc(x) * sinc(y)) * sinc(z)", [("x", 0.0), ("y", 1e-08), ("z", -3.5)]),
    ("sinc(log(x))", [("x", 1.0)]),
    ("sinc(sin(x))", [("x", 0.0)]),
    ("sinc(x - y)", [("x", 0.7), ("y", 0.7)]),
    ("hypot(sinc(x), y)", [("x", 2.0), ("y", -0.5)]),
    ("atan(sinc(a*b)*3)", [("a", 1.5), ("b", -0.8)]),
    ("tanh(sinc(x) - y)", [("x", 0.0001), ("y", 0.25)]),
    ("sinc(x^2)+cos(y)", [("x", 1.1), ("y", 0.3)]),
    ("sinc(1 / x)", [("x", 0.25)]),
    ("(sinc(x / y) + z)^2", [("x", 0.3), ("y", -1.2), ("z", 0.5)]),
    ("sinc(sinc(x))", [("x", -2.0)]),
    ("sinc(x) + y", [("x", 1e15), ("y", 0.5)]),
    ("2^sinc(x)", [("x", -1e-08)]),
    ("sinc(hypot(x, y))", [("x", 3.0), ("y", 4.0)]),
    ("sinc(atan2(y, x))", [("y", 1.0), ("x", -0.5)]),
    ("sinc(100*x)", [("x", 0.035)]),
    ("sinc(x)^3-x*sinc(y)", [("x", 0.1), ("y", -100.0)]),
    ("sinc(exp(x)) * sqrt(y)", [("x", 0.5), ("y", 2.0)]),
    ("sinc(expm1(v))", [("v", -0.0001)]),
    ("x*sinc(x)+sin(x)", [("x", 1e-4)]),
]

HESS_CASES = [
    ("sinc(x)", [("x", 0.0)]),
    ("sinc(x)", [("x", 1e-300)]),
    ("sinc(x)", [("x", -1e-08)]),
    ("sinc(x)", [("x", 0.0001)]),
    ("sinc(x)", [("x", -0.1)]),
    ("sinc(x)", [("x", 1.0)]),
    ("sinc(x)", [("x", 3.5)]),
    ("sinc(x)", [("x", -100.0)]),
    ("sinc(x)", [("x", PI)]),
    ("sinc(x*y)", [("x", 0.0), ("y", 2.0)]),
    ("sinc(x) * sinc(y)", [("x", 1e-08), ("y", -1.5)]),
    ("sinc(hypot(x, y))", [("x", 0.6), ("y", -0.8)]),
    ("exp(sinc(x))", [("x", 0.0)]),
    ("sinc(x-y)", [("x", 1.25), ("y", 1.25)]),
    ("sinc(sqrt(x))", [("x", 0.25)]),
    ("sinc(x)^2", [("x", -2.0)]),
    ("sinc((x + y) + z)", [("x", 0.5), ("y", -0.25), ("z", 0.0001)]),
    ("atan(sinc(x)*y)", [("x", 0.0), ("y", 2.0)]),
    ("sinc(x / y)", [("x", 0.0), ("y", 2.0)]),
    ("log(2 + sinc(x))", [("x", -0.0001)]),
    ("sinc(sin(x)) + z*sinc(z)", [("x", 0.0), ("z", 0.3)]),
    ("((sinc(x) * cos(y)) + w)", [("x", -0.3), ("y", 0.8), ("w", 1.5)]),
]

JVP_CASES = [
    ("sinc(x)", [("x", 0.0)], [1.0]),
    ("sinc(x)", [("x", 1e-08)], [-2.0]),
    ("sinc(x*y)", [("x", 0.0), ("y", 3.0)], [1.0, 0.5]),
    ("sinc(x) + sinc(y)", [("x", 0.1), ("y", -0.1)], [1.0, 0.5]),
    ("sinc(x - y)", [("x", 2.0), ("y", 2.0)], [0.25, -1.0]),
    ("exp(sinc(x)) * y", [("x", -0.5), ("y", 1.5)], [1.0, -0.5]),
    ("sinc(hypot(x,y))", [("x", 3.0), ("y", -4.0)], [-1.0, 0.75]),
    ("sinc(x)*sinc(y)*sinc(z)", [("x", 0.0001), ("y", 1.0), ("z", -3.5)], [1.0, 0.5, -1.0]),
    ("sinc(sqrt(x))", [("x", 4.0)], [1.0]),
    ("sinc(100 * x)", [("x", 0.0)], [1.0]),
    ("tanh(sinc(x) + y)", [("x", -1.0), ("y", 0.3)], [2.0, -1.0]),
    ("sinc(x)", [("x", 1e6)], [1.0]),
    ("sinc(pi * x)", [("x", 0.5)], [-1.0]),
    ("sinc(log(x))", [("x", 1.0)], [3.0]),
    ("(sinc(x / y) + z)", [("x", 1.5), ("y", -0.5), ("z", 0.2)], [1.0, 1.0, 1.0]),
    ("sinc(x)^2+sinc(y)^2", [("x", 1e-300), ("y", -1e-08)], [1.0, 1.0]),
]

# (expr, point, expected class under strict, under zero-subgrad) - the
# classes are written by hand from README rules 1-6 and asserted against
# the policy evaluator.
EDGE_CASES = [
    ("sinc(x)", [("x", 0.0)], "ok", "ok"),
    ("sinc(x)", [("x", -0.0)], "ok", "ok"),
    ("sinc(x)", [("x", 1e-300)], "ok", "ok"),
    ("sinc(x)", [("x", PI)], "ok", "ok"),
    ("sinc(x - y)", [("x", 2.5), ("y", 2.5)], "ok", "ok"),
    ("sinc(0)", [], "ok", "ok"),
    ("sinc(pi)", [], "ok", "ok"),
    ("sinc(abs(x))", [("x", 0.0)], "nondiff", "ok"),
    ("sinc(x) * abs(x)", [("x", 0.0)], "nondiff", "ok"),
    ("sinc(x - y) * abs(x - y)", [("x", 0.75), ("y", 0.75)], "nondiff", "ok"),
    ("sinc(max(x, y))", [("x", 1.5), ("y", 1.5)], "nondiff", "ok"),
    ("sinc(hypot(x, y))", [("x", 0.0), ("y", 0.0)], "nondiff", "ok"),
    ("sinc(log(x))", [("x", 0.0)], "domain", "domain"),
    ("sinc(x) + log(x - 1)", [("x", 1.0)], "domain", "domain"),
    ("sinc(1 / x)", [("x", 0.0)], "domain", "domain"),
    ("sinc(x / y)", [("x", 0.0), ("y", 0.0)], "domain", "domain"),
    ("sinc(sqrt(x))", [("x", 0.0)], "domain", "ok"),
    ("sinc(x^0.5) + y", [("x", 0.0), ("y", 2.0)], "domain", "ok"),
    ("sinc(asin(x))", [("x", 1.0)], "domain", "ok"),
    ("abs(x) * sinc(x) + sqrt(x - 1)", [("x", 0.0)], "domain", "domain"),
]

TAYLOR_CASES = [
    ("sinc(x)", 0.0, 12),
    ("sinc(x)", 1e-08, 10),
    ("sinc(x)", 0.5, 8),
    ("sinc(x)", 1.0, 12),
    ("sinc(x)", 2.5, 6),
    ("sinc(x)", -3.0, 8),
    ("sinc(x)", 10.0, 5),
    ("sinc(x)", 100.0, 4),
    ("sinc(2*x)", 0.3, 6),
    ("exp(sinc(x))", 0.7, 6),
    ("sinc(x)^2", 1.2, 5),
    ("sinc(sin(x))", 0.4, 8),
]

HEADERS = {
    "grad": ("# adcalc reference corpus: value and gradient. Format and semantics: README.md.",
             "id\texpr\tat\tvalue\tgrad"),
    "hessian": ("# adcalc reference corpus: value, gradient and Hessian. Format and semantics: README.md.",
                "id\texpr\tat\tvalue\tgrad\thessian"),
    "jvp": ("# adcalc reference corpus: directional derivatives. Format and semantics: README.md.",
            "id\texpr\tat\tseed\tvalue\tjvp"),
    "edge": ("# adcalc reference corpus: edge cases and outcome classes. Format and semantics: README.md.",
             "id\texpr\tat\tpolicy\texpect\tvalue\tgrad"),
    "taylor": ("# adcalc reference corpus: Taylor derivatives f'(x) .. f^(K)(x) (not divided by k!). "
               "Format: README.md; derivs are %.17g, space-separated.",
               "id\texpr\tat\tK\tderivs"),
}


# ----------------------------------------------------------------------------
# Generation + self-checks
# ----------------------------------------------------------------------------

class Checks:
    def __init__(self):
        self.worst = {}           # label -> (rel, where)
        self.compared = {}        # label -> number of numbers compared
        self.failures = []
        self.notes = []

    def rel(self, label, a, b, where, tol, floor=0):
        r = rel_err(a, b)
        if floor and r:
            r = abs(mpf(a) - mpf(b)) / max(abs(mpf(a)), abs(mpf(b)), floor)
        if label not in self.worst or r > self.worst[label][0]:
            self.worst[label] = (r, where)
        if not (floor and min(abs(mpf(a)), abs(mpf(b))) < floor) and rnd(a) != rnd(b):
            self.failures.append("%s %s: rounds to different doubles %r vs %r" % (
                label, where, rnd(a), rnd(b)))
        self.compared[label] = self.compared.get(label, 0) + 1
        if r > tol:
            self.failures.append("%s %s: %s vs %s (rel %s)" % (
                label, where, mpmath.nstr(a, 20), mpmath.nstr(b, 20), mpmath.nstr(r, 3)))

    def same_double(self, label, a, b, where):
        self.compared[label] = self.compared.get(label, 0) + 1
        if rnd(a) != rnd(b):
            self.failures.append("%s %s: rounds differently %r vs %r" % (label, where, rnd(a), rnd(b)))
        self.worst.setdefault(label, (mpf(0), ""))

    def double_cond(self, where, ref, got):
        """Method D: binary64 evaluation vs reference (README conditioning)."""
        ref = rnd(ref)
        lab = "D binary64 vs reference"
        if ref == 0:
            self.compared[lab] = self.compared.get(lab, 0) + 1
            if got != 0:
                self.failures.append("%s %s: ref 0, binary64 gives %r" % (lab, where, got))
            return
        self.compared[lab] = self.compared.get(lab, 0) + 1
        r = abs(got - ref) / abs(ref)
        if lab not in self.worst or r > self.worst[lab][0]:
            self.worst[lab] = (mpf(r), where)
        if r > 1e-12:
            self.failures.append("%s %s: %r vs %r rel %.3g" % (lab, where, got, ref, r))


def check_sinc_args(chk, args, where, K=2):
    for u in args:
        if abs(u) > 100:
            continue
        a = sinc_derivs_mp(u, K)
        c = sinc_derivs_quad(u, K)
        for n in range(K + 1):
            if a[n] == 0 and abs(c[n]) < mpf(10) ** (-DPS + 5):
                continue
            chk.rel("C sinc^(n)(u): series/Leibniz vs quad", a[n], c[n],
                    "%s u=%s n=%d" % (where, mpmath.nstr(u, 8), n), mpf(10) ** -40)


def compute_jet(expr, names, coords, policy=None, dps=DPS):
    with mp.workdps(dps):
        X = [mpf(c) for c in coords]
        r, out = jet_eval(expr, X, names, MPBackend(), policy)
        return r, out


def names_of(expr, pt):
    names = variables(Parser(expr).parse())
    given = [n for n, _ in pt]
    assert names == given, (expr, names, given)
    return names


def build(chk):
    files = {}
    fp = FloatBackend()

    # ---------------- grad ----------------
    rows = []
    for idx, (expr, pt) in enumerate(GRAD_CASES):
        rid = "g%04d" % (2001 + idx)
        names = names_of(expr, pt)
        coords = [v for _, v in pt]
        r, out = compute_jet(expr, names, coords)
        r80, _ = compute_jet(expr, names, coords, dps=DPS_CHECK)
        with mp.workdps(DPS):
            vb, gb, _, _ = method_b(expr, coords, names)
            nums = [r.v] + r.g
            for j, (a, b) in enumerate(zip(nums, [vb] + gb)):
                chk.rel("B grad: jets vs mpmath.diff", a, b, "%s[%d]" % (rid, j), mpf(10) ** -40)
            for j, (a, b) in enumerate(zip(nums, [r80.v] + r80.g)):
                chk.same_double("A dps50 vs dps80", a, b, "%s[%d]" % (rid, j))
            check_sinc_args(chk, out.sinc_args, rid)
        rd, _ = jet_eval(expr, coords, names, fp)
        for j, (a, b) in enumerate(zip(nums, [rd.v] + rd.g)):
            chk.double_cond("%s[%d]" % (rid, j), a, b)
        for m in sorted(set(out.margin)):
            chk.notes.append("%s %s @ %s: %s" % (rid, expr, coords, m))
        rows.append("\t".join([rid, expr, fmt_point(names, map(shortest, coords)),
                               g17(r.v), " ".join(g17(v) for v in r.g)]))
    files["grad"] = rows

    # ---------------- hessian ----------------
    rows = []
    for idx, (expr, pt) in enumerate(HESS_CASES):
        rid = "h%04d" % (301 + idx)
        names = names_of(expr, pt)
        coords = [v for _, v in pt]
        n = len(names)
        r, out = compute_jet(expr, names, coords)
        r80, _ = compute_jet(expr, names, coords, dps=DPS_CHECK)
        flatH = [r.H[i][j] for i in range(n) for j in range(n)]
        flatH80 = [r80.H[i][j] for i in range(n) for j in range(n)]
        with mp.workdps(DPS):
            vb, gb, Hb, _ = method_b(expr, coords, names, hessian=True)
            nums = [r.v] + r.g + flatH
            bnums = [vb] + gb + [Hb[i][j] for i in range(n) for j in range(n)]
            for j, (a, b) in enumerate(zip(nums, bnums)):
                chk.rel("B hessian: jets vs mpmath.diff", a, b, "%s[%d]" % (rid, j), mpf(10) ** -40)
            for j, (a, b) in enumerate(zip(nums, [r80.v] + r80.g + flatH80)):
                chk.same_double("A dps50 vs dps80", a, b, "%s[%d]" % (rid, j))
            for i in range(n):
                for j in range(n):
                    assert r.H[i][j] == r.H[j][i]
            check_sinc_args(chk, out.sinc_args, rid)
        rd, _ = jet_eval(expr, coords, names, fp)
        dn = [rd.v] + rd.g + [rd.H[i][j] for i in range(n) for j in range(n)]
        for j, (a, b) in enumerate(zip(nums, dn)):
            chk.double_cond("%s[%d]" % (rid, j), a, b)
        for m in sorted(set(out.margin)):
            chk.notes.append("%s %s @ %s: %s" % (rid, expr, coords, m))
        rows.append("\t".join([rid, expr, fmt_point(names, map(shortest, coords)),
                               g17(r.v), " ".join(g17(v) for v in r.g),
                               " ".join(g17(v) for v in flatH)]))
    files["hessian"] = rows

    # ---------------- jvp ----------------
    rows = []
    for idx, (expr, pt, seed) in enumerate(JVP_CASES):
        rid = "j%04d" % (301 + idx)
        names = names_of(expr, pt)
        coords = [v for _, v in pt]
        r, out = compute_jet(expr, names, coords)
        r80, _ = compute_jet(expr, names, coords, dps=DPS_CHECK)
        with mp.workdps(DPS):
            jv = mpmath.fsum(r.g[i] * mpf(seed[i]) for i in range(len(names)))
        with mp.workdps(DPS_CHECK):
            jv80 = mpmath.fsum(r80.g[i] * mpf(seed[i]) for i in range(len(names)))
        with mp.workdps(DPS):
            vb, _, _, jb = method_b(expr, coords, names, seed=seed)
            chk.rel("B jvp: jets vs mpmath.diff d/dt", r.v, vb, rid + "[value]", mpf(10) ** -40)
            chk.rel("B jvp: jets vs mpmath.diff d/dt", jv, jb, rid + "[jvp]", mpf(10) ** -40)
            chk.same_double("A dps50 vs dps80", r.v, r80.v, rid + "[value]")
            chk.same_double("A dps50 vs dps80", jv, jv80, rid + "[jvp]")
            check_sinc_args(chk, out.sinc_args, rid)
        rd, _ = jet_eval(expr, coords, names, fp)
        chk.double_cond(rid + "[value]", r.v, rd.v)
        chk.double_cond(rid + "[jvp]", jv, sum(rd.g[i] * seed[i] for i in range(len(names))))
        for m in sorted(set(out.margin)):
            chk.notes.append("%s %s @ %s: %s" % (rid, expr, coords, m))
        rows.append("\t".join([rid, expr, fmt_point(names, map(shortest, coords)),
                               fmt_point(names, map(shortest, seed)), g17(r.v), g17(jv)]))
    files["jvp"] = rows

    # ---------------- edge ----------------
    rows = []
    for idx, (expr, pt, exp_s, exp_z) in enumerate(EDGE_CASES):
        base = "e%04d" % (188 + idx)
        names = names_of(expr, pt)
        coords = [v for _, v in pt]
        for pol, suffix, want in (("strict", "s", exp_s), ("zero-subgrad", "z", exp_z)):
            rid = base + suffix
            try:
                r, out = compute_jet(expr, names, coords, policy=pol)
                cls = "nondiff" if out.nondiff else "ok"
            except Domain:
                cls, r = "domain", None
            if cls != want:
                chk.failures.append("edge %s: evaluator says %s, hand-written %s" % (rid, cls, want))
            value = grad = ""
            if cls == "ok":
                r80, _ = compute_jet(expr, names, coords, policy=pol, dps=DPS_CHECK)
                r.v = snap(r.v, r80.v, rid + "[value]", chk.notes)
                r80.v = snap(r80.v, r.v, rid + "[value@80]", [])
                for j, (a, b) in enumerate(zip([r.v] + r.g, [r80.v] + r80.g)):
                    chk.same_double("A dps50 vs dps80", a, b, "%s[%d]" % (rid, j))
                value = g17(r.v)
                grad = " ".join(g17(v) for v in r.g)
                # where no kink/singular operation is involved, compare with B
                try:
                    compute_jet(expr, names, coords, policy=None)
                    plain_ok = True
                except Domain:
                    plain_ok = False
                if plain_ok:
                    with mp.workdps(DPS):
                        vb, gb, _, _ = method_b(expr, coords, names)
                        for j, (a, b) in enumerate(zip([r.v] + r.g, [vb] + gb)):
                            if a == 0 and abs(b) < mpf(10) ** -45:
                                continue        # snapped exact zero
                            chk.rel("B edge ok rows: jets vs mpmath.diff", a, b,
                                    "%s[%d]" % (rid, j), mpf(10) ** -40)
            rows.append("\t".join([rid, expr, fmt_point(names, map(shortest, coords)),
                                   pol, cls, value, grad]))
    files["edge"] = rows

    # ---------------- taylor ----------------
    rows = []
    for idx, (expr, x0, K) in enumerate(TAYLOR_CASES):
        rid = "t%04d" % (1 + idx)
        names = variables(Parser(expr).parse())
        assert len(names) == 1
        sargs = []
        with mp.workdps(DPS):
            dA = taylor_A(expr, x0, K, sargs)
            dB = taylor_B(expr, x0, K)
        with mp.workdps(DPS_CHECK):
            dA80 = taylor_A(expr, x0, K)
            dB80 = taylor_B(expr, x0, K)
        with mp.workdps(DPS):
            # exact zeros (odd derivatives at 0) are compared absolutely,
            # relative to 1e-25 * the row's largest derivative
            floor = max(abs(d) for d in dA) * mpf(10) ** -25
            for k in range(K):
                w = "%s[f^(%d)]" % (rid, k + 1)
                chk.rel("B taylor: series vs mpmath.diff (dps 50)", dA[k], dB[k], w,
                        mpf(10) ** -35, floor)
                chk.rel("B taylor: series vs mpmath.diff (dps 80)", dA80[k], dB80[k], w,
                        mpf(10) ** -60, floor)
                chk.rel("A taylor: dps 50 vs dps 80", dA[k], dA80[k], w, mpf(10) ** -45)
                chk.same_double("A dps50 vs dps80", dA[k], dA80[k], w)
            check_sinc_args(chk, sargs, rid, K)
        rows.append("\t".join([rid, expr, fmt_point(names, [shortest(x0)]), str(K),
                               " ".join(g17(v) for v in dA)]))
    files["taylor"] = rows
    return files


COLS = {"grad": 5, "hessian": 6, "jvp": 6, "edge": 7, "taylor": 5}


def render(name, rows):
    c, h = HEADERS[name]
    return "\n".join([c, h] + rows) + "\n"


def report(chk, out=sys.stderr):
    print("mpmath %s, python %s, dps %d (check %d)" % (
        mpmath.__version__, sys.version.split()[0], DPS, DPS_CHECK), file=out)
    for label in sorted(chk.worst):
        r, where = chk.worst[label]
        print("  %-44s n=%-4d worst rel %-9s at %s" % (
            label, chk.compared.get(label, 0), mpmath.nstr(r, 3), where), file=out)
    for n in chk.notes:
        kind = "exact zero" if "is exactly 0" in n else "corpus conditioning rule"
        print("  note (%s): %s" % (kind, n), file=out)
    for f in chk.failures:
        print("  FAIL " + f, file=out)
    print("self-check: %s" % ("OK" if not chk.failures else "%d FAILURES" % len(chk.failures)),
          file=out)


def main():
    mp.dps = DPS
    args = sys.argv[1:]
    chk = Checks()
    files = build(chk)
    if args[:1] == ["--write"]:
        import os
        d = args[1]
        for name, rows in files.items():
            with open(os.path.join(d, name + ".tsv"), "w", newline="\n") as f:
                f.write(render(name, rows))
        report(chk)
    elif args[:1] == ["--check"]:
        report(chk)
    else:
        for name, rows in files.items():
            print("==> %s.tsv <==" % name)
            sys.stdout.write(render(name, rows))
        report(chk)
    return 1 if chk.failures else 0


if __name__ == "__main__":
    sys.exit(main())
