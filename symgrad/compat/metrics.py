"""``tf.metrics``: streaming metrics over the batches a session feeds.

``value, update_op = tf.metrics.accuracy(labels, predictions)`` keeps local variables
(``total`` and ``count`` here, in ``tf.GraphKeys.LOCAL_VARIABLES`` and
``METRIC_VARIABLES``, named under the metric's scope: ``accuracy/total:0``); run
``tf.local_variables_initializer()`` first, as TF asks.  ``update_op`` is a tensor
(``accuracy/update_op:0``): fetching it adds the batch to the variables and gives the
metric over every batch so far; ``value`` (``accuracy/value:0``) reads it without
adding.  Where nothing was counted yet a ratio is 0 (TF's ``div_no_nan``).

- ``accuracy``, ``mean``, ``mean_squared_error``, ``mean_absolute_error``: weighted
  means (``weights`` broadcast to the values); ``root_mean_squared_error`` the square
  root of the mean squared error;
- ``true_positives``, ``false_positives``, ``false_negatives``, ``true_negatives``:
  weighted counts of labels and predictions read as booleans; ``precision``
  (tp / (tp + fp)) and ``recall`` (tp / (tp + fn)) from two of them;
- ``mean_iou`` and ``mean_per_class_accuracy`` from the confusion matrix
  (``tf.confusion_matrix``) and the per-class counts summed over the batches (their
  update_op gives the matrix and the per-class accuracies, as TF's);
- ``auc``: the four counts at ``num_thresholds`` thresholds (a prediction above a
  threshold is positive; predictions must lie in [0, 1], checked when run), then the
  area under the ROC curve (true against false positive rate) or the PR curve
  (precision against recall) by TF's trapezoidal, ``minoring`` or ``majoring`` sums.

Sits in ``compat``; imports the tracing layer, ``compat.variables``/``scopes``/``state``
and ``compat.debugging`` (auc's range checks).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     value, update_op = tf.metrics.precision([True, False, True], [True, True, True])
...     with tf.Session() as sess:
...         sess.run(tf.local_variables_initializer())
...         print(update_op.name, round(float(sess.run(update_op)), 4))
precision/update_op:0 0.6667
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import variables as _variables
from ..tracing.arrays import known_now
from ..tracing.linalg import diag_part
from .debugging import assert_greater_equal, assert_less, assert_less_equal
from .scopes import variable_scope
from .state import Operation, state_of
from .variables import Variable


class GraphKeys(_variables.GraphKeys):
    """``tf.GraphKeys``, with the collection of the metrics' variables."""
    METRIC_VARIABLES = "metric_variables"


def _counter(name, size=None):
    """A float32 local variable of zeros (one entry per threshold with ``size``)."""
    keys = [GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES]
    zeros = np.zeros(() if size is None else (size,), np.float32)
    return Variable(zeros, trainable=False, collections=keys, name=name)


def div_no_nan(x, y, name=None):
    """``tf.div_no_nan``: ``x / y`` where y is not 0, else 0 (its gradient 0 there too)."""
    x, y = _t.functions._lift([x, y])
    zero = _t.equal(y, _t.zeros_like(y))
    q = x / _t.where(zero, _t.ones_like(y), y)
    return _t.where(_t.logical_and(zero, _t.ones_like(q, dtype=bool)), _t.zeros_like(q), q,
                    name=name)


def _streamed(counters, additions, value_of, metrics_collections, updates_collections,
              checks=(), names=("value", "update_op")):
    """(value, update_op): each run of update_op adds ``additions`` (tensors, one per
    counter) to ``counters``, after ``checks`` (operations); ``value_of(counters, name)``
    makes the metric, named ``names[0]`` for the value and ``names[1]`` for update_op,
    from the counters (read after the addition for update_op)."""
    graph = counters[0].graph
    value = value_of(counters, names[0])

    def effect(sums, session):
        for v, s in zip(counters, sums):
            v.value = np.array(v.value + np.asarray(s, v.dtype), dtype=v.dtype)
    add = Operation(graph.scoped("AssignAdd"), inputs=additions, effect=effect,
                    control_inputs=list(checks), graph=graph)
    add.type = "AssignAdd"
    with state_of(graph).control_dependencies([add]):
        update = value_of(counters, names[1])
    _collect(metrics_collections, value)
    _collect(updates_collections, update)
    return value, update


def _collect(keys, tensor):
    for key in keys or ():
        _variables.add_to_collection(key, tensor)


def _weights(values, weights):
    return _t.ones_like(values) if weights is None else \
        _t.cast(weights, np.float32) * _t.ones_like(values)


