"""TF1 ops that are a line or two of other ops: ``tf.meshgrid``, ``tf.roll``
(``tf.manip.roll``), ``tf.div_no_nan`` (``tf.math.divide_no_nan``) and
``tf.nn.xw_plus_b``; their gradients are those of the ops they are made of.

- ``meshgrid(*xs, indexing="xy")``: N-d grids; "xy" (the default, as numpy's) swaps
  the first two output axes, "ij" keeps the inputs' order.
- ``roll(input, shift, axis)``: the entries move ``shift`` places along ``axis`` and
  wrap round (two slices concatenated); shifts known when the graph is built, several
  on one axis add up.
- ``div_no_nan(x, y)``: ``x / y``, 0 where y is 0 (its gradient 0 there too: the
  division sees 1 in place of a zero y).
- ``xw_plus_b(x, weights, biases)``: ``x @ weights + biases``.
- ``pad(tensor, paddings, mode, name, constant_values)``: TF1's argument order; a
  REFLECT (SYMMETRIC) pad not narrower than (as wide as) the axis is TF's
  InvalidArgumentError.
- ``gather_nd`` also where the axes its index tuples address have sizes known only at
  run time (``gather_nd(outputs, stack([range(batch), lengths - 1], 1))`` over
  [batch, time, units] with both unknown): the tuples become flat row numbers with
  strides read from ``tf.shape``, then a ``gather``.
- ``tf.tuple(tensors)`` (``tf_tuple`` here): the tensors, each passed through an identity (symgrad computes
  every tensor of a run before any operation acts, which is what tf.tuple's grouping
  asks for); ``tf.identity_n`` likewise.
- ``tf.nn.fused_batch_norm(x, scale, offset, mean, variance, epsilon, is_training)``:
  ``(y, mean, variance)``; in training the batch's moments over all axes but the
  channels, y normalised with the biased variance and the variance returned with
  Bessel's correction (what TF's fused kernel hands to the moving averages).
- ``tf.nn.convolution`` and ``tf.nn.pool`` (the N-d forms WaveNet code calls): ``conv1d``
  or ``conv2d`` (``max_pool``/``avg_pool``) by the input's rank, channels last.

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run(tf.roll(tf.range(5), shift=2, axis=0)))
[3 4 0 1 2]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError, ShapeError
from ..dims import is_static
from ..graph import Node
from ..tracing import arrays as _arrays
from ..tracing.arrays import static_value
from . import rows as _rows
from .metrics import div_no_nan  # noqa: F401  (tf.div_no_nan: one with the metrics')
from .errors import InvalidArgumentError
from .v1_ops import nn

__all__ = ["meshgrid", "roll", "div_no_nan", "xw_plus_b", "convolution", "pool", "gather_nd", "tf_tuple",
           "identity_n", "fused_batch_norm", "pad"]


def meshgrid(*args, **kwargs):
    """``tf.meshgrid(x, y, ..., indexing="xy", name=None)``: one grid per input."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [_t.reshape(_t.as_tensor(x), [-1]) for x in args]
    sizes = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, x in enumerate(xs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) > 1 else i
        shape = [1] * len(xs)
        shape[axis] = -1
        full = _t.reshape(x, shape) * _t.ones(sizes, dtype=x.dtype)
        grids.append(_t.identity(full, name=f"{name}_{i}") if name else full)
    return grids


