"""``tf.losses``: TF1's losses with its default reduction, ``SUM_BY_NONZERO_WEIGHTS``.

Every loss computes elementwise losses, multiplies them by ``weights`` (broadcast
to the losses' shape) and reduces them (``compute_weighted_loss``): by default the
weighted sum divided by the number of non-zero weights (0 when there are none), so
with ``weights=1.0`` it is the mean.  The result joins the ``LOSSES`` collection,
which ``tf.losses.get_total_loss()`` sums with the regularization losses.
Label smoothing is TF's: ``labels * (1 - s) + s / num_classes`` for softmax,
``labels * (1 - s) + s / 2`` for sigmoid; no gradient flows into one-hot labels.
Dtypes are TF's: the reduction is computed in float32 and cast back to the losses'
dtype, and the regression losses (squared and absolute error, Huber, log, hinge,
cosine) cast their inputs to float32 first, so they are float32 even for float64
models; the cross entropies keep the logits' dtype.  Names are TF's: each loss is built
in a name scope (``scope=``, else the loss's name, such as ``mean_squared_error``) and
its result is ``scope/value:0`` (``Sum`` and ``Mul`` for the SUM and NONE reductions).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     loss = tf.losses.mean_squared_error([1.0, 2.0, 3.0], [1.0, 2.0, 5.0],
...                                         weights=[1.0, 0.0, 1.0])
...     print(loss.numpy())
2.0
"""
from __future__ import annotations

import contextvars
import functools
import inspect

import numpy as np

from .. import tracing as _t
from ..graph import same_up_to_unknown
from ..graph import Dim, Node
from ..tracing import get_default_graph
from ..tracing import nn as _nn
from .metrics import div_no_nan
from .state import state_of
from .tensor import added, constant
from .variables import GraphKeys, get_collection


class Reduction:
    """``tf.losses.Reduction``: how ``compute_weighted_loss`` reduces."""
    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)


def _float(value, like=None):
    """A float tensor (float32 for Python values, as TF converts them)."""
    if isinstance(value, Node):
        return value if value.is_float else _t.cast(value, like.dtype if like is not None
                                                    else np.float32)
    dtype = like.dtype if like is not None else np.float32
    return constant(np.asarray(value, dtype=dtype))


def _same_shape(labels, predictions, what):
    # TF's is_compatible_with: an unknown size (None) agrees with any size; the sizes
    # themselves are checked when values arrive.
    if not same_up_to_unknown(labels.shape, predictions.shape):
        raise ValueError(f"{what}: labels {labels.shape} and predictions {predictions.shape} "
                         "must have the same shape")


_BUILDING = contextvars.ContextVar("symgrad_tf_loss_scope", default=False)


def _scoped(default):
    """A tf.losses function built in the name scope ``scope`` (its argument) or
    ``default``, as TF builds it; a loss built inside another's scope opens none."""
    def wrap(fn):
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def loss(*args, **kwargs):
            if _BUILDING.get():
                return fn(*args, **kwargs)
            scope = signature.bind(*args, **kwargs).arguments.get("scope")
            token = _BUILDING.set(True)
            try:
                with get_default_graph().name_scope(scope or default):
                    return fn(*args, **kwargs)
            finally:
                _BUILDING.reset(token)
        return loss
    return wrap