def _mean(values, weights, name, default, metrics_collections, updates_collections):
    """The weighted mean of ``values`` over the batches run."""
    values = _t.cast(_t.as_tensor(values), np.float32)
    w = _weights(values, weights)
    with variable_scope(name, default_name=default):
        counters = [_counter("total"), _counter("count")]
        return _streamed(counters, [_t.reduce_sum(values * w), _t.reduce_sum(w)],
                         lambda c, n: div_no_nan(c[0], c[1], name=n),
                         metrics_collections, updates_collections)


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of ``values`` over the batches run."""
    return _mean(values, weights, name, "mean", metrics_collections, updates_collections)


def accuracy(labels, predictions, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The fraction of ``predictions`` equal to ``labels`` over the batches run."""
    labels = _t.as_tensor(labels)
    hits = _t.equal(_t.cast(predictions, labels.dtype), labels)
    return _mean(hits, weights, name, "accuracy", metrics_collections, updates_collections)


def mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                       updates_collections=None, name=None):
    """The (weighted) mean of ``(labels - predictions) ** 2`` over the batches run."""
    errors = _t.square(_t.as_tensor(labels) - predictions)
    return _mean(errors, weights, name, "mean_squared_error", metrics_collections,
                 updates_collections)


def mean_absolute_error(labels, predictions, weights=None, metrics_collections=None,
                        updates_collections=None, name=None):
    """The (weighted) mean of ``|labels - predictions|`` over the batches run."""
    errors = _t.abs(_t.as_tensor(labels) - predictions)
    return _mean(errors, weights, name, "mean_absolute_error", metrics_collections,
                 updates_collections)


def root_mean_squared_error(labels, predictions, weights=None, metrics_collections=None,
                            updates_collections=None, name=None):
    """The square root of ``mean_squared_error`` (the scope is
    ``root_mean_squared_error``; the results are ``Sqrt:0`` and ``Sqrt_1:0``, as TF's)."""
    value, update = mean_squared_error(labels, predictions, weights,
                                       name=name or "root_mean_squared_error")
    value, update = _t.sqrt(value, name="Sqrt"), _t.sqrt(update, name="Sqrt")
    _collect(metrics_collections, value)
    _collect(updates_collections, update)
    return value, update


def _bools(labels, predictions):
    return _t.cast(labels, np.bool_), _t.cast(predictions, np.bool_)


# which pairs (label, prediction) each count holds
_CASES = {"true_positives": (True, True), "false_positives": (False, True),
          "false_negatives": (True, False), "true_negatives": (False, False)}


def _case(kind, labels, predictions):
    """A boolean tensor: where the label and the prediction are ``kind``'s."""
    label, prediction = (v if want else _t.logical_not(v)
                         for v, want in zip((labels, predictions), _CASES[kind]))
    return _t.logical_and(label, prediction)


def _count(kind, labels, predictions, weights):
    """(the variable ``count`` in the current variable scope, this batch's weighted count
    of ``kind``)."""
    labels, predictions = _bools(labels, predictions)
    hits = _t.cast(_case(kind, labels, predictions), np.float32)
    return _counter("count"), _t.reduce_sum(hits * _weights(hits, weights))


def _scoped_count(kind, labels, predictions, weights):
    with variable_scope(None, default_name=kind):
        return _count(kind, labels, predictions, weights)


def _count_metric(kind):
    def metric(labels, predictions, weights=None, metrics_collections=None,
               updates_collections=None, name=None):
        with variable_scope(name, default_name=kind):
            counter, added = _count(kind, labels, predictions, weights)
            return _streamed([counter], [added], lambda c, n: _t.identity(c[0], name=n),
                             metrics_collections, updates_collections,
                             names=("Identity", "AssignAdd"))
    metric.__name__ = metric.__qualname__ = kind
    metric.__doc__ = f"The weighted count of {kind.replace('_', ' ')} over the batches run."
    return metric


true_positives, false_positives = _count_metric("true_positives"), \
    _count_metric("false_positives")
false_negatives, true_negatives = _count_metric("false_negatives"), \
    _count_metric("true_negatives")


def _ratio(kinds, default, labels, predictions, weights, metrics_collections,
           updates_collections, name):
    """tp / (tp + other) over the batches run (0 before any), other the second kind."""
    with variable_scope(name, default_name=default):
        pairs = [_scoped_count(k, labels, predictions, weights) for k in kinds]
        return _streamed([c for c, _ in pairs], [a for _, a in pairs],
                         lambda c, n: div_no_nan(c[0], c[0] + c[1], name=n),
                         metrics_collections, updates_collections)


