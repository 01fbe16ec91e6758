"""TF1 programs over placeholders without a shape (``tf.placeholder(tf.float32)``).

The numbers are TensorFlow 2.21's (``tensorflow.compat.v1`` with
``disable_v2_behavior``), printed by the same programs with the TF import.
"""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


@pytest.fixture
def shapeless():
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        i = tf.placeholder(tf.int32)
        feeds = {a: [[1.0, -2.0], [3.0, 4.0]], b: [[0.5, 2.0], [-1.0, 1.0]], i: [1, 0]}
        yield a, b, i, feeds


def test_recorded_calls_have_tfs_dtypes(shapeless):
    a, b, i, _ = shapeless
    got = {"cast": tf.cast(a, tf.int32), "greater": tf.greater(a, b), "gt": a > b,
           "argmax": tf.argmax(a, 1), "shape": tf.shape(a), "size": tf.size(a),
           "equal": tf.equal(a, b), "is_nan": tf.is_nan(a), "not": tf.logical_not(a > b),
           "to_int32": tf.to_int32(a), "round": tf.round(a), "floordiv": a // b,
           "one_hot": tf.one_hot(tf.cast(a, tf.int32), 3), "range": tf.range(tf.shape(a)[0]),
           "ones_like": tf.ones_like(a, dtype=tf.int32)}
    want = {"cast": "int32", "greater": "bool", "gt": "bool", "argmax": "int64",
            "shape": "int32", "size": "int32", "equal": "bool", "is_nan": "bool",
            "not": "bool", "to_int32": "int32", "round": "float32", "floordiv": "float32",
            "one_hot": "float32", "range": "int32", "ones_like": "int32"}
    assert {k: np.dtype(t.dtype).name for k, t in got.items()} == want


def test_where_cond_and_list_results_over_shapeless_placeholders(shapeless):
    a, b, i, feeds = shapeless
    fetches = {
        "where": tf.where(tf.greater(a, b), a, b),
        "where1": tf.where(a > 0),
        "cond": tf.cond(tf.reduce_sum(a) > 0, lambda: a * 2, lambda: b),
        "grad_where": tf.gradients(tf.reduce_sum(tf.where(a > b, a * a, b)), a),
        "unstack": tf.unstack(a, num=2),
        "split": tf.split(a, 2, axis=1),
        "top_k": tf.nn.top_k(a, 1).values,
    }
    with tf.Session() as sess:
        got = sess.run(fetches, feed_dict=feeds)
    want = {"where": [[1.0, 2.0], [3.0, 4.0]], "where1": [[0, 0], [1, 0], [1, 1]],
            "cond": [[2.0, -4.0], [6.0, 8.0]], "grad_where": [[[2.0, 0.0], [6.0, 8.0]]],
            "unstack": [[1.0, -2.0], [3.0, 4.0]], "split": [[[1.0], [3.0]], [[-2.0], [4.0]]],
            "top_k": [[1.0], [4.0]]}
    for key, value in want.items():
        np.testing.assert_allclose(np.asarray(got[key], dtype=float), value, err_msg=key)


def test_cond_branches_read_the_placeholders_and_their_gradients(shapeless):
    a, b, _, feeds = shapeless
    pair = tf.cond(tf.reduce_sum(a) < 0, lambda: (a * 2, b), lambda: (b * 3, a))
    assert isinstance(pair, tuple) and len(pair) == 2
    grads = tf.gradients(pair[0] + pair[1], [a, b])
    with tf.Session() as sess:
        first, second, ga, gb = sess.run([pair[0], pair[1]] + grads, feed_dict=feeds)
    np.testing.assert_allclose(first, 3 * np.array(feeds[b]))
    np.testing.assert_allclose(second, feeds[a])
    np.testing.assert_allclose(ga, np.ones((2, 2)))
    np.testing.assert_allclose(gb, 3 * np.ones((2, 2)))


def test_unstack_of_unknown_rank_needs_num(shapeless):
    a = shapeless[0]
    with pytest.raises(Exception, match="num="):
        tf.unstack(a)


def _huber_loss(labels, predictions, delta=14.0):
    residual = tf.abs(labels - predictions)

    def f1():
        return 0.5 * tf.square(residual)

    def f2():
        return delta * residual - 0.5 * tf.square(delta)
    return tf.cond(residual < delta, f1, f2)


