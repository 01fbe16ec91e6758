"""``tf.contrib.layers`` / TF-Slim layer functions with their variables named as TF names them.

- ``conv2d`` (scope ``Conv``: ``Conv/weights`` [kh, kw, in, out], ``Conv/biases``;
  ``conv1d`` takes [N, W, C], ``conv3d`` [N, D, H, W, C], ``convolution`` any of them),
  ``fully_connected`` (``fully_connected/weights``, ``.../biases``),
  ``conv2d_transpose`` (``Conv2d_transpose``) and ``separable_conv2d``
  (``SeparableConv2d/depthwise_weights``, ``pointwise_weights``, ``biases``): ReLU by
  default, weights from ``xavier_initializer()``, biases zeros; with ``normalizer_fn``
  (e.g. ``slim.batch_norm``) there are no biases and ``normalizer_fn(out,
  **normalizer_params)`` comes before the activation. Each variable is a model variable
  (``tf.GraphKeys.MODEL_VARIABLES``) and joins ``variables_collections`` (a list, or a
  dict by "weights"/"biases"); ``weights_regularizer`` adds its loss, named
  ``<scope>/kernel/Regularizer/...`` as TF names it, to ``REGULARIZATION_LOSSES`` once
  (not again when the variables are reused). A second call makes ``Conv_1``; ``scope=``
  names the scope, and ``reuse=True`` with it shares the variables.
- ``max_pool2d``, ``avg_pool2d`` (kernel, stride 2, "VALID"; ``max_pool3d``,
  ``avg_pool3d`` on volumes), ``flatten``, ``dropout``
  (``keep_prob``, ``is_training`` True by default);
- ``outputs_collections``: the output joins them with its scope name as an alias
  (``slim.utils.convert_collection_to_dict`` reads them back).

Every function takes its keyword defaults from ``slim.arg_scope`` (``compat.arg_scopes``);
``repeat``, ``stack`` and the smaller layers are in ``compat.slim_more``.
Imports the tracing functions and the compat scopes, layers and initializers.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.zeros([2, 4, 4, 3])
...     y = conv2d(x, 8, [3, 3])
...     print(y.shape, [v.name for v in tf.model_variables()])
(2, 4, 4, 8) ['Conv/weights:0', 'Conv/biases:0']
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import conv as _conv
from . import initializers as _init
from . import layers as _layers
from . import more_ops as _more_ops
from . import nn_volumes as _volumes
from .arg_scopes import add_arg_scope
from .contrib_layers import xavier_initializer
from .scopes import get_variable, get_variable_scope, variable_scope
from .variables import GraphKeys, add_to_collection, get_collection, global_variables

_XAVIER = xavier_initializer()
_ZEROS = _init.Zeros()
_CHANNELS_LAST = (None, "NHWC", "NWC", "NDHWC")


def variable_collections(variables_collections, what):
    """The collections ``variables_collections`` names for ``what`` ("weights", "beta",
    ...): a dict looked up by name, else the list (or one name) for every variable."""
    if isinstance(variables_collections, dict):
        variables_collections = variables_collections.get(what)
    if isinstance(variables_collections, str):
        return [variables_collections]
    return list(variables_collections or [])


def layer_variable(name, shape, dtype, initializer, regularizer=None, trainable=True,
                   collections=(), loss_name=None):
    """A model variable of the current variable scope (made, or reused), put in
    ``collections`` too; a new one's regularizer loss is named
    ``<scope>/<loss_name>/Regularizer/...`` (TF's core layers name it by the kernel)."""
    known = {id(v) for v in global_variables()}
    var = get_variable(name, shape, dtype=dtype, initializer=initializer,
                       trainable=trainable,
                       collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.MODEL_VARIABLES])
    for key in collections:
        if not any(v is var for v in get_collection(key)):
            add_to_collection(key, var)
    if regularizer is not None and id(var) not in known:
        scope = get_variable_scope().name
        where = f"{scope}/{loss_name or name}/Regularizer".lstrip("/")
        with _t.get_default_graph().absolute_scope(where):
            loss = regularizer(var)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return var


def collect_named_outputs(collections, alias, outputs):
    """Put ``outputs`` in ``collections`` under the alias ``alias`` (kept in
    ``outputs.aliases``, as TF keeps it); no collections: nothing."""
    if collections:
        aliases = getattr(outputs, "aliases", None) or []
        outputs.aliases = aliases + [alias.rstrip("/")]
        for key in ([collections] if isinstance(collections, str) else collections):
            add_to_collection(key, outputs)
    return outputs


