"""tf.metrics.average_precision_at_k and sparse_average_precision_at_k (k 1-3, weighted, repeated labels, one label per example) against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np
LAB = np.array([[2, 0], [1, 3], [0, 0], [3, 2], [1, 1]], np.int64)
PRED = np.array([[0.1, 0.2, 0.6, 0.1], [0.5, 0.1, 0.1, 0.3], [0.7, 0.1, 0.1, 0.1], [0.2, 0.3, 0.1, 0.4], [0.3, 0.1, 0.4, 0.2]], np.float32)

def _metric(tf, pair):
    value, update = pair
    return {"value": value, "update": update}, [update]

def c_ap1(tf): return _metric(tf, tf.metrics.average_precision_at_k(tf.constant(LAB), PRED, 1))
def c_ap2(tf): return _metric(tf, tf.metrics.average_precision_at_k(tf.constant(LAB), PRED, 2))
def c_ap3(tf): return _metric(tf, tf.metrics.average_precision_at_k(tf.constant(LAB), PRED, 3, weights=[1.0, 2.0, 0.5, 1.0, 3.0]))
def c_ap_single(tf): return _metric(tf, tf.metrics.sparse_average_precision_at_k(tf.constant(LAB[:, 0]), PRED, 3))


NAN, INF = float("nan"), float("inf")
TF = {'ap1': {'update': 0.6, 'value': 0.6},
 'ap2': {'update': 0.35, 'value': 0.35},
 'ap3': {'update': 0.3666667, 'value': 0.3666667},
 'ap_single': {'update': 0.6666667, 'value': 0.6666667}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
