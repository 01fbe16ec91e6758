"""map_fn as one batched body (``control.vectorize``) against the while loop it replaces.

Oracles: the loop (``vectorize=False``) for values, gradients, Hessians, shapes and
dtypes; numpy replicas of fn; central finite differences; TF's documented behaviour
(``back_prop=False`` is a constant for gradients, each row its own random numbers).
Which form was built is read from the graph: the loop is a ``while_loop`` node named
after map_fn; the batched body has none at its top level.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad as sg
import symgrad.compat.v1 as tf
from symgrad.control.function import flatten
from symgrad.errors import ShapeError
from symgrad.graph import Dim, ancestors
from symgrad.ops.batching import batch_node

from .oracles import central_difference

X0 = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.4], [-1.3, 0.8, 0.05], [0.9, -0.1, 0.6]])
W0 = np.array([0.5, -1.5, 2.0])


def looped(result):
    """True when map_fn's result came from its while loop."""
    flat, _ = flatten(result)
    return any(n.opdef.name == "while_loop" and n.name.startswith("map") and "/" not in n.name
               for n in ancestors(flat))


# fn of one row r (3,) and the variable w (3,): name -> (fn, numpy replica or None)
BATCHED = {
    "elementwise": (lambda r, w: sg.sin(r) * w + r * r, lambda r, w: np.sin(r) * w + r * r),
    "reduce": (lambda r, w: sg.reduce_sum(sg.tanh(r * w)) ** 2,
               lambda r, w: np.tanh(r * w).sum() ** 2),
    "outer product": (lambda r, w: sg.reshape(r, (3, 1)) * sg.reshape(w, (1, 3)),
                      lambda r, w: np.outer(r, w)),
    "matmul": (lambda r, w: sg.matmul(sg.reshape(r, (1, 3)), sg.reshape(w, (3, 1)) * r)[0],
               lambda r, w: (r @ (w[:, None] * r))),
    "index and concat": (lambda r, w: sg.concat([r[1:] * w[0], r[:1]], axis=0),
                         lambda r, w: np.concatenate([r[1:] * w[0], r[:1]])),
    "softmax and max": (lambda r, w: sg.softmax(r * w) * sg.reduce_max(r),
                        lambda r, w: np.exp(r * w) / np.exp(r * w).sum() * r.max()),
    "where": (lambda r, w: sg.where(r > 0, r * w, 0.1 * r), lambda r, w: np.where(r > 0, r * w,
                                                                               0.1 * r)),
    "row-free result": (lambda r, w: w * 2.0, lambda r, w: w * 2.0),
    "python number": (lambda r, w: 1.5, lambda r, w: np.float64(1.5)),
    "gradient inside": (lambda r, w: sg.gradients(sg.reduce_sum(r ** 3 * w), r)[0],
                        lambda r, w: 3 * r ** 2 * w),
    "cond on w": (lambda r, w: sg.cond(sg.reduce_sum(w) > 0, lambda: r * w, lambda: -r), None),
    "fixed loop": (lambda r, w: sg.while_loop(lambda k, v: k < 3,
                                              lambda k, v: (k + 1, sg.sin(v) * w), [0, r])[1],
                   None),
    "nested map_fn": (lambda r, w: sg.map_fn(lambda v: v * v * w[0], r), None),
}


def _build(fn, shape, vectorize):
    x = sg.placeholder(shape=shape, name="X")
    w = sg.Variable(W0, name="w")
    y = sg.map_fn(lambda r: fn(r, w), x, vectorize=vectorize)
    loss = sg.reduce_sum(sg.sin(y))
    return x, w, y, loss


@pytest.mark.parametrize("shape", [(4, 3), (None, 3)])
@pytest.mark.parametrize("name", sorted(BATCHED))
def test_batched_body_equals_the_loop_and_numpy(name, shape):
    fn, replica = BATCHED[name]
    got = []
    for vectorize in (True, False):
        with sg.Graph().as_default():
            x, w, y, loss = _build(fn, shape, vectorize)
            assert looped(y) is not vectorize
            grads = sg.gradients(loss, [x, w])
            got.append(([y.shape, y.dtype] + [g is None for g in grads],
                        sg.evaluate([y] + [g for g in grads if g is not None], {x: X0})))
    (meta, values), (loop_meta, loop_values) = got
    assert meta == loop_meta
    for a, b in zip(values, loop_values):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    if replica is not None:
        np.testing.assert_allclose(values[0], np.stack([replica(r, W0) for r in X0]) +
                                   np.zeros(values[0].shape), rtol=1e-12)


