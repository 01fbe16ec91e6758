"""TF 1.x's baseline estimators: ``BaselineClassifier`` and ``BaselineRegressor``.

The model is one bias per output (``baseline/bias``, zeros at first) whatever the
features say: the prior class distribution, or the mean label, learned by Ftrl at 0.3
by default.  The heads are the premade ones (``compat.canned_heads``), so the loss,
metrics and predictions are those of ``LinearClassifier``/``LinearRegressor``.

Sits in ``compat``; imports the tracing layer and ``compat.canned``,
``canned_heads``, ``scopes``, ``initializers`` and ``losses``.
"""
from __future__ import annotations

import numpy as np

from ..tracing import functions as _f
from ..tracing.arrays import shape
from .canned import CannedEstimator, minimizer
from .canned_heads import RegressionHead, classifier_head
from .initializers import TABLE as _INITIALIZERS
from .losses import Reduction
from .scopes import get_variable, variable_scope

_RATE = 0.3


def _baseline_logit_fn(weight_column):
    weight_key = getattr(weight_column, "key", weight_column)

    def logit_fn(features, mode, units):
        with variable_scope("baseline"):
            bias = get_variable("bias", [units], dtype=np.float32,
                                initializer=_INITIALIZERS["zeros_initializer"]())
        return _ones_per_example(features, weight_key) * bias
    return logit_fn


def _ones_per_example(features, weight_key):
    """A float32 ``[batch, 1]`` column of ones, the batch read from a feature."""
    if isinstance(features, dict):
        keys = sorted(k for k in features if k != weight_key) or sorted(features)
        if not keys:
            raise ValueError("Baseline estimators need at least one feature to know the "
                             "batch size; the input_fn gave none")
        x = features[keys[0]]
    else:
        x = features
    column = _f.reshape(_f.cast(x, np.float32), [shape(x)[0], -1])[:, :1]
    # (ones made from the feature's values, not only its shape, so that a session run
    # of the logits alone still reads the next batch)
    return _f.where(_f.equal(column, column), _f.ones_like(column), _f.ones_like(column))


class BaselineClassifier(CannedEstimator):
    """``tf.estimator.BaselineClassifier``."""

    def __init__(self, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None,
                 loss_reduction=Reduction.SUM):
        head = classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, _baseline_logit_fn(weight_column),
                         minimizer(optimizer, _RATE), model_dir, config, None)


class BaselineRegressor(CannedEstimator):
    """``tf.estimator.BaselineRegressor``."""

    def __init__(self, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, loss_reduction=Reduction.SUM):
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, _baseline_logit_fn(weight_column),
                         minimizer(optimizer, _RATE), model_dir, config, None)
