"""TF1 sparse ops added for breadth (sparse_segment_sum/mean/sqrt_n, sparse_to_dense, sparse_to_indicator, sparse_reorder/transpose/retain/concat, sparse_add with a dense tensor, sparse_reduce_max, sparse_softmax): values and gradients against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _st(tf):
    return tf.SparseTensor(indices=[[0, 1], [1, 0], [1, 2], [2, 2], [0, 3]], values=tf.constant([1.0, -2.0, 3.0, 0.5, 4.0]), dense_shape=[3, 4])

def c_segments(tf):
    d = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    a = tf.sparse_segment_sum(d, [0, 2, 1, 1], [0, 0, 2, 2])
    b = tf.sparse_segment_mean(d, [0, 2, 1, 1], [0, 0, 2, 2])
    c = tf.sparse_segment_sqrt_n(d, [0, 2, 1], [0, 1, 1], num_segments=4)
    w = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    return {"a": a, "b": b, "c": c, "g": tf.gradients(tf.reduce_sum(a * w) + tf.reduce_sum(b * b) + tf.reduce_sum(c * 2.0), d)[0]}

def c_to_dense(tf):
    v = tf.constant([1.0, 2.0, 3.0])
    a = tf.sparse_to_dense([[0, 1], [1, 0], [2, 2]], [3, 3], v, default_value=-1.0)
    b = tf.sparse_to_dense([1, 3], [5], 7.0)
    c = tf.sparse_to_dense(2, [4], 1.5)
    return {"a": a, "b": b, "c": c, "g": tf.gradients(tf.reduce_sum(a * [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]), v)[0]}

def c_indicator(tf):
    ids = tf.SparseTensor(indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], values=tf.constant([3, 1, 0, 2, 2], tf.int64), dense_shape=[3, 2])
    return {"i": tf.sparse_to_indicator(ids, 4)}

def c_sparse_ops(tf):
    st = _st(tf)
    r = tf.sparse_reorder(st)
    t = tf.sparse_transpose(st)
    k = tf.sparse_retain(st, [True, False, True, True, False])
    c = tf.sparse_concat(1, [st, tf.SparseTensor([[1, 0]], tf.constant([9.0]), [3, 2])])
    c0 = tf.sparse_concat(0, [st, st])
    return {"r": r, "t": t, "k": k, "c": c, "c0": c0, "cd": tf.sparse_tensor_to_dense(c)}

def c_sparse_math(tf):
    vals = tf.constant([1.0, -2.0, 3.0, 0.5, 4.0])
    st = tf.SparseTensor(indices=[[0, 1], [1, 0], [1, 2], [2, 2], [0, 3]], values=vals, dense_shape=[3, 4])
    add = tf.sparse_add(st, tf.ones([3, 4]))
    m = tf.sparse_reduce_max(st); m1 = tf.sparse_reduce_max(st, 1); m0 = tf.sparse_reduce_max(st, 0, keepdims=True)
    sm = tf.sparse_softmax(tf.sparse_reorder(st))
    smv = sm.values
    return {"add": add, "m": m, "m1": m1, "m0": m0, "sm": smv,
            "g": tf.gradients(tf.reduce_sum(smv * [1.0, 2.0, 3.0, 4.0, 5.0]) + tf.reduce_sum(add * add), vals)[0]}


NAN, INF = float("nan"), float("inf")
TF = {'indicator': {'i': [[False, True, False, True], [True, False, False, False],
                     [False, False, True, False]]},
 'segments': {'a': [[6.0, 8.0], [0.0, 0.0], [6.0, 8.0]],
              'b': [[3.0, 4.0], [0.0, 0.0], [3.0, 4.0]],
              'c': [[1.0, 2.0], [5.656854, 7.071068], [0.0, 0.0], [0.0, 0.0]],
              'g': [[6.0, 8.0], [17.41421, 21.41421], [5.414214, 7.414214]]},
 'sparse_math': {'add': [[1.0, 2.0, 1.0, 5.0], [-1.0, 1.0, 4.0, 1.0], [1.0, 1.0, 1.5, 1.0]],
                 'g': [3.954823, -2.006648, 8.006648, 3.0, 10.04518],
                 'm': 4.0,
                 'm0': [[-2.0, 1.0, 3.0, 4.0]],
                 'm1': [4.0, 3.0, 0.5],
                 'sm': [0.04742587, 0.9525741, 0.006692851, 0.9933072, 1.0]},
 'sparse_ops': {'c': [[[0, 1], [0, 3], [1, 0], [1, 2], [1, 4], [2, 2]],
                      [1.0, 4.0, -2.0, 3.0, 9.0, 0.5], [3, 6]],
                'c0': [[[0, 1], [0, 3], [1, 0], [1, 2], [2, 2], [3, 1], [3, 3], [4, 0], [4, 2],
                        [5, 2]],
                       [1.0, 4.0, -2.0, 3.0, 0.5, 1.0, 4.0, -2.0, 3.0, 0.5], [6, 4]],
                'cd': [[0.0, 1.0, 0.0, 4.0, 0.0, 0.0], [-2.0, 0.0, 3.0, 0.0, 9.0, 0.0],
                       [0.0, 0.0, 0.5, 0.0, 0.0, 0.0]],
                'k': [[[0, 1], [1, 2], [2, 2]], [1.0, 3.0, 0.5], [3, 4]],
                'r': [[[0, 1], [0, 3], [1, 0], [1, 2], [2, 2]], [1.0, 4.0, -2.0, 3.0, 0.5],
                      [3, 4]],
                't': [[[0, 1], [1, 0], [2, 1], [2, 2], [3, 0]], [-2.0, 1.0, 3.0, 0.5, 4.0],
                      [4, 3]]},
 'to_dense': {'a': [[-1.0, 1.0, -1.0], [2.0, -1.0, -1.0], [-1.0, -1.0, 3.0]],
              'b': [0.0, 7.0, 0.0, 7.0, 0.0],
              'c': [0.0, 0.0, 1.5, 0.0],
              'g': [2.0, 4.0, 9.0]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
