"""Closed forms that print at any size: budgets per pass, form choice, caps, index order.

Bounds are tested through their logic (a pass is skipped, a form is elided, text is
capped), never with a wall-clock limit; benchmarks/closed_forms.py measures times.
"""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.forms import budget as bud
from symgrad.errors import FormTooLargeError
from symgrad.forms import closed, elided, layout, matrixform, select
from symgrad.forms import simplify as simp
from symgrad.forms.symbolic import leaf_symbols
from symgrad.ops.functions import numeric


def logistic(n, d, rng, leaf=sg.constant):
    X = leaf(rng.normal(size=(n, d)), name="X")
    w = sg.Variable(rng.normal(size=d), name="w")
    y = leaf(rng.uniform(size=n), name="y")
    z = X @ w
    loss = -sg.reduce_sum(y * sg.log(sg.sigmoid(z)) + (1 - y) * sg.log(1 - sg.sigmoid(z)))
    return X, w, y, loss


def test_a_pass_whose_estimate_exceeds_the_budget_is_not_run(monkeypatch):
    # exp((x+y)**20): 3 operations, but factor expands the exponent (74 s, 1 GB measured)
    x, y = sg.Variable(0.5, name="x"), sg.Variable(0.2, name="y")
    (g,) = sg.gradients(sg.exp((x + y) ** 20), x)
    calls = []
    original = sympy.factor
    monkeypatch.setattr(sympy, "factor", lambda e, *a, **k: calls.append(e) or original(e, *a, **k))
    budget = bud.Budget(2.0)
    form = simp.simplify_array(np.asarray(sg.closed_form(g, simplify="none"), dtype=object),
                               "auto", budget)
    assert calls == [] and budget.skipped.get("factor") == 1
    p = {x: 0.3, y: -0.1}
    f = numeric(form[()], (leaf_symbols(x)[()], leaf_symbols(y)[()]))
    np.testing.assert_allclose(f(0.3, -0.1), sg.evaluate(g, p), rtol=1e-12)


def test_estimates_count_the_expansion_inside_function_arguments():
    a, b = sympy.symbols("a b")
    small, big = sympy.exp((a + b) ** 3), sympy.exp((a + b) ** 20)
    assert bud.estimate("factor", big) > 20 * bud.estimate("factor", small)
    assert bud.estimate("factor_terms", big) == bud.estimate("factor_terms", small)
    zero = bud.Budget(0.0)
    assert not zero.allows("powsimp", 1e-9) and zero.skipped == {"powsimp": 1}


def test_each_distinct_element_gets_an_equal_share_of_the_budget():
    budget = bud.Budget(1.0)
    budget.split(4)
    assert budget.share <= 0.25
    assert not budget.allows("factor", 0.3) and budget.allows("factor", 0.2)


def test_symmetric_entries_of_a_hessian_print_alike():
    v = sg.Variable(np.full(3, 0.2), name="v")
    (H,) = sg.hessians(sg.reduce_sum(v) ** 2 * sg.sin(sg.reduce_prod(v)), v)
    raw = np.asarray(sg.closed_form(H, simplify="none").tolist(), dtype=object)
    assert raw[0, 1] != raw[1, 0]        # the sweep builds them differently
    form = simp.simplify_array(raw, "auto", bud.Budget(2.0))
    for i in range(3):
        for j in range(i):
            assert str(form[i, j]) == str(form[j, i])
    syms = tuple(leaf_symbols(v))
    p = np.array([0.3, -0.2, 0.7])
    np.testing.assert_allclose([float(numeric(e, syms)(*p)) for e in form.reshape(-1)],
                               sg.evaluate(H, {v: p}).reshape(-1), rtol=1e-10)


def test_default_printers_choose_matrix_notation_for_large_tensors(rng):
    _, w, _, loss = logistic(300, 4, rng)
    (g,) = sg.gradients(loss, w)
    assert select.scalar_size(g) > select.MATRIX_FIRST
    assert str(g) == "X.T*(sigmoid(X*w) - y)"
    assert sg.text(g) == "Xᵀ(σ(X w) − y)"
    assert sg.latex(g).startswith("X^{T}")
    x = sg.Variable(2.0, name="x")
    assert str(sg.gradients(x ** 2 + x, x)[0]) == "2*x + 1"    # small: elementwise


