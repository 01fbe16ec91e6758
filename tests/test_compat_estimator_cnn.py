"""tf.estimator.Estimator around the tf.layers MNIST-style CNN of TF 1.x's tutorial
(on small random images), fed by a tf.data input_fn that takes params and mode, with a
RunConfig; and the errors TF gives for bad model_fns and inputs.  Numbers from TF 2.15
(tensorflow-cpu 2.15.1) running the same program with ``import tensorflow.compat.v1
as tf``; constant initializers make both start from the same weights."""
import logging

import numpy as np
import pytest

import symgrad.compat.v1 as tf

from .test_compat_estimator import _line_fn

IMG = np.random.RandomState(0).rand(12, 8, 8, 1).astype(np.float32)
LAB = (np.arange(12) % 3).astype(np.int64)


def input_fn(params, mode):
    ds = tf.data.Dataset.from_tensor_slices(({"img": IMG}, LAB))
    if mode == tf.estimator.ModeKeys.TRAIN:
        ds = ds.repeat(params["epochs"])
    return ds.batch(params["batch"])


def cnn_fn(features, labels, mode, params, config):
    x = tf.reshape(features["img"], [-1, 8, 8, 1])
    c = tf.layers.conv2d(x, 2, [3, 3], padding="same", activation=tf.nn.relu,
                         kernel_initializer=tf.constant_initializer(0.2), name="conv1")
    p = tf.layers.max_pooling2d(c, [2, 2], 2)
    f = tf.reshape(p, [-1, 4 * 4 * 2])
    d = tf.layers.dropout(f, rate=0.0, training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf.layers.dense(d, 3, kernel_initializer=tf.zeros_initializer(), name="out")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=tf.argmax(logits, 1))
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    metrics = {"acc": tf.metrics.accuracy(labels, tf.argmax(logits, 1)),
               "mean_logit": tf.metrics.mean(logits)}
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                      eval_metric_ops=metrics)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("cnn"))
    cfg = tf.estimator.RunConfig(model_dir=model_dir, log_step_count_steps=2,
                                 save_checkpoints_steps=3, tf_random_seed=1)
    est = tf.estimator.Estimator(cnn_fn, config=cfg, params={"epochs": 2, "batch": 5})
    logger, lines = logging.getLogger("tensorflow"), []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())
    logger.addHandler(handler)
    old = logger.level
    logger.setLevel(logging.INFO)
    try:
        before = est.evaluate(input_fn)
        est.train(input_fn)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old)
    return est, before, lines


def test_config_and_params_reach_the_estimator(run):
    est, _, _ = run
    assert (est.config.save_checkpoints_steps, est.config.save_checkpoints_secs) == (3, None)
    assert est.params == {"epochs": 2, "batch": 5}
    assert est.model_dir == est.config.model_dir


def test_evaluating_before_training_initialises(run):
    _, before, _ = run
    # TF 2.15: "running initialization to evaluate", acc 1/3, loss log(3), global_step 0
    assert before["global_step"] == 0 and before["mean_logit"] == 0.0
    assert before["acc"] == pytest.approx(1 / 3) and before["loss"] == pytest.approx(np.log(3))


def test_training_logs_and_saves_as_tf_does(run):
    est, _, lines = run
    # TF 2.15's log lines (its numpy prints the last loss 1.1221689)
    losses = [line for line in lines if line.startswith("loss = ")]
    assert losses[:2] == ["loss = 1.0986123, step = 1", "loss = 1.1962459, step = 3"]
    assert losses[2].startswith("loss = 1.12216") and losses[2].endswith("step = 5")
    saved = [line for line in lines if line.startswith("Saving checkpoints for")]
    assert [s.split()[3] for s in saved] == ["0", "3", "5"]   # TF's model.ckpt-0, -3, -5
    state = tf.train.get_checkpoint_state(est.model_dir)
    assert [p.rsplit("-", 1)[1] for p in state.all_model_checkpoint_paths] == ["0", "3", "5"]
    assert est.latest_checkpoint().endswith("model.ckpt-5")


def test_adam_s_slots_are_saved_under_tf_s_names(run):
    est, _, _ = run
    assert est.get_variable_names() == [
        "beta1_power", "beta2_power", "conv1/bias", "conv1/bias/Adam", "conv1/bias/Adam_1",
        "conv1/kernel", "conv1/kernel/Adam", "conv1/kernel/Adam_1", "global_step",
        "out/bias", "out/bias/Adam", "out/bias/Adam_1", "out/kernel", "out/kernel/Adam",
        "out/kernel/Adam_1"]
    np.testing.assert_allclose(est.get_variable_value("out/bias"),
                               [0.002688, 0.00383, 0.004878], atol=2e-6)


def test_evaluate_and_predict_after_training(run):
    est, _, _ = run
    result = est.evaluate(input_fn)
    # TF 2.15: acc = 0.5833333, global_step = 5, loss = 1.082323, mean_logit = 0.065936536
    assert sorted(result) == ["acc", "global_step", "loss", "mean_logit"]
    assert result["acc"] == pytest.approx(7 / 12) and result["global_step"] == 5
    assert result["loss"] == pytest.approx(1.082323, abs=2e-6)
    assert result["mean_logit"] == pytest.approx(0.065936536, abs=2e-7)
    assert [int(p) for p in est.predict(input_fn)] == [2, 1, 2, 1, 1, 2, 2, 2, 2, 2, 1, 2]
    batches = est.predict(input_fn, yield_single_examples=False)
    assert [b.shape for b in batches] == [(5,), (5,), (2,)]


_fn = _line_fn   # (a one-weight line: the model_fn the error cases need)


