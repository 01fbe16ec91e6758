"""``tf.losses.mean_pairwise_squared_error``: per example, the mean over ordered pairs
(i, j) of its entries of ``((p_i - p_j) - (l_i - l_j))²``, which with d = p - l is
``2 Σd² / (n - 1) - 2 (Σd)² / (n (n - 1))`` (n the entries with non-zero weight; 0 where
n < 2), times the example's weight, summed over the batch and added to the LOSSES
collection.

Sits in ``compat``; imports ``tracing`` and ``compat.losses``/``metrics``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     loss = tf.losses.mean_pairwise_squared_error([[0.0, 0.0, 0.0]], [[1.0, 2.0, 3.0]])
...     print(round(float(tf.Session().run(loss)), 4))
2.0
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from .losses import GraphKeys, _pair, add_loss
from .metrics import div_no_nan

__all__ = ["mean_pairwise_squared_error"]


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None,
                                loss_collection=GraphKeys.LOSSES):
    """The weighted sum over the batch of each example's mean pairwise squared error."""
    labels, predictions = _pair(labels, predictions, "mean_pairwise_squared_error")
    if predictions.ndim < 2:
        raise ValueError(f"mean_pairwise_squared_error: predictions must be [batch, ...] "
                         f"with at least 2 axes, got shape {predictions.shape}")
    d = predictions - labels
    w = _t.cast(_t.as_tensor(weights), np.float32)
    w = _t.reshape(w, [int(s) if s is not None else -1 for s in w.shape]
                   + [1] * (d.ndim - w.ndim)) if w.ndim else w
    axes = list(range(1, d.ndim))
    present = _t.cast(_t.not_equal(w + _t.zeros_like(d), 0.0), np.float32)
    n = _t.reduce_sum(present, axes, keepdims=True)
    term1 = 2.0 * div_no_nan(_t.reduce_sum(_t.square(d), axes, keepdims=True),
                             _t.maximum(n - 1.0, 0.0))
    term2 = 2.0 * div_no_nan(_t.square(_t.reduce_sum(d, axes, keepdims=True)),
                             _t.maximum(n * (n - 1.0), 0.0))
    loss = _t.reduce_sum((term1 - term2) * w)
    loss = _t.where(_t.greater(_t.reduce_sum(n), 0.0), loss, _t.zeros_like(loss))
    add_loss(loss, loss_collection)
    return loss
