"""``tf.layers``: ``dense`` and ``conv2d`` with their variables, pooling, ``flatten``, ``dropout``.

``dense`` makes ``dense/kernel`` and ``dense/bias``, ``conv2d`` makes ``conv2d/kernel``
(``kernel_size + (in_channels, filters)``) and ``conv2d/bias``.

The layer opens a variable scope named ``name`` (default ``dense``, ``dense_1``,
... as TF counts them), makes its kernel with ``kernel_initializer`` and its bias with
``bias_initializer`` (zeros by default; None for either is ``get_variable``'s default:
the variable scope's initializer, else Glorot uniform), and returns
``activation(inputs @ kernel + bias)``.  ``reuse=True`` with the same ``name``
shares the variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([[1.0, 2.0]])
...     y = tf.layers.dense(x, 3)
...     print(y.shape, [v.name for v in tf.trainable_variables()])
(1, 3) ['dense/kernel:0', 'dense/bias:0']
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import conv as _conv
from ..ops.deferred import scalar_by_contract
from ..tracing import nn as _nn
from . import control as _control
from . import distributions as _distributions
from . import initializers as _init
from .more_ops import separable_conv2d as _separable
from . import variables as _variables
from .layer_activity import add_activity_loss, with_activity_regularizer
from .scopes import get_variable, variable_scope


ZEROS = _init.Zeros()   # (TF's default bias; None is get_variable's: the module docstring)


class Dense:
    """``tf.layers.Dense(units, ...)``: a callable layer keeping its variables."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=ZEROS, kernel_regularizer=None, bias_regularizer=None,
                 trainable=True, name=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        if int(units) <= 0:
            raise ValueError(f"dense: units must be a positive integer, got {units!r}")
        self.units, self.activation, self.use_bias = int(units), activation, use_bias
        self.kernel_initializer, self.bias_initializer = kernel_initializer, bias_initializer
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.trainable, self.name = trainable, name
        self.constraints = (kernel_constraint, bias_constraint)   # (tf.train applies them)
        self.activity_regularizer = kwargs.get("activity_regularizer")
        self.kernel = self.bias = None
        self._scope = None
        self.explicit_scope = False   # tf.layers.dense's name is the scope itself

    def __call__(self, inputs, reuse=None):
        inputs = _t.as_tensor(inputs)
        if inputs.shape is None:   # TF: "the last dimension ... should be defined"
            raise ValueError(f"tf.layers.dense: inputs {inputs.name!r} have an unknown shape "
                             "(a placeholder made without one, or a tf.py_func result), so "
                             "the kernel's size is unknown; give it a shape, e.g. "
                             "tf.placeholder(tf.float32, [None, 784]) or "
                             "t.set_shape([None, 784])")
        if inputs.ndim < 2:
            raise ValueError(f"dense: inputs {inputs.name!r} have shape {inputs.shape}; the "
                             "layer needs a batch axis and a feature axis (rank >= 2)")
        scope, default = self._scope or self.name, "dense"
        if self._scope is not None:   # called again: TF's layer object shares its variables
            reuse = True
        elif self.name is not None and not self.explicit_scope:
            scope, default = None, self.name   # TF's layer object: its name made unique
        with variable_scope(scope, default_name=default, reuse=reuse) as vs:
            self._scope = self._scope or vs
            self.kernel = get_variable("kernel", (inputs.shape[-1], self.units),
                                       dtype=inputs.dtype, initializer=self.kernel_initializer,
                                       regularizer=self.kernel_regularizer,
                                       trainable=self.trainable,
                                       constraint=self.constraints[0])
            out = _t.tensordot(inputs, self.kernel, axes=1) if inputs.ndim > 2 else \
                _t.matmul(inputs, self.kernel)
            if self.use_bias:
                self.bias = get_variable("bias", (self.units,), dtype=inputs.dtype,
                                         initializer=self.bias_initializer,
                                         regularizer=self.bias_regularizer,
                                         trainable=self.trainable,
                                         constraint=self.constraints[1])
                out = out + self.bias
            out = self.activation(out) if self.activation is not None else out
        if self.activity_regularizer is not None:
            add_activity_loss(out, self.activity_regularizer)
        return out

    @property
    def variables(self):
        """The kernel and bias (once called), as TF's layer lists them."""
        return [v for v in (self.kernel, self.bias) if v is not None]

    weights = variables

    @property
    def trainable_variables(self):
        return self.variables if self.trainable else []

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        return [] if self.trainable else self.variables

    non_trainable_weights = non_trainable_variables


