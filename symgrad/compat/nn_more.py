"""``tf.nn`` functions TF1 programs call, built from symgrad's convolutions, pools and
reductions (their gradients are those of the ops they are made of).

- ``relu_layer(x, w, b)``: ``relu(x @ w + b)``.
- ``sufficient_statistics`` (count, sum of x - shift, sum of (x - shift)², shift),
  ``normalize_moments`` (mean and variance from them), ``weighted_moments``
  (frequency-weighted mean and variance, 0 where the weights sum to 0).
- ``max_pool1d``/``avg_pool1d`` and ``conv1d_transpose``: the 2-D ops with height 1;
  ``conv2d_backprop_input``: ``conv2d_transpose`` (the same adjoint);
  ``depthwise_conv2d_native``: ``depthwise_conv2d``.
- ``max_pool_with_argmax``: the pooled values and the flat index of each maximum
  (``(y * W + x) * C + c``, plus ``n * H * W * C`` with ``include_batch_in_index``).
- ``compute_average_loss``, ``scale_regularization_loss`` (one replica).

Sits in ``compat``; imports ``tracing`` and ``more_ops``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([[[1.0], [3.0], [2.0], [5.0]]])
...     print(tf.Session().run(tf.nn.max_pool1d(x, 2, 2, "VALID"))[0, :, 0])
[3. 5.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Dim
from ..ops import literal
from ..ops.draws import iota_of
from ..ops.sizes import sizes_of
from ..tracing.conv import _spatial, _windows
from .more_ops import depthwise_conv2d
from .tensor import added

__all__ = ["relu_layer", "sufficient_statistics", "normalize_moments", "weighted_moments",
           "max_pool1d", "avg_pool1d", "conv1d_transpose", "conv2d_backprop_input",
           "depthwise_conv2d_native",
           "max_pool_with_argmax", "compute_average_loss", "scale_regularization_loss"]


def _lift(x):
    return _t.functions._lift([x])[0]


def relu_layer(x, weights, biases, name=None):
    """``relu(x @ weights + biases)``."""
    return _t.relu(_t.matmul(x, weights) + biases, name=name)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """``(count, sum(x - shift), sum((x - shift)²), shift)`` over ``axes``; ``count`` the
    number of entries reduced (x's dtype), ``shift`` None when not given."""
    x = _lift(x)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = [a % x.ndim for a in np.atleast_1d(axes).tolist()]
    sizes = [x.shape[a] for a in axes]
    if all(isinstance(s, (int, np.integer)) for s in sizes):
        count = _t.constant(np.asarray(np.prod(sizes), x.dtype))
    else:
        count = _t.cast(_t.reduce_prod(_t.gather(_t.shape(x), axes)), x.dtype)
    m = x if shift is None else x - shift
    return (count, _t.reduce_sum(m, axes, keepdims=keep),
            _t.reduce_sum(_t.square(m), axes, keepdims=keep), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """Mean and variance from sufficient statistics: ``mean_ss / counts (+ shift)`` and
    ``variance_ss / counts - (mean_ss / counts)²``."""
    mean_ss = _lift(mean_ss)   # (a Python count takes the statistics' dtype, as in TF)
    divisor = _t.reciprocal(_t.cast(_lift(counts), mean_ss.dtype))
    shifted_mean = mean_ss * divisor
    mean = shifted_mean if shift is None else shifted_mean + shift
    return mean, variance_ss * divisor - _t.square(shifted_mean)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """Frequency-weighted mean and variance over ``axes`` (weights broadcast against x);
    both 0 where the weights sum to 0."""
    from .small_ops import div_no_nan
    x, w = _lift(x), _lift(frequency_weights)
    keep = bool(keepdims if keepdims is not None else keep_dims)
    axes = [a % x.ndim for a in np.atleast_1d(axes).tolist()]
    total = _t.reduce_sum(w + _t.zeros_like(x), axes, keepdims=True)
    mean = div_no_nan(_t.reduce_sum(w * x, axes, keepdims=True), total)
    var = div_no_nan(_t.reduce_sum(w * _t.squared_difference(x, mean), axes, keepdims=True),
                     total)
    if not keep:
        mean, var = _t.squeeze(mean, axes), _t.squeeze(var, axes)
    return mean, var


def _as_2d(x, data_format, what):
    if str(data_format or "NWC").upper().startswith("NC"):
        raise ValueError(f"{what}: data_format={data_format!r} is not supported; transpose "
                         "the input to NWC (channels last)")
    return _t.expand_dims(_lift(x), 1)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Maximum over windows of [N, W, C] (``max_pool`` with height 1)."""
    (k,), (s,) = _spatial(ksize, "max_pool1d(ksize)", 1), _spatial(strides, "max_pool1d", 1)
    y = _t.nn.max_pool(_as_2d(input, data_format, "max_pool1d"), (1, k), (1, s), padding)
    return _t.squeeze(y, [1], name=name)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """Mean over windows of [N, W, C] (SAME: over the real elements only)."""
    (k,), (s,) = _spatial(ksize, "avg_pool1d(ksize)", 1), _spatial(strides, "avg_pool1d", 1)
    y = _t.nn.avg_pool(_as_2d(input, data_format, "avg_pool1d"), (1, k), (1, s), padding)
    return _t.squeeze(y, [1], name=name)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None, name=None):
    """The adjoint of ``conv1d``: ``input`` [N, W, O] through ``filters`` [K, C, O]
    into ``output_shape`` [N, W', C]."""
    (s,) = _spatial(strides, "conv1d_transpose(strides)", 1)
    (d,) = _spatial(1 if dilations is None else dilations, "conv1d_transpose(dilations)", 1)
    shape = sizes_of(output_shape)   # tf.shape(x) or a stack of sizes: known at run time
    if shape is None or len(shape) != 3:
        shape = [int(v) for v in _t.arrays.static_value(output_shape,
                                                        "conv1d_transpose(output_shape)")]
    shape = list(shape)
    y = _t.conv.conv2d_transpose(_as_2d(input, data_format, "conv1d_transpose"),
                            _t.expand_dims(_lift(filters), 0), [shape[0], 1] + shape[1:],
                            (1, s), padding, dilations=(1, d))
    return _t.squeeze(y, [1], name=name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,  # noqa: A002
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=(1, 1, 1, 1), name=None, filters=None):
    """The gradient of ``conv2d`` for its input: ``conv2d_transpose`` of ``out_backprop``."""
    return _t.conv.conv2d_transpose(out_backprop, filter if filters is None else filters,
                               input_sizes, strides, padding, data_format=data_format,
                               dilations=dilations, name=name)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",  # noqa: A002
                            dilations=(1, 1, 1, 1), name=None):
    """``depthwise_conv2d`` (the op it is built on in TF)."""
    return depthwise_conv2d(input, filter, strides, padding, data_format=data_format,
                            dilations=dilations, name=name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size``; the batch size
    defaults to the loss's first dimension (one replica)."""
    loss = _lift(per_example_loss)
    if sample_weight is not None:
        loss = loss * sample_weight
    total = _t.reduce_sum(loss)
    if global_batch_size is None:
        size = _t.shape(loss)[0] if loss.ndim else 1
        return total / _t.cast(size, total.dtype)
    if isinstance(global_batch_size, (int, float, np.number)) and global_batch_size <= 0:
        raise ValueError(f"compute_average_loss: global_batch_size must be positive, got "
                         f"{global_batch_size}")
    return total / _t.cast(global_batch_size, total.dtype)


def scale_regularization_loss(regularization_loss):
    """The regularization loss (a tensor or a list, summed) over the replicas: one here."""
    if isinstance(regularization_loss, (list, tuple)):
        return added([_lift(r) for r in regularization_loss], "scale_regularization_loss")
    return _t.identity(_lift(regularization_loss))


def _flat_positions(x, sizes, ksize, strides, padding, top, left):
    """The flat [H, W, C] index of every window element, laid out as the windows
    (OH, OW, C, K) (with a leading 1 when the sizes are known at run time: then they are
    the windows of the positions themselves)."""
    (_, h, w, c), (oh, ow) = x.shape, sizes
    if isinstance(h, Dim) or isinstance(w, Dim):
        positions = _t.reshape(iota_of(x.graph, h * w * c, np.float64), (1, h, w, c))
        return _t.cast(_windows(positions, ksize, strides, (1, 1), padding, -1.0)[0], np.int64)
    taps = np.arange(ksize[0] * ksize[1])
    rows = np.arange(oh)[:, None] * strides[0] + taps[None, :] // ksize[1] - top
    cols = np.arange(ow)[:, None] * strides[1] + taps[None, :] % ksize[1] - left
    flat = ((rows[:, None, None, :] * w + cols[None, :, None, :]) * c
            + np.arange(c)[None, None, :, None])   # (OH, OW, C, K)
    return literal(x.graph, flat.astype(np.int64))


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         Targmax=None, output_dtype=None, include_batch_in_index=False,
                         name=None):
    """``(max_pool(input), argmax)``: argmax the flat index of each window's first
    maximum in [H, W, C] (with the batch, [N, H, W, C]), int64."""
    x = _lift(input)
    if str(data_format).upper() != "NHWC":
        raise ValueError("max_pool_with_argmax: only data_format='NHWC' (as TF)")
    ksize, strides = _spatial(ksize, "max_pool_with_argmax(ksize)"), _spatial(strides, "strides")
    patches, (top, _, left, _) = _windows(x, ksize, strides, (1, 1), padding, -np.inf)
    k = patches.shape[-1]
    iota = literal(x.graph, np.arange(k, dtype=np.float64))
    hit = _t.equal(patches, _t.reduce_max(patches, -1, keepdims=True))
    first = _t.reduce_min(_t.where(hit, iota, float(k)), -1, keepdims=True)
    chosen = _t.equal(iota, first)
    pooled = _t.reduce_sum(_t.where(chosen, patches, _t.zeros_like(patches)), -1)
    flat = _flat_positions(x, patches.shape[1:3], ksize, strides, padding, top, left)
    index = _t.reduce_sum(_t.where(chosen, flat, literal(x.graph, np.zeros((), np.int64))), -1)
    if include_batch_in_index:
        h, w, c = x.shape[1:]
        if isinstance(h, Dim) or isinstance(w, Dim):   # read when the input arrives
            h, w = (_t.cast(_t.shape(x)[a], np.int64) for a in (1, 2))
        batch = _t.cast(_t.range(_t.shape(x)[0]), np.int64) * (h * w * c)
        index = index + _t.reshape(batch, [-1, 1, 1, 1])
    return _t.identity(pooled, name=name), index
