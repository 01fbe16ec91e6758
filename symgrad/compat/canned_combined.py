"""TF 1.x's wide & deep estimators: ``DNNLinearCombinedClassifier`` and
``DNNLinearCombinedRegressor`` (the v1 classes).

The logits are the sum of a linear model (``linear``, over
``linear_feature_columns``) and a DNN (``dnn``, over ``dnn_feature_columns``); either
part may be left out.  Each part has its own optimizer over its own variables —
``linear_optimizer`` (Ftrl at rate min(0.005, 1/sqrt(number of linear columns)) by
default) and ``dnn_optimizer`` (Adagrad at 0.001) — and a training step runs both,
then adds one to the global step, as TF does.  Checkpoint names are TF's
(``.../weights/Ftrl``, ``.../kernel/Adagrad``, ``head/beta1_power``).

Sits in ``compat``; imports ``compat.canned``, ``canned_heads``, ``variables`` and
``losses``.
"""
from __future__ import annotations

import numpy as np

from ..tracing.functions import relu
from .canned import CannedEstimator, dnn_logit_fn, linear_logit_fn, optimizer_instance
from .canned_heads import RegressionHead, classifier_head
from .losses import Reduction
from .variables import (assign_add, control_dependencies, get_global_step, group,
                        trainable_variables)

_DNN_RATE, _LINEAR_RATE = 0.001, 0.005


def _parts(linear_columns, dnn_columns, hidden_units, activation_fn, dropout,
           batch_norm, sparse_combiner):
    """The logit functions of the two parts (None for a part left out)."""
    linear_columns, dnn_columns = list(linear_columns or ()), list(dnn_columns or ())
    if not linear_columns and not dnn_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be "
                         "defined.")
    if dnn_columns and not hidden_units:
        raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                         "specified.")
    linear = linear_logit_fn(linear_columns, sparse_combiner) if linear_columns else None
    dnn = dnn_logit_fn(hidden_units, dnn_columns, activation_fn, dropout, batch_norm) \
        if dnn_columns else None
    return linear, dnn, len(linear_columns)


def _combined_logit_fn(linear, dnn):
    def logit_fn(features, mode, units):
        parts = [fn(features, mode, units) for fn in (dnn, linear) if fn is not None]
        return parts[0] + parts[1] if len(parts) == 2 else parts[0]
    return logit_fn


def _train_op_fn(linear, dnn, linear_optimizer, dnn_optimizer, n_linear):
    def train_op_fn(loss):
        steps = []
        for fn, optimizer, rate, scope in (
                (dnn, dnn_optimizer, _DNN_RATE, "dnn/"),
                (linear, linear_optimizer, min(_LINEAR_RATE, 1.0 / np.sqrt(max(n_linear, 1))),
                 "linear/")):
            if fn is not None:
                owned = [v for v in trainable_variables() if v.op_name.startswith(scope)]
                steps.append(optimizer_instance(optimizer, rate).minimize(
                    loss, var_list=owned))
        with control_dependencies([group(*steps)]):
            return assign_add(get_global_step(), 1)
    return train_op_fn


class DNNLinearCombinedClassifier(CannedEstimator):
    """``tf.estimator.DNNLinearCombinedClassifier``."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        linear, dnn, n = _parts(linear_feature_columns, dnn_feature_columns,
                                dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                batch_norm, linear_sparse_combiner)
        head = classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, _combined_logit_fn(linear, dnn),
                         _train_op_fn(linear, dnn, linear_optimizer, dnn_optimizer, n),
                         model_dir, config, None, "head", warm_start_from)


class DNNLinearCombinedRegressor(CannedEstimator):
    """``tf.estimator.DNNLinearCombinedRegressor``."""

    def __init__(self, model_dir=None, linear_feature_columns=None, linear_optimizer="Ftrl",
                 dnn_feature_columns=None, dnn_optimizer="Adagrad", dnn_hidden_units=None,
                 dnn_activation_fn=relu, dnn_dropout=None, label_dimension=1,
                 weight_column=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False,
                 linear_sparse_combiner="sum"):
        linear, dnn, n = _parts(linear_feature_columns, dnn_feature_columns,
                                dnn_hidden_units, dnn_activation_fn, dnn_dropout,
                                batch_norm, linear_sparse_combiner)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, _combined_logit_fn(linear, dnn),
                         _train_op_fn(linear, dnn, linear_optimizer, dnn_optimizer, n),
                         model_dir, config, None, "head", warm_start_from)
