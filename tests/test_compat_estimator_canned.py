"""TF 1.x's premade estimators (LinearRegressor, LinearClassifier, DNNRegressor,
DNNClassifier) on feature columns and numpy_input_fn.  Linear models start from zero
weights, as TF's do, so their numbers are TF 2.15's (tensorflow-cpu 2.15.1,
``tf.compat.v1.estimator``) printed by the same program; DNNs start from random
weights, so for them the keys, shapes, dtypes and names are TF's and the values are
checked against numpy on the trained weights."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

fc = tf.feature_column
RNG = np.random.RandomState(3)
X1 = RNG.rand(12).astype(np.float32)
X2 = RNG.rand(12, 2).astype(np.float32)
C = (np.arange(12) % 3).astype(np.int64)
FEATURES = {"x1": X1, "x2": X2, "c": C}
Y_REG = (2 * X1 + X2[:, 0] - X2[:, 1] + 0.5).astype(np.float32)
Y3 = (np.arange(12) * 7 % 3).astype(np.int64)
Y2 = (X1 > 0.5).astype(np.int64)
LINEAR = [fc.numeric_column("x1"), fc.numeric_column("x2", shape=2),
          fc.categorical_column_with_identity("c", 3)]
DEEP = [fc.numeric_column("x1"), fc.numeric_column("x2", shape=2),
        fc.indicator_column(fc.categorical_column_with_identity("c", 3))]
SLOTS = ["", "/part_0/Ftrl", "/part_0/Ftrl_1"]
LINEAR_NAMES = ["global_step"] + [f"linear/linear_model/{v}{s}" for v in (
    "bias_weights", "c/weights", "x1/weights", "x2/weights") for s in SLOTS]


def inputs(y, epochs=None, features=FEATURES):
    return tf.estimator.inputs.numpy_input_fn(features, y, batch_size=4, num_epochs=epochs,
                                              shuffle=False)


def trained(est, y, steps=6):
    est.train(inputs(y), steps=steps)
    return est, est.evaluate(inputs(y, epochs=1)), list(est.predict(inputs(None, epochs=1)))


def rounded(result):
    return {k: round(float(v), 4) for k, v in result.items()}


def test_linear_regressor_matches_tf():
    est, result, preds = trained(tf.estimator.LinearRegressor(LINEAR), Y_REG)
    assert est.get_variable_names() == LINEAR_NAMES
    # TF 2.15 after 6 Ftrl steps at rate min(0.2, 1/sqrt(3)), loss summed over the batch
    np.testing.assert_allclose(est.get_variable_value("linear/linear_model/c/weights")
                               .ravel(), [0.289255, 0.336849, 0.378817], atol=3e-6)
    np.testing.assert_allclose(est.get_variable_value(
        "linear/linear_model/x1/weights/part_0/Ftrl").ravel(), [94.34565], rtol=1e-6)
    assert rounded(result) == {"average_loss": 0.4318, "global_step": 6, "label/mean": 1.3258,
                               "loss": 1.7271, "prediction/mean": 1.16}
    assert len(preds) == 12 and list(preds[0]) == ["predictions"]
    assert preds[0]["predictions"].shape == (1,)
    assert preds[0]["predictions"][0] == pytest.approx(1.183678, abs=2e-6)


def test_linear_classifier_with_three_classes_matches_tf():
    est, result, preds = trained(tf.estimator.LinearClassifier(LINEAR, n_classes=3), Y3)
    assert est.get_variable_names() == LINEAR_NAMES
    assert rounded(result) == {"accuracy": 1.0, "average_loss": 0.4805, "global_step": 6,
                               "loss": 1.9221}   # TF 2.15
    first = preds[0]
    assert list(first) == ["logits", "probabilities", "class_ids", "classes", "all_class_ids",
                           "all_classes"]
    np.testing.assert_allclose(first["logits"], [0.583699, -0.495303, -0.501109], atol=3e-6)
    np.testing.assert_allclose(first["probabilities"], [0.595983, 0.202595, 0.201422],
                               atol=2e-6)
    assert first["class_ids"].tolist() == [0] and first["class_ids"].dtype == np.int64
    assert first["classes"].tolist() == [b"0"] and first["classes"].dtype == object
    assert first["all_class_ids"].tolist() == [0, 1, 2]
    assert first["all_class_ids"].dtype == np.int32
    assert first["all_classes"].tolist() == [b"0", b"1", b"2"]


def test_binary_linear_classifier_has_tf_s_metrics():
    est, result, preds = trained(tf.estimator.LinearClassifier(LINEAR), Y2)
    # TF 2.15 (auc from 200 thresholds, as TF's head asks)
    assert rounded(result) == {
        "accuracy": 0.5833, "accuracy_baseline": 0.5833, "auc": 0.9571,
        "auc_precision_recall": 0.9514, "average_loss": 0.6196, "global_step": 6,
        "label/mean": 0.4167, "loss": 2.4785, "precision": 0.0, "prediction/mean": 0.4348,
        "recall": 0.0}
    first = preds[0]
    assert list(first) == ["logits", "logistic", "probabilities", "class_ids", "classes",
                           "all_class_ids", "all_classes"]
    np.testing.assert_allclose(first["logits"], [-0.060443], atol=2e-6)
    np.testing.assert_allclose(first["probabilities"], [0.515106, 0.484894], atol=2e-6)


def test_weights_reduction_named_optimizer_and_train_and_evaluate_match_tf():
    w = (1 + np.arange(12) % 2).astype(np.float32)
    b = (np.arange(12) % 4).astype(np.int64)
    features = {"x1": X1, "w": w, "b": b}
    y = (2 * X1 + 0.5 + 0.1 * b).astype(np.float32)
    x1 = fc.numeric_column("x1")
    est = tf.estimator.LinearRegressor(
        [x1, fc.bucketized_column(x1, [0.3, 0.6])], weight_column="w", optimizer="SGD",
        loss_reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
    metrics, exports = tf.estimator.train_and_evaluate(
        est, tf.estimator.TrainSpec(inputs(y, features=features), max_steps=5),
        tf.estimator.EvalSpec(inputs(y, epochs=1, features=features), steps=None))
    assert exports == []
    assert rounded(metrics) == {"average_loss": 0.0445, "global_step": 5, "label/mean": 1.598,
                                "loss": 0.0668, "prediction/mean": 1.7408}   # TF 2.15
    np.testing.assert_allclose(est.get_variable_value(
        "linear/linear_model/x1_bucketized/weights").ravel(), [0.003643, 0.435881, 0.614847],
        atol=2e-6)
    est2 = tf.estimator.LinearClassifier(
        [x1, fc.categorical_column_with_identity("b", 4)], n_classes=3,
        optimizer=lambda: tf.train.AdamOptimizer(0.05), sparse_combiner="mean")
    est2.train(inputs(Y3, features=features), steps=4)
    assert est2.get_variable_names()[:3] == ["global_step", "linear/head/beta1_power",
                                             "linear/head/beta2_power"]
    assert rounded(est2.evaluate(inputs(Y3, epochs=1, features=features))) == {
        "accuracy": 0.3333, "average_loss": 1.1042, "global_step": 4, "loss": 4.417}
    chosen = next(est2.predict(inputs(None, epochs=1, features=features),
                               predict_keys=["classes", "probabilities"]))
    assert sorted(chosen) == ["classes", "probabilities"]
    np.testing.assert_allclose(chosen["probabilities"], [0.390359, 0.332384, 0.277257],
                               atol=3e-6)


def _dense_forward(est, x, layers):
    """The DNN's logits computed with numpy from its saved weights."""
    h = x
    for i in range(layers):
        h = np.maximum(h @ est.get_variable_value(f"dnn/hiddenlayer_{i}/kernel")
                       + est.get_variable_value(f"dnn/hiddenlayer_{i}/bias"), 0)
    return h @ est.get_variable_value("dnn/logits/kernel") + \
        est.get_variable_value("dnn/logits/bias")


