"""tf.contrib.opt.ScipyOptimizerInterface (Raissi's PINNs' L-BFGS-B phase).  TF 2.21 has
no tf.contrib, so the oracle is scipy itself on the same objective in numpy: with the
loss and gradient equal in float64, every iterate, count and result must be scipy's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf

scipy_optimize = pytest.importorskip("scipy.optimize")


def rosen(x):
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


def rosen_graph(x):
    return tf.reduce_sum(100.0 * tf.square(x[1:] - tf.square(x[:-1])) + tf.square(1.0 - x[:-1]))


def test_lbfgsb_follows_scipy_step_for_step_with_callbacks_and_fetches():
    x0 = np.array([-1.2, 1.0, 0.5, -0.3])
    want = scipy_optimize.minimize(lambda x: (rosen(x), scipy_optimize.rosen_der(x)), x0,
                                   jac=True, method="L-BFGS-B", options={"maxiter": 30})
    with tf.Graph().as_default():
        a = tf.Variable(x0[:2], dtype=tf.float64)
        b = tf.Variable(x0[2:].reshape(2, 1), dtype=tf.float64)
        unused = tf.Variable(5.0, dtype=tf.float64)
        loss = rosen_graph(tf.concat([a, tf.reshape(b, [-1])], 0))
        opt = tf.contrib.opt.ScipyOptimizerInterface(loss, var_list=[a, b, unused],
                                                     method="L-BFGS-B",
                                                     options={"maxiter": 30})
        seen, steps = [], []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            opt.minimize(sess, fetches=[loss], loss_callback=seen.append,
                         step_callback=lambda xk: steps.append(xk.copy()))
            got = np.concatenate([sess.run(a), sess.run(b).ravel()])
            assert sess.run(unused) == 5.0   # zero gradient: untouched
    assert len(seen) == want.nfev and len(steps) == want.nit
    np.testing.assert_allclose(got, want.x, rtol=0, atol=1e-9)   # (30 steps of roundings)
    np.testing.assert_allclose(seen[-1], rosen(want.x), rtol=1e-6)
    assert steps[0].shape == (5,)


def test_bounds_and_constraints_reach_scipy():
    with tf.Graph().as_default():
        x = tf.Variable([2.0, 2.0], dtype=tf.float64)
        loss = tf.reduce_sum(tf.square(x - [3.0, -1.0]))
        bounded = tf.contrib.opt.ScipyOptimizerInterface(loss, var_to_bounds={x: (0.0, 2.5)})
        constrained = tf.contrib.opt.ScipyOptimizerInterface(
            loss, equalities=[x[0] + x[1] - 1.0], inequalities=[x[0] - 2.0 * x[1]],
            method="SLSQP")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            bounded.minimize(sess)
            np.testing.assert_allclose(sess.run(x), [2.5, 0.0], atol=1e-8)
            constrained.minimize(sess)
            got = sess.run(x)
    # scipy on the same problem in numpy: min |x - (3, -1)|^2, x0 + x1 = 1, x0 >= 2 x1
    target = np.array([3.0, -1.0])
    want = scipy_optimize.minimize(
        lambda v: (np.sum((v - target) ** 2), 2 * (v - target)), [2.5, 0.0], jac=True,
        method="SLSQP", constraints=[
            {"type": "eq", "fun": lambda v: v[0] + v[1] - 1.0, "jac": lambda v: [1.0, 1.0]},
            {"type": "ineq", "fun": lambda v: v[0] - 2 * v[1], "jac": lambda v: [1.0, -2.0]}])
    np.testing.assert_allclose(got, want.x, rtol=1e-10)
    np.testing.assert_allclose(got, [2.5, -1.5], atol=1e-3)
    with tf.Graph().as_default():
        x = tf.Variable([2.0, 2.0], dtype=tf.float64)
        loss = tf.reduce_sum(tf.square(x))
        with pytest.raises(ValueError, match="Optimizer keyword arg 'jac' is set automatically"):
            tf.contrib.opt.ScipyOptimizerInterface(loss, jac=False)
        with pytest.raises(ValueError, match="Bounds must be set using the var_to_bounds"):
            tf.contrib.opt.ScipyOptimizerInterface(loss, bounds=[(0, 1)] * 2)


def test_the_feed_dict_reaches_every_evaluation_and_variables_stay_float32():
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [None, 1])
        w = tf.Variable([[0.5]])
        loss = tf.reduce_mean(tf.square(tf.matmul(t, w) - 2.0 * t))
        opt = tf.contrib.opt.ScipyOptimizerInterface(loss, options={"maxiter": 50})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            opt.minimize(sess, feed_dict={t: [[1.0], [2.0], [3.0]]})
            value = sess.run(w)
    assert value.dtype == np.float32 and abs(value[0, 0] - 2.0) < 1e-4
