"""Modified Bessel functions of the first kind: ``tf.math.bessel_i0``, ``bessel_i1`` and
their exponentially scaled forms ``bessel_i0e`` = e^-|x| I0(x), ``bessel_i1e``, from
graph ops (von Mises densities, Rician noise).

- |x| <= 20: the power series I_ν(x) = (x/2)^ν Σ_k (x²/4)^k / (k! (k+ν)!), summed in a
  ``while_loop`` until the next term is below float64's rounding (terms are positive:
  no cancellation), times e^-|x| for the scaled forms.
- |x| > 20: the asymptotic expansion e^-x I_ν(x) ~ (2πx)^-1/2 Σ_k (-1)^k
  Π_{j<=k} (4ν² - (2j-1)²) / (k! (8x)^k), 30 terms (its smallest term at x = 20 is
  below 1e-17).
- I1 is odd, I0 even; the unscaled forms are the scaled ones times e^|x| (I0(700) is
  1.5e302, no overflow on the way).  float64 inside whatever the dtype.
- Gradients are TF's rules (``math_grad``): i0' = i1, i0e' = i1e - sign(x) i0e,
  i1' = i0 - i1/x (TF puts 1 at x = 0, where the slope is 1/2), i1e' = i0e -
  i1e (sign(x) + 1/x) (1/2 at 0); built from these functions, so they differentiate
  again.

Sits in ``compat``; imports ``tracing``, ``control`` (the loop) and ``custom``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([0.0, 1.0, 30.0], tf.float64)
...     print(tf.Session().run(bessel_i0e(x)).round(8))
[1.         0.46575961 0.07314595]
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from .control import while_loop
from .custom import with_gradient

__all__ = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]

_EPS = np.finfo(np.float64).eps
_SWITCH = 20.0
_TERMS = 30


def _series(x, order):
    """Σ_k (x²/4)^k / (k! (k+order)!) · (x/2)^order."""
    q = 0.25 * x * x
    first = _t.ones_like(x) if order == 0 else 0.5 * x

    def body(k, term, total):
        kf = _t.cast(k, np.float64)
        term = term * q / (kf * (kf + order))
        return k + 1, term, total + term

    def going(k, term, total):
        return _t.logical_and(_t.less(k, 1000), _t.reduce_any(
            _t.greater(_t.abs(term), _t.abs(total) * _EPS)))
    return while_loop(going, body, [_t.constant(1), first, first])[2]


def _asymptotic(x, order):
    """e^-x I_order(x) for large x > 0."""
    mu = 4.0 * order * order
    total, term = _t.ones_like(x), _t.ones_like(x)
    for k in range(1, _TERMS + 1):
        term = term * (-(mu - (2 * k - 1) ** 2) / (k * 8.0)) / x
        total = total + term
    return total / _t.sqrt(2.0 * math.pi * x)


def _scaled(x, order, name):
    """(e^-|x| I_order(x) in float64, x, x in float64)."""
    x = _t.as_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"tf.math.{name}: x must be a float tensor, got {x.dtype.name}")
    x64 = _t.cast(x, np.float64) if x.dtype != np.float64 else x
    ax = _t.abs(x64)
    small = _t.less_equal(ax, _SWITCH)
    # the series at x itself (I1 odd: its slope at 0 is 1/2), the expansion at |x|
    x_ser = _t.where(small, x64, _t.ones_like(ax))
    x_asy = _t.where(small, _t.zeros_like(ax) + 2 * _SWITCH, ax)
    far = _asymptotic(x_asy, order)
    out = _t.where(small, _t.exp(-_t.abs(x_ser)) * _series(x_ser, order),
                   _t.sign(x64) * far if order == 1 else far)
    return _t.where(_t.is_nan(x64), x64, out), x, x64


def _in(value, x):
    return _t.cast(value, x.dtype) if x.dtype != np.float64 else value


def _value(x, order, scaled, name):
    """The function's value (no gradient: TF's rules are attached) and x as a tensor."""
    x = _t.as_tensor(x)
    out, _, x64 = _scaled(_t.stop_gradient(x), order, name)
    return _in(out if scaled else out * _t.exp(_t.abs(x64)), x), x


def _with(x, y, slope, name):
    """y with the gradient g * slope(x, y) (TF's math_grad rules), named."""
    out = []
    node = with_gradient([x], y, lambda g: [g * slope(x, out[0])])
    out.append(node)
    return _t.identity(node, name=name) if name else node


def _safe(x):
    return _t.where(_t.equal(x, 0.0), _t.ones_like(x), x)


def bessel_i0e(x, name=None):
    """e^-|x| I0(x); TF's gradient i1e(x) - sign(x) i0e(x)."""
    y, x = _value(x, 0, True, "bessel_i0e")
    return _with(x, y, lambda x, y: bessel_i1e(x) - _t.sign(x) * y, name)


def bessel_i1e(x, name=None):
    """e^-|x| I1(x); TF's gradient i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0."""
    y, x = _value(x, 1, True, "bessel_i1e")
    return _with(x, y, lambda x, y: _t.where(
        _t.equal(x, 0.0), 0.5 + _t.zeros_like(x),
        bessel_i0e(x) - y * (_t.sign(x) + 1.0 / _safe(x))), name)


def bessel_i0(x, name=None):
    """I0(x), the modified Bessel function of order 0; TF's gradient I1(x)."""
    y, x = _value(x, 0, False, "bessel_i0")
    return _with(x, y, lambda x, y: bessel_i1(x), name)


def bessel_i1(x, name=None):
    """I1(x), the modified Bessel function of order 1; TF's gradient I0(x) - I1(x)/x, and
    (TF's) 1 at x = 0."""
    y, x = _value(x, 1, False, "bessel_i1")
    return _with(x, y, lambda x, y: _t.where(
        _t.equal(x, 0.0), 1.0 + _t.zeros_like(x), bessel_i0(x) - y / _safe(x)), name)