@_scoped("weighted_loss")
def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weight ``losses`` and reduce them (see the module docstring)."""
    if reduction not in Reduction.all():
        raise ValueError(f"Invalid Reduction Key {reduction!r}; use one of tf.losses.Reduction")
    input_dtype = losses.dtype            # TF reduces in float32, then casts back
    losses = _to_float32(losses)
    weights = _to_float32(_float(weights, losses))
    weighted = _t.multiply(losses, weights, name="Mul")
    if weighted.shape != losses.shape:
        raise ValueError(f"weights of shape {weights.shape} do not broadcast to the losses' "
                         f"shape {losses.shape}")
    if reduction == Reduction.NONE:
        loss = weighted
    else:
        loss = _t.reduce_sum(weighted, name="Sum")
        if reduction == Reduction.MEAN:
            loss = div_no_nan(loss, _t.reduce_sum(_t.ones_like(losses) * weights))
        elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
            count = losses.size
            if isinstance(count, Dim):  # the batch size is known only when fed
                loss = div_no_nan(loss, _t.reduce_sum(_t.ones_like(losses)))
            else:
                loss = loss / float(max(count, 1))
        elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
            present = _t.where(_t.equal(weights, 0.0), _t.zeros_like(weights),
                               _t.ones_like(weights))
            loss = div_no_nan(loss, _t.reduce_sum(present * _t.ones_like(losses)))
        if reduction != Reduction.SUM:
            loss = _t.identity(loss, name="value")
    if loss.dtype != input_dtype:
        loss = _t.cast(loss, input_dtype)
    if loss_collection is not None:
        state_of(loss.graph).add_to_collection(loss_collection, loss)
    return loss


def _to_float32(x):
    return x if x.dtype == np.float32 else _t.cast(x, np.float32)


def _pair(labels, predictions, what, float32=True):
    # TF's regression losses cast both to float32; the cross entropies keep the logits'
    predictions = _float(predictions)
    predictions = _to_float32(predictions) if float32 else predictions
    labels = _float(labels, predictions)
    labels = _t.cast(labels, predictions.dtype) if labels.dtype != predictions.dtype else labels
    _same_shape(labels, predictions, what)
    return labels, predictions


@_scoped("absolute_difference")
def absolute_difference(labels, predictions, weights=1.0, scope=None,
                        loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """|predictions - labels|, weighted and reduced."""
    labels, predictions = _pair(labels, predictions, "absolute_difference")
    return compute_weighted_loss(_t.abs(predictions - labels), weights, scope, loss_collection,
                                 reduction)


@_scoped("mean_squared_error")
def mean_squared_error(labels, predictions, weights=1.0, scope=None,
                       loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """(predictions - labels)^2, weighted and reduced."""
    labels, predictions = _pair(labels, predictions, "mean_squared_error")
    return compute_weighted_loss(_t.square(predictions - labels), weights, scope,
                                 loss_collection, reduction)


@_scoped("huber_loss")
def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None,
               loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """0.5 e^2 where |e| <= delta, else delta (|e| - delta / 2); e = predictions - labels."""
    labels, predictions = _pair(labels, predictions, "huber_loss")
    abs_error = _t.abs(predictions - labels)
    quadratic = _t.minimum(abs_error, delta)
    linear = abs_error - quadratic       # TF's split keeps the gradient exact at |e| = delta
    losses = 0.5 * quadratic * quadratic + delta * linear
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("log_loss")
def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None,
             loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """-labels log(p + eps) - (1 - labels) log(1 - p + eps)."""
    labels, predictions = _pair(labels, predictions, "log_loss")
    losses = (-labels * _t.log(predictions + epsilon)
              - (1 - labels) * _t.log(1 - predictions + epsilon))
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("hinge_loss")
def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """relu(1 - (2 labels - 1) logits), labels in {0, 1}."""
    labels, logits = _pair(labels, logits, "hinge_loss")
    losses = _t.relu(1 - (2 * labels - 1) * logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("cosine_distance_loss")
def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None,
                    loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """1 - sum(labels * predictions, axis) (inputs unit-normalised by the caller)."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    labels, predictions = _pair(labels, predictions, "cosine_distance")
    losses = 1 - _t.reduce_sum(predictions * labels, axis=axis, keepdims=True)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("sigmoid_cross_entropy_loss")
def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0,
                          scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The logistic loss per element; smoothing moves labels towards 1/2."""
    labels, logits = _pair(multi_class_labels, logits, "sigmoid_cross_entropy", float32=False)
    if label_smoothing > 0:
        labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
    losses = _nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("softmax_cross_entropy_loss")
def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross entropy per example; smoothing moves labels towards 1/num_classes."""
    labels, logits = _pair(onehot_labels, logits, "softmax_cross_entropy", float32=False)
    if label_smoothing > 0:
        num_classes = float(labels.shape[1])
        labels = labels * (1.0 - label_smoothing) + label_smoothing / num_classes
    labels = _t.stop_gradient(labels)
    losses = _nn.softmax_cross_entropy_with_logits(labels, logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


@_scoped("sparse_softmax_cross_entropy_loss")
def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None,
                                 loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Cross entropy per example with integer class labels."""
    logits = _float(logits)
    if not isinstance(labels, Node):
        labels = constant(np.asarray(labels, dtype=np.int32))
    losses = _nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
    return compute_weighted_loss(losses, weights, scope, loss_collection, reduction)


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    if loss_collection is not None:
        state_of(loss.graph).add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    return get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    return get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    losses = get_regularization_losses(scope)
    return _sum(losses, name) if losses else constant(np.float32(0.0), name=name)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the LOSSES collection (and the regularization losses)."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found in the LOSSES collection")
    return _sum(losses, name)


def _sum(tensors, name):
    total = added(tensors, "tf.losses (the sum of the LOSSES collection, TF's add_n)")
    return _t.identity(total, name=name)
