"""``slim.losses`` (``tf.contrib.losses``): TF1's first loss functions, logits first.

Unlike ``tf.losses``, these take the logits or predictions *first*:
``softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0)``,
``sparse_softmax_cross_entropy(logits, labels)``, ``sigmoid_cross_entropy(logits,
multi_class_labels)``, ``mean_squared_error(predictions, labels)``,
``absolute_difference``, ``log_loss(predictions, labels, epsilon=1e-7)``,
``cosine_distance(predictions, labels, axis)`` and ``hinge_loss(logits, labels)`` (the
unreduced hinge, as contrib's).  Each weighted loss is contrib's
``compute_weighted_loss``: the sum of ``losses * weights`` (the losses summed over the
axes the weights lack) divided by the number of present entries (nonzero weights times
the entries each covers), 0 when none; it joins ``tf.GraphKeys.LOSSES``, which
``get_total_loss()`` adds up with the regularization losses.

Imports the tracing functions and the compat variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     loss = mean_squared_error(tf.constant([1.0, 2.0]), tf.constant([0.0, 0.0]))
...     print(tf.Session().run(get_total_loss()))
2.5
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import variables as _v
from .arg_scopes import add_arg_scope
from .variables import GraphKeys
from .tensor import added as _added


@add_arg_scope
def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection:
        _v.add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    return _v.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return _v.get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_total_loss(add_regularization_losses=True, name="total_loss"):
    """The sum of the losses (and the regularization losses)."""
    losses = get_losses() + (get_regularization_losses() if add_regularization_losses else [])
    if not losses:
        raise ValueError("get_total_loss: no losses were added (slim.losses.* add theirs; "
                         "add others with slim.losses.add_loss)")
    return _add_n(losses, name=name)


def _num_present(losses, weights):
    """How many loss entries carry a nonzero weight (contrib's count)."""
    size = _t.cast(_t.size(losses), np.float32)
    if weights.ndim == 0:
        return _t.where(_t.equal(weights, 0.0), _t.zeros_like(size), size)
    per_row = _t.reduce_sum(losses, list(range(weights.ndim, losses.ndim)))
    covered = size / _t.cast(_t.size(per_row), np.float32)
    nonzero = _t.cast(_t.not_equal(weights, 0.0), np.float32) * _t.ones_like(per_row)
    return _t.reduce_sum(nonzero) * covered


def compute_weighted_loss(losses, weights=1.0, scope=None):
    """The weighted mean of ``losses`` (module docstring), added to the losses."""
    with _t.get_default_graph().name_scope(scope or "weighted_loss"):
        return _weighted_mean(losses, weights)


def _weighted_mean(losses, weights):
    """``compute_weighted_loss`` inside the current name scope (``<scope>/value``, the
    name TF gives each loss function's result)."""
    losses = _t.as_tensor(losses)
    dtype = losses.dtype
    losses = _t.cast(losses, np.float32)
    weights = _t.cast(weights if isinstance(weights, _t.Tensor) else
                      _t.as_tensor(np.asarray(weights, np.float32)), np.float32)
    if weights.ndim > 1 and weights.shape[-1] == 1:
        weights = _t.squeeze(weights, [-1])
    if weights.ndim > losses.ndim:
        raise ValueError(f"compute_weighted_loss: weights of shape {weights.shape} have "
                         f"more axes than the losses {losses.shape}")
    per_row = _t.reduce_sum(losses, list(range(weights.ndim, losses.ndim)))
    total = _t.reduce_sum(per_row * weights)
    count = _num_present(losses, weights)
    present = _t.greater(count, 0.0)
    mean = _t.where(present, total / _t.where(present, count, _t.ones_like(count)),
                    _t.zeros_like(total), name="value")
    mean = _t.cast(mean, dtype) if dtype != np.float32 else mean
    add_loss(mean)
    return mean


def _pair(a, b, what):
    a, b = _t.as_tensor(a), _t.as_tensor(b)
    if a.shape is not None and b.shape is not None and len(a.shape) == len(b.shape) and any(
            isinstance(m, int) and isinstance(n, int) and m != n for m, n in zip(a.shape,
                                                                                  b.shape)):
        raise ValueError(f"slim.losses.{what}: shapes {a.shape} and {b.shape} are "
                         "incompatible (the logits/predictions come first, then the labels)")
    return a, b


def absolute_difference(predictions, labels=None, weights=1.0, scope=None):
    p, y = _pair(predictions, labels, "absolute_difference")
    with _t.get_default_graph().name_scope(scope or "absolute_difference"):
        losses = _t.abs(_t.cast(p, np.float32) - _t.cast(y, np.float32))
        return _weighted_mean(losses, weights)


def mean_squared_error(predictions, labels=None, weights=1.0, scope=None):
    p, y = _pair(predictions, labels, "mean_squared_error")
    with _t.get_default_graph().name_scope(scope or "mean_squared_error"):
        losses = _t.squared_difference(_t.cast(p, np.float32), _t.cast(y, np.float32))
        return _weighted_mean(losses, weights)


def log_loss(predictions, labels=None, weights=1.0, epsilon=1e-7, scope=None):
    p, y = _pair(predictions, labels, "log_loss")
    with _t.get_default_graph().name_scope(scope or "log_loss"):
        p, y = _t.cast(p, np.float32), _t.cast(y, np.float32)
        losses = -y * _t.log(p + epsilon) - (1.0 - y) * _t.log(1.0 - p + epsilon)
        return _weighted_mean(losses, weights)


def softmax_cross_entropy(logits, onehot_labels, weights=1.0, label_smoothing=0, scope=None):
    """The softmax cross entropy of ``logits`` [N, K] against one-hot labels."""
    x, y = _pair(logits, onehot_labels, "softmax_cross_entropy")
    with _t.get_default_graph().name_scope(scope or "softmax_cross_entropy_loss"):
        y = _t.cast(y, x.dtype)
        if label_smoothing > 0:
            k = _t.cast(_t.shape(y)[1], x.dtype)
            y = y * (1.0 - label_smoothing) + label_smoothing / k
        losses = _t.nn.softmax_cross_entropy_with_logits(labels=y, logits=x, name="xentropy")
        return _weighted_mean(losses, weights)


def sparse_softmax_cross_entropy(logits, labels, weights=1.0, scope=None):
    """The softmax cross entropy of ``logits`` [N, K] against class ids [N] (or [N, 1])."""
    x, y = _t.as_tensor(logits), _t.as_tensor(labels)
    with _t.get_default_graph().name_scope(scope or "sparse_softmax_cross_entropy_loss"):
        y = _t.reshape(y, (-1,))
        losses = _t.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x,
                                                                name="xentropy")
        return _weighted_mean(losses, weights)


