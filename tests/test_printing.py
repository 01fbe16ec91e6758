"""Printers: every target for scalars, tensors, gradient lists; CSE for large forms; Jupyter."""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.forms import cseprint, printing
from symgrad.ops.functions import numeric
from symgrad.forms.symbolic import leaf_symbols


def test_scalar_in_every_target():
    x = sg.Variable(0.5, name="x")
    (g,) = sg.gradients(sg.sigmoid(x), x)
    assert str(g) == "(1 - sigmoid(x))*sigmoid(x)"
    assert sg.text(g) == "(1 − σ(x)) σ(x)"
    (h,) = sg.gradients(x ** 3, x)
    assert sg.text(h) == "3 x²"
    assert sg.latex(g) == r"\left(1 - \sigma\left(x\right)\right) \sigma\left(x\right)"
    assert "σ(x)" in sg.pretty(g)
    assert "<mi>x</mi>" in sg.mathml(g)


def test_tensor_prints_as_an_array():
    v = sg.Variable(np.ones(2), name="v")
    (g,) = sg.gradients(sg.reduce_sum(v * v), v)
    assert sg.latex(g) == r"\left[\begin{matrix}2 v_{0} & 2 v_{1}\end{matrix}\right]"
    assert str(g) == "[2*v[0], 2*v[1]]"
    assert "2⋅v[0]" in sg.pretty(g)


def test_gradient_list_prints_entry_by_entry_with_none():
    a = sg.constant(0.0, name="a")
    b = 2 * a
    c = sg.constant(1.0, name="c")
    g = sg.gradients(a + b, [a, b, c])
    assert sg.latex(g) == r"\left[3,\ 1,\ \text{None}\right]"
    assert sg.pretty(g) == "[3, 1, None]"
    assert sg.mathml(g).startswith("<mrow><mo>[</mo><mn>3</mn><mo>,</mo>")


def test_gradients_return_a_real_list_that_compares_like_one():
    a = sg.constant(0.0, name="a")
    g = sg.gradients(2 * a, [a, a])
    assert isinstance(g, list) and isinstance(g, sg.GradientList)
    assert g == [g[0], g[1]] and len(g) == 2
    values = sg.evaluate(g)
    assert type(values) is list and values == [2.0, 2.0]
    H = sg.hessians(a ** 3, a)
    assert isinstance(H, sg.GradientList)


def test_jupyter_latex_of_a_tensor_has_formula_shape_and_value():
    x = sg.Variable(2.0, name="x")
    y = x ** 2 + 1
    out = y._repr_latex_()
    assert out.startswith("$") and out.endswith("$")
    assert "x^{2} + 1" in out and "()" in out and "5." in out


def test_jupyter_shows_no_value_while_a_placeholder_is_unfed():
    p = sg.placeholder(shape=(2,), name="p")
    y = p * 3.0
    assert printing.known_value(y) is None
    assert "value" not in y._repr_latex_()
    html = y._repr_html_()
    assert "<math" in html and "(2,)" in html and "float64" in html


def test_jupyter_html_of_a_gradient_list_has_one_row_per_entry():
    x = sg.Variable(np.array([1.0, 2.0]), name="x")
    c = sg.constant(1.0, name="c")
    g = sg.gradients(sg.reduce_sum(x ** 2), [x, c])
    html = g._repr_html_()
    assert html.count("<tr>") == 3 and "None" in html and "[2. 4.]" in html
    assert g._repr_latex_().count(r"\text{None}") == 1


def test_matrix_form_renders_in_every_target():
    X = sg.Variable(np.ones((3, 2)), name="X")
    w = sg.Variable(np.ones(2), name="w")
    y = sg.constant(np.ones(3), name="y")
    g = sg.gradients(sg.reduce_sum((X @ w - y) ** 2), [w])
    assert sg.text(g, form="matrix") == "[2 Xᵀ(X w − y)]"
    assert printing.render(g[0], "latex", form="matrix") == r"2 X^{T} \left(X w - y\right)"
    assert "<msup>" in sg.mathml(g[0], form="matrix")


def big_gradient(n):
    W = sg.Variable(np.full((n, n), 0.1), name="W")
    x = sg.Variable(np.ones(n), name="x")
    y = sg.reduce_sum(sg.sigmoid(W @ sg.tanh(W @ x)))
    return sg.gradients(y, x)[0], [W, x]


def test_large_form_prints_with_named_shared_parts_and_the_same_value():
    g, leaves = big_gradient(3)
    items = list(sg.closed_form(g))
    assert cseprint.tree_size(items) > 10 * cseprint.CSE_OPS
    text = sg.pretty(g)
    assert "where" in text and "t₁ = " in text
    pairs, reduced = cseprint.shared(items)
    back = dict(pairs)
    for sym, value in reversed(pairs):
        reduced = [e.xreplace({sym: value}) for e in reduced]
    syms = tuple(s for leaf in leaves for s in leaf_symbols(leaf).reshape(-1))
    point = np.random.default_rng(0).uniform(-1, 1, len(syms))
    np.testing.assert_allclose([numeric(e, syms)(*point) for e in reduced],
                               [numeric(e, syms)(*point) for e in items], rtol=1e-12)
    assert back


