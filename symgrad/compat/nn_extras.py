"""TF1 array and nn names the eighth probe found missing: ``saturate_cast``,
``broadcast_static_shape``, ``broadcast_dynamic_shape``, ``nn.relu_layer``,
``nn.sufficient_statistics``, ``nn.max_pool1d``/``avg_pool1d``, composed from symgrad's
ops with TF's formulas.

Sits in ``compat``; imports the tracing functions and ``compat.tensor``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.saturate_cast(tf.constant([-300.0, 12.7, 300.0]), tf.uint8)
...     print(tf.Session().run(x).tolist())
[0, 12, 255]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.arrays import static_value
from .tensor import TensorShape, tf_dtype_arg

__all__ = ["saturate_cast", "broadcast_static_shape", "broadcast_dynamic_shape", "relu_layer",
           "sufficient_statistics", "max_pool1d", "avg_pool1d"]


def saturate_cast(value, dtype, name=None):
    """``value`` clipped to the range ``dtype`` can hold, then cast (no wrap-around)."""
    x = _t.as_tensor(value)
    target = np.dtype(tf_dtype_arg(dtype))
    (lo, hi), (src_lo, src_hi) = _range(target), _range(x.dtype)
    if lo > src_lo or hi < src_hi:
        x = _t.clip_by_value(x, np.asarray(max(lo, src_lo), x.dtype),
                             np.asarray(min(hi, src_hi), x.dtype))
    return _t.cast(x, target, name=name)


def _range(dtype):
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype) if dtype.kind == "f" \
        else None
    return (float(info.min), float(info.max)) if info is not None else (0.0, 1.0)


def broadcast_static_shape(shape_x, shape_y):
    """The broadcast of two ``TensorShape``s (TF's ValueError when they do not)."""
    x, y = tuple(shape_x), tuple(shape_y)
    out = []
    for a, b in zip(((1,) * len(y) + x)[-max(len(x), len(y)):],
                    ((1,) * len(x) + y)[-max(len(x), len(y)):]):
        if a is None or b is None:
            out.append(b if a == 1 else a if b == 1 else None)
        elif a == 1 or b == 1 or a == b:
            out.append(max(a, b) if 1 in (a, b) else a)
        else:
            raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible "
                             "if for each dimension pair they are either equal or one of them "
                             f"is 1. Received: {TensorShape(x)!r} and {TensorShape(y)!r}.")
    return TensorShape(out)


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast of two shapes given as 1-D tensors (known when the graph is built)."""
    x = [int(d) for d in np.asarray(static_value(shape_x, "broadcast_dynamic_shape(shape_x)"))]
    y = [int(d) for d in np.asarray(static_value(shape_y, "broadcast_dynamic_shape(shape_y)"))]
    return _t.constant(np.asarray(broadcast_static_shape(x, y).as_list(), np.int32))


def relu_layer(x, weights, biases, name=None):
    """``relu(x @ weights + biases)``."""
    return _t.relu(_t.matmul(x, weights) + biases, name=name)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum(x - shift), sum((x - shift)^2), shift)`` over ``axes`` (TF's)."""
    x = _t.as_tensor(x)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = [axes] if isinstance(axes, int) else list(axes)
    count = float(np.prod([x.shape[a] for a in axes]))
    centred = x - shift if shift is not None else x
    mean_ss = _t.reduce_sum(centred, axis=axes, keepdims=keep)
    var_ss = _t.reduce_sum(_t.square(centred), axis=axes, keepdims=keep)
    return _t.constant(np.asarray(count, x.dtype)), mean_ss, var_ss, shift


def _pool1d(pool, x, ksize, strides, padding, data_format, name):
    if data_format not in ("NWC", "NHWC"):
        raise ValueError(f"pool1d: data_format {data_format!r} is not supported; use 'NWC'")
    k = ksize if isinstance(ksize, int) else list(ksize)[-2 if len(list(ksize)) == 3 else 0]
    s = strides if isinstance(strides, int) else list(strides)[-2 if len(list(strides)) == 3
                                                                else 0]
    out = pool(_t.expand_dims(x, 1), [1, 1, int(k), 1], [1, 1, int(s), 1], padding)
    return _t.squeeze(out, [1], name=name)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.max_pool1d`` over [batch, width, channels]."""
    return _pool1d(_t.nn.max_pool, input, ksize, strides, padding, data_format, name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """``tf.nn.avg_pool1d`` over [batch, width, channels]."""
    return _pool1d(_t.nn.avg_pool, input, ksize, strides, padding, data_format, name)
