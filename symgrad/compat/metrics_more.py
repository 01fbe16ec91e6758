"""More ``tf.metrics``: streaming, over the batches a session feeds (see ``metrics``).

- ``mean_tensor``: the entrywise weighted mean (a tensor shaped like ``values``);
  ``mean_cosine_distance``: 1 - the mean of ``sum(labels * predictions, dim)``;
  ``mean_relative_error``: the mean of ``|labels - predictions| / normalizer`` (0 where
  the normalizer is 0); ``percentage_below``: the mean of ``values < threshold``.
- ``true_positives_at_thresholds`` (and false positives/negatives, true negatives):
  weighted counts with "positive" meaning ``prediction > threshold``, one per
  threshold; ``precision_at_thresholds``/``recall_at_thresholds``: tp / (tp + fp + ε)
  and tp / (tp + fn + ε), ε = 1e-7 (TF's).
- ``sensitivity_at_specificity``/``specificity_at_sensitivity``: the four counts at
  ``num_thresholds`` thresholds (``auc``'s), the threshold whose rate is nearest the
  target (of equals: the first for the former, the last for the latter), the other
  rate there.

Sits in ``compat``; imports ``tracing`` and ``compat.metrics``/``scopes``/``variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     value, update = tf.metrics.percentage_below([1.0, 5.0, 2.0, 7.0], 3.0)
...     with tf.Session() as sess:
...         sess.run(tf.local_variables_initializer())
...         print(sess.run(update))
0.5
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import is_static
from .metrics import (GraphKeys, _case, _counter, _mean, _streamed, _weights, div_no_nan)
from .scopes import variable_scope
from .tensor import TensorShape
from .variables import Variable

__all__ = ["mean_tensor", "mean_cosine_distance", "mean_relative_error", "percentage_below",
           "true_positives_at_thresholds", "false_positives_at_thresholds",
           "false_negatives_at_thresholds", "true_negatives_at_thresholds",
           "precision_at_thresholds", "recall_at_thresholds", "sensitivity_at_specificity",
           "specificity_at_sensitivity"]

_EPSILON = 1e-7


def _float(x):
    return _t.cast(_t.as_tensor(x), np.float32)


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None,
                name=None):
    """The entrywise (weighted) mean of ``values`` over the batches run."""
    values = _float(values)
    w = _weights(values, weights)
    if not is_static(values.shape):   # (TF's message; its counters take values' shape)
        raise ValueError(f"mean_tensor: Cannot convert a partially known TensorShape "
                         f"{TensorShape(values.shape)} to a Tensor; the running mean is kept "
                         "per entry, so values need a shape known when the graph is built "
                         "(reduce over the batch axis first, e.g. tf.reduce_mean(x, 0))")
    with variable_scope(name, default_name="mean"):
        shape = tuple(int(d) for d in values.shape)
        keys = [GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES]
        counters = [Variable(np.zeros(shape, np.float32), trainable=False, collections=keys,
                             name=n) for n in ("total_tensor", "count_tensor")]
        return _streamed(counters, [values * w, w],
                         lambda c, n: div_no_nan(c[0], c[1], name=n),
                         metrics_collections, updates_collections)


def mean_cosine_distance(labels, predictions, dim, weights=None, metrics_collections=None,
                         updates_collections=None, name=None):
    """1 - the (weighted) mean over the batches of ``sum(labels * predictions, dim)``
    (unit vectors along ``dim``)."""
    products = _t.reduce_sum(_float(labels) * _float(predictions), [dim], keepdims=True)
    value, update = _mean(products, weights, name, "mean_cosine_distance", None, None)
    return _finished(1.0 - value, 1.0 - update, metrics_collections, updates_collections)


def _finished(value, update, metrics_collections, updates_collections):
    from .metrics import _collect
    _collect(metrics_collections, value)
    _collect(updates_collections, update)
    return value, update


def mean_relative_error(labels, predictions, normalizer, weights=None,
                        metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of ``|labels - predictions| / normalizer`` (0 where the
    normalizer is 0)."""
    labels, predictions, norm = _float(labels), _float(predictions), _float(normalizer)
    norm = norm + _t.zeros_like(predictions)
    errors = div_no_nan(_t.abs(labels - predictions), norm)
    return _mean(errors, weights, name, "mean_relative_error", metrics_collections,
                 updates_collections)


def percentage_below(values, threshold, weights=None, metrics_collections=None,
                     updates_collections=None, name=None):
    """The (weighted) fraction of ``values`` below ``threshold``."""
    below = _t.cast(_t.less(_float(values), float(threshold)), np.float32)
    return _mean(below, weights, name, "percentage_below_threshold", metrics_collections,
                 updates_collections)


def _threshold_counts(kinds, labels, predictions, thresholds, weights):
    """Counters (one entry per threshold) and this batch's weighted counts of ``kinds``."""
    cuts = np.asarray(thresholds, np.float32).reshape(1, -1)
    p = _t.reshape(_float(predictions), [-1, 1])
    label = _t.reshape(_t.cast(labels, np.bool_), [-1, 1])
    above = _t.greater(p, _t.constant(cuts))
    w = _t.reshape(_weights(_float(predictions), weights), [-1, 1])
    counters, added = [], []
    for kind in kinds:
        counters.append(_counter(kind, cuts.shape[1]))
        added.append(_t.reduce_sum(_t.cast(_case(kind, label, above), np.float32) * w, 0))
    return counters, added


