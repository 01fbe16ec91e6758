"""3-D convolution and pooling (``tf.nn.conv3d``, ``max_pool3d``, ``avg_pool3d``) on
[N, D, H, W, C] from the 2-D ops: depth tap ``dz`` reads the depth slices
``dz*dilation, + stride, ...`` of the (padded) input; each slice stack goes through the
2-D op with the tap's [KH, KW, C, O] filter, and the taps are summed (conv), maxed
(max pool: the first depth with the maximum, then the first (h, w), TF's order) or
averaged over the real, unpadded slices (avg pool).

Sits in ``compat``; imports ``tracing``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant(np.ones((1, 2, 2, 2, 1), np.float32))
...     print(tf.Session().run(tf.nn.conv3d(x, np.ones((2, 2, 2, 1, 1), np.float32),
...                                         [1, 1, 1, 1, 1], "VALID")).ravel())
[8.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Dim
from ..ops.base import filled
from ..tracing import conv_sizes
from ..tracing.conv import _geometry, _spatial
from .tensor import added

__all__ = ["conv3d", "max_pool3d", "avg_pool3d"]


def _ndhwc(x, data_format, what):
    if str(data_format or "NDHWC").upper() != "NDHWC":
        raise ValueError(f"{what}: data_format={data_format!r} is not supported; transpose "
                         "the input to NDHWC (channels last)")
    x = _t.functions._lift([x])[0]
    if x.ndim != 5:
        raise ValueError(f"{what}: input must be 5-D [N, D, H, W, C], got shape {x.shape}")
    return x


def _depth_slices(x, k, stride, dilation, padding, fill):
    """For each depth tap, the input slices it reads, as (N * OD, H, W, C); and OD and
    the padding before (depth, height or width may be known only at run time)."""
    rest = tuple(x.shape[2:])
    if isinstance(x.shape[1], Dim):
        taps, od, (before, _) = conv_sizes.axis_taps(x, 1, k, stride, dilation, padding, fill)
        return [_t.reshape(t, (-1,) + rest) for t in taps], od, before
    od, before, after = _geometry(int(x.shape[1]), k, stride, dilation, padding)
    if before or after:
        x = _t.pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]], constant_values=fill)
    taps = []
    for dz in range(k):
        start = dz * dilation
        taps.append(_t.reshape(x[:, start:start + (od - 1) * stride + 1:stride], (-1,) + rest))
    return taps, od, before


def _stacked(y, od):
    return _t.reshape(y, (-1, od) + tuple(y.shape[1:]))


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",  # noqa: A002
           dilations=(1, 1, 1, 1, 1), name=None, filters=None):
    """3-D cross-correlation of [N, D, H, W, C] with ``filter`` [KD, KH, KW, C, O]."""
    x = _ndhwc(input, data_format, "conv3d")
    f = _t.functions._lift([filter if filters is None else filters])[0]
    if f.ndim != 5 or f.shape[3] != x.shape[4]:
        raise ValueError(f"conv3d: filter {f.shape} must be [KD, KH, KW, C, O] with C = "
                         f"{x.shape[4]}, the input's channels")
    (sd, sh, sw), (dd, dh, dw) = (_spatial(strides, "conv3d(strides)", 3),
                                  _spatial(dilations, "conv3d(dilations)", 3))
    taps, od, _ = _depth_slices(x, int(f.shape[0]), sd, dd, padding, 0)
    parts = [_t.conv.conv2d(t, f[dz], (sh, sw), padding, dilations=(dh, dw))
             for dz, t in enumerate(taps)]
    return _t.identity(_stacked(added(parts, "conv3d"), od),
                       name=name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Maximum over each [KD, KH, KW] window of [N, D, H, W, C]."""
    x = _ndhwc(input, data_format, "max_pool3d")
    (kd, kh, kw), (sd, sh, sw) = (_spatial(ksize, "max_pool3d(ksize)", 3),
                                  _spatial(strides, "max_pool3d(strides)", 3))
    taps, od, _ = _depth_slices(x, kd, sd, 1, padding, -np.inf)
    out = None
    for t in taps:   # maximum sends a tie to its first argument: the earlier depth
        m = _t.nn.max_pool(t, (kh, kw), (sh, sw), padding)
        out = m if out is None else _t.maximum(out, m)
    return _t.identity(_stacked(out, od), name=name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Mean over each [KD, KH, KW] window of [N, D, H, W, C] (SAME: real entries only)."""
    x = _ndhwc(input, data_format, "avg_pool3d")
    (kd, kh, kw), (sd, sh, sw) = (_spatial(ksize, "avg_pool3d(ksize)", 3),
                                  _spatial(strides, "avg_pool3d(strides)", 3))
    taps, od, before = _depth_slices(x, kd, sd, 1, padding, 0)
    # each 2-D mean already divides by its real (h, w) count; padded slices are zeros
    total = added([_t.nn.avg_pool(t, (kh, kw), (sh, sw), padding) for t in taps], "avg_pool3d")
    return _t.divide(_stacked(total, od), _real_depths(x, kd, sd, padding, od, before),
                     name=name)


def _real_depths(x, kd, sd, padding, od, before):
    """How many real (unpadded) depth slices each window reads, as (1, OD, 1, 1, 1): a
    literal when the depth is known, else the taps' sums over ones of the run-time depth."""
    depth = x.shape[1]
    if isinstance(depth, Dim):
        ones = filled(x.graph, 1, (1, depth, 1, 1, 1), x.dtype)
        return added(conv_sizes.axis_taps(ones, 1, kd, sd, 1, padding, 0)[0], "real_depths")
    reads = np.arange(od)[:, None] * sd + np.arange(kd)[None, :] - before
    real = ((reads >= 0) & (reads < depth)).sum(1).astype(x.dtype)
    return real.reshape(1, od, 1, 1, 1)
