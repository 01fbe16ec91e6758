"""``tf.contrib.seq2seq.sequence_loss`` and ``tf.contrib.legacy_seq2seq``'s losses.

Oracle: TF 2.21 (``tensorflow.compat.v1``), which has no ``tf.contrib``: the numbers
below are TF 1.15's formulas (``contrib/seq2seq/python/ops/loss.py``,
``legacy_seq2seq``) written with TF's core ops and run there, on the same logits,
targets and a mask with padding and an all-zero row.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

B, T, C = 3, 4, 5


@pytest.fixture
def data():
    rng = np.random.RandomState(15)
    logits = rng.randn(B, T, C).astype(np.float32)
    targets = rng.randint(0, C, (B, T)).astype(np.int32)
    weights = np.ones((B, T), np.float32)
    weights[0, 2:] = 0
    weights[2, :] = 0
    with tf.Graph().as_default():
        yield tf.constant(logits), tf.constant(targets), tf.constant(weights)


# (average_across_timesteps, average_across_batch, sum_over_timesteps, sum_over_batch)
CASES = [((True, True, False, False), 1.662984),
         ((False, True, False, False), [1.954238, 1.799996, 2.173031, 0.296408]),
         ((True, False, False, False), [1.949537, 1.519709, 0.0]),
         ((False, False, False, False), [[1.345962, 2.553111, 0.0, 0.0],
                                         [2.562514, 1.04688, 2.173031, 0.296408],
                                         [0.0, 0.0, 0.0, 0.0]]),
         ((False, False, True, True), 1.662984),
         ((False, False, True, False), [1.949537, 1.519709, 0.0]),
         ((False, False, False, True), [1.954238, 1.799996, 2.173031, 0.296408])]


@pytest.mark.parametrize("flags,want", CASES)
def test_sequence_loss_reduces_as_tf(data, flags, want):
    logits, targets, weights = data
    at, ab, st, sb = flags
    loss = tf.contrib.seq2seq.sequence_loss(
        logits, targets, weights, average_across_timesteps=at, average_across_batch=ab,
        sum_over_timesteps=st, sum_over_batch=sb)
    with tf.Session() as sess:
        got = sess.run(loss)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)


def test_legacy_losses_over_lists_of_time_steps(data):
    logits, targets, weights = data
    steps = [tf.unstack(v, axis=1) for v in data]
    per_example = tf.contrib.legacy_seq2seq.sequence_loss_by_example(*steps)
    summed = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        *steps, average_across_timesteps=False)
    loss = tf.contrib.legacy_seq2seq.sequence_loss(*steps)
    with tf.Session() as sess:
        got = sess.run([per_example, summed, loss])
    np.testing.assert_allclose(got[0], [1.949537, 1.519709, 0.0], rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[1], [3.899074, 6.078834, 0.0], rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], 1.156415, rtol=2e-6)
    with pytest.raises(ValueError, match="Lengths of logits, weights, and targets"):
        tf.contrib.legacy_seq2seq.sequence_loss_by_example(steps[0], steps[1][:2], steps[2])


def test_bad_ranks_and_flags_are_refused_as_tf_does(data):
    logits, targets, weights = data
    with pytest.raises(ValueError, match="Logits must be"):
        tf.contrib.seq2seq.sequence_loss(logits[0], targets, weights)
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        tf.contrib.seq2seq.sequence_loss(logits, targets, weights, sum_over_timesteps=True)


def test_a_char_rnn_trains_on_it():
    """The char-RNN idiom: dynamic_rnn, a dense layer over [B * T, H], sequence_loss; its
    gradient against central differences of the loss."""
    rng = np.random.RandomState(3)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2, 3, 4])
        y = tf.placeholder(tf.int32, [2, 3])
        w = tf.Variable(rng.randn(4, 6) * 0.5)
        logits = tf.reshape(tf.matmul(tf.reshape(tf.tanh(x), [-1, 4]), w), [2, 3, 6])
        loss = tf.contrib.seq2seq.sequence_loss(logits, y, tf.ones([2, 3], tf.float64))
        (g,) = tf.gradients(loss, [w])
        feed = {x: rng.randn(2, 3, 4), y: rng.randint(0, 6, (2, 3))}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            grad, w0 = sess.run([g, w], feed)
            fd = np.zeros_like(w0)
            for idx in np.ndindex(*w0.shape):
                for sign in (1, -1):
                    moved = w0.copy()
                    moved[idx] += sign * 1e-6
                    w.load(moved, sess)
                    fd[idx] += sign * sess.run(loss, feed) / 2e-6
        np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