@with_activity_regularizer
def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=ZEROS, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """``tf.layers.dense``: ``activation(inputs @ kernel + bias)`` with new (or reused) variables."""
    layer = Dense(units, activation, use_bias, kernel_initializer, bias_initializer,
                  kernel_regularizer, bias_regularizer, trainable, name,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint)
    layer.explicit_scope = True
    return layer(inputs, reuse=reuse)


def int_tuple(value, what, n=2):
    """``n`` ints from an int or a sequence of ``n`` (a kernel size, strides)."""
    pair = (int(value),) * n if np.ndim(value) == 0 else tuple(int(v) for v in value)
    if len(pair) != n:
        raise ValueError(f"{what}: give an int or {n} ints, got {value!r}")
    return pair


def padding_name(padding):
    """"VALID" or "SAME" from a layer's ``padding`` argument (any case)."""
    if str(padding).lower() not in ("valid", "same"):
        raise ValueError(f"padding={padding!r}; use 'valid' or 'same'")
    return str(padding).upper()


def transposed_size(sizes, kernel, strides, padding):
    """The height and width a transposed convolution layer gives (Keras's rule): n * s
    for SAME, n * s + max(k - s, 0) for VALID (a kernel shorter than its stride leaves
    zeros between the windows, and TF keeps them)."""
    return [n * s + (0 if padding == "SAME" else max(k - s, 0))
            for n, k, s in zip(sizes, kernel, strides)]


def _layer_input(inputs, data_format, what, layout):
    """The layer's input as a tensor of rank ``len(layout)`` (channels last)."""
    if data_format != "channels_last":
        raise ValueError(f"tf.layers.{what}: symgrad supports data_format='channels_last'")
    inputs = _t.as_tensor(inputs)
    if inputs.shape is None:   # TF: "the channel dimension of the inputs should be defined"
        raise ValueError(f"tf.layers.{what}: inputs {inputs.name!r} have an unknown shape (a "
                         f"placeholder made without one); give it [{', '.join(layout)}], "
                         "e.g. tf.placeholder(tf.float32, [None, ...])")
    if inputs.ndim != len(layout):
        raise ValueError(f"{what}: inputs {inputs.name!r} have shape {inputs.shape}; the "
                         f"layer needs [{', '.join(layout)}]")
    return inputs


def _kernel_layer(what, inputs, kernel_shape, filters, op, name, reuse, activation, use_bias,
                  kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                  trainable, constraints=(None, None)):
    """``activation(op(kernel) + bias)`` with the layer's variables in its scope
    (``constraints``: the kernel's and the bias's, which tf.train optimizers apply)."""
    with variable_scope(name, default_name=what, reuse=reuse):
        kernel = get_variable("kernel", kernel_shape, dtype=inputs.dtype,
                              initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable,
                              constraint=constraints[0])
        out = op(kernel)
        if use_bias:
            out = out + get_variable("bias", (int(filters),), dtype=inputs.dtype,
                                     initializer=bias_initializer,
                                     regularizer=bias_regularizer, trainable=trainable,
                                     constraint=constraints[1])
        return activation(out) if activation is not None else out


@with_activity_regularizer
def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
           data_format="channels_last", dilation_rate=(1, 1), activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """``tf.layers.conv2d``: ``activation(conv2d(inputs, kernel) + bias)`` on [N, H, W, C]."""
    inputs = _layer_input(inputs, data_format, "conv2d", ("batch", "height", "width",
                                                          "channels"))
    shape = int_tuple(kernel_size, "conv2d(kernel_size)") + (inputs.shape[-1], int(filters))
    return _kernel_layer(
        "conv2d", inputs, shape, filters,
        lambda kernel: _conv.conv2d(inputs, kernel, int_tuple(strides, "conv2d(strides)"),
                                    padding_name(padding),
                                    dilations=int_tuple(dilation_rate, "dilation_rate")),
        name, reuse, activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, trainable, (kernel_constraint, bias_constraint))


