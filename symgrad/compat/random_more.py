"""More of ``tf.random``: gamma and Poisson samples, and the stateless ops.

TF's random streams cannot be reproduced (its Philox kernels are not symgrad's numpy
generator): these give the right distributions, drawn anew at each ``Session.run``
and reproducible with seeds, like ``tf.random_normal`` here.

- ``gamma(shape, alpha, beta=None)``: shape ``shape + broadcast(alpha, beta)``; Marsaglia
  and Tsang's method (``d v`` with ``v = (1 + x / sqrt(9 d))³``, d = alpha - 1/3, x
  normal, accepted when ``log u < x²/2 + d - d v + d log v``), 12 proposals per sample
  (all rejected: less likely than 1e-15), alpha < 1 as ``gamma(alpha + 1) u^(1/alpha)``;
  divided by beta.  The gradient reaches beta (``-sample / beta``); symgrad differs:
  alpha gets none (TF differentiates the sample implicitly through its CDF).
- ``poisson(lam, shape)``: shape ``shape + lam.shape``; inversion of the CDF for
  lam < 10, Hörmann's transformed rejection (PTRS, 16 proposals) above; no gradient.
- ``stateless_uniform``/``stateless_normal``/``stateless_truncated_normal``: TF's
  numbers for the same ``seed`` (two integers; ``ops.philox.stateless_seeds`` turns it
  into TF's generator key and counter), at every run; ``stateless_categorical``
  (``stateless_multinomial``): the same numbers for the same seed, not TF's; sizes
  must be known when the graph is built.
- ``stateless_dropout(x, rate, seed, noise_shape)`` (``tf.nn.experimental``): TF's mask
  for the same seed (its stateless uniform numbers >= rate, over ``noise_shape``, None
  entries taken from x), the kept entries scaled by 1 / (1 - rate).

Sits in ``compat``; imports ``tracing``, ``distributions`` (the draws), ``initializers``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a = tf.random.stateless_uniform([2], seed=[1, 2])
...     s = tf.Session()
...     print(bool((s.run(a) == s.run(a)).all()))
True
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..ops import broadcast_shapes
from ..ops import philox
from ..tracing.arrays import static_value
from .distributions import drawn

__all__ = ["gamma", "poisson", "stateless_uniform", "stateless_normal",
           "stateless_truncated_normal", "stateless_categorical", "stateless_multinomial"]

_GAMMA_TRIES, _POISSON_TRIES, _INVERSION_TERMS = 12, 16, 48


def _dims(shape, what):
    return tuple(int(d) for d in np.reshape(static_value(shape, what), -1))


def _param(x, dtype):
    x = _t.functions._lift([x])[0]
    return _t.cast(x, dtype) if x.dtype != dtype else x


def _draw(shape, dist, seed, n):
    """``drawn`` numbers; with a seed, the n-th draw of an op gets a seed of its own (one
    seed for two draws would give the same numbers twice)."""
    return drawn(shape, dist, None if seed is None else (int(seed) * 1000003 + n) % 2**31)


def _first_accepted(accepted, values):
    """Per entry, the value of the first proposal (axis 0) accepted; the first
    proposal's value where none was."""
    out = values[-1]
    for k in range(len(values) - 1, -1, -1):
        out = _t.where(accepted[k], values[k], out)
    return out


def _marsaglia_tsang(a, shape, seed):
    """Standard gamma samples of shape ``shape`` for shape parameters ``a`` >= 1."""
    d = a - 1.0 / 3.0
    c = 1.0 / _t.sqrt(9.0 * d)
    x = _draw((_GAMMA_TRIES,) + shape, "normal", seed, 0)
    u = _t.maximum(_draw((_GAMMA_TRIES,) + shape, "uniform", seed, 1), 1e-300)
    v = (1.0 + c * x) ** 3
    positive = _t.greater(v, 0.0)
    log_v = _t.log(_t.where(positive, v, _t.ones_like(v)))
    accept = _t.logical_and(positive, _t.less(_t.log(u), 0.5 * x * x + d - d * v + d * log_v))
    return _first_accepted(_t.unstack(accept), _t.unstack(d * v))


