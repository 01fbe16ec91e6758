"""tf.math.erfinv, erfcinv and ndtri (solved numerically, TF's derivatives attached): values, gradients and second derivatives against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def c_erfinv(tf):
    x = tf.constant([-0.999, -0.5, -0.1, 0.0, 1e-6, 0.3, 0.49, 0.51, 0.9, 0.99999, 1.0, -1.0])
    y = tf.math.erfinv(x)
    xs = tf.constant([-0.7, 0.0, 0.2, 0.6, 0.95])
    ys = tf.math.erfinv(xs)
    g = tf.gradients(ys, xs)[0]
    return {"y": y, "g": g, "gg": tf.gradients(g, xs)[0], "bad": tf.math.erfinv(tf.constant([1.5, -2.0]))}

def c_ndtri(tf):
    p = tf.constant([1e-30, 1e-10, 1e-4, 0.02, 0.3, 0.5, 0.7, 0.975, 0.9999, 1.0 - 1e-7, 0.0, 1.0])
    ps = tf.constant([1e-5, 0.1, 0.5, 0.8, 0.999])
    ys = tf.math.ndtri(ps)
    g = tf.gradients(ys * [1.0, 2.0, 3.0, 4.0, 5.0], ps)[0]
    return {"y": tf.math.ndtri(p), "g": g, "gg": tf.gradients(g, ps)[0],
            "y64": tf.math.ndtri(tf.constant([1e-300, 1e-50, 0.25], tf.float64))}

def c_erfcinv(tf):
    q = tf.constant([1e-20, 1e-5, 0.1, 0.5, 1.0, 1.3, 1.9, 2.0 - 1e-6, 0.0, 2.0])
    qs = tf.constant([0.05, 0.7, 1.0, 1.6])
    ys = tf.math.erfcinv(qs)
    return {"y": tf.math.erfcinv(q), "g": tf.gradients(ys, qs)[0]}


NAN, INF = float("nan"), float("inf")
TF = {'erfcinv': {'g': [-6.049327, -0.9545203, -0.8862269, -1.262862],
             'y': [6.601581, 3.123413, 1.163087, 0.4769363, -0.0, -0.2724627, -1.163087,
                   -3.465505, INF, -INF]},
 'erfinv': {'bad': [NAN, NAN],
            'g': [1.516363, 0.886227, 0.9151294, 1.262862, 6.049332],
            'gg': [-3.370256, 0.0, 0.3000517, 1.898208, 101.4327],
            'y': [-2.326756, -0.4769363, -0.088856, 0.0, 8.451718e-07, 0.2724627, 0.4658686,
                  0.488122, 1.163087, 3.123206, INF, -INF]},
 'ndtri': {'g': [22327.74, 11.39612, 7.519885, 14.28766, 1484.979],
           'gg': [-2126167000.0, -83.21856, 0.0, 42.95154, 1362896.0],
           'y': [-11.46402, -6.361341, -3.719017, -2.053749, -0.5244005, 0.0, 0.5244005,
                 1.959964, 3.718975, 5.166578, -INF, INF],
           'y64': [-37.0471, -14.93334, -0.6744898]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")


import symgrad.compat.v1 as tf  # noqa: E402


def test_float64_accuracy_to_the_last_bits():
    # the inverse of erf / the normal CDF, checked by going back (float64, math.erf)
    import math
    p = np.array([1e-200, 1e-12, 0.01, 0.3, 0.5, 0.8, 0.999999])
    x = np.array([-0.9999999, -0.4, 1e-9, 0.2, 0.7, 0.99999999])
    with tf.Session() as sess:
        z, y = sess.run([tf.math.ndtri(tf.constant(p)), tf.math.erfinv(tf.constant(x))])
    back_p = np.array([0.5 * math.erfc(-v / math.sqrt(2.0)) for v in z])
    np.testing.assert_allclose(back_p, p, rtol=1e-12)
    np.testing.assert_allclose([math.erf(v) for v in y], x, rtol=1e-14)


def test_integer_input_is_refused():
    with pytest.raises(TypeError, match="float"):
        tf.math.erfinv(tf.constant([1, 2]))