def layer_scope(scope, default_name, reuse):
    """The layer's variable scope; ``reuse=True`` needs ``scope`` (TF's ValueError)."""
    if reuse is True and scope is None:
        raise ValueError(f"reuse=True cannot be used without a name_or_scope: give the "
                         f"{default_name} layer the scope= of the one to share")
    return variable_scope(scope, default_name=default_name, reuse=reuse)


def _check_format(data_format, what):
    if data_format not in _CHANNELS_LAST:
        raise ValueError(f"slim.{what}: data_format={data_format!r}; symgrad supports the "
                         "channels-last formats (NHWC, NWC): transpose the inputs with "
                         "tf.transpose")


def _finish(out, sc_name, opts):
    """Then the normalizer (if any), the activation and the outputs collections."""
    if opts["normalizer_fn"] is not None:
        out = opts["normalizer_fn"](out, **(opts["normalizer_params"] or {}))
    if opts["activation_fn"] is not None:
        out = opts["activation_fn"](out)
    return collect_named_outputs(opts["outputs_collections"], sc_name, out)


def _weighted_layer(default_name, inputs, kernels, num_outputs, apply, opts):
    """The shared body of the weighted layers: ``kernels`` ((name, shape, loss name,
    initializer) in TF's order) made in the layer's scope, ``apply(*kernels)``, then biases
    unless a normalizer follows, the normalizer, the activation."""
    with layer_scope(opts["scope"], default_name, opts["reuse"]) as sc:
        weights = [layer_variable(name, shape, inputs.dtype, init, opts["weights_regularizer"],
                                  opts["trainable"],
                                  variable_collections(opts["variables_collections"],
                                                       "weights"), loss_name)
                   for name, shape, loss_name, init in kernels]
        out = apply(*weights)
        if opts["normalizer_fn"] is None and opts["biases_initializer"] is not None:
            biases = layer_variable("biases", (int(num_outputs),), inputs.dtype,
                                    opts["biases_initializer"], opts["biases_regularizer"],
                                    opts["trainable"],
                                    variable_collections(opts["variables_collections"],
                                                         "biases"), "bias")
            out = _t.nn.bias_add(out, biases, name="BiasAdd")
        return _finish(out, sc.name, opts)


def _tensor(inputs, what, ranks):
    inputs = _t.as_tensor(inputs)
    if inputs.shape is None or inputs.ndim not in ranks or not isinstance(inputs.shape[-1], int):
        raise ValueError(f"slim.{what}: inputs {inputs.name!r} have shape {inputs.shape}; "
                         f"the layer needs rank {' or '.join(map(str, ranks))} with a known "
                         "last (channels) dimension")
    return inputs


@add_arg_scope
def convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                rate=1, activation_fn=_t.nn.relu, normalizer_fn=None, normalizer_params=None,
                weights_initializer=_XAVIER, weights_regularizer=None,
                biases_initializer=_ZEROS, biases_regularizer=None, reuse=None,
                variables_collections=None, outputs_collections=None, trainable=True,
                scope=None, conv_dims=None):
    """``slim.convolution``: ``activation_fn(normalizer_fn(conv(inputs, weights) +
    biases))`` (module docstring); rank-3 inputs [N, W, C] get a 1-D convolution."""
    _check_format(data_format, "convolution")
    opts = dict(locals())
    x = _tensor(inputs, "convolution", (conv_dims + 2,) if conv_dims else (3, 4, 5))
    n = x.ndim - 2
    kernel = _layers.int_tuple(kernel_size, "convolution(kernel_size)", n)
    strides = _layers.int_tuple(stride, "convolution(stride)", n)
    dilations = _layers.int_tuple(rate, "convolution(rate)", n)
    pad = _layers.padding_name(padding)

    def apply(w):
        if n == 1:
            return _conv.conv1d(x, w, strides[0], pad, dilations=dilations[0])
        if n == 2:
            return _conv.conv2d(x, w, strides, pad, dilations=dilations)
        return _volumes.conv3d(x, w, (1,) + strides + (1,), pad,
                               dilations=(1,) + dilations + (1,))
    return _weighted_layer("Conv", x, [("weights", kernel + (x.shape[-1], int(num_outputs)),
                                        "kernel", weights_initializer)],
                           num_outputs, apply, opts)


_CONV_ARGS = ("inputs", "num_outputs", "kernel_size", "stride", "padding", "data_format", "rate",
              "activation_fn", "normalizer_fn", "normalizer_params", "weights_initializer",
              "weights_regularizer", "biases_initializer", "biases_regularizer", "reuse",
              "variables_collections", "outputs_collections", "trainable", "scope")


