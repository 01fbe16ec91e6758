"""TF 1.x's premade estimators: ``LinearRegressor``, ``LinearClassifier``,
``DNNRegressor`` and ``DNNClassifier`` (the v1 classes, ``tf.compat.v1.estimator``).

A premade estimator is an ``Estimator`` whose ``model_fn`` makes logits from the
feature columns and hands them to a head (``compat.canned_heads``):

- linear: ``linear_model`` under the scope ``linear`` (weights start at zero), trained
  by default with ``Ftrl`` at rate min(0.2, 1/sqrt(number of columns));
- DNN: ``input_layer`` under ``dnn/input_from_feature_columns``, then dense layers
  ``dnn/hiddenlayer_<i>`` (``activation_fn``, ReLU by default; ``dropout`` while
  training) and ``dnn/logits``, Glorot-uniform kernels, trained by default with
  ``Adagrad`` at 0.05.

``optimizer`` is a name (``"Adagrad"``, ``"Adam"``, ``"Ftrl"``, ``"RMSProp"``,
``"SGD"``), an optimizer, or a function returning one.  The checkpoints name the
optimizers' slots as TF's do (``.../weights/part_0/Ftrl``, ``.../kernel/t_0/Adagrad``,
``dnn/head/beta1_power``), so ``get_variable_names`` lists TF's names.

Sits in ``compat``; imports ``compat.estimator``, ``canned_heads``,
``feature_column_api``, ``layers``, ``scopes``, ``train``, ``initializers``,
``variables`` and ``runtime``.
"""
from __future__ import annotations

import numpy as np

from ..tracing.functions import relu
from . import train as _train
from .canned_heads import RegressionHead, classifier_head
from .estimator import Estimator
from .estimator_spec import ModeKeys
from .feature_column_api import input_layer, linear_model
from .initializers import TABLE as _INITIALIZERS
from .layers import dense, dropout as _dropout
from .losses import Reduction
from .runtime import Saver
from .scopes import variable_scope
from .variables import get_global_step, global_variables, trainable_variables

OPTIMIZERS = {"Adagrad": _train.AdagradOptimizer, "Adam": _train.AdamOptimizer,
              "Ftrl": _train.FtrlOptimizer, "RMSProp": _train.RMSPropOptimizer,
              "SGD": _train.GradientDescentOptimizer}


def optimizer_instance(optimizer, learning_rate):
    """An optimizer from a name (at ``learning_rate``), an instance, or a function."""
    if isinstance(optimizer, str):
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"Unsupported optimizer name: {optimizer}. Supported names "
                             f"are: {tuple(sorted(OPTIMIZERS))}")
        return OPTIMIZERS[optimizer](learning_rate=learning_rate)
    if callable(optimizer) and not isinstance(optimizer, _train.Optimizer):
        optimizer = optimizer()
    if not isinstance(optimizer, _train.Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: "
                         f"{optimizer}")
    return optimizer


class CannedEstimator(Estimator):
    """An Estimator of ``logit_fn(features, mode, units)`` and a head; its training
    op is ``train_op_fn(loss)``."""

    def __init__(self, head, logit_fn, train_op_fn, model_dir, config, slot_part,
                 head_scope=None, warm_start_from=None):
        self._head, self._slot_part, self._head_scope = head, slot_part, head_scope

        def model_fn(features, labels, mode, config):
            logits = logit_fn(features, mode, head.logits_dimension)
            return head.spec(features, mode, logits, labels, train_op_fn)
        super().__init__(model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)

    def _saver(self):
        """A saver that names the optimizers' variables as TF's canned estimators do."""
        model = {v.op_name for v in trainable_variables()} | {"global_step"}
        named = {}
        for v in global_variables():
            named[_tf_name(v.op_name, model, self._slot_part, self._head_scope)] = v
        return Saver(var_list=named, max_to_keep=self._config.keep_checkpoint_max)

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """``Estimator.predict`` with the class names TF adds (``classes``, ...)."""
        keys = None if predict_keys is None else (
            [predict_keys] if isinstance(predict_keys, str) else list(predict_keys))
        for values in super().predict(input_fn, None, hooks, checkpoint_path,
                                      yield_single_examples):
            values = self._head.finish_predictions(values)
            if keys is not None:
                chosen = {k: v for k, v in values.items() if k in keys}
                if not chosen:
                    raise ValueError(f"Expected to run at least one output from "
                                     f"{list(values)}, provided {keys}.")
                values = chosen
            yield values


