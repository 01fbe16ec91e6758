"""What the fourteenth differential probe (d) found in TF1 programs written as
scientists, quants and engineers wrote them -- Black-Scholes greeks and Monte Carlo
pricing, linear algebra and Gaussian likelihoods, maximum likelihood with Newton's
method, Kalman filters, N-body forces, finite-difference stencils, optimal control
through a simulated trajectory -- in float64 as often as float32, against real
TensorFlow 2.21 (compat.v1, v2 behaviour disabled).  The numbers are TF 2.21's."""
import numpy as np
import pytest

import symgrad.compat.v1 as tf


def test_hessians_of_a_price_built_on_placeholders_without_shape():
    # the Black-Scholes notebooks: S, K, sigma, r, T = tf.placeholder(tf.float64) (no
    # shape), greeks by tf.gradients and gamma by tf.hessians; symgrad refused the
    # Hessian (ys of unknown rank) -- TF sizes it from the values fed
    with tf.Graph().as_default():
        S, K, sigma, r, T = [tf.placeholder(tf.float64) for _ in range(5)]
        Phi = tf.distributions.Normal(tf.cast(0., tf.float64), tf.cast(1., tf.float64)).cdf
        d1 = (tf.log(S / K) + (r + sigma ** 2 / 2) * T) / (sigma * tf.sqrt(T))
        d2 = d1 - sigma * tf.sqrt(T)
        npv = S * Phi(d1) - K * tf.exp(-r * T) * Phi(d2)
        gamma, volga = tf.hessians(npv, [S, sigma])
        with tf.Session() as sess:
            out = sess.run([npv, gamma, volga], {S: 100., K: 110., sigma: 0.2, r: 0.03, T: 1.5})
            np.testing.assert_allclose(out, [7.62835611, 0.01623086, 6.61859666], rtol=1e-7)
            assert np.shape(out[1]) == ()
            h = sess.run([gamma, volga], {S: [90., 100., 110.], K: 100., sigma: [0.1, 0.2, 0.3],
                                          r: 0.01, T: 1.0})
    np.testing.assert_allclose(h[0], np.diag([2.94690638e-02, 1.97239665e-02, 1.06631267e-02]),
                               rtol=1e-7)
    np.testing.assert_allclose(h[1], np.diag([2.16467620e+02, -1.47929749e+00, 1.29959026e+01]),
                               rtol=1e-7)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_is_nan_as_tf():
    # TF 2.21's kernel puts NaN in the lower triangle of each such matrix of a batch
    # (zeros above) and factors the others; symgrad raised numpy's LinAlgError, dressed
    # as "inputs of shapes (3, 3, 3) do not fit together"
    B = np.array([[[4., 2., 0.], [2., 5., 1.], [0., 1., -3.]],
                  [[4., 1., 0.], [1., 3., 0.], [0., 0., 2.]],
                  [[-1., 0, 0], [0, 2, 0], [0, 0, 2]]])
    nan = np.nan
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [None, 3, 3])
        ones = tf.ones([3, 3, 1], tf.float64)
        chol = tf.cholesky(a)
        with tf.Session() as sess:
            L, logdet, x, g = sess.run([chol, tf.linalg.logdet(a), tf.cholesky_solve(chol, ones),
                                        tf.gradients(tf.reduce_sum(chol), a)[0]], {a: B})
    failed = [[nan, 0., 0.], [nan, nan, 0.], [nan, nan, nan]]
    np.testing.assert_allclose(L, [failed, [[2., 0., 0.], [0.5, 1.6583124, 0.],
                                            [0., 0., 1.41421356]], failed], rtol=1e-7)
    np.testing.assert_allclose(logdet, [nan, 3.09104245, nan], rtol=1e-8)
    np.testing.assert_allclose(x[1, :, 0], [0.18181818, 0.27272727, 0.5], rtol=1e-7)
    assert np.isnan(x[0]).all() and np.isnan(x[2]).all()
    np.testing.assert_allclose(g[1], [[0.20634446, 0.17462216, 0.17462216],
                                      [0.17462216, 0.30151134, 0.30151134],
                                      [0.17462216, 0.30151134, 0.35355339]], rtol=1e-7)
    assert np.isnan(g[0]).all() and np.isnan(g[2]).all()


def test_fast_least_squares_of_a_singular_system_is_nan_as_tf():
    # matrix_solve_ls (fast: through Cholesky) of a rank-deficient matrix
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [2, 2])
        b = tf.constant([[1.], [1.]], tf.float64)
        with tf.Session() as sess:
            x = sess.run(tf.matrix_solve_ls(a, b), {a: [[1., 2.], [2., 4.]]})
            logdet = sess.run(tf.linalg.logdet(a), {a: [[1., 2.], [2., 1.]]})
    assert x.shape == (2, 1) and np.isnan(x).all() and np.isnan(logdet)


