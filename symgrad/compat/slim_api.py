"""The ``tf.contrib.layers`` and ``tf.contrib.slim`` namespaces.

TF1 programs write ``slim = tf.contrib.slim`` (``import tensorflow.contrib.slim as slim``
needs a ``tensorflow`` package; with symgrad write ``slim = tf.contrib.slim`` instead).
``slim`` holds the layers (``compat.slim_layers``, ``slim_norm``), the regularizers and
initializers (``compat.contrib_layers``), ``arg_scope`` (``compat.arg_scopes``), the
variable functions (``compat.slim_variables``), ``slim.losses``, ``slim.learning`` and
``slim.utils``, ``slim.metrics`` and ``slim.evaluation`` (``compat.slim_eval``);
anything else is an AttributeError saying what symgrad has.
``tf.contrib.framework`` holds the same arg_scope and variable functions
(``tf.contrib.framework.get_or_create_global_step``, ``get_variables_to_restore``...).

Imports the slim modules and ``runtime`` (namespaces).

>>> import symgrad.compat.v1 as tf
>>> slim = tf.contrib.slim
>>> with tf.Graph().as_default():
...     with slim.arg_scope([slim.fully_connected], activation_fn=None):
...         y = slim.fully_connected(tf.ones([1, 2]), 3, scope="fc")
...     print(y.name, [v.name for v in slim.get_variables_by_name("weights")])
fc/BiasAdd:0 ['fc/weights:0']
"""
from __future__ import annotations

import functools

from .. import tracing as _t
from . import arg_scopes, contrib_layers, contrib_optimize, runtime
from . import slim_layers, slim_learning, slim_losses
from . import slim_eval, slim_more, slim_norm, slim_utils, slim_variables
from .variables import create_global_step, get_global_step, get_or_create_global_step

LAYERS = dict(
    {name: getattr(slim_layers, name) for name in (
        "avg_pool2d", "avg_pool3d", "conv1d", "conv2d", "conv3d", "convolution",
        "convolution1d", "convolution2d", "convolution3d", "max_pool3d", "conv2d_transpose",
        "convolution2d_transpose", "separable_conv2d", "separable_convolution2d", "dropout",
        "flatten", "fully_connected", "max_pool2d")},
    **{name: getattr(slim_more, name) for name in (
        "bias_add", "embed_sequence", "one_hot_encoding", "repeat", "softmax", "stack")},
    batch_norm=slim_norm.batch_norm, layer_norm=slim_norm.layer_norm,
    linear=functools.partial(slim_layers.fully_connected, activation_fn=None),
    relu=functools.partial(slim_layers.fully_connected, activation_fn=_t.nn.relu),
    relu6=functools.partial(slim_layers.fully_connected, activation_fn=_t.nn.relu6),
    **{name: getattr(contrib_layers, name) for name in (
        "l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "sum_regularizer",
        "apply_regularization", "xavier_initializer", "variance_scaling_initializer")},
    xavier_initializer_conv2d=contrib_layers.xavier_initializer,
    optimize_loss=contrib_optimize.optimize_loss,
    OPTIMIZER_CLS_NAMES=contrib_optimize.OPTIMIZER_CLS_NAMES)

ARG_SCOPES = {name: getattr(arg_scopes, name) for name in (
    "arg_scope", "add_arg_scope", "current_arg_scope", "has_arg_scope",
    "arg_scoped_arguments", "arg_scope_func_key")}

VARIABLES = dict(
    {name: getattr(slim_variables, name) for name in (
        "variable", "model_variable", "add_model_variable", "local_variable",
        "global_variable", "get_variables", "get_model_variables", "get_local_variables",
        "get_trainable_variables", "get_variables_by_suffix", "get_variables_by_name",
        "get_variables_to_restore", "get_unique_variable", "get_variable_full_name",
        "assign_from_checkpoint_fn", "assign_from_values_fn")},
    get_global_step=get_global_step, create_global_step=create_global_step,
    get_or_create_global_step=get_or_create_global_step)


def _namespaces():
    utils = runtime.namespace("contrib.slim.utils", _plain=True,
                              **{name: getattr(slim_utils, name) for name in slim_utils.__all__})
    losses = runtime.namespace("contrib.slim.losses", **{name: getattr(slim_losses, name)
                                                         for name in (
        "absolute_difference", "add_loss", "compute_weighted_loss", "cosine_distance",
        "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
        "log_loss", "mean_squared_error", "sigmoid_cross_entropy", "softmax_cross_entropy",
        "sparse_softmax_cross_entropy")})
    learning = runtime.namespace("contrib.slim.learning", **{name: getattr(slim_learning, name)
                                                             for name in (
        "create_train_op", "train", "train_step", "clip_gradient_norms",
        "multiply_gradients", "add_gradients_summaries")})
    metrics = runtime.namespace("contrib.metrics", **{name: getattr(slim_eval, name)
                                                      for name in slim_eval.METRICS})
    evaluation = runtime.namespace("contrib.slim.evaluation",
                                   evaluate_once=slim_eval.evaluate_once,
                                   evaluation_loop=slim_eval.evaluation_loop)
    layers = runtime.namespace("contrib.layers", utils=utils, **LAYERS)
    analyzer = runtime.namespace("contrib.slim.model_analyzer", _plain=True,
                                 **{name: getattr(slim_utils, name)
                                    for name in slim_utils.ANALYZER})
    slim = runtime.namespace("contrib.slim", losses=losses, learning=learning, utils=utils,
                             model_analyzer=analyzer,
                             layers=layers, metrics=metrics, evaluation=evaluation,
                             **LAYERS, **ARG_SCOPES, **VARIABLES)
    framework = runtime.namespace("contrib.framework", **ARG_SCOPES, **VARIABLES)
    return dict(layers=layers, slim=slim, losses=losses, framework=framework,
                metrics=metrics)


CONTRIB = _namespaces()   # tf.contrib's layers, slim, losses, framework and metrics