def test_without_matrix_notation_a_large_form_is_elided_with_its_size_and_reason():
    v = sg.Variable(np.ones(3000), name="v")
    (g,) = sg.gradients(sg.reduce_max(v) * v, v)     # no matrix, no indexed form
    out = str(g)
    assert "not expanded" in out and "index" in out and "scalar entries" in out
    assert "reduce_max" in out and len(out) < 1000
    m = sg.matrix_form(g)
    assert m.form == "elided" and "index" in m.reason
    with pytest.raises(ValueError, match="sg.closed_form"):
        m.elements()
    (g,) = sg.gradients(v[0] * sg.reduce_sum(v), v)  # an indexed form instead of 3,000 entries
    assert sg.matrix_form(g).form == "indexed" and len(str(g)) < 200


def test_arrays_show_leading_rows_and_count_the_rest():
    x = sympy.Symbol("x")
    arr = sympy.ImmutableDenseNDimArray([x + i for i in range(50)], (10, 5))
    out = layout.render_form(arr, "str", layout.Limits(entries=12))
    assert out.endswith("… (40 more entries)") and out.count("x") == 10
    tex = layout.render_form(arr, "latex", layout.Limits(entries=12))
    assert r"\text{… (40 more entries)}" in tex


def test_text_longer_than_the_limit_is_cut_with_a_count():
    x = sympy.Symbol("x")
    long = sympy.Add(*[sympy.Symbol(f"a{i}") * x ** i for i in range(400)])
    out = layout.render_form(long, "str", layout.Limits(chars=500))
    assert len(out) < 600 and "more characters)" in out
    tex = layout.render_form(long, "latex", layout.Limits(chars=500))
    assert tex.startswith(r"\text{closed form of") and len(tex) < 200


def test_jupyter_reprs_stay_small_for_any_tensor(rng):
    v = sg.Variable(rng.normal(size=250), name="v")
    (g,) = sg.gradients(sg.reduce_sum(sg.sin(v) * sg.reduce_sum(v * v)), v)
    (h,) = sg.gradients(v[0] * sg.reduce_sum(sg.sin(v)), v)     # no matrix notation
    grads = sg.gradients(sg.reduce_sum(v * v[1]), [v, v, v])
    for out in (g._repr_latex_(), g._repr_html_(), h._repr_latex_(), h._repr_html_(),
                grads._repr_html_(), grads._repr_latex_()):
        assert len(out) <= 100_000
    assert r"\sum_{k=0}^{249}" in h._repr_latex_()         # the indexed form


def test_indices_sort_by_number():
    v = sg.Variable(np.ones(12), name="v")
    out = str(sg.reduce_sum(v))
    assert out.index("v[2]") < out.index("v[10]")


def test_latex_writes_indexed_names_with_subscripts():
    theta = sg.Variable(np.ones(3), name="theta")
    x_1 = sg.Variable(np.ones(2), name="x_1")
    assert sg.latex(theta[1] * x_1[0]) in (r"\theta_{1} {x_{1}}_{0}", r"{x_{1}}_{0} \theta_{1}")
    assert "<msub><mi>&#952;</mi>" in sg.mathml(theta[1])


def hessian_by_rows(loss, w):
    """The Hessian as TF1 code builds it: one gradient per entry of the gradient, stacked."""
    (g,) = sg.gradients(loss, w)
    return sg.stack([sg.gradients(g[i], w)[0] for i in range(w.shape[0])])


def _matrix_matches_evaluate(H, leaves, rng):
    m = sg.matrix_form(H)
    assert m.form == "matrix", m.reason
    syms = tuple(s for leaf in leaves for s in leaf_symbols(leaf).reshape(-1))
    point = rng.normal(size=len(syms))
    values = m.elements()
    got = np.array([float(numeric(e, syms)(*point)) for e in values.reshape(-1)])
    feed, k = {}, 0
    for leaf in leaves:
        feed[leaf] = point[k:k + leaf.size].reshape(leaf.shape)
        k += leaf.size
    np.testing.assert_allclose(got, sg.evaluate(H, feed).reshape(-1), rtol=1e-9, atol=1e-12)
    return m


def batched_hessian(loss, w):
    return sg.hessians(loss, w)[0]       # one sweep over a batch of unit seeds


