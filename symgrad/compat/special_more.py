"""Inverses of the error function: ``tf.math.erfinv``, ``erfcinv`` and ``ndtri`` (the
standard normal quantile), solved numerically with TF's derivatives attached.

The root y >= 0 of ``erf(y) = a`` (given a and q = 1 - a, each as accurately as the
input allows) starts from Winitzki's closed-form approximation and takes five Newton
steps in float64: on ``erf(y) - a`` where a < 1/2, on ``log erfc(y) - log q`` beyond
(accurate far into the tail, where erf(y) rounds to 1).  The result has TF's
gradients through ``tf.custom_gradient``'s machinery: ``erfinv'(x) = sqrt(pi)/2
exp(y²)``, ``erfcinv'(q) = -sqrt(pi)/2 exp(y²)``, ``ndtri'(p) = sqrt(2 pi) exp(y²/2)``,
written with the result y itself, so second derivatives follow.  ±inf at ±1 (erfinv),
NaN outside the domain, as TF's.

Sits in ``compat``; imports ``tracing`` and ``custom``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run(tf.math.ndtri([0.025, 0.975])).round(5))
[-1.95996  1.95996]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from .custom import with_gradient

__all__ = ["erfinv", "erfcinv", "ndtri"]

_SQRT_PI = float(np.sqrt(np.pi))
_A = 0.147   # Winitzki's constant


def _start(a, q):
    """Winitzki: erfinv(a) ≈ sqrt(sqrt(t² - log(1 - a²)/A) - t), t = 2/(pi A) + log(1 - a²)/2,
    with log(1 - a²) = log(q) + log1p(a)."""
    log_1ma2 = _t.log(q) + _t.log1p(a)
    t = 2.0 / (np.pi * _A) + 0.5 * log_1ma2
    return _t.sqrt(_t.maximum(_t.sqrt(t * t - log_1ma2 / _A) - t, 0.0))


def _root(a, q):
    """y >= 0 with erf(y) = a (q = 1 - a), a in [0, 1); float64."""
    near = _t.less(a, 0.5)
    q_safe = _t.maximum(q, 1e-307)
    y = _start(a, q_safe)
    log_q = _t.log(q_safe)
    for _ in range(5):
        slope = 2.0 / _SQRT_PI * _t.exp(-y * y)
        step_near = (_t.erf(y) - a) / slope
        tail = _t.maximum(_t.erfc(y), 1e-307)
        step_tail = (_t.log(tail) - log_q) * tail / -slope
        y = _t.maximum(y - _t.where(near, step_near, step_tail), 0.0)
    return y


def _signed(x, a, q, negative):
    """sign * root, with ±inf where q is 0 and NaN where a > 1."""
    y = _root(_t.where(_t.less_equal(q, 0.0), _t.zeros_like(a), a), q)
    y = _t.where(_t.equal(q, 0.0), np.inf + _t.zeros_like(y), y)
    y = _t.where(_t.less(q, 0.0), np.nan + _t.zeros_like(y), y)
    return _t.where(negative, -y, y)


def _attach(x, value, slope_of):
    """``value`` (float64) in x's dtype, with the gradient ``g * slope_of(result)``."""
    out = []
    node = with_gradient([x], _t.cast(_t.stop_gradient(value), x.dtype),
                         lambda g: [g * slope_of(out[0])])
    out.append(node)
    return node


def _float_input(x, what):
    x = _t.functions._lift([x])[0]
    if x.dtype.kind != "f":
        raise TypeError(f"tf.math.{what}: x must be a float tensor, got {x.dtype}")
    return x


def erfinv(x, name=None):
    """The y with erf(y) = x, for x in [-1, 1]."""
    x = _float_input(x, "erfinv")
    v = _t.cast(_t.stop_gradient(x), np.float64)
    a = _t.abs(v)
    y = _signed(v, a, 1.0 - a, _t.less(v, 0.0))
    return _attach(x, y, lambda out: 0.5 * _SQRT_PI * _t.exp(out * out))


def erfcinv(x, name=None):
    """The y with erfc(y) = x, for x in [0, 2]."""
    x = _float_input(x, "erfcinv")
    q = _t.cast(_t.stop_gradient(x), np.float64)
    upper = _t.greater(q, 1.0)   # erfc(y) > 1 means y < 0: erfc(-y) = 2 - q
    q_side = _t.where(upper, 2.0 - q, q)
    y = _signed(q, 1.0 - q_side, q_side, upper)
    y = _t.where(_t.logical_or(_t.less(q, 0.0), _t.greater(q, 2.0)), np.nan + y * 0.0, y)
    return _attach(x, y, lambda out: -0.5 * _SQRT_PI * _t.exp(out * out))


def ndtri(x, name=None):
    """The standard normal quantile: -sqrt(2) erfcinv(2p), for p in [0, 1]."""
    x = _float_input(x, "ndtri")
    p = _t.cast(_t.stop_gradient(x), np.float64)
    q = 2.0 * p
    upper = _t.greater(q, 1.0)
    q_side = _t.where(upper, 2.0 - q, q)
    y = -np.sqrt(2.0) * _signed(q, 1.0 - q_side, q_side, upper)
    y = _t.where(_t.logical_or(_t.less(p, 0.0), _t.greater(p, 1.0)), np.nan + y * 0.0, y)
    return _attach(x, y, lambda out: np.sqrt(2.0 * np.pi) * _t.exp(0.5 * out * out))
