"""The regularized incomplete gamma functions ``tf.math.igamma`` (P(a, x), the Gamma
distribution's cdf) and ``tf.math.igammac`` (Q = 1 - P), from graph ops.

P(a, x) = x^a e^-x / Γ(a) · Σ_{n≥0} x^n / (a (a+1) ⋯ (a+n)) where x < a + 1 (the
series); elsewhere Q(a, x) = x^a e^-x / Γ(a) · K(a, x), K the continued fraction
1/(x + 1 - a - 1·(1 - a)/(x + 3 - a - 2·(2 - a)/(x + 5 - a - ⋯))) evaluated by
Lentz's method.  Each runs in a ``while_loop`` until every element's next term is
below float64's rounding (at most 2000 steps), in float64 whatever the input's dtype;
the derivatives in a and x are those of the computation (``gradients`` through the
loops), which agree with TF's closed forms to rounding.  As TF: NaN where a <= 0,
x < 0 or either is NaN; P(a, 0) = 0 with zero derivatives, P(a, inf) = 1.

Sits in ``compat``; imports ``tracing`` and ``control`` (the loops).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     p = igamma(tf.constant([1.0, 3.0], tf.float64), tf.constant([1.0, 0.5], tf.float64))
...     print(tf.Session().run(p).round(8))
[0.63212056 0.01438768]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from .control import while_loop

__all__ = ["igamma", "igammac"]

_EPS = np.finfo(np.float64).eps
_TINY = 1e-300
_STEPS = 2000


def _pair(a, x, what):
    a, x = _t.as_tensor(a), _t.as_tensor(x)
    if a.dtype != x.dtype or a.dtype.kind != "f":
        raise TypeError(f"{what}: a and x must be float tensors of one dtype, got "
                        f"{a.dtype.name} and {x.dtype.name}")
    return a, x


def _series(a, x):
    """Σ x^n / (a (a+1) ⋯ (a+n)) (x < a + 1)."""
    def body(i, ap, term, total):
        ap = ap + 1.0
        term = term * x / ap
        return i + 1, ap, term, total + term

    def going(i, ap, term, total):
        return _t.logical_and(_t.less(i, _STEPS),
                              _t.reduce_any(_t.greater(_t.abs(term), _t.abs(total) * _EPS)))
    first = 1.0 / a
    return while_loop(going, body, [_t.constant(0), a, first, first])[3]


def _fraction(a, x):
    """Lentz's evaluation of Q's continued fraction (x >= a + 1)."""
    def floor(v):
        return _t.where(_t.less(_t.abs(v), _TINY), _TINY + _t.zeros_like(v), v)

    def body(i, b, c, d, h, delta):
        k = _t.cast(i, np.float64)
        an = -k * (k - a)
        b = b + 2.0
        d = 1.0 / floor(an * d + b)
        c = floor(b + an / c)
        delta = d * c
        return i + 1, b, c, d, h * delta, delta

    def going(i, b, c, d, h, delta):
        return _t.logical_and(_t.less(i, _STEPS),
                              _t.reduce_any(_t.greater(_t.abs(delta - 1.0), _EPS)))
    b = x + 1.0 - a
    d = 1.0 / floor(b)
    start = [_t.constant(1), b, _t.zeros_like(b) + 1.0 / _TINY, d, d, _t.zeros_like(b)]
    return while_loop(going, body, start)[4]


def _lower_and_upper(a, x):
    """(P, Q) in float64, with TF's values at the edges (module docstring)."""
    a = _t.cast(a, np.float64) if a.dtype != np.float64 else a
    x = _t.cast(x, np.float64) if x.dtype != np.float64 else x
    a, x = a + _t.zeros_like(x), x + _t.zeros_like(a)
    invalid = _t.logical_or(_t.logical_or(_t.less_equal(a, 0.0), _t.less(x, 0.0)),
                            _t.logical_or(_t.is_nan(a), _t.is_nan(x)))
    zero, inf = _t.equal(x, 0.0), _t.is_inf(x)
    fine = _t.logical_not(_t.logical_or(invalid, _t.logical_or(zero, inf)))
    a_ok = _t.where(fine, a, _t.ones_like(a))
    x_ok = _t.where(fine, x, _t.ones_like(x))
    use_series = _t.less(x_ok, a_ok + 1.0)
    # each branch at inputs where it converges (the other's elements at a harmless point)
    x_ser = _t.where(use_series, x_ok, 0.5 * (a_ok + 1.0))
    x_cf = _t.where(use_series, a_ok + 2.0, x_ok)
    log_front_ser = a_ok * _t.log(x_ser) - x_ser - _t.lgamma(a_ok)
    log_front_cf = a_ok * _t.log(x_cf) - x_cf - _t.lgamma(a_ok)
    p_ser = _t.exp(log_front_ser) * _series(a_ok, x_ser)
    q_cf = _t.exp(log_front_cf) * _fraction(a_ok, x_cf)
    p = _t.where(use_series, p_ser, 1.0 - q_cf)
    q = _t.where(use_series, 1.0 - p_ser, q_cf)
    nan = _t.zeros_like(p) + np.nan
    p = _t.where(invalid, nan, _t.where(zero, _t.zeros_like(p), _t.where(inf, _t.ones_like(p), p)))
    q = _t.where(invalid, nan, _t.where(zero, _t.ones_like(q), _t.where(inf, _t.zeros_like(q), q)))
    return p, q


def igamma(a, x, name=None):
    """P(a, x), the regularized lower incomplete gamma function (module docstring)."""
    a, x = _pair(a, x, "tf.math.igamma")
    p = _lower_and_upper(a, x)[0]
    p = _t.cast(p, a.dtype) if a.dtype != np.float64 else p
    return _t.identity(p, name=name) if name else p


def igammac(a, x, name=None):
    """Q(a, x) = 1 - P(a, x), the regularized upper incomplete gamma function."""
    a, x = _pair(a, x, "tf.math.igammac")
    q = _lower_and_upper(a, x)[1]
    q = _t.cast(q, a.dtype) if a.dtype != np.float64 else q
    return _t.identity(q, name=name) if name else q