HESSIANS = pytest.mark.parametrize("hessian", [hessian_by_rows, batched_hessian],
                                   ids=["rows", "sg.hessians"])


@HESSIANS
def test_logistic_regression_hessian_in_matrix_notation(rng, hessian):
    X, w, y, loss = logistic(5, 3, rng, leaf=sg.Variable)
    m = _matrix_matches_evaluate(hessian(loss, w), [X, w, y], rng)
    assert m.text() == "Xᵀ diag((𝟏 − σ(X w)) ∘ σ(X w)) X"


@HESSIANS
def test_least_squares_hessian_in_matrix_notation(rng, hessian):
    X = sg.Variable(rng.normal(size=(4, 3)), name="X")
    w = sg.Variable(rng.normal(size=3), name="w")
    y = sg.Variable(rng.normal(size=4), name="y")
    m = _matrix_matches_evaluate(hessian(sg.reduce_sum((X @ w - y) ** 2), w), [X, w, y], rng)
    assert m.text() == "2 Xᵀ X"


@HESSIANS
def test_quadratic_form_hessian_collects_to_a_plus_a_transpose(rng, hessian):
    x = sg.Variable(rng.normal(size=4), name="x")
    A = sg.Variable(rng.normal(size=(4, 4)), name="A")
    H = hessian(sg.reduce_sum(x * (A @ x)), x)
    assert _matrix_matches_evaluate(H, [x, A], rng).text() == "A + Aᵀ"


@pytest.mark.parametrize("use_softmax", [False, True])
def test_softmax_regression_gradient_in_matrix_notation(rng, use_softmax):
    X = sg.Variable(rng.normal(size=(5, 4)), name="X")
    W = sg.Variable(rng.normal(size=(4, 3)), name="W")
    Y = sg.Variable(rng.uniform(size=(5, 3)), name="Y")
    Z = X @ W
    if use_softmax:
        loss = -sg.reduce_sum(Y * sg.log(sg.softmax(Z, axis=1)))
    else:
        loss = -sg.reduce_sum(Y * (Z - sg.reduce_logsumexp(Z, axis=1, keepdims=True)))
    (g,) = sg.gradients(loss, W)
    assert _matrix_matches_evaluate(g, [X, W, Y], rng).text().startswith("Xᵀ(")


def test_a_hessian_without_a_row_pattern_says_why(rng):
    v = sg.Variable(rng.normal(size=4), name="v")
    f = v[0] * sg.reduce_sum(sg.sin(v))
    m = sg.matrix_form(hessian_by_rows(f, v))
    assert m.form == "elementwise" and "index" in m.reason
    (batched,) = sg.hessians(f, v)
    assert "no matrix notation" in sg.matrix_form(batched).reason   # batched sweep: says why


def test_unknown_rows_print_in_matrix_notation_with_symbolic_sizes():
    X = sg.placeholder(sg.float64, shape=(None, 4), name="X")
    y = sg.placeholder(sg.float64, shape=(None,), name="y")
    w = sg.Variable(np.zeros(4), name="w")
    z = X @ w
    (g,) = sg.gradients(-sg.reduce_sum(y * sg.log(sg.sigmoid(z))
                                       + (1 - y) * sg.log(1 - sg.sigmoid(z))), w)
    assert select.scalar_size(g) is None
    assert str(g) == "X.T*(sigmoid(X*w) - y)" and sg.text(g) == "Xᵀ(σ(X w) − y)"
    m = sg.matrix_form(g)
    (rows,) = [s for s in m.expr.atoms(sympy.MatrixSymbol) if s.name == "X"]
    assert not rows.shape[0].is_Integer and rows.shape[1] == 4     # n_X × 4
    (v,) = [sg.placeholder(sg.float64, shape=(None,), name="v")]
    (h,) = sg.gradients(v[0] * sg.reduce_sum(v), v)
    assert "not expanded" not in str(h) and "n_v - 1" in str(h)    # indexed form


