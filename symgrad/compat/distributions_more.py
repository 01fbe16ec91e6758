"""More of ``tf.distributions``: ``Uniform``, ``Laplace``, ``Exponential``, ``Gamma``,
``Beta``, ``StudentT`` and ``Dirichlet`` (over the last axis), from their textbook densities (graph ops, so gradients flow
to the parameters).

The ``(a - 1) log x`` terms are ``xlogy``'s, as TF's: at a = 1 they and their
derivative in a are 0 whatever x is.  Each has ``log_prob``, ``prob``, ``mean``, ``variance``, ``stddev``, ``entropy`` and
``sample`` (drawn at each ``Session.run``; seeds make it reproducible, TF's streams are
not matched); ``cdf`` where it is elementary (Uniform, Laplace, Exponential), Gamma's
(``igamma``), Beta's and StudentT's (``betainc``), and on it
``log_cdf``, ``survival_function``, ``log_survival_function`` and ``mode`` as TF's
(``distribution_tails``).  Parameters must share a dtype (a Python number is float32:
TF's ValueError next to float64 ones); a number given to a method is made in the
distribution's dtype.  Samples
are reparameterised for Uniform, Laplace, Exponential and StudentT's loc/scale; Gamma's,
Beta's and Dirichlet's go through ``tf.random.gamma`` (gradient to the rate only).  Statistics TF
calls undefined (StudentT's mean for df <= 1, variance for df <= 1) are NaN, TF's
``allow_nan_stats=True`` default; the variance is inf for 1 < df <= 2.

Sits in ``compat``; imports ``tracing``, ``distributions`` and ``random_more``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     d = tf.distributions.Laplace(loc=0.0, scale=1.0)
...     print(round(float(tf.Session().run(d.log_prob(1.0))), 6))
-1.693147
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..ops import broadcast_shapes
from .distribution_tails import Tails, log_cdf_laplace
from .distributions import _tensor, drawn, same_dtype
from .math_extra import xlogy
from .tensor import constant
from .random_more import gamma as _gamma

__all__ = ["Uniform", "Laplace", "Exponential", "Gamma", "Beta", "StudentT", "Dirichlet"]


def _value(x, like):
    """A value given to a method: a number is made in the distribution's dtype (TF's
    preferred dtype: 0.1 stays float64's 0.1), a tensor cast to it."""
    if not isinstance(x, Node):
        return constant(np.asarray(x, like.dtype))
    return _t.cast(x, like.dtype) if x.dtype != like.dtype else x


def _sample_shape(sample_shape):
    return tuple(int(d) for d in np.reshape(sample_shape, -1))


def _lbeta(a, b):
    return _t.lgamma(a) + _t.lgamma(b) - _t.lgamma(a + b)


def _nan_like(*params):
    """NaN of the parameters' batch shape (TF's undefined statistics)."""
    zeros = _t.zeros_like(params[0])
    for p in params[1:]:
        zeros = zeros + _t.zeros_like(p)
    return zeros + np.asarray(np.nan, params[0].dtype)


class _Distribution(Tails):
    """What every distribution here shares: prob from log_prob, stddev from variance."""

    def prob(self, value, name="prob"):
        return _t.exp(self.log_prob(value))

    def stddev(self, name="stddev"):
        return _t.sqrt(self.variance())

    def _batch(self, *params):
        return tuple(int(d) for d in broadcast_shapes(*[p.shape for p in params]))

    def _standard(self, sample_shape, dist, seed, *params):
        shape = _sample_shape(sample_shape) + self._batch(*params)
        return _t.cast(drawn(shape, dist, seed), self.dtype)


