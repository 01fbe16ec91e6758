"""``tf.metrics``: streaming metrics over the batches a session feeds.

``value, update_op = tf.metrics.accuracy(labels, predictions)`` keeps two local
variables (``total`` and ``count``, in ``tf.GraphKeys.LOCAL_VARIABLES`` and
``METRIC_VARIABLES``; run ``tf.local_variables_initializer()`` first, as TF asks).
Running ``update_op`` adds a batch and returns the metric over every batch so far;
``value`` reads it without adding.  ``mean`` is the same over values.

Sits in ``compat``; imports the tracing layer and ``compat.variables``/``state``.
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from .scopes import variable_scope
from .state import Operation
from .variables import GraphKeys, Variable


def _streaming(values, weights, name):
    """(value, update_op) of the weighted mean of ``values`` over the batches run."""
    values = _t.cast(_t.as_tensor(values), np.float32)
    w = _t.ones_like(values) if weights is None else \
        _t.cast(weights, np.float32) * _t.ones_like(values)
    with variable_scope(name):
        keys = [GraphKeys.LOCAL_VARIABLES, "metric_variables"]
        total = Variable(np.float32(0.0), trainable=False, collections=keys, name="total")
        count = Variable(np.float32(0.0), trainable=False, collections=keys, name="count")
        value = _t.where(count > 0, total / _t.maximum(count, 1e-30), 0.0)
        batch = [_t.reduce_sum(values * w), _t.reduce_sum(w)]

        def effect(sums, session):
            for v, s in zip((total, count), sums):
                v.value = np.array(v.value + np.float32(s), dtype=v.dtype)
                session.mark_initialized(v)
        update = Operation("update_op", inputs=batch, effect=effect, value=value,
                           graph=total.graph)
    return value, update


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The fraction of ``predictions`` equal to ``labels`` over the batches run."""
    labels = _t.as_tensor(labels)
    hits = _t.equal(_t.cast(predictions, labels.dtype), labels)
    return _streaming(hits, weights, name or "accuracy")


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of ``values`` over the batches run."""
    return _streaming(values, weights, name or "mean")


__all__ = ["accuracy", "mean"]
