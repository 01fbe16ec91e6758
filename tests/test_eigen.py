"""Symmetric eigendecompositions (``ops.eigen``): TF1 programs with
``tf.self_adjoint_eig``/``tf.linalg.eigvalsh`` against TF 2.21's printed numbers, the
compiled path (LAPACK in a driver) against the reference evaluator, and the edges
(signs, ties, inf/NaN, integers, closed forms).  The registry-driven tests cover the
derivative rules (finite differences, second order, forward mode, batching)."""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.errors import NoClosedFormError
from symgrad.ops.eigen import signed

RNG = np.random.default_rng(5)
X = RNG.normal(size=(20, 3)) @ np.array([[2.0, 0.3, 0.1], [0.0, 1.0, 0.4], [0.0, 0.0, 0.3]])
W0 = [[1.0, 0.2, 0.0], [0.1, 1.0, 0.3], [0.0, 0.2, 1.0]]


def _pca(x, W):
    xc = tf.matmul(x - tf.reduce_mean(x, axis=0), W)
    cov = tf.matmul(xc, xc, transpose_a=True) / tf.cast(tf.shape(x)[0] - 1, tf.float64)
    e, v = tf.self_adjoint_eig(cov)
    top = v[:, -1:]
    loss = tf.reduce_sum(tf.matmul(xc, top) ** 2) + tf.reduce_sum(tf.linalg.eigvalsh(cov) ** 2)
    return cov, e, top, loss


def test_pca_by_self_adjoint_eig_matches_tf():
    # the PCA tutorials: covariance of centred data, tf.self_adjoint_eig, the top
    # component; gradients of a projection (sign-free) and of weighted eigenvalues, and
    # gradient steps maximising the largest eigenvalue.  TF 2.21's numbers.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 3])
        W = tf.Variable(W0, dtype=tf.float64)
        cov, e, top, loss = _pca(x, W)
        g = tf.gradients(loss, W)[0]
        ge = tf.gradients(tf.reduce_sum(e * [1.0, 2.0, 3.0]), W)[0]
        opt = tf.train.GradientDescentOptimizer(0.01).minimize(
            -tf.reduce_max(tf.self_adjoint_eigvals(cov)))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run([e, tf.abs(top), loss, g, ge], {x: X})
            for _ in range(3):
                sess.run(opt, {x: X})
            w = sess.run(W)
    want = [[0.038634791, 1.128303175, 4.632390738],
            [[0.788667025], [0.559001018], [0.255973016]], 110.749028688,
            [[157.056000131, 107.821263569, 48.537896089],
             [76.526531439, 57.784806142, 27.301269332],
             [28.310063591, 21.746962942, 10.367781172]],
            [[18.259137392, 9.830485673, 3.778670808], [6.507609167, 7.792298508, 4.250063336],
             [2.251394391, 3.035010286, 1.834511706]]]
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(w, [[1.177400749, 0.324592878, 0.056778836],
                                   [0.188641441, 1.06225988, 0.32837392],
                                   [0.032948945, 0.223142979, 1.010547114]], rtol=1e-8)


def test_a_batch_reads_lower_triangles_and_its_gradients_are_tfs():
    # the upper triangles (9, -5) are not read; the gradient is TF's: the symmetrised
    # lower triangle, +0 above the diagonal
    with tf.Graph().as_default():
        B = tf.constant([[[4.0, 9.0], [1.0, 3.0]], [[2.0, -5.0], [0.5, 1.0]]], tf.float64)
        eb = tf.linalg.eigvalsh(B)
        gb = tf.gradients(tf.reduce_sum(eb * [[1.0, 3.0], [2.0, -1.0]]), B)[0]
        vb = tf.linalg.eigh(B)[1]
        gv = tf.gradients(tf.reduce_sum(vb ** 4), B)[0]
        got = tf.Session().run([eb, gb, tf.abs(vb), gv])
    np.testing.assert_allclose(got[0], [[2.381966011, 4.618033989], [0.792893219, 2.207106781]],
                               rtol=1e-9)
    np.testing.assert_allclose(got[1], [[[2.447213595, 0.0], [1.788854382, 1.552786405]],
                                        [[-0.560660172, 0.0], [-2.121320344, 1.560660172]]],
                               rtol=1e-9)
    assert not np.signbit(got[1][:, 0, 1]).any()
    np.testing.assert_allclose(got[2], [[[0.525731112, 0.850650808], [0.850650808, 0.525731112]],
                                        [[0.382683432, 0.923879533], [0.923879533, 0.382683432]]],
                               rtol=1e-8)
    np.testing.assert_allclose(got[3], [[[0.32, 0.0], [-0.32, -0.32]], [[0.5, 0.0], [-1.0, -0.5]]],
                               rtol=1e-8, atol=1e-12)


