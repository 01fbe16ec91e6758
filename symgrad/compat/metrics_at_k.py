"""``tf.metrics.precision_at_k``/``recall_at_k`` (and ``sparse_precision_at_k``,
``precision_at_top_k``, ``recall_at_top_k``): integer labels [batch] or [batch, n]
against the indices of the k largest predictions [batch, classes] (``..._at_top_k``:
those indices given).  Per example (labels as a set: repeats count once), true positives are the top-k classes among the
labels, false positives the others, false negatives the labels outside the top k; with
``class_id`` only that class counts.  Summed (weighted per example) over the batches
run: precision tp / (tp + fp), recall tp / (tp + fn), 0 before any; float64, as TF's.
``average_precision_at_k`` (``sparse_...``): the mean over the examples of the
precision at each of the top k ranks holding a label, summed and divided by
min(k, n) for labels [batch, n] (repeated labels count, as TF's dense labels).

Sits in ``compat``; imports ``tracing``, ``ops.draws`` (``band_mask``) and
``compat.metrics``/``scopes``/``variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     value, update = tf.metrics.recall_at_k([2, 0], [[0.1, 0.2, 0.7], [0.1, 0.8, 0.1]], 1)
...     with tf.Session() as sess:
...         sess.run(tf.local_variables_initializer())
...         print(sess.run(update))
0.5
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..ops.draws import band_mask
from .metrics import GraphKeys, _streamed, div_no_nan
from .scopes import variable_scope
from .variables import Variable

__all__ = ["precision_at_k", "recall_at_k", "sparse_precision_at_k", "precision_at_top_k",
           "recall_at_top_k", "average_precision_at_k", "sparse_average_precision_at_k"]


def _counter(name):
    keys = [GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES]
    return Variable(np.zeros((), np.float64), trainable=False, collections=keys, name=name)


def _counts(labels, top, class_id, weights):
    """This batch's weighted (tp, fp, fn) of labels [B, n] against top-k indices [B, k]."""
    labels = _t.cast(_t.as_tensor(labels), np.int64)
    if labels.ndim == 1:
        labels = _t.expand_dims(labels, 1)
    top = _t.cast(_t.as_tensor(top), np.int64)
    match = _t.equal(_t.expand_dims(labels, 2), _t.expand_dims(top, 1))   # [B, n, k]
    top_hit = _t.cast(_t.reduce_any(match, 1), np.float64)       # [B, k]: in the labels
    label_hit = _t.cast(_t.reduce_any(match, 2), np.float64)     # [B, n]: in the top k
    top_w, label_w = _t.ones_like(top_hit), _first_of_equal(labels)
    if class_id is not None:   # only entries naming the class count
        top_w = _t.cast(_t.equal(top, int(class_id)), np.float64)
        label_w = label_w * _t.cast(_t.equal(labels, int(class_id)), np.float64)
    if weights is not None:
        w = _t.reshape(_t.cast(weights, np.float64), [-1, 1])
        top_w, label_w = top_w * w, label_w * w
    tp = _t.reduce_sum(top_hit * top_w)
    return tp, _t.reduce_sum((1.0 - top_hit) * top_w), _t.reduce_sum((1.0 - label_hit) * label_w)


def _first_of_equal(labels):
    """1.0 for each label's first occurrence in its row, 0.0 for repeats: the labels are
    a set (TF's)."""
    n = labels.shape[1]   # (an int, or a Dim: labels fed as [None, None])
    same = _t.equal(_t.expand_dims(labels, 2), _t.expand_dims(labels, 1))   # [B, n, n]
    # [i, j]: j < i, the band j <= i without its diagonal
    earlier = _t.logical_and(band_mask(labels.graph, n, n, -1, 0, np.bool_),
                             _t.logical_not(band_mask(labels.graph, n, n, 0, 0, np.bool_)))
    return 1.0 - _t.cast(_t.reduce_any(_t.logical_and(same, earlier), 2), np.float64)


