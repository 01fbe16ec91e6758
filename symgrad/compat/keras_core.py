"""``tf.keras.layers``' layers with weights or a training mode: Dense, Conv1D/2D,
BatchNormalization, Embedding, Dropout; and pooling and Flatten.

Each is a :class:`keras_layers.Layer` whose ``build`` makes TF's weights (names,
shapes, default initializers: glorot_uniform kernels, zero biases, uniform in
[-0.05, 0.05) embeddings) and whose ``call`` reuses the ops of ``tf.layers``
(the other layers are in ``keras_merge``).
``Dropout`` and ``BatchNormalization`` called without ``training=`` read
``tf.keras.backend.learning_phase()`` (False unless fed), as TF1 keras does; the
batch normalization's moving-average updates are in ``layer.updates`` only.

Sits in ``compat``; imports ``tracing`` and ``compat``'s layers and keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 8, 8, 1])
...     h = tf.keras.layers.Conv2D(4, 3, padding="same")(x)
...     print(tf.keras.layers.MaxPooling2D()(h).shape)
(?, 4, 4, 4)
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import conv as _conv
from . import keras_backend as K
from . import keras_objects as _objects
from . import layers as _layers
from . import rows as _rows
from .keras_layers import ChannelsLast, Layer, image_format, known_size

__all__ = ["AveragePooling1D", "AveragePooling2D", "AvgPool1D", "AvgPool2D",
           "BatchNormalization", "Conv1D", "Conv2D", "Conv2DTranspose", "Dense", "Dropout",
           "Embedding", "Flatten", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
           "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPool1D", "MaxPool2D",
           "MaxPooling1D", "MaxPooling2D"]   # (tf.keras.layers.*)


class _Kernel(Layer):
    """A layer ``activation(op(inputs, kernel) + bias)``."""

    def __init__(self, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.activation = _objects.get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = _objects.get_initializer(kernel_initializer)
        self.bias_initializer = _objects.get_initializer(bias_initializer)
        self.kernel_regularizer = _objects.get_regularizer(kernel_regularizer)
        self.bias_regularizer = _objects.get_regularizer(bias_regularizer)
        self.kernel_constraint, self.bias_constraint = kernel_constraint, bias_constraint
        self.kernel = self.bias = None

    def _make(self, kernel_shape, units):
        """``kernel`` and (``use_bias``) ``bias`` of ``units`` numbers (or that shape)."""
        self.kernel = self.add_weight("kernel", kernel_shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        if self.use_bias:
            shape = tuple(units) if isinstance(units, tuple) else (units,)
            self.bias = self.add_weight("bias", shape, initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _finish(self, out):
        if self.use_bias:
            out = out + self.bias
        return self.activation(out)


class Dense(_Kernel):
    """``activation(inputs @ kernel + bias)`` (over the last axis of any rank >= 2)."""
    supports_masking = True

    def __init__(self, units, activation=None, use_bias=True, **kwargs):
        if int(units) <= 0:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}")
        super().__init__(activation, use_bias, **kwargs)
        self.units = int(units)

    def build(self, input_shape):
        if len(input_shape) < 2:
            raise ValueError(f"Dense {self.name!r}: the input has shape {tuple(input_shape)}; "
                             "it needs a batch axis and a feature axis (rank >= 2)")
        size = known_size(input_shape, -1, f"Dense {self.name!r}", "last")
        self._make((size, self.units), self.units)

    def call(self, inputs):
        out = _t.tensordot(inputs, self.kernel, axes=1) if inputs.ndim > 2 else \
            _t.matmul(inputs, self.kernel)
        return self._finish(out)


class _Conv(ChannelsLast, _Kernel):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid",
                 data_format=None, dilation_rate=1, activation=None,
                 use_bias=True, **kwargs):
        super().__init__(activation, use_bias, **kwargs)
        n, what = self.rank, type(self).__name__
        self.filters = int(filters)
        self.kernel_size = _layers.int_tuple(kernel_size, f"{what}(kernel_size)", n)
        self.strides = _layers.int_tuple(strides, f"{what}(strides)", n)
        self.dilation_rate = _layers.int_tuple(dilation_rate, f"{what}(dilation_rate)", n)
        self.padding = _layers.padding_name(padding)
        self.data_format = image_format(data_format, what)

    def build(self, input_shape):
        if len(input_shape) != self.rank + 2:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the input has shape "
                             f"{tuple(input_shape)}; it needs rank {self.rank + 2} "
                             "(batch, spatial axes..., channels)")
        self._make(self._kernel_shape(self.channels(input_shape)), self.filters)

    def _kernel_shape(self, channels):
        return self.kernel_size + (channels, self.filters)


class Conv2D(_Conv):
    """``activation(conv2d(inputs, kernel) + bias)`` on [N, H, W, C]."""

    def last(self, inputs):
        return self._finish(_conv.conv2d(inputs, self.kernel, self.strides, self.padding,
                                         dilations=self.dilation_rate))


class Conv1D(_Conv):
    """``activation(conv1d(inputs, kernel) + bias)`` on [N, W, C]; ``padding="causal"``
    (keras's): zeros before the sequence, dilation_rate * (kernel_size - 1) of them, then
    "valid", so output step t sees input steps <= t."""
    rank = 1

    def __init__(self, filters, kernel_size, strides=1, padding="valid", *args, **kwargs):
        self.causal = str(padding).lower() == "causal"
        super().__init__(filters, kernel_size, strides, "valid" if self.causal else padding,
                         *args, **kwargs)

    def last(self, inputs):
        if self.causal:
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = _t.pad(inputs, [[0, 0], [left, 0], [0, 0]])
        return self._finish(_conv.conv1d(inputs, self.kernel, self.strides[0], self.padding,
                                         dilations=self.dilation_rate[0]))


class Conv2DTranspose(_Conv):
    """The transpose of Conv2D on [N, H, W, C]: output H * stride ("same") or
    H * stride + max(kernel - stride, 0) ("valid"); kernel (kh, kw, filters, C)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate,
                         **kwargs)
        if output_padding is not None or self.dilation_rate != (1, 1):
            raise ValueError("Conv2DTranspose: output_padding and dilation_rate are not "
                             "supported; use tf.layers.conv2d_transpose's defaults")

    def _kernel_shape(self, channels):
        # (the kernel maps filters to the input's channels: its last two axes swap)
        return self.kernel_size + (self.filters, channels)

    def last(self, inputs):
        size = _layers.transposed_size(inputs.shape[1:3], self.kernel_size, self.strides,
                                       self.padding)
        out = _conv.conv2d_transpose(inputs, self.kernel,
                                     (inputs.shape[0], *size, self.filters),
                                     (1, *self.strides, 1), self.padding)
        return self._finish(out)