def test_dnn_regressor_names_and_logits():
    est = tf.estimator.DNNRegressor([4, 3], DEEP,
                                    config=tf.estimator.RunConfig(tf_random_seed=2))
    losses = [est.evaluate(inputs(Y_REG, epochs=1))["average_loss"]]
    est, result, preds = trained(est, Y_REG, steps=30)
    losses.append(result["average_loss"])
    assert losses[1] < losses[0]
    # TF 2.15's names: Adagrad's slots under t_0
    assert est.get_variable_names() == [
        f"dnn/{layer}/{v}{s}" for layer in ("hiddenlayer_0", "hiddenlayer_1", "logits")
        for v in ("bias", "kernel") for s in ("", "/t_0/Adagrad")] + ["global_step"]
    assert est.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (6, 4)
    # the input layer: x1 | x2 | c one-hot (sorted by name: c_indicator, x1, x2)
    x = np.hstack([np.eye(3)[C], X1[:, None], X2])
    np.testing.assert_allclose([p["predictions"][0] for p in preds],
                               _dense_forward(est, x, 2)[:, 0], rtol=1e-5, atol=1e-6)


def test_dnn_classifier_on_iris_like_data_learns_and_predicts_tf_s_keys():
    rng = np.random.RandomState(0)
    y = np.repeat(np.arange(3), 8)
    x = (rng.randn(24, 4) * 0.3 + y[:, None]).astype(np.float32)
    columns = [fc.numeric_column("x", shape=4)]
    est = tf.estimator.DNNClassifier([8], columns, n_classes=3, dropout=0.1,
                                     optimizer=tf.train.AdamOptimizer(0.05),
                                     config=tf.estimator.RunConfig(tf_random_seed=3))
    train = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None,
                                               shuffle=True)
    evaluation = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=8,
                                                    shuffle=False)
    before = est.evaluate(evaluation)
    est.train(train, steps=40)
    after = est.evaluate(evaluation)
    assert sorted(after) == ["accuracy", "average_loss", "global_step", "loss"]
    assert after["average_loss"] < before["average_loss"] and after["accuracy"] >= 0.9
    assert after["global_step"] == 40
    assert "dnn/head/beta1_power" in est.get_variable_names()   # TF 2.15's name
    preds = list(est.predict(tf.estimator.inputs.numpy_input_fn({"x": x}, shuffle=False)))
    assert {k: (v.shape, v.dtype.name) for k, v in preds[0].items()} == {
        "logits": ((3,), "float32"), "probabilities": ((3,), "float32"),
        "class_ids": ((1,), "int64"), "classes": ((1,), "object"),
        "all_class_ids": ((3,), "int32"), "all_classes": ((3,), "object")}
    logits = _dense_forward(est, x, 1)
    np.testing.assert_allclose(np.array([p["logits"] for p in preds]), logits, rtol=1e-5,
                               atol=1e-5)


