"""tf.train names added for breadth (ProximalGradientDescentOptimizer, ProximalAdagradOptimizer: variables and loss after three steps; noisy_linear_cosine_decay without noise; piecewise_constant_decay) against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _opt_case(tf, make):
    w = tf.Variable([1.0, -0.3, 0.05, 2.0])
    x = tf.constant([[1.0, 2.0, -1.0, 0.5], [0.3, -0.2, 1.0, 1.0]])
    loss = tf.reduce_sum(tf.square(tf.matmul(x, tf.reshape(w, [4, 1])) - 1.0))
    step = make().minimize(loss)
    return {"w": w, "loss": loss}, [step] * 3

def c_pgd(tf): return _opt_case(tf, lambda: tf.train.ProximalGradientDescentOptimizer(0.05, l1_regularization_strength=0.3, l2_regularization_strength=0.1))
def c_pgd_plain(tf): return _opt_case(tf, lambda: tf.train.ProximalGradientDescentOptimizer(0.05))
def c_pgd_l2(tf): return _opt_case(tf, lambda: tf.train.ProximalGradientDescentOptimizer(0.05, l2_regularization_strength=0.5))
def c_padagrad(tf): return _opt_case(tf, lambda: tf.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.2, l2_regularization_strength=0.05))
def c_padagrad_plain(tf): return _opt_case(tf, lambda: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.5))
def c_padagrad_l2(tf): return _opt_case(tf, lambda: tf.train.ProximalAdagradOptimizer(0.1, l2_regularization_strength=0.3))

def c_decays(tf):
    steps = tf.constant([0, 10, 50, 99, 150])
    out = {}
    for i in range(5):
        out[f"noisy0_{i}"] = tf.train.noisy_linear_cosine_decay(0.1, steps[i], 100, initial_variance=0.0)
        out[f"pc_{i}"] = tf.train.piecewise_constant_decay(steps[i], [10, 60], [1.0, 0.5, 0.1])
    return out


NAN, INF = float("nan"), float("inf")
TF = {'decays': {'noisy0_0': 0.1001,
            'noisy0_1': 0.08789754,
            'noisy0_2': 0.0251,
            'noisy0_3': 0.0001002467,
            'noisy0_4': 0.0001,
            'pc_0': 1.0,
            'pc_1': 1.0,
            'pc_2': 0.5,
            'pc_3': 0.1,
            'pc_4': 0.1},
 'padagrad': {'loss': 0.8559451, 'w': [0.7661381, -0.3399071, -0.1484584, 1.768142]},
 'padagrad_l2': {'loss': 0.7915483, 'w': [0.7683861, -0.3582462, -0.1673003, 1.749834]},
 'padagrad_plain': {'loss': 0.912644, 'w': [0.8172998, -0.3911693, -0.1659272, 1.792858]},
 'pgd': {'loss': 0.4664392, 'w': [0.7724817, -0.3186417, -0.1745113, 1.556325]},
 'pgd_l2': {'loss': 0.3728638, 'w': [0.7740219, -0.3372614, -0.2060121, 1.513782]},
 'pgd_plain': {'loss': 0.5296587, 'w': [0.8252329, -0.3740576, -0.2228824, 1.619923]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
