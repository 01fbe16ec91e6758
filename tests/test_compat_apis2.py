"""TF1 names added after a second probe, against numbers, dtypes and errors taken from
real TensorFlow (2.21, compat.v1 with v2 behaviour disabled): tf.test's gradient
checker, tf.sort/argsort, and the other ops and refusals of this round."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


# -- tf.test.compute_gradient ----------------------------------------------------------

def test_compute_gradient_layout_values_and_error_are_tfs():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.reduce_sum(tf.square(x), axis=0) * tf.constant([1., 2., 3.])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Session():
        theoretical, numerical = tf.test.compute_gradient(x, [2, 3], y, [3], x_init_value=xv)
        error = tf.test.compute_gradient_error(x, [2, 3], y, [3], x_init_value=xv)
    # rows: the entries of x; columns: the entries of y (TF's numbers)
    np.testing.assert_array_equal(theoretical, [[0, 0, 0], [0, 4, 0], [0, 0, 12],
                                                [6, 0, 0], [0, 16, 0], [0, 0, 30]])
    np.testing.assert_allclose(numerical, [[0, 0, 0], [0, 3.9997098, 0], [0, 0, 12.004851],
                                           [5.9995646, 0, 0], [0, 16.000748, 0],
                                           [0, 0, 29.998777]], rtol=1e-6)
    assert theoretical.dtype == numerical.dtype == np.float32
    assert error.dtype == np.float32 and error == pytest.approx(0.0048513412, rel=1e-5)


def test_compute_gradient_float64_delta_and_default_init():
    xd = tf.placeholder(tf.float64, [2])
    a = tf.placeholder(tf.float32, [2])
    b = tf.placeholder(tf.float32, [])
    with tf.Session():
        t, n = tf.test.compute_gradient(xd, [2], tf.sin(xd) * xd[0], [2],
                                        x_init_value=np.array([0.5, 1.5]))
        assert t.dtype == n.dtype == np.float64
        np.testing.assert_allclose(t, [[0.91821682, 0.99749499], [0, 0.0353686]], atol=1e-8)
        np.testing.assert_allclose(n, [[0.91821651, 0.99749499], [0, 0.03536859]], atol=1e-8)
        t, n = tf.test.compute_gradient(a, [2], tf.exp(a), [2], delta=0.1,
                                        x_init_value=np.array([0., 1.], np.float32))
        np.testing.assert_allclose(n, [[1.0016676, 0], [0, 2.7228153]], rtol=1e-6)
        np.testing.assert_allclose(t, [[1, 0], [0, 2.7182817]], rtol=1e-6)
        np.random.seed(0)     # TF draws x from numpy's global generator
        t, n = tf.test.compute_gradient(a, [2], a * b + b, [2], extra_feed_dict={b: 3.})
        np.testing.assert_allclose(n, [[3.0000207, 0], [0, 3.0000207]], rtol=1e-7)
        np.testing.assert_array_equal(t, 3 * np.eye(2))
        h = tf.placeholder(tf.float16, [2])
        t, n = tf.test.compute_gradient(h, [2], h * h, [2],
                                        x_init_value=np.array([1., 2.], np.float16))
        assert t.dtype == n.dtype == np.float16
        np.testing.assert_array_equal(t, [[2, 0], [0, 4]])


def test_compute_gradient_of_a_list_of_variables_feeds_each_alone():
    av, bv = tf.Variable([1., 2.]), tf.Variable(3.)
    z = av * bv + bv
    inits = [np.array([1., 5.], np.float32), np.array(3., np.float32)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        found = tf.test.compute_gradient([av, bv], [[2], []], z, [2], x_init_value=inits)
        assert isinstance(found, list) and [type(p) for p in found] == [tuple, tuple]
        (ta, na), (tb, nb) = found
        np.testing.assert_array_equal(ta, [[3, 0], [0, 3]])
        np.testing.assert_allclose(na, [[3.0002592, 0], [0, 3.0002592]], rtol=1e-6)
        np.testing.assert_array_equal(tb, [[2, 3]])     # b = 3 fed, a its stored [1, 2]
        np.testing.assert_allclose(nb, [[1.9998549, 3.0002592]], rtol=1e-6)
        err = tf.test.compute_gradient_error([av, bv], [[2], []], z, [2], x_init_value=inits)
        assert err == pytest.approx(0.000259161, rel=1e-4)
        np.testing.assert_array_equal(sess.run(av), [1, 2])     # stored values untouched
        v = tf.Variable([1., 2.])
        t, n = tf.test.compute_gradient(v, [2], v * v, [2], init_targets=[
            tf.global_variables_initializer()], x_init_value=np.array([1., 2.], np.float32))
        np.testing.assert_array_equal(t, [[2, 0], [0, 4]])
        a, b = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [])
        with pytest.raises(tf.errors.InvalidArgumentError, match="must feed a value"):
            tf.test.compute_gradient([a, b], [[2], []], a * b + b, [2])   # (as TF: b unfed)


def test_compute_gradient_bad_input():
    x = tf.placeholder(tf.float32, [2, 3])
    y = tf.reduce_sum(x, 0)
    xv = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="no.*default session|default session, and none"):
        tf.test.compute_gradient(x, [2, 3], y, [3], x_init_value=xv)
    with tf.Session():
        with pytest.raises(AssertionError, match=r"^x_shape = \[3, 2\], init_data shape = "
                                                 r"\[2, 3\]$"):
            tf.test.compute_gradient(x, [3, 2], y, [3], x_init_value=xv)
        with pytest.raises(ValueError, match=r"y_shape \[4\] does not match"):
            tf.test.compute_gradient(x, [2, 3], y, [4], x_init_value=xv)
        with pytest.raises(AssertionError, match="^dx = None"):
            tf.test.compute_gradient(tf.placeholder(tf.float32, [2]), [2], y, [3],
                                     extra_feed_dict={x: xv})
        xi = tf.placeholder(tf.int32, [2])
        with pytest.raises(AssertionError, match="^Don't support type int32 for x"):
            tf.test.compute_gradient(xi, [2], tf.cast(xi, tf.float32) * 2., [2])
        with pytest.raises(TypeError, match="y must be one tensor"):
            tf.test.compute_gradient(x, [2, 3], [y, y], [[3], [3]])


def test_test_helpers_and_refused_test_case():
    assert tf.test.is_gpu_available() is False and tf.test.gpu_device_name() == ""
    with pytest.raises(AttributeError, match="tf.test.TestCase is not supported; .*pytest"):
        tf.test.TestCase
