"""Gradients along an axis of unknown size: one graph, checked at two sizes.

Oracle: central finite differences of ⟨u, f(X)⟩ at each fed size.
"""
import numpy as np
import pytest

import symgrad as sg


def finite_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_concat_along_an_unknown_axis_with_one_input_of_unknown_size(where, rng):
    X = sg.placeholder(sg.float64, shape=(None, 3), name="X")
    A = sg.Variable(rng.normal(size=(2, 3)), name="A")
    B = sg.Variable(rng.normal(size=(1, 3)), name="B")
    parts = {"first": [X, A, B], "middle": [A, X, B], "last": [A, B, X]}[where]
    c = sg.concat(parts, axis=0)
    assert c.shape == (None, 3)
    w = sg.placeholder(sg.float64, shape=(None, 3), name="w")     # weights, fed per size
    loss = sg.reduce_sum(sg.sin(c) * w)
    gX, gA, gB = sg.gradients(loss, [X, A, B])
    for n in (1, 4):                                              # one graph, two sizes
        x, u = rng.normal(size=(n, 3)), rng.normal(size=(n + 3, 3))

        def value(xv, av=A.value, bv=B.value):
            return sg.evaluate(loss, {X: xv, A: av, B: bv, w: u})
        got = sg.evaluate([gX, gA, gB], {X: x, w: u})
        np.testing.assert_allclose(got[0], finite_difference(value, x), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[1], finite_difference(lambda a: value(x, av=a), A.value),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[2], finite_difference(lambda b: value(x, bv=b), B.value),
                                   rtol=1e-6, atol=1e-8)


def test_concat_of_three_unknown_sizes_gives_each_its_rows(rng):
    """A GAN's tf.concat([real_logits, fake_logits], 0), two batches of sizes fed
    separately (and a third): each input's gradient is its slice of the gradient, at
    bounds known when values arrive; evaluated and compiled, against differences."""
    X = sg.placeholder(sg.float64, shape=(None, 3), name="X")
    Y = sg.placeholder(sg.float64, shape=(None, 3), name="Y")
    Z = sg.placeholder(sg.float64, shape=(None, 3), name="Z")
    w = sg.constant(np.array([0.5, -1.0, 2.0]))
    loss = sg.reduce_sum(sg.softmax(sg.concat([X, Y * 2.0, Z], axis=0), axis=1) * w)
    grads = sg.gradients(loss, [X, Y, Z])
    f = sg.compile(grads, [X, Y, Z])
    for n, m, k in ((2, 3, 1), (4, 1, 2), (1, 1, 0)):
        xs = [rng.standard_normal((r, 3)) for r in (n, m, k)]
        feed = dict(zip([X, Y, Z], xs))
        got = sg.evaluate(grads, feed)
        for j, compiled in enumerate(f(*xs)):
            np.testing.assert_allclose(compiled, got[j], rtol=1e-12, atol=1e-14)
            want = finite_difference(lambda v: sg.evaluate(loss, {**feed, [X, Y, Z][j]: v}),
                                     xs[j])
            np.testing.assert_allclose(got[j], want, rtol=1e-6, atol=1e-8)


def test_gaussian_process_over_a_fed_number_of_points_matches_numpy_and_differences():
    # tf.eye, cholesky, cholesky_solve, matrix_band_part and logdet over [None, None]
    # kernels (the number of training points is fed), and Cholesky's gradient there
    import symgrad.compat.v1 as tf
    X = np.linspace(-1, 1, 5)[:, None]
    Y = np.sin(2 * X)

    def nll(log_ell):
        d = X - X.T
        K = np.exp(-0.5 * d ** 2 / np.exp(2 * log_ell)) + 0.1 * np.eye(len(X))
        L = np.linalg.cholesky(K)
        alpha = np.linalg.solve(K, Y)
        return float(0.5 * (Y * alpha).sum() + np.log(np.diag(L)).sum())
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 1])
        y = tf.placeholder(tf.float64, [None, 1])
        log_ell = tf.Variable(0.3, dtype=tf.float64)
        d = x - tf.transpose(x)
        K = tf.exp(-0.5 * d ** 2 / tf.exp(2 * log_ell)) + 0.1 * tf.eye(tf.shape(x)[0],
                                                                       dtype=tf.float64)
        L = tf.cholesky(K)
        loss = 0.5 * tf.reduce_sum(y * tf.cholesky_solve(L, y)) + 0.5 * tf.linalg.logdet(K)
        lower = tf.matrix_band_part(K, -1, 0)
        (g,) = tf.gradients(loss, log_ell)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value, grad, low = sess.run([loss, g, lower], {x: X, y: Y})
            assert sess.run(loss, {x: X[:3], y: Y[:3]}) != value   # another size, one graph
    assert value == pytest.approx(nll(0.3), rel=1e-10)
    assert grad == pytest.approx(finite_difference(lambda v: nll(float(v)), np.array(0.3)),
                                 rel=1e-6)
    d = X - X.T
    np.testing.assert_allclose(low, np.tril(np.exp(-0.5 * d ** 2 / np.exp(0.6))
                                            + 0.1 * np.eye(5)))