class Uniform(_Distribution):
    """``tf.distributions.Uniform(low=0, high=1)``: density 1/(high - low) on [low, high)."""

    def __init__(self, low=0.0, high=1.0, validate_args=False, allow_nan_stats=True,
                 name="Uniform"):
        self.low = _tensor(low)
        self.high = same_dtype(high, self.low, name, "high", "low")
        self.dtype = self.low.dtype

    def range(self, name="range"):
        return self.high - self.low

    def log_prob(self, value, name="log_prob"):
        return _t.log(self.prob(value))

    def prob(self, value, name="prob"):
        x = _value(value, self.low)
        inside = _t.logical_and(_t.greater_equal(x, self.low), _t.less(x, self.high))
        density = 1.0 / self.range() + _t.zeros_like(x)
        return _t.where(inside, density, _t.zeros_like(density))

    def cdf(self, value, name="cdf"):
        x = _value(value, self.low)
        return _t.clip_by_value((x - self.low) / self.range(), 0.0, 1.0)

    def mean(self, name="mean"):
        return (self.low + self.high) / 2.0

    def variance(self, name="variance"):
        return _t.square(self.range()) / 12.0

    def entropy(self, name="entropy"):
        return _t.log(self.range())

    def sample(self, sample_shape=(), seed=None, name="sample"):
        u = self._standard(sample_shape, "uniform", seed, self.low, self.high)
        return self.low + self.range() * u


