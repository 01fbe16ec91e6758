"""TF1 programs with placeholders of unknown size or shape, written as TF's docs write
them, with only the import changed (SEMANTICS.md "Unknown dimensions").

Oracles: the numbers TF's "Getting Started" guide prints, numpy formulas, central
finite differences, and TF's feed error (tensor and both shapes named).
"""
import numpy as np
import pytest

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.errors import ArgumentError, NoClosedFormError

from .oracles import central_difference


def test_getting_started_adder_takes_any_shape():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32)
        b = tf.placeholder(tf.float32)
        adder_node = a + b
        assert adder_node.shape is None  # unknown rank until fed
        sess = tf.Session()
        assert sess.run(adder_node, {a: 3, b: 4.5}) == pytest.approx(7.5)
        np.testing.assert_allclose(sess.run(adder_node, {a: [1, 3], b: [2, 4]}), [3.0, 7.0])
        assert sess.run(adder_node * 3., {a: 3, b: 4.5}) == pytest.approx(22.5)


def test_getting_started_linear_regression_trains_to_tfs_numbers():
    with tf.Graph().as_default():
        W = tf.Variable([.3], dtype=tf.float32)
        b = tf.Variable([-.3], dtype=tf.float32)
        x = tf.placeholder(tf.float32)
        linear_model = W * x + b
        y = tf.placeholder(tf.float32)
        loss = tf.reduce_sum(tf.square(linear_model - y))
        train = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        x_train, y_train = [1, 2, 3, 4], [0, -1, -2, -3]
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        assert sess.run(loss, {x: x_train, y: y_train}) == pytest.approx(23.66, rel=1e-6)
        for _ in range(1000):
            sess.run(train, {x: x_train, y: y_train})
        curr_W, curr_b, curr_loss = sess.run([W, b, loss], {x: x_train, y: y_train})
    # TF's guide prints: W: [-0.9999969] b: [ 0.99999082] loss: 5.69997e-11
    np.testing.assert_allclose(curr_W, [-0.9999969], rtol=1e-6)
    np.testing.assert_allclose(curr_b, [0.99999082], rtol=1e-5)
    assert curr_loss == pytest.approx(5.69997e-11, rel=0.05)


def test_unknown_rank_gradients_at_scalars_and_vectors():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64)
        y = tf.reduce_mean(tf.sin(x) * x)
        (g,) = tf.gradients(y, x)
        with tf.Session() as sess:
            for v in (0.7, np.array([0.5, -1.0, 2.0]), np.ones((2, 3))):
                got = sess.run(g, {x: v})
                want = (np.sin(v) + v * np.cos(v)) / np.size(v)
                np.testing.assert_allclose(got, want, rtol=1e-12)


def _logistic_program():
    # the way TF1 tutorials write it: [None, d] placeholders, a Session feed
    X = tf.placeholder(tf.float32, [None, 3], name="X")
    Y = tf.placeholder(tf.float32, [None, 1], name="Y")
    W = tf.Variable(tf.zeros([3, 1]), name="W")
    b = tf.Variable(tf.zeros([1]), name="b")
    logits = tf.matmul(X, W) + b
    prob = tf.sigmoid(logits)
    cost = -tf.reduce_mean(Y * tf.log(prob) + (1 - Y) * tf.log(1 - prob))
    return X, Y, W, b, cost


def test_logistic_regression_with_none_batch_feeds_any_batch_size(rng):
    with tf.Graph().as_default():
        X, Y, W, b, cost = _logistic_program()
        assert X.get_shape().as_list() == [None, 3] and cost.shape == ()
        grads = tf.gradients(cost, [W, b])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            W.assign(np.array([[0.5], [-0.25], [1.0]], dtype=np.float32))
            for n in (1, 5, 64):
                Xv = rng.standard_normal((n, 3)).astype(np.float32)
                Yv = (rng.random((n, 1)) > 0.5).astype(np.float32)
                gW, gb = sess.run(grads, {X: Xv, Y: Yv})
                p = 1 / (1 + np.exp(-(Xv.astype(float) @ W.value.astype(float))))
                np.testing.assert_allclose(gW, Xv.T @ (p - Yv) / n, rtol=2e-5, atol=1e-6)
                np.testing.assert_allclose(gb, [np.mean(p - Yv)], rtol=2e-5, atol=1e-6)


