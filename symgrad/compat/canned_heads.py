"""The heads of TF 1.x's premade estimators: from logits to loss, metrics and
predictions (TF's ``regression_head``, ``multi_class_head`` and
``binary_classification_head`` of the v1 canned estimators).

- Loss: the per-example loss (squared error; softmax or sigmoid cross entropy),
  weighted by ``weight_column``, reduced by ``loss_reduction`` — TF 1.x's canned
  default is ``SUM`` (over the batch), so an evaluation's ``loss`` is the mean over
  batches of each batch's sum, and ``average_loss`` the mean per example.
- Metrics (keys as TF's): regression ``average_loss``, ``label/mean``,
  ``prediction/mean``; multi-class ``accuracy``, ``average_loss``; binary also
  ``accuracy_baseline``, ``auc``, ``auc_precision_recall``, ``precision``,
  ``recall``, ``label/mean``, ``prediction/mean``.
- Predictions: regression ``predictions``; classification ``logits``,
  (``logistic``,) ``probabilities``, ``class_ids``, ``all_class_ids``, and the
  class names ``classes`` and ``all_classes`` (bytes, as TF gives them), which
  ``finish_predictions`` adds in Python (symgrad tensors hold numbers).
- ``label_vocabulary``: TF takes strings; symgrad takes a list of numbers (labels are
  looked up in it, and ``classes`` are its entries as bytes).

Sits in ``compat``; imports the tracing layer and ``compat.metrics``, ``losses``,
``v1_ops``, ``debugging``, ``variables`` and ``estimator_spec``.
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import functions as _f
from ..tracing.math_ops import argmax, reduce_any
from . import metrics as _metrics
from .debugging import assert_greater_equal, assert_less
from .estimator_spec import EstimatorSpec, ModeKeys
from .losses import Reduction, compute_weighted_loss
from .v1_ops import sigmoid_cross_entropy_with_logits, softmax, \
    sparse_softmax_cross_entropy_with_logits
from .variables import control_dependencies

REDUCTIONS = (Reduction.SUM, Reduction.SUM_OVER_BATCH_SIZE, Reduction.MEAN,
              Reduction.SUM_BY_NONZERO_WEIGHTS)


class Head:
    """What the three heads share: weights, the reduction, the spec of each mode."""
    logits_dimension = 1

    def __init__(self, weight_column=None, loss_reduction=Reduction.SUM):
        if loss_reduction not in REDUCTIONS:
            raise ValueError(f"Invalid loss_reduction: {loss_reduction}; use one of "
                             "tf.losses.Reduction except NONE")
        self._weight_column, self._reduction = weight_column, loss_reduction

    def spec(self, features, mode, logits, labels, train_op_fn):
        """The ``EstimatorSpec`` of ``mode`` for these logits."""
        predictions = self.predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        labels = self.labels(labels, logits)
        unreduced = self.unreduced_loss(labels, logits)
        weights = self._weights(features)
        loss = compute_weighted_loss(unreduced, weights, reduction=self._reduction)
        if mode == ModeKeys.EVAL:
            metrics = self.metrics(labels, predictions, unreduced, weights)
            return EstimatorSpec(mode, predictions=predictions, loss=loss,
                                 eval_metric_ops=metrics)
        return EstimatorSpec(mode, predictions=predictions, loss=loss,
                             train_op=train_op_fn(loss))

    def _weights(self, features):
        if self._weight_column is None:
            return 1.0
        key = getattr(self._weight_column, "key", self._weight_column)
        if key not in features:
            raise ValueError(f"weight_column {key!r} is not among the features "
                             f"{sorted(features)}")
        return _f.reshape(_f.cast(features[key], np.float32), [-1, 1])

    def _average_loss(self, unreduced, weights):
        return _metrics.mean(unreduced, weights=_broadcast(weights, unreduced),
                             name="average_loss")

    def finish_predictions(self, values):
        return values


def _broadcast(weights, like):
    return None if isinstance(weights, float) else weights * _f.ones_like(like)


def _as_column(labels, dim, what):
    """Labels as ``[batch, d]`` (a ``[batch]`` vector becomes one column)."""
    if labels is None:
        raise ValueError(f"You must provide a labels Tensor. Given: None. Suggested "
                         f"troubleshooting steps: Check that your data contain your label "
                         f"feature. Check that your input_fn properly parses and returns "
                         f"labels. ({what})")
    if isinstance(labels, dict):
        raise ValueError(f"{what}: labels must be one tensor, got a dict")
    labels = _t.as_tensor(labels)
    if labels.ndim == 1:
        labels = _f.expand_dims(labels, -1)
    if labels.ndim != 2 or labels.shape[-1] != dim:
        raise ValueError(f"Mismatched label shape. Expected labels dimension={dim}. "
                         f"Received {labels.shape[-1] if labels.ndim else None}. Suggested "
                         "Fix: check your n_classes argument to the estimator and/or the "
                         "shape of your label.")
    return labels


class RegressionHead(Head):
    """Squared error; ``predictions`` are the logits."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction=Reduction.SUM):
        super().__init__(weight_column, loss_reduction)
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        self.logits_dimension = int(label_dimension)

    def predictions(self, logits):
        return {"predictions": logits}

    def labels(self, labels, logits):
        return _f.cast(_as_column(labels, logits.shape[-1], "regression"), np.float32)

    def unreduced_loss(self, labels, logits):
        return _f.square(logits - labels)

    def metrics(self, labels, predictions, unreduced, weights):
        w = _broadcast(weights, labels)
        return {"average_loss": self._average_loss(unreduced, weights),
                "label/mean": _metrics.mean(labels, weights=w, name="label/mean"),
                "prediction/mean": _metrics.mean(predictions["predictions"], weights=w,
                                                 name="prediction/mean")}


