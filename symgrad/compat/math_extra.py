"""``tf.math`` functions built from symgrad's ops, with TF's values and gradients
(``math_more`` has the inverse hyperbolics and the array functions).

- ``xlogy(x, y)``, ``xlog1py(x, y)``, ``xdivy(x, y)``: ``x * log(y)``, ``x * log1p(y)``,
  ``x / y``, and 0 where x is 0 (whatever y is); their gradients are 0 there too, as
  TF's (symgrad's ``where`` passes no NaN back from the side not taken).
- ``multiply_no_nan(x, y)``: ``x * y``, 0 where y is 0 even for an infinite or NaN x,
  with TF's gradients (x gets ``g * y``, 0 where y is 0; y gets ``x * g``, 0 where g is 0).
- ``polyval(coeffs, x)`` by Horner's rule; ``scalar_mul``.
- ``reciprocal_no_nan(x)``: ``1 / x``, 0 where x is 0.
- ``conj`` (real tensors: themselves), ``invert_permutation``,
  ``truncatediv``/``truncatemod`` (rounding toward zero, C's), ``is_non_decreasing``,
  ``is_strictly_increasing``, ``lbeta`` (over the last axis), ``cumulative_logsumexp``.

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([0.0, 2.0])
...     print(tf.Session().run(tf.math.xdivy(x, tf.constant([0.0, 4.0]))))
[0.  0.5]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.kernel_notes import note
from .custom import with_gradient

__all__ = ["xlogy", "xlog1py", "xdivy", "multiply_no_nan", "polyval", "scalar_mul",
           "reciprocal_no_nan", "conj", "invert_permutation", "truncatediv", "truncatemod",
           "is_non_decreasing", "is_strictly_increasing", "lbeta", "cumulative_logsumexp"]


def _where_x_zero(x, y, f, name):
    """``f(x, y)`` where x is not 0, else 0: y is replaced by 1 at those entries, so
    neither the value nor the gradient sees log(0) or a division by 0."""
    x, y = _t.functions._lift([x, y])
    zero = _t.equal(x, 0.0)
    safe = _t.where(zero, _t.ones_like(y) + _t.zeros_like(x), y + _t.zeros_like(x))
    value = f(x, safe)
    return _t.where(zero, _t.zeros_like(value), value, name=name)


def xlog1py(x, y, name=None):
    """``x * log1p(y)``, 0 where x is 0 (TF's ``tf.math.xlog1py``)."""
    return _where_x_zero(x, y, lambda a, b: a * _t.log1p(b), name)


def xdivy(x, y, name=None):
    """``x / y``, 0 where x is 0 (TF's ``tf.math.xdivy``)."""
    return _where_x_zero(x, y, lambda a, b: a / b, name)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, 0 where x is 0."""
    (x,) = _t.functions._lift([x])
    zero = _t.equal(x, 0.0)
    value = 1.0 / _t.where(zero, _t.ones_like(x), x)
    return _t.where(zero, _t.zeros_like(value), value, name=name)


def conj(x, name=None):
    """The complex conjugate: real tensors are their own (symgrad has no complex dtype)."""
    return _t.identity(x, name=name)


def invert_permutation(x, name=None):
    """``y`` with ``y[x[i]] = i``: the permutation that undoes ``x``."""
    (x,) = _t.functions._lift([x])
    positions = _t.range(_t.size(x), dtype=x.dtype)
    return _t.scatter_nd(_t.expand_dims(x, 1), positions, _t.shape(x, out_type=x.dtype),
                         name=name)


def truncatediv(x, y, name=None):
    """``x / y`` rounded toward zero (C's integer division; TF's ``truncatediv``)."""
    x, y = _t.functions._lift([x, y])
    q = _t.cast(x, np.float64) / _t.cast(y, np.float64)
    out = _t.cast(_t.sign(q) * _t.floor(_t.abs(q)), x.dtype, name=name)
    if out.dtype.kind in "iu":   # TF's integer kernel fails on a zero divisor
        note(out, "nonzero", [y], internal=True, message="Unexpected error in binary "
             "operator (only integer div and mod should have errors)")
    return out


def truncatemod(x, y, name=None):
    """``x - truncatediv(x, y) * y``: the remainder takes x's sign (C's ``%``, fmod)."""
    x, y = _t.functions._lift([x, y])
    return _t.subtract(x, truncatediv(x, y) * y, name=name)


def _steps(x):
    flat = _t.reshape(_t.functions._lift([x])[0], [-1])
    return flat[1:] - flat[:-1]


def is_non_decreasing(x, name=None):
    """Whether each entry (in row-major order) is >= the one before."""
    return _t.reduce_all(_t.greater_equal(_steps(x), 0), name=name)


def is_strictly_increasing(x, name=None):
    """Whether each entry (in row-major order) is > the one before."""
    return _t.reduce_all(_t.greater(_steps(x), 0), name=name)


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``."""
    (x,) = _t.functions._lift([x])
    return _t.subtract(_t.reduce_sum(_t.lgamma(x), -1), _t.lgamma(_t.reduce_sum(x, -1)),
                       name=name)


def cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, computed with the maximum taken out."""
    (x,) = _t.functions._lift([x])
    top = _t.stop_gradient(_t.reduce_max(x, axis=axis, keepdims=True))
    sums = _t.cumsum(_t.exp(x - top), axis=axis, exclusive=exclusive, reverse=reverse)
    return _t.add(_t.log(sums), top, name=name)


def _float(x):
    """A tensor for ``x``; a Python number is a float32 constant (TF's default)."""
    return _t.as_tensor(x) if not isinstance(x, (int, float)) else _t.constant(np.float32(x))


def xlogy(x, y, name=None):
    """``x * log(y)``, 0 where x is 0 (even where y is 0)."""
    return _where_x_zero(_float(x), _float(y), lambda a, b: a * _t.log(b), name)


def multiply_no_nan(x, y, name=None):
    """``x * y``, 0 where y is 0 (even where x is inf or NaN); TF's gradients: x gets
    ``g * y`` (0 where y is 0), y gets ``x * g`` (0 where g is 0)."""
    x, y = _float(x), _float(y)
    out = _t.where(_t.equal(y, 0.0), _t.zeros_like(x * y), x * y, name=name)

    def grad(g):
        zero = _t.zeros_like(g)
        return [_t.where(_t.equal(y, 0.0), zero, g * y),
                _t.where(_t.equal(g, 0.0), zero, x * g)]
    return with_gradient([x, y], out, grad)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x^(n-1) + ... + coeffs[n-1]`` by Horner's rule (zeros for none)."""
    x = _float(x)
    if not len(coeffs):
        return _t.zeros_like(x, name=name)
    p = _t.zeros_like(x) + coeffs[0]   # (a Python number takes x's dtype)
    for c in coeffs[1:]:
        p = p * x + c
    return _t.identity(p, name=name)


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` (``tf.scalar_mul``)."""
    return _t.mul(scalar, x, name=name)
