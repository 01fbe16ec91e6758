"""tf.losses with TF's default reduction (SUM_BY_NONZERO_WEIGHTS) and label smoothing,
against numpy written from TF's documentation (losses_impl.py)."""
import numpy as np
import pytest

from .tf1_programs import run_tf1

RNG = np.random.default_rng(11)
LABELS = RNG.uniform(size=(4, 3)).astype(np.float32)
PREDICTIONS = RNG.uniform(size=(4, 3)).astype(np.float32)
WEIGHTS = np.array([[1.0], [0.0], [2.0], [0.5]], dtype=np.float32)


def _reduce(losses, weights):
    """SUM_BY_NONZERO_WEIGHTS: the weighted sum over the count of non-zero weights."""
    w = np.broadcast_to(weights, losses.shape)
    return (losses * w).sum() / np.count_nonzero(w)


REGRESSION_LOSSES = """
import numpy as np
import tensorflow as tf
labels = tf.constant(label_values)
predictions = tf.placeholder(tf.float32, shape=[4, 3])
losses = {
    "mse": tf.losses.mean_squared_error(labels, predictions, weights=weights),
    "abs": tf.losses.absolute_difference(labels, predictions, weights=weights),
    "huber": tf.losses.huber_loss(labels, predictions, weights=weights, delta=0.3),
    "log": tf.losses.log_loss(labels, predictions, weights=weights),
    "mse_mean": tf.losses.mean_squared_error(labels, predictions),
}
total = tf.losses.get_total_loss()
grad = tf.gradients(losses["huber"], predictions)[0]
with tf.Session() as sess:
    values, total_value, grad_value = sess.run([losses, total, grad],
                                               feed_dict={predictions: prediction_values})
"""


def test_regression_losses_with_weights():
    out = run_tf1(REGRESSION_LOSSES, label_values=LABELS, prediction_values=PREDICTIONS,
                  weights=WEIGHTS)
    e = PREDICTIONS.astype(np.float64) - LABELS
    a = np.abs(e)
    huber = np.where(a <= 0.3, 0.5 * e ** 2, 0.3 * (a - 0.15))
    log = -LABELS * np.log(PREDICTIONS + 1e-7) - (1 - LABELS) * np.log(1 - PREDICTIONS + 1e-7)
    expected = {"mse": _reduce(e ** 2, WEIGHTS), "abs": _reduce(a, WEIGHTS),
                "huber": _reduce(huber, WEIGHTS), "log": _reduce(log, WEIGHTS),
                "mse_mean": np.mean(e ** 2)}
    for key, value in expected.items():
        assert out["values"][key] == pytest.approx(value, rel=1e-5), key
    assert out["total_value"] == pytest.approx(sum(expected.values()), rel=1e-5)
    w = np.broadcast_to(WEIGHTS, e.shape)       # d huber/d e = clip(e, -delta, delta)
    np.testing.assert_allclose(out["grad_value"], np.clip(e, -0.3, 0.3) * w / 9, rtol=1e-5)


def test_all_weights_zero_gives_zero_and_reductions():
    import symgrad.compat.v1 as tf
    loss = tf.losses.absolute_difference([1.0, 2.0], [3.0, 5.0], weights=0.0)
    assert loss.numpy() == 0.0
    r = tf.losses.Reduction
    per = tf.losses.absolute_difference([1.0, 2.0], [3.0, 5.0], weights=[1.0, 3.0],
                                        reduction=r.NONE)
    np.testing.assert_allclose(per.numpy(), [2.0, 9.0])
    for reduction, expected in [(r.SUM, 11.0), (r.MEAN, 11.0 / 4), (r.SUM_OVER_BATCH_SIZE, 5.5)]:
        loss = tf.losses.absolute_difference([1.0, 2.0], [3.0, 5.0], weights=[1.0, 3.0],
                                             reduction=reduction)
        assert loss.numpy() == pytest.approx(expected)
    with pytest.raises(ValueError, match="Invalid Reduction Key"):
        tf.losses.absolute_difference([1.0], [2.0], reduction="mean")


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


CLASSIFIER = """
import numpy as np
import tensorflow as tf
logits = tf.Variable(logit_values)
onehot = tf.one_hot(class_ids, depth=4)
softmax_loss = tf.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.2)
sparse_loss = tf.losses.sparse_softmax_cross_entropy(class_ids, logits, weights=[1.0, 0.0, 2.0])
sigmoid_loss = tf.losses.sigmoid_cross_entropy(onehot, logits, label_smoothing=0.1)
grads = tf.gradients(softmax_loss, [logits, onehot])
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    soft, sparse, sig, d_logits = sess.run([softmax_loss, sparse_loss, sigmoid_loss, grads[0]])
"""


def test_classification_losses_with_label_smoothing():
    z = RNG.normal(size=(3, 4)).astype(np.float32)
    ids = np.array([0, 3, 1], dtype=np.int32)
    out = run_tf1(CLASSIFIER, logit_values=z, class_ids=ids)
    onehot = np.eye(4)[ids]
    smooth = onehot * 0.8 + 0.2 / 4                     # TF: (1 - s) y + s / num_classes
    ce = -(smooth * _log_softmax(z.astype(np.float64))).sum(axis=1)
    assert out["soft"] == pytest.approx(ce.mean(), rel=1e-5)
    sparse = -_log_softmax(z.astype(np.float64))[np.arange(3), ids]
    assert out["sparse"] == pytest.approx((sparse[0] + 2 * sparse[2]) / 2, rel=1e-5)
    ys = onehot * 0.9 + 0.05                             # TF: (1 - s) y + s / 2
    sig = np.maximum(z, 0) - z * ys + np.log1p(np.exp(-np.abs(z)))
    assert out["sig"] == pytest.approx(sig.mean(), rel=1e-5)
    p = np.exp(_log_softmax(z.astype(np.float64)))
    np.testing.assert_allclose(out["d_logits"], (p - smooth) / 3, rtol=1e-4, atol=1e-7)
    assert out["grads"][1] is None                      # no gradient into one-hot labels


def test_losses_on_unknown_batch_sizes_run_as_tf1_programs_write_them():
    # labels and predictions from two [None, 1] tensors: TF's shapes are compatible.
    import symgrad.compat.v1 as tf
    rng = np.random.RandomState(3)
    X = rng.randn(6, 2).astype(np.float32)
    Y = rng.randn(6, 1).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape=[None, 2])
        y = tf.placeholder(tf.float32, shape=[None, 1])
        W = tf.Variable(np.ones((2, 1), np.float32))
        pred = tf.matmul(x, W)
        mse = tf.losses.mean_squared_error(y, pred)
        per_batch = tf.losses.mean_squared_error(
            y, pred, reduction=tf.losses.Reduction.SUM_OVER_BATCH_SIZE)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([mse, per_batch], {x: X, y: Y})
    want = np.mean((X @ np.ones((2, 1), np.float32) - Y) ** 2)
    np.testing.assert_allclose(got, [want, want], rtol=1e-5)
