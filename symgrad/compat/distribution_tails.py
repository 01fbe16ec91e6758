"""The tails of ``tf.distributions``: TF's ``ndtr`` and ``log_ndtr`` (its
``special_math``), and the methods TF's ``Distribution`` builds on a cdf.

- ``ndtr(x)``: ``0.5 (1 + erf(x/√2))`` for ``|x|/√2 < 1/√2``, ``0.5 erfc(|x|/√2)``
  below and ``1 - 0.5 erfc(|x|/√2)`` above, TF's branches: the lower tail keeps its
  digits (``ndtr(-10)`` is 7.6e-24, not the 0 that ``1 + erf`` rounds to).
- ``log_ndtr(x)``: ``-ndtr(-x)`` above 8 (float32: 5), ``log(ndtr(x))`` down to -20
  (float32: -10), TF's asymptotic series of order 3 below.
- :class:`Tails`, what a distribution with a ``cdf`` gets as TF's base class gives
  it: ``log_cdf = log(cdf)``, ``survival_function = 1 - cdf``,
  ``log_survival_function = log1p(-cdf)``; ``quantile`` and ``mode`` raise
  NotImplementedError unless the distribution has them (TF's message).
- :class:`NormalTails`: the Normal's own (``ndtr``/``log_ndtr`` of ``±z``, the quantile
  ``loc + scale * ndtri(p)``, the mode ``loc``).

Sits in ``compat``; imports ``tracing``, ``distribution_shapes`` (``special_more`` when a quantile is taken).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([-10.0, 0.0, 10.0], tf.float64)
...     print(tf.Session().run(ndtr(x)))
[7.61985302e-24 5.00000000e-01 1.00000000e+00]
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from .distribution_shapes import BatchShapes

__all__ = ["ndtr", "log_ndtr", "log_cdf_laplace", "Tails", "NormalTails"]

_HALF_SQRT_2 = 0.5 * math.sqrt(2.0)
# TF's segments of log_ndtr per dtype: (lower, upper)
_SEGMENTS = {np.dtype(np.float64): (-20.0, 8.0), np.dtype(np.float32): (-10.0, 5.0)}
_SERIES_ORDER = 3


def _float(x, what):
    x = _t.as_tensor(x)
    if x.dtype not in _SEGMENTS:
        raise TypeError(f"{what}: x.dtype={x.dtype.name} is not handled (float32 or float64)")
    return x


def _ndtr(x):
    w = x * _HALF_SQRT_2
    z = _t.abs(w)
    y = _t.where(_t.less(z, _HALF_SQRT_2), 1.0 + _t.erf(w),
                 _t.where(_t.greater(w, 0.0), 2.0 - _t.erfc(z), _t.erfc(z)))
    return 0.5 * y


def ndtr(x, name="ndtr"):
    """The standard normal cdf, as TF's ``special_math.ndtr`` computes it."""
    return _ndtr(_float(x, "ndtr"))


def _double_factorial(n):
    return float(np.prod(np.arange(n, 1, -2)))


def _log_ndtr_lower(x):
    """TF's asymptotic log(ndtr(x)) for x << -1."""
    x_2 = _t.square(x)
    log_scale = -0.5 * x_2 - _t.log(-x) - 0.5 * math.log(2.0 * math.pi)
    even, odd, x_2n = 0.0, 0.0, x_2
    for n in range(1, _SERIES_ORDER + 1):
        y = _double_factorial(2 * n - 1) / x_2n
        if n % 2:
            odd = odd + y
        else:
            even = even + y
        x_2n = x_2n * x_2
    return log_scale + _t.log(1.0 + even - odd)


def log_ndtr(x, series_order=3, name="log_ndtr"):
    """log of the standard normal cdf, TF's three segments (module docstring)."""
    x = _float(x, "log_ndtr")
    if series_order != _SERIES_ORDER:
        raise ValueError(f"log_ndtr: series_order={series_order!r}: symgrad has TF's "
                         f"default, {_SERIES_ORDER}")
    lower, upper = _SEGMENTS[x.dtype]
    return _t.where(_t.greater(x, upper), -_ndtr(-x),
                    _t.where(_t.greater(x, lower), _t.log(_ndtr(_t.maximum(x, lower))),
                             _log_ndtr_lower(_t.minimum(x, lower))))


def log_cdf_laplace(x, name="log_cdf_laplace"):
    """log of the standard Laplace cdf, as TF's ``special_math`` computes it."""
    x = _t.as_tensor(x)
    lower = -math.log(2.0) + x
    upper = _t.log1p(-0.5 * _t.exp(-_t.abs(x)))
    return _t.where(_t.less(x, 0.0), lower, upper)


def _missing(dist, method):
    return NotImplementedError(f"{method} is not implemented: {type(dist).__name__}")


class Tails(BatchShapes):
    """TF's ``Distribution`` fallbacks on ``cdf`` (module docstring), and its shapes
    (``distribution_shapes``)."""

    def _cdf_of(self, value, method):
        cdf = getattr(self, "cdf", None)
        if cdf is None:
            raise _missing(self, method)
        return cdf(value)

    def log_cdf(self, value, name="log_cdf"):
        return _t.log(self._cdf_of(value, "log_cdf"))

    def survival_function(self, value, name="survival_function"):
        return 1.0 - self._cdf_of(value, "survival_function")

    def log_survival_function(self, value, name="log_survival_function"):
        return _t.log1p(-self._cdf_of(value, "log_survival_function"))

    def quantile(self, value, name="quantile"):
        raise _missing(self, "quantile")

    def mode(self, name="mode"):
        raise _missing(self, "mode")


class NormalTails(Tails):
    """The Normal's cdf, its tails, quantile and mode, TF's (module docstring)."""

    def cdf(self, value, name="cdf"):
        return _ndtr(self._z(value))

    def log_cdf(self, value, name="log_cdf"):
        return log_ndtr(self._z(value))

    def survival_function(self, value, name="survival_function"):
        return _ndtr(-self._z(value))

    def log_survival_function(self, value, name="log_survival_function"):
        return log_ndtr(-self._z(value))

    def quantile(self, value, name="quantile"):
        from .special_more import ndtri
        return ndtri(_t.cast(_t.as_tensor(value), self.dtype)) * self.scale + self.loc

    def mode(self, name="mode"):
        return self.loc * _t.ones_like(self.scale)