def test_logistic_regression_trains_like_the_fixed_batch_graph(rng):
    Xv = rng.standard_normal((40, 3)).astype(np.float32)
    Yv = (Xv @ np.array([[1.0], [-2.0], [0.5]]) > 0).astype(np.float32)
    results = []
    for batch in (None, 40):
        with tf.Graph().as_default():
            X = tf.placeholder(tf.float32, [batch, 3], name="X")
            Y = tf.placeholder(tf.float32, [batch, 1], name="Y")
            W = tf.Variable(tf.zeros([3, 1]))
            prob = tf.sigmoid(tf.matmul(X, W))
            cost = -tf.reduce_mean(Y * tf.log(prob) + (1 - Y) * tf.log(1 - prob))
            train = tf.train.GradientDescentOptimizer(0.5).minimize(cost)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                for _ in range(20):
                    sess.run(train, {X: Xv, Y: Yv})
                results.append(sess.run([W, cost], {X: Xv, Y: Yv}))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def test_gradient_of_a_none_batch_program_matches_finite_differences(rng):
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float64, [None, 2], name="X")
        w = tf.placeholder(tf.float64, [2], name="w")
        loss = tf.reduce_sum(tf.tanh(tf.matmul(X, tf.reshape(w, [2, 1]))) ** 2)
        (g,) = tf.gradients(loss, w)
        Xv, w0 = rng.standard_normal((7, 2)), rng.standard_normal(2)
        with tf.Session() as sess:
            got = sess.run(g, {X: Xv, w: w0})
            want = central_difference(lambda v: float(sess.run(loss, {X: Xv, w: v})), w0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)


def test_feeding_the_wrong_static_shape_is_a_value_error_naming_both_shapes():
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [None, 3], name="X")
        with tf.Session() as sess, pytest.raises(ValueError, match=r"\(2, 4\).*'X(:0)?'.*\(\?, 3\)"):
            sess.run(tf.reduce_sum(X), {X: np.ones((2, 4))})


def test_compiled_unknown_rank_builds_per_shape():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64)
        y = tf.reduce_sum(x * x)
        f = sg.compile([y] + tf.gradients(y, x), [x])
        assert f(3.0) == [9.0, 6.0]
        value, grad = f(np.array([1.0, 2.0]))
        assert value == 5.0 and grad.tolist() == [2.0, 4.0]


def test_unnamed_placeholders_get_sizes_of_their_own():
    """``Placeholder``'s second axis and ``Placeholder_1``'s only one were both the
    size n_Placeholder_1, so feeding them different sizes was refused."""
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, None])
        n = tf.placeholder(tf.float32, [None])
        m = tf.placeholder(tf.float32, [None, None, None], name="Placeholder_1")
        total = tf.reduce_sum(x) + tf.reduce_sum(n) + tf.reduce_sum(m)
        names = {str(d.expr) for t in (x, n, m) for d in t.shape}
        assert len(names) == 6
        with tf.Session() as sess:
            assert sess.run(total, {x: np.ones((2, 5)), n: np.ones(3),
                                    m: np.ones((1, 2, 4))}) == 21.0


def test_tensors_of_unknown_rank_print_each_entrys_form():
    # the getting-started example: placeholders without shape (any rank)
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        adder_node = a + b
        assert str(adder_node) == "Placeholder + Placeholder_1"
        assert str(adder_node * 3.0) == "3*Placeholder + 3*Placeholder_1"
        assert str(a) == 'Tensor("Placeholder:0", dtype=float32)'   # (TF's: no shape)
        assert str(sg.closed_form(a * b + 1.0)) == "Placeholder*Placeholder_1 + 1"
        # no closed form over unknown ranks: TF's text (sg.closed_form says why)
        assert str(tf.matmul(a, b)) == 'Tensor("matmul:0", dtype=float32)'
        with pytest.raises(NoClosedFormError, match="unknown rank"):
            sg.closed_form(tf.matmul(a, b))
        with pytest.raises(ArgumentError, match="unknown rank"):
            sg.explain(a * b)
        with tf.Session() as sess:      # and it still runs at any shape
            assert sess.run(adder_node, {a: 3, b: 4.5}) == 7.5
            assert sess.run(adder_node, {a: [1, 3], b: [2, 4]}).tolist() == [3.0, 7.0]