@with_activity_regularizer
def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", activation=None, use_bias=True,
                     kernel_initializer=None, bias_initializer=ZEROS, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """``tf.layers.conv2d_transpose``: the decoder's upsampling layer on [N, H, W, C]
    (output H * stride for "same", H * stride + max(kernel - stride, 0) for "valid")."""
    inputs = _layer_input(inputs, data_format, "conv2d_transpose",
                          ("batch", "height", "width", "channels"))
    (kh, kw), (sh, sw) = int_tuple(kernel_size, "kernel_size"), int_tuple(strides, "strides")
    size = transposed_size(inputs.shape[1:3], (kh, kw), (sh, sw), padding_name(padding))
    return _kernel_layer(
        "conv2d_transpose", inputs, (kh, kw, int(filters), inputs.shape[-1]), filters,
        lambda kernel: _conv.conv2d_transpose(inputs, kernel,
                                              (inputs.shape[0], *size, int(filters)),
                                              (1, sh, sw, 1), padding_name(padding)),
        name, reuse, activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, trainable, (kernel_constraint, bias_constraint))


@with_activity_regularizer
def separable_conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid",
                     data_format="channels_last", dilation_rate=(1, 1), depth_multiplier=1,
                     activation=None, use_bias=True, depthwise_initializer=None,
                     pointwise_initializer=None, bias_initializer=ZEROS,
                     depthwise_regularizer=None, pointwise_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None,
                     depthwise_constraint=None, pointwise_constraint=None,
                     bias_constraint=None, trainable=True, name=None, reuse=None):
    """``tf.layers.separable_conv2d``: ``tf.nn.separable_conv2d`` with the variables
    ``depthwise_kernel`` [kh, kw, C, depth_multiplier], ``pointwise_kernel``
    [1, 1, C * depth_multiplier, filters] and ``bias`` (TF's names and shapes)."""
    inputs = _layer_input(inputs, data_format, "separable_conv2d",
                          ("batch", "height", "width", "channels"))
    (kh, kw), c, m = int_tuple(kernel_size, "kernel_size"), inputs.shape[-1], int(depth_multiplier)
    with variable_scope(name, default_name="separable_conv2d", reuse=reuse):
        def variable(what, shape, initializer, regularizer, constraint):
            return get_variable(what, shape, dtype=inputs.dtype, initializer=initializer,
                                regularizer=regularizer, trainable=trainable,
                                constraint=constraint)
        depthwise = variable("depthwise_kernel", (kh, kw, c, m), depthwise_initializer,
                             depthwise_regularizer, depthwise_constraint)
        pointwise = variable("pointwise_kernel", (1, 1, c * m, int(filters)),
                             pointwise_initializer, pointwise_regularizer, pointwise_constraint)
        out = _separable(inputs, depthwise, pointwise,
                         (1,) + int_tuple(strides, "strides") + (1,), padding_name(padding),
                         dilations=int_tuple(dilation_rate, "dilation_rate"))
        if use_bias:
            out = out + variable("bias", (int(filters),), bias_initializer, bias_regularizer,
                                 bias_constraint)
        return activation(out) if activation is not None else out


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                        beta_initializer=None, gamma_initializer=None,
                        moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                        gamma_constraint=None, training=False, trainable=True, name=None,
                        reuse=None, renorm=False, renorm_clipping=None, renorm_momentum=0.99,
                        fused=None, virtual_batch_size=None, adjustment=None):
    """``tf.layers.batch_normalization``: ``gamma * (x - mean) / sqrt(var + epsilon) + beta``
    over every axis but ``axis``.

    ``training`` (a bool or a boolean tensor) picks the batch's moments (``tf.nn.moments``,
    the variance without Bessel's correction) or the moving ones.  Training adds to
    ``tf.GraphKeys.UPDATE_OPS`` the updates ``moving -= (moving - batch) * (1 - momentum)``
    that TF adds (run them with ``tf.control_dependencies``, as TF's docs say); with a
    training tensor they leave the moving moments alone when it is False.  On 4-d inputs
    (unless ``fused=False``) the moving variance takes the batch variance times
    n / (n - 1), as TF's fused kernel does.
    """
    if renorm or virtual_batch_size is not None or adjustment is not None:
        raise ValueError("tf.layers.batch_normalization: renorm, virtual_batch_size and "
                         "adjustment are not supported")
    inputs = _t.as_tensor(inputs)
    axis = int(axis) % inputs.ndim
    size = inputs.shape[axis]
    if not isinstance(size, int):
        raise ValueError(f"batch_normalization: the axis {axis} of {inputs.name!r} (shape "
                         f"{inputs.shape}) needs a known size")
    with variable_scope(name, default_name="batch_normalization", reuse=reuse):
        def variable(what, initializer, regularizer=None, trainable_=trainable,
                     constraint=None):
            return get_variable(what, (size,), dtype=inputs.dtype, initializer=initializer,
                                regularizer=regularizer, trainable=trainable_,
                                constraint=constraint)
        gamma = variable("gamma", gamma_initializer or _init.Ones(), gamma_regularizer,
                         constraint=gamma_constraint) if scale else None
        beta = variable("beta", beta_initializer or _init.Zeros(), beta_regularizer,
                        constraint=beta_constraint) if center else None
        moving_mean = variable("moving_mean", moving_mean_initializer or _init.Zeros(),
                               trainable_=False)
        moving_var = variable("moving_variance", moving_variance_initializer or _init.Ones(),
                              trainable_=False)
        # (the updates inside the layer's scope: TF's G/batch_normalization/AssignMovingAvg)
        out, updates = normalize(inputs, axis, (gamma, beta, moving_mean, moving_var),
                                 epsilon, momentum, training, unbiased=fused is not False and
                                 inputs.ndim == 4 and axis in (1, 3))
    for update in updates:
        _variables.add_to_collection(_variables.GraphKeys.UPDATE_OPS, update)
    # (a layer object passes its VariableScope as the name: the op keeps a default one)
    return _t.identity(out, name=name if isinstance(name, str) else None)


