"""tf.tensor_scatter_nd_max/min (ties share the gradient), tensor_scatter_add/sub, sparse_matmul, grad_pass_through and recompute_grad: values and gradients against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def c_scatter_extreme(tf):
    x = tf.constant([[1.0, 5.0], [2.0, 2.0], [0.0, -1.0], [4.0, 4.0]])
    u = tf.constant([[3.0, 5.0], [1.0, 1.0], [3.0, 0.0], [9.0, 4.0]])
    idx = tf.constant([[0], [1], [0], [3]])
    a = tf.tensor_scatter_nd_max(x, idx, u)
    b = tf.tensor_scatter_nd_min(x, idx, u)
    xe = tf.constant([1.0, 5.0, 2.0, 7.0]); ue = tf.constant([3.0, 1.0, 7.0]); ie = tf.constant([[0], [2], [3]])
    c = tf.tensor_scatter_nd_max(xe, ie, ue)
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    return {"a": a, "b": b, "c": c, "ga": tf.gradients(tf.reduce_sum(a * w), [x, u]), "gb": tf.gradients(tf.reduce_sum(b * w), [x, u]),
            "gc": tf.gradients(tf.reduce_sum(c * [1.0, 2.0, 3.0, 4.0]), [xe, ue])}

def c_scatter_add_sub(tf):
    x = tf.constant([1.0, 2.0, 3.0])
    return {"a": tf.tensor_scatter_add(x, [[0], [2]], [10.0, 20.0]), "s": tf.tensor_scatter_sub(x, [[1]], [5.0])}

def c_small(tf):
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]]); b = tf.constant([[0.5, -1.0], [2.0, 0.0]])
    m = tf.sparse_matmul(a, b, transpose_b=True, a_is_sparse=True)
    x = tf.constant([0.3, 1.7, -2.2])
    y = tf.grad_pass_through(tf.round)(x)
    z = tf.recompute_grad(lambda t: t * t)(x)
    return {"m": m, "y": y, "gy": tf.gradients(y * [1.0, 2.0, 3.0], x)[0], "gz": tf.gradients(z, x)[0],
            "gm": tf.gradients(m, [a, b])}


NAN, INF = float("nan"), float("inf")
TF = {'scatter_add_sub': {'a': [11.0, 2.0, 23.0], 's': [1.0, -3.0, 3.0]},
 'scatter_extreme': {'a': [[3.0, 5.0], [2.0, 2.0], [0.0, -1.0], [9.0, 4.0]],
                     'b': [[1.0, 0.0], [1.0, 1.0], [0.0, -1.0], [4.0, 4.0]],
                     'c': [3.0, 5.0, 2.0, 7.0],
                     'ga': [[[0.0, 1.0], [3.0, 4.0], [5.0, 6.0], [0.0, 4.0]],
                            [[0.5, 1.0], [0.0, 0.0], [0.5, 0.0], [7.0, 4.0]]],
                     'gb': [[[1.0, 0.0], [0.0, 0.0], [5.0, 6.0], [7.0, 4.0]],
                            [[0.0, 0.0], [3.0, 4.0], [0.0, 2.0], [0.0, 4.0]]],
                     'gc': [[0.0, 2.0, 3.0, 2.0], [1.0, 0.0, 2.0]]},
 'small': {'gm': [[[2.5, -1.0], [2.5, -1.0]], [[4.0, 6.0], [4.0, 6.0]]],
           'gy': [1.0, 2.0, 3.0],
           'gz': [0.6, 3.4, -4.4],
           'm': [[-1.5, 2.0], [-2.5, 6.0]],
           'y': [0.0, 2.0, -2.0]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
