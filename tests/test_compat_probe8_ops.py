"""Round-8 probe: TF1 math and linalg names that real programs call, composed in
``compat.math_extra`` (and ``math_more``), against TensorFlow 2.21's numbers (compat.v1)."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_math_extras_values_and_gradients():
    with tf.Graph().as_default():
        x = tf.constant([-3.0, -0.5, 0.0, 0.7, 2.0])
        y = tf.constant([0.0, 2.0, 0.0, 0.5, 3.0])
        outs = [tf.math.asinh(x), tf.math.atanh(x / 4), tf.math.acosh(tf.abs(x) + 1),
                tf.math.xlogy(y, tf.abs(x)), tf.math.multiply_no_nan(1.0 / x, y),
                tf.math.polyval([2.0, -1.0, 0.5], x), tf.math.reduce_euclidean_norm(x),
                tf.linalg.matvec(tf.reshape(tf.range(10.0), [2, 5]), x),
                tf.clip_by_average_norm(x, 0.3), tf.math.scalar_mul(3.0, x)]
        wm = tf.nn.weighted_moments(tf.reshape(x, [1, 5]), [1],
                                    tf.constant([[1.0, 2.0, 0.0, 1.0, 3.0]]))
        nm = tf.nn.normalize_moments(4.0, tf.constant(6.0), tf.constant(20.0), None)
        grads = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs[:7]]), [x, y])
        with tf.Session() as sess:
            o, w, n, g = sess.run([outs, wm, nm, grads])
            ui = sess.run(tf.unravel_index([5, 7, 0], [2, 4]))
            xor = sess.run(tf.math.logical_xor([True, False, True], [True, True, False]))
            shapes = sess.run(tf.shape_n([x, tf.zeros([2, 3])]))
            avg = sess.run(tf.nn.compute_average_loss(x, global_batch_size=10))
            sums = sess.run([tf.math.add_n([x, y]), tf.math.accumulate_n([x, y]),
                             tf.linalg.tensordot(x, y, 1)])
    expect = [[-1.818446, -0.481212, 0.0, 0.652667, 1.443636],
              [-0.972955, -0.125657, 0.0, 0.17682, 0.549306],
              [2.063437, 0.962424, 0.0, 1.123231, 1.762747],
              [0.0, -1.386294, 0.0, -0.178337, 2.079442], [0.0, -4.0, 0.0, 0.714286, 1.5],
              [21.5, 1.5, 0.5, 0.78, 6.5], 3.706751, [9.6, 5.6],
              [-1.214001, -0.202334, 0.0, 0.283267, 0.809334], [-9.0, -1.5, 0.0, 2.1, 6.0]]
    for got, want in zip(o, expect):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w, [[0.385714], [2.992653]], rtol=1e-5)
    assert n == (1.5, 2.75) and avg == pytest.approx(-0.08)
    # TF's gradients: multiply_no_nan gives y the factor x even where y is 0 (inf here)
    np.testing.assert_allclose(g[0], [-13.179877, -14.880921, np.nan, 3.487245, 9.423656],
                               rtol=1e-5)
    np.testing.assert_allclose(g[1], [-0.333333, -2.693147, np.inf, 1.071896, 1.193147],
                               rtol=1e-5)
    assert ui.tolist() == [[1, 1, 0], [1, 3, 0]] and xor.tolist() == [False, True, True]
    assert [s.tolist() for s in shapes] == [[5], [2, 3]]
    assert sums[0].tolist() == sums[1].tolist()
    np.testing.assert_allclose(sums[0], [-3.0, 1.5, 0.0, 1.2, 5.0])
    assert sums[2] == pytest.approx(5.35)


def test_unravel_index_takes_dims_known_at_run_time():
    with tf.Graph().as_default():
        dims = tf.placeholder(tf.int32, [2])
        coords = tf.unravel_index([5, 7, 0], dims)
        with tf.Session() as sess:
            got = sess.run(coords, {dims: [2, 4]})
    assert got.tolist() == [[1, 1, 0], [1, 3, 0]]   # TF 2.21 (numpy's unravel_index)


def test_weighted_cross_entropy_gradient_at_zero_logits_is_tfs():
    # TF writes softplus(-x) as log1p(exp(-|x|)) + relu(-x): at x = 0 the gradient is 1 - z
    with tf.Graph().as_default():
        logits = tf.constant([[100.0, 0.0, -100.0], [1.0, 2.0, 3.0], [-50.0, 50.0, 0.0]])
        labels = tf.constant([[1.0, 0.0, 0.0], [0.2, 0.3, 0.5], [0.0, 0.0, 1.0]])
        loss = tf.nn.weighted_cross_entropy_with_logits(labels, logits, 2.0)
        grad = tf.gradients(tf.reduce_sum(loss), logits)[0]
        with tf.Session() as sess:
            value, g = sess.run([loss, grad])
    np.testing.assert_allclose(value, [[0.0, 0.693147, 0.0], [1.175914, 1.565006, 1.572881],
                                       [0.0, 50.0, 1.386294]], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(g, [[0.0, 1.0, 0.0], [0.47727, 0.545036, 0.428861],
                                   [0.0, 1.0, 0.0]], rtol=1e-5, atol=1e-7)


def test_array_and_nn_extras():
    with tf.Graph().as_default():
        x = tf.constant([[-300.0, 12.7, 300.0, -1.5]])
        seq = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 6, 2) *
                          np.array([1, -1], np.float32))
        w = tf.constant([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0], [1.0, 1.0]])
        ss = tf.nn.sufficient_statistics(seq, [0, 1], shift=tf.constant([1.0, 2.0]))
        out = [tf.saturate_cast(x, tf.uint8), tf.saturate_cast(x, tf.int8),
               tf.saturate_cast(tf.constant([70000, -5]), tf.int16), tf.reverse_v2(seq, [1])[0, :2],
               tf.nn.relu_layer(x / 100, w, tf.constant([0.1, -3.0])),
               tf.nn.max_pool1d(seq, 3, 2, "SAME"), tf.nn.avg_pool1d(seq, 4, 1, "VALID"),
               ss[0], ss[1], ss[2], tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]),
               tf.nn.sufficient_statistics(seq, [1], keep_dims=True)[1]]
        g = tf.gradients(tf.reduce_sum(out[5]) + tf.reduce_sum(out[6]) + tf.reduce_sum(out[8]),
                         seq)[0]
        with tf.Session() as sess:
            o, gv = sess.run([out, g])
    expect = [[[0, 12, 255, 0]], [[-128, 12, 127, -1]], [32767, -5], [[10.0, -11.0], [8.0, -9.0]],
              [[0.0, 3.239]], [[[4.0, -1.0], [8.0, -5.0], [10.0, -9.0]],
                               [[16.0, -13.0], [20.0, -17.0], [22.0, -21.0]]],
              [[[3.0, -4.0], [5.0, -6.0], [7.0, -8.0]], [[15.0, -16.0], [17.0, -18.0],
                                                         [19.0, -20.0]]],
              12.0, [120.0, -168.0], [1772.0, 2924.0], [2, 4, 3],
              [[[30.0, -36.0]], [[102.0, -108.0]]]]
    for got, want in zip(o, expect):   # (TF 2.21's values)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert o[0].dtype == np.uint8 and o[2].dtype == np.int16
    np.testing.assert_allclose(gv[0], [[1.25, 2.25], [1.5, 1.5], [2.75, 2.75], [1.75, 1.75],
                                       [2.5, 2.5], [2.25, 1.25]])
    assert str(tf.broadcast_static_shape(tf.TensorShape([None, 1, 3]),
                                         tf.TensorShape([4, 1]))) == "(?, 4, 3)"
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting.*Received: "
                                         "\\(2, 3\\) and \\(4,\\)"):
        tf.broadcast_static_shape(tf.TensorShape([2, 3]), tf.TensorShape([4]))