class _Pooling(ChannelsLast):
    rank, pool = 2, None

    def __init__(self, pool_size=2, strides=None, padding="valid",
                 data_format=None, **kwargs):
        super().__init__(**kwargs)
        what = type(self).__name__
        self.pool_size = _layers.int_tuple(pool_size, f"{what}(pool_size)", self.rank)
        self.strides = self.pool_size if strides is None else \
            _layers.int_tuple(strides, f"{what}(strides)", self.rank)
        self.padding, self.data_format = padding, image_format(data_format, what)

    def last(self, inputs):
        return type(self).pool(inputs, self.pool_size, self.strides, self.padding)


class MaxPooling2D(_Pooling):
    pool = staticmethod(_layers.max_pooling2d)


class AveragePooling2D(_Pooling):
    pool = staticmethod(_layers.average_pooling2d)


class MaxPooling1D(_Pooling):
    rank, pool = 1, staticmethod(_layers.max_pooling1d)


class AveragePooling1D(_Pooling):
    rank, pool = 1, staticmethod(_layers.average_pooling1d)


class _GlobalPooling(Layer):
    axes, reduce = (1, 2), None

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = image_format(data_format, type(self).__name__)

    def call(self, inputs):
        axes = self.axes   # (channels first: the axes after the channel's)
        if self.data_format == "channels_first":
            axes = tuple(a + 1 for a in axes)
        return type(self).reduce(inputs, axis=list(axes))