@pytest.mark.parametrize("name", ["reduce", "outer product", "matmul", "softmax and max"])
def test_gradient_and_hessian_of_the_batched_body_by_finite_differences(name):
    fn, replica = BATCHED[name]

    def loss_at(xv, wv):
        return float(np.sin(np.stack([replica(r, wv) for r in xv])).sum())
    x, w, y, loss = _build(fn, (4, 3), True)
    assert not looped(y)
    gx, gw = sg.evaluate(sg.gradients(loss, [x, w]), {x: X0})
    np.testing.assert_allclose(gx, central_difference(lambda v: loss_at(v, W0), X0),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gw, central_difference(lambda v: loss_at(X0, v), W0),
                               rtol=1e-6, atol=1e-8)
    (h,) = sg.hessians(loss, w)
    grad_w = sg.gradients(loss, w)[0]
    fd = np.stack([central_difference(lambda v: sg.evaluate(grad_w, {x: X0, w: v})[k], W0)
                   for k in range(3)])
    np.testing.assert_allclose(sg.evaluate(h, {x: X0}), fd, rtol=1e-6, atol=1e-7)


def test_hessian_through_map_fn_equals_the_loops_and_compiles_without_a_loop():
    hessians = []
    for vectorize in (True, False):
        with sg.Graph().as_default():
            x, w, y, loss = _build(BATCHED["reduce"][0], (4, 3), vectorize)
            (h,) = sg.hessians(loss, w)
            hessians.append(sg.evaluate(h, {x: X0}))
            if vectorize:
                assert not any(n.opdef.kind == "control" for n in ancestors([h]))
                f = sg.compile([h], [x])
                np.testing.assert_allclose(f(X0)[0], hessians[0], rtol=1e-12)
    np.testing.assert_allclose(hessians[0], hessians[1], rtol=1e-12, atol=1e-14)


def test_closed_forms_of_the_batched_body_equal_the_loops():
    forms = []
    for vectorize in (True, False):
        with sg.Graph().as_default():
            x = sg.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]), name="x")
            y = sg.map_fn(lambda r: sg.reduce_sum(sg.sin(r) * r), x, vectorize=vectorize)
            (g,) = sg.gradients(sg.reduce_sum(y), x)
            forms.append([sg.closed_form(y), sg.closed_form(g)])
    for a, b in zip(*forms):
        assert all((p - q).simplify() == 0 for p, q in zip(np.ravel(a), np.ravel(b)))


def test_nested_elems_and_results_keep_their_structure_shapes_and_dtypes():
    results = []
    for vectorize in (True, False):
        with sg.Graph().as_default():
            a = sg.placeholder(shape=(None, 2), name="a")
            k = sg.placeholder(shape=(None,), dtype="int64", name="k")
            out = sg.map_fn(lambda t: (t[0] * 2.0, [t[1][0] + 1, (t[1][1], 7)]),
                            (a, (k, k * 2)), vectorize=vectorize)
            assert isinstance(out, tuple) and isinstance(out[1], list)
            flat, _ = flatten(out)
            assert looped(out) is not vectorize
            results.append(([(v.shape, v.dtype) for v in flat],
                            sg.evaluate(flat, {a: X0[:, :2], k: np.arange(4)})))
    assert results[0][0] == results[1][0]
    assert [d for _, d in results[0][0]] == [np.float64, np.int64, np.int64, np.int64]
    for p, q in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("vectorize", [True, False])
def test_back_prop_false_is_a_constant_for_gradients(vectorize):
    x, w = sg.placeholder(shape=(4, 3), name="X"), sg.Variable(W0, name="w")
    y = sg.map_fn(lambda r: sg.reduce_sum(r * w) ** 2, x, back_prop=False, vectorize=vectorize)
    assert looped(y) is not vectorize
    loss = sg.reduce_sum(y) + sg.reduce_sum(w * w)
    assert sg.gradients(sg.reduce_sum(y), [x, w]) == [None, None]
    np.testing.assert_allclose(sg.evaluate(sg.gradients(loss, w)[0], {x: X0}), 2 * W0)
    np.testing.assert_allclose(sg.evaluate(sg.hessians(loss, w)[0], {x: X0}), 2 * np.eye(3))
    np.testing.assert_allclose(sg.evaluate(y, {x: X0}), (X0 @ W0) ** 2)