def _at_thresholds(kind):
    def metric(labels, predictions, thresholds, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name=kind):
            counters, added = _threshold_counts([kind], labels, predictions, thresholds,
                                                weights)
            return _streamed(counters, added, lambda c, n: _t.identity(c[0], name=n),
                             metrics_collections, updates_collections)
    metric.__name__ = metric.__qualname__ = f"{kind}_at_thresholds"
    metric.__doc__ = (f"Weighted counts of {kind.replace('_', ' ')} at each threshold "
                      "(positive: prediction > threshold) over the batches run.")
    return metric


true_positives_at_thresholds = _at_thresholds("true_positives")
false_positives_at_thresholds = _at_thresholds("false_positives")
false_negatives_at_thresholds = _at_thresholds("false_negatives")
true_negatives_at_thresholds = _at_thresholds("true_negatives")


def _ratio_at_thresholds(other, default, labels, predictions, thresholds, weights,
                         metrics_collections, updates_collections, name):
    with variable_scope(name, default_name=default):
        counters, added = _threshold_counts(["true_positives", other], labels, predictions,
                                            thresholds, weights)
        return _streamed(counters, added,
                         lambda c, n: _t.divide(c[0], _EPSILON + c[0] + c[1], name=n),
                         metrics_collections, updates_collections)


def precision_at_thresholds(labels, predictions, thresholds, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fp + 1e-7) at each threshold over the batches run."""
    return _ratio_at_thresholds("false_positives", "precision_at_thresholds", labels,
                                predictions, thresholds, weights, metrics_collections,
                                updates_collections, name)


def recall_at_thresholds(labels, predictions, thresholds, weights=None,
                         metrics_collections=None, updates_collections=None, name=None):
    """tp / (tp + fn + 1e-7) at each threshold over the batches run."""
    return _ratio_at_thresholds("false_negatives", "recall_at_thresholds", labels,
                                predictions, thresholds, weights, metrics_collections,
                                updates_collections, name)


def _rates_at(kinds, labels, predictions, num_thresholds, weights):
    from .metrics import _thresholds
    cuts = _thresholds(num_thresholds, None)
    return _threshold_counts(kinds, labels, predictions, cuts, weights)


def _pick(counts, rates, target, last):
    """The threshold index whose rate is nearest ``target`` (of equals, the first; the
    last with ``last``) as an int32 tensor."""
    gap = _t.abs(rates - target)
    if not last:
        return _t.cast(_t.argmin(gap, 0), np.int32)
    n = int(gap.shape[0])
    nearest = _t.cast(_t.equal(gap, _t.reduce_min(gap)), np.float32)
    return _t.cast(_t.reduce_max(nearest * _t.constant(np.arange(n, dtype=np.float32))),
                   np.int32)


def sensitivity_at_specificity(labels, predictions, specificity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The sensitivity tp / (tp + fn + ε) at the threshold (of ``num_thresholds`` in
    [0, 1], as ``auc``'s) whose specificity tn / (tn + fp + ε) is nearest
    ``specificity`` (the first of equals)."""
    return _rate_at_rate("sensitivity_at_specificity", "specificity", specificity,
                         labels, predictions, weights, num_thresholds, metrics_collections,
                         updates_collections, name)


def specificity_at_sensitivity(labels, predictions, sensitivity, weights=None,
                               num_thresholds=200, metrics_collections=None,
                               updates_collections=None, name=None):
    """The specificity tn / (tn + fp + ε) at the threshold whose sensitivity
    tp / (tp + fn + ε) is nearest ``sensitivity`` (the last of equals)."""
    return _rate_at_rate("specificity_at_sensitivity", "sensitivity", sensitivity,
                         labels, predictions, weights, num_thresholds, metrics_collections,
                         updates_collections, name)


def _rate_at_rate(what, given, target, labels, predictions, weights, num_thresholds,
                  metrics_collections, updates_collections, name):
    """One of sensitivity and specificity at the threshold where the other (``given``)
    is nearest ``target``: the first such threshold for a given specificity, the last
    for a given sensitivity (TF's choices)."""
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"{what}: {given} must be in [0, 1], got {target}")
    kinds = ["true_positives", "false_negatives", "true_negatives", "false_positives"]

    def value_of(c, name):
        tp, fn, tn, fp = c
        if given == "specificity":   # read tp/(tp+fn) where tn/(tn+fp) is nearest
            hit, miss, known_hit, known_miss, last = tp, fn, tn, fp, False
        else:
            hit, miss, known_hit, known_miss, last = tn, fp, tp, fn, True
        i = _pick(c, known_hit / (known_hit + known_miss + _EPSILON), target, last=last)
        return _t.divide(_t.gather(hit, i), _t.gather(hit, i) + _t.gather(miss, i) + _EPSILON,
                         name=name)
    with variable_scope(name, default_name=what):
        counters, added = _rates_at(kinds, labels, predictions, num_thresholds, weights)
        return _streamed(counters, added, value_of, metrics_collections, updates_collections)