class GlobalAveragePooling2D(_GlobalPooling):
    reduce = staticmethod(_t.reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling):
    reduce = staticmethod(_t.reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    axes, reduce = (1,), staticmethod(_t.reduce_mean)
    supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        # keras's: the mean over the kept steps only
        kept = _t.expand_dims(_t.cast(mask, inputs.dtype), 2)
        return _t.reduce_sum(inputs * kept, axis=1) / _t.reduce_sum(kept, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    axes, reduce = (1,), staticmethod(_t.reduce_max)


class Flatten(Layer):
    """[N, ...] -> [N, prod(...)] (the sizes after the first must be known); keras's
    ``data_format="channels_first"`` moves the channels last first, so that a Dense
    after it sees the order a channels-last network has."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = image_format(data_format, "Flatten")

    def call(self, inputs):
        for axis in range(1, inputs.ndim):
            known_size(inputs.shape, axis, f"Flatten {self.name!r}", f"{axis}")
        if self.data_format == "channels_first" and inputs.ndim > 2:
            inputs = _t.transpose(inputs, [0] + list(range(2, inputs.ndim)) + [1])
        return _layers.flatten(inputs)


class Dropout(Layer):
    """Zero a fraction ``rate`` of the inputs and scale the rest by 1 / (1 - rate) when
    training (``training=`` a bool or tensor, else the learning phase)."""
    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= float(rate) < 1:
            raise ValueError(f"Dropout: rate must be in [0, 1), got {rate!r}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=None):
        return _layers.dropout(inputs, self.rate, self.noise_shape, self.seed,
                               training=K.training_value(training))


class BatchNormalization(Layer):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta`` along ``axis``: the batch's
    moments when training (the variance without Bessel's correction), else the moving
    ones; ``layer.updates`` holds the moving-average updates (run them yourself).  On
    4-d inputs TF runs its fused kernel, whose moving variance takes the batch variance
    times n / (n - 1); so does this layer (unless ``fused=False``)."""
    supports_masking = True

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, renorm=False, renorm_clipping=None,
                 renorm_momentum=0.99, fused=None, virtual_batch_size=None,
                 adjustment=None, **kwargs):
        super().__init__(**kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise ValueError("BatchNormalization: renorm, virtual_batch_size and adjustment "
                             "are not supported")
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale, self.fused = center, scale, fused
        self._inits = [_objects.get_initializer(i) for i in (
            gamma_initializer, beta_initializer, moving_mean_initializer,
            moving_variance_initializer)]
        self._regularizers = (gamma_regularizer, beta_regularizer)
        self.gamma = self.beta = self.moving_mean = self.moving_variance = None

    def build(self, input_shape):
        if isinstance(self.axis, (list, tuple)):
            raise ValueError("BatchNormalization: symgrad normalizes along one axis; give "
                             "axis as an int")
        axis = int(self.axis) % len(input_shape)
        size = (known_size(input_shape, axis, f"BatchNormalization {self.name!r}",
                           f"normalized ({axis})"),)
        gamma_init, beta_init, mean_init, var_init = self._inits
        if self.scale:
            self.gamma = self.add_weight("gamma", size, initializer=gamma_init,
                                         regularizer=self._regularizers[0])
        if self.center:
            self.beta = self.add_weight("beta", size, initializer=beta_init,
                                        regularizer=self._regularizers[1])
        self.moving_mean = self.add_weight("moving_mean", size, initializer=mean_init,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", size,
                                               initializer=var_init, trainable=False)

    def call(self, inputs, training=None):
        axis = int(self.axis) % inputs.ndim
        out, updates = _layers.normalize(
            inputs, axis, (self.gamma, self.beta, self.moving_mean, self.moving_variance),
            self.epsilon, self.momentum, K.training_value(training),
            unbiased=self.fused is not False and inputs.ndim == 4 and axis in (1, 3))
        self.add_update(updates)
        return out


class Embedding(Layer):
    """Rows of ``embeddings`` (``input_dim`` x ``output_dim``) picked by integer ids."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, activity_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, input_length=None, **kwargs):
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            # (keras's: so a Sequential starting with it is built at once, on an
            # "embedding_input" placeholder, outside the model's name scope)
            kwargs["input_shape"] = (input_length,)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = _objects.get_initializer(embeddings_initializer)
        self.embeddings_regularizer = embeddings_regularizer
        self.embeddings_constraint, self.mask_zero = embeddings_constraint, mask_zero

    def build(self, input_shape):
        self.embeddings = self.add_weight(
            "embeddings", (self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint)

    def compute_mask(self, inputs, mask=None):
        return _t.not_equal(inputs, 0) if self.mask_zero else None

    def call(self, inputs):
        ids = inputs if inputs.dtype.kind in "iu" else _t.cast(inputs, np.int32)
        return _rows.embedding_lookup(self.embeddings, ids)   # (TF's IndexedSlices gradient)


MaxPool2D, AvgPool2D, MaxPool1D, AvgPool1D = MaxPooling2D, AveragePooling2D, MaxPooling1D, \
    AveragePooling1D