@add_arg_scope
def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=_t.nn.relu, normalizer_fn=None,
                  normalizer_params=None, weights_initializer=_XAVIER,
                  weights_regularizer=None, biases_initializer=_ZEROS,
                  biases_regularizer=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, scope=None):
    """``slim.conv2d``: ``convolution`` of [N, H, W, C] inputs (rank 4 only, as TF)."""
    given = dict(locals())
    return convolution(**{k: given[k] for k in _CONV_ARGS}, conv_dims=2)


@add_arg_scope
def convolution1d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=_t.nn.relu, normalizer_fn=None,
                  normalizer_params=None, weights_initializer=_XAVIER,
                  weights_regularizer=None, biases_initializer=_ZEROS,
                  biases_regularizer=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, scope=None):
    """``slim.conv1d``: ``convolution`` of [N, W, C] inputs."""
    given = dict(locals())
    return convolution(**{k: given[k] for k in _CONV_ARGS}, conv_dims=1)


@add_arg_scope
def convolution3d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=_t.nn.relu, normalizer_fn=None,
                  normalizer_params=None, weights_initializer=_XAVIER,
                  weights_regularizer=None, biases_initializer=_ZEROS,
                  biases_regularizer=None, reuse=None, variables_collections=None,
                  outputs_collections=None, trainable=True, scope=None):
    """``slim.conv3d``: ``convolution`` of [N, D, H, W, C] inputs."""
    given = dict(locals())
    return convolution(**{k: given[k] for k in _CONV_ARGS}, conv_dims=3)


@add_arg_scope
def fully_connected(inputs, num_outputs, activation_fn=_t.nn.relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=_XAVIER,
                    weights_regularizer=None, biases_initializer=_ZEROS,
                    biases_regularizer=None, reuse=None, variables_collections=None,
                    outputs_collections=None, trainable=True, scope=None):
    """``activation_fn(normalizer_fn(inputs @ weights + biases))`` over the last axis."""
    if not isinstance(num_outputs, (int, np.integer)) or isinstance(num_outputs, bool):
        raise ValueError(f"fully_connected: num_outputs must be an int, got "
                         f"{type(num_outputs).__name__} {num_outputs!r}")
    opts = dict(locals())
    x = _t.as_tensor(inputs)
    if x.shape is None or x.ndim < 2 or not isinstance(x.shape[-1], int):
        raise ValueError(f"fully_connected: inputs {x.name!r} have shape {x.shape}; they need "
                         "rank >= 2 and a known last dimension (give the placeholder a shape)")

    def apply(w):
        return _t.matmul(x, w) if x.ndim == 2 else _t.tensordot(x, w, [[x.ndim - 1], [0]])
    return _weighted_layer("fully_connected", x, [("weights", (x.shape[-1], int(num_outputs)),
                                                   "kernel", weights_initializer)],
                           num_outputs, apply, opts)


@add_arg_scope
def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format="NHWC", activation_fn=_t.nn.relu, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=_XAVIER,
                            weights_regularizer=None, biases_initializer=_ZEROS,
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None):
    """``slim.conv2d_transpose``: weights [kh, kw, num_outputs, in]; the output is
    H * stride ("SAME") or H * stride + max(k - stride, 0) ("VALID") high (Keras's rule)."""
    _check_format(data_format, "conv2d_transpose")
    opts = dict(locals())
    x = _tensor(inputs, "conv2d_transpose", (4,))
    (kh, kw), (sh, sw) = (_layers.int_tuple(kernel_size, "conv2d_transpose(kernel_size)"),
                          _layers.int_tuple(stride, "conv2d_transpose(stride)"))
    pad = _layers.padding_name(padding)
    size = [n * s + (0 if pad == "SAME" else max(k - s, 0))
            for n, s, k in zip(x.shape[1:3], (sh, sw), (kh, kw))]

    def apply(w):
        return _conv.conv2d_transpose(x, w, (x.shape[0], *size, int(num_outputs)),
                                      (1, sh, sw, 1), pad)
    return _weighted_layer("Conv2d_transpose", x,
                           [("weights", (kh, kw, int(num_outputs), x.shape[-1]), "kernel",
                             weights_initializer)], num_outputs, apply, opts)


