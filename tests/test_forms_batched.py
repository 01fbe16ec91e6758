"""Matrix notation for batched sweeps: ``sg.hessians``/``sg.jacobian`` as ``Xᵀ diag(d) X``.

Oracle: every matrix form, evaluated with concrete sizes and values (SymPy), equals
the reference evaluator's Hessian or Jacobian; with unknown sizes at two sizes of
one graph.
"""
import numpy as np
import pytest
import sympy

import symgrad as sg
import symgrad.compat.v1 as tf
from tests.test_forms_bounds import _matrix_matches_evaluate as matches_evaluate
from tests.test_forms_bounds import hessian_by_rows, logistic


def at(expr, sizes, values):
    """A matrix expression with symbolic sizes and leaves' values put in, as numbers."""
    e = expr.subs(sizes)
    subs = {m: sympy.ImmutableMatrix(np.asarray(values[m.name]).reshape(m.shape))
            for m in e.atoms(sympy.MatrixSymbol)}
    for c in e.atoms(sympy.OneMatrix, sympy.Identity):
        subs[c] = sympy.ImmutableMatrix(c.as_explicit())
    v = e.xreplace(subs).doit()
    return np.array(sympy.ImmutableMatrix(v.as_explicit()).evalf(), dtype=float)


def mlp(rng):
    x = sg.Variable(rng.normal(size=4), name="x")
    W = sg.Variable(rng.normal(size=(5, 4)), name="W")
    v = sg.Variable(rng.normal(size=5), name="v")
    return x, W, v, sg.sigmoid(sg.reduce_sum(v * sg.tanh(W @ x)))


def test_mlp_hessians_in_matrix_notation(rng):
    x, W, v, f = mlp(rng)
    (Hv,) = sg.hessians(f, v)          # σ''(s) h hᵀ with h = tanh(W x): an outer product
    m = matches_evaluate(Hv, [x, W, v], rng)
    assert m.text().endswith("tanh(W x) tanh(W x)ᵀ")
    (Hx,) = sg.hessians(f, x)          # Wᵀ(...)W
    assert matches_evaluate(Hx, [x, W, v], rng).text().count("W") >= 2
    assert matches_evaluate(hessian_by_rows(f, v), [x, W, v], rng).form == "matrix"


def test_mlp_output_layer_least_squares_is_two_ht_h(rng):
    X = sg.Variable(rng.normal(size=(6, 3)), name="X")
    W = sg.Variable(rng.normal(size=(3, 4)), name="W")
    v = sg.Variable(rng.normal(size=4), name="v")
    y = sg.Variable(rng.normal(size=6), name="y")
    (H,) = sg.hessians(sg.reduce_sum((sg.tanh(X @ W) @ v - y) ** 2), v)
    m = matches_evaluate(H, [X, W, v, y], rng)
    assert m.text() == "2 tanh(X W)ᵀ tanh(X W)"


@pytest.mark.parametrize("ny", [3, 6])          # reverse (y smaller) and forward mode
def test_jacobians_of_sg_jacobian_in_matrix_notation(rng, ny):
    x = sg.Variable(rng.normal(size=4), name="x")
    A = sg.Variable(rng.normal(size=(ny, 4)), name="A")
    J = sg.jacobian(sg.tanh(A @ x), x)
    assert matches_evaluate(J, [x, A], rng).text() == "diag(cosh(A x)^∘⁻²) A"


def test_tf1_hessians_print_in_matrix_notation(rng):
    X = tf.placeholder(tf.float64, [None, 4], name="X")
    y = tf.placeholder(tf.float64, [None], name="y")
    w = tf.Variable(rng.normal(size=4), name="w")
    loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=X @ w))
    (g,) = tf.gradients(loss, w)
    assert str(g) == "X.T*(sigmoid(X*w) - y)"
    (H,) = tf.hessians(loss, w)
    m = sg.matrix_form(H)
    assert m.form == "matrix", m.reason
    assert "diag(" in str(m) and str(m).startswith("X.T*")
    _agrees_at_two_sizes(m, H, X, y, {"w": w.value}, rng)


def _agrees_at_two_sizes(m, H, X, y, values, rng):
    (n,) = [s for s in m.expr.free_symbols if s.name == "n_X"]
    for size in (3, 7):
        Xv, yv = rng.normal(size=(size, X.shape[1])), rng.uniform(size=size)
        got = at(m.expr, {n: size}, dict(values, X=Xv, y=yv))
        np.testing.assert_allclose(got, sg.evaluate(H, {X: Xv, y: yv}), rtol=1e-9, atol=1e-12)


def test_hessian_with_unknown_rows_prints_in_matrix_notation(rng):
    X = sg.placeholder(sg.float64, shape=(None, 4), name="X")
    y = sg.placeholder(sg.float64, shape=(None,), name="y")
    w = sg.Variable(rng.normal(size=4), name="w")
    z = X @ w
    (H,) = sg.hessians(-sg.reduce_sum(y * sg.log(sg.sigmoid(z))
                                      + (1 - y) * sg.log(1 - sg.sigmoid(z))), w)
    assert str(H) == "X.T*diag((-sigmoid(X*w) + ones(n_X, 1)).*sigmoid(X*w))*X"
    _agrees_at_two_sizes(sg.matrix_form(H), H, X, y, {"w": w.value}, rng)


def test_large_known_n_hessian_is_matrix_notation_by_default(rng):
    _, w, _, loss = logistic(400, 5, rng)
    (H,) = sg.hessians(loss, w)
    assert str(H) == "X.T*diag((-sigmoid(X*w) + ones(400, 1)).*sigmoid(X*w))*X"
    assert "diag" in H._repr_latex_() and len(H._repr_html_()) < 100_000


def test_batched_sweeps_without_a_reading_say_why(rng):
    W = sg.Variable(rng.normal(size=(3, 2)), name="W")
    X = sg.Variable(rng.normal(size=(4, 3)), name="X")
    (H,) = sg.hessians(sg.reduce_sum(sg.exp(X @ W)), W)        # rank 4
    m = sg.matrix_form(H)
    assert m.form != "matrix" and "seed of shape (3, 2)" in m.reason
    v = sg.Variable(rng.normal(size=4), name="v")
    (H,) = sg.hessians(v[0] * sg.reduce_sum(sg.sin(v)), v)
    m = sg.matrix_form(H)
    assert m.form != "matrix" and "index" in m.reason