def test_sizes_computed_from_run_time_sizes_make_shapes():
    # tf.slice / tf.reshape / tf.zeros with tf.shape(x)[0] and n - 1, n * 3, n + 1 (TF packs
    # and computes them at run time; values checked with numpy)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        n = tf.shape(x)[0]
        head, tail = tf.slice(x, [0, 0], [n, 2]), tf.slice(x, [1, 1], [n - 1, -1])
        flat, room = tf.reshape(x, [n * 3]), tf.zeros([n + 1, 2])
        assert (head.shape.as_list(), tail.shape.as_list(), flat.shape.as_list()) == (
            [None, 2], [None, 2], [None])
        (g,) = tf.gradients(tf.reduce_sum(tail * tail), x)
        v = np.arange(9.0, dtype=np.float32).reshape(3, 3)
        with tf.Session() as sess:
            got = sess.run([head, tail, flat, room, g], {x: v})
        np.testing.assert_array_equal(got[0], v[:, :2])
        np.testing.assert_array_equal(got[1], v[1:, 1:])
        np.testing.assert_array_equal(got[2], v.ravel())
        assert got[3].shape == (4, 2)
        np.testing.assert_array_equal(got[4], np.pad(2 * v[1:, 1:], [(1, 0), (1, 0)]))
        # (truncated_normal draws at each run, as random_normal: a run-time size is read then)
        noise = tf.truncated_normal([n, 2])
        with tf.Session() as sess:
            value = sess.run(noise, {x: v})
        assert value.shape == (3, 2) and np.abs(value).max() < 2


def test_slice_sizes_fed_or_computed_at_run_time():
    # tf.slice(x, begin, size) with size a placeholder, or a list holding tf.minimum(k, 2):
    # TF sizes the window from the values (-1: the rest of the axis); symgrad refused
    # ("slice(size) must be known when the graph is built").  TF 2.21's numbers.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        sz = tf.placeholder(tf.int32, [2])
        k = tf.placeholder(tf.int32, [])
        s = tf.slice(x, [1, 0], sz)
        s2 = tf.slice(x, [0, 1], [tf.minimum(k, 2), -1])
        g = tf.gradients(tf.reduce_sum(s ** 2) + tf.reduce_sum(tf.sin(s2)), x)[0]
        assert s.shape.as_list() == s2.shape.as_list() == [None, None]
        X = np.arange(12.).reshape(4, 3)
        c1, c2 = 0.5403022766113281, -0.416146844625473
        with tf.Session() as sess:
            a, b, d = sess.run([s, s2, g], {x: X, sz: [2, 2], k: 5})
            assert a.tolist() == [[3, 4], [6, 7]] and b.tolist() == [[1, 2], [4, 5]]
            np.testing.assert_allclose(d, [[0, c1, c2], [6, 7.346356391906738, 0.28366219997406006],
                                           [12, 14, 0], [0, 0, 0]], rtol=1e-6)
            a, b, d = sess.run([s, s2, g], {x: X, sz: [-1, 1], k: 1})
            assert a.tolist() == [[3], [6], [9]] and b.tolist() == [[1, 2]]
            np.testing.assert_allclose(d, [[0, c1, c2], [6, 0, 0], [12, 0, 0], [18, 0, 0]],
                                       rtol=1e-6)
            a, b = sess.run([s, s2], {x: X, sz: [3, -1], k: 0})
            assert a.tolist() == [[3, 4, 5], [6, 7, 8], [9, 10, 11]] and b.shape == (0, 2)
            with pytest.raises(tf.errors.InvalidArgumentError, match=r"size\[0\] in \[0, 3\]"):
                sess.run(s, {x: X, sz: [4, 1]})