def _custom_square(r):
    @tf.custom_gradient
    def square(v):
        return v * v, lambda g: g * 10.0
    return square(r)


def _rows_cond(r):
    return tf.cond(tf.reduce_sum(r) > 0, lambda: r * 2.0, lambda: -r)


def _rows_loop(r):
    return tf.while_loop(lambda v: tf.reduce_sum(v) < 3.0, lambda v: v + 1.0, [r],
                         maximum_iterations=5)


def _masked(r):
    return tf.reduce_sum(tf.boolean_mask(r, r > 0))


def _new_variable(r):
    return r * tf.get_variable("v", [3], initializer=tf.ones_initializer(), dtype=tf.float64)


@pytest.mark.parametrize("fn", [_custom_square, _rows_cond, _rows_loop, _masked, _new_variable],
                         ids=lambda f: f.__name__)
def test_bodies_that_cannot_be_batched_keep_the_loop(fn):
    runs = []
    for vectorize in (True, False):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float64, [None, 3])
            y = sg.map_fn(fn, x, vectorize=vectorize)
            # (a variable made in the body is made outside it, as TF lifts it: the body
            # only reads it, and is batched)
            assert looped(y) is not (vectorize and fn is _new_variable)
            (g,) = tf.gradients(tf.reduce_sum(y * y), x)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                runs.append(sess.run([y, g], {x: X0}))
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


def test_random_draws_give_each_row_its_own_numbers_and_each_run_new_ones():
    tf.set_random_seed(7)   # (the statistics below then hold for fixed numbers)
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.map_fn(lambda r: r + tf.random_normal([3]), x)
    kept = tf.map_fn(lambda r: tf.nn.dropout(r, keep_prob=0.5), x)
    assert not looped(y) and not looped(kept)
    with tf.Session() as sess:
        first, second = (sess.run(y, {x: np.zeros((200, 3))}) for _ in range(2))
        masks = sess.run(kept, {x: np.ones((200, 3))})
    assert y.shape.as_list() == [None, 3] and first.dtype == np.float32
    assert len({tuple(r) for r in first}) == 200          # every row its own draw
    assert not np.array_equal(first, second)               # a new draw per run
    assert abs(first.mean()) < 0.2 and abs(first.std() - 1) < 0.1
    assert set(np.unique(masks)) == {0.0, 2.0} and 0.4 < (masks > 0).mean() < 0.6
    assert len({tuple(r) for r in masks}) > 1


def test_a_draw_inside_fns_own_cond_keeps_the_loop():
    x = tf.placeholder(tf.float32, [4, 3])
    p = tf.placeholder(tf.bool, [])
    y = tf.map_fn(lambda r: tf.cond(p, lambda: r + tf.random_uniform([3]), lambda: r), x)
    assert looped(y)


def test_compat_session_over_a_run_time_number_of_rows():
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(W0.astype(np.float32))
    rows = tf.map_fn(lambda r: tf.reduce_sum(tf.tanh(r * w)) ** 2, x)
    loss = tf.reduce_sum(rows)
    gx, gw = tf.gradients(loss, [x, w])
    (h,) = tf.hessians(loss, w)
    assert not looped(rows) and rows.shape.as_list() == [None]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for n in (4, 1, 7, 0):
            xv = np.resize(X0, (n, 3)).astype(np.float32)
            r, a, b, c = sess.run([rows, gx, gw, h], {x: xv})
            t = np.tanh(xv * W0)
            s = t.sum(1)
            assert r.dtype == np.float32 and r.shape == (n,) and a.shape == (n, 3)
            np.testing.assert_allclose(r, s ** 2, rtol=1e-5)
            np.testing.assert_allclose(a, 2 * s[:, None] * (1 - t * t) * W0, rtol=1e-4,
                                       atol=1e-6)
            np.testing.assert_allclose(b, (2 * s[:, None] * (1 - t * t) * xv).sum(0),
                                       rtol=1e-4, atol=1e-6)
            u = (1 - t * t) * xv
            want = 2 * (u[:, :, None] * u[:, None, :]).sum(0) - np.diag(
                (4 * s[:, None] * t * (1 - t * t) * xv * xv).sum(0))
            np.testing.assert_allclose(c, want, rtol=1e-4, atol=1e-5)


