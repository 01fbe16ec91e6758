"""``tf.keras.layers.ConvLSTM2D`` and ``Conv3D``: what Keras's ``conv_lstm.py`` (the
next frames of moving squares) stacks, with TF1 keras's weights and defaults.

- ``ConvLSTM2D(filters, kernel_size)`` on [batch, time, rows, cols, channels]: an LSTM
  whose matrix products are convolutions.  ``kernel`` [kh, kw, C, 4 filters] convolves
  the step's input (the layer's strides, padding, dilation), ``recurrent_kernel`` [kh,
  kw, filters, 4 filters] the state (stride 1, "same"), gates i, f, c, o in keras's
  order, ``bias`` [4 filters] with the forget part starting at 1; ``i, f, o`` through
  the recurrent activation (hard_sigmoid, TF1 keras's default), ``c' = f c + i
  tanh(.)``, ``h' = o tanh(c')``; the states start at zero, shaped as the input's
  convolution.  Output: the last h, or every step's with ``return_sequences``.
- ``Conv3D(filters, kernel_size)`` on [batch, depth, rows, cols, channels]:
  ``activation(conv3d(inputs, kernel) + bias)``, kernel [kd, kh, kw, C, filters].

Dropout inside the cell, stateful layers and channels_first are refused.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules, rnn and
nn_volumes.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True)
...     y = layer(tf.zeros([1, 4, 5, 5, 1]))
...     print(y.shape, [tuple(w.shape) for w in layer.weights])
(1, 4, 5, 5, 2) [(3, 3, 1, 8), (3, 3, 2, 8), (8,)]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import conv as _conv
from . import keras_backend as K
from . import keras_objects as _objects
from . import rnn as _rnn
from .keras_core import _Conv
from .keras_rnn import backwards
from .nn_volumes import conv3d

__all__ = ["ConvLSTM2D", "Conv3D", "Convolution3D"]   # (tf.keras.layers.*)


class ConvLSTM2D(_Conv):
    """The convolutional LSTM (module docstring)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 data_format=None, dilation_rate=(1, 1), activation="tanh",
                 recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, recurrent_regularizer=None,
                 recurrent_constraint=None, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, dropout=0.0, recurrent_dropout=0.0,
                 **kwargs):
        if dropout or recurrent_dropout or stateful:
            raise ValueError("ConvLSTM2D: dropout, recurrent_dropout and stateful=True are "
                             "not supported; apply tf.keras.layers.Dropout to the inputs "
                             "or outputs instead")
        kwargs.setdefault("name", K.unique_object_name("conv_lstm2d"))   # (TF1 keras's)
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        if self.data_format == "channels_first":
            raise ValueError("ConvLSTM2D: data_format='channels_first' is not supported; "
                             "give [batch, time, rows, cols, channels] (tf.transpose)")
        self.rank = 2
        self.recurrent_activation = _objects.get_activation(recurrent_activation)
        self.recurrent_initializer = _objects.get_initializer(recurrent_initializer)
        self.recurrent_regularizer = _objects.get_regularizer(recurrent_regularizer)
        self.recurrent_constraint, self.unit_forget_bias = recurrent_constraint, unit_forget_bias
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards = go_backwards

    def build(self, input_shape):
        if len(input_shape) != 5:
            raise ValueError(f"ConvLSTM2D {self.name!r}: the input has shape "
                             f"{tuple(input_shape)}; give [batch, time, rows, cols, channels]")
        channels, f = int(input_shape[-1]), self.filters
        self.kernel = self.add_weight("kernel", self.kernel_size + (channels, 4 * f),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", self.kernel_size + (f, 4 * f),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        if self.use_bias:
            self.bias = self.add_weight("bias", (4 * f,), initializer=self._bias_init(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        f = self.filters

        def forget_ones(shape, dtype=None):   # keras: [init(f), ones(f), init(2f)]
            parts = [_objects.initial_value(self.bias_initializer, (n,), dtype, self.name)
                     for n in (f, 2 * f)]
            return np.concatenate([parts[0], np.ones(f, dtype), parts[1]])
        return forget_ones

    def _input_conv(self, x, kernel):
        return _conv.conv2d(x, kernel, self.strides, self.padding,
                            dilations=self.dilation_rate)

    def step(self, x, state):
        h, c = state
        zx = self._input_conv(x, self.kernel)
        if self.bias is not None:
            zx = zx + self.bias
        z = zx + _conv.conv2d(h, self.recurrent_kernel, (1, 1), "SAME")
        f, act, rec = self.filters, self.activation, self.recurrent_activation
        i, forget, g, o = (z[..., k * f:(k + 1) * f] for k in range(4))
        c = rec(forget) * c + rec(i) * act(g)
        h = rec(o) * act(c)
        return h, (h, c)

    def call(self, inputs, initial_state=None, training=None):
        x = backwards(inputs) if self.go_backwards else inputs
        if initial_state is None:   # (keras: the first step's input convolved, as zeros)
            zero = _t.zeros_like(self._input_conv(x[:, 0], self.kernel[..., :self.filters]))
            initial_state = (zero, zero)
        outputs, (h, c) = _rnn.dynamic_rnn(lambda x_t, s: self.step(x_t, s), x,
                                           initial_state=tuple(initial_state), dtype=x.dtype)
        out = outputs if self.return_sequences else _t.identity(h)   # (keras: two tensors)
        return [out, h, c] if self.return_state else out


class Conv3D(_Conv):
    """``activation(conv3d(inputs, kernel) + bias)`` on [N, D, H, W, C]."""
    rank = 3

    def last(self, inputs):
        return self._finish(conv3d(inputs, self.kernel, (1,) + self.strides + (1,),
                                   self.padding, dilations=(1,) + self.dilation_rate + (1,)))


Convolution3D = Conv3D