def test_stanford_cs20_huber_regression_runs_as_in_tf():
    # CS20's linear regression with placeholders fed one sample at a time and a Huber
    # loss by tf.cond on the residual: TF prints these epoch losses and w, b
    rng = np.random.RandomState(0)
    xs = rng.uniform(0, 40, 42).astype(np.float32)
    ys = (1.5 * xs + 8 + rng.normal(0, 6, 42) + (rng.uniform(0, 1, 42) > 0.9) * 60
          ).astype(np.float32)
    with tf.Graph().as_default():
        X, Y = tf.placeholder(tf.float32, name="X"), tf.placeholder(tf.float32, name="Y")
        w = tf.get_variable("weights", initializer=tf.constant(0.0))
        b = tf.get_variable("bias", initializer=tf.constant(0.0))
        loss = _huber_loss(Y, w * X + b)
        train = tf.train.GradientDescentOptimizer(learning_rate=0.0001).minimize(loss)
        epochs = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(6):
                total = 0.0
                for x, y in zip(xs, ys):
                    _, value = sess.run([train, loss], feed_dict={X: x, Y: y})
                    total += value
                epochs.append(total / len(xs))
            w_out, b_out = sess.run([w, b])
    np.testing.assert_allclose([epochs[0], epochs[5]], [332.3530, 71.5083], rtol=1e-5)
    assert epochs[5] < epochs[0]
    np.testing.assert_allclose([w_out, b_out], [1.775838, 0.090625], rtol=1e-5)


def test_while_loops_over_and_reading_shapeless_placeholders():
    with tf.Graph().as_default():
        a, n = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
        doubled = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), [0, a])[1]
        counted = tf.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, x * 2.0), [0, a])[1]
        summed = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + tf.reduce_sum(a)),
                               [0, 0.0])[1]
        squared = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * x), (0, a))
        assert isinstance(squared, tuple)
        (grad,) = tf.gradients(tf.reduce_sum(squared[1]), a)
        with tf.Session() as sess:
            got = sess.run([doubled, counted, summed, grad], {a: [1.0, 2.0], n: 3})
    # TF 2.21: [8, 16], [8, 16], 9, [8, 1024]
    for value, want in zip(got, [[8.0, 16.0], [8.0, 16.0], 9.0, [8.0, 1024.0]]):
        np.testing.assert_allclose(value, want)


def test_cond_on_a_known_predicate_whose_branches_have_unknown_rank():
    # dropout-style switch: a bool placeholder picks between two shapeless tensors
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        training = tf.placeholder(tf.bool, shape=[])
        y = tf.cond(training, lambda: x * 0.5, lambda: tf.square(x))
        (g,) = tf.gradients(tf.reduce_sum(y), x)
        with tf.Session() as sess:
            on = sess.run([y, g], {x: [[2.0, -4.0]], training: True})
            off = sess.run([y, g], {x: [[2.0, -4.0]], training: False})
    np.testing.assert_allclose(on[0], [[1.0, -2.0]])
    np.testing.assert_allclose(on[1], [[0.5, 0.5]])
    np.testing.assert_allclose(off[0], [[4.0, 16.0]])
    np.testing.assert_allclose(off[1], [[4.0, -8.0]])


def test_map_fn_and_vectorized_map_over_shapeless_placeholders():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32)
        rows = tf.map_fn(lambda r: tf.reduce_sum(r * r) * r, a)
        (g,) = tf.gradients(tf.reduce_sum(rows), a)
        fast = tf.vectorized_map(lambda r: tf.tanh(r) * 2.0, a)
        value = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
        with tf.Session() as sess:
            got_rows, got_g, got_fast = sess.run([rows, g, fast], {a: value})
    sq = (value * value).sum(1, keepdims=True)
    np.testing.assert_allclose(got_rows, sq * value, rtol=1e-6)
    # d/dr_j sum_k(|r|^2 r_k) = 2 r_j sum_k r_k + |r|^2
    np.testing.assert_allclose(got_g, 2 * value * value.sum(1, keepdims=True) + sq, rtol=1e-6)
    np.testing.assert_allclose(got_fast, 2 * np.tanh(value), rtol=1e-6)


def test_vectorized_map_without_fallback_refuses_a_row_dependent_cond():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, -2.0], [3.0, 0.5]])
        ok = tf.vectorized_map(lambda r: r * 3.0, x, fallback_to_while_loop=False)
        looped = tf.vectorized_map(lambda r: tf.cond(r[0] > 2.0, lambda: r, lambda: -r), x)
        with pytest.raises(Exception, match="fallback_to_while_loop=True"):
            tf.vectorized_map(lambda r: tf.cond(r[0] > 2.0, lambda: r, lambda: -r), x,
                              fallback_to_while_loop=False)
        with tf.Session() as sess:
            got_ok, got_looped = sess.run([ok, looped])
    np.testing.assert_allclose(got_ok, [[3.0, -6.0], [9.0, 1.5]])
    np.testing.assert_allclose(got_looped, [[-1.0, 2.0], [3.0, 0.5]])


def test_a_size_of_a_shapeless_placeholder_in_a_shape_list():
    # tf.reshape(p, [tf.shape(p)[0], 2]): the list holds a tensor of unknown rank, so the
    # call is recorded until p is fed (TF 2.21 prints [[1. 1.] [1. 1.]])
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32)
        r = tf.reshape(p, [tf.shape(p)[0], 2])
        with tf.Session() as sess:
            assert sess.run(r, {p: np.ones((2, 2))}).tolist() == [[1.0, 1.0], [1.0, 1.0]]
            assert sess.run(r, {p: np.ones((3, 1, 2))}).shape == (3, 2)
