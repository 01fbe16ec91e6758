"""The regularized incomplete beta function ``tf.math.betainc(a, b, x)`` = I_x(a, b)
(the Beta distribution's cdf, and through it Student's t cdf), from graph ops.

I_x(a, b) = x^a (1-x)^b / (a B(a, b)) · F(a, b, x) where x < (a + 1)/(a + b + 2),
else 1 - I_{1-x}(b, a); F is the continued fraction
1/(1 + d_1/(1 + d_2/(1 + ⋯))), d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)),
d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)), evaluated by Lentz's method in a
``while_loop`` until every element's step is within float64's rounding (at most 2000),
in float64 whatever the input's dtype.  As TF: the gradient reaches x only,
x^(a-1) (1-x)^(b-1) / B(a, b) (a and b get None); NaN where a <= 0, b <= 0, x outside
[0, 1] or any is NaN; 0 at x = 0 and 1 at x = 1.  The arguments have one shape or
are scalars (TF does not broadcast them).

Sits in ``compat``; imports ``tracing``, ``control`` (the loop), ``custom`` and
``math_extra``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     c = lambda v: tf.constant(v, tf.float64)
...     print(tf.Session().run(betainc(c([2.0, 0.5]), c([3.0, 0.5]), c([0.4, 0.5]))).round(8))
[0.5248 0.5   ]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from .control import while_loop
from .custom import with_gradient
from .math_extra import xlogy

__all__ = ["betainc"]

_EPS = np.finfo(np.float64).eps
_TINY = 1e-300
_STEPS = 2000


def _floor(v):
    return _t.where(_t.less(_t.abs(v), _TINY), _TINY + _t.zeros_like(v), v)


def _fraction(a, b, x):
    """Lentz's evaluation of F(a, b, x) (module docstring)."""
    def body(i, c, d, h, delta):
        m = _t.cast(i, np.float64)
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((a - 1.0 + m2) * (a + m2))
        d = 1.0 / _floor(1.0 + aa * d)
        c = _floor(1.0 + aa / c)
        h = h * d * c
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1.0 + m2))
        d = 1.0 / _floor(1.0 + aa * d)
        c = _floor(1.0 + aa / c)
        delta = d * c
        return i + 1, c, d, h * delta, delta

    def going(i, c, d, h, delta):
        return _t.logical_and(_t.less(i, _STEPS),
                              _t.reduce_any(_t.greater(_t.abs(delta - 1.0), _EPS)))
    d = 1.0 / _floor(1.0 - (a + b) * x / (a + 1.0))
    ones = _t.ones_like(d)
    return while_loop(going, body, [_t.constant(1), ones, d, d, _t.zeros_like(d)])[3]


def _value(a, b, x):
    """I_x(a, b) in float64 (no gradient), TF's values at the edges."""
    a, b, x = (_t.stop_gradient(_t.cast(v, np.float64)) for v in (a, b, x))
    zeros = _t.zeros_like(a) + _t.zeros_like(b) + _t.zeros_like(x)
    a, b, x = a + zeros, b + zeros, x + zeros
    invalid = _t.logical_or(
        _t.logical_or(_t.less_equal(a, 0.0), _t.less_equal(b, 0.0)),
        _t.logical_or(_t.logical_or(_t.less(x, 0.0), _t.greater(x, 1.0)),
                      _t.logical_or(_t.is_nan(x), _t.logical_or(_t.is_nan(a), _t.is_nan(b)))))
    at_ends = _t.logical_or(_t.equal(x, 0.0), _t.equal(x, 1.0))
    end_value = _t.cast(_t.equal(x, 1.0), np.float64)
    fine = _t.logical_not(_t.logical_or(invalid, at_ends))
    a = _t.where(fine, a, _t.ones_like(a))
    b = _t.where(fine, b, _t.ones_like(b))
    x = _t.where(fine, x, 0.5 + zeros)
    front = _t.exp(_t.lgamma(a + b) - _t.lgamma(a) - _t.lgamma(b) + a * _t.log(x)
                   + b * _t.log1p(-x))
    direct = _t.less(x, (a + 1.0) / (a + b + 2.0))
    # the fraction where it converges fast: (a, b, x) or, mirrored, (b, a, 1 - x)
    fa, fb = _t.where(direct, a, b), _t.where(direct, b, a)
    fx = _t.where(direct, x, 1.0 - x)
    part = front * _fraction(fa, fb, fx) / fa
    out = _t.where(direct, part, 1.0 - part)
    out = _t.where(at_ends, end_value, out)
    return _t.where(invalid, zeros + np.nan, out)


def betainc(a, b, x, name=None):
    """I_x(a, b), the regularized incomplete beta function (module docstring)."""
    a, b, x = (_t.as_tensor(v) for v in (a, b, x))
    if not (a.dtype == b.dtype == x.dtype) or a.dtype.kind != "f":
        raise TypeError(f"tf.math.betainc: a, b and x must be float tensors of one dtype, "
                        f"got {a.dtype.name}, {b.dtype.name} and {x.dtype.name}")
    shapes = {tuple(v.shape) for v in (a, b, x) if v.ndim}
    if len(shapes) > 1:
        raise ValueError(f"tf.math.betainc: a, b and x must have one shape (or be scalars), "
                         f"got {a.shape}, {b.shape} and {x.shape}")
    value = _t.cast(_value(a, b, x), x.dtype)

    def grad(g):   # TF: x only, x^(a-1) (1-x)^(b-1) / B(a, b)
        log_density = (xlogy(a - 1.0, x) + (b - 1.0) * _t.log1p(-x)
                       - (_t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)))
        gx = g * _t.exp(log_density)
        if tuple(gx.shape) != tuple(x.shape):
            gx = _t.reshape(_t.reduce_sum(gx, _broadcast_axes(gx.shape, x.shape)), x.shape)
        return [None, None, gx]
    out = with_gradient([a, b, x], value, grad)
    return _t.identity(out, name=name) if name else out


def _broadcast_axes(big, small):
    """The axes of ``big`` that broadcasting added to or stretched in ``small``."""
    lead = len(big) - len(small)
    return tuple(i for i in range(len(big))
                 if i < lead or (small[i - lead] == 1 and big[i] != 1))
