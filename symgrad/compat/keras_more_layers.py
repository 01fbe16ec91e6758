"""More ``tf.keras.layers`` that TF1-era Keras programs use: ``ELU``, ``PReLU``,
``LayerNormalization``, ``Dot``, ``Cropping1D``, ``Cropping2D``, ``GaussianNoise``,
with TF1 keras's weight names (``p_re_lu/alpha:0``, ``layer_normalization/gamma:0``)
and formulas:

- ``PReLU``: ``relu(x) - alpha * relu(-x)``, alpha shaped like one sample (1 along
  ``shared_axes``), starting at 0;
- ``LayerNormalization(axis=-1, epsilon=1e-3)``: ``(x - mean) / sqrt(var + eps) *
  gamma + beta`` over ``axis``;
- ``Dot(axes, normalize=False)``: the batched dot product over ``axes`` (cosine
  similarity when ``normalize``);
- ``GaussianNoise(stddev)``: adds N(0, stddev) noise in the training phase only;
  ``GaussianDropout(rate)`` multiplies by N(1, sqrt(rate / (1 - rate))) then;
- ``SpatialDropout1D/2D/3D(rate)``: dropout of whole channels (one mask number per
  sample and channel, shared over the steps or pixels);
- ``UpSampling1D(size)`` repeats each step, ``ZeroPadding1D(padding)`` pads the steps;
- ``Masking(mask_value=0.)``: a step whose features all equal ``mask_value`` becomes
  zeros and is masked: the recurrent layers after it keep their state over it.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0, 4.0]])
...     print(tf.Session().run(tf.keras.layers.Dot(axes=1)([a, b])).tolist())
[[11.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..ops.draws import draw_like, new_key
from ..tracing import nn as _nn
from . import initializers as _init
from . import keras_backend as K
from .keras_backend_ops import repeat_elements
from .keras_core import Dropout
from .keras_layers import ChannelsLast, Layer, image_format

__all__ = ["ELU", "PReLU", "LayerNormalization", "Dot", "dot", "Cropping1D", "Cropping2D",
           "GaussianNoise", "GaussianDropout", "SpatialDropout1D", "SpatialDropout2D",
           "SpatialDropout3D", "UpSampling1D", "ZeroPadding1D", "Masking"]


class Masking(Layer):
    """Keras's mask of [batch, time, features]: a step is kept where some feature
    differs from ``mask_value``; the masked steps' features become zeros."""
    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return _t.reduce_any(_t.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs):
        kept = _t.reduce_any(_t.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * _t.cast(kept, inputs.dtype)


class ELU(Layer):
    """``x`` for x > 0, ``alpha * (exp(x) - 1)`` otherwise."""
    supports_masking = True

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        out = _nn.elu(inputs)
        return out if self.alpha == 1.0 else _t.where(inputs > 0, out, out * self.alpha)


class PReLU(Layer):
    """A leaky ReLU whose negative slope ``alpha`` is learned (one per input element,
    shared along ``shared_axes``)."""
    supports_masking = True

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self._init, self._reg, self._con = alpha_initializer, alpha_regularizer, alpha_constraint
        self.shared_axes = [] if shared_axes is None else (
            [shared_axes] if isinstance(shared_axes, int) else list(shared_axes))

    def build(self, input_shape):
        shape = [int(d) for d in list(input_shape)[1:]]
        for axis in self.shared_axes:
            shape[axis - 1] = 1
        self.alpha = self.add_weight("alpha", shape, initializer=self._init,
                                     regularizer=self._reg, constraint=self._con)

    def call(self, inputs):
        return _nn.relu(inputs) - self.alpha * _nn.relu(-inputs)


class LayerNormalization(Layer):
    """Normalise each sample over ``axis`` (mean 0, variance 1), then ``* gamma + beta``."""
    supports_masking = True

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis = [axis] if isinstance(axis, int) else list(axis)
        self.epsilon, self.center, self.scale = float(epsilon), center, scale
        self._inits = (gamma_initializer, beta_initializer)

    def build(self, input_shape):
        rank = len(input_shape)
        self.axis = [a % rank for a in self.axis]
        shape = [int(input_shape[a]) for a in self.axis]
        self.gamma = self.add_weight("gamma", shape, initializer=self._inits[0]) \
            if self.scale else None
        self.beta = self.add_weight("beta", shape, initializer=self._inits[1]) \
            if self.center else None

    def call(self, inputs):
        mean, variance = _nn.moments(inputs, self.axis, keepdims=True)
        out = (inputs - mean) * _t.rsqrt(variance + self.epsilon)
        out = out * self.gamma if self.gamma is not None else out
        return out + self.beta if self.beta is not None else out


class Dot(Layer):
    """``Dot(axes)([x, y])``: per sample, the dot product of x and y over ``axes``."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        self.axes = (axes, axes) if isinstance(axes, int) else tuple(axes)
        self.normalize = normalize

    def call(self, inputs):
        x, y = inputs
        ax, ay = (a % x.ndim if i == 0 else a % y.ndim for i, a in enumerate(self.axes))
        if self.normalize:
            x, y = _nn.l2_normalize(x, axis=ax), _nn.l2_normalize(y, axis=ay)
        if x.ndim == 2 and y.ndim == 2:
            return _t.reduce_sum(x * y, axis=1, keepdims=True)
        if x.ndim != 3 or y.ndim != 3:
            raise ValueError(f"Dot: inputs of rank {x.ndim} and {y.ndim}; symgrad's Dot "
                             "takes two rank-2 or two rank-3 batches")
        return _t.matmul(x, y, transpose_a=ax == 1, transpose_b=ay == 2)


def dot(inputs, axes, normalize=False, **kwargs):
    """``tf.keras.layers.dot([x, y], axes)``: ``Dot(axes, normalize)([x, y])``
    (babi_memnn.py's match of story and question)."""
    return Dot(axes, normalize, **kwargs)(inputs)


class Cropping1D(Layer):
    """Remove ``cropping = (start, end)`` steps from the time axis."""

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = (int(cropping),) * 2 if np.ndim(cropping) == 0 else tuple(cropping)

    def call(self, inputs):
        start, end = self.cropping
        return inputs[:, start:inputs.shape[1] - end]


class Cropping2D(ChannelsLast):
    """Remove rows and columns at the edges: an int, (rows, cols) or ((top, bottom),
    (left, right))."""

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if np.ndim(cropping) == 0:
            cropping = ((cropping, cropping), (cropping, cropping))
        elif np.ndim(cropping) == 1:
            cropping = ((cropping[0], cropping[0]), (cropping[1], cropping[1]))
        self.cropping = tuple(tuple(int(c) for c in pair) for pair in cropping)
        self.data_format = image_format(data_format, "Cropping2D")

    def last(self, inputs):
        (top, bottom), (left, right) = self.cropping
        return inputs[:, top:inputs.shape[1] - bottom, left:inputs.shape[2] - right]


class GaussianNoise(Layer):
    """``x + N(0, stddev)`` in the training phase, ``x`` otherwise."""
    supports_masking = True

    def __init__(self, stddev, **kwargs):
        super().__init__(**kwargs)
        self.stddev = float(stddev)

    def call(self, inputs, training=None):
        return _training_only(inputs, training,
                              lambda z: inputs + _t.cast(z, inputs.dtype) * self.stddev)


def _training_only(inputs, training, noisy):
    """``noisy(z)`` of standard normal numbers z (drawn at each run, as dropout's) in
    the training phase (``training=`` a bool or tensor, else the learning phase),
    ``inputs`` otherwise."""
    training = K.training_value(training)
    if training is False:
        return inputs
    out = noisy(draw_like(inputs, new_key(_init.rng()), dist="normal"))
    return out if training is True else _t.where(training, out, inputs)


class GaussianDropout(Layer):
    """``x * N(1, sqrt(rate / (1 - rate)))`` in the training phase, ``x`` otherwise."""
    supports_masking = True

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= float(rate) < 1:
            raise ValueError(f"GaussianDropout: rate must be in [0, 1), got {rate!r}")
        self.rate = float(rate)

    def call(self, inputs, training=None):
        if not self.rate:
            return inputs
        stddev = np.sqrt(self.rate / (1.0 - self.rate))
        return _training_only(inputs, training,
                              lambda z: inputs * (1.0 + _t.cast(z, inputs.dtype) * stddev))


class _SpatialDropout(Dropout):
    """Dropout of whole channels: the mask has size 1 on the inner axes."""

    RANK = 3

    def __init__(self, rate, data_format=None, **kwargs):
        super().__init__(rate, **kwargs)
        first = str(data_format or "channels_last") == "channels_first"
        inner = (1,) * (self.RANK - 2)
        self.noise_shape = (None, None) + inner if first else (None,) + inner + (None,)

    def call(self, inputs, training=None):
        if inputs.shape is None or len(inputs.shape) != self.RANK:
            raise ValueError(f"{type(self).__name__}: needs inputs of rank {self.RANK}, got "
                             f"shape {None if inputs.shape is None else inputs.shape}")
        return super().call(inputs, training)


class SpatialDropout1D(_SpatialDropout):
    """``Dropout`` with one mask number per sample and channel of [N, steps, C]."""

    RANK = 3

    def __init__(self, rate, **kwargs):
        super().__init__(rate, None, **kwargs)


class SpatialDropout2D(_SpatialDropout):
    """``Dropout`` with one mask number per sample and channel of [N, H, W, C]."""

    RANK = 4


class SpatialDropout3D(_SpatialDropout):
    """``Dropout`` with one mask number per sample and channel of [N, D, H, W, C]."""

    RANK = 5


class UpSampling1D(Layer):
    """Each step of [N, steps, C] repeated ``size`` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        return repeat_elements(inputs, self.size, axis=1)


class ZeroPadding1D(Layer):
    """Zeros before and after the steps of [N, steps, C]: an int or (left, right)."""

    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = (int(padding),) * 2 if np.ndim(padding) == 0 else \
            tuple(int(p) for p in padding)

    def call(self, inputs):
        return _t.pad(inputs, [[0, 0], list(self.padding), [0, 0]])