def test_label_vocabulary_of_numbers_names_the_classes():
    y = np.where(Y2 == 1, 7, 3)
    est = tf.estimator.LinearClassifier(LINEAR, label_vocabulary=[3, 7])
    est.train(inputs(y), steps=3)
    preds = list(est.predict(inputs(None, epochs=1)))
    assert preds[0]["all_classes"].tolist() == [b"3", b"7"]
    assert {p["classes"][0] for p in preds} <= {b"3", b"7"}
    with pytest.raises(tf.errors.InvalidArgumentError, match="label_vocabulary"):
        est.train(inputs(np.full(12, 5)), steps=1)


@pytest.mark.parametrize("make, message", [
    (lambda: tf.estimator.LinearClassifier(LINEAR, n_classes=1), "n_classes must be > 1"),
    (lambda: tf.estimator.LinearRegressor([]), "feature_columns must not be empty"),
    (lambda: tf.estimator.DNNClassifier([3], DEEP, label_vocabulary=["a", "b"]),
     "must be numbers"),
    (lambda: tf.estimator.DNNRegressor([3], DEEP, batch_norm=True), "batch_norm"),
])
def test_bad_premade_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_unknown_optimizer_name_is_refused_when_training():
    est = tf.estimator.LinearRegressor(LINEAR, optimizer="Lion")
    with pytest.raises(ValueError, match="Unsupported optimizer name: Lion"):
        est.train(inputs(Y_REG), steps=1)


