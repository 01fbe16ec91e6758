"""``slim.batch_norm`` (``tf.contrib.layers.batch_norm``): batch normalization as TF-Slim has it.

Variables in scope ``BatchNorm`` (inside the layer whose ``normalizer_fn`` it is:
``Conv/BatchNorm/...``): ``beta`` (``center=True``), ``gamma`` (only with ``scale=True``:
slim's default is ``scale=False``), ``moving_mean`` and ``moving_variance`` (not
trainable), all model variables.  With ``is_training`` True (the default) the output
uses the batch's moments and the updates ``moving -= (moving - batch) * (1 - decay)``
(``decay=0.999``) go to ``updates_collections`` (``tf.GraphKeys.UPDATE_OPS``; run them
with the train op, e.g. ``slim.learning.create_train_op`` does); with
``updates_collections=None`` they run whenever the output is computed.  With
``is_training`` False the moving moments are used and nothing is updated; a boolean
tensor picks at run time.  On rank 2 and 4 inputs (TF's fused kernel, the default
``fused=None``) the moving variance takes the batch variance times n / (n - 1).

``layer_norm`` (scope ``LayerNorm``: ``beta``, ``gamma`` over the axes from
``begin_params_axis``) normalizes each example over the axes from ``begin_norm_axis``
(variance epsilon 1e-12, as TF).

Imports the compat scopes, layers and variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = batch_norm(tf.constant([[1.0], [3.0]]))
...     print([v.name for v in tf.global_variables()])
['BatchNorm/beta:0', 'BatchNorm/moving_mean:0', 'BatchNorm/moving_variance:0']
"""
from __future__ import annotations

from .. import tracing as _t
from . import initializers as _init
from . import layers as _layers
from .arg_scopes import add_arg_scope
from .slim_layers import collect_named_outputs, layer_scope, layer_variable, \
    variable_collections
from .variables import GraphKeys, add_to_collection, control_dependencies

_UNSUPPORTED = ("batch_weights", "zero_debias_moving_mean", "renorm", "adjustment")


def _refuse(options):
    given = [name for name in _UNSUPPORTED if options[name] not in (None, False)]
    if given:
        raise ValueError(f"slim.batch_norm: {', '.join(given)} is not supported by symgrad; "
                         "leave it out (plain batch normalization is)")
    if options["data_format"] not in ("NHWC", None):
        raise ValueError(f"slim.batch_norm: data_format={options['data_format']!r}; symgrad "
                         "supports NHWC (channels last): transpose the inputs")


def _params(x, options):
    """beta, gamma (or None) and the moving moments, in TF's order."""
    inits = options["param_initializers"] or {}
    regs = options["param_regularizers"] or {}
    size = x.shape[-1]

    def make(name, default, trainable):
        return layer_variable(name, (size,), x.dtype, inits.get(name, default),
                              regs.get(name), trainable,
                              variable_collections(options["variables_collections"], name))
    beta = make("beta", _init.Zeros(), options["trainable"]) if options["center"] else None
    gamma = make("gamma", _init.Ones(), options["trainable"]) if options["scale"] else None
    return (gamma, beta, make("moving_mean", _init.Zeros(), False),
            make("moving_variance", _init.Ones(), False))


@add_arg_scope
def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None,
               updates_collections=GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None):
    """Normalize over every axis but the last (module docstring)."""
    options = dict(locals())
    _refuse(options)
    x = _t.as_tensor(inputs)
    if x.shape is None or x.ndim < 2 or not isinstance(x.shape[-1], int):
        raise ValueError(f"slim.batch_norm: inputs {x.name!r} have shape {x.shape}; they need "
                         "rank >= 2 and a known last (channels) dimension")
    with layer_scope(scope, "BatchNorm", reuse) as sc:
        params = _params(x, options)
        out, updates = _layers.normalize(
            x, x.ndim - 1, params, epsilon, decay, is_training,
            unbiased=fused is not False and x.ndim in (2, 4))
        if updates and updates_collections is None:   # the updates run with the output
            with control_dependencies(updates):
                out = _t.identity(out)
        for key in ([updates_collections] if isinstance(updates_collections, str)
                    else updates_collections or []):
            for update in updates:
                add_to_collection(key, update)
        if activation_fn is not None:
            out = activation_fn(out)
    return collect_named_outputs(outputs_collections, sc.name, out)


@add_arg_scope
def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """``(x - mean) / sqrt(var + 1e-12) * gamma + beta``, the moments over the axes from
    ``begin_norm_axis`` of each example."""
    x = _t.as_tensor(inputs)
    if x.shape is None:
        raise ValueError(f"slim.layer_norm: inputs {x.name!r} have an undefined rank")
    rank = x.ndim
    begin_norm_axis = begin_norm_axis + rank if begin_norm_axis < 0 else begin_norm_axis
    if begin_params_axis >= rank or begin_norm_axis >= rank:
        raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                         f"({begin_norm_axis}) must be < rank(inputs) ({rank})")
    params_shape = tuple(x.shape[begin_params_axis:])
    if not all(isinstance(d, int) for d in params_shape):
        raise ValueError(f"slim.layer_norm: inputs {x.name!r}: shape[{begin_params_axis}:] "
                         f"is not fully defined: {x.shape}")
    with layer_scope(scope, "LayerNorm", reuse) as sc:
        def make(name, init):
            return layer_variable(name, params_shape, x.dtype, init, None, trainable,
                                  variable_collections(variables_collections, name))
        beta = make("beta", _init.Zeros()) if center else None
        gamma = make("gamma", _init.Ones()) if scale else None
        mean, var = _t.nn.moments(x, list(range(begin_norm_axis, rank)), keepdims=True)
        out = _t.nn.batch_normalization(x, mean, var, beta, gamma, 1e-12)
        if activation_fn is not None:
            out = activation_fn(out)
    return collect_named_outputs(outputs_collections, sc.name, out)