def test_rows_of_two_placeholders_are_compared_when_values_arrive():
    x = tf.placeholder(tf.float32, [None, 3])
    scale = tf.placeholder(tf.float32, [None])
    rows = tf.map_fn(lambda a: a[0] * a[1], (x, scale), dtype=tf.float32)
    assert not looped(rows)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(rows, {x: np.ones((2, 3)), scale: [2.0, 3.0]}),
                                      [[2, 2, 2], [3, 3, 3]])
        with pytest.raises(ValueError):
            sess.run(rows, {x: np.ones((2, 3)), scale: [1.0, 2.0, 3.0]})


@pytest.mark.parametrize("vectorize", [True, False])
def test_errors_are_the_loops(vectorize):
    x = sg.placeholder(shape=(4, 3), name="X")
    with pytest.raises(ShapeError, match="returned None"):
        sg.map_fn(lambda r: None, x, vectorize=vectorize)
    with pytest.raises(ShapeError, match="same length"):
        sg.map_fn(lambda t: t[0], (x, sg.constant(np.ones(3))), vectorize=vectorize)
    with pytest.raises(ShapeError, match="rank >= 1"):
        sg.map_fn(lambda r: r, sg.constant(1.0), vectorize=vectorize)


def test_batching_over_a_run_time_size_refuses_to_unroll():
    x = sg.placeholder(shape=(3,), name="x")
    p = sg.placeholder(shape=(), dtype="bool", name="p")
    c = sg.cond(p, lambda: x * 2.0, lambda: x)   # a pred per member: unrolled
    n = Dim.fresh("n_members")
    batch = sg.placeholder(shape=(None,), dtype="bool", name="ps")
    with pytest.raises(ShapeError, match="cannot be unrolled"):
        batch_node(c, [sg.reshape(batch, (n,))] + list(c.inputs[1:]),
                   [True] + [False] * (len(c.inputs) - 1), n)


# One random per-row body from a few builders, batched and looped over rows of known
# or run-time count: value and gradients agree (the loop is the oracle).
_PIECES = {
    "sin": lambda r, w: sg.sin(r) * w,
    "sum": lambda r, w: sg.reduce_sum(r * w, keepdims=True) + r,
    "square": lambda r, w: r * r - w,
    "softmax": lambda r, w: sg.softmax(r + w),
    "flip": lambda r, w: sg.concat([r[2:], r[:2]], axis=0),
    "max": lambda r, w: sg.maximum(r, w * 0.5),
    "cond": lambda r, w: sg.cond(w[0] > 0, lambda: r * 1.5, lambda: r - 1.0),
    "row cond": lambda r, w: sg.cond(r[0] > 0, lambda: r * 1.5, lambda: r - 1.0),
}


@settings(max_examples=15, deadline=None)
@given(pieces=st.lists(st.sampled_from(sorted(_PIECES)), min_size=1, max_size=4),
       n=st.integers(1, 5), unknown=st.booleans(), seed=st.integers(0, 2**16))
def test_random_bodies_batched_equal_looped(pieces, n, unknown, seed):
    xv = np.random.default_rng(seed).normal(size=(n, 3))

    def fn(r, w):
        for name in pieces:
            r = _PIECES[name](r, w)
        return r
    runs = []
    for vectorize in (True, False):
        with sg.Graph().as_default():
            x, w, y, loss = _build(fn, (None, 3) if unknown else (n, 3), vectorize)
            assert looped(y) is (not vectorize or "row cond" in pieces)
            grads = sg.gradients(loss, [x, w])
            runs.append(([g is None for g in grads],
                         sg.evaluate([y] + [g for g in grads if g is not None], {x: xv})))
    assert runs[0][0] == runs[1][0]
    for a, b in zip(runs[0][1], runs[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