def test_a_mean_over_unknown_rows_divides_by_the_size_symbol(rng):
    # reduce_mean over an unknown axis divides by dim_size: read as the scalar n_y
    X = sg.placeholder(sg.float64, shape=(None, 4), name="X")
    y = sg.placeholder(sg.float64, shape=(None,), name="y")
    w = sg.Variable(np.zeros(4), name="w")
    p = sg.sigmoid(X @ w)
    loss = -sg.reduce_mean(y * sg.log(p) + (1 - y) * sg.log(1 - p))
    (g,) = sg.gradients(loss, w)
    (h,) = sg.hessians(loss, w)
    assert str(g) == "1/n_y*X.T*(sigmoid(X*w) - y)"
    assert sg.matrix_form(h).form == "matrix"
    n = 6
    Xv, yv, wv = rng.normal(size=(n, 4)), rng.uniform(size=n), rng.normal(size=4)
    for t in (g, h):   # the matrix expression at n rows equals the reference evaluator
        expr = sg.matrix_form(t).expr
        expr = expr.xreplace({s: n for s in expr.free_symbols if s.name.startswith("n_")})
        values = {"X": Xv, "y": yv.reshape(n, 1), "w": wv.reshape(4, 1)}
        expr = expr.xreplace({a: sympy.ImmutableMatrix(values[a.name])
                              for a in expr.atoms(sympy.MatrixSymbol)})
        got = np.array(expr.as_explicit().evalf(), dtype=float).reshape(t.shape)
        want = sg.evaluate(t, {X: Xv, y: yv, w: wv})
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_a_cell_run_again_prints_the_same_size_symbols(fresh_graph):
    # the second X is X_1 in the graph and its size symbol n_X_1; both print as the
    # user named them (n_X), as the leaves' names do, where that is unambiguous
    printed = []
    for _ in range(2):
        X = sg.placeholder(shape=(None, 3), name="X")
        y = sg.placeholder(shape=(None,), name="y")
        w = sg.Variable(np.zeros(3), name="w")
        (g,) = sg.gradients(sg.reduce_mean((X @ w - y) ** 2), w)
        printed.append((str(g), sg.latex(g)))
    assert X.name == "X_1" and printed[0] == printed[1]
    assert printed[1] == ("(2/n_X)*X.T*(X*w - y)", r"\frac{2 X^{T} \left(X w - y\right)}{n_{X}}")
    # both X's in one form: the graph's names, unambiguous
    old = fresh_graph.get_tensor_by_name("X")
    both = sg.reduce_sum(old @ w) + sg.reduce_sum(X @ w)
    (g2,) = sg.gradients(both, w)
    text = str(g2)
    assert "n_X_1" in text or "X_1" in text


def rosenbrock_hessian(n):
    x = sg.placeholder(shape=(n,), name="x")
    f = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    (h,) = sg.hessians(f, x)
    return h


def test_a_form_counted_above_the_limit_is_tried_and_printed_when_it_is_quick():
    # the count includes the sweep's seeds and zeros: 2,817 entries for 100 small ones
    h = rosenbrock_hessian(10)
    assert select.scalar_size(h) > elided.EXPAND_LIMIT
    xs = sympy.symbols("x[0:10]")
    f = sum(100 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1 - xs[i]) ** 2 for i in range(9))
    want = sympy.hessian(f, xs)
    got = sg.closed_form(h)
    names = {s.name: s for s in got.free_symbols}
    swap = {x: names.get(x.name, x) for x in xs}
    assert all(sympy.expand(got[i, j] - want[i, j].subs(swap)) == 0
               for i in range(10) for j in range(10))
    text = str(h)
    assert "not expanded" not in text and "1200*x[0]**2 - 400*x[1] + 2" in text


def test_a_try_that_runs_out_of_time_gives_the_note_or_the_error(monkeypatch):
    monkeypatch.setattr(matrixform, "TRY_SECONDS", 0.0)
    monkeypatch.setattr(closed, "TRY_SECONDS", 0.0)
    h = rosenbrock_hessian(10)
    m = sg.matrix_form(h)
    assert m.form == "elided" and "stopped at node" in m.reason
    assert "not expanded" in str(h)
    with pytest.raises(FormTooLargeError, match="stopped at node .* expand_limit=None"):
        sg.closed_form(h)
    # a limit the caller gives is kept as it is: no try
    with pytest.raises(FormTooLargeError, match="above expand_limit=100 "):
        sg.closed_form(h, expand_limit=100)
    assert sg.matrix_form(h, expand_limit=100).form == "elided"