def normalize(inputs, axis, variables, epsilon, momentum, training, unbiased=False):
    """Batch normalization with ``variables`` (gamma or None, beta or None, moving mean,
    moving variance) along ``axis``: the output and the moving-average updates
    ``moving -= (moving - batch) * (1 - momentum)`` (none when ``training`` is False;
    with a training tensor they leave the moving moments alone when it is False).
    ``unbiased``: the moving variance takes the batch variance times n / (n - 1), n the
    count of values per channel (TF's fused kernel, which keras uses on 4-d inputs)."""
    gamma, beta, moving_mean, moving_var = variables
    along = tuple(inputs.shape[axis] if a == axis else 1 for a in range(inputs.ndim))

    def normalized(mean, var):
        inv = _t.rsqrt(_t.reshape(var, along) + epsilon)
        if gamma is not None:
            inv = inv * _t.reshape(gamma, along)
        shift = _t.reshape(beta, along) if beta is not None else 0.0
        return inputs * inv + (shift - _t.reshape(mean, along) * inv)

    if training is False:
        return normalized(moving_mean, moving_var), []
    mean, var = _nn.moments(inputs, [a for a in range(inputs.ndim) if a != axis])
    rate = 1.0 - momentum
    if training is True:
        out = normalized(mean, var)
    else:
        training = scalar_by_contract(training)
        out = _t.where(training, normalized(mean, var), normalized(moving_mean, moving_var))
        rate = rate * _t.cast(training, inputs.dtype)
    if unbiased:
        n = _t.cast(_t.size(inputs), inputs.dtype) / float(inputs.shape[axis])
        var = var * n / (n - 1.0)
    updates = [_variables.assign_sub(moving, (moving - _t.stop_gradient(batch)) * rate,
                                     name="AssignMovingAvg")
               for moving, batch in ((moving_mean, mean), (moving_var, var))]
    return out, updates


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """``tf.layers.max_pooling2d`` on [N, H, W, C]."""
    return _conv.max_pool(inputs, int_tuple(pool_size, "pool_size"), int_tuple(strides, "strides"),
                          padding_name(padding), name=name)


