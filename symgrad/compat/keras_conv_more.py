"""The depthwise and separable convolution layers of ``tf.keras.layers``:
``DepthwiseConv2D``, ``SeparableConv2D`` and ``SeparableConv1D`` (also
``SeparableConvolution1D/2D``), with TF1 keras's weight names and shapes:

- ``DepthwiseConv2D(kernel_size, depth_multiplier=1)``: ``depthwise_kernel``
  [kh, kw, C, depth_multiplier] (each input channel convolved apart:
  ``tf.nn.depthwise_conv2d``), ``bias`` [C * depth_multiplier];
- ``SeparableConv2D(filters, kernel_size, depth_multiplier=1)``: the depthwise
  convolution then a 1x1 one, ``pointwise_kernel`` [1, 1, C * depth_multiplier,
  filters] (``tf.nn.separable_conv2d``), ``bias`` [filters];
- ``SeparableConv1D``: the same on [N, W, C] with kernels [k, C, m] and [1, C * m,
  filters], run as the 2-d layer on a height of 1.

Strides, padding ("valid"/"same"), dilation_rate, activation, use_bias and the
initializers, regularizers and constraints of each kernel are keras's.  The
depthwise kernel takes glorot_uniform over its own shape (fans kh * kw * m and
kh * kw * C), as keras does.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules, layers and
more_ops.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.SeparableConv2D(4, 3, depth_multiplier=2)
...     y = layer(tf.zeros([1, 5, 5, 3]))
...     print(y.shape, [tuple(w.shape) for w in layer.weights])
(1, 3, 3, 4) [(3, 3, 3, 2), (1, 1, 6, 4), (4,)]
"""
from __future__ import annotations

from .. import tracing as _t
from . import keras_objects as _objects
from .keras_core import _Conv
from .more_ops import depthwise_conv2d, separable_conv2d

__all__ = ["DepthwiseConv2D", "SeparableConv2D", "SeparableConv1D",
           "SeparableConvolution2D", "SeparableConvolution1D"]   # (tf.keras.layers.*)


class _Depthwise(_Conv):
    """The shared part: keras's depthwise kernel (and, if ``pointwise``, the 1x1 kernel)."""
    pointwise = True

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer=bias_initializer,
                         bias_regularizer=bias_regularizer, bias_constraint=bias_constraint,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self._depthwise_args = (_objects.get_initializer(depthwise_initializer),
                                _objects.get_regularizer(depthwise_regularizer),
                                depthwise_constraint)
        self._pointwise_args = (_objects.get_initializer(pointwise_initializer),
                                _objects.get_regularizer(pointwise_regularizer),
                                pointwise_constraint)

    def _kernel(self, name, shape, args):
        initializer, regularizer, constraint = args
        return self.add_weight(name, shape, initializer=initializer, regularizer=regularizer,
                               constraint=constraint)

    def _make(self, kernel_shape, units):
        channels, m = kernel_shape[-1], self.depth_multiplier
        self.depthwise_kernel = self._kernel(
            "depthwise_kernel", self.kernel_size + (channels, m), self._depthwise_args)
        self.pointwise_kernel = None
        if self.pointwise:
            self.pointwise_kernel = self._kernel(
                "pointwise_kernel", (1,) * self.rank + (channels * m, self.filters),
                self._pointwise_args)
        else:
            units = channels * m
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", (units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _kernel_shape(self, channels):
        return (channels,)   # (read by _make: the input's channels)

    def _convolve(self, x, depthwise, pointwise, strides, dilations):
        strides = (1,) + strides + (1,)
        if pointwise is None:
            return depthwise_conv2d(x, depthwise, strides, self.padding, dilations=dilations)
        return separable_conv2d(x, depthwise, pointwise, strides, self.padding,
                                dilations=dilations)


class DepthwiseConv2D(_Depthwise):
    """``activation(depthwise_conv2d(inputs, depthwise_kernel) + bias)`` on [N, H, W, C]."""
    pointwise = False

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
                 **kwargs):
        super().__init__(1, kernel_size, strides, padding, data_format, dilation_rate,
                         depth_multiplier, activation, use_bias, **kwargs)

    def last(self, inputs):
        out = self._convolve(inputs, self.depthwise_kernel, None, self.strides,
                             self.dilation_rate)
        return self._finish(out)


class SeparableConv2D(_Depthwise):
    """``activation(separable_conv2d(inputs, depthwise, pointwise) + bias)`` on
    [N, H, W, C]."""

    def last(self, inputs):
        out = self._convolve(inputs, self.depthwise_kernel, self.pointwise_kernel,
                             self.strides, self.dilation_rate)
        return self._finish(out)


class SeparableConv1D(_Depthwise):
    """``SeparableConv2D`` on [N, W, C] (a height of 1)."""
    rank = 1

    def last(self, inputs):
        depthwise = _t.expand_dims(self.depthwise_kernel, 0)
        pointwise = _t.expand_dims(self.pointwise_kernel, 0)
        out = self._convolve(_t.expand_dims(inputs, 1), depthwise, pointwise,
                             (1,) + self.strides, (1,) + self.dilation_rate)
        return self._finish(_t.squeeze(out, [1]))


SeparableConvolution2D, SeparableConvolution1D = SeparableConv2D, SeparableConv1D