def test_the_get_started_guide_s_premade_program_runs():
    """TF 1.x's "Get started" premade_estimator.py, with dicts of numpy columns in place
    of the pandas frames.  TF 2.15 printed accuracy 1.000 and the three expected
    classes; the weights start at random, so the test asks for a high accuracy."""
    rng = np.random.RandomState(1)
    names = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]
    y = np.repeat(np.arange(3), 10)
    x = rng.randn(30, 4) * 0.3 + y[:, None] * np.array([1.0, -0.5, 2.0, 0.8])
    train_x = {k: x[:, i] for i, k in enumerate(names)}

    def train_input_fn(features, labels, batch_size):
        dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
        return dataset.shuffle(1000).repeat().batch(batch_size)

    def eval_input_fn(features, labels, batch_size):
        features = dict(features)
        inputs = features if labels is None else (features, labels)
        return tf.data.Dataset.from_tensor_slices(inputs).batch(batch_size)

    columns = [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]
    classifier = tf.estimator.DNNClassifier(
        feature_columns=columns, hidden_units=[10, 10], n_classes=3,
        config=tf.estimator.RunConfig(tf_random_seed=1))
    classifier.train(input_fn=lambda: train_input_fn(train_x, y, 10), steps=150)
    eval_result = classifier.evaluate(input_fn=lambda: eval_input_fn(train_x, y, 10))
    line = "Test set accuracy: {accuracy:0.3f}".format(**eval_result)
    assert line.startswith("Test set accuracy: ") and eval_result["accuracy"] >= 0.9
    predict_x = {k: x[[0, 15, 29], i] for i, k in enumerate(names)}
    found = []
    for pred_dict in classifier.predict(input_fn=lambda: eval_input_fn(predict_x, None, 10)):
        class_id = pred_dict["class_ids"][0]
        found.append((class_id, pred_dict["probabilities"][class_id] ==
                      pred_dict["probabilities"].max()))
    assert found == [(0, True), (1, True), (2, True)]


def test_warm_start_from_a_model_dir_or_settings_matches_tf():
    x = np.linspace(0, 1, 8).astype(np.float32)

    def fn():
        return tf.estimator.inputs.numpy_input_fn({"x": x}, 3 * x + 1, batch_size=4,
                                                  num_epochs=None, shuffle=False)
    columns = [fc.numeric_column("x")]

    def sgd():
        return tf.train.GradientDescentOptimizer(0.05)
    first = tf.estimator.LinearRegressor(columns, optimizer=sgd())
    first.train(fn(), steps=5)
    warm = tf.estimator.LinearRegressor(columns, optimizer=sgd(),
                                        warm_start_from=first.model_dir)
    warm.train(fn(), steps=1)
    # TF 2.15: the trainable variables start from the first model's (global_step does not)
    assert warm.get_variable_value("global_step") == 1
    np.testing.assert_allclose([warm.get_variable_value("linear/linear_model/x/weights")[0, 0],
                                warm.get_variable_value("linear/linear_model/bias_weights")[0]],
                               [1.2855304, 1.5825669], rtol=1e-6)
    settings = tf.estimator.WarmStartSettings(first.model_dir, vars_to_warm_start=".*bias.*")
    partly = tf.estimator.LinearRegressor(columns, optimizer=sgd(), warm_start_from=settings)
    values = []
    for _ in range(2):   # the second call starts from partly's own checkpoint
        partly.train(fn(), steps=1)
        values.append([partly.get_variable_value("linear/linear_model/x/weights")[0, 0],
                       partly.get_variable_value("linear/linear_model/bias_weights")[0]])
    np.testing.assert_allclose(values, [[0.02331486, 1.6939389], [0.04888253, 1.6715077]],
                               rtol=1e-6)
