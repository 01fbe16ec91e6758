"""``tf.keras.layers.LocallyConnected1D`` and ``LocallyConnected2D``: a convolution
whose filters are not shared -- each output position has its own kernel.

As TF1 keras's (``implementation=1``, ``padding="valid"``): the kernel is
``(positions, patch size, filters)`` where a patch is the window at that position
flattened in the input's axis order ([rows, cols, channels]; channels first for
``data_format="channels_first"``), and the bias ``(output rows, output cols,
filters)`` (``(steps, filters)`` in 1-D; with channels first keras adds it reshaped
to ``(filters, rows, cols)``, not transposed, and so does this).  Output position p is
``activation(patch_p @ kernel[p] + bias[p])``.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.LocallyConnected2D(3, (2, 3), strides=(1, 2))
...     y = layer(tf.placeholder(tf.float32, [None, 5, 6, 2]))
...     print(y.shape, [w.shape.as_list() for w in layer.weights])
(?, 4, 2, 3) [[8, 12, 3], [4, 2, 3]]
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import tracing as _t
from . import layers as _layers
from .keras_core import _Kernel
from .keras_layers import image_format, known_size

__all__ = ["LocallyConnected1D", "LocallyConnected2D"]


class _Local(_Kernel):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 activation=None, use_bias=True, implementation=1, **kwargs):
        what = type(self).__name__
        super().__init__(activation, use_bias, **kwargs)
        if str(padding).lower() != "valid":
            raise ValueError(f"Invalid border mode for {what} (only \"valid\" is supported "
                             f"if implementation is 1): {padding}")
        if implementation != 1:
            raise ValueError(f"{what}(implementation={implementation!r}) is not supported; "
                             "use implementation=1 (keras's default; the kernel's layout "
                             "differs in the others)")
        self.filters = int(filters)
        self.kernel_size = _layers.int_tuple(kernel_size, f"{what}(kernel_size)", self.rank)
        self.strides = _layers.int_tuple(strides, f"{what}(strides)", self.rank)
        self.data_format = image_format(data_format, what)

    def build(self, input_shape):
        if len(input_shape) != self.rank + 2:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the input has shape "
                             f"{tuple(input_shape)}; it needs rank {self.rank + 2}")
        first = self.data_format == "channels_first"
        sizes = [known_size(input_shape, a, f"{self.name!r}", f"{a}")
                 for a in range(1, self.rank + 2)]
        channels, spatial = (sizes[0], sizes[1:]) if first else (sizes[-1], sizes[:-1])
        self.out_sizes = tuple((n - k) // s + 1 for n, k, s in
                               zip(spatial, self.kernel_size, self.strides))
        if min(self.out_sizes) < 1:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the kernel "
                             f"{self.kernel_size} is larger than the input {tuple(spatial)}")
        positions = int(np.prod(self.out_sizes))
        patch = int(np.prod(self.kernel_size)) * channels
        # (keras: one bias per output position and filter)
        self._make((positions, patch, self.filters), self.out_sizes + (self.filters,))

    def call(self, inputs):
        first = self.data_format == "channels_first"
        patches = []
        for position in itertools.product(*(range(n) for n in self.out_sizes)):
            window = tuple(slice(p * s, p * s + k) for p, s, k in
                           zip(position, self.strides, self.kernel_size))
            index = (slice(None),) + ((slice(None),) + window if first else
                                      window + (slice(None),))
            patches.append(_t.reshape(inputs[index], (-1, int(self.kernel.shape[1]))))
        out = _t.matmul(_t.stack(patches, axis=0), self.kernel)   # [positions, N, filters]
        out = _t.reshape(_t.transpose(out, [1, 0, 2]), (-1,) + self.out_sizes +
                         (self.filters,))
        if first:
            out = _t.transpose(out, [0, out.ndim - 1] + list(range(1, out.ndim - 1)))
        if self.use_bias:   # (keras's bias_add reshapes, not transposes, for channels
            # first: the bias's numbers are read in [filters, rows, cols] order there)
            out = out + (_t.reshape(self.bias, (self.filters,) + self.out_sizes) if first
                         else self.bias)
        return self.activation(out)


class LocallyConnected2D(_Local):
    """Unshared 2-D convolution of [N, rows, cols, channels]."""


class LocallyConnected1D(_Local):
    """Unshared 1-D convolution of [N, steps, channels]."""
    rank = 1