def test_inverting_a_singular_matrix_is_tfs_invalid_argument_error():
    # TF: InvalidArgumentError "Input is not invertible." (matrix_inverse, matrix_solve
    # and the gradient through them); symgrad raised numpy's LinAlgError
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [2, 2])
        b = tf.constant([[1.], [1.]], tf.float64)
        singular = {a: [[1., 2.], [2., 4.]]}
        with tf.Session() as sess:
            for t in (tf.matrix_inverse(a), tf.matrix_solve(a, b),
                      tf.gradients(tf.reduce_sum(tf.matrix_inverse(a)), a)[0]):
                with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
                    sess.run(t, singular)
            assert sess.run(tf.matrix_determinant(a), singular) == 0.0


def test_an_infinite_gradient_is_selected_away_by_maximum_where_and_clip():
    # sqrt(max(v, 0)) -- the full-truncation Euler scheme of Heston's variance: TF's
    # maximum/select/clip gradients select g, so the inf of sqrt at 0 gives 0 where
    # the branch is not taken; symgrad multiplied g by a 0/1 mask (inf * 0 = NaN)
    with tf.Graph().as_default():
        v = tf.constant([-1.0, 0.0, 4.0], tf.float64)
        ys = [tf.sqrt(tf.maximum(v, 0.)), tf.sqrt(tf.where(v > 0, v, tf.zeros_like(v))),
              tf.sqrt(tf.clip_by_value(v, 0., 10.))]
        with tf.Session() as sess:
            g = sess.run([tf.gradients(y, v)[0] for y in ys])
    np.testing.assert_array_equal(g, [[0., np.inf, 0.25], [0., 0., 0.25], [0., np.inf, 0.25]])


def _heston(step_fn):
    rs = np.random.RandomState(3)
    z = tf.constant(rs.randn(50, 2, 8))
    kappa = tf.Variable(2.0, dtype=tf.float64)
    theta = tf.Variable(0.04, dtype=tf.float64)
    xi = tf.Variable(0.3, dtype=tf.float64)
    rho, dt = tf.constant(-0.7, tf.float64), 1.0 / 50

    def step(state, zt):
        s, v = state
        vp = tf.maximum(v, 0.)
        z2 = rho * zt[0] + tf.sqrt(1 - rho ** 2) * zt[1]
        s_new = s * tf.exp(-0.5 * vp * dt + tf.sqrt(vp * dt) * zt[0])
        return s_new, v + kappa * (theta - vp) * dt + xi * tf.sqrt(vp * dt) * z2
    s0 = tf.fill([8], tf.constant(100., tf.float64))
    v0 = tf.fill([8], tf.constant(0.04, tf.float64))
    price = tf.reduce_mean(tf.maximum(step_fn(step, z, s0, v0) - 100., 0.))
    return price, tf.gradients(price, [kappa, theta, xi])


@pytest.mark.parametrize("loop", ["scan", "while_loop"])
def test_heston_monte_carlo_greeks_through_a_scan_and_a_while_loop(loop):
    # the variance hits 0 on some paths: the greeks were NaN
    def by_scan(step, z, s0, v0):
        return tf.scan(step, z, initializer=(s0, v0))[0][-1]

    def by_while(step, z, s0, v0):
        def body(i, s, v):
            return (i + 1,) + step((s, v), z[i])
        return tf.while_loop(lambda i, s, v: i < 50, body, [tf.constant(0), s0, v0])[1]
    with tf.Graph().as_default():
        price, greeks = _heston(by_scan if loop == "scan" else by_while)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            p, g = sess.run([price, greeks])
    np.testing.assert_allclose(p, 15.77657636, rtol=1e-8)
    np.testing.assert_allclose(g, [1.10396169e-01, 1.30848898e+02, -2.03388344e+00], rtol=1e-7)


def test_matrix_set_diag_of_pairwise_distances_of_a_fed_number_of_particles():
    # N-body: r2 = |x_i - x_j|^2 of pos = placeholder([None, 3]); the self-interaction
    # removed with tf.matrix_set_diag(r2, inf * ones([n])); symgrad refused matrices
    # whose size is known at run time
    pos0 = np.random.RandomState(7).rand(6, 3) * 3
    with tf.Graph().as_default():
        pos = tf.placeholder(tf.float64, [None, 3])
        n = tf.shape(pos)[0]
        diff = tf.expand_dims(pos, 1) - tf.expand_dims(pos, 0)
        r2 = tf.matrix_set_diag(tf.reduce_sum(diff ** 2, axis=-1), tf.ones([n], tf.float64) * np.inf)
        coul = tf.reduce_sum(1.0 / tf.sqrt(r2), axis=1, keepdims=True)
        force = tf.gradients(tf.reduce_sum(coul), pos)[0]
        with tf.Session() as sess:
            c, f = sess.run([coul, force], {pos: pos0})
    np.testing.assert_allclose(c[:, 0], [2.22155509, 2.31098593, 4.59390985, 2.60534533,
                                         4.48005108, 2.51096948], rtol=1e-8)
    np.testing.assert_allclose(f, [[1.43737092, -0.69113988, 0.38401182],
                                   [-1.01223847, -1.59072321, 0.38592091],
                                   [-13.95794306, 0.29064726, 3.16232432],
                                   [0.20692635, 0.01740954, -1.71181959],
                                   [15.34265158, 1.70038414, -1.88368216],
                                   [-2.01676733, 0.27342215, -0.33675531]], rtol=1e-7, atol=1e-8)
