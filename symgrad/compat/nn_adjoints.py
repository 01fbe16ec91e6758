"""Transposed convolutions and convolution backprops as adjoints: a convolution is
linear in its input (and in its filter), so its transpose applied to ``v`` is the
gradient of ``conv(x, f)`` with respect to x (or f) with ``v`` as ``grad_ys``, at any x
(zeros here).  That gradient is an ordinary graph, so the results are differentiable
in turn (with respect to ``v`` and the filter).

- ``conv3d_transpose``, ``atrous_conv2d_transpose``, ``conv_transpose`` (by rank:
  1-, 2- or 3-D);
- ``conv2d_backprop_filter``, ``conv3d_backprop_filter`` (``_v2``),
  ``depthwise_conv2d_backprop_input``/``_filter`` (and the ``_native_`` names),
  ``conv2d_backprop_filter_v2``/``conv2d_backprop_input_v2`` (filter/input given as
  tensors, their shapes used).

Sits in ``compat``; imports ``tracing``, ``differentiate`` and the compat convolutions.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.nn.conv3d_transpose(tf.ones([1, 1, 1, 1, 1]), tf.ones([2, 2, 2, 1, 1]),
...                                [1, 2, 2, 2, 1], [1, 1, 1, 1, 1], "VALID")
...     print(tf.Session().run(y).sum())
8.0
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients
from ..tracing.arrays import static_value
from .more_ops import depthwise_conv2d
from .nn_more import conv1d_transpose
from .nn_volumes import conv3d

__all__ = ["conv3d_transpose", "atrous_conv2d_transpose", "conv_transpose",
           "conv2d_backprop_filter", "conv3d_backprop_filter", "conv3d_backprop_filter_v2",
           "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter",
           "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
           "conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"]


def _lift(x):
    return _t.functions._lift([x])[0]


def _sizes(shape, what):
    return [int(d) for d in np.reshape(static_value(shape, what), -1)]


def _adjoint(conv, wrt_input, fixed, shape, v, what):
    """``(d conv(a, b) / d a) . v`` (wrt_input) or ``/ d b``, the free argument zeros
    of ``shape`` in ``fixed``'s dtype."""
    v, fixed = _lift(v), _lift(fixed)
    free = _t.zeros(_sizes(shape, what), fixed.dtype)
    out = conv(free, fixed) if wrt_input else conv(fixed, free)
    if tuple(out.shape) != tuple(v.shape):
        raise ValueError(f"{what}: the gradient of shape {tuple(v.shape)} does not fit the "
                         f"convolution's output {tuple(out.shape)}; check the shape, strides "
                         "and padding")
    (g,) = gradients(out, [free], grad_ys=v)
    return g


def conv3d_transpose(value=None, filter=None, output_shape=None, strides=None,  # noqa: A002
                     padding="SAME", data_format="NDHWC", name=None, input=None,
                     filters=None, dilations=None):
    """The adjoint of ``conv3d``: ``value`` [N, OD, OH, OW, O] through ``filter``
    [KD, KH, KW, C, O] into ``output_shape`` [N, D, H, W, C]."""
    value = input if value is None else value
    f = filter if filters is None else filters
    dil = [1] * 5 if dilations is None else dilations
    out = _adjoint(lambda x, k: conv3d(x, k, strides, padding, data_format, dil), True, f,
                   output_shape, value, "conv3d_transpose")
    return _t.identity(out, name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The adjoint of ``atrous_conv2d`` (a convolution with dilation ``rate``)."""
    out = _adjoint(lambda x, k: _t.conv.conv2d(x, k, 1, padding, dilations=int(rate)), True,
                   filters, output_shape, value, "atrous_conv2d_transpose")
    return _t.identity(out, name=name)


def conv_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                   data_format=None, dilations=None, name=None):
    """``conv1d_transpose``, ``conv2d_transpose`` or ``conv3d_transpose`` by the rank of
    ``output_shape``."""
    rank = len(_sizes(output_shape, "conv_transpose(output_shape)"))
    if rank == 3:
        return conv1d_transpose(input, filters, output_shape, strides, padding,
                                data_format or "NWC", dilations, name=name)
    if rank == 4:
        return _t.conv.conv2d_transpose(input, filters, output_shape, strides, padding,
                                        data_format or "NHWC", name=name,
                                        dilations=1 if dilations is None else dilations)
    if rank == 5:
        return conv3d_transpose(input, filters, output_shape, strides, padding,
                                data_format or "NDHWC", name, dilations=dilations)
    raise ValueError(f"conv_transpose: output_shape must have 3, 4 or 5 entries, got {rank}")


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           use_cudnn_on_gpu=True, data_format="NHWC",
                           dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``conv2d`` for its filter (of shape ``filter_sizes``)."""
    out = _adjoint(lambda x, k: _t.conv.conv2d(x, k, strides, padding,
                                               data_format=data_format, dilations=dilations),
                   False, input, filter_sizes, out_backprop, "conv2d_backprop_filter")
    return _t.identity(out, name=name)


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                              use_cudnn_on_gpu=True, data_format="NHWC",
                              dilations=(1, 1, 1, 1), name=None):
    """``conv2d_backprop_filter`` with the filter's shape taken from ``filter``."""
    return conv2d_backprop_filter(input, list(_lift(filter).shape), out_backprop, strides,
                                  padding, use_cudnn_on_gpu, data_format, dilations, name)


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding,  # noqa: A002
                             use_cudnn_on_gpu=True, data_format="NHWC",
                             dilations=(1, 1, 1, 1), name=None):
    """The gradient of ``conv2d`` for its input, the input's shape taken from ``input``."""
    out = _adjoint(lambda x, k: _t.conv.conv2d(x, k, strides, padding,
                                               data_format=data_format, dilations=dilations),
                   True, filter, list(_lift(input).shape), out_backprop,
                   "conv2d_backprop_input_v2")
    return _t.identity(out, name=name)


def conv3d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002
                           data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of ``conv3d`` for its filter (of shape ``filter_sizes``)."""
    out = _adjoint(lambda x, k: conv3d(x, k, strides, padding, data_format, dilations),
                   False, input, filter_sizes, out_backprop, "conv3d_backprop_filter")
    return _t.identity(out, name=name)


conv3d_backprop_filter_v2 = conv3d_backprop_filter


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides,  # noqa: A002
                                    padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                    name=None):
    """The gradient of ``depthwise_conv2d`` for its input (of shape ``input_sizes``)."""
    return _depthwise_adjoint(True, filter, input_sizes, out_backprop, strides, padding,
                              data_format, dilations, name, "depthwise_conv2d_backprop_input")


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides,  # noqa: A002
                                     padding, data_format="NHWC", dilations=(1, 1, 1, 1),
                                     name=None):
    """The gradient of ``depthwise_conv2d`` for its filter (of shape ``filter_sizes``)."""
    return _depthwise_adjoint(False, input, filter_sizes, out_backprop, strides, padding,
                              data_format, dilations, name, "depthwise_conv2d_backprop_filter")


def _depthwise_adjoint(for_input, known, sizes, out_backprop, strides, padding, data_format,
                       dilations, name, what):
    out = _adjoint(lambda x, k: depthwise_conv2d(x, k, strides, padding,
                                                 data_format=data_format, dilations=dilations),
                   for_input, known, sizes, out_backprop, what)
    return _t.identity(out, name=name)


depthwise_conv2d_native_backprop_input = depthwise_conv2d_backprop_input
depthwise_conv2d_native_backprop_filter = depthwise_conv2d_backprop_filter