@pytest.fixture(scope="module")
def pca_compiled():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(20, 3), name="x")
        W = sg.placeholder(shape=(3, 3), name="W")
        xc = sg.matmul(x - sg.reduce_mean(x, axis=0), W)
        cov = sg.matmul(xc, xc, transpose_a=True) / 19.0
        e, v = sg.linalg.eigh(cov)
        loss = sg.reduce_sum(sg.matmul(xc, v) ** 2 * [1.0, 2.0, 3.0]) + \
            sg.reduce_sum(sg.linalg.eigvalsh(cov) ** 2)
        outs = [loss, sg.gradients(loss, W)[0], e, v]
        return sg.compile(outs, [x, W], wait=True), outs, x, W


def test_compiled_values_and_gradients_equal_the_reference(pca_compiled):
    f, outs, x, W = pca_compiled
    for k in range(3):
        w = np.asarray(W0) + 0.1 * k * np.eye(3)
        want = sg.evaluate(outs, {x: X, W: w})
        for a, b in zip(f(X, w), want):
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)
    batch = f.batched(np.stack([X, 2 * X]), np.stack([W0, W0]))
    np.testing.assert_allclose(batch[0][1], f(2 * X, np.asarray(W0))[0], rtol=1e-12)


def test_signs_ties_and_bad_values():
    # each eigenvector's entry of largest magnitude is positive, the first of equals
    v = signed(np.array([[0.6, -0.8, 0.5], [-0.8, 0.6, -0.5]]).copy())
    assert v.tolist() == [[-0.6, 0.8, 0.5], [0.8, -0.6, -0.5]]
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(2, 2, 2), name="a")
        e, vecs = sg.linalg.eigh(a)
        (g,) = sg.gradients(sg.reduce_sum(sg.linalg.eigvalsh(a)), a)
        feed = {a: [[[1.0, 0.0], [0.0, 1.0]], [[np.nan, 0.0], [1.0, 2.0]]]}
        got = sg.evaluate([e, vecs, g], feed)
        f = sg.compile([e, vecs, g], [a], wait=True)
        for want, have in zip(got, f(*feed.values())):
            np.testing.assert_array_equal(want, have)
    # equal eigenvalues: eigvalsh's gradient stays finite (the identity's is I)
    np.testing.assert_array_equal(got[0][0], [1.0, 1.0])
    np.testing.assert_array_equal(got[2][0], np.eye(2))
    assert np.isnan(got[0][1]).all() and np.isnan(got[1][1]).all()
    # only the lower triangle is read: NaN above it changes nothing (TF 2.21: [1, 3]);
    # the reference evaluator gave NaN where the compiled code and TF did not
    with sg.Graph().as_default():
        a = sg.placeholder(shape=(2, 2), name="a")
        e = sg.linalg.eigvalsh(a)
        upper_nan = np.array([[2.0, np.nan], [1.0, 2.0]])
        np.testing.assert_allclose(sg.evaluate(e, {a: upper_nan}), [1.0, 3.0])
        np.testing.assert_allclose(sg.compile([e], [a], wait=True)(upper_nan)[0], [1.0, 3.0])
    with sg.Graph().as_default():   # integers give float64
        e = sg.linalg.eigvalsh(sg.constant([[2, 1], [1, 2]]))
        assert e.dtype == np.float64
        np.testing.assert_allclose(sg.evaluate(e), [1.0, 3.0])
        with pytest.raises(NoClosedFormError, match="evaluate"):
            sg.closed_form(e)
