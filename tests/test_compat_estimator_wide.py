"""TF 1.x's wide & deep estimators (DNNLinearCombinedClassifier and Regressor) on
feature columns.  Numbers and names from TF 2.15 (tensorflow-cpu 2.15.1,
``tf.compat.v1.estimator``) running the same program; the linear part starts at
zero as TF's does, so a linear-only model's numbers are TF's exactly."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

fc = tf.feature_column
RNG = np.random.RandomState(3)
X1 = RNG.rand(12).astype(np.float32)
C = (np.arange(12) % 3).astype(np.int64)
FEATURES = {"x1": X1, "c": C}
Y2 = (X1 > 0.5).astype(np.int64)
Y_REG = (2 * X1 + 0.3 * C).astype(np.float32)
WIDE = [fc.categorical_column_with_identity("c", 3),
        fc.bucketized_column(fc.numeric_column("x1"), [0.3, 0.6])]
DEEP = [fc.numeric_column("x1"),
        fc.embedding_column(fc.categorical_column_with_identity("c", 3), 2)]


def inputs(y, epochs=None):
    return tf.estimator.inputs.numpy_input_fn(FEATURES, y, batch_size=4, num_epochs=epochs,
                                              shuffle=False)


def _names(parts, slots):
    return [f"{p}{s}" for p in parts for s in slots]


def test_wide_and_deep_classifier_names_metrics_and_predictions():
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=WIDE, dnn_feature_columns=DEEP, dnn_hidden_units=[3],
        config=tf.estimator.RunConfig(tf_random_seed=0))
    est.train(inputs(Y2), steps=3)
    dnn = ["dnn/hiddenlayer_0/bias", "dnn/hiddenlayer_0/kernel",
           "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights",
           "dnn/logits/bias", "dnn/logits/kernel"]
    linear = ["linear/linear_model/bias_weights", "linear/linear_model/c/weights",
              "linear/linear_model/x1_bucketized/weights"]
    assert est.get_variable_names() == _names(dnn, ["", "/Adagrad"]) + ["global_step"] + \
        _names(linear, ["", "/Ftrl", "/Ftrl_1"])   # TF 2.15
    assert est.get_variable_value("global_step") == 3   # both parts step, the count once
    assert sorted(est.evaluate(inputs(Y2, 1))) == [
        "accuracy", "accuracy_baseline", "auc", "auc_precision_recall", "average_loss",
        "global_step", "label/mean", "loss", "precision", "prediction/mean", "recall"]
    assert sorted(next(est.predict(inputs(None, 1)))) == [
        "all_class_ids", "all_classes", "class_ids", "classes", "logistic", "logits",
        "probabilities"]


def test_a_linear_only_wide_model_matches_tf():
    est = tf.estimator.DNNLinearCombinedRegressor(linear_feature_columns=WIDE)
    est.train(inputs(Y_REG), steps=5)
    # TF 2.15: Ftrl at min(0.005, 1/sqrt(2)) on the linear part
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/c/weights").ravel(),
                               [0.01108555, 0.01499066, 0.01689653], rtol=1e-5)
    result = est.evaluate(inputs(Y_REG, 1))
    expected = {"average_loss": 1.64401, "global_step": 5, "label/mean": 1.16029,
                "loss": 6.57605, "prediction/mean": 0.04395}   # TF 2.15, rounded
    assert sorted(result) == sorted(expected)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-5), key


def test_each_part_has_its_own_optimizer():
    est = tf.estimator.DNNLinearCombinedRegressor(
        linear_feature_columns=WIDE, linear_optimizer="SGD", dnn_feature_columns=DEEP,
        dnn_hidden_units=[2], dnn_optimizer="Adam")
    est.train(inputs(Y_REG), steps=2)
    names = est.get_variable_names()
    # TF 2.15: Adam's slots on the DNN's variables only, its powers under head/
    assert "head/beta1_power" in names and "dnn/logits/kernel/Adam_1" in names
    assert not any(n.startswith("linear/") and "Adam" in n for n in names)
    assert "linear/linear_model/c/weights" in names


@pytest.mark.parametrize("kwargs, message", [
    ({}, "Either linear_feature_columns or dnn_feature_columns"),
    ({"dnn_feature_columns": DEEP}, "dnn_hidden_units must be defined"),
])
def test_bad_wide_and_deep_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tf.estimator.DNNLinearCombinedRegressor(**kwargs)
