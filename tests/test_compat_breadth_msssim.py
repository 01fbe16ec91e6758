"""tf.image.ssim_multiscale (default and custom power factors, odd sizes padded before halving): values and gradients against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _u(shape, seed, lo=0.0, hi=1.0):
    return (np.random.RandomState(seed).uniform(lo, hi, shape)).astype(np.float32)

def _pair():
    a = _u((2, 180, 170, 3), 0)
    # a smooth image plus noise, so every scale has structure
    yy, xx = np.meshgrid(np.linspace(0, 3, 180), np.linspace(0, 3, 170), indexing="ij")
    base = (0.5 + 0.4 * np.sin(yy * 2.0)[..., None] * np.cos(xx * 1.5)[..., None]).astype(np.float32)
    a = np.clip(base[None] * 0.8 + a * 0.2, 0, 1).astype(np.float32)
    b = np.clip(a + _u(a.shape, 1, -0.15, 0.15), 0, 1).astype(np.float32)
    return a, b

def c_msssim(tf):
    a, b = _pair()
    ta, tb = tf.constant(a), tf.constant(b)
    m = tf.image.ssim_multiscale(ta, tb, 1.0)
    m2 = tf.image.ssim_multiscale(ta[0] * 255.0, tb[0] * 255.0, 255.0, power_factors=[0.5, 0.3, 0.2], filter_size=7)
    g = tf.gradients(tf.reduce_sum(m) + m2, tb)[0]
    return {"m": m, "m2": m2, "gsum": tf.reduce_sum(g), "gabs": tf.reduce_sum(tf.abs(g)), "g_corner": g[0, :6, :6, 0]}


NAN, INF = float("nan"), float("inf")
TF = {'msssim': {'g_corner': [[-2.76808e-08, 5.950576e-08, -5.654752e-08, -8.126871e-07,
                          2.063723e-07, -3.047312e-06],
                         [-3.252259e-07, 9.725843e-07, -2.19802e-06, -1.224505e-06,
                          -1.316605e-05, 3.394764e-06],
                         [-8.140207e-07, 4.586368e-07, -6.732922e-06, -2.125347e-05,
                          2.886819e-05, 1.013372e-05],
                         [-1.758318e-06, -7.038474e-06, 1.116135e-05, -2.376761e-05,
                          5.774786e-06, -3.90649e-05],
                         [6.198825e-07, -2.790605e-06, 1.382287e-05, -4.163795e-05,
                          6.182282e-05, -8.621803e-06],
                         [-2.743975e-06, 1.500233e-05, 2.017169e-05, -4.81683e-05,
                          -1.771044e-05, 2.959925e-05]],
            'gabs': 15.06107,
            'gsum': 0.0001956699,
            'm': [0.8242909, 0.8259986],
            'm2': 0.6048079}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")
