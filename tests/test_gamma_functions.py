"""lgamma, digamma and erfc as elementwise primitives: the polygamma algorithm
(``ops.gamma``) against mpmath, TF's values and derivatives (real TensorFlow 2.21:
lgamma' = digamma, digamma' = polygamma(1, x)), and the compiled code (its own
instructions, ``lower.gamma``) against the reference evaluator."""
import mpmath
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.ops import gamma

EDGES = np.array([-3.5, -2., -1.5, -1., -0.5, 0., 1e-8, 0.5, 1., 1.5, 2., 3.7, 10., 1e3, 1e10,
                  np.inf, -np.inf, np.nan])


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_polygamma_against_mpmath(n):
    rng = np.random.default_rng(n)
    xs = np.concatenate([rng.uniform(-20, 20, 120), rng.uniform(0, 2, 40),
                         10 ** rng.uniform(-8, 8, 40), -10 ** rng.uniform(-3, 5, 40) + 0.37])
    got = gamma.polygamma(n, xs)
    want = np.array([float(mpmath.polygamma(n, mpmath.mpf(float(x)))) for x in xs])
    # (relative, except near a root of psi^(n) at negative x, where the value is tiny)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_values_at_the_edges_are_tfs():
    x = tf.constant(EDGES)
    with tf.Session() as sess:
        lg, dg, ec = sess.run([tf.lgamma(x), tf.math.digamma(x), tf.math.erfc(x)])
    inf, nan = np.inf, np.nan
    np.testing.assert_allclose(lg, [-1.30900668, inf, 0.860047015, inf, 1.26551212, inf,
                                    18.4206807, 0.572364943, 0, -0.120782238, 0, 1.42807233,
                                    12.8018275, 5905.22042, 2.20258509e11, inf, inf, nan],
                               rtol=1e-8)
    np.testing.assert_allclose(dg, [1.38887093, nan, 0.703156641, nan, 0.036489974, nan,
                                    -1.00000001e8, -1.96351003, -0.577215665, 0.036489974,
                                    0.422784335, 1.16715354, 2.25175259, 6.9072552, 23.0258509,
                                    inf, nan, nan], rtol=1e-8)
    np.testing.assert_allclose(ec, [1.99999926, 1.99532227, 1.96610515, 1.84270079, 1.52049988,
                                    1, 0.999999989, 0.479500122, 0.157299207, 0.0338948535,
                                    4.67773498e-3, 1.67151058e-7, 2.08848758e-45, 0, 0, 0, 2,
                                    nan], rtol=1e-8)
    x32 = tf.constant(EDGES.astype(np.float32))
    with tf.Session() as sess:
        out = sess.run(tf.digamma(x32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[7:12], [-1.9635108, -0.57721591, 0.036489964, 0.42278421,
                                           1.1671536], rtol=1e-6)


def test_first_and_second_derivatives_are_tfs():
    v = tf.Variable(np.array([0.5, 1.5, 3.7, -1.5, -0.5]))
    found = {}
    for name, f in [("lgamma", tf.lgamma), ("digamma", tf.digamma), ("erfc", tf.erfc)]:
        g = tf.gradients(f(v), v)[0]
        found[name] = (g, tf.gradients(g, v)[0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(found)
    want = {
        "lgamma": ([-1.96351003, 0.03648997, 1.16715354, 0.70315664, 0.03648997],
                   [4.9348022, 0.9348022, 0.31003786, 9.37924664, 8.9348022]),
        "digamma": ([4.9348022, 0.9348022, 0.31003786, 9.37924664, 8.9348022],
                    [-16.82879664, -0.82879664, -0.09539531, -0.23620405, -0.82879664]),
        "erfc": ([-0.878782579, -0.118930289, -1.27927408e-06, -0.118930289, -0.878782579],
                 [0.878782579, 0.356790868, 9.46662823e-06, -0.356790868, -0.878782579])}
    for name, (first, second) in want.items():
        np.testing.assert_allclose(got[name][0], first, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(got[name][1], second, rtol=1e-7, atol=1e-8)


def test_compiled_values_and_derivatives_follow_the_reference_evaluator():
    xs = np.concatenate([EDGES, [-50946.91018847264, 0.0608984881757, 7.25, -7.25]])
    with sg.Graph().as_default():
        x = sg.placeholder(np.float64, (len(xs),))
        outs = []
        for f in (sg.lgamma, sg.digamma, sg.erfc):
            y = f(x)
            g = sg.gradients(sg.reduce_sum(y), x)[0]
            outs += [y, g, sg.gradients(sg.reduce_sum(g), x)[0]]
        compiled = sg.compile(outs, [x], wait=True)(xs)
        reference = sg.evaluate(outs, {x: xs})
    for k, (a, b) in enumerate(zip(compiled, reference)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=0, equal_nan=True, err_msg=str(k))


def test_polygamma_order_must_be_a_non_negative_integer():
    with pytest.raises(ValueError, match="non-negative integer"):
        gamma.polygamma(-1, np.array([1.0]))
    assert gamma.cot_derivative(1) == (-1, 0, -1)      # d/dx cot(pi x) = -pi (1 + c^2)


def test_tf_math_polygamma_of_a_known_order_and_its_gradient_are_tfs():
    x = tf.Variable(np.array([0.5, 1.5, -1.5, 3.]))
    fetch = []
    for a in (2., 3.):
        y = tf.math.polygamma(tf.constant([a] * 4, tf.float64), x)
        fetch += [y, tf.gradients(tf.reduce_sum(y), x)[0]]
    with tf.Session() as sess:
        sess.run(x.initializer)
        got = sess.run(fetch + [tf.polygamma(tf.constant(1., tf.float64), x)])
    want = [[-16.82879664, -0.82879664, -0.23620405, -0.15411381],
            [97.409091, 1.40909103, 194.594276, 0.118939402],
            [97.409091, 1.40909103, 194.594276, 0.118939402],
            [-771.47425, -3.47424983, -0.313756, -0.136266123],
            [4.9348022, 0.9348022, 9.37924664, 0.39493407]]
    for value, expected in zip(got, want):
        np.testing.assert_allclose(value, expected, rtol=1e-7)
    with pytest.raises(ValueError, match="one non-negative integer for every entry"):
        tf.math.polygamma(tf.constant([1., 2., 1., 1.], tf.float64), x)
    with pytest.raises(ValueError, match="one non-negative integer"):
        tf.math.polygamma(0.5, x)
