"""sg.explain: golden text for the smallest classic case, structure and oracles for the rest."""
import ast
import pathlib

import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.teach import why_none

GOLDEN = """\
gradients(ys=['add'], xs=['a', 'mul'])
  Each entry is the derivative of sum_k sum(grad_ys[k] * ys[k]) with respect to xs[i] (seeds grad_ys default to ones), summed over every path: a total derivative.

Forward trace
  node  op     expression  value
  a     const  (leaf)      0
  mul   mul    2*a         0
  add   add    a + mul     0

Reverse sweep (adjoint = d(seeded sum of ys)/d node)
  node  seed      from      local partials        adjoint  value
  add   ys[0]: 1  -         d/da = 1, d/dmul = 1  1        1
  mul   -         add       d/da = 2              1        1
  a     -         add, mul  -                     3        3

Results
  xs[0] 'a': d/da = 3
  Total derivative: the sum over 2 paths from 'a' to the ys, each the product of the local derivatives along it:
    a -> mul -> add: (2) * (1) = 2
    a -> add: (1) = 1
  Partial derivative (the other xs held fixed, stop_gradients=xs): d/da = 1.  gradients gives the total derivative, which also counts the paths through the other xs.

  xs[1] 'mul': d/dmul = 1
  One path from 'mul' to the ys; the gradient is the product of the local derivatives along it:
    mul -> add: (1) = 1
"""


def test_golden_total_derivative():
    a = sg.constant(0.0, name="a")
    b = 2 * a
    assert str(sg.explain(a + b, [a, b])) == GOLDEN


def _classic_graphs():
    def total():
        a = sg.constant(0.0, name="a")
        b = 2 * a
        return a + b, [a, b], {}

    def cubic():
        a = sg.constant(5.0, name="a")
        b = 2 * a
        return a ** 3 + 2 * b ** 2, [a, b], {}

    def mixed():
        p = sg.placeholder(name="p")
        q = sg.Variable(0.3, name="q")
        u = sg.sin(p * q) + p * sg.exp(q)
        return [u, u * u], [p, q, u], {p: 1.7}
    def kinks():
        x = sg.Variable(2.0, name="x")
        y = sg.where(x > 1, sg.log(x), x * 0)
        return sg.maximum(y, 0.5) * x, [x], {}

    def second_order():
        x = sg.Variable(1.5, name="x")
        (g,) = sg.gradients(sg.sin(x) * x ** 3, x)
        return g, [x], {}
    return [total, cubic, mixed, kinks, second_order]


@pytest.mark.parametrize("build", _classic_graphs(), ids=lambda f: f.__name__)
def test_adjoints_and_paths_agree_with_gradients(build):
    ys, xs, feed = build()
    e = sg.explain(ys, xs, feed_dict=feed)
    expected = sg.evaluate(sg.gradients(ys, xs), feed)
    for row, want in zip(e.results, expected):
        assert float(row.value) == pytest.approx(float(want))
        # the total derivative is the sum of the path products (oracle: gradients)
        assert sum(p.value for p in row.paths) == pytest.approx(float(want))
    reverse = {r.node: r for r in e.reverse}
    for x, want in zip(xs, expected):
        assert float(reverse[x].value) == pytest.approx(float(want))


def test_closed_forms_match_sympy_diff():
    a = sg.constant(5.0, name="a")
    b = 2 * a
    e = sg.explain(a ** 3 + 2 * b ** 2, [a, b])
    A = sympy.Symbol("a", real=True)
    assert sympy.simplify(e.results[0].form - sympy.diff(A ** 3 + 2 * (2 * A) ** 2, A)) == 0
    assert str(e.results[0].form) == "3*a**2 + 16*a"


def test_partial_beside_total_matches_stop_gradients():
    a = sg.constant(5.0, name="a")
    b = 2 * a
    y = a ** 3 + 2 * b ** 2
    e = sg.explain(y, [a, b])
    want = sg.evaluate(sg.gradients(y, [a, b], stop_gradients=[a, b]))
    assert float(e.results[0].partial_value) == pytest.approx(float(want[0]))   # 3 a**2
    assert str(e.results[0].partial_form) == "3*a**2"
    assert "Partial derivative" not in sg.explain(y, [a]).text()   # nothing held fixed


def test_stop_gradients_give_partials():
    a = sg.constant(0.0, name="a")
    b = 2 * a
    e = sg.explain(a + b, [a, b], stop_gradients=[a, b])
    assert [r.form for r in e.results] == [1, 1]
    cut = {r.name: r.cut for r in e.reverse}
    assert cut["a"] == cut["mul"] == "stop_gradients"
    assert "cut: in stop_gradients" in e.text()


