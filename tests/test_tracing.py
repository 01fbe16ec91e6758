"""Tracing: leaves, names, dtypes, operators, numpy interop, evaluation structure."""
import numpy as np
import pytest

import symgrad as sg


def test_leaves_keep_given_names_and_unnamed_get_tf_like_names():
    a = sg.constant(1.0, name="a")
    c1, c2 = sg.constant(1.0), sg.constant(2.0)
    v = sg.Variable(1.0)
    p = sg.placeholder(shape=())
    assert a.name == "a"
    assert (c1.name, c2.name) == ("Const", "Const_1")
    assert v.name == "Variable" and p.name == "Placeholder"
    assert str(a * c1) == "Const*a"


def test_dtypes_float64_default_ints_stay_integer():
    assert sg.constant(1.0).dtype == np.float64
    i = sg.constant(3)
    assert i.dtype == np.int64
    assert (i + 1).dtype == np.int64
    x32 = sg.Variable(np.float32(1.0))
    assert (2 * x32).dtype == np.float32
    assert (i / 2).dtype == np.float64


def test_operators_and_values():
    x = sg.Variable([1.0, 2.0, 4.0], name="x")
    got = sg.evaluate([x + 1, 1 - x, 2 * x, x / 2, 2 / x, x ** 2, 2 ** x, -x, abs(-x),
                       x > 1.5, x <= 2])
    v = np.array([1.0, 2.0, 4.0])
    expected = [v + 1, 1 - v, 2 * v, v / 2, 2 / v, v ** 2, 2 ** v, -v, v, v > 1.5, v <= 2]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e)


def test_indexing_and_slicing():
    X = sg.Variable(np.arange(12.0).reshape(3, 4), name="X")
    v = np.arange(12.0).reshape(3, 4)
    for index in [(1,), (slice(None), 2), (slice(1, None), slice(None, None, -1)),
                  (Ellipsis, None, 0), ([0, 2],), (-1, -1)]:
        np.testing.assert_array_equal(sg.evaluate(X[index]), v[index])
    (g,) = sg.gradients(X[[0, 0, 2], 1], X)
    expected = np.zeros((3, 4))
    expected[0, 1], expected[2, 1] = 2.0, 1.0
    np.testing.assert_array_equal(sg.evaluate(g), expected)


def test_matmul_vector_rules_like_numpy():
    A = np.arange(6.0).reshape(2, 3)
    v = np.array([1.0, -1.0, 2.0])
    w = np.array([3.0, 0.5])
    tA, tv, tw = sg.constant(A), sg.constant(v), sg.constant(w)
    np.testing.assert_allclose(sg.evaluate(tA @ tv), A @ v)
    np.testing.assert_allclose(sg.evaluate(tw @ tA), w @ A)
    np.testing.assert_allclose(sg.evaluate(tv @ tv), v @ v)
    np.testing.assert_allclose(sg.evaluate(sg.matmul(tA, tA, transpose_b=True)), A @ A.T)


def test_numpy_values_mix_into_expressions_as_constants():
    x = sg.Variable([1.0, 2.0], name="x")
    W = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = W @ x
    np.testing.assert_allclose(sg.evaluate(y), W @ np.array([1.0, 2.0]))
    np.testing.assert_allclose(sg.evaluate(2 * W * x), 2 * W * np.array([1.0, 2.0]))
    (g,) = sg.gradients(sg.reduce_sum(W @ x), x)
    np.testing.assert_allclose(sg.evaluate(g), W.sum(axis=0))


def test_numpy_ufuncs_and_functions_trace():
    x = sg.Variable([0.5, 1.0], name="x")
    y = np.sum(np.sin(x) * np.exp(x))
    assert isinstance(y, sg.Tensor)
    v = np.array([0.5, 1.0])
    assert sg.evaluate(y) == pytest.approx(np.sum(np.sin(v) * np.exp(v)))
    assert isinstance(np.stack([x, x]), sg.Tensor)
    assert sg.evaluate(np.mean(x)) == pytest.approx(0.75)


def test_unsupported_numpy_function_says_so():
    x = sg.Variable([0.5, 1.0], name="x")
    with pytest.raises(TypeError, match="numpy.*(floor|cumsum)"):
        np.cumsum(x)


def test_variable_assign_changes_evaluation():
    x = sg.Variable(2.0, name="x")
    y = x * x
    assert sg.evaluate(y) == 4.0
    x.assign(3.0)
    assert sg.evaluate(y) == 9.0
    with pytest.raises(ValueError, match="shape"):
        x.assign([1.0, 2.0])


def test_evaluate_keeps_structure_and_none():
    x = sg.Variable(2.0, name="x")
    out = sg.evaluate({"a": x, "b": [x * 2, None], "c": (x + 1,)})
    assert out == {"a": 2.0, "b": [4.0, None], "c": (3.0,)}


def test_feeding_an_intermediate_tensor():
    x = sg.Variable(2.0, name="x")
    h = x * x
    assert sg.evaluate(h + 1, feed_dict={h: 10.0}) == 11.0


def test_composites():
    x = sg.Variable(np.array([[1.0, 2.0], [3.0, 4.0]]), name="x")
    v = np.array([[1.0, 2.0], [3.0, 4.0]])
    ev = sg.evaluate
    np.testing.assert_allclose(ev(sg.reduce_mean(x, axis=0)), v.mean(axis=0))
    np.testing.assert_allclose(ev(sg.norm(x)), np.linalg.norm(v))
    np.testing.assert_allclose(ev(sg.stack([x, x], axis=1)), np.stack([v, v], axis=1))
    np.testing.assert_allclose(ev(sg.tensordot(x, x, axes=1)), np.tensordot(v, v, axes=1))
    np.testing.assert_allclose(ev(sg.trace(x)), np.trace(v))
    np.testing.assert_allclose(ev(sg.softmax(x)), np.exp(v) / np.exp(v).sum(-1, keepdims=True))
    np.testing.assert_allclose(ev(sg.logsumexp(x, axis=1)), np.log(np.exp(v).sum(1)))
    np.testing.assert_allclose(ev(sg.expand_dims(x, 0)).shape, (1, 2, 2))
    np.testing.assert_allclose(ev(sg.squeeze(sg.expand_dims(x, 0))), v)
    np.testing.assert_allclose(ev(sg.transpose(x)), v.T)
    np.testing.assert_allclose(ev(sg.reshape(x, (-1,))), v.ravel())
    np.testing.assert_allclose(ev(sg.broadcast_to(x[0], (3, 2))), np.broadcast_to(v[0], (3, 2)))
    np.testing.assert_allclose(ev(sg.einsum("ij,jk->ik", x, x)), v @ v)


def test_format_graph_lists_the_ir():
    x = sg.Variable(2.0, name="x")
    text = sg.format_graph([sg.sin(x) * x])
    assert "sin = sin(x)" in text and "mul = mul(sin, x)" in text


def test_default_graph_is_explicit_and_resettable():
    g = sg.Graph()
    with g.as_default():
        x = sg.Variable(1.0, name="x")
    assert x.graph is g
    assert sg.get_default_graph() is not g