def sigmoid_cross_entropy(logits, multi_class_labels, weights=1.0, label_smoothing=0,
                          scope=None):
    x, y = _pair(logits, multi_class_labels, "sigmoid_cross_entropy")
    with _t.get_default_graph().name_scope(scope or "sigmoid_cross_entropy_loss"):
        y = _t.cast(y, x.dtype)
        if label_smoothing > 0:
            y = y * (1.0 - label_smoothing) + 0.5 * label_smoothing
        losses = _t.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=x, name="xentropy")
        return _weighted_mean(losses, weights)


def cosine_distance(predictions, labels=None, axis=None, weights=1.0, scope=None, dim=None):
    """``1 - sum(predictions * labels, axis)`` (the inputs unit-normalized already)."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("cosine_distance: you must specify 'axis'")
    p, y = _pair(predictions, labels, "cosine_distance")
    with _t.get_default_graph().name_scope(scope or "cosine_distance_loss"):
        losses = 1.0 - _t.reduce_sum(_t.cast(p, np.float32) * _t.cast(y, np.float32), [axis])
        return _weighted_mean(losses, weights)


def hinge_loss(logits, labels=None, scope=None):
    """``relu(1 - (2 labels - 1) * logits)`` per entry (not reduced, not added)."""
    x, y = _pair(logits, labels, "hinge_loss")
    with _t.get_default_graph().name_scope(scope or "hinge_loss"):
        signs = 2.0 * _t.cast(y, np.float32) - 1.0
        return _t.nn.relu(1.0 - signs * x)


def _add_n(tensors, name):
    """``tf.add_n``: the sum, named ``name``."""
    return _t.identity(_added(list(tensors), "add_n"), name=name)