class ClassifierHead(Head):
    """What the two classification heads share: class ids from labels and names."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None,
                 loss_reduction=Reduction.SUM):
        super().__init__(weight_column, loss_reduction)
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError("label_vocabulary should be a list or a tuple. Given "
                                 f"type: {type(label_vocabulary)}")
            if any(isinstance(v, (str, bytes)) for v in label_vocabulary):
                raise ValueError("label_vocabulary: symgrad tensors hold numbers, so the "
                                 "labels' vocabulary must be numbers (TF takes strings); "
                                 "map string labels to integer ids in Python")
            if len(label_vocabulary) != n_classes:
                raise ValueError(f"label_vocabulary has {len(label_vocabulary)} entries "
                                 f"but n_classes is {n_classes}")
        self.n_classes, self._vocab = n_classes, label_vocabulary

    def labels(self, labels, logits):
        """Labels as int64 class ids ``[batch, 1]``, checked to lie in range when run."""
        labels = _as_column(labels, 1, "classifier")
        if self._vocab is not None:
            vocab = _t.constant(np.asarray(self._vocab))
            hits = _f.equal(_f.cast(labels, vocab.dtype), vocab)
            index = _f.cast(argmax(_f.cast(hits, np.int32), axis=-1), np.int64)
            labels = _f.expand_dims(_f.where(reduce_any(hits, axis=-1), index,
                                             _f.zeros_like(index) - 1), -1)
        elif labels.dtype.kind not in "iu":
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        labels = _f.cast(labels, np.int64)
        where = ("" if self._vocab is None else
                 f" (labels must be in label_vocabulary {list(self._vocab)})")
        checks = [assert_less(labels, np.int64(self.n_classes), message=(
                      f"Labels must be <= n_classes - 1 ({self.n_classes - 1}){where}")),
                  assert_greater_equal(labels, np.int64(0),
                                       message=f"Labels must be >= 0{where}")]
        with control_dependencies(checks):
            return _f.identity(labels)

    def finish_predictions(self, values):
        """Add ``classes``, ``all_class_ids`` and ``all_classes`` in TF's key order."""
        if "class_ids" not in values:
            return values
        out = {}
        names = np.array([str(v).encode() for v in (self._vocab or range(self.n_classes))],
                         dtype=object)
        ids = np.asarray(values["class_ids"])
        for key, value in values.items():
            out[key] = value
            if key == "class_ids":
                out["classes"] = names[ids]
        every = np.broadcast_to(np.arange(self.n_classes, dtype=np.int32),
                                ids.shape[:-1] + (self.n_classes,))
        out["all_class_ids"], out["all_classes"] = every.copy(), names[every]
        return out


