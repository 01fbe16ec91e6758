"""Indexed closed forms (``Sum(..., (k, 0, n_v - 1))``) where no matrix notation exists.

Oracle: the form with a concrete size and the leaves' values put in equals the
reference evaluator, at two sizes of one graph.
"""
import numpy as np
import pytest
import sympy
from sympy.tensor.array import ArrayComprehension

import symgrad as sg
from symgrad.forms.indexed import indexed_form


def value_of(form, sizes, values):
    """The indexed form at concrete sizes, with ``values`` ({leaf name: array}) put in."""
    f = form.subs(sizes)
    items = f.doit() if isinstance(f, ArrayComprehension) else f

    def one(e):
        e = sympy.sympify(e).doit()
        e = e.replace(lambda a: isinstance(a, sympy.Indexed),
                      lambda a: sympy.Float(values[a.base.label.name][
                          tuple(int(i) for i in a.indices)]))
        e = e.xreplace({s: sympy.Float(values[s.name]) for s in e.free_symbols
                        if s.name in values})
        return float(e.doit())
    if isinstance(items, sympy.NDimArray):
        return np.array([one(e) for e in np.asarray(items.tolist(), dtype=object).reshape(-1)])
    return np.array([one(items)])


def _size(form, name):
    (n,) = [s for s in form.free_symbols if s.name == name]
    return n


def check(t, feeds, rng):
    """``t``'s indexed form equals sg.evaluate at each feed ({placeholder: array})."""
    form = indexed_form(t)
    for feed in feeds:
        sizes = {_size(form, f"n_{p.name}"): v.shape[0] for p, v in feed.items()
                 if any(s.name == f"n_{p.name}" for s in form.free_symbols)}
        values = {p.name: v for p, v in feed.items()}
        got = value_of(form, sizes, values)
        np.testing.assert_allclose(got, np.reshape(sg.evaluate(t, feed), -1),
                                   rtol=1e-9, atol=1e-12)
    return form


@pytest.fixture
def v():
    return sg.placeholder(sg.float64, shape=(None,), name="v")


def feeds_of(p, rng, sizes=(4, 7)):
    return [{p: rng.normal(size=n)} for n in sizes]


def test_gradient_with_an_index_on_an_unknown_size_vector(v, rng):
    (g,) = sg.gradients(v[0] * sg.reduce_sum(sg.sin(v)), v)
    check(g, feeds_of(v, rng), rng)
    assert str(g).startswith("ArrayComprehension(") and "(i, 0, n_v - 1)" in str(g)
    assert sg.text(g).endswith("for i = 0 … n_v − 1]") and "Σ(sin(v[k])" in sg.text(g)
    assert r"\right]_{i=0}^{n_{v} - 1}" in sg.latex(g)


def test_slices_and_their_scatter_gradients(v, rng):
    (g,) = sg.gradients(sg.reduce_sum(v[1:] * v[:-1] ** 2), v)
    check(g, feeds_of(v, rng, (2, 5)), rng)
    check(v[2:] - v[-1], feeds_of(v, rng, (3, 6)), rng)


def test_scalar_reductions_print_as_sums(v, rng):
    s = sg.reduce_sum(v * v) / sg.reduce_sum(sg.exp(v))
    form = check(s, feeds_of(v, rng), rng)
    assert "Sum(v[k]**2, (k, 0, n_v - 1))" in str(form)
    check(sg.reduce_prod(sg.cos(v)), feeds_of(v, rng), rng)


def test_matrix_rows_unknown_with_index_and_transpose(rng):
    X = sg.placeholder(sg.float64, shape=(None, 3), name="X")
    w = sg.Variable(rng.normal(size=3), name="w")
    t = sg.transpose(X)[1] * X[:, 0] + sg.reduce_sum(X * w, axis=1)
    feeds = [{X: rng.normal(size=(n, 3))} for n in (2, 5)]
    form = indexed_form(t)
    for feed in feeds:
        values = {"X": feed[X], "w": w.value}
        got = value_of(form, {_size(form, "n_X"): feed[X].shape[0]}, values)
        np.testing.assert_allclose(got, sg.evaluate(t, feed), rtol=1e-9)


def test_default_printers_choose_the_indexed_form_over_the_note(v, rng):
    (g,) = sg.gradients(v[0] * sg.reduce_sum(v), v)
    assert sg.matrix_form(g).form == "indexed"
    assert "not expanded" not in str(g) and "n_v - 1" in str(g)
    u = sg.Variable(np.ones(3000), name="u")       # known but large: no 3,000 entries
    (g,) = sg.gradients(u[0] * sg.reduce_sum(sg.sin(u)), u)
    assert str(g).endswith("(i, 0, 2999))")


def test_ops_without_an_indexed_form_still_say_why(v):
    t = sg.reduce_max(v) * v
    text = str(t)
    assert "not expanded (unknown sizes)" in text and "reduce_max" in text
    m = sg.matrix_form(t)
    with pytest.raises(ValueError, match="sg.closed_form"):
        sg.matrix_form(v[0] * v).elements()
    assert m.form == "elided"