def test_thousands_of_operations_print_within_the_budget():
    g, _ = big_gradient(16)   # millions of tree operations over ~1,200 distinct ones
    items = list(sg.closed_form(g))
    assert cseprint.tree_size(items) > 1_000_000
    tex = sg.latex(g, form="elementwise")
    assert "where" in tex and r"\quad\text{where}\quad" in tex


def test_linear_naming_above_the_cse_limit(monkeypatch):
    g, _ = big_gradient(4)
    monkeypatch.setattr(cseprint, "CSE_MAX_NODES", 0)
    out = str(printing.render(g, form="elementwise"))
    assert "where" in out and "t1 = " in out


def test_small_forms_print_without_names():
    x = sg.Variable(1.0, name="x")
    assert "where" not in sg.pretty(sg.exp(x) * sg.exp(x) + x)


@pytest.mark.parametrize("target", sorted(printing.TARGETS))
def test_none_prints_as_none(target):
    assert printing.render(None, target) == "None"


def test_matrix_notation_in_mathml_and_pretty_reads_as_functions():
    X = sg.Variable(np.ones((3, 2)), name="X")
    w = sg.Variable(np.ones(2), name="w")
    y = sg.constant(np.ones(3), name="y")
    (g,) = sg.gradients(sg.reduce_sum(sg.softplus(X @ w) - y * (X @ w)), w)
    ml = sg.mathml(g, form="matrix")
    assert "<mi>&#963;</mi>" in ml and "elementwise" not in ml.lower()
    assert "σ(X⋅w)" in sg.pretty(g, form="matrix")
    v = sg.Variable(np.zeros(3), name="v")
    (s,) = sg.gradients(sg.reduce_logsumexp(v), v)
    assert "𝟏ᵀ⋅exp(v)" in sg.pretty(s, form="matrix")


def test_shared_parts_of_functions_applied_to_matrices_keep_their_bound_variable():
    # a Hessian through maximum and relu reads in matrix notation with functions applied
    # elementwise (Lambda(d, ...) of x) that share parts of their bodies; naming such a
    # part took it away from d, and SymPy failed to rebuild the function (TypeError)
    x = sg.Variable(np.array([0.3, -0.7, 1.1]), name="x")
    inner = sg.sin(x) * sg.nn.relu(x * x - 0.1)
    (h,) = sg.hessians(sg.reduce_sum(sg.nn.relu(inner) * sg.tanh(inner)), x)
    form = sg.matrix_form(h).expr
    pairs, (reduced,) = cseprint.shared([form])
    assert pairs and form.atoms(sympy.Lambda)
    for name, value in reversed(pairs):
        reduced = reduced.xreplace({name: value})
    assert reduced == form
    assert "where" in str(h) and "Heaviside" in str(h)


def test_a_negative_product_over_a_scalar_keeps_the_denominator_in_brackets(fresh_graph):
    # the Hessian of logsumexp: str wrote -1/ones(1, 5)*exp(x), which reads as
    # (-1/ones(1, 5)) * exp(x); the other printers were right
    x = sg.Variable(np.zeros(5), name="x")
    (h,) = sg.hessians(sg.log(sg.reduce_sum(sg.exp(x))), x)
    text = str(h)
    assert "-1/(ones(1, 5)*exp(x))" in text and "-1/ones" not in text


def test_latex_brackets_a_hadamard_product_inside_a_matrix_product(fresh_graph):
    A, B = (sg.Variable(np.ones((3, 3)), name=n) for n in "AB")
    C = sg.Variable(np.ones((3, 2)), name="C")
    assert sg.latex(-(A * B) @ C, form="matrix") == r"- \left(A \circ B\right) C"
    assert sg.latex(A @ (A * B) @ C, form="matrix") == r"A \left(A \circ B\right) C"
    assert sg.text(-(A * B) @ C, form="matrix") == "−(A ∘ B) C"


def test_latex_of_an_indexed_form_has_one_subscript(fresh_graph):
    # two ranges in a row (]_{i=..}^{..}_{j=..}) are a double subscript: a LaTeX error
    A, B = (sg.Variable(np.ones((300, 3)), name=n) for n in "AB")
    C = sg.Variable(np.ones((3, 3)), name="C")
    out = sg.latex(sg.exp(A * B) @ C)
    tail = out[out.rindex(r"\right]"):]
    assert tail == r"\right]_{i = 0 \ldots 299,\; j = 0 \ldots 2}"


def test_text_writes_powers_in_superscript_inside_products(fresh_graph):
    # a Hadamard power inside a product came out as Python's ** (x**∘²), an inverse
    # as Aᵀ**(-1)
    y = sg.placeholder(shape=(None,), name="y")
    mu, logs = sg.Variable(0.0, name="mu"), sg.Variable(0.0, name="log_sigma")
    nll = sg.reduce_sum(0.5 * ((y - mu) / sg.exp(logs)) ** 2 + logs)
    text = sg.text(sg.gradients(nll, logs)[0])
    assert "^∘²" in text and "**" not in text
    A = sg.Variable(np.eye(3) * 2, name="A")
    text = sg.text(sg.gradients(sg.reduce_sum(sg.linalg.inv(A)), A)[0], form="matrix")
    assert text == "−Aᵀ⁻¹ 𝟏 Aᵀ⁻¹"
