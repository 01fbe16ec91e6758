"""Control flow over sizes known only at run time: cond, while_loop, map_fn and scan on
``[None, d]`` tensors, ``tf.range`` of a run-time size, and the TF1 idioms built on them.

Oracles: the same program over a placeholder of known size (values and gradients,
reference evaluator and compiled), numpy replicas, and finite differences.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.errors import FormTooLargeError

from .oracles import central_difference


W = np.array([[0.5, -0.2, 0.1], [0.3, 0.2, -0.4], [0.1, 0.1, 0.1]])


def _rnn(h, x, w, steps=3):
    for _ in range(steps):
        h = np.tanh(h @ w + x)
    return h


def test_while_loop_over_a_batch_of_unknown_size_value_gradient_hessian(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 3), name="X")
        w = sg.Variable(W, name="w")
        _, h = sg.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, sg.tanh(h @ w + x)),
                             [0, sg.zeros_like(x)])
        assert h.shape == (None, 3)
        loss = sg.reduce_sum(h ** 2)
        (gw,) = sg.gradients(loss, w)
        (hw,) = sg.hessians(loss, w)
        f = sg.compile([loss, gw], [x])
        for n in (5, 2):
            X = rng.normal(size=(n, 3))

            def value(v):
                return float((_rnn(np.zeros_like(X), X, v) ** 2).sum())
            got, g, hess = sg.evaluate([loss, gw, hw], {x: X})
            assert got == pytest.approx(value(W), rel=1e-12)
            np.testing.assert_allclose(g, central_difference(value, W), atol=1e-7)
            fd_h = np.stack([central_difference(lambda v: sg.evaluate(gw, {x: X, w: v})[i, j], W)
                             for i in range(3) for j in range(3)]).reshape(3, 3, 3, 3)
            np.testing.assert_allclose(hess, fd_h, atol=1e-6)
            cv, cg = f(X)
            assert cv == pytest.approx(got, rel=1e-12)
            np.testing.assert_allclose(cg, g, rtol=1e-10, atol=1e-12)


def test_cond_over_a_batch_takes_one_branch_for_each_size(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 3), name="X")
        p = sg.placeholder(shape=(), dtype=bool, name="p")
        w = sg.Variable(np.array([1.0, -2.0, 0.5]), name="w")
        c = sg.cond(p, lambda: x * w, lambda: sg.sin(x) - w)
        assert c.shape == (None, 3)
        loss = sg.reduce_sum(c ** 2)
        grads = sg.gradients(loss, [w, x])
        f = sg.compile([loss] + grads, [x, p])
        for n in (4, 1):
            X = rng.normal(size=(n, 3))
            for P in (True, False):
                branch = (X * w.numpy()) if P else (np.sin(X) - w.numpy())
                want_gw = (2 * branch * X).sum(0) if P else (-2 * branch).sum(0)
                got = sg.evaluate([loss] + grads, {x: X, p: P})
                assert got[0] == pytest.approx((branch ** 2).sum(), rel=1e-12)
                np.testing.assert_allclose(got[1], want_gw, rtol=1e-12)
                for a, b in zip(f(X, P), got):
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_map_fn_and_scan_run_over_the_rows_of_an_unknown_batch(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 3), name="X")
        w = sg.Variable(np.array([1.0, 2.0, 3.0]), name="w")
        m = sg.map_fn(lambda r: sg.reduce_sum(r * w) ** 2, x)
        s = sg.scan(lambda acc, r: acc * 0.5 + r * w, x)
        t = sg.scan(lambda acc, r: acc + sg.reduce_sum(r), x, initializer=sg.constant(0.0))
        assert (m.shape, s.shape, t.shape) == ((None,), (None, 3), (None,))
        loss = sg.reduce_sum(m) + sg.reduce_sum(s * s) + sg.reduce_sum(t)
        (gw,) = sg.gradients(loss, w)
        f = sg.compile([m, s, t, gw], [x])

        def replica(v, X):
            acc, rows = X[0], [X[0]]
            for r in X[1:]:
                acc = acc * 0.5 + r * v
                rows.append(acc)
            return (X @ v) ** 2, np.array(rows), np.cumsum(X.sum(1))
        for n in (4, 2, 1):
            X = rng.normal(size=(n, 3))
            want = replica(w.numpy(), X)
            got = sg.evaluate([m, s, t, gw], {x: X})
            for a, b in zip(got[:3], want):
                np.testing.assert_allclose(a, b, rtol=1e-12)
            np.testing.assert_allclose(got[3], central_difference(lambda v: sum(
                float((u if k != 1 else u * u).sum()) for k, u in enumerate(replica(v, X))),
                w.numpy()), atol=1e-6)
            for a, b in zip(f(X), got):
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_jvp_through_control_flow_over_unknown_sizes_equals_the_jacobian(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 2), name="X")
        w = sg.Variable(np.array([0.3, -0.7]), name="w")
        _, y = sg.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, sg.sin(v * w) + x),
                             [0, x])
        out = sg.reduce_sum(sg.cond(sg.reduce_sum(w) < 0, lambda: y * y, lambda: y), axis=0)
        t = np.array([0.25, 1.5])
        (jt,) = sg.jvp(out, w, t)
        jac = sg.jacobian(out, w)
        X = rng.normal(size=(3, 2))
        got = sg.evaluate(jt, {x: X})
        np.testing.assert_allclose(got, sg.evaluate(jac, {x: X}) @ t, rtol=1e-10)


def test_tf1_range_of_a_run_time_size_and_the_q_learning_gather(rng):
    q = tf.placeholder(tf.float32, [None, 4])
    actions = tf.placeholder(tf.int32, [None])
    rows = tf.range(tf.shape(q)[0])
    odd = tf.range(1, tf.shape(q)[0], 2)
    picked = tf.gather_nd(q, tf.stack([rows, actions], axis=1))
    hot = tf.one_hot(actions, tf.shape(q)[0])
    loss = tf.reduce_sum(picked ** 2)
    (gq,) = tf.gradients(loss, q)
    assert rows.dtype == np.int32 and rows.get_shape().as_list() == [None]
    Q = rng.normal(size=(5, 4)).astype(np.float32)
    A = np.array([0, 3, 1, 1, 2], dtype=np.int32)
    with tf.Session() as sess:
        r, o, p, h, g = sess.run([rows, odd, picked, hot, gq], {q: Q, actions: A})
    np.testing.assert_array_equal(r, np.arange(5))
    np.testing.assert_array_equal(o, [1, 3])
    np.testing.assert_allclose(p, Q[np.arange(5), A], rtol=1e-6)
    np.testing.assert_array_equal(h, np.eye(5)[A])
    want = np.zeros_like(Q)
    want[np.arange(5), A] = 2 * Q[np.arange(5), A]
    np.testing.assert_allclose(g, want, rtol=1e-6)


def test_tf1_dropout_by_cond_on_a_training_flag(rng):
    x = tf.placeholder(tf.float32, [None, 3])
    training = tf.placeholder_with_default(False, shape=())
    w = tf.Variable(np.ones((3, 2), np.float32))
    h = tf.matmul(x, w)
    out = tf.cond(training, lambda: tf.nn.dropout(h, keep_prob=0.5), lambda: h)
    loss = tf.reduce_mean(out ** 2)
    (gw,) = tf.gradients(loss, w)
    X = rng.normal(size=(6, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        test_out, test_g = sess.run([out, gw], {x: X})
        train_out = sess.run(out, {x: X, training: True})
    np.testing.assert_allclose(test_out, X @ np.ones((3, 2)), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(test_g, X.T @ (2 * test_out / test_out.size), rtol=1e-5)
    kept = train_out != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(train_out[kept], 2 * (X @ np.ones((3, 2)))[kept], rtol=1e-5,
                               atol=1e-6)


def test_closed_forms_of_control_flow_over_unknown_sizes_say_why_not():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 3), name="X")
        p = sg.placeholder(shape=(), dtype=bool, name="p")
        c = sg.cond(p, lambda: x * 2.0, lambda: x)
        with pytest.raises(FormTooLargeError, match="unknown sizes"):
            sg.closed_form(c)


# -- property: a random loop or cond over (None, 3) equals the same over (n, 3) ----------
_UNARY = [("sin", sg.sin), ("tanh", sg.tanh), ("square", lambda v: v * v),
          ("scaled", lambda v: 0.7 * v + 0.1)]


@st.composite
def _bodies(draw):
    return [draw(st.sampled_from(_UNARY)) for _ in range(draw(st.integers(1, 3)))]


def _build(x, w, kind, body, trips):
    def step(v):
        for _, fn in body:
            v = fn(v)
        return v * w + x
    if kind == "cond":
        return sg.cond(sg.reduce_sum(w) > 0.0, lambda: step(x), lambda: x - w)
    if kind == "while":
        return sg.while_loop(lambda k, v: k < trips, lambda k, v: (k + 1, step(v)), [0, x])[1]
    return sg.map_fn(lambda r: sg.reduce_sum(step(r)), x)


@settings(max_examples=12, deadline=None)
@given(kind=st.sampled_from(["cond", "while", "map_fn"]), body=_bodies(),
       trips=st.integers(0, 3), n=st.integers(1, 4),
       wv=st.lists(st.floats(-1.5, 1.5), min_size=3, max_size=3),
       seed=st.integers(0, 2**16))
def test_random_control_flow_over_unknown_sizes_equals_known_sizes(kind, body, trips, n, wv,
                                                                    seed):
    X = np.random.default_rng(seed).normal(size=(n, 3))
    results = []
    for shape in ((None, 3), (n, 3)):
        with sg.Graph().as_default():
            x = sg.placeholder(shape=shape, name="X")
            w = sg.Variable(np.array(wv), name="w")
            y = _build(x, w, kind, body, trips)
            loss = sg.reduce_sum(sg.sin(y))
            grads = sg.gradients(loss, [w, x])
            results.append(sg.evaluate([y, loss] + grads, {x: X}))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_tf1_loops_whose_unknown_sizes_come_from_two_placeholders():
    # a length mask from seq_len times the state (the mask's None first) and map_fn over
    # (outputs, lengths): the sizes are compared when values arrive, as TF's shapes are
    x = tf.placeholder(tf.float32, [None, 3])
    lengths = tf.placeholder(tf.int32, [None])
    scale = tf.placeholder(tf.float32, [None])

    def body(t, h):
        mask = tf.expand_dims(tf.cast(t < lengths, tf.float32), 1)
        return t + 1, mask * (h + 1.0) + (1.0 - mask) * h
    _, h = tf.while_loop(lambda t, h: t < 3, body, [tf.constant(0), x])
    rows = tf.map_fn(lambda a: a[0] * a[1], (x, scale), dtype=tf.float32)
    eye = tf.eye(tf.shape(x)[0], dtype=tf.float64)
    X = np.zeros((2, 3), np.float32)
    with tf.Session() as sess:
        got_h, got_rows, got_eye = sess.run([h, rows, eye],
                                            {x: X + 1, lengths: [1, 3], scale: [2.0, 3.0]})
        with pytest.raises(ValueError):
            sess.run(rows, {x: X, scale: [1.0, 2.0, 3.0]})
    np.testing.assert_array_equal(got_h, [[2, 2, 2], [4, 4, 4]])
    np.testing.assert_array_equal(got_rows, [[2, 2, 2], [3, 3, 3]])
    np.testing.assert_array_equal(got_eye, np.eye(2))