def precision(labels, predictions, weights=None, metrics_collections=None,
              updates_collections=None, name=None):
    """tp / (tp + fp) of labels and predictions read as booleans, over the batches run."""
    return _ratio(["true_positives", "false_positives"], "precision", labels, predictions,
                  weights, metrics_collections, updates_collections, name)


def recall(labels, predictions, weights=None, metrics_collections=None,
           updates_collections=None, name=None):
    """tp / (tp + fn) of labels and predictions read as booleans, over the batches run."""
    return _ratio(["true_positives", "false_negatives"], "recall", labels, predictions,
                  weights, metrics_collections, updates_collections, name)


_KEPSILON = 1e-7   # TF's: thresholds just outside [0, 1], and the rates' guard


def _thresholds(num_thresholds, thresholds):
    if thresholds is None:
        n = int(num_thresholds)
        if n < 2:
            raise ValueError(f"auc(num_thresholds={n}): needs at least 2 thresholds")
        inner = [(i + 1) / (n - 1) for i in range(n - 2)]
    else:
        inner = sorted(float(t) for t in thresholds)
    return np.asarray([0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON], np.float32)


def _area(curve, summation_method):
    """The area function of the four count vectors (tp, fn, tn, fp) at the thresholds."""
    if curve not in ("ROC", "PR"):
        raise ValueError(f"auc(curve={curve!r}): use 'ROC' or 'PR'")
    steps = {"trapezoidal": lambda a, b: (a + b) / 2.0, "minoring": _t.minimum,
             "majoring": _t.maximum}
    steps["careful_interpolation"] = steps["trapezoidal"]   # (TF's, for the ROC curve)
    if summation_method not in steps:
        raise ValueError(f"auc(summation_method={summation_method!r}): use 'trapezoidal', "
                         "'careful_interpolation', 'minoring' or 'majoring'")
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolated_pr
    height = steps[summation_method]

    def area(c, name):
        tp, fn, tn, fp = c
        rec = (tp + _KEPSILON) / (tp + fn + _KEPSILON)
        if curve == "ROC":
            x, y = fp / (fp + tn + _KEPSILON), rec
        else:
            x, y = rec, (tp + _KEPSILON) / (tp + fp + _KEPSILON)
        return _t.reduce_sum((x[:-1] - x[1:]) * height(y[:-1], y[1:]), name=name)
    return area


def _interpolated_pr(c, name):
    """The PR curve's area with precision interpolated between thresholds as the
    predicted positives p = tp + fp grow (Davis & Goadrich; TF's careful_interpolation):
    on a step tp = slope * p + intercept, so precision = slope + intercept / p, whose
    integral over recall (d recall = d tp / positives) is
    slope * (d tp + intercept * log(p_i / p_{i+1})) / positives."""
    tp, fn, _, fp = c
    p = tp + fp
    d_tp, d_p = tp[:-1] - tp[1:], p[:-1] - p[1:]
    slope = div_no_nan(d_tp, _t.maximum(d_p, 0.0))
    intercept = tp[1:] - slope * p[1:]
    both = _t.logical_and(p[:-1] > 0, p[1:] > 0)
    ratio = _t.where(both, div_no_nan(p[:-1], _t.maximum(p[1:], 0.0)), _t.ones_like(p[1:]))
    pieces = div_no_nan(slope * (d_tp + intercept * _t.log(ratio)),
                        _t.maximum(tp[1:] + fn[1:], 0.0))
    return _t.reduce_sum(pieces, name=name)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """The area under the ROC or PR curve over the batches run (module docstring);
    predictions outside [0, 1] raise InvalidArgumentError when update_op runs."""
    area = _area(curve, summation_method)
    cuts = _thresholds(num_thresholds, thresholds)
    with variable_scope(name, default_name="auc"):
        p = _t.reshape(_t.cast(predictions, np.float32), [-1, 1])
        checks = [assert_greater_equal(p, 0.0, message="predictions must be in [0, 1]"),
                  assert_less_equal(p, 1.0, message="predictions must be in [0, 1]")]
        label = _t.reshape(_t.cast(labels, np.bool_), [-1, 1])
        above = _t.greater(p, _t.constant(cuts.reshape(1, -1)))
        w = _t.reshape(_weights(_t.cast(predictions, np.float32), weights), [-1, 1])
        counters, additions = [], []
        for kind in ("true_positives", "false_negatives", "true_negatives",
                     "false_positives"):
            counters.append(_counter(kind, len(cuts)))
            hits = _t.cast(_case(kind, label, above), np.float32)
            additions.append(_t.reduce_sum(hits * w, axis=0))
        return _streamed(counters, additions, area, metrics_collections,
                         updates_collections, checks=checks)


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=np.int32,
                     name=None):
    """``tf.confusion_matrix``: entry [i, j] the (weighted) number of examples of label i
    predicted j; labels and predictions outside [0, num_classes) raise
    InvalidArgumentError when run.  ``num_classes`` must be known when building (given,
    or read from constant labels and predictions)."""
    labels, predictions = _t.as_tensor(labels), _t.as_tensor(predictions)
    if num_classes is None:
        if not (known_now(labels) and known_now(predictions)):
            raise ValueError("confusion_matrix(num_classes): give num_classes; symgrad sizes "
                             "the matrix when the graph is built, before labels and "
                             "predictions have values")
        num_classes = int(max(np.max(labels.value, initial=-1),
                              np.max(predictions.value, initial=-1))) + 1
    n = int(num_classes)
    graph = _t.get_default_graph()
    with graph.name_scope(name or "confusion_matrix"):
        checks = [check(v, bound, message=f"`{what}` out of bound")
                  for what, v in (("labels", labels), ("predictions", predictions))
                  for check, bound in ((assert_greater_equal, 0), (assert_less, n))]
        rows = _t.one_hot(labels, n, dtype=np.float64)
        if weights is not None:
            rows = rows * _t.expand_dims(_t.cast(weights, np.float64), -1)
        counts = _t.einsum("ki,kj->ij", rows, _t.one_hot(predictions, n, dtype=np.float64))
        with state_of(graph).control_dependencies(checks):
            return _t.cast(counts, dtype, name="ScatterNd")