class MultiClassHead(ClassifierHead):
    """Softmax cross entropy over ``n_classes`` > 2 logits."""

    def __init__(self, n_classes, **kwargs):
        super().__init__(n_classes, **kwargs)
        self.logits_dimension = n_classes

    def predictions(self, logits):
        ids = _f.expand_dims(argmax(logits, axis=-1), -1)
        return {"logits": logits, "probabilities": softmax(logits), "class_ids": ids}

    def unreduced_loss(self, labels, logits):
        loss = sparse_softmax_cross_entropy_with_logits(labels=labels[:, 0], logits=logits)
        return _f.expand_dims(loss, -1)

    def metrics(self, labels, predictions, unreduced, weights):
        return {"accuracy": _metrics.accuracy(labels, predictions["class_ids"],
                                              weights=_broadcast(weights, labels),
                                              name="accuracy"),
                "average_loss": self._average_loss(unreduced, weights)}


class BinaryHead(ClassifierHead):
    """Sigmoid cross entropy of one logit per example (``n_classes`` 2)."""

    def __init__(self, **kwargs):
        super().__init__(2, **kwargs)

    def labels(self, labels, logits):
        """Float labels stay floats in [0, 2), as TF's binary head takes them (the ML
        crash course's ``(value > 265000).astype(float)`` targets); others are ids."""
        column = _as_column(labels, 1, "classifier")
        if self._vocab is not None or column.dtype.kind != "f":
            return super().labels(labels, logits)
        column = _f.cast(column, np.float32)
        checks = [assert_less(column, np.float32(2), message="Labels must <= n_classes - 1"),
                  assert_greater_equal(column, np.float32(0), message="Labels must >= 0")]
        with control_dependencies(checks):
            return _f.identity(column)

    def predictions(self, logits):
        two = _f.concat([_f.zeros_like(logits), logits], axis=-1)
        return {"logits": logits, "logistic": _f.sigmoid(logits),
                "probabilities": softmax(two),
                "class_ids": _f.expand_dims(argmax(two, axis=-1), -1)}

    def unreduced_loss(self, labels, logits):
        return sigmoid_cross_entropy_with_logits(labels=_f.cast(labels, np.float32),
                                                 logits=logits)

    def metrics(self, labels, predictions, unreduced, weights):
        w = _broadcast(weights, labels)
        mean_label = _metrics.mean(_f.cast(labels, np.float32), weights=w, name="label/mean")
        return {
            "accuracy": _metrics.accuracy(labels, predictions["class_ids"], weights=w,
                                          name="accuracy"),
            "accuracy_baseline": tuple(_f.maximum(m, 1.0 - m) for m in mean_label),
            "auc": _metrics.auc(labels, predictions["logistic"], weights=w, name="auc"),
            "auc_precision_recall": _metrics.auc(labels, predictions["logistic"],
                                                 weights=w, curve="PR",
                                                 name="auc_precision_recall"),
            "average_loss": self._average_loss(unreduced, weights),
            "label/mean": mean_label,
            "precision": _metrics.precision(labels, predictions["class_ids"], weights=w,
                                            name="precision"),
            "prediction/mean": _metrics.mean(predictions["logistic"], weights=w,
                                             name="prediction/mean"),
            "recall": _metrics.recall(labels, predictions["class_ids"], weights=w,
                                      name="recall")}


def classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """The binary head for 2 classes, the multi-class head for more (TF's choice)."""
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}")
    kwargs = dict(weight_column=weight_column, label_vocabulary=label_vocabulary,
                  loss_reduction=loss_reduction)
    return BinaryHead(**kwargs) if n_classes == 2 else MultiClassHead(n_classes, **kwargs)
