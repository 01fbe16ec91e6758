"""tf.estimator.Estimator with a custom model_fn, fed by numpy_input_fn: the TF 1.x
"Creating custom estimators" program with only the import changed.  The numbers are
TF 2.15's (tensorflow-cpu 2.15.1, the last TF with tf.estimator), printed by the same
program run with ``import tensorflow.compat.v1 as tf``; the initializers are constants
so that both start from the same weights."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

X = np.array([[0.1, 0.2, 0.3], [1.0, -0.5, 0.2], [0.3, 0.8, -0.4], [-0.7, 0.1, 0.9],
              [0.5, 0.5, 0.5], [-0.2, -0.9, 0.3], [0.9, 0.0, -0.1], [0.0, 0.4, 0.6],
              [0.2, -0.3, -0.8], [-0.6, 0.7, 0.1]], np.float32)
Y = np.array([0, 1, 2, 0, 1, 2, 1, 0, 2, 1], np.int32)


def model_fn(features, labels, mode, params):
    x = features["x"]
    h = tf.layers.dense(x, params["hidden"], activation=tf.nn.relu,
                        kernel_initializer=tf.constant_initializer(0.1),
                        bias_initializer=tf.constant_initializer(0.05), name="hidden")
    logits = tf.layers.dense(h, 3, kernel_initializer=tf.zeros_initializer(),
                             name="logits")
    classes = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={
            "class_ids": classes, "probabilities": tf.nn.softmax(logits),
            "logits": logits})
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    acc = tf.metrics.accuracy(labels=labels, predictions=classes, name="acc_op")
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"accuracy": acc})
    opt = tf.train.GradientDescentOptimizer(learning_rate=0.5)
    train_op = opt.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def inputs(x, y=None, batch_size=4, num_epochs=1):
    return tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=batch_size,
                                              num_epochs=num_epochs, shuffle=False)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The estimator after TF's sequence of train calls, and what was seen on the way."""
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path_factory.mktemp("est")),
                                 params={"hidden": 4})
    seen = {}
    est.train(inputs(X, Y, num_epochs=2))
    seen["exhausted"] = est.get_variable_value("global_step")
    seen["kernel"] = est.get_variable_value("logits/kernel")
    seen["bias"] = est.get_variable_value("hidden/bias")
    est.train(inputs(X, Y, num_epochs=2), steps=2)
    seen["steps"] = est.get_variable_value("global_step")
    est.train(inputs(X, Y, batch_size=3, num_epochs=None), max_steps=10)
    seen["max_steps"] = est.get_variable_value("global_step")
    est.train(inputs(X, Y, num_epochs=2), max_steps=10)
    seen["again"] = est.get_variable_value("global_step")
    return est, seen


def test_steps_count_as_tf_counts_them(trained):
    # TF 2.15: 10 examples in batches of 4 for 2 epochs are 5 steps (the examples run on
    # across the epoch); steps=2 adds 2; max_steps stops at 10 and a later call skips
    _, seen = trained
    assert (seen["exhausted"], seen["steps"], seen["max_steps"], seen["again"]) == \
        (5, 7, 10, 10)


def test_the_checkpoint_holds_tf_s_variables_and_values(trained):
    est, seen = trained
    assert est.get_variable_names() == ["global_step", "hidden/bias", "hidden/kernel",
                                        "logits/bias", "logits/kernel"]
    # TF 2.15 after 5 steps of gradient descent
    np.testing.assert_allclose(seen["kernel"], np.tile([0.002726, 0.045132, -0.047858],
                                                       (4, 1)), atol=2e-6)
    np.testing.assert_allclose(seen["bias"], [0.061803] * 4, atol=2e-6)
    assert est.get_variable_value("global_step").dtype == np.int64


