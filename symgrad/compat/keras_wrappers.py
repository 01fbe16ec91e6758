"""``tf.keras.layers``' reshaping layers (UpSampling2D, ZeroPadding2D, RepeatVector)
and the wrappers ``TimeDistributed`` and ``Bidirectional``, named as TF1 keras names
their weights:

- ``TimeDistributed(Dense(2))`` builds the inner layer in its own scope
  (``time_distributed/kernel:0``) and applies it to [batch * time, ...];
- ``Bidirectional(LSTM(2))`` runs a copy named ``forward_lstm`` and one named
  ``backward_lstm`` that reads the sequence backwards
  (``bidirectional/forward_lstm/lstm_cell/kernel:0``); the backward outputs are put
  back in time order and merged (``merge_mode`` "concat", "sum", "mul", "ave" or
  None for both).

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 4, 3])
...     y = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, return_sequences=True))(x)
...     print(y.shape)
(?, 4, 4)
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import layers as _layers
from .keras_cells import RNN, fresh_cell
from .keras_layers import ChannelsLast, Layer, flat, image_format, known_size, unbuilt_copy
from .keras_rnn import Recurrent, backwards

__all__ = ["UpSampling2D", "ZeroPadding2D", "RepeatVector", "TimeDistributed",
           "Bidirectional"]   # (tf.keras.layers.*)


class UpSampling2D(ChannelsLast):
    """Each pixel repeated ``size`` times along height and width (nearest)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        if interpolation != "nearest":
            raise ValueError(f"UpSampling2D: interpolation={interpolation!r} is not "
                             "supported; use 'nearest' or tf.image.resize_bilinear")
        self.size = _layers.int_tuple(size, "UpSampling2D(size)")
        self.data_format = image_format(data_format, "UpSampling2D")

    def last(self, inputs):
        _, h, w, c = (known_size(inputs.shape, a, f"UpSampling2D {self.name!r}", f"{a}")
                      if a else None for a in range(4))
        (sh, sw), x = self.size, inputs
        x = _t.reshape(_t.tile(_t.expand_dims(x, 3), [1, 1, 1, sw, 1]), (-1, h, w * sw, c))
        x = _t.reshape(_t.tile(_t.expand_dims(x, 2), [1, 1, sh, 1, 1]),
                       (-1, h * sh, w * sw, c))
        return x


class ZeroPadding2D(ChannelsLast):
    """Zeros around the height and width: an int, (rows, cols) or ((top, bottom), (left,
    right))."""

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if np.ndim(padding) == 0:
            padding = ((padding, padding), (padding, padding))
        elif np.ndim(padding) == 1:
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(int(p) for p in pair) for pair in padding)
        self.data_format = image_format(data_format, "ZeroPadding2D")

    def last(self, inputs):
        return _t.pad(inputs, [[0, 0], list(self.padding[0]), list(self.padding[1]), [0, 0]])


class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        return _t.tile(_t.expand_dims(inputs, 1), [1, self.n, 1])


class _Wrapper(Layer):
    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise TypeError(f"{type(self).__name__}: wrap a tf.keras layer, got {layer!r}")
        super().__init__(**kwargs)
        self.layer = layer


class TimeDistributed(_Wrapper):
    """The wrapped layer applied to each step of [batch, time, ...]."""
    supports_masking = True

    def build(self, input_shape):
        steps_shape = (input_shape[0],) + tuple(input_shape[2:])
        self.layer.build(steps_shape)   # (in this scope: time_distributed/kernel:0)
        self.layer.built = True

    def call(self, inputs, training=None):
        steps = known_size(inputs.shape, 1, f"TimeDistributed {self.name!r}", "time")
        flat = _t.reshape(inputs, (-1,) + tuple(inputs.shape[2:]))
        out = self.layer(flat, training=training)
        return _t.reshape(out, (-1, steps) + tuple(out.shape[1:]))

    def _sublayers(self):
        return [self.layer]


_MERGES = {"concat": lambda a, b: _t.concat([a, b], axis=-1), "sum": lambda a, b: a + b,
           "mul": lambda a, b: a * b, "ave": lambda a, b: (a + b) * 0.5}


class Bidirectional(_Wrapper):
    """A recurrent layer run forwards and backwards, the outputs merged."""
    supports_masking = True

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        if not isinstance(layer, (Recurrent, RNN)):
            raise TypeError(f"Bidirectional: wrap SimpleRNN, LSTM, GRU or RNN, got {layer!r}")
        if merge_mode not in _MERGES and merge_mode is not None:
            raise ValueError(f"Bidirectional: merge_mode={merge_mode!r}; use 'concat', "
                             "'sum', 'mul', 'ave' or None")
        super().__init__(layer, weights=weights, **kwargs)
        self.merge_mode = merge_mode
        self.forward_layer = _copy(layer, "forward_" + layer.name, layer.go_backwards)
        self.backward_layer = _copy(backward_layer or layer, "backward_" + layer.name,
                                    not layer.go_backwards)
        for twin in (self.forward_layer, self.backward_layer):   # (keras: masked steps
            twin.zero_output_for_mask = twin.return_sequences   # of sequences are zeros)

    def call(self, inputs, initial_state=None, training=None):
        if initial_state is not None:
            raise ValueError("Bidirectional: initial_state is not supported; run two "
                             "layers (go_backwards=True for the second) and merge them")
        forward, backward = self.forward_layer(inputs), self.backward_layer(inputs)
        states = []
        if self.layer.return_state:
            (forward, *f_states), (backward, *b_states) = forward, backward
            states = f_states + b_states
        if self.layer.return_sequences:
            backward = backwards(backward)   # (back in time order, as keras gives it)
        merged = [forward, backward] if self.merge_mode is None else \
            [_MERGES[self.merge_mode](forward, backward)]
        return merged + states if states or self.merge_mode is None else merged[0]

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        out = [mask if self.layer.return_sequences else None] * \
            (2 if self.merge_mode is None else 1)
        states = 2 * len(flat(self.layer.cell.state_size)) if self.layer.return_state else 0
        return out + [None] * states if len(out) + states > 1 else out[0]

    def _sublayers(self):
        return [self.forward_layer, self.backward_layer]


def _copy(layer, name, go_backwards):
    """An unbuilt copy of the recurrent ``layer`` (its settings, new weights)."""
    twin = unbuilt_copy(layer, name)
    twin.go_backwards = go_backwards
    if isinstance(layer, RNN):   # (keras: a new cell of the same name and settings)
        twin.cell = fresh_cell(layer.cell)
    return twin