def _tf_name(name, model, slot_part, head_scope):
    """TF's checkpoint name of variable ``name``: a slot ``<var>/<Opt>`` of a model
    variable is ``<var>/<slot_part>/<Opt>``; other optimizer variables go under
    ``head_scope`` (DNN's ``dnn/head/beta1_power``)."""
    if name in model:
        return name
    owner = max((m for m in model if name.startswith(m + "/")), key=len, default=None)
    if owner is not None:
        return f"{owner}/{slot_part}{name[len(owner):]}" if slot_part else name
    return f"{head_scope}/{name}" if head_scope else name


def minimizer(optimizer, learning_rate):
    """The training op of a premade estimator: ``optimizer`` (made in the graph being
    built) minimizes the loss and counts the global step."""
    def train_op_fn(loss):
        chosen = optimizer_instance(optimizer, learning_rate)
        return chosen.minimize(loss, global_step=get_global_step())
    return train_op_fn


def linear_logit_fn(feature_columns, sparse_combiner):
    def logit_fn(features, mode, units):
        with variable_scope("linear"):
            return linear_model(features, feature_columns, units=units,
                                sparse_combiner=sparse_combiner)
    return logit_fn


def dnn_logit_fn(hidden_units, feature_columns, activation_fn, dropout, batch_norm):
    if batch_norm:
        raise ValueError("DNN estimators: batch_norm=True is not supported; write a "
                         "model_fn with tf.layers.batch_normalization")
    glorot = _INITIALIZERS["glorot_uniform_initializer"]

    def logit_fn(features, mode, units):
        with variable_scope("dnn"):
            with variable_scope("input_from_feature_columns"):
                net = input_layer(features, feature_columns)
            for i, size in enumerate(hidden_units):
                net = dense(net, size, activation=activation_fn,
                            kernel_initializer=glorot(), name=f"hiddenlayer_{i}")
                if dropout is not None and mode == ModeKeys.TRAIN:
                    net = _dropout(net, rate=dropout, training=True)
            return dense(net, units, kernel_initializer=glorot(), name="logits")
    return logit_fn


def columns_of(feature_columns):
    columns = list(feature_columns or ())
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    return columns


def _linear_rate(columns):
    return min(0.2, 1.0 / np.sqrt(len(columns)))


class LinearRegressor(CannedEstimator):
    """``tf.estimator.LinearRegressor``."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        columns = columns_of(feature_columns)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, linear_logit_fn(columns, sparse_combiner),
                         minimizer(optimizer, _linear_rate(columns)), model_dir, config,
                         "part_0", "linear/head", warm_start_from)


class LinearClassifier(CannedEstimator):
    """``tf.estimator.LinearClassifier``."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, sparse_combiner="sum"):
        columns = columns_of(feature_columns)
        head = classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, linear_logit_fn(columns, sparse_combiner),
                         minimizer(optimizer, _linear_rate(columns)), model_dir, config,
                         "part_0", "linear/head", warm_start_from)


class DNNRegressor(CannedEstimator):
    """``tf.estimator.DNNRegressor``."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, label_dimension=1,
                 weight_column=None, optimizer="Adagrad", activation_fn=relu,
                 dropout=None, input_layer_partitioner=None, config=None,
                 warm_start_from=None, loss_reduction=Reduction.SUM, batch_norm=False):
        logit_fn = dnn_logit_fn(hidden_units, columns_of(feature_columns), activation_fn,
                                 dropout, batch_norm)
        head = RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, logit_fn, minimizer(optimizer, 0.05), model_dir, config,
                         "t_0", "dnn/head", warm_start_from)


class DNNClassifier(CannedEstimator):
    """``tf.estimator.DNNClassifier``."""

    def __init__(self, hidden_units, feature_columns, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, optimizer="Adagrad",
                 activation_fn=relu, dropout=None, input_layer_partitioner=None,
                 config=None, warm_start_from=None, loss_reduction=Reduction.SUM,
                 batch_norm=False):
        logit_fn = dnn_logit_fn(hidden_units, columns_of(feature_columns), activation_fn,
                                 dropout, batch_norm)
        head = classifier_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        super().__init__(head, logit_fn, minimizer(optimizer, 0.05), model_dir, config,
                         "t_0", "dnn/head", warm_start_from)
