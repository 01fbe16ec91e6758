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


def test_normal_tails_quantile_and_mode_as_tfs_special_math():
    # censored (Tobit) likelihoods and value-at-risk: Normal.log_cdf, survival_function,
    # log_survival_function, quantile and mode were missing, and cdf was 0.5(1 + erf),
    # which rounds the lower tail to 0 (TF: ndtr's erfc branch, log_ndtr's series)
    with tf.Graph().as_default():
        x = tf.constant([-40., -25., -15., -5., -0.3, 0., 0.5, 3., 6., 9., 30.], tf.float64)
        mu, sd = tf.Variable(0.5, dtype=tf.float64), tf.Variable(1.5, dtype=tf.float64)
        d = tf.distributions.Normal(mu, sd)
        y = tf.placeholder(tf.float64, [None])
        cens = tf.placeholder(tf.bool, [None])
        tobit = tf.reduce_sum(tf.where(cens, d.log_cdf(y), d.log_prob(y)))
        q = d.quantile(tf.constant([1e-10, 0.01, 0.5, 0.99], tf.float64))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            cdf, lcdf, sf, lsf, gl, quant, mode = sess.run([
                d.cdf(x), d.log_cdf(x), d.survival_function(x), d.log_survival_function(x),
                tf.gradients(tf.reduce_sum(d.log_cdf(x)), [mu, sd]), q, d.mode()])
            t = sess.run([tobit] + tf.gradients(tobit, [mu, sd]),
                         {y: [-30., 0.2, 1.0, -8.], cens: [True, False, False, True]})
    np.testing.assert_allclose(cdf, [7.38948101e-161, 4.10599620e-065, 2.48996712e-025,
                                     1.22866390e-004, 2.96901429e-001, 3.69441340e-001, 0.5,
                                     9.52209648e-001, 9.99877134e-001, 9.99999993e-001, 1.0],
                               rtol=1e-8)
    np.testing.assert_allclose(lcdf, [-3.68716142e+02, -1.48255583e+02, -5.66523578e+01,
                                      -9.00441305e+00, -1.21435509e+00, -9.95763306e-01,
                                      -6.93147181e-01, -4.89700502e-02, -1.22873939e-04,
                                      -7.28011010e-09, -2.08130783e-86], rtol=1e-8)
    np.testing.assert_allclose(sf[-3:], [1.22866390e-004, 7.28011007e-09, 2.08130783e-86],
                               rtol=1e-8)
    np.testing.assert_allclose(lsf, [-7.38948101e-161, -4.10599620e-065, -2.48996712e-025,
                                     -1.22873939e-004, -3.52258182e-001, -4.61149091e-001,
                                     -6.93147181e-001, -3.04093150e+000, -9.00441305e+000,
                                     -1.87381199e+001, -1.97289322e+002], rtol=1e-8)
    np.testing.assert_allclose(gl, [-41.01500167, 761.91277925], rtol=1e-9)
    np.testing.assert_allclose(quant, [-9.04201135, -2.98952181, 0.5, 3.98952181], rtol=1e-8)
    assert mode == 0.5
    np.testing.assert_allclose(t, [-232.11830928, -17.38833029, 297.09837332], rtol=1e-9)


