"""TF-Slim's smaller layers and its layer combinators.

- ``repeat(x, n, layer, ...)``: ``layer`` n times, in scopes ``<scope>/<scope>_1`` ...
  (``scope`` defaults to the layer's name); ``stack(x, layer, [args...])``: ``layer``
  once per entry of the list, with those arguments;
- ``one_hot_encoding``, ``softmax`` (over the last axis), ``bias_add`` (scope
  ``BiasAdd``, variable ``biases``) and ``embed_sequence`` (scope ``EmbedSequence``,
  variable ``embeddings`` [vocab_size, embed_dim], looked up by the ids).

Imports the tracing functions, the compat scopes and slim_layers.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = repeat(tf.ones([1, 2]), 2, tf.contrib.slim.fully_connected, 3, scope="fc")
...     print([v.name for v in tf.trainable_variables()][::2])
['fc/fc_1/weights:0', 'fc/fc_2/weights:0']
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import initializers as _init
from .arg_scopes import add_arg_scope
from .scopes import variable_scope
from .slim_layers import collect_named_outputs, layer_scope, layer_variable, \
    variable_collections


@add_arg_scope
def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0,
                     outputs_collections=None, scope=None):
    """``tf.one_hot(labels, num_classes)`` (float32 for Python values)."""
    dtype = np.float32 if isinstance(on_value, float) and isinstance(off_value, float) else None
    with _t.get_default_graph().name_scope(scope or "OneHotEncoding") as sc:
        out = _t.one_hot(labels, int(num_classes), on_value=on_value, off_value=off_value,
                         dtype=dtype)
    return collect_named_outputs(outputs_collections, sc, out)


@add_arg_scope
def softmax(logits, scope=None):
    """The softmax over the last axis (name scope softmax; as TF, of the logits reshaped
    to [-1, classes], reshaped back: ``<scope>/Reshape_1``)."""
    x = _t.as_tensor(logits)
    with _t.get_default_graph().name_scope(scope or "softmax"):
        rest = tuple(x.shape[1:]) if x.shape is not None else (None,)
        if not all(isinstance(d, int) for d in rest):
            return _t.softmax(x, axis=-1)
        flat = _t.softmax(_t.reshape(x, (-1, rest[-1]), name="Reshape"), axis=-1)
        return _t.reshape(flat, (-1,) + rest, name="Reshape")


def _layer_name(layer, fallback):
    name = getattr(layer, "__name__", None) or getattr(getattr(layer, "func", None),
                                                       "__name__", None)
    return name or fallback


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """``layer`` applied ``repetitions`` times, the k-th in scope ``<scope>/<scope>_k``
    (``scope`` defaults to the layer's name)."""
    scope = kwargs.pop("scope", None)
    with variable_scope(scope, default_name="Repeat"):
        name = scope or _layer_name(layer, "repeat")
        out = inputs
        for i in range(int(repetitions)):
            out = layer(out, *args, **dict(kwargs, scope=f"{name}_{i + 1}"))
        return out


def stack(inputs, layer, stack_args, **kwargs):
    """``layer(out, *stack_args[k])`` for each k, in scopes ``<scope>/<scope>_k``."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack: stack_args need to be a list or tuple (one entry per layer)")
    with variable_scope(scope, default_name="Stack"):
        name = scope or _layer_name(layer, "stack")
        out = inputs
        for i, args in enumerate(stack_args):
            args = args if isinstance(args, (list, tuple)) else [args]
            out = layer(out, *args, **dict(kwargs, scope=f"{name}_{i + 1}"))
        return out


@add_arg_scope
def bias_add(inputs, activation_fn=None, initializer=_init.Zeros(), regularizer=None,
             reuse=None, variables_collections=None, outputs_collections=None, trainable=True,
             data_format="NHWC", scope=None):
    """``inputs + biases`` over the last axis (scope BiasAdd), then ``activation_fn``."""
    if data_format not in ("NHWC", None):
        raise ValueError(f"slim.bias_add: data_format={data_format!r}; symgrad supports NHWC "
                         "(channels last)")
    x = _t.as_tensor(inputs)
    if x.shape is None or not isinstance(x.shape[-1], int):
        raise ValueError(f"slim.bias_add: the last dimension of {x.name!r} must be known "
                         f"(shape {x.shape})")
    with layer_scope(scope, "BiasAdd", reuse) as sc:
        biases = layer_variable("biases", (x.shape[-1],), x.dtype, initializer, regularizer,
                                trainable, variable_collections(variables_collections,
                                                                "biases"))
        out = _t.nn.bias_add(x, biases)
        if activation_fn is not None:
            out = activation_fn(out)
    return collect_named_outputs(outputs_collections, sc.name, out)


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):
    """The rows of ``EmbedSequence/embeddings`` [vocab_size, embed_dim] for ``ids``
    (``unique`` changes nothing but the work done)."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("embed_sequence: give vocab_size and embed_dim when not reusing, "
                         f"got vocab_size={vocab_size} and embed_dim={embed_dim}")
    with variable_scope(scope, default_name="EmbedSequence", reuse=reuse):
        shape = None if vocab_size is None or embed_dim is None else \
            (int(vocab_size), int(embed_dim))
        embeddings = layer_variable("embeddings", shape, np.float32, initializer, regularizer,
                                    trainable)
        return _t.nn.embedding_lookup(embeddings, ids)