def gamma(shape, alpha, beta=None, dtype=np.float32, seed=None, name=None):
    """Gamma(alpha, rate beta) samples of ``shape + broadcast(alpha, beta).shape``."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"tf.random.gamma: dtype must be a float type, got {dtype}")
    a = _param(alpha, np.float64)
    b = None if beta is None else _param(beta, dtype)
    batch = broadcast_shapes(a.shape, () if b is None else b.shape)
    out_shape = _dims(shape, "tf.random.gamma(shape)") + tuple(int(s) for s in batch)
    a = _t.stop_gradient(a + _t.zeros(out_shape, np.float64))
    small = _t.less(a, 1.0)
    boosted = _t.where(small, a + 1.0, a)
    z = _marsaglia_tsang(boosted, out_shape, seed)
    u = _t.maximum(_draw(out_shape, "uniform", seed, 2), 1e-300)
    # gamma(a) = gamma(a + 1) u^(1/a) for a < 1
    z = _t.where(small, z * u ** (1.0 / _t.where(small, a, _t.ones_like(a))), z)
    z = _t.cast(z, dtype)
    return _t.identity(z if b is None else z / b, name=name)


def _poisson_small(lam, shape, seed):
    """Inversion: the number of CDF terms below a uniform number (lam < 10)."""
    i = np.arange(_INVERSION_TERMS, dtype=np.float64)
    lam_e = _t.expand_dims(lam, -1)
    log_lam = _t.log(_t.maximum(lam_e, 1e-300))
    log_pmf = -lam_e + i * log_lam - _t.constant(_lgamma_table(i))
    cdf = _t.cumsum(_t.exp(log_pmf), axis=-1)
    u = _t.expand_dims(_draw(shape, "uniform", seed, 3), -1)
    count = _t.reduce_sum(_t.cast(_t.less(cdf, u), np.float64), -1)
    return _t.where(_t.greater(lam, 0.0), count, _t.zeros_like(count))


def _lgamma_table(i):
    from math import lgamma
    return np.array([lgamma(v + 1.0) for v in i])


def _poisson_large(lam, shape, seed):
    """Hörmann's PTRS (transformed rejection with squeeze), lam >= 10."""
    s, log_lam = _t.sqrt(lam), _t.log(lam)
    b = 0.931 + 2.53 * s
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    tries = (_POISSON_TRIES,) + shape
    u = _draw(tries, "uniform", seed, 4) - 0.5
    v = _t.maximum(_draw(tries, "uniform", seed, 5), 1e-300)
    us = _t.maximum(0.5 - _t.abs(u), 1e-300)
    k = _t.floor((2.0 * a / us + b) * u + lam + 0.43)
    quick = _t.logical_and(_t.greater_equal(us, 0.07), _t.less_equal(v, vr))
    k_safe = _t.maximum(k, 0.0)
    bound = _t.log(v) + _t.log(inv_alpha) - _t.log(a / (us * us) + b)
    exact = _t.less_equal(bound, -lam + k_safe * log_lam - _t.lgamma(k_safe + 1.0))
    rejected = _t.logical_or(_t.less(k, 0.0),
                             _t.logical_and(_t.less(us, 0.013), _t.greater(v, us)))
    accept = _t.logical_or(quick, _t.logical_and(_t.logical_not(rejected), exact))
    return _first_accepted(_t.unstack(accept), _t.unstack(k_safe))


def poisson(lam, shape, dtype=np.float32, seed=None, name=None):
    """Poisson(lam) samples of ``shape + lam.shape`` (module docstring)."""
    lam = _param(lam, np.float64)
    out_shape = _dims(shape, "tf.random.poisson(shape)") + tuple(int(s) for s in lam.shape)
    lam = _t.stop_gradient(lam + _t.zeros(out_shape, np.float64))
    small = _t.less(lam, 10.0)
    low = _poisson_small(_t.where(small, lam, _t.ones_like(lam)), out_shape, seed)
    high = _poisson_large(_t.where(small, 10.0 + _t.zeros_like(lam), lam), out_shape, seed)
    return _t.cast(_t.where(small, low, high), np.dtype(dtype), name=name)


def _stateless_seeds(seed, what):
    """TF's generator key and counter for a stateless op's seed (``ops.philox``)."""
    values = np.reshape(static_value(seed, f"{what}(seed)"), -1)
    if values.shape != (2,) or values.dtype.kind not in "iu":
        raise ValueError(f"{what}: seed must be two integers (shape [2]), got {values.tolist()}")
    return philox.stateless_seeds(*values)