def mean_iou(labels, predictions, num_classes, weights=None, metrics_collections=None,
             updates_collections=None, name=None):
    """The mean over classes (those that occur in labels or predictions) of the
    intersection over union ``cm[c, c] / (row c + column c - cm[c, c])`` of the confusion
    matrix summed over the batches run; update_op gives that matrix (float64), as TF's."""
    n = int(num_classes)
    with variable_scope(name, default_name="mean_iou"):
        total = Variable(np.zeros((n, n)), trainable=False, name="total_confusion_matrix",
                         collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES])
        batch = confusion_matrix(labels, predictions, n, weights, dtype=np.float64)

        def value_of(c, tensor_name):
            if tensor_name == "AssignAdd":
                return _t.identity(c[0], name=tensor_name)
            cm = _t.cast(c[0], np.float32)
            hits = diag_part(cm)
            union = _t.reduce_sum(cm, 0) + _t.reduce_sum(cm, 1) - hits
            valid = _t.reduce_sum(_t.cast(_t.greater(union, 0.0), np.float32))
            iou = _t.reduce_sum(div_no_nan(hits, union))
            return div_no_nan(iou, valid, name=tensor_name)
        return _streamed([total], [batch], value_of, metrics_collections,
                         updates_collections, names=("Select_1", "AssignAdd"))


def mean_per_class_accuracy(labels, predictions, num_classes, weights=None,
                            metrics_collections=None, updates_collections=None, name=None):
    """The mean over all ``num_classes`` classes of the (weighted) fraction of each
    class's examples predicted right (0 for a class not seen); update_op gives the
    per-class fractions, as TF's."""
    n = int(num_classes)
    labels = _t.as_tensor(labels)
    right = _t.cast(_t.equal(_t.cast(predictions, labels.dtype), labels), np.float32)
    w = _weights(right, weights)
    with variable_scope(name, default_name="mean_accuracy"):
        per_class = _t.one_hot(labels, n, dtype=np.float32)
        counters = [_counter("total", n), _counter("count", n)]
        added = [_t.reduce_sum(per_class * _t.expand_dims(right * w, -1), 0),
                 _t.reduce_sum(per_class * _t.expand_dims(w, -1), 0)]

        def value_of(c, tensor_name):
            ratio = div_no_nan(c[0], c[1])
            return _t.reduce_mean(ratio, name=tensor_name) if tensor_name != "update_op" \
                else _t.identity(ratio, name=tensor_name)
        return _streamed(counters, added, value_of, metrics_collections, updates_collections,
                         names=("mean_accuracy", "update_op"))


__all__ = ["accuracy", "mean", "mean_squared_error", "mean_absolute_error",
           "root_mean_squared_error", "true_positives", "false_positives", "false_negatives",
           "true_negatives", "precision", "recall", "auc", "mean_iou",
           "mean_per_class_accuracy", "GraphKeys"]
