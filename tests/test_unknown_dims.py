"""Unknown dimensions (``placeholder(shape=(None, 3))``), SEMANTICS.md "Unknown dimensions".

Oracles: numpy on concrete values (every registry op, with the leading axis of its
inputs unknown), the same graph built with known sizes (values and gradients),
central finite differences (a [None, d] logistic regression), and the messages
the law asks for (both shapes named).
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.graph import Dim, concrete_shape
from symgrad.ops import REGISTRY, apply

from .oracles import central_difference, example_values

CASES = [(name, i) for name, op in sorted(REGISTRY.items())
         for i in range(len(op.examples))]


def _unknown_leading(shape, which):
    return tuple(None if a == 0 and which else d for a, d in enumerate(shape))


def _build(name, i, values, unknown):
    example = REGISTRY[name].examples[i]
    holders = [sg.placeholder(v.dtype, _unknown_leading(v.shape, u), name=f"in{k}")
               for k, (v, u) in enumerate(zip(values, unknown))]
    return apply(name, holders, **example.attrs), holders


def _variants(values):
    ranked = [v.ndim > 0 for v in values]
    yield [r for r in ranked]                       # every leading axis unknown
    yield [r and k == 0 for k, r in enumerate(ranked)]  # only the first input's


@pytest.mark.parametrize("name,i", CASES)
def test_shape_rules_keep_what_is_known_and_values_match_numpy(name, i, rng):
    op = REGISTRY[name]
    values = example_values(op.examples[i], rng)
    if getattr(op, "static_matrices", False) and values[0].ndim == 2:   # (svd, qr: the
        # factors are laid out by the matrix sizes; an unknown batch axis is fine)
        with pytest.raises(sg.ShapeError, match="known size"):
            _build(name, i, values, [v.ndim > 0 for v in values])
        return
    expected = np.asarray(op.impl(*values, **op.examples[i].attrs))
    for unknown in _variants(values):
        if not any(unknown):
            continue
        out, holders = _build(name, i, values, unknown)
        feed = dict(zip(holders, values))
        got = sg.evaluate(out, feed_dict=feed)
        assert np.shape(got) == expected.shape
        np.testing.assert_allclose(np.asarray(got, dtype=float), expected.astype(float),
                                   rtol=1e-12, atol=1e-12)
        # static sizes are numpy's; unknown ones evaluate to numpy's at the fed sizes
        bindings = {d.expr: v.shape[0] for h, v in zip(holders, values)
                    for d in h.shape[:1] if isinstance(d, Dim)}
        if getattr(op, "binds_sizes", False):   # and its own size, read from the values
            bindings[out.shape[0].expr] = expected.shape[0]
        assert concrete_shape(out.shape, bindings) == expected.shape


@pytest.mark.parametrize("name,i", [c for c in CASES if REGISTRY[c[0]].grad is not None
                                    and REGISTRY[c[0]].kind != "leaf"])
def test_gradients_equal_the_graph_with_known_sizes(name, i, rng):
    op = REGISTRY[name]
    values = example_values(op.examples[i], rng)
    if not any(v.ndim for v in values) or all(v.dtype.kind != "f" for v in values):
        pytest.skip("no float input with an axis")
    if getattr(op, "static_matrices", False) and values[0].ndim == 2:
        pytest.skip("refused while building (the test above)")
    known = [sg.placeholder(v.dtype, v.shape, name=f"k{k}") for k, v in enumerate(values)]
    ref = apply(name, known, **op.examples[i].attrs)
    if not ref.is_float:
        pytest.skip("boolean result")
    u = rng.standard_normal(np.shape(sg.evaluate(ref, dict(zip(known, values)))))
    floats = [k for k, v in enumerate(values) if v.dtype.kind == "f"]
    want = sg.evaluate(sg.gradients(sg.reduce_sum(ref * u), [known[k] for k in floats]),
                       dict(zip(known, values)))
    out, holders = _build(name, i, values, [v.ndim > 0 for v in values])
    try:
        grads = sg.gradients(sg.reduce_sum(out * u), [holders[k] for k in floats])
    except sg.ShapeError as exc:  # documented: these need the size of the unknown axis
        assert name in ("concat", "reduce_prod") and "unknown size" in str(exc)
        return
    got = sg.evaluate(grads, dict(zip(holders, values)))
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def logistic():
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(None, 4), name="X")
        y = sg.placeholder(shape=(None,), name="y")
        w = sg.placeholder(shape=(4,), name="w")
        p = sg.sigmoid(X @ w)
        loss = -sg.reduce_mean(y * sg.log(p) + (1 - y) * sg.log(1 - p))
        (gw,) = sg.gradients(loss, w)
        yield X, y, w, loss, gw


def test_logistic_regression_shapes_show_none(logistic):
    X, y, w, loss, gw = logistic
    assert X.shape == (None, 4) and (X @ w).shape == (None,)
    assert loss.shape == () and gw.shape == (4,)


@pytest.mark.parametrize("n", [1, 7, 50])
def test_logistic_regression_gradient_matches_finite_differences(logistic, n, rng):
    X, y, w, loss, gw = logistic
    Xv, yv = rng.standard_normal((n, 4)), (rng.random(n) > 0.5).astype(float)
    w0 = rng.standard_normal(4)
    got = sg.evaluate(gw, {X: Xv, y: yv, w: w0})
    want = central_difference(lambda v: float(sg.evaluate(loss, {X: Xv, y: yv, w: v})), w0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)
    p = 1 / (1 + np.exp(-Xv @ w0))
    np.testing.assert_allclose(got, Xv.T @ (p - yv) / n, rtol=1e-10)


def test_reductions_matmul_and_reshape_keep_known_sizes():
    X = sg.placeholder(shape=(None, 3), name="X")
    W = sg.Variable(np.ones((3, 2)), name="W")
    assert (X @ W).shape == (None, 2)
    assert sg.reduce_sum(X, axis=0).shape == (3,)
    assert sg.reduce_sum(X, axis=1).shape == (None,)
    assert sg.reshape(X, (-1,)).shape[0].expr == 3 * X.shape[0].expr
    assert sg.reshape(sg.reshape(X, (-1,)), (-1, 3)).shape[0] == X.shape[0]
    assert X[1:].shape[0].expr == X.shape[0].expr - 1
    assert X[:, 0].shape == (None,) and X.T.shape == (3, None)


def test_sizes_that_must_agree_are_checked_when_values_arrive():
    a = sg.placeholder(shape=(None,), name="a")
    b = sg.placeholder(shape=(None,), name="b")
    with pytest.raises(sg.ShapeError, match=r"\(4,\).*\(5,\)"):
        sg.evaluate(a + b, {a: np.ones(4), b: np.ones(5)})
    M = sg.placeholder(shape=(2, None), name="M")
    v = sg.placeholder(shape=(None, 1), name="v")
    with pytest.raises(sg.ShapeError, match=r"\(2, 3\).*\(4, 1\)"):
        sg.evaluate(M @ v, {M: np.ones((2, 3)), v: np.ones((4, 1))})


def test_feeding_the_wrong_static_shape_names_the_tensor_and_both_shapes():
    X = sg.placeholder(shape=(None, 3), name="X")
    with pytest.raises(sg.FeedError, match=r"\(4, 2\).*'X'.*\(None, 3\)"):
        sg.evaluate(sg.reduce_sum(X), {X: np.ones((4, 2))})
    with pytest.raises(sg.FeedError, match="n_X"):
        sg.evaluate(sg.zeros_like(X))


def test_jacobian_over_known_dims_and_a_clear_error_otherwise(rng):
    X = sg.placeholder(shape=(None, 3), name="X")
    w = sg.Variable(rng.standard_normal(3), name="w")
    J = sg.jacobian(sg.reduce_sum(sg.tanh(X * w), axis=0), w)
    Xv = rng.standard_normal((5, 3))
    want = np.diag(np.sum(Xv / np.cosh(Xv * w.value) ** 2, axis=0))
    np.testing.assert_allclose(sg.evaluate(J, {X: Xv}), want, rtol=1e-12)
    with pytest.raises(sg.ShapeError, match="shape must be known"):
        sg.jacobian(X @ w, w)


def test_explain_and_draw_accept_unknown_dims():
    X = sg.placeholder(shape=(None, 2), name="X")
    w = sg.Variable([1.0, 2.0], name="w")
    loss = sg.reduce_mean((X @ w) ** 2)
    assert "X" in sg.draw(loss).source
    assert "w" in str(sg.explain(loss, w))


def test_ops_that_pass_a_shape_on_accept_unknown_sizes():
    # embedding_lookup with ids fed through an int [None] placeholder builds a one-hot
    # of shape ids.shape + (vocab,): the argument check must let the unknown size pass.
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int32, [None])
        emb = tf.Variable(np.arange(12, dtype=np.float32).reshape(6, 2))
        e = tf.nn.embedding_lookup(emb, ids)
        (g,) = tf.gradients(tf.reduce_sum(e * e), emb)
        g = tf.convert_to_tensor(g)     # (TF's IndexedSlices, summed into the table's shape)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_e, got_g = sess.run([e, g], {ids: [1, 4, 4]})
    table = np.arange(12, dtype=np.float32).reshape(6, 2)
    np.testing.assert_allclose(got_e, table[[1, 4, 4]])
    want = np.zeros_like(table)
    np.add.at(want, [1, 4, 4], 2 * table[[1, 4, 4]])
    np.testing.assert_allclose(got_g, want)