def _stateless_rng(seed, what):
    return np.random.default_rng([int(v) % 2**64 for v in _stateless_seeds(seed, what)])


def _float_dtype(dtype, what):
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"{what}: dtype must be float32 or float64, got {dtype.name}")
    return dtype


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=np.float32, name=None,
                      alg=None):
    """Uniform numbers in [minval, maxval), TF's for the same seed (integers: maxval
    required)."""
    dims, dtype = _dims(shape, "stateless_uniform(shape)"), np.dtype(dtype)
    seeds = _stateless_seeds(seed, "stateless_uniform")
    if dtype.kind in "iu":
        if maxval is None:
            raise ValueError("stateless_uniform: an integer dtype needs maxval")
        values = philox.uniform_int(dims, dtype, seeds, int(minval), int(maxval))
        return _t.constant(values, name=name)
    dtype = _float_dtype(dtype, "stateless_uniform")
    u = _t.constant(philox.uniform(dims, dtype, seeds))
    high = 1.0 if maxval is None else maxval
    low, high = (_in_dtype(v, dtype) for v in (minval, high))
    return _t.add(u * (high - low), low, name=name)


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """``tf.nn.experimental.stateless_dropout``: dropout by TF's mask for ``seed``."""
    x = _t.as_tensor(x)
    if x.dtype.kind != "f":
        raise ValueError(f"stateless_dropout: x must be a floating point tensor, got "
                         f"{x.dtype.name}")
    if not isinstance(rate, _t.Tensor) and not 0 <= float(rate) < 1:
        raise ValueError(f"stateless_dropout: rate must be a scalar tensor or a float in "
                         f"[0, 1), got {rate}")
    if not isinstance(rate, _t.Tensor) and float(rate) == 0:
        return x
    shape = x.shape if noise_shape is None else [
        x.shape[d] if n is None else int(n) for d, n in enumerate(noise_shape)]
    rate = _t.cast(rate, x.dtype) if isinstance(rate, _t.Tensor) else _in_dtype(rate, x.dtype)
    keep = _t.greater_equal(stateless_uniform(shape, seed, dtype=x.dtype), rate)
    scaled = _t.div(x, 1.0 - rate)
    return _t.where(keep, scaled, _t.zeros_like(scaled), name=name)


def _in_dtype(value, dtype):
    return value if isinstance(value, _t.Tensor) else _t.constant(np.asarray(value, dtype))


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32, name=None, alg=None):
    """Normal numbers, TF's for the same seed."""
    dtype = _float_dtype(dtype, "stateless_normal")
    seeds = _stateless_seeds(seed, "stateless_normal")
    z = _t.constant(philox.normal(_dims(shape, "stateless_normal(shape)"), dtype, seeds))
    return _t.add(z * _in_dtype(stddev, dtype), _in_dtype(mean, dtype), name=name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=np.float32,
                               name=None, alg=None):
    """Normal numbers within two standard deviations, TF's for the same seed."""
    dtype = _float_dtype(dtype, "stateless_truncated_normal")
    seeds = _stateless_seeds(seed, "stateless_truncated_normal")
    z = _t.constant(philox.truncated_normal(_dims(shape, "shape"), dtype, seeds))
    return _t.add(z * _in_dtype(stddev, dtype), _in_dtype(mean, dtype), name=name)


def stateless_categorical(logits, num_samples, seed, dtype=np.int64, name=None):
    """``num_samples`` class indices per row of ``logits`` [batch, classes] (Gumbel-max),
    the same for the same seed."""
    x = _t.functions._lift([logits])[0]
    if x.ndim != 2:
        raise ValueError(f"stateless_categorical: logits must be [batch, classes], got "
                         f"{x.shape}")
    rng = _stateless_rng(seed, "stateless_categorical")
    n = int(num_samples)
    u = np.maximum(rng.uniform(size=(int(x.shape[0]), n, int(x.shape[1]))),
                   np.finfo(np.float64).tiny)
    scores = _t.expand_dims(_t.cast(x, np.float64), 1) + _t.constant(-np.log(-np.log(u)))
    return _t.cast(_t.argmax(scores, -1), np.dtype(dtype), name=name)


def stateless_multinomial(logits, num_samples, seed, output_dtype=np.int64, name=None):
    """TF1's name of :func:`stateless_categorical`."""
    return stateless_categorical(logits, num_samples, seed, output_dtype, name)