def roll(input, shift, axis, name=None):  # noqa: A002  (TF's argument name)
    """``tf.roll``: entries moved ``shift`` places along ``axis``, wrapping round."""
    x = _t.as_tensor(input)
    shifts = np.atleast_1d(static_value(shift, "roll(shift)")).astype(int)
    axes = np.atleast_1d(static_value(axis, "roll(axis)")).astype(int)
    if shifts.shape != axes.shape:
        raise ValueError(f"roll: shift {shifts.tolist()} and axis {axes.tolist()} must have "
                         f"the same length")
    total = {}
    for s, a in zip(shifts, axes):
        if not -x.ndim <= int(a) < x.ndim:   # (TF's Roll kernel refuses it when it runs)
            raise InvalidArgumentError(None, None, f"roll: axis {int(a)} is not in "
                                       f"[-{x.ndim}, {x.ndim}) for a tensor of shape {x.shape}")
        a = int(a) % x.ndim
        total[a] = total.get(a, 0) + int(s)
    for a, s in total.items():
        n = x.shape[a]
        if not isinstance(n, int):
            raise ShapeError(f"roll: axis {a} of shape {x.shape} must have a known size")
        s %= n
        if s:
            lead = (slice(None),) * a
            x = _t.concat([x[lead + (slice(n - s, None),)], x[lead + (slice(0, n - s),)]], a)
    return _t.identity(x, name=name) if name else x


def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """``tf.pad`` with TF1's argument order (``name`` before ``constant_values``)."""
    try:
        return _t.pad(tensor, paddings, mode=mode, constant_values=constant_values,
                      name=name)
    except ArgumentError as exc:   # (a mirrored pad too wide: TF's kernel's error class)
        raise InvalidArgumentError(None, None, str(exc)) from None


def xw_plus_b(x, weights, biases, name=None):
    """``tf.nn.xw_plus_b``: ``matmul(x, weights) + biases``."""
    return _t.add(_t.matmul(x, weights), biases, name=name)


def _per_axis(value, n, what):
    """A size per spatial axis from None (1), a number or a list."""
    if value is None:
        return [1] * n
    values = [int(v) for v in np.atleast_1d(value)]
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise ValueError(f"{what} must have one entry per spatial axis ({n}), got {values}")
    return values


def convolution(input, filter=None, padding=None, strides=None,  # noqa: A002
                dilation_rate=None, name=None, data_format=None, filters=None,
                dilations=None):
    """``tf.nn.convolution``: ``conv1d`` for [batch, width, channels], ``conv2d`` for
    [batch, height, width, channels] (channels last)."""
    x = _t.as_tensor(input)
    w = filter if filter is not None else filters
    n = x.ndim - 2
    if n not in (1, 2) or data_format not in (None, "NWC", "NHWC"):
        raise ValueError(f"tf.nn.convolution: 1-d and 2-d inputs with channels last are "
                         f"supported (got shape {x.shape}, data_format={data_format!r}); "
                         f"use tf.nn.conv1d or tf.nn.conv2d")
    rate = _per_axis(dilation_rate if dilation_rate is not None else dilations, n,
                     "convolution(dilation_rate)")
    step = _per_axis(strides, n, "convolution(strides)")
    if n == 1:
        return nn.conv1d(x, w, stride=step[0], padding=padding, dilations=rate[0], name=name)
    return nn.conv2d(x, w, strides=[1] + step + [1], padding=padding,
                     dilations=[1] + rate + [1], name=name)


def pool(input, window_shape, pooling_type, padding, dilation_rate=None,  # noqa: A002
         strides=None, name=None, data_format=None):
    """``tf.nn.pool``: ``max_pool``/``avg_pool`` over the spatial axes (1-d inputs as
    images of height 1)."""
    x = _t.as_tensor(input)
    n = x.ndim - 2
    if n not in (1, 2) or data_format not in (None, "NWC", "NHWC") or \
            any(r != 1 for r in _per_axis(dilation_rate, max(n, 1), "pool(dilation_rate)")):
        raise ValueError(f"tf.nn.pool: 1-d and 2-d inputs with channels last and no dilation "
                         f"are supported (got shape {x.shape}); use tf.nn.max_pool")
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"tf.nn.pool: pooling_type must be 'MAX' or 'AVG', got {pooling_type!r}")
    size, step = _per_axis(window_shape, n, "pool(window_shape)"), \
        _per_axis(strides, n, "pool(strides)")
    op = nn.max_pool if pooling_type == "MAX" else nn.avg_pool
    if n == 1:
        out = op(_t.expand_dims(x, 1), [1, 1, size[0], 1], [1, 1, step[0], 1], padding)
        return _t.squeeze(out, [1], name=name)
    return op(x, [1] + size + [1], [1] + step + [1], padding, name=name)


