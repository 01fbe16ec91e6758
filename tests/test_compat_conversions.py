"""TF1's conversions in compat.v1: numpy values, Python defaults, results made from
Python values alone, tensors as indices, and the small result types TF1 code reads."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

from .tf1_programs import run_tf1


def test_numpy_numbers_take_the_dtype_of_the_tf1_tensor_beside_them():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    w = tf.ones([3, 1]) / np.sqrt(3.0)
    scaled = tf.ones([2]) * np.float64(2.0)
    shifted = np.array([1.0, 2.0]) + tf.ones([2])
    counts = tf.ones([2], tf.int32) + np.array([1, 2])
    with tf.Session() as sess:
        value = sess.run(tf.matmul(tf.ones([1, 3]), w))
    """)
    assert [out[k].dtype for k in ("w", "scaled", "shifted", "counts")] == \
        [np.float32, np.float32, np.float32, np.int32]
    assert out["value"][0, 0] == pytest.approx(np.sqrt(3.0), rel=1e-6)


def test_python_values_take_tf_defaults_in_fill_and_placeholder_with_default():
    with tf.Graph().as_default():
        assert tf.fill([3], 1.0 / 3).dtype == np.float32
        assert tf.fill([3], 2).dtype == np.int32
        s = tf.placeholder_with_default(2.0, shape=[])
        assert (s.dtype, s.name) == (np.float32, "PlaceholderWithDefault:0")
        with tf.Session() as sess:
            assert sess.run(tf.constant(1.5) * s) == 3.0
            assert sess.run(tf.constant(1.5) * s, {s: 4.0}) == 6.0


def test_results_made_from_python_values_are_tf1_tensors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        made = [tf.range(3), tf.eye(2), tf.linspace(0.0, 1.0, 3), tf.fill([2], 1.0),
                tf.one_hot([1, 0], 3), tf.range(tf.shape(x)[0]),
                tf.nn.top_k(tf.constant([3.0, 1.0, 2.0]), 2).values]
        for t in made:
            assert t.name.endswith(":0"), t
            assert isinstance(t.shape.as_list(), list)


def test_top_k_result_has_tfs_field_names_and_in_top_k_takes_a_list():
    with tf.Graph().as_default():
        result = tf.nn.top_k(tf.constant([[3.0, 1.0, 2.0]]), k=2)
        values, indices = result
        hit = tf.nn.in_top_k(tf.constant([[0.1, 0.9, 0.0], [0.8, 0.1, 0.1]]), [1, 2], 1)
        with tf.Session() as sess:
            v, i, h = sess.run([result.values, result.indices, hit])
        assert values is result.values and indices is result.indices
        assert v.tolist() == [[3.0, 2.0]] and i.tolist() == [[0, 2]]
        assert h.tolist() == [True, False]


def test_tensors_as_indices_constant_bounds_and_a_loop_counter():
    out = run_tf1("""
    import numpy as np
    import tensorflow as tf
    data = tf.constant(np.arange(12.0).reshape(4, 3))
    w = tf.Variable(np.ones((4, 3)))
    i = tf.constant(1)
    def body(k, acc):
        return k + 1, acc + tf.reduce_sum(w[k] * data[k]) + w[k, 1] * data[:, 2][k]
    _, total = tf.while_loop(lambda k, acc: k < 4, body,
                             [tf.constant(0), tf.constant(0.0, tf.float64)])
    grad = tf.gradients(total, w)[0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        rows, row, col, tail, value, g = sess.run(
            [data[i:3], data[i], data[:, i], data[tf.constant(2), 1:], total, grad])
    """)
    d = np.arange(12.0).reshape(4, 3)
    np.testing.assert_array_equal(out["rows"], d[1:3])
    np.testing.assert_array_equal(out["row"], d[1])
    np.testing.assert_array_equal(out["col"], d[:, 1])
    np.testing.assert_array_equal(out["tail"], d[2, 1:])
    assert out["value"] == pytest.approx(d.sum() + d[:, 2].sum())
    want = d.copy()
    want[:, 1] += d[:, 2]
    np.testing.assert_allclose(out["g"], want)


def test_a_slice_bound_computed_in_the_graph_is_read_when_values_arrive():
    with tf.Graph().as_default():
        data = tf.constant(np.arange(6.0))
        i = tf.constant(1)
        window = data[i:i + 2]
        assert window.shape.as_list() == [None]
        with tf.Session() as sess:
            assert sess.run(window).tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match="step 1"):
            data[i:i + 4:2]
        with pytest.raises(ValueError, match="scalar integer tensor"):
            data[tf.placeholder(tf.float32, [])]


def test_ops_on_python_numbers_alone_make_tfs_float32_and_int32():
    with tf.Graph().as_default():
        made = [tf.sqrt(2.0), tf.add(1.0, 2.0), tf.reduce_sum([1.0, 2.0]), tf.add(1, 2),
                tf.maximum(1.0, 2.0)]
        assert [t.dtype for t in made] == [np.float32] * 3 + [np.int32, np.float32]
        x = tf.placeholder(tf.float32, [2])
        y = x / tf.sqrt(2.0)           # TF1 runs this; float64 here would be a TypeError
        kept = [tf.constant(1.0, tf.float64), tf.cast(1, tf.int64), tf.zeros([2], tf.float64),
                tf.sqrt(np.float64(2.0))]
        assert [t.dtype for t in kept] == [np.float64, np.int64, np.float64, np.float64]
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y, {x: [2.0, 4.0]}), [2 ** 0.5, 2 * 2 ** 0.5],
                                       rtol=1e-6)
