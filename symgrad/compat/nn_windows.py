"""Window operations of ``tf.nn`` by rank and grey-scale morphology.

- ``max_pool_v2``/``avg_pool_v2``: the 1-, 2- or 3-D pool by the input's rank (3, 4, 5).
- ``dilation2d(input, filter, strides, rates, padding)``: ``max over the window of
  input + filter`` per channel (filter [KH, KW, C]); the gradient goes to the first
  maximum of each window (row-major), for the input and the filter, as TF's.
- ``erosion2d(value, kernel, ...)``: ``-dilation2d(-value, kernel flipped in both
  spatial axes)``.
- ``batch_norm_with_global_normalization``: ``batch_normalization`` with gamma applied
  only when ``scale_after_normalization``.

Sits in ``compat``; imports ``tracing`` and ``nn_more``/``nn_volumes``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant(np.arange(4.0).reshape(1, 2, 2, 1))
...     y = tf.nn.dilation2d(x, tf.zeros([2, 2, 1], tf.float64), [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
...     print(tf.Session().run(y).ravel())
[3.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..ops import literal
from ..tracing.conv import _spatial, _windows
from .nn_more import avg_pool1d, max_pool1d
from .nn_volumes import avg_pool3d, max_pool3d

__all__ = ["max_pool_v2", "avg_pool_v2", "dilation2d", "erosion2d",
           "batch_norm_with_global_normalization"]


def _by_rank(x, pools, what):
    rank = _t.functions._lift([x])[0].ndim
    if rank not in pools:
        raise ValueError(f"tf.nn.{what}: input must have rank 3, 4 or 5 ([N, ..., C]), got "
                         f"rank {rank}")
    return pools[rank]


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``max_pool1d``, ``max_pool`` or ``max_pool3d`` by the input's rank."""
    pool = _by_rank(input, {3: max_pool1d, 4: _t.nn.max_pool, 5: max_pool3d}, "max_pool_v2")
    args = {} if data_format is None else {"data_format": data_format}
    return pool(input, ksize, strides, padding, name=name, **args)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002
    """``avg_pool1d``, ``avg_pool`` or ``avg_pool3d`` by the input's rank."""
    pool = _by_rank(input, {3: avg_pool1d, 4: _t.nn.avg_pool, 5: avg_pool3d}, "avg_pool_v2")
    args = {} if data_format is None else {"data_format": data_format}
    return pool(input, ksize, strides, padding, name=name, **args)


def dilation2d(input=None, filter=None, strides=None, rates=None, padding=None,  # noqa: A002
               name=None, filters=None, dilations=None, data_format="NHWC"):
    """Grey-scale dilation of [N, H, W, C] by ``filter`` [KH, KW, C]."""
    x = _t.functions._lift([input])[0]
    f = _t.functions._lift([filter if filters is None else filters])[0]
    if x.ndim != 4 or f.ndim != 3 or f.shape[2] != x.shape[3]:
        raise ValueError(f"tf.nn.dilation2d: input [N, H, W, C] and filter [KH, KW, C] must "
                         f"agree, got {x.shape} and {f.shape}")
    kh, kw = int(f.shape[0]), int(f.shape[1])
    patches, _ = _windows(x, (kh, kw), _spatial(strides, "dilation2d(strides)"),
                          _spatial(rates if dilations is None else dilations,
                                   "dilation2d(rates)"), padding, -np.inf)
    taps = _t.transpose(_t.reshape(f, [kh * kw, -1]), [1, 0])   # [C, K]
    sums = patches + taps
    k = kh * kw
    iota = literal(x.graph, np.arange(k, dtype=np.float64))
    hit = _t.equal(sums, _t.reduce_max(sums, -1, keepdims=True))
    first = _t.reduce_min(_t.where(hit, iota, float(k)), -1, keepdims=True)
    chosen = _t.where(_t.equal(iota, first), sums, _t.zeros_like(sums))
    return _t.reduce_sum(chosen, -1, name=name)


def erosion2d(value, kernel, strides, rates, padding, name=None):
    """Grey-scale erosion: ``-dilation2d(-value, kernel flipped)``."""
    k = _t.functions._lift([kernel])[0]
    out = dilation2d(-_t.functions._lift([value])[0], _t.reverse(k, [0, 1]), strides, rates,
                     padding)
    return _t.negative(out, name=name)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None,
                                         scale_after_normalization=None, name=None,
                                         input=None, mean=None, variance=None):  # noqa: A002
    """``(t - m) / sqrt(v + eps) * gamma + beta`` (gamma only with
    ``scale_after_normalization``)."""
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    return _t.nn.batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None,
                                     variance_epsilon, name=name)