def gather_nd(params, indices, batch_dims=0, name=None):
    """``tf.gather_nd`` (``tracing.arrays``'), with run-time strides where the addressed
    axes' sizes are unknown when the graph is built (module docstring)."""
    p = _t.as_tensor(params)
    if not batch_dims:
        indices = _rows.at_run_time(p, indices, nd=True)
    if _row_indices(indices) and not batch_dims and p.shape is not None:
        # TF's gradient of indices [n, 1] is IndexedSlices of those rows (as tf.gather's),
        # which the optimizers apply sparsely (momentum leaves the other rows alone)
        return _rows.gather(p, _t.as_tensor(indices)[:, 0], name=name)
    if not isinstance(indices, Node) or batch_dims or p.shape is None:
        return _arrays.gather_nd(p, indices, batch_dims=batch_dims, name=name)
    m = indices.shape[-1]
    if not isinstance(m, int) or is_static(p.shape[1:m]):
        return _arrays.gather_nd(p, indices, name=name)
    rest = p.shape[m:]
    if not is_static(rest):
        raise ShapeError(f"gather_nd: params of shape {p.shape}: the axes after the {m} "
                         f"addressed ones need known sizes")
    sizes = _t.cast(_t.shape(p), indices.dtype)
    flat, stride = None, None
    for k in reversed(range(m)):
        term = indices[..., k] if stride is None else indices[..., k] * stride
        flat = term if flat is None else flat + term
        stride = sizes[k] if stride is None else stride * sizes[k]
    rows = _t.reshape(p, [-1] + [int(d) for d in rest])
    return _t.gather(rows, flat, name=name)


def _row_indices(indices):
    """True for indices of shape [n, 1] (n known or not): whole rows of params."""
    shape = indices.shape if isinstance(indices, Node) else np.shape(indices)
    return shape is not None and len(shape) == 2 and shape[-1] == 1


def tf_tuple(tensors, name=None, control_inputs=None):
    """``tf.tuple``: identities of ``tensors`` (None entries stay None)."""
    if control_inputs:
        raise ValueError("tf.tuple(control_inputs=...) is not supported; wrap the tensors "
                         "in tf.control_dependencies(control_inputs) and tf.identity")
    return [None if t is None else _t.identity(t) for t in tensors]


def identity_n(input, name=None):  # noqa: A002
    """``tf.identity_n``: an identity of each tensor of the list."""
    return [_t.identity(t) for t in input]


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None,
                     exponential_avg_factor=1.0):
    """``tf.nn.fused_batch_norm`` (module docstring), channels last."""
    v = _t.as_tensor(x)
    if data_format not in ("NHWC", "NDHWC") or v.ndim not in (4, 5):
        raise ValueError(f"fused_batch_norm: channels-last 4-d or 5-d inputs are supported, "
                         f"got shape {v.shape} ({data_format})")
    if is_training:
        axes = list(range(v.ndim - 1))
        m = _t.reduce_mean(v, axes)
        var = _t.reduce_mean(_t.square(v - m), axes)
        count = _t.cast(_t.size(v) // _t.shape(v)[-1], v.dtype)
        unbiased = var * count / _t.maximum(count - 1.0, 1.0)
    else:
        if mean is None or variance is None:
            raise ValueError("fused_batch_norm(is_training=False) needs mean and variance")
        m, var = (_t.cast(_t.as_tensor(t), v.dtype) for t in (mean, variance))
        unbiased = var
    scale, offset = (_t.cast(_t.as_tensor(t), v.dtype) for t in (scale, offset))
    y = (v - m) * _t.rsqrt(var + epsilon) * scale + offset
    return (_t.identity(y, name=name) if name else y), m, unbiased
