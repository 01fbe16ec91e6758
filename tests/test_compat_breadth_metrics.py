"""tf.metrics names added for breadth (mean_tensor, mean_cosine_distance, mean_relative_error, percentage_below, the *_at_thresholds counts and ratios, precision/recall at k and at top k) and tf.losses.mean_pairwise_squared_error, against TensorFlow; each metric's update_op runs twice before its value is read.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _u(shape, seed, lo=0.0, hi=1.0):
    return (np.random.RandomState(seed).uniform(lo, hi, shape)).astype(np.float32)

def c_pairwise(tf):
    l = tf.constant(_u((3, 4), 0)); p = tf.constant(_u((3, 4), 1))
    a = tf.losses.mean_pairwise_squared_error(l, p)
    b = tf.losses.mean_pairwise_squared_error(l, p, weights=[[1.0], [0.0], [2.0]])
    c = tf.losses.mean_pairwise_squared_error(tf.constant(_u((2, 3, 2), 2)), tf.constant(_u((2, 3, 2), 3)), weights=0.5)
    return {"a": a, "b": b, "c": c, "g": tf.gradients(a + 2.0 * b, [l, p]),
            "n": lambda: len(tf.get_collection(tf.GraphKeys.LOSSES))}

def _metric(tf, pair, times=2):
    value, update = pair
    return {"value": value}, [update] * times

def c_mean_tensor(tf):
    v = tf.constant([[1.0, 2.0], [3.0, 5.0]])
    f, steps = _metric(tf, tf.metrics.mean_tensor(v, weights=[[1.0, 0.0], [2.0, 1.0]]))
    return f, steps

def c_cosine(tf):
    l = tf.constant([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]); p = tf.constant([[0.8, 0.6], [0.6, 0.8], [1.0, 0.0]])
    return _metric(tf, tf.metrics.mean_cosine_distance(l, p, dim=1, weights=[[1.0], [2.0], [1.0]]))

def c_relative(tf):
    return _metric(tf, tf.metrics.mean_relative_error([1.0, 2.0, 3.0, 4.0], [1.5, 2.0, 2.0, 5.0], normalizer=[1.0, 2.0, 0.0, 4.0]))

def c_below(tf):
    return _metric(tf, tf.metrics.percentage_below([1.0, 5.0, 2.0, 7.0, 3.0], 3.0, weights=[1.0, 1.0, 2.0, 1.0, 1.0]))

L = [True, False, True, True, False, False]
P = [0.9, 0.8, 0.3, 0.6, 0.1, 0.5]
T = [0.0, 0.25, 0.5, 0.85, 1.0]

def c_tp(tf): return _metric(tf, tf.metrics.true_positives_at_thresholds(tf.constant(L), tf.constant(P), T))
def c_fp(tf): return _metric(tf, tf.metrics.false_positives_at_thresholds(tf.constant(L), tf.constant(P), T, weights=[1.0, 2.0, 1.0, 1.0, 3.0, 1.0]))
def c_fn(tf): return _metric(tf, tf.metrics.false_negatives_at_thresholds(tf.constant(L), tf.constant(P), T))
def c_tn(tf): return _metric(tf, tf.metrics.true_negatives_at_thresholds(tf.constant(L), tf.constant(P), T))
def c_prec_t(tf): return _metric(tf, tf.metrics.precision_at_thresholds(tf.constant(L), tf.constant(P), T))
def c_rec_t(tf): return _metric(tf, tf.metrics.recall_at_thresholds(tf.constant(L), tf.constant(P), T, weights=[1.0, 2.0, 1.0, 0.5, 3.0, 1.0]))

LAB = np.array([[2, 0], [1, 3], [0, 0], [3, 2]], np.int64)
PRED = np.array([[0.1, 0.2, 0.6, 0.1], [0.5, 0.1, 0.1, 0.3], [0.7, 0.1, 0.1, 0.1], [0.2, 0.3, 0.1, 0.4]], np.float32)

def c_rec_k(tf): return _metric(tf, tf.metrics.recall_at_k(tf.constant(LAB), PRED, 2))
def c_prec_k(tf): return _metric(tf, tf.metrics.precision_at_k(tf.constant(LAB), PRED, 2))
def c_rec_k1(tf): return _metric(tf, tf.metrics.recall_at_k(tf.constant(LAB[:, 0]), PRED, 1, weights=[1.0, 2.0, 1.0, 3.0]))
def c_prec_k_class(tf): return _metric(tf, tf.metrics.precision_at_k(tf.constant(LAB), PRED, 2, class_id=0))
def c_rec_k_class(tf): return _metric(tf, tf.metrics.recall_at_k(tf.constant(LAB), PRED, 2, class_id=3))
def c_prec_top(tf): return _metric(tf, tf.metrics.precision_at_top_k(tf.constant(LAB), tf.constant(np.array([[2, 1], [0, 3], [1, 2], [3, 0]], np.int64))))
def c_rec_top(tf): return _metric(tf, tf.metrics.recall_at_top_k(tf.constant(LAB), tf.constant(np.array([[2, 1], [0, 3], [1, 2], [3, 0]], np.int64))))
def c_sparse_prec(tf): return _metric(tf, tf.metrics.sparse_precision_at_k(tf.constant(LAB), PRED, 1))


NAN, INF = float("nan"), float("inf")
TF = {'below': {'value': 0.5},
 'cosine': {'value': 0.3},
 'fn': {'value': [0.0, 0.0, 2.0, 4.0, 6.0]},
 'fp': {'value': [12.0, 6.0, 4.0, 0.0, 0.0]},
 'mean_tensor': {'value': [[1.0, 0.0], [3.0, 5.0]]},
 'pairwise': {'a': 0.463682,
              'b': 0.6824814,
              'c': 0.2021793,
              'g': [[[-0.4446898, -0.9923967, 1.43874, -0.001653492],
                     [-0.173466, 0.1954095, -0.2075619, 0.1856185],
                     [2.733092, -2.082045, 1.437327, -2.088374]],
                    [[0.4446898, 0.9923967, -1.43874, 0.001653492],
                     [0.173466, -0.1954095, 0.2075619, -0.1856185],
                     [-2.733092, 2.082045, -1.437327, 2.088374]]],
              'n': 3},
 'prec_k': {'value': 0.5},
 'prec_k_class': {'value': 0.5},
 'prec_t': {'value': [0.5, 0.6, 0.6666667, 1.0, 0.0]},
 'prec_top': {'value': 0.375},
 'rec_k': {'value': 0.5714286},
 'rec_k1': {'value': 0.7142857},
 'rec_k_class': {'value': 1.0},
 'rec_t': {'value': [1.0, 1.0, 0.6, 0.4, 0.0]},
 'rec_top': {'value': 0.4285714},
 'relative': {'value': 0.1875},
 'sparse_prec': {'value': 0.75},
 'tn': {'value': [0.0, 2.0, 4.0, 6.0, 6.0]},
 'tp': {'value': [6.0, 6.0, 4.0, 2.0, 0.0]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