def _pool1d(pool, inputs, pool_size, strides, padding, data_format, name):
    """A 1-D pooling on [N, W, C] as the 2-D one over height 1."""
    x = _layer_input(inputs, data_format, "1-D pooling", ("batch", "width", "channels"))
    (k,), (s,) = int_tuple(pool_size, "pool_size", 1), int_tuple(strides, "strides", 1)
    out = pool(_t.expand_dims(x, 1), (1, k), (1, s), padding_name(padding))
    return _t.squeeze(out, [1], name=name)


def max_pooling1d(inputs, pool_size, strides, padding="valid", data_format="channels_last",
                  name=None):
    """``tf.layers.max_pooling1d`` on [N, W, C]."""
    return _pool1d(_conv.max_pool, inputs, pool_size, strides, padding, data_format, name)


def average_pooling1d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """``tf.layers.average_pooling1d`` on [N, W, C]."""
    return _pool1d(_conv.avg_pool, inputs, pool_size, strides, padding, data_format, name)


@with_activity_regularizer
def conv1d(inputs, filters, kernel_size, strides=1, padding="valid",
           data_format="channels_last", dilation_rate=1, activation=None, use_bias=True,
           kernel_initializer=None, bias_initializer=ZEROS, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
           bias_constraint=None, trainable=True, name=None, reuse=None):
    """``tf.layers.conv1d``: ``activation(conv1d(inputs, kernel) + bias)`` on [N, W, C]."""
    inputs = _layer_input(inputs, data_format, "conv1d", ("batch", "width", "channels"))
    (k,) = int_tuple(kernel_size, "conv1d(kernel_size)", 1)
    return _kernel_layer(
        "conv1d", inputs, (k, inputs.shape[-1], int(filters)), filters,
        lambda kernel: _conv.conv1d(inputs, kernel, int_tuple(strides, "conv1d(strides)", 1)[0],
                                    padding_name(padding),
                                    dilations=int_tuple(dilation_rate, "dilation_rate", 1)[0]),
        name, reuse, activation, use_bias, kernel_initializer, bias_initializer,
        kernel_regularizer, bias_regularizer, trainable, (kernel_constraint, bias_constraint))


def average_pooling2d(inputs, pool_size, strides, padding="valid",
                      data_format="channels_last", name=None):
    """``tf.layers.average_pooling2d`` on [N, H, W, C]."""
    return _conv.avg_pool(inputs, int_tuple(pool_size, "pool_size"), int_tuple(strides, "strides"),
                          padding_name(padding), name=name)


def flatten(inputs, name=None, data_format="channels_last"):
    """[N, ...] -> [N, prod(...)]."""
    inputs = _t.as_tensor(inputs)
    size = int(np.prod(inputs.shape[1:], dtype=np.int64))
    return _t.reshape(inputs, (-1, size), name=name)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``tf.layers.dropout``: the inputs unchanged unless ``training`` (a bool or a boolean
    tensor); the mask is drawn anew at each ``Session.run`` (see ``tf.nn.dropout``).
    With ``seed=`` (TF's own mask) a ``training`` tensor chooses by ``tf.cond``, as TF's
    ``smart_cond`` does, so a run with it false draws no mask and the stream moves on
    only in runs that train (TF's numbers after evaluation runs in between); without
    one the mask is symgrad's own and a ``where`` (cheaper to run) chooses."""
    inputs = _t.as_tensor(inputs)
    if training is False:
        return _t.identity(inputs, name=name)

    def dropped():
        seeded = _distributions.seeded_dropout(inputs, rate, noise_shape, seed, None)
        return seeded if seeded is not None else _nn.dropout(
            inputs, rate=rate, noise_shape=noise_shape, rng=_init.rng(seed), per_run=True)
    if training is True:
        return _t.identity(dropped(), name=name)
    if _init.tf_seeds(seed) is None:
        return _t.where(scalar_by_contract(training), dropped(), inputs, name=name)
    return _control.cond(training, dropped, lambda: _t.identity(inputs), name=name)
