"""``tf.keras.layers``' layers without weights: activations (Activation, LeakyReLU,
ReLU, Softmax), Reshape, Permute, Lambda and the merges (Concatenate, Add, ...) with
their functions (``concatenate(inputs, axis)``, ``add(inputs)``...).

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a, b = tf.ones([2, 3]), tf.zeros([2, 1])
...     print(tf.keras.layers.concatenate([a, b]).shape, tf.keras.layers.Reshape((3, 1))(a).shape)
(2, 4) (2, 3, 1)
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import nn as _nn
from . import keras_objects as _objects
from .keras_layers import Layer, known_size

__all__ = ["Activation", "Add", "Average", "Concatenate", "Lambda", "LeakyReLU", "Maximum",
           "Minimum", "Multiply", "Permute", "ReLU", "Reshape", "Softmax", "Subtract",
           "concatenate", "add", "multiply", "average", "maximum", "minimum",
           "subtract"]   # (tf.keras.layers.*)


class Activation(Layer):
    supports_masking = True
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = _objects.get_activation(activation)

    def call(self, inputs):
        return self.activation(inputs)


class LeakyReLU(Layer):
    supports_masking = True
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        return _nn.leaky_relu(inputs, alpha=self.alpha)


class ReLU(Layer):
    supports_masking = True
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, \
            threshold

    def call(self, inputs):
        return _objects.relu(inputs, self.negative_slope, self.max_value, self.threshold)


class Softmax(Layer):
    supports_masking = True
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return _nn.softmax(inputs, axis=self.axis)


class Reshape(Layer):
    """[N, ...] -> [N, *target_shape] (one -1 in ``target_shape`` is inferred)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)

    def call(self, inputs):
        target = self.target_shape
        if -1 in target:
            inner = [known_size(inputs.shape, a, f"Reshape {self.name!r}", f"{a}")
                     for a in range(1, inputs.ndim)]
            rest = int(np.prod([d for d in target if d != -1], dtype=np.int64))
            target = tuple(int(np.prod(inner, dtype=np.int64)) // rest if d == -1 else d
                           for d in target)
        return _t.reshape(inputs, (-1,) + target)


class Permute(Layer):
    """Permute the axes after the batch axis (``dims`` counts from 1)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)

    def call(self, inputs):
        return _t.transpose(inputs, (0,) + self.dims)


class Lambda(Layer):
    """``function(inputs, **arguments)`` as a layer (no weights)."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda: function must be callable, got {function!r}")
        self.function, self.arguments = function, dict(arguments or {})
        self.mask = mask
        self.supports_masking = mask is not None   # (keras: only with a mask= given)

    def compute_mask(self, inputs, mask=None):
        if not self.supports_masking:   # (TF1 keras: the mask is dropped)
            return None
        return self.mask(inputs, mask) if callable(self.mask) else self.mask

    def call(self, inputs):
        return self.function(inputs, **self.arguments)


class _Merge(Layer):
    """A layer on a list of tensors."""
    supports_masking = True

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{type(self).__name__} {self.name!r}: call it on a list of at "
                             "least 2 tensors")
        return self.merge(list(inputs))

    def compute_mask(self, inputs, mask=None):
        """Keras's: a step is kept where every masked input keeps it."""
        given = [m for m in (mask or []) if m is not None]
        if not given:
            return None
        return _t.reduce_all(_t.stack(given, axis=0), axis=0)


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def merge(self, inputs):
        return _t.concat(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        """Keras's: the masks (all True for an input without one) joined along the
        axis, a step kept where all of them keep it."""
        if mask is None or all(m is None for m in mask):
            return None
        masks = [_t.ones_like(x, dtype=np.bool_) if m is None else
                 (_t.expand_dims(m, -1) if m.ndim < x.ndim else m)
                 for x, m in zip(inputs, mask)]
        return _t.reduce_all(_t.concat(masks, axis=self.axis), axis=-1)


def _same_rank(inputs):
    """Keras's rule for merging tensors of different ranks: the lower ones get size-1
    axes after the batch axis ([N, 3] with [N, 1, 3] -> [N, 1, 3] each), rather than
    broadcasting from the right, which would pair every row with every other
    ([N, N, 3])."""
    top = max(x.ndim for x in inputs)
    out = []
    for x in inputs:
        for _ in range(top - x.ndim):
            x = _t.expand_dims(x, 1)
        out.append(x)
    return out


def _folding(combine, finish=None):
    def merge(self, inputs):
        inputs = _same_rank(inputs)
        out = inputs[0]
        for x in inputs[1:]:
            out = combine(out, x)
        return out if finish is None else finish(out, len(inputs))
    return merge


class Add(_Merge):
    merge = _folding(lambda a, b: a + b)


class Multiply(_Merge):
    merge = _folding(lambda a, b: a * b)


class Average(_Merge):
    merge = _folding(lambda a, b: a + b, lambda total, n: total / float(n))


class Maximum(_Merge):
    merge = _folding(_t.maximum)


class Minimum(_Merge):
    merge = _folding(_t.minimum)


class Subtract(_Merge):
    def merge(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"Subtract {self.name!r}: call it on exactly 2 tensors")
        first, second = _same_rank(inputs)
        return first - second


def _merge_function(cls):
    def merge(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    merge.__name__ = cls.__name__.lower()
    merge.__doc__ = f"``tf.keras.layers.{merge.__name__}(inputs)``: ``{cls.__name__}()(inputs)``."
    return merge


concatenate, add, multiply, average, maximum, minimum, subtract = (
    _merge_function(c) for c in (Concatenate, Add, Multiply, Average, Maximum, Minimum,
                                 Subtract))
