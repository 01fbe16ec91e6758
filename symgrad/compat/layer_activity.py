"""``activity_regularizer`` of TF1's functional layers (``tf.layers.dense``, ``conv1d``,
``conv2d``, ``conv2d_transpose``, ``separable_conv2d``): the regularizer of the layer's
output divided by the batch size, added to ``tf.GraphKeys.REGULARIZATION_LOSSES`` as
TF1's layers add it (so ``tf.losses.get_regularization_loss()`` includes it).

Sits in ``compat`` under ``layers``; imports ``tracing`` and ``variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.layers.dense(tf.ones([2, 3]), 1, kernel_initializer=tf.ones_initializer(),
...                         activity_regularizer=tf.reduce_sum)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(sess.run(tf.losses.get_regularization_loss()))
3.0
"""
from __future__ import annotations

import functools
import inspect

from .. import tracing as _t
from .variables import GraphKeys, add_to_collection


def with_activity_regularizer(layer_fn):
    """``layer_fn`` (a functional layer) that applies its ``activity_regularizer``."""
    params = inspect.signature(layer_fn)

    @functools.wraps(layer_fn)
    def layer(*args, **kwargs):
        bound = params.bind(*args, **kwargs)
        regularizer = bound.arguments.get("activity_regularizer")
        out = layer_fn(*args, **kwargs)
        if regularizer is not None:
            add_activity_loss(out, regularizer)
        return out
    return layer


def add_activity_loss(out, regularizer):
    """Collect ``regularizer(out) / batch size`` (keras's mean over the batch)."""
    batch = _t.cast(_t.shape(out)[0], out.dtype)
    with _t.get_default_graph().name_scope("ActivityRegularizer"):
        loss = regularizer(out)
    if loss is not None:
        add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss / batch)