class Laplace(_Distribution):
    """``tf.distributions.Laplace(loc, scale)``: density exp(-|x - loc| / scale) / 2 scale."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Laplace"):
        self.loc = _tensor(loc)
        self.scale = same_dtype(scale, self.loc, name, "scale", "loc")
        self.dtype = self.loc.dtype

    def log_prob(self, value, name="log_prob"):
        z = _value(value, self.loc) - self.loc
        return -_t.abs(z) / self.scale - math.log(2.0) - _t.log(self.scale)

    def cdf(self, value, name="cdf"):
        z = (_value(value, self.loc) - self.loc) / self.scale
        return 0.5 - 0.5 * _t.sign(z) * _t.expm1(-_t.abs(z))

    def log_cdf(self, value, name="log_cdf"):
        return log_cdf_laplace((_value(value, self.loc) - self.loc) / self.scale)

    def log_survival_function(self, value, name="log_survival_function"):
        return log_cdf_laplace((self.loc - _value(value, self.loc)) / self.scale)

    def mean(self, name="mean"):
        return self.loc + _t.zeros_like(self.scale)

    mode = mean

    def variance(self, name="variance"):
        return 2.0 * _t.square(self.scale) + _t.zeros_like(self.loc)

    def entropy(self, name="entropy"):
        return math.log(2.0) + 1.0 + _t.log(self.scale) + _t.zeros_like(self.loc)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        # u uniform in (-1, 1): loc - scale sign(u) log(1 - |u|) is Laplace
        u = 2.0 * self._standard(sample_shape, "uniform", seed, self.loc, self.scale) - 1.0
        u = _t.clip_by_value(u, -1.0 + 1e-7, 1.0 - 1e-7)
        return self.loc - self.scale * _t.sign(u) * _t.log1p(-_t.abs(u))


class Gamma(_Distribution):
    """``tf.distributions.Gamma(concentration, rate)``: density
    rate^a x^(a-1) exp(-rate x) / Gamma(a)."""

    def __init__(self, concentration, rate, validate_args=False, allow_nan_stats=True,
                 name="Gamma"):
        self.concentration = _tensor(concentration)
        self.rate = same_dtype(rate, self.concentration, name, "rate", "concentration")
        self.dtype = self.concentration.dtype

    def log_prob(self, value, name="log_prob"):
        a, b, x = self.concentration, self.rate, _value(value, self.concentration)
        return xlogy(a - 1.0, x) - b * x - _t.lgamma(a) + a * _t.log(b)

    def mean(self, name="mean"):
        return self.concentration / self.rate

    def cdf(self, value, name="cdf"):
        from .incomplete_gamma import igamma   # (TF: igamma(concentration, rate * x))
        return igamma(self.concentration, self.rate * _value(value, self.concentration))

    def mode(self, name="mode"):
        # (TF: NaN where concentration <= 1, allow_nan_stats; an Exponential's is NaN)
        a = self.concentration
        return _t.where(_t.greater(a, 1.0), (a - 1.0) / self.rate, _nan_like(a, self.rate))

    def variance(self, name="variance"):
        return self.concentration / _t.square(self.rate)

    def entropy(self, name="entropy"):
        a = self.concentration
        return a - _t.log(self.rate) + _t.lgamma(a) + (1.0 - a) * _t.digamma(a)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        return _gamma(_sample_shape(sample_shape), self.concentration, self.rate,
                      dtype=self.dtype, seed=seed)


class Exponential(Gamma):
    """``tf.distributions.Exponential(rate)``: Gamma(1, rate)."""

    def __init__(self, rate, validate_args=False, allow_nan_stats=True, name="Exponential"):
        rate = _tensor(rate)
        super().__init__(_t.ones_like(rate), rate)

    def log_prob(self, value, name="log_prob"):
        x = _value(value, self.rate)
        return _t.log(self.rate) - self.rate * x

    def cdf(self, value, name="cdf"):
        return -_t.expm1(-self.rate * _value(value, self.rate))

    def log_survival_function(self, value, name="log_survival_function"):
        return self.log_prob(value) - _t.log(self.rate)

    def entropy(self, name="entropy"):
        return 1.0 - _t.log(self.rate)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        u = self._standard(sample_shape, "uniform", seed, self.rate)
        return -_t.log1p(-u) / self.rate


class Beta(_Distribution):
    """``tf.distributions.Beta(concentration1, concentration0)``: density
    x^(c1-1) (1-x)^(c0-1) / B(c1, c0)."""

    def __init__(self, concentration1=None, concentration0=None, validate_args=False,
                 allow_nan_stats=True, name="Beta"):
        if concentration1 is None or concentration0 is None:
            raise ValueError("tf.distributions.Beta: give concentration1 and concentration0")
        self.concentration1 = _tensor(concentration1)
        self.concentration0 = same_dtype(concentration0, self.concentration1, name,
                                         "concentration0", "concentration1")
        self.dtype = self.concentration1.dtype

    def _total(self):
        return self.concentration1 + self.concentration0

    def log_prob(self, value, name="log_prob"):
        c1, c0, x = self.concentration1, self.concentration0, _value(value, self.concentration1)
        return xlogy(c1 - 1.0, x) + (c0 - 1.0) * _t.log1p(-x) - _lbeta(c1, c0)

    def mean(self, name="mean"):
        return self.concentration1 / self._total()

    def cdf(self, value, name="cdf"):
        from .incomplete_beta import betainc
        return betainc(self.concentration1, self.concentration0,
                       _value(value, self.concentration1))

    def mode(self, name="mode"):
        c1, c0 = self.concentration1, self.concentration0
        defined = _t.logical_and(_t.greater(c1, 1.0), _t.greater(c0, 1.0))
        return _t.where(defined, (c1 - 1.0) / (self._total() - 2.0), _nan_like(c1, c0))

    def variance(self, name="variance"):
        m = self.mean()
        return m * (1.0 - m) / (1.0 + self._total())

    def entropy(self, name="entropy"):
        c1, c0, total = self.concentration1, self.concentration0, self._total()
        return (_lbeta(c1, c0) - (c1 - 1.0) * _t.digamma(c1) - (c0 - 1.0) * _t.digamma(c0)
                + (total - 2.0) * _t.digamma(total))

    def sample(self, sample_shape=(), seed=None, name="sample"):
        shape = _sample_shape(sample_shape)
        ones = _t.ones(self._batch(self.concentration1, self.concentration0), self.dtype)
        x = _gamma(shape, self.concentration1 * ones, dtype=self.dtype, seed=seed)
        y = _gamma(shape, self.concentration0 * ones, dtype=self.dtype,
                   seed=None if seed is None else seed + 1)
        return x / (x + y)


class StudentT(_Distribution):
    """``tf.distributions.StudentT(df, loc, scale)``: Student's t with ``df`` degrees of
    freedom, shifted by loc and scaled by scale."""

    def __init__(self, df, loc, scale, validate_args=False, allow_nan_stats=True,
                 name="StudentT"):
        self.df = _tensor(df)
        self.loc = same_dtype(loc, self.df, name, "loc", "df")
        self.scale = same_dtype(scale, self.df, name, "scale", "df")
        self.dtype = self.df.dtype

    def log_prob(self, value, name="log_prob"):
        df = self.df
        z = (_value(value, df) - self.loc) / self.scale
        return (_t.lgamma(0.5 * (df + 1.0)) - _t.lgamma(0.5 * df)
                - 0.5 * _t.log(df * math.pi) - _t.log(self.scale)
                - 0.5 * (df + 1.0) * _t.log1p(z * z / df))

    def mode(self, name="mode"):
        return _t.identity(self.loc)

    def cdf(self, value, name="cdf"):
        # TF: 0.5 I_t(df/2, 1/2), t = df / (y² + df), y = (x - loc) / |scale|, mirrored above 0
        from .incomplete_beta import betainc
        y = (_value(value, self.df) - self.loc) / _t.abs(self.scale)
        half = 0.5 * betainc(0.5 * self.df, 0.5 + _t.zeros_like(self.df),
                             self.df / (y ** 2.0 + self.df))
        return _t.where(_t.less(y, 0.0), half, 1.0 - half)

    def _zeros(self):
        return _t.zeros_like(self.df) + _t.zeros_like(self.loc) + _t.zeros_like(self.scale)

    def mean(self, name="mean"):
        m = self.loc + self._zeros()
        return _t.where(_t.greater(self.df + self._zeros(), 1.0), m, m + np.nan)

    def variance(self, name="variance"):
        df = self.df + self._zeros()
        finite = _t.square(self.scale) * df / _t.where(_t.greater(df, 2.0), df - 2.0,
                                                       _t.ones_like(df))
        inf = _t.where(_t.greater(df, 1.0), _t.zeros_like(df) + np.inf, _t.zeros_like(df) + np.nan)
        return _t.where(_t.greater(df, 2.0), finite, inf)

    def entropy(self, name="entropy"):
        half = 0.5 * (self.df + 1.0)
        return (half * (_t.digamma(half) - _t.digamma(0.5 * self.df))
                + 0.5 * _t.log(self.df) + _lbeta(0.5 + _t.zeros_like(self.df), 0.5 * self.df)
                + _t.log(self.scale) + _t.zeros_like(self.loc))

    def sample(self, sample_shape=(), seed=None, name="sample"):
        shape = _sample_shape(sample_shape)
        z = self._standard(sample_shape, "normal", seed, self.df, self.loc, self.scale)
        ones = _t.ones(self._batch(self.df, self.loc, self.scale), self.dtype)
        chi2 = 2.0 * _gamma(shape, 0.5 * self.df * ones, dtype=self.dtype,
                            seed=None if seed is None else seed + 1)
        return self.loc + self.scale * z * _t.rsqrt(chi2 / self.df)


class Dirichlet(_Distribution):
    """``tf.distributions.Dirichlet(concentration)``: over the simplex of the last axis,
    density prod(x^(a-1)) / B(a)."""

    _EVENT_NDIMS = 1   # (its last axis is one draw's: batch_shape stops before it)

    def __init__(self, concentration, validate_args=False, allow_nan_stats=True,
                 name="Dirichlet"):
        self.concentration = _tensor(concentration)
        self.dtype = self.concentration.dtype

    def _total(self):
        return _t.reduce_sum(self.concentration, -1)

    def _log_beta(self):
        return _t.reduce_sum(_t.lgamma(self.concentration), -1) - _t.lgamma(self._total())

    def log_prob(self, value, name="log_prob"):
        x = _value(value, self.concentration)
        return _t.reduce_sum(xlogy(self.concentration - 1.0, x), -1) - self._log_beta()

    def mean(self, name="mean"):
        return self.concentration / _t.expand_dims(self._total(), -1)

    def variance(self, name="variance"):
        total = _t.expand_dims(self._total(), -1)
        a = self.concentration
        return a * (total - a) / (_t.square(total) * (total + 1.0))

    def entropy(self, name="entropy"):
        a, total = self.concentration, self._total()
        k = float(int(a.shape[-1]))
        return (self._log_beta() + (total - k) * _t.digamma(total)
                - _t.reduce_sum((a - 1.0) * _t.digamma(a), -1))

    def sample(self, sample_shape=(), seed=None, name="sample"):
        g = _gamma(_sample_shape(sample_shape), self.concentration, dtype=self.dtype, seed=seed)
        return g / _t.reduce_sum(g, -1, keepdims=True)
