"""tf.math's xlogy family and other small functions, against TensorFlow 2.21's numbers
(``tensorflow.compat.v1``): values, then gradients of sum(out * [1, 2, ...]) per input."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

X = [0.0, 0.0, 2.0, -1.5, 3.0]
Y = [0.0, 2.0, 0.5, 4.0, 0.0]
INF = np.inf

CASES = {
    "xlogy": (tf.math.xlogy, [X, Y], [
        [0.0, 0.0, -1.38629, -2.07944, -INF], [0.0, 0.0, -2.07944, 5.54518, -INF],
        [0.0, 0.0, 12.0, -1.5, INF]]),
    "xlog1py": (tf.math.xlog1py, [X, Y], [
        [0.0, 0.0, 0.81093, -2.41416, 0.0], [0.0, 0.0, 1.2164, 6.43775, 0.0],
        [0.0, 0.0, 4.0, -1.2, 15.0]]),
    "xdivy": (tf.math.xdivy, [X, Y], [
        [0.0, 0.0, 4.0, -0.375, INF], [0.0, 0.0, 6.0, 1.0, INF], [0.0, 0.0, -24.0, 0.375, -INF]]),
    "multiply_no_nan": (tf.math.multiply_no_nan, [[1.0, INF, 2.0, np.nan, 3.0], Y], [
        [0.0, INF, 1.0, np.nan, 0.0], [0.0, 4.0, 1.5, 16.0, 0.0], [1.0, INF, 6.0, np.nan, 15.0]]),
    "reciprocal_no_nan": (tf.math.reciprocal_no_nan, [[0.0, 2.0, -4.0]], [
        [0.0, 0.5, -0.25], [0.0, -0.5, -0.1875]]),
    "accumulate_n": (lambda a, b: tf.math.accumulate_n([a, b, a]), [[1.0, 2.0], [3.0, 4.0]], [
        [5.0, 8.0], [2.0, 4.0], [1.0, 2.0]]),
    "scalar_mul": (lambda a: tf.scalar_mul(3.0, a), [[1.0, 2.0]], [[3.0, 6.0], [3.0, 6.0]]),
    "conj": (tf.conj, [[1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0]]),
    "polyval": (lambda x: tf.math.polyval([tf.constant(2.0), tf.constant(-1.0),
                                           tf.constant(3.0)], x),
                [[0.5, 2.0]], [[3.0, 9.0], [1.0, 14.0]]),
    "cumulative_logsumexp": (lambda x: tf.math.cumulative_logsumexp(x, axis=0),
                             [[1.0, 2.0, 3.0]], [[1.0, 2.31326, 3.40761],
                                                 [1.80797, 2.1963, 1.99572]]),
    "cumulative_logsumexp_reverse": (
        lambda x: tf.math.cumulative_logsumexp(x, axis=1, reverse=True), [[[1.0, 2.0, 30.0]]],
        [[[30.0, 30.0, 30.0]], [[0.0, 0.0, 6.0]]]),
    "softsign": (tf.math.softsign, [[1.0, -2.0]], [[0.5, -0.66667], [0.25, 0.22222]]),
    "add_n": (lambda a, b: tf.math.add_n([a, b]), [[1.0, 2.0], [3.0, 4.0]],
              [[4.0, 6.0], [1.0, 2.0], [1.0, 2.0]]),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_values_and_gradients_match_tf(key):
    fn, args, want = CASES[key]
    with tf.Graph().as_default():
        ts = [tf.constant(a, dtype=tf.float32) for a in args]
        out = fn(*ts)
        weights = tf.constant(np.arange(1.0, 1.0 + np.size(args[0])).reshape(np.shape(args[0])),
                              dtype=tf.float32)
        grads = tf.gradients(tf.reduce_sum(out * weights), ts)
        with tf.Session() as sess:
            got = sess.run([out] + grads)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_integer_and_test_functions_match_tf():
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
        lb = tf.lbeta(x)
        fetches = [tf.invert_permutation(tf.constant([3, 4, 0, 2, 1])),
                   tf.truncatediv(tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])),
                   tf.truncatemod(tf.constant([7, -7, 7, -7]), tf.constant([2, 2, -2, -2])),
                   tf.math.is_non_decreasing(tf.constant([1.0, 1.0, 2.0])),
                   tf.math.is_strictly_increasing(tf.constant([1.0, 1.0, 2.0])),
                   tf.math.is_strictly_increasing(tf.constant([[1.0, 2.0], [3.0, 4.0]])),
                   tf.math.is_non_decreasing(tf.constant([3.0, 1.0])),
                   lb, tf.gradients(tf.reduce_sum(lb * tf.constant([1.0, 2.0])), x)[0]]
        with tf.Session() as sess:
            got = sess.run(fetches)
    assert got[0].tolist() == [2, 4, 3, 0, 1]
    assert got[1].tolist() == [3, -3, -3, 3] and got[2].tolist() == [1, -1, 1, -1]
    assert [bool(v) for v in got[3:7]] == [True, False, True, False]
    np.testing.assert_allclose(got[7], [-4.09434, -0.24156], rtol=1e-4)
    np.testing.assert_allclose(got[8], [[-2.28333, -1.28333, -0.78333],
                                        [-6.93926, -6.93926, -0.5]], rtol=1e-4)