def test_the_cdf_methods_and_modes_of_the_other_distributions():
    # TF's Distribution: log_cdf = log(cdf), survival_function = 1 - cdf; Laplace's
    # own log_cdf (log_cdf_laplace); Exponential's log_survival_function; modes with
    # NaN where TF calls them undefined (allow_nan_stats)
    with tf.Graph().as_default():
        x = tf.constant([-40., -25., -15., -5., -0.3, 0., 0.5, 3., 6., 9., 30.], tf.float64)
        mu, sd = tf.Variable(0.5, dtype=tf.float64), tf.Variable(1.5, dtype=tf.float64)
        lap = tf.distributions.Laplace(mu, sd)
        uni = tf.distributions.Uniform(low=tf.constant(0.3 - 1, tf.float64),
                                       high=tf.constant(1.2 + 3, tf.float64))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run([
                lap.log_cdf(x), lap.log_survival_function(x),
                tf.gradients(tf.reduce_sum(lap.log_cdf(x)), [mu, sd]),
                uni.log_cdf(tf.constant([0.2, 3.0], tf.float64)),
                uni.survival_function(tf.constant([0.2, 3.0], tf.float64)),
                tf.distributions.Exponential(sd).log_survival_function(tf.abs(x)),
                tf.distributions.Exponential(sd).mode(),
                tf.distributions.Gamma(tf.constant([0.5, 2.0], tf.float64), sd).mode(),
                tf.distributions.Beta(tf.constant([0.5, 2.0, 3.0], tf.float64),
                                      tf.constant([2.0, 2.0, 1.0], tf.float64)).mode(),
                tf.distributions.StudentT(3.0, 0.25, 2.0).mode()])
            with pytest.raises(NotImplementedError, match="mode"):
                uni.mode()
    np.testing.assert_allclose(out[0], [-2.76931472e+01, -1.76931472e+01, -1.10264805e+01,
                                        -4.35981385e+00, -1.22648051e+00, -1.02648051e+00,
                                        -6.93147181e-01, -9.91993143e-02, -1.28631432e-02,
                                        -1.73118631e-03, -1.43828580e-09], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[1], [-9.39764408e-13, -2.06996888e-08, -1.62653679e-05,
                                        -1.28631432e-02, -3.47181733e-01, -4.43580854e-01,
                                        -6.93147181e-01, -2.35981385e+00, -4.35981385e+00,
                                        -6.35981385e+00, -2.03598138e+01], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[2], [-4.0793102, 39.09037863], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[3], [-1.69459572, -0.28090239], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[4], [0.81632653, 0.24489796], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[5], [-60., -37.5, -22.5, -7.5, -0.45, 0., -0.75, -4.5, -9.,
                                        -13.5, -45.])
    assert np.isnan(out[6])
    np.testing.assert_allclose(out[7], [np.nan, 0.66666667], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(out[8], [np.nan, 0.5, np.nan])
    assert out[9] == 0.25


def test_float64_distributions_refuse_float32_parameters_and_keep_float64_values():
    # TF: a Python number next to a float64 parameter is float32, and the constructor
    # refuses the pair (ValueError); symgrad cast 4.2 through float32 (4.19999981).
    # A number given to a method is made in the distribution's dtype (0.1 stays 0.1)
    c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
    with tf.Graph().as_default():
        for make in (lambda: tf.distributions.Uniform(low=c(-0.7), high=4.2),
                     lambda: tf.distributions.Normal(c(-0.7), 1.1),
                     lambda: tf.distributions.Normal(0.1, c(1.1)),
                     lambda: tf.distributions.Laplace(c(-0.7), 1.1),
                     lambda: tf.distributions.Gamma(c(2.0), 1.1),
                     lambda: tf.distributions.Beta(c(2.0), 1.1),
                     lambda: tf.distributions.StudentT(c(3.0), 0.1, 1.1)):
            with pytest.raises(ValueError, match="same type"):
                make()
        ds = [tf.distributions.Uniform(low=c(-0.7), high=c(4.2)),
              tf.distributions.Gamma(c(2.0), c(1.1)), tf.distributions.Beta(c(2.0), c(1.1)),
              tf.distributions.StudentT(c(3.0), c(0.1), c(1.1)),
              tf.distributions.Exponential(c(1.3))]
        with tf.Session() as sess:
            out = sess.run([d.log_prob(0.1) for d in ds] + [ds[0].cdf(0.1)])
    np.testing.assert_allclose(out, [-1.589235205116581, -2.2219647333853954,
                                     -1.475873620026126, -1.0961990294278345,
                                     0.13236426446749106, 0.16326530612244897], rtol=1e-14)


def test_matrix_norms_over_two_axes_are_tfs():
    # tf.norm(a, ord=1, axis=[1, 2]) is the largest column sum of |a| (ord=inf: row
    # sum): symgrad summed every |a_ij| (and took max |a_ij| for inf), and ord=2 over
    # two axes -- the spectral norm -- was the Frobenius norm, silently
    a0 = np.random.RandomState(11).randn(2, 3, 4)
    with tf.Graph().as_default():
        a = tf.Variable(a0)
        n1 = tf.norm(a, ord=1, axis=[1, 2])
        ninf = tf.norm(a, ord=np.inf, axis=[1, 2])
        g1 = tf.gradients(n1[0], a)[0]
        normalized, n = tf.linalg.normalize(a, ord=1, axis=[1, 2])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run([n1, ninf, g1, n])
        with pytest.raises(ValueError, match="spectral"):
            tf.norm(a, ord=2, axis=[1, 2])
        with pytest.raises(ValueError, match="vector norm"):
            tf.norm(a, ord="fro")
    np.testing.assert_allclose(out[0], [3.44445472, 3.35199352], rtol=1e-8)
    np.testing.assert_allclose(out[1], [5.17341143, 3.68003019], rtol=1e-8)
    np.testing.assert_array_equal(out[2][0, :2], [[0., 0., 0., -1.], [0., 0., 0., 1.]])
    np.testing.assert_allclose(out[3][:, 0, 0], [3.44445472, 3.35199352], rtol=1e-8)


@pytest.mark.parametrize("which", ["small", "s7", "huge"])
def test_expm_by_scaling_and_squaring_with_its_gradient_as_tf(which):
    # tf.linalg.expm (transition matrices of continuous-time Markov chains, linear
    # ODEs) was missing; each 1-norm picks another Padé degree (3 .. 13 with squarings)
    rs = np.random.RandomState(11)
    scales = {"small": 0.003, "s5": 0.05, "s7": 0.2, "s9": 0.5, "big": 1.0, "huge": 6.0}
    mats = {k: rs.randn(3, 3) * s for k, s in scales.items()}
    expected = {
        "small": ([1.005266765004e+00, -8.611547993750e-04, -1.458026602818e-03,
                   -7.980019022206e-03, 9.999781158085e-01, -9.536911568980e-04,
                   -1.618915371894e-03, 9.474877165316e-04, 1.001264671014e+00],
                  [-4.0159301621, -2.9933527105, -2.0119361658, -1.0006771683, 0.0062117924,
                   1.0041834614, 2.0057175249, 2.9941491139, 4.0058404716]),
        "s7": ([1.011748131561, -0.145849154702, 0.213439635119, -0.045316776594,
                1.162495806844, 0.353227552991, 0.13568808908, 0.007604518274, 1.174585792758],
               [-3.8589364342, -3.2483962247, -2.1917230359, -0.6715216284, 0.4577854806,
                1.2805621027, 1.8109213334, 3.8173286328, 4.7559038548]),
        "huge": ([-1.215040808709, 6.350254341252, 12.057631781182, -3.101379175957,
                  16.208635481758, 30.777721162599, -13.864932361243, 72.48386849692,
                  137.630737431282],
                 [-8.6312040771, -19.4907653717, -83.556859719, 36.0016764769, 78.5747507711,
                  332.6118472746, 71.3654856327, 156.8677859761, 665.8743807866]),
    }
    with tf.Graph().as_default():
        a = tf.Variable(mats[which])
        e = tf.linalg.expm(a)
        w = tf.constant(np.arange(9.).reshape(3, 3) - 4)
        g = tf.gradients(tf.reduce_sum(e * w), a)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ev, gv = sess.run([e, g])
    np.testing.assert_allclose(ev.ravel(), expected[which][0], rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(gv.ravel(), expected[which][1], rtol=1e-9, atol=1e-10)


def test_expm_of_a_fed_batch_and_a_rate_matrix():
    with tf.Graph().as_default():
        b = tf.placeholder(tf.float64, [None, 2, 2])
        rates = tf.Variable([0.3, 0.7], dtype=tf.float64)
        q = tf.stack([tf.stack([-rates[0], rates[0]]), tf.stack([rates[1], -rates[1]])])
        pt = tf.linalg.expm(q * 2.5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            eb, p = sess.run([tf.linalg.expm(b), pt],
                             {b: np.stack([np.eye(2) * 3, [[0, 1], [-1, 0]], [[40., 1.], [0., -2.]]])})
    np.testing.assert_allclose(p, [[0.7246255, 0.2753745], [0.6425405, 0.3574595]], rtol=1e-7)
    np.testing.assert_allclose(eb[0], np.eye(2) * 2.00855369e+01, rtol=1e-8)
    np.testing.assert_allclose(eb[1], [[0.540302306, 0.841470985], [-0.841470985, 0.540302306]],
                               rtol=1e-8)


def test_igamma_igammac_their_gradients_and_the_gamma_cdf_as_tf():
    # tf.math.igamma / igammac (the Gamma distribution's cdf, chi-square p-values) were
    # missing, and with them Gamma.cdf, log_cdf and survival_function
    a = [0.5, 1.0, 2.0, 3.0, 10.0, 50.0, 0.1, 5.0, 2.0, 1.0, 200., 3.0]
    x = [0.2, 1.0, 5.0, 0.5, 12.0, 45.0, 3.0, 0.0, 40.0, 1e-8, 190., 1e-3]
    with tf.Graph().as_default():
        at, xt = tf.constant(a, tf.float64), tf.constant(x, tf.float64)
        p, q = tf.math.igamma(at, xt), tf.igammac(at, xt)
        d = tf.distributions.Gamma(tf.constant([2.0, 3.5], tf.float64), tf.constant([1.5, 0.5], tf.float64))
        xx = tf.constant([[0.5], [4.0]], tf.float64)
        with tf.Session() as sess:
            pv, qv, (ga, gx), cdf, lcdf, edge_p, edge_q = sess.run([
                p, q, tf.gradients(tf.reduce_sum(p), [at, xt]), d.cdf(xx), d.log_cdf(xx),
                tf.math.igamma(tf.constant([1.0, -1.0, 0.0, 2.0, 2.0], tf.float64),
                               tf.constant([-1.0, 1.0, 1.0, np.inf, np.nan], tf.float64)),
                tf.math.igammac(tf.constant([1.0, -1.0, 0.0, 2.0, 2.0], tf.float64),
                                tf.constant([-1.0, 1.0, 1.0, np.inf, 0.0], tf.float64))])
    np.testing.assert_allclose(pv, [4.72910743e-01, 6.32120559e-01, 9.59572318e-01, 1.43876780e-02,
                                    7.57607838e-01, 2.46802034e-01, 9.98434728e-01, 0.0, 1.0,
                                    9.99999995e-09, 2.43347427e-01, 1.66541717e-10], rtol=1e-8)
    np.testing.assert_allclose(qv, [5.27089257e-01, 3.67879441e-01, 4.04276820e-02, 9.85612322e-01,
                                    2.42392162e-01, 7.53197966e-01, 1.56527175e-03, 1.0,
                                    1.74182524e-16, 9.99999990e-01, 7.56652573e-01, 1.0], rtol=1e-8)
    np.testing.assert_allclose(ga, [-8.20161406e-01, -4.31729711e-01, -5.58598961e-02,
                                    -2.85202359e-02, -9.71779720e-02, -4.55432921e-02,
                                    -1.83867564e-02, 0.0, -5.73248725e-16, -1.88434650e-07,
                                    -2.23528283e-02, -1.35963583e-09], rtol=1e-7)
    np.testing.assert_allclose(gx, [1.03288309e+00, 3.67879441e-01, 3.36897350e-02, 7.58163325e-02,
                                    8.73643799e-02, 4.78692498e-02, 1.94700358e-03, 0.0,
                                    1.69934170e-16, 9.99999990e-01, 2.29169271e-02, 4.99500250e-07],
                               rtol=1e-7)
    np.testing.assert_allclose(cdf, [[1.73358533e-01, 5.53518610e-04], [9.82648735e-01, 2.20222592e-01]],
                               rtol=1e-8)
    np.testing.assert_allclose(lcdf, [[-1.75239339, -7.49921518], [-0.01750356, -1.51311646]], atol=1e-8,
                               rtol=1e-8)
    np.testing.assert_array_equal(edge_p, [np.nan, np.nan, np.nan, 1.0, np.nan])
    np.testing.assert_array_equal(edge_q, [np.nan, np.nan, np.nan, 0.0, 1.0])


def test_betainc_and_the_beta_and_student_t_cdfs_as_tf():
    # tf.math.betainc was missing, and with it Beta.cdf and StudentT.cdf (t-tests, the
    # t copulas of quants); TF's gradient reaches x only
    c = lambda v: tf.constant(v, tf.float64)  # noqa: E731
    with tf.Graph().as_default():
        a = c([2.0, 0.5, 5.0, 1.0, 30.0, 0.1, 3.0, 2.0, 2.0, 1.5])
        b = c([3.0, 0.5, 1.5, 1.0, 40.0, 0.2, 3.0, 2.0, 2.0, 200.])
        x = c([0.4, 0.5, 0.9, 0.3, 0.45, 0.01, 0.0, 1.0, 0.999, 0.01])
        i = tf.math.betainc(a, b, x)
        gx = tf.gradients(tf.reduce_sum(i), x)[0]
        assert tf.gradients(tf.reduce_sum(i), [a, b]) == [None, None]
        with pytest.raises(ValueError, match="one shape"):
            tf.math.betainc(c(2.0), c([1., 2., 3.]), c([[0.1], [0.7]]))
        beta = tf.distributions.Beta(c([2.0, 0.7]), c([1.1, 3.0]))
        t = tf.distributions.StudentT(c(3.0), c(0.3), c(1.2))
        xt = c([-30., -1.0, 0.3, 0.5, 2.0, 50.])
        xb = tf.Variable([0.2, 0.9], dtype=tf.float64)
        gb = tf.gradients(tf.reduce_sum(tf.distributions.Beta(c(2.0), c(1.1)).cdf(xb)), xb)[0]
        with tf.Session() as sess:
            sess.run(xb.initializer)
            out = sess.run([i, gx, beta.cdf(c([0.2, 0.9])), t.cdf(xt), t.survival_function(xt), gb,
                            tf.math.betainc(c([-1., 1., 1., 1., 0.0]), c([1., 1., 1., 1., 1.]),
                                            c([0.5, -0.1, 1.1, np.nan, 0.5]))])
    np.testing.assert_allclose(out[0], [0.5248, 0.5, 0.77617213, 0.3, 0.64474801, 0.43249697, 0.,
                                        1., 0.999997, 0.74123885], rtol=1e-8)
    np.testing.assert_allclose(out[1], [1.728, 6.36619772e-01, 2.80823412e+00, 1.0, 6.23004077e+00,
                                        4.35670029e+00, 0., 0., 5.994e-03, 4.32729722e+01], rtol=1e-8)
    np.testing.assert_allclose(out[2], [0.04553762, 0.99945178], rtol=1e-7)
    np.testing.assert_allclose(out[3], [6.81098275e-05, 1.78979405e-01, 0.5, 5.60883749e-01,
                                        8.74216394e-01, 9.99984512e-01], rtol=1e-8)
    np.testing.assert_allclose(out[4], [9.99931890e-01, 8.21020595e-01, 0.5, 4.39116251e-01,
                                        1.25783606e-01, 1.54883308e-05], rtol=1e-8)
    np.testing.assert_allclose(out[5], [0.45180494, 1.6514084], rtol=1e-7)
    assert np.isnan(out[6]).all()


def test_modified_bessel_functions_and_tfs_gradients():
    # tf.math.bessel_i0/i0e/i1/i1e (von Mises likelihoods) were missing; the gradients
    # are TF's rules, with TF's 1 for I1'(0) and 1/2 for i1e'(0)
    with tf.Graph().as_default():
        x = tf.constant([-50., -20.5, -3., -0.5, 0., 1e-5, 0.5, 2., 7.5, 19.9, 20.1, 35., 100.,
                         700.], tf.float64)
        fs = [tf.math.bessel_i0e, tf.math.bessel_i1e, tf.math.bessel_i0, tf.math.bessel_i1]
        kappa = tf.Variable(2.0, dtype=tf.float64)
        th = tf.constant([0.1, 0.5, -0.3], tf.float64)
        ll = tf.reduce_sum(kappa * tf.cos(th) - np.log(2 * np.pi) - tf.log(tf.math.bessel_i0e(kappa))
                           - kappa)
        with tf.Session() as sess:
            sess.run(kappa.initializer)
            out = sess.run([f(x) for f in fs] + [tf.gradients(tf.reduce_sum(f(x)), x)[0] for f in fs])
            vm = sess.run([ll, tf.gradients(ll, kappa)[0], tf.hessians(ll, kappa)[0]])
    np.testing.assert_allclose(out[0], [0.05656163, 0.08866443, 0.24300035, 0.64503527, 1., 0.99999,
                                        0.64503527, 0.30850832, 0.14831583, 0.09000859, 0.08955376,
                                        0.06767838, 0.03994438, 0.0150813], rtol=1e-6)
    np.testing.assert_allclose(out[1], [-5.59931239e-02, -8.64741135e-02, -1.96826713e-01,
                                        -1.56420803e-01, 0., 4.99995000e-06, 1.56420803e-01,
                                        2.15269289e-01, 1.38041212e-01, 8.77171021e-02,
                                        8.72968518e-02, 6.67044317e-02, 3.97441530e-02,
                                        1.50705194e-02], rtol=1e-8)
    np.testing.assert_allclose(out[2][[0, 4, 8, 12, 13]], [2.93255378e+20, 1., 2.68161312e+02,
                                                           1.07375171e+42, 1.52959335e+302], rtol=1e-8)
    np.testing.assert_allclose(out[3][[2, 5, 10, 13]], [-3.95337022, 5.0e-06, 4.68077395e+07,
                                                        1.52850039e+302], rtol=1e-8)
    np.testing.assert_allclose(out[4][[0, 3, 4, 5, 11]], [5.68502755e-04, 4.88614467e-01, 0.,
                                                          -9.99985000e-01, -9.73946621e-04], rtol=1e-8)
    np.testing.assert_allclose(out[5][[1, 4, 5, 13]], [-2.02793392e-03, 0.5, 4.99990000e-01,
                                                       -1.07531067e-05], rtol=1e-8)
    np.testing.assert_allclose(out[7][[2, 4, 6, 13]], [3.56300251, 1.0, 5.47694760e-01,
                                                       1.52740978e+302], rtol=1e-8)
    np.testing.assert_allclose(vm, [-2.32976539, 0.73459924, -0.49266959], rtol=1e-8)


def test_stateless_random_numbers_are_tfs():
    # common random numbers for Monte Carlo greeks: tf.random.stateless_* gave numbers
    # of numpy's generator; TF draws Philox with a key and counter scrambled from the seed
    with tf.Graph().as_default():
        r = [tf.random.stateless_normal([5], seed=[1, 2]),
             tf.random.stateless_normal([2, 3], seed=[3, 4], dtype=tf.float64, mean=1.0, stddev=2.0),
             tf.random.stateless_uniform([3], seed=[7, 8], minval=-2.0, maxval=3.0, dtype=tf.float64),
             tf.random.stateless_uniform([6], seed=[9, 10], minval=0, maxval=100, dtype=tf.int32),
             tf.random.stateless_truncated_normal([7], seed=[11, 12]),
             tf.random.stateless_normal([2], seed=[-1, 123456789012]),
             tf.random.stateless_normal([2], seed=tf.constant([7, -3], tf.int32))]
        with tf.Session() as sess:
            out = sess.run(r)
            assert (sess.run(r[0]) == out[0]).all()
    np.testing.assert_allclose(out[0], [0.5441101, 0.20738031, 0.07356432, 0.04643455, -1.3015898],
                               rtol=1e-6)
    np.testing.assert_allclose(out[1], [[0.33783088, 1.0556248, -1.97848035],
                                        [3.09241292, 0.42804791, 0.55462507]], rtol=1e-8)
    np.testing.assert_allclose(out[2], [-0.33909347, -0.31971201, 2.84661701], rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(out[3], [65, 75, 62, 92, 18, 58])
    np.testing.assert_allclose(out[4], [0.04715483, -1.6167445, -0.3238886, -1.6440978, -0.988855,
                                        -1.0795019, 0.9155449], rtol=1e-6)
    np.testing.assert_allclose(out[5], [0.5942236, -0.5812925], rtol=1e-6)
    np.testing.assert_allclose(out[6], [0.51473767, 1.1838536], rtol=1e-6)


def test_division_is_named_truediv_as_tf():
    # TF names x / y, tf.truediv and tf.divide "truediv" (tf.div keeps "div"): a program
    # fetching "truediv:0" by name found nothing
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32, [2]), tf.placeholder(tf.float32, [2])
        names = [(a / b).name, tf.truediv(a, b).name, tf.divide(a, b).name, tf.div(a, b).name,
                 (tf.constant([1, 2]) / 2).name, (2.0 / a).name, tf.divide(a, b, name="d").name]
        with tf.name_scope("s"):
            names.append((a / b).name)
        with tf.Session() as sess:
            q = sess.run("truediv:0", {a: [1.0, 3.0], b: [2.0, 4.0]})
    assert names == ["truediv:0", "truediv_1:0", "truediv_2:0", "div:0", "truediv_3:0",
                     "truediv_4:0", "d:0", "s/truediv:0"]
    np.testing.assert_allclose(q, [0.5, 0.75])


def test_seeded_random_ops_in_a_scan_or_while_loop_body_draw_tfs_stream():
    # SABR paths drawn inside tf.scan, noise inside a tf.while_loop: TF's op executes
    # once per iteration, reading on in its Philox stream (and on across runs); symgrad
    # drew numbers of its own inside loop bodies
    with tf.Graph().as_default():
        alpha = tf.Variable(0.3, dtype=tf.float64)
        nu = tf.Variable(0.4, dtype=tf.float64)
        beta, rho = 0.5, -0.4
        f0 = tf.fill([4], tf.constant(100., tf.float64))
        a0 = tf.fill([4], tf.constant(0.3, tf.float64)) * alpha / 0.3

        def step(state, _):
            f, a = state
            z = tf.random_normal([2, 4], seed=11, dtype=tf.float64)
            z2 = rho * z[0] + np.sqrt(1 - rho ** 2) * z[1]
            return (f + a * tf.pow(f, beta) * np.sqrt(0.01) * z[0],
                    a * tf.exp(nu * np.sqrt(0.01) * z2 - 0.5 * nu ** 2 * 0.01))
        # (parallel_iterations=1: TF's iterations then run the op in order; with 10 its
        # gradient's forward sweep may take the numbers in another order from run to run)
        fs, _ = tf.scan(step, tf.range(5), initializer=(f0, a0), parallel_iterations=1)
        price = tf.reduce_mean(tf.maximum(fs[-1] - 100., 0.))
        greeks = tf.gradients(price, [alpha, nu])

        def body(i, f):
            return i + 1, f + tf.random_uniform([4], seed=12, dtype=tf.float64)
        _, fw = tf.while_loop(lambda i, f: i < 3, body, [0, tf.zeros([4], tf.float64)])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = sess.run(fs[:, 0])
            g = sess.run(greeks)   # (the second run: the stream read on)
            w1, w2 = sess.run(fw), sess.run(fw)
    np.testing.assert_allclose(path, [100.0575115, 99.79825018, 100.16986686, 100.14035411,
                                      100.25355068], rtol=1e-10)
    np.testing.assert_allclose(g, [2.30004384, 0.03614633], rtol=1e-7)
    np.testing.assert_allclose(w1, [0.99057282, 2.01335967, 1.05363773, 1.98317878], rtol=1e-8)
    np.testing.assert_allclose(w2, [0.94830336, 1.41945383, 1.560516, 1.4535562], rtol=1e-7)


def test_hessian_through_a_loss_that_casts_to_float32():
    # tf.losses.huber_loss casts float64 predictions to float32 (TF's losses do); the
    # Hessian's forward sweep carried a float64 tangent past the cast and met a float32
    # node: TypeError
    with tf.Graph().as_default():
        x = tf.Variable([-1.5, 0.3, 2.0, -0.2], dtype=tf.float64)
        y = tf.losses.huber_loss(tf.zeros_like(x), x * x, delta=0.5)
        (h,) = tf.hessians(y, x)
        with tf.Session() as sess:
            sess.run(x.initializer)
            hv = sess.run(h)
    assert h.dtype == tf.float64
    np.testing.assert_allclose(hv, np.diag([0.25, 0.13500001, 0.25, 0.06]), rtol=1e-7)
