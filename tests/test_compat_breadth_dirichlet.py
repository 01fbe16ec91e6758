"""tf.distributions.Dirichlet: log_prob, prob, mean, variance, entropy and gradients (a concentration of 1 included) against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def c_dirichlet(tf):
    a = tf.constant([[0.5, 2.0, 3.0], [1.0, 1.0, 4.5]])
    d = tf.distributions.Dirichlet(a)
    x = tf.constant([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    lp = d.log_prob(x)
    loss = tf.reduce_sum(lp) + tf.reduce_sum(d.entropy()) + tf.reduce_sum(d.variance() * 3.0) + tf.reduce_sum(d.mean() * [1.0, 2.0, 3.0])
    return {"lp": lp, "p": d.prob(x), "mean": d.mean(), "var": d.variance(), "ent": d.entropy(), "g": tf.gradients(loss, [a, x])}


NAN, INF = float("nan"), float("inf")
TF = {'dirichlet': {'ent': [-1.914676, -1.794683],
               'g': [[[4.684812, -0.2723072, -0.2551123], [2.736071, 2.889917, -1.063106]],
                     [[-2.5, 3.333333, 4.0], [0.0, 0.0, 11.66667]]],
               'lp': [0.9067535, -1.00508],
               'mean': [[0.09090909, 0.3636364, 0.5454546], [0.1538462, 0.1538462, 0.6923077]],
               'p': [2.47627, 0.3660154],
               'var': [[0.01271456, 0.03560076, 0.03814368], [0.017357, 0.017357, 0.02840236]]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
