"""Matrix notation: the textbook gradients, checked against the elementwise closed form."""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.forms.matrixform import matrix_form
from symgrad.ops.functions import numeric
from symgrad.forms.symbolic import leaf_symbols


def leaves_of(t):
    return [n for n in sg.graph.ancestors([t]) if n.is_leaf and not n.attrs.get("literal")]


def assert_matches_elementwise(m, rng, trials=3):
    """The matrix form, expanded, equals the elementwise closed form at random points."""
    g = m.tensor
    leaves = leaves_of(g)
    syms = tuple(s for leaf in leaves for s in leaf_symbols(leaf).reshape(-1))
    ours = m.elements().reshape(-1)
    ref = np.asarray(sg.closed_form(g, simplify="none").tolist() if g.shape else
                     sg.closed_form(g, simplify="none"), dtype=object).reshape(-1)
    for _ in range(trials):
        p = rng.uniform(-1, 1, size=len(syms))
        got = [numeric(sympy.sympify(e), syms)(*p) for e in ours]
        want = [numeric(sympy.sympify(e), syms)(*p) for e in ref]
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


@pytest.fixture
def data(rng):
    X = sg.Variable(rng.normal(size=(4, 3)), name="X")
    w = sg.Variable(rng.normal(size=3), name="w")
    y = sg.constant(rng.uniform(size=4), name="y")
    return X, w, y


def test_least_squares_gradient_is_2_Xt_residual(data, rng):
    X, w, y = data
    (g,) = sg.gradients(sg.reduce_sum((X @ w - y) ** 2), w)
    m = sg.matrix_form(g)
    assert m.form == "matrix" and m.reason is None
    assert m.text() == "2 Xᵀ(X w − y)"
    assert str(m) == "2*X.T*(X*w - y)"
    assert m.latex() == r"2 X^{T} \left(X w - y\right)"
    assert_matches_elementwise(m, rng)


def test_quadratic_form_gradient_is_A_plus_At_x(rng):
    x = sg.Variable(rng.normal(size=3), name="x")
    A = sg.Variable(rng.normal(size=(3, 3)), name="A")
    (g,) = sg.gradients(x @ A @ x, x)
    m = sg.matrix_form(g)
    assert m.text() == "(A + Aᵀ) x"
    assert_matches_elementwise(m, rng)


@pytest.mark.parametrize("loss", ["cross_entropy", "softplus"])
def test_logistic_regression_gradient_is_Xt_sigma_minus_y(data, rng, loss):
    X, w, y = data
    z = X @ w
    if loss == "cross_entropy":
        L = -sg.reduce_sum(y * sg.log(sg.sigmoid(z)) + (1 - y) * sg.log(1 - sg.sigmoid(z)))
    else:
        L = sg.reduce_sum(sg.softplus(z) - y * z)
    (g,) = sg.gradients(L, w)
    m = sg.matrix_form(g)
    assert m.text() == "Xᵀ(σ(X w) − y)"
    assert m.latex() == r"X^{T} \left(\sigma\left(X w\right) - y\right)"
    assert_matches_elementwise(m, rng)


def test_trace_gradient_is_A_plus_At_X(rng):
    X = sg.Variable(rng.normal(size=(3, 2)), name="X")
    A = sg.Variable(rng.normal(size=(3, 3)), name="A")
    (g,) = sg.gradients(sg.trace(sg.transpose(X) @ A @ X), X)
    m = sg.matrix_form(g)
    assert m.text() == "(A + Aᵀ) X"
    assert_matches_elementwise(m, rng)


@pytest.mark.parametrize("build", [
    lambda X, w, y: sg.reduce_sum(sg.tanh(X @ w) * y),
    lambda X, w, y: sg.reduce_mean((X @ w - y) ** 2) + 0.5 * sg.reduce_sum(w * w),
    lambda X, w, y: sg.reduce_sum(sg.exp(X) @ w),
    lambda X, w, y: sg.reduce_sum(sg.transpose(X) @ (X @ w)),
    lambda X, w, y: sg.reduce_sum(X * sg.reshape(y, (4, 1))) * sg.reduce_sum(w),
], ids=["tanh", "ridge", "exp", "XtXw", "broadcast"])
def test_more_matrix_gradients_match_elementwise(data, rng, build):
    X, w, y = data
    for x in (X, w):
        (g,) = sg.gradients(build(X, w, y), x)
        m = sg.matrix_form(g)
        assert m.form == "matrix", m.reason
        assert_matches_elementwise(m, rng)


