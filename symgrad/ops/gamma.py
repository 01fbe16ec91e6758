"""The gamma family's numbers: ``lgamma`` (log |Gamma(x)|), ``erfc`` and the polygamma
functions psi^(n) (``digamma`` is n = 0, trigamma n = 1) over numpy arrays, and the
constants of the polygamma algorithm that ``lower.gamma`` emits as instructions (one
algorithm, so the compiled values follow the reference evaluator's).

psi^(n)(x) for an integer n >= 0, in float64:

- x < 0: reflection, psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)),
  where d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)), P_0(c) = c and
  P_(k+1)(c) = -(1 + c^2) P_k'(c); cot(pi x) is taken of x less its nearest integer
  (the period), so large |x| loses no accuracy to the argument.
- 0 <= y < X (X = 10 + 2n): the recurrence psi^(n)(y) = psi^(n)(y + 1) - (-1)^n n! /
  y^(n+1), at most X steps, up to y >= X.
- y >= X: the asymptotic series, psi(y) = log y - 1/(2y) - sum B_2k / (2k y^2k) and,
  for n >= 1, psi^(n)(y) = (-1)^(n+1) [(n-1)!/y^n + n!/(2 y^(n+1))
  + sum B_2k (2k+n-1)! / ((2k)! y^(2k+n))], k = 1..10 (the terms left out are below
  1e-16 of the value there).
- poles, x = 0, -1, -2, ... and -inf: inf for odd n, NaN for even n (TF's values:
  digamma NaN, trigamma inf); +inf gives log's inf (n = 0) or 0.

Accurate to a few ulp against mpmath for n <= 3 (``tests/test_gamma_functions.py``).
TF's values at lgamma's poles are +inf, as ``math.lgamma``'s limit.

Imports math and numpy only.

>>> round(float(polygamma(0, np.array(1.0))), 14)    # -Euler's gamma
-0.57721566490153
>>> round(float(polygamma(1, np.array(0.5))), 14)    # pi**2 / 2
4.93480220054468
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

# B_2, B_4, ..., B_20 (Bernoulli numbers)
BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
             Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
             Fraction(43867, 798), Fraction(-174611, 330)]


def threshold(n):
    """Where the asymptotic series takes over (and the most recurrence steps)."""
    return 10 + 2 * n


def series(n):
    """The asymptotic series' coefficients c_k (k = 1..10): the sum is
    ``sum c_k / y^(2k+n)`` (module docstring)."""
    return _series(int(n))


@functools.lru_cache(maxsize=None)
def _series(n):
    if n == 0:
        return tuple(float(b / (2 * k)) for k, b in enumerate(BERNOULLI, start=1))
    return tuple(float(b * math.factorial(2 * k + n - 1) / math.factorial(2 * k))
                 for k, b in enumerate(BERNOULLI, start=1))


@functools.lru_cache(maxsize=None)
def cot_derivative(n):
    """The coefficients of P_n (lowest power first): d^n/dx^n cot(pi x) = pi^n P_n(c),
    c = cot(pi x)."""
    p = [0, 1]                                     # P_0(c) = c
    for _ in range(n):
        dp = [k * p[k] for k in range(1, len(p))]  # P'
        out = [0] * (len(dp) + 2)
        for k, a in enumerate(dp):                 # -(1 + c^2) P'
            out[k] -= a
            out[k + 2] -= a
        p = out
    return tuple(p)


def polygamma(n, x):
    """psi^(n)(x) elementwise (float64), n a non-negative integer."""
    n = _order(n)
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        negative = x < 0
        value = _positive(n, np.where(negative, 1.0 - x, x))
        r = x - np.rint(x)
        poly = np.polynomial.polynomial.polyval(1.0 / np.tan(math.pi * r), cot_derivative(n))
        reflected = (-1) ** n * value - math.pi ** (n + 1) * poly
        out = np.where(negative, reflected, value)
        pole = (x <= 0) & (x == np.floor(x))
        return np.where(pole, math.inf if n % 2 else math.nan, out)


def _order(n):
    k = int(n)
    if k != n or k < 0:
        raise ValueError(f"polygamma(n, x): n must be a non-negative integer, got {n!r}")
    return k


def _positive(n, y):
    """psi^(n)(y) for y >= 0 (and NaN): the recurrence up to the threshold, then the
    series."""
    sign_fact = (-1) ** n * math.factorial(n)
    shift = np.zeros_like(y)
    limit = threshold(n)
    for _ in range(limit):
        small = y < limit
        shift = np.where(small, shift - sign_fact / y ** (n + 1), shift)
        y = np.where(small, y + 1.0, y)
    t = 1.0 / (y * y)
    tail = np.zeros_like(y)
    for c in reversed(series(n)):
        tail = (tail + c) * t
    if n == 0:
        return shift + np.log(y) - 0.5 / y - tail
    lead = math.factorial(n - 1) / y ** n + math.factorial(n) / (2 * y ** (n + 1))
    return shift + (-1) ** (n + 1) * (lead + tail / y ** n)


def _safe(fn, at_pole):
    """A math-module function over arrays: ``at_pole`` where it raises."""
    def one(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return at_pole
    vec = np.vectorize(one, otypes=[np.float64])
    return lambda x: vec(np.asarray(x, dtype=np.float64))


lgamma = _safe(math.lgamma, math.inf)   # log|Gamma(x)|: +inf at the poles (TF)
erfc = _safe(math.erfc, math.nan)       # (never raises)

__all__ = ["polygamma", "lgamma", "erfc", "series", "cot_derivative", "threshold"]