X = np.array([1.0, 2.0], np.float32)
# TF 2.15 raises ValueError with these messages for each of these calls
ERRORS = [
    (lambda: tf.estimator.Estimator(lambda inputs, labels: None), "must include features"),
    (lambda: tf.estimator.Estimator(_fn, params={"a": 1}), "does not include params"),
    (lambda: tf.estimator.Estimator(lambda features, labels, extra: None),
     r"following not expected args: \['extra'\]"),
    (lambda: tf.estimator.Estimator(_fn).train(lambda: (X, X), steps=1, max_steps=2),
     "Can not provide both steps and max_steps"),
    (lambda: tf.estimator.Estimator(_fn).train(lambda: (X, X), steps=0),
     "Must specify steps > 0, given: 0"),
    (lambda: tf.estimator.Estimator(lambda features, labels: 3).train(
        lambda: (tf.constant(X), tf.constant(X)), steps=1), "should return an EstimatorSpec"),
    (lambda: tf.estimator.Estimator(_fn).train(
        lambda: (tf.constant(X), tf.constant(X), 1), steps=1), "len 2 tuple"),
    (lambda: tf.estimator.Estimator(lambda features, mode: None).train(
        lambda: (tf.constant(X), tf.constant(X)), steps=1), "does not take labels"),
    (lambda: tf.estimator.EstimatorSpec("train", loss=tf.constant(1.0)), "Missing train_op"),
    (lambda: tf.estimator.EstimatorSpec("eval"), "Missing loss"),
    (lambda: tf.estimator.EstimatorSpec("infer"), "Missing predictions"),
    (lambda: tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1),
     "save_checkpoints_steps"),
    (lambda: tf.estimator.Estimator(_fn, config={}), "must be an instance of RunConfig"),
    (lambda: tf.estimator.Estimator(_fn, model_dir="/tmp/a1",
                                    config=tf.estimator.RunConfig(model_dir="/tmp/b1")),
     "different values"),
    (lambda: tf.estimator.Estimator(_fn).get_variable_value("w"),
     "Could not find trained model"),
    (lambda: tf.estimator.Estimator(_fn).evaluate(lambda: (X, X), steps=0),
     "Must specify steps > 0"),
    (lambda: tf.estimator.inputs.numpy_input_fn({"a": X}), "shuffle must be provided"),
    (lambda: tf.estimator.inputs.numpy_input_fn({"a": X}, np.ones(3), shuffle=False)(),
     r"Shapes in x: \{'a': \(2,\)\}\nShapes in y: \(3,\)"),
]


@pytest.mark.parametrize("call, message", ERRORS)
def test_bad_model_fns_and_inputs_raise_tf_s_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_an_input_fn_that_is_not_a_function_or_a_bad_hook_says_what_to_do():
    est = tf.estimator.Estimator(_fn)
    with pytest.raises(TypeError, match="input_fn must be a function"):
        est.train((X, X), steps=1)
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook instances"):
        est.train(lambda: (tf.constant(X), tf.constant(X)), steps=1, hooks=[print])


def mnist_model_fn(features, labels, mode):
    """The model_fn of TF 1.x's "Build a CNN with tf.layers" tutorial, on 8x8 images."""
    input_layer = tf.reshape(features["x"], [-1, 8, 8, 1])
    conv1 = tf.layers.conv2d(inputs=input_layer, filters=4, kernel_size=[3, 3],
                             padding="same", activation=tf.nn.relu)
    pool1 = tf.layers.max_pooling2d(inputs=conv1, pool_size=[2, 2], strides=2)
    flat = tf.reshape(pool1, [-1, 4 * 4 * 4])
    dense = tf.layers.dense(inputs=flat, units=16, activation=tf.nn.relu)
    dropout = tf.layers.dropout(inputs=dense, rate=0.4,
                                training=mode == tf.estimator.ModeKeys.TRAIN)
    logits = tf.layers.dense(inputs=dropout, units=3)
    predictions = {"classes": tf.argmax(input=logits, axis=1),
                   "probabilities": tf.nn.softmax(logits, name="softmax_tensor")}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)
    loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.1)
        train_op = optimizer.minimize(loss=loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
    eval_metric_ops = {"accuracy": tf.metrics.accuracy(labels=labels,
                                                       predictions=predictions["classes"])}
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=eval_metric_ops)


def test_the_tf_layers_mnist_tutorial_logs_named_tensors_and_evaluates(caplog):
    rng = np.random.RandomState(0)
    labels = np.repeat(np.arange(3), 10).astype(np.int32)
    data = (rng.rand(30, 64) * 0.5 + np.eye(4)[labels].repeat(16, axis=1)).astype(np.float32)
    classifier = tf.estimator.Estimator(model_fn=mnist_model_fn,
                                        config=tf.estimator.RunConfig(tf_random_seed=0))
    hook = tf.train.LoggingTensorHook(tensors={"probabilities": "softmax_tensor"},
                                      every_n_iter=5)
    train_input_fn = tf.estimator.inputs.numpy_input_fn(
        x={"x": data}, y=labels, batch_size=10, num_epochs=None, shuffle=True)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        classifier.train(input_fn=train_input_fn, steps=10, hooks=[hook])
    logged = [r.getMessage() for r in caplog.records]
    assert sum(m.startswith("probabilities = [[") for m in logged) == 2   # steps 1 and 6
    eval_input_fn = tf.estimator.inputs.numpy_input_fn(x={"x": data}, y=labels,
                                                       num_epochs=1, shuffle=False)
    result = classifier.evaluate(input_fn=eval_input_fn)
    # TF 2.15 gives these keys in this order
    assert list(result) == ["accuracy", "loss", "global_step"] and result["global_step"] == 10