@add_arg_scope
def separable_convolution2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1,
                            padding="SAME", data_format="NHWC", rate=1,
                            activation_fn=_t.nn.relu, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=_XAVIER,
                            pointwise_initializer=None, weights_regularizer=None,
                            biases_initializer=_ZEROS, biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None,
                            trainable=True, scope=None):
    """``slim.separable_conv2d``: a depthwise convolution (``depthwise_weights`` [kh, kw,
    C, depth_multiplier]) then, unless ``num_outputs`` is None, a 1x1 one
    (``pointwise_weights`` [1, 1, C * depth_multiplier, num_outputs])."""
    _check_format(data_format, "separable_conv2d")
    opts = dict(locals())
    x = _tensor(inputs, "separable_conv2d", (4,))
    (kh, kw), c, m = (_layers.int_tuple(kernel_size, "separable_conv2d(kernel_size)"),
                      x.shape[-1], int(depth_multiplier))
    strides = (1,) + _layers.int_tuple(stride, "separable_conv2d(stride)") + (1,)
    dilations, pad = _layers.int_tuple(rate, "separable_conv2d(rate)"), \
        _layers.padding_name(padding)
    kernels = [("depthwise_weights", (kh, kw, c, m), "depthwise_kernel", weights_initializer)]
    if num_outputs is None:
        def apply(depthwise):
            return _more_ops.depthwise_conv2d(x, depthwise, strides, pad, dilations=dilations)
        return _weighted_layer("SeparableConv2d", x, kernels, c * m, apply, opts)
    kernels.append(("pointwise_weights", (1, 1, c * m, int(num_outputs)), "pointwise_kernel",
                    pointwise_initializer or weights_initializer))

    def apply_both(depthwise, pointwise):
        return _more_ops.separable_conv2d(x, depthwise, pointwise, strides, pad,
                                          dilations=dilations)
    return _weighted_layer("SeparableConv2d", x, kernels, num_outputs, apply_both, opts)


def _pool(pool, default_name, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope, n=2):
    _check_format(data_format, default_name)
    x = _tensor(inputs, default_name, (n + 2,))
    window = _layers.int_tuple(kernel_size, f"{default_name}(kernel_size)", n)
    strides = _layers.int_tuple(stride, f"{default_name}(stride)", n)
    if n == 3:   # (tf.nn's 3-D pools take the batch and channel entries too)
        window, strides = (1,) + window + (1,), (1,) + strides + (1,)
    with _t.get_default_graph().name_scope(scope or default_name) as sc:
        out = pool(x, window, strides, _layers.padding_name(padding))
    return collect_named_outputs(outputs_collections, sc, out)


@add_arg_scope
def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """The maximum over each ``kernel_size`` window of [N, H, W, C] (name scope MaxPool2D)."""
    return _pool(_conv.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """The mean over each ``kernel_size`` window of [N, H, W, C] (name scope AvgPool2D)."""
    return _pool(_conv.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope)


@add_arg_scope
def max_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC",
               outputs_collections=None, scope=None):
    """The maximum over each window of [N, D, H, W, C] (name scope MaxPool3D)."""
    return _pool(_volumes.max_pool3d, "MaxPool3D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope, n=3)


@add_arg_scope
def avg_pool3d(inputs, kernel_size, stride=2, padding="VALID", data_format="NDHWC",
               outputs_collections=None, scope=None):
    """The mean over each window of [N, D, H, W, C] (name scope AvgPool3D)."""
    return _pool(_volumes.avg_pool3d, "AvgPool3D", inputs, kernel_size, stride, padding,
                 data_format, outputs_collections, scope, n=3)


@add_arg_scope
def flatten(inputs, outputs_collections=None, scope=None):
    """[N, ...] -> [N, k] (name scope Flatten)."""
    with _t.get_default_graph().name_scope(scope or "Flatten") as sc:
        out = _layers.flatten(inputs)
    return collect_named_outputs(outputs_collections, sc, out)


@add_arg_scope
def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True,
            outputs_collections=None, scope=None, seed=None):
    """Keep each value with probability ``keep_prob`` (scaled by 1 / keep_prob) when
    ``is_training`` (a bool or a boolean tensor); the inputs otherwise."""
    with variable_scope(scope, default_name="Dropout") as sc:
        out = _layers.dropout(inputs, rate=1.0 - keep_prob, noise_shape=noise_shape,
                              seed=seed, training=is_training)
    return collect_named_outputs(outputs_collections, sc.name, out)


conv3d, conv2d, conv1d = convolution3d, convolution2d, convolution1d
conv2d_transpose = convolution2d_transpose
separable_conv2d = separable_convolution2d
