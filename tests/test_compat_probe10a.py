"""What the tenth differential probe (round a: Hvass-Labs, nlintz, golbin and
MorvanZhou's TF1 tutorials, Géron's Hands-On ML 1st edition) found, against real
TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np

import symgrad.compat.v1 as tf


def test_seeded_dropout_of_a_seeded_dropout_with_a_fed_keep_prob():
    # nlintz's modern net: dropout(relu(matmul(dropout(X, p_keep), w)), p_keep) with
    # p_keep = tf.placeholder("float"); 1 - p_keep had an unknown shape, so the outer
    # dropout lost x's shape and drew its own mask instead of TF's
    with tf.Graph().as_default():
        x = tf.placeholder("float", [None, 3])
        keep = tf.placeholder("float")
        out = tf.nn.dropout(tf.nn.dropout(x, keep, seed=1), keep, seed=2)
        assert out.shape.as_list() == [None, 3]
        value = tf.Session().run(out, {x: np.ones((4, 3)), keep: 0.5})
    # TF 2.21
    np.testing.assert_array_equal(value, [[0, 4, 0], [0, 0, 0], [0, 0, 0], [4, 4, 0]])


def test_layers_dropout_draws_no_mask_in_runs_that_do_not_train():
    # Géron ch. 11: tf.layers.dropout(X, 0.5, training=training) with training a
    # placeholder_with_default(False); TF chooses by tf.cond, so evaluation runs leave
    # the seeded mask's stream where it was (the mask was drawn in every run before)
    with tf.Graph().as_default():
        training = tf.placeholder_with_default(False, shape=(), name="training")
        d = tf.layers.dropout(tf.ones([2, 4]), 0.5, training=training, seed=1)
        with tf.Session() as sess:
            first = sess.run(d, {training: True})
            assert (sess.run(d) == 1).all() and (sess.run(d) == 1).all()
            second = sess.run(d, {training: True})
    # TF 2.21
    np.testing.assert_array_equal(first, [[0, 2, 0, 0], [2, 0, 0, 0]])
    np.testing.assert_array_equal(second, [[0, 2, 2, 0], [0, 2, 0, 0]])
