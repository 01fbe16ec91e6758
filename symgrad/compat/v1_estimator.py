"""The ``tf.estimator`` and ``tf.feature_column`` namespaces of ``compat.v1``.

Sits in ``compat``; imports the estimator modules and ``compat.runtime``.
"""
from __future__ import annotations

from . import canned as _canned
from . import canned_baseline as _baseline
from . import canned_combined as _combined
from . import estimator as _estimator
from . import estimator_calls as _calls
from . import estimator_inputs as _inputs
from . import feature_column_api as _columns
from . import estimator_spec as _spec
from . import monitored as _monitored
from .runtime import namespace

estimator = namespace(
    "estimator", Estimator=_estimator.Estimator, EstimatorSpec=_spec.EstimatorSpec,
    ModeKeys=_spec.ModeKeys, RunConfig=_spec.RunConfig, TrainSpec=_spec.TrainSpec,
    EvalSpec=_spec.EvalSpec, WarmStartSettings=_spec.WarmStartSettings,
    train_and_evaluate=_estimator.train_and_evaluate,
    add_metrics=_estimator.add_metrics,
    CheckpointSaverListener=_calls.CheckpointSaverListener,
    **{n: getattr(_monitored, n) for n in (   # (TF's aliases of tf.train's hooks)
        "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
        "StopAtStepHook", "LoggingTensorHook", "NanTensorHook", "NanLossDuringTrainingError",
        "CheckpointSaverHook", "FinalOpsHook", "FeedFnHook", "StepCounterHook")},
    **{n: getattr(_canned, n) for n in ("LinearRegressor", "LinearClassifier",
                                        "DNNRegressor", "DNNClassifier")},
    DNNLinearCombinedClassifier=_combined.DNNLinearCombinedClassifier,
    DNNLinearCombinedRegressor=_combined.DNNLinearCombinedRegressor,
    BaselineClassifier=_baseline.BaselineClassifier,
    BaselineRegressor=_baseline.BaselineRegressor,
    inputs=namespace("estimator.inputs", _plain=True, numpy_input_fn=_inputs.numpy_input_fn,
                     pandas_input_fn=_inputs.pandas_input_fn))
feature_column = namespace("feature_column", **{n: getattr(_columns, n) for n in (
    "numeric_column", "bucketized_column", "categorical_column_with_identity",
    "categorical_column_with_vocabulary_list", "weighted_categorical_column",
    "indicator_column", "embedding_column", "shared_embedding_columns",
    "input_layer", "linear_model", "categorical_column_with_hash_bucket", "crossed_column",
    "categorical_column_with_vocabulary_file")})
