"""The polygamma functions as scalar instructions: ``polygamma(n, x)`` (digamma,
trigamma, ...) expanded into ``lower.scalar``'s opcodes, which Python's ``math`` lacks.

The algorithm and its constants are ``ops.gamma``'s (the reference evaluator's):
reflection below 0, at most ``threshold(n)`` recurrence steps (unrolled, each a
``select``: straight-line code, no loop), the asymptotic series by Horner's rule,
and the poles' inf or NaN.  Both branches of each ``select`` are computed; IEEE
arithmetic makes the unused one harmless (1/0 is inf, not a trap).

Imports math and ``ops.gamma``.

>>> import sympy
>>> from symgrad.lower.scalar import translate
>>> x = sympy.Symbol("_x0", real=True)
>>> len(translate(sympy.polygamma(0, x), 1)) > 50
True
"""
from __future__ import annotations

import math

from ..ops import gamma as _gamma


def emit_polygamma(t, n, x):
    """The instruction index of psi^(n)(x) in translator ``t`` (x: an instruction)."""
    zero, one = t.const(0.0), t.const(1.0)
    negative = t.emit("lt", x, zero)
    value = _positive(t, n, t.emit("select", negative, t.emit("sub", one, x), x))
    r = t.emit("sub", x, t.emit("call", "rint", x))
    cot = t.emit("div", one, t.emit("call", "tan", t.emit("mul", t.const(math.pi), r)))
    poly = _horner(t, _gamma.cot_derivative(n), cot)
    reflected = t.emit("sub", value if n % 2 == 0 else t.emit("neg", value),
                       t.emit("mul", t.const(math.pi ** (n + 1)), poly))
    out = t.emit("select", negative, reflected, value)
    pole = t.emit("and", t.emit("le", x, zero), t.emit("eq", x, t.emit("call", "floor", x)))
    return t.emit("select", pole, t.const(math.inf if n % 2 else math.nan), out)


def _positive(t, n, y):
    """psi^(n)(y), y >= 0: the recurrence, then the series (``ops.gamma._positive``)."""
    limit, one = t.const(float(_gamma.threshold(n))), t.const(1.0)
    step = t.const(float((-1) ** n * math.factorial(n)))
    shift = t.const(0.0)
    for _ in range(_gamma.threshold(n)):
        small = t.emit("lt", y, limit)
        shift = t.emit("select", small, t.emit("sub", shift, t.emit(
            "div", step, _power(t, y, n + 1))), shift)
        y = t.emit("select", small, t.emit("add", y, one), y)
    inv2 = t.emit("div", one, t.emit("mul", y, y))
    tail = _horner(t, (0.0,) + _gamma.series(n), inv2)
    if n == 0:
        log_part = t.emit("sub", t.emit("call", "log", y), t.emit("div", t.const(0.5), y))
        return t.emit("add", shift, t.emit("sub", log_part, tail))
    y_n = _power(t, y, n)
    lead = t.emit("add", t.emit("div", t.const(float(math.factorial(n - 1))), y_n),
                  t.emit("div", t.const(math.factorial(n) / 2), t.emit("mul", y_n, y)))
    total = t.emit("add", lead, t.emit("div", tail, y_n))
    return t.emit("add", shift, total if n % 2 else t.emit("neg", total))


def _power(t, v, k):
    """v ** k for an integer k >= 1, by products."""
    out = v
    for _ in range(k - 1):
        out = t.emit("mul", out, v)
    return out


def _horner(t, coefficients, v):
    """sum coefficients[k] * v**k (lowest power first)."""
    acc = t.const(float(coefficients[-1]))
    for c in reversed(coefficients[:-1]):
        acc = t.emit("mul", acc, v)
        if c:
            acc = t.emit("add", acc, t.const(float(c)))
    return acc