def test_evaluate_returns_the_metrics_loss_and_global_step(trained):
    est, _ = trained
    result = est.evaluate(inputs(X, Y))
    assert sorted(result) == ["accuracy", "global_step", "loss"]
    # TF 2.15: accuracy 0.4, loss 1.0764736 (the mean of the batches' losses)
    assert result["accuracy"] == pytest.approx(0.4)
    assert result["loss"] == pytest.approx(1.0764736, abs=1e-6)
    assert result["global_step"] == 10
    assert {k: np.asarray(v).dtype.name for k, v in result.items()} == {
        "accuracy": "float32", "loss": "float32", "global_step": "int64"}
    first = est.evaluate(inputs(X, Y), steps=1)
    assert first["accuracy"] == 0.25 and first["loss"] == pytest.approx(1.1023345, abs=2e-6)


def test_predict_yields_one_dict_per_example(trained):
    est, _ = trained
    preds = list(est.predict(inputs(X[:5])))
    assert len(preds) == 5
    assert {k: (v.shape, v.dtype.name) for k, v in preds[0].items()} == {
        "class_ids": ((), "int64"), "probabilities": ((3,), "float32"),
        "logits": ((3,), "float32")}
    # TF 2.15's logits for the first and last examples
    np.testing.assert_allclose(preds[0]["logits"], [-0.008785, 0.107938, -0.099152],
                               atol=2e-6)
    np.testing.assert_allclose(preds[4]["probabilities"], [0.33087, 0.381603, 0.287527],
                               atol=2e-6)
    assert [int(p["class_ids"]) for p in preds] == [1] * 5
    chosen = list(est.predict(inputs(X[:5]), predict_keys=["class_ids"]))
    assert [sorted(p) for p in chosen[:2]] == [["class_ids"], ["class_ids"]]


def _line_fn(features, labels, mode):
    w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
    loss = tf.reduce_mean((features * w - labels) ** 2)
    step = tf.train.GradientDescentOptimizer(0.1).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, predictions=features * w,
                                      train_op=step)


def _line_input():
    x = np.array([1.0, 2.0], np.float32)
    return tf.constant(x), tf.constant(2 * x)


def test_keep_checkpoint_max_counts_every_train_call_and_add_metrics(tmp_path):
    import os
    config = tf.estimator.RunConfig(keep_checkpoint_max=2, save_checkpoints_steps=2)
    est = tf.estimator.Estimator(_line_fn, str(tmp_path), config)
    kept = []
    for _ in range(2):
        est.train(_line_input, steps=3)
        kept.append(sorted({f.split(".")[1] for f in os.listdir(tmp_path)
                            if f.startswith("model.ckpt")}))   # (.index and .data each)
    assert kept == [["ckpt-2", "ckpt-3"], ["ckpt-5", "ckpt-6"]]   # TF 2.15's files

    def metric_fn(labels, predictions):
        return {"mae": tf.metrics.mean_absolute_error(labels, predictions)}
    extended = tf.estimator.add_metrics(est, metric_fn)
    result = extended.evaluate(_line_input, steps=1)
    # TF 2.15: global_step 6, loss 0.0024, mae 0.0469
    assert sorted(result) == ["global_step", "loss", "mae"] and result["global_step"] == 6
    assert (round(float(result["loss"]), 4), round(float(result["mae"]), 4)) == (0.0024, 0.0469)
    assert extended.model_dir == est.model_dir and "mae" not in est.evaluate(_line_input,
                                                                             steps=1)


def test_pandas_input_fn_reads_a_frame_s_columns():
    pd = pytest.importorskip("pandas")   # (pandas is not a dependency of symgrad)
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "z": [0.5, 0.5, 0.5]})
    fn = tf.estimator.inputs.pandas_input_fn(frame, pd.Series([1, 2, 3]), batch_size=2,
                                             shuffle=False)
    with tf.Graph().as_default():
        features, labels = fn()
        with tf.Session() as sess:
            first = sess.run([features, labels])
    assert sorted(first[0]) == ["x", "z"] and first[1].tolist() == [1, 2]
    with pytest.raises(ValueError, match="shuffle must be provided"):
        tf.estimator.inputs.pandas_input_fn(frame)


