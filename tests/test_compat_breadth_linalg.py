"""tf.linalg names added for breadth (matvec, normalize, global_norm, l2_normalize, tensordot, pinv of full-rank matrices, tridiagonal_matmul/solve): values and gradients against TensorFlow.

The numbers in ``TF`` were printed by TensorFlow 2.21 (``tensorflow.compat.v1``, graph
mode) running the same case functions."""
# flake8: noqa: E501
import numpy as np

def _w(shape, seed):
    return (np.random.RandomState(seed).uniform(-1, 1, shape)).astype(np.float32)

def c_matvec(tf):
    a = tf.constant(_w((2, 3, 4), 0)); b = tf.constant(_w((2, 4), 1)); c = tf.constant(_w((2, 3), 2))
    y = tf.linalg.matvec(a, b); y2 = tf.linalg.matvec(a, c, transpose_a=True)
    return {"y": y, "y2": y2, "g": tf.gradients(tf.reduce_sum(y * y) + tf.reduce_sum(y2), [a, b, c])}

def c_norms(tf):
    x = tf.constant(_w((3, 4), 3)); y = tf.constant(_w((2,), 4))
    gn = tf.linalg.global_norm([x, y]); l2 = tf.linalg.l2_normalize(x, axis=1)
    n, nrm = tf.linalg.normalize(x, axis=1); n2, nrm2 = tf.linalg.normalize(x, ord=1)
    td = tf.linalg.tensordot(x, tf.constant(_w((4, 2), 5)), axes=1)
    loss = gn + tf.reduce_sum(l2 * _w((3, 4), 6)) + tf.reduce_sum(n * _w((3, 4), 7)) + tf.reduce_sum(nrm) + tf.reduce_sum(n2 * _w((3, 4), 8)) + tf.reduce_sum(td)
    return {"gn": gn, "l2": l2, "n": n, "nrm": nrm, "n2": n2, "nrm2": nrm2, "td": td, "g": tf.gradients(loss, x)[0]}

def c_pinv(tf):
    a = tf.constant(_w((4, 3), 9) + np.eye(4, 3, dtype=np.float32)); b = tf.constant(_w((2, 3), 10))
    p, q = tf.linalg.pinv(a), tf.linalg.pinv(b)
    w1, w2 = tf.constant(_w((3, 4), 11)), tf.constant(_w((3, 2), 12))
    return {"p": p, "q": q, "g": tf.gradients(tf.reduce_sum(p * w1) + tf.reduce_sum(q * w2), [a, b])}

def c_tridiag(tf):
    d = tf.constant(np.array([[[0.5, 1.0, -1.0, 9.0], [4.0, 5.0, 3.0, 6.0], [7.0, 1.0, 2.0, -0.5]]], np.float32))
    rhs = tf.constant(_w((1, 4, 2), 13))
    m = tf.linalg.tridiagonal_matmul(d, rhs)
    s = tf.linalg.tridiagonal_solve(d, rhs)
    sup, main, sub = d[:, 0], d[:, 1], d[:, 2]
    s2 = tf.linalg.tridiagonal_solve([sup, main, sub], rhs[..., 0], diagonals_format="sequence")
    loss = tf.reduce_sum(m * _w((1, 4, 2), 14)) + tf.reduce_sum(s * _w((1, 4, 2), 15)) + tf.reduce_sum(s2)
    return {"m": m, "s": s, "s2": s2, "g": tf.gradients(loss, [d, rhs])}