def test_forward_quadratic_form_is_a_scalar(rng):
    x = sg.Variable(rng.normal(size=3), name="x")
    A = sg.Variable(rng.normal(size=(3, 3)), name="A")
    m = sg.matrix_form(x @ A @ x)
    assert m.form == "matrix" and m.text() == "xᵀ A x"
    assert_matches_elementwise(m, rng)


@pytest.mark.parametrize("build,op", [
    (lambda v: v[0] * v, "index"),
    (lambda v: sg.concat([v, v], axis=0), "concat"),
    (lambda v: sg.reduce_logsumexp(sg.reshape(v, (1, 3)), axis=[0, 1], keepdims=True),
     "logsumexp over axis"),
    (lambda v: sg.reshape(v, (1, 1, 3)) * 2.0, "rank 3"),
])
def test_without_matrix_reading_falls_back_and_says_why(rng, build, op):
    v = sg.Variable(rng.normal(size=3), name="v")
    m = sg.matrix_form(build(v))
    assert m.form == "elementwise"
    assert op in m.reason
    np.testing.assert_array_equal(np.asarray(m.expr.tolist(), dtype=object).shape,
                                  m.tensor.shape)


def test_closed_form_with_form_matrix(data):
    X, w, y = data
    (g,) = sg.gradients(sg.reduce_sum((X @ w - y) ** 2), w)
    assert sg.closed_form(g, form="matrix").text() == "2 Xᵀ(X w − y)"
    with pytest.raises(sg.ArgumentError, match="form="):
        sg.closed_form(g, form="tensor")


def test_matrix_form_of_none_and_non_tensors():
    assert sg.matrix_form(None) is None
    with pytest.raises(TypeError, match="tensor of the graph"):
        sg.matrix_form([1, 2])


def test_gradient_of_logsumexp_is_softmax_in_matrix_notation(rng):
    v = sg.Variable(rng.normal(size=3), name="v")
    (g,) = sg.gradients(sg.reduce_logsumexp(v), v)
    m = sg.matrix_form(g)
    assert m.text() == "exp(v)/(𝟏ᵀ exp(v))"
    assert m.latex() == (r"\frac{\operatorname{exp}\left(v\right)}"
                         r"{\mathbf{1}^{T} \operatorname{exp}\left(v\right)}")
    assert_matches_elementwise(m, rng)


def test_softmax_cross_entropy_matches_elementwise(rng):
    W = sg.Variable(rng.normal(size=(3, 2)), name="W")
    x = sg.Variable(rng.normal(size=2), name="x")
    c = sg.constant(rng.uniform(size=3), name="c")
    for y in (sg.reduce_logsumexp(W @ x), sg.reduce_sum(sg.softmax(W @ x) * c)):
        for wrt in (W, x):
            m = sg.matrix_form(sg.gradients(y, wrt)[0])
            assert m.form == "matrix", m.reason
            assert_matches_elementwise(m, rng)


def test_matrix_form_does_not_expand_elements(rng, monkeypatch):
    X = sg.Variable(rng.normal(size=(300, 40)), name="X")
    w = sg.Variable(rng.normal(size=40), name="w")
    y = sg.constant(rng.uniform(size=300), name="y")
    (g,) = sg.gradients(sg.reduce_sum(sg.softplus(X @ w) - y * (X @ w)), w)
    import symgrad.forms.symbolic
    monkeypatch.setattr(symgrad.forms.symbolic, "leaf_symbols", None)  # any expansion would fail
    assert sg.matrix_form(g).text() == "Xᵀ(σ(X w) − y)"
