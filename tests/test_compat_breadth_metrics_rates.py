"""tf.metrics.sensitivity_at_specificity and specificity_at_sensitivity (weighted, several threshold counts, targets at the ends) against TensorFlow; update_op runs twice before the value is read.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np
R = np.random.RandomState(0)
L = (R.uniform(size=40) > 0.5)
P = np.clip(L * 0.3 + R.uniform(size=40) * 0.7, 0, 1).astype(np.float32)
W = R.uniform(0.5, 2.0, size=40).astype(np.float32)

def _metric(tf, pair):
    value, update = pair
    return {"value": value}, [update, update]

def c_sens(tf): return _metric(tf, tf.metrics.sensitivity_at_specificity(tf.constant(L), tf.constant(P), 0.8))
def c_sens_w(tf): return _metric(tf, tf.metrics.sensitivity_at_specificity(tf.constant(L), tf.constant(P), 0.55, weights=tf.constant(W), num_thresholds=17))
def c_sens_1(tf): return _metric(tf, tf.metrics.sensitivity_at_specificity(tf.constant(L), tf.constant(P), 1.0, num_thresholds=10))
def c_spec(tf): return _metric(tf, tf.metrics.specificity_at_sensitivity(tf.constant(L), tf.constant(P), 0.7))
def c_spec_w(tf): return _metric(tf, tf.metrics.specificity_at_sensitivity(tf.constant(L), tf.constant(P), 0.3, weights=tf.constant(W), num_thresholds=13))
def c_spec_0(tf): return _metric(tf, tf.metrics.specificity_at_sensitivity(tf.constant(L), tf.constant(P), 0.0, num_thresholds=8))
def c_spec_1(tf): return _metric(tf, tf.metrics.specificity_at_sensitivity(tf.constant(L), tf.constant(P), 1.0, num_thresholds=8))


NAN, INF = float("nan"), float("inf")
TF = {'sens': {'value': 0.4814815},
 'sens_1': {'value': 0.1111111},
 'sens_w': {'value': 1.0},
 'spec': {'value': 0.4615385},
 'spec_0': {'value': 1.0},
 'spec_1': {'value': 0.4615385},
 'spec_w': {'value': 0.8476337}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