def test_training_and_evaluation_write_tf_s_summaries(tmp_path):
    import glob
    import os
    from symgrad.compat.summary import read_events

    def fn(features, labels, mode):
        spec = _line_fn(features, labels, mode)
        mse = tf.metrics.mean_squared_error(labels, spec.predictions)
        return spec._replace(eval_metric_ops={"mse": mse})
    est = tf.estimator.Estimator(fn, str(tmp_path),
                                 tf.estimator.RunConfig(save_summary_steps=2))
    est.train(_line_input, steps=5)
    est.evaluate(_line_input, steps=1)
    est.evaluate(_line_input, steps=1, name="other")
    found = {}
    for path in glob.glob(str(tmp_path / "**" / "events.out.tfevents*"), recursive=True):
        found[os.path.relpath(os.path.dirname(path), tmp_path)] = [
            (step, {k: round(v, 4) for k, v in values.items()})
            for step, values in read_events(path) if values]
    # TF 2.15: the loss every 2 steps from the first, the metrics at the checkpoint's step
    assert found == {".": [(1, {"loss": 10.0}), (3, {"loss": 0.625}), (5, {"loss": 0.0391})],
                     "eval": [(5, {"loss": 0.0098, "mse": 0.0098})],
                     "eval_other": [(5, {"loss": 0.0098, "mse": 0.0098})]}


class _Listener(tf.estimator.CheckpointSaverListener):
    def __init__(self, stop_at=None):
        self.seen, self.stop_at = [], stop_at

    def begin(self):
        self.seen.append("begin")

    def before_save(self, session, global_step_value):
        self.seen.append(("before", int(global_step_value)))

    def after_save(self, session, global_step_value):
        self.seen.append(("after", int(global_step_value)))
        return self.stop_at is not None and global_step_value >= self.stop_at

    def end(self, session, global_step_value):
        self.seen.append(("end", int(global_step_value)))


def test_saving_listeners_are_called_around_each_checkpoint_as_tf(tmp_path):
    est = tf.estimator.Estimator(_line_fn, str(tmp_path),
                                 tf.estimator.RunConfig(save_checkpoints_steps=2))
    first, second = _Listener(), _Listener(stop_at=4)
    est.train(_line_input, steps=5, saving_listeners=[first])
    est.train(_line_input, steps=10, saving_listeners=[second])
    # TF 2.15's calls; the second listener's True after step 7's save stops training
    assert first.seen == ["begin", ("before", 0), ("after", 0), ("before", 2), ("after", 2),
                          ("before", 4), ("after", 4), ("before", 5), ("after", 5),
                          ("end", 5)]
    assert second.seen == ["begin", ("before", 5), ("after", 5), ("before", 7), ("after", 7),
                           ("end", 7)]
    assert est.get_variable_value("global_step") == 7


def test_an_array_x_is_one_feature_and_evaluate_reads_a_given_checkpoint(tmp_path):
    def fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features, w)[:, 0]
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=pred)
        loss = tf.reduce_mean((pred - tf.cast(labels, tf.float32)) ** 2)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, predictions=pred, train_op=step)
    est = tf.estimator.Estimator(fn, str(tmp_path),
                                 tf.estimator.RunConfig(save_checkpoints_steps=1))
    est.train(tf.estimator.inputs.numpy_input_fn(X, Y, batch_size=5, shuffle=False))
    assert est.get_variable_value("global_step") == 2
    evaluation = tf.estimator.inputs.numpy_input_fn(X, Y, batch_size=10, shuffle=False)
    at_1 = est.evaluate(evaluation, checkpoint_path=str(tmp_path / "model.ckpt-1"))
    at_2 = est.evaluate(evaluation)
    assert (at_1["global_step"], at_2["global_step"]) == (1, 2)
    assert at_1["loss"] != at_2["loss"]
    first = next(est.predict(tf.estimator.inputs.numpy_input_fn(X, shuffle=False),
                             checkpoint_path=str(tmp_path / "model.ckpt-0")))
    assert first == 0.0 and first.shape == ()
