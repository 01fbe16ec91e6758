"""TF 1.x's BaselineClassifier and BaselineRegressor: one bias per output, from zero.
Numbers from TF 2.15 (tensorflow-cpu 2.15.1, ``tf.compat.v1.estimator``) running
the same program."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

X = np.arange(8, dtype=np.float32)
Y3 = np.array([0, 1, 1, 2, 1, 1, 0, 1])
NAMES = ["baseline/bias", "baseline/bias/Ftrl", "baseline/bias/Ftrl_1", "global_step"]


def inputs(y, epochs=None):
    return tf.estimator.inputs.numpy_input_fn({"x": X}, y, batch_size=3, num_epochs=epochs,
                                              shuffle=False)


def check(result, expected):
    assert sorted(result) == sorted(expected)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=2e-5), key


def test_baseline_classifier_learns_the_class_prior_as_tf():
    est = tf.estimator.BaselineClassifier(n_classes=3)
    est.train(inputs(Y3), steps=4)
    assert est.get_variable_names() == NAMES
    np.testing.assert_allclose(est.get_variable_value("baseline/bias"),
                               [-0.20003343, 0.4644696, -0.3141893], atol=2e-6)
    check(est.evaluate(inputs(Y3, 1)), {"accuracy": 0.625, "average_loss": 0.94329,
                                        "global_step": 4, "loss": 2.51545})
    first = next(est.predict(inputs(None, 1)))
    np.testing.assert_allclose(first["probabilities"], [0.26071247, 0.50670105, 0.23258652],
                               atol=2e-6)
    assert first["classes"].tolist() == [b"1"]


def test_baseline_regressor_and_binary_classifier_as_tf():
    est = tf.estimator.BaselineRegressor()
    est.train(inputs(X * 0.5 + 1), steps=4)
    assert est.get_variable_value("baseline/bias") == pytest.approx([0.84371316], abs=2e-6)
    check(est.evaluate(inputs(X * 0.5 + 1, 1)), {
        "average_loss": 4.94643, "global_step": 4, "label/mean": 2.75, "loss": 13.19048,
        "prediction/mean": 0.84371})
    binary = tf.estimator.BaselineClassifier()
    y = (Y3 > 0).astype(np.int64)
    binary.train(inputs(y), steps=4)
    check(binary.evaluate(inputs(y, 1)), {
        "accuracy": 0.75, "accuracy_baseline": 0.75, "auc": 0.5, "auc_precision_recall": 0.875,
        "average_loss": 0.59348, "global_step": 4, "label/mean": 0.75, "loss": 1.58262,
        "precision": 0.75, "prediction/mean": 0.63316, "recall": 1.0})
    assert [float(v) for v in next(binary.predict(inputs(None, 1)))["logistic"]] == \
        pytest.approx([0.6331575], abs=2e-6)