NAN, INF = float("nan"), float("inf")
TF = {'matvec': {'g': [[[[-0.1055984, -0.1875184, 0.007005632, -0.07462152],
                    [-0.9378417, -0.9755118, -0.8860617, -0.9235972],
                    [0.3856923, -0.6610421, 1.824492, 0.7814997]],
                   [[-0.133938, -0.134644, -0.1334255, -0.1313588],
                    [0.4654379, 0.5616734, 0.3955756, 0.1138571],
                    [1.482074, 1.762662, 1.278381, 0.4569925]]],
                  [[-1.60386, 0.3260165, -1.026783, -0.1605008],
                   [-1.618498, -2.125235, -0.2988567, -2.106183]],
                  [[0.8232989, 0.7978183, 1.335449], [-0.6963869, 1.002014, 2.039571]]],
            'y': [[-0.06752336, -0.03105, -0.8627809], [0.003243357, -0.442118, -1.289055]],
            'y2': [[0.2243823, -0.3549055, 0.1499947, -0.7486683],
                   [-0.1895991, -0.4190825, 0.04851895, -0.2014297]]},
 'norms': {'g': [[0.5173339, 1.961228, 0.008098036, -0.1173524],
                 [0.9000182, 0.9613315, -0.4379902, -0.6786597],
                 [-1.37595, 0.2794767, -0.6097298, 1.29094]],
           'gn': 2.258323,
           'l2': [[0.1695677, 0.694815, -0.6979775, 0.03614346],
                  [0.5360507, 0.5406154, -0.5107693, -0.3993737],
                  [-0.6859511, -0.09052082, -0.7189707, -0.06601591]],
           'n': [[0.1695677, 0.694815, -0.6979775, 0.03614346],
                 [0.5360507, 0.5406154, -0.5107693, -0.3993736],
                 [-0.6859511, -0.09052082, -0.7189707, -0.06601591]],
           'n2': [[0.01718297, 0.07040836, -0.07072884, 0.00366256],
                  [0.1329188, 0.1340506, -0.12665, -0.09902842],
                  [-0.1517213, -0.02002174, -0.1590247, -0.01460165]],
           'nrm': [[0.5991461], [1.466081], [1.307769]],
           'nrm2': [[5.912588]],
           'td': [[-0.2794625, 0.3311987], [-1.195898, 1.057361], [0.5440972, -0.977567]]},
 'pinv': {'g': [[[-3.839221, 8.012727, 7.922185], [0.7516965, -0.619348, 0.2976954],
                 [-1.225325, 3.605199, -0.3924483], [0.3380556, 1.39372, 3.883206]],
                [[-0.9702781, -0.7897511, -0.1923089], [1.381124, 1.286008, 0.3527429]]],
          'p': [[0.06685674, -1.102353, 0.6537893, -0.9639771],
                [-0.09982534, 0.2907121, -2.982038, 0.8771826],
                [-0.1016189, -0.1948343, -2.357166, 1.698225]],
          'q': [[0.3415702, 0.8257824], [-0.7626547, 0.1687844], [0.3129418, -1.071187]]},
 'tridiag': {'g': [[[[0.5456567, 0.8208591, 0.4038322, 0.0],
                     [-0.3562113, -0.4178758, -0.5167729, -0.1987538],
                     [0.0, 0.9360343, 0.588585, 0.003853664]]],
                   [[[1.307612, 1.053719], [2.833961, -2.867378], [-0.1652772, 1.970463],
                     [0.6813298, -3.156464]]]],
             'm': [[[2.545898, -1.633921], [4.743392, 4.039473], [3.914636, 1.032639],
                    [0.8359085, 3.352869]]],
             's': [[[0.133684, -0.162952], [0.04133748, 0.2537806], [0.3081856, -0.1744528],
                    [0.06202962, 0.07730445]]],
             's2': [[0.133684, 0.04133748, 0.3081856, 0.06202962]]}}


import pytest  # noqa: E402

from tests.breadth_check import assert_matches, run_case  # noqa: E402


@pytest.mark.parametrize("case", sorted(TF))
def test_matches_tensorflow(case):
    got = run_case(globals()["c_" + case])
    for key, want in TF[case].items():
        assert_matches(got[key], want, f"{case}.{key}")


def test_band_part_selects_as_tf_outside_the_band():
    # TF's MatrixBandPart copies the band and writes +0 elsewhere: an infinite or NaN
    # entry outside the band gives 0 (a product with a 0/1 mask gave NaN), and so does a
    # negative one (-0 before); its gradient is the band of the incoming one
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        m = tf.constant([[1.0, -2.0, np.inf], [-4.0, 5.0, -np.inf], [np.nan, -1.0, 2.0]])
        b = tf.matrix_band_part(m, 0, 1)
        g = tf.gradients(tf.reduce_sum(b * [[-1.0, 2, 3], [4, -5, 6], [7, 8, -9]]), m)[0]
        with tf.Session() as sess:
            band, grad = sess.run([b, g])
    # TF 2.21
    np.testing.assert_array_equal(band, [[1, -2, 0], [0, 5, -np.inf], [0, 0, 2]])
    assert not np.signbit(band[[0, 1, 2, 2], [2, 0, 0, 1]]).any()
    np.testing.assert_array_equal(grad, [[-1, 2, 0], [0, -5, 6], [0, 0, -9]])