def _at_k(which, default, labels, top, class_id, weights, metrics_collections,
          updates_collections, name):
    with variable_scope(name, default_name=default):
        tp, fp, fn = _counts(labels, top, class_id, weights)
        other, other_name = (fp, "false_positive") if which == "precision" else \
            (fn, "false_negative")
        counters = [_counter("true_positive_at_k"), _counter(f"{other_name}_at_k")]
        return _streamed(counters, [tp, other],
                         lambda c, n: div_no_nan(c[0], c[0] + c[1], name=n),
                         metrics_collections, updates_collections)


def _top_indices(predictions, k):
    k = int(k)
    if k < 1:
        raise ValueError(f"precision_at_k/recall_at_k: k must be at least 1, got {k}")
    return _t.top_k(_t.as_tensor(predictions), k)[1]


def recall_at_k(labels, predictions, k, class_id=None, weights=None,
                metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fn) of the labels against the top-k predictions (module docstring)."""
    return _at_k("recall", f"recall_at_{int(k)}", labels, _top_indices(predictions, k),
                 class_id, weights, metrics_collections, updates_collections, name)


def precision_at_k(labels, predictions, k, class_id=None, weights=None,
                   metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fp) of the top-k predictions against the labels (module docstring)."""
    return _at_k("precision", f"precision_at_{int(k)}", labels, _top_indices(predictions, k),
                 class_id, weights, metrics_collections, updates_collections, name)


sparse_precision_at_k = precision_at_k   # (TF1's earlier name)


def recall_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                    metrics_collections=None, updates_collections=None, name=None):
    """``recall_at_k`` with the top-k indices given ([batch, k])."""
    return _at_k("recall", "recall_at_top_k", labels, predictions_idx, class_id, weights,
                 metrics_collections, updates_collections, name)


def precision_at_top_k(labels, predictions_idx, k=None, class_id=None, weights=None,
                       metrics_collections=None, updates_collections=None, name=None):
    """``precision_at_k`` with the top-k indices given ([batch, k])."""
    return _at_k("precision", "precision_at_top_k", labels, predictions_idx, class_id,
                 weights, metrics_collections, updates_collections, name)


def _average_precision(labels, top, k):
    """Each example's average precision over its top k: the precision at each rank
    holding a label, summed, over min(k, number of labels)."""
    labels = _t.cast(_t.as_tensor(labels), np.int64)
    if labels.ndim == 1:
        labels = _t.expand_dims(labels, 1)
    top = _t.cast(_t.as_tensor(top), np.int64)
    match = _t.equal(_t.expand_dims(labels, 2), _t.expand_dims(top, 1))   # [B, n, k]
    relevant = _t.cast(_t.reduce_any(match, 1), np.float64)               # [B, k]
    ranks = _t.constant(np.arange(1, int(top.shape[-1]) + 1, dtype=np.float64))
    precision_at = _t.cumsum(relevant, axis=-1) / ranks
    # a dense [B, n] labels tensor has n relevant items per example, repeats included (TF)
    n = labels.shape[-1]
    relevant_items = float(min(n, int(k))) if isinstance(n, int) else \
        _t.minimum(_t.cast(_t.shape(labels)[-1], np.float64), float(k))   # (fed as [None, None])
    return _t.reduce_sum(precision_at * relevant, -1) / relevant_items


def average_precision_at_k(labels, predictions, k, weights=None, metrics_collections=None,
                           updates_collections=None, name=None):
    """The (weighted) mean over the examples run of their average precision at k."""
    top = _top_indices(predictions, k)
    ap = _average_precision(labels, top, int(k))
    w = _t.ones_like(ap) if weights is None else \
        _t.reshape(_t.cast(weights, np.float64), [-1]) * _t.ones_like(ap)
    with variable_scope(name, default_name=f"average_precision_at_{int(k)}"):
        counters = [_counter("total"), _counter("max")]
        return _streamed(counters, [_t.reduce_sum(ap * w), _t.reduce_sum(w)],
                         lambda c, n: div_no_nan(c[0], c[1], name=n),
                         metrics_collections, updates_collections)


sparse_average_precision_at_k = average_precision_at_k   # (TF1's earlier name)