def test_why_none_no_path_stop_and_integer():
    a = sg.constant(0.0, name="a")
    b = sg.multiply(2.0, a, name="b")
    c = sg.constant(1.0, name="c")
    n = sg.constant(3, name="n")
    y = a + sg.stop_gradient(b) + sg.cast(sg.cast(c, "int64"), "float64") + sg.cast(n, "float64")
    e = sg.explain(y, [a, b, c, n, sg.constant(2.0, name="z")])
    kinds = [r.reason.kind if r.reason else None for r in e.results]
    assert kinds == [None, "stopped", "integer_path", "integer", "no_path"]
    assert e.results[1].reason.nodes[0].opdef.name == "stop_gradient"
    text = e.text()
    assert "Every path from 'b' to the ys is cut: at 'stop_gradient'" in text
    assert "passes through an integer or boolean tensor ('cast' (int64))" in text
    assert "'n' is an integer tensor (int64)" in text
    assert "No y depends on 'z'" in text
    assert why_none(y, [a, b], 0) == ""
    assert why_none(y, [a, b], 1).startswith("Every path from 'b'")


def test_y_in_stop_gradients_cuts_everything_upstream():
    x = sg.Variable(2.0, name="x")
    y = x * x
    e = sg.explain(y, [x, y], stop_gradients=[y])
    assert e.results[0].reason.kind == "stopped"
    assert e.results[0].reason.nodes == [y]
    assert e.results[1].form == 1


def test_gradient_shape_note_and_intermediate_names():
    X = sg.Variable(np.arange(9.0).reshape(3, 3), name="X")
    s = sg.reduce_sum(X, name="s")
    e = sg.explain(s ** 2 + s - 1, X)
    row = e.results[0]
    assert row.value.shape == (3, 3)
    np.testing.assert_allclose(row.value, np.full((3, 3), 2 * 36 + 1))
    text = e.text()
    assert "every entry: 2*s + 1" in text
    assert "Why the shape (3, 3)" in text and "() + (3, 3) = (3, 3)" in text
    assert "vjp: sum over axes" in text


def test_vector_y_mentions_the_jacobian_and_seeds():
    x = sg.Variable([1.0, 2.0], name="x")
    y = x * x
    e = sg.explain(y, x, grad_ys=sg.constant([1.0, 10.0], name="w"))
    np.testing.assert_allclose(e.results[0].value, [2.0, 40.0])
    text = e.text()
    assert "(2,) + (2,) = (2, 2)" in text and "sg.jacobian(y, x)" in text
    assert "ys[0]: [1, 10]" in text
    assert "x -> mul (input 0): (x) (elementwise)" in text


def test_unfed_placeholders_show_question_marks():
    p = sg.placeholder(name="p")
    e = sg.explain(p * p, p)
    assert e.results[0].form == 2 * sympy.Symbol("p", real=True)
    assert e.results[0].value is None and "?" in e.text()


def test_default_xs_are_the_named_leaves():
    a = sg.constant(1.0, name="a")
    x = sg.Variable(2.0, name="x")
    e = sg.explain(a * x + 3)
    assert [r.name for r in e.results] == ["a", "x"]


def test_markdown_and_html():
    a = sg.constant(0.0, name="a")
    b = 2 * a
    e = sg.explain(a + b, [a, b])
    md = e.markdown()
    assert "### Forward trace" in md and "| node | op | expression | value |" in md
    assert "$2 a$" in md
    html = e._repr_html_()
    assert html.count("<table>") == 2 and "<th>local partials</th>" in html
    assert "&#x27;a&#x27;" in html and "<script" not in html
    assert e._repr_markdown_() == md


def test_html_escapes_names():
    t = sg.constant(1.0, name="<b>")
    html = sg.explain(t * 2, t).html()
    assert "<b>" not in html and "&lt;b&gt;" in html


TOP = {"teach", "compat", "cli", "demo", "parse"}


def test_lower_layers_do_not_import_the_teaching_layer():
    root = pathlib.Path(sg.__file__).parent
    offenders = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).parts
        if rel[0] in TOP or rel[0].removesuffix(".py") in TOP or \
                rel in (("__init__.py",), ("_api.py",), ("__main__.py",)):
            continue  # the top: the package (and its API, _api.py), the command
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                first = node.module.split(".")[0]
                if first in TOP or (node.level and node.module.split(".")[0] in TOP):
                    offenders.append((str(path), node.module))
    assert offenders == []


def test_explain_at_realistic_sizes_shows_the_matrix_form(fresh_graph):
    # logistic regression over 100 rows: the elementwise form would expand 2,525
    # entries; explain raised FormTooLargeError, the printers show matrix notation
    X = sg.placeholder(shape=(100, 5), name="X")
    y = sg.placeholder(shape=(100,), name="y")
    w = sg.Variable(np.zeros(5), name="w")
    p = sg.sigmoid(X @ w)
    loss = -sg.reduce_sum(y * sg.log(p) + (1 - y) * sg.log(1 - p))
    rng = np.random.default_rng(0)
    Xv, yv = rng.normal(size=(100, 5)), (rng.random(100) > 0.5).astype(float)
    e = sg.explain(loss, w, feed_dict={X: Xv, y: yv})
    (row,) = e.results
    assert row.form.text() == "Xᵀ(σ(X w) − y)"
    np.testing.assert_allclose(row.value, Xv.T @ (0.5 - yv), rtol=1e-12)
    assert "d/dw = Xᵀ(σ(X w) − y) = " in str(e)
    assert r"X^{T}" in e._repr_html_() or "Xᵀ" in e._repr_html_()
