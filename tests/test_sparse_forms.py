"""Closed forms of sparse results (``sparse=True``): only the stored entries, in every
printer, within the printers' bounds.

Oracles: the stored entries' forms evaluated at the leaves' values equal the sparse
result's values (random programs) and, symbolically, the dense Hessian's closed form
entry by entry; the bounds are checked with small limits.
"""
import numpy as np
import pytest
import sympy
from hypothesis import assume, given, settings

import symgrad as sg
from symgrad.errors import FormTooLargeError, NotATensorError
from symgrad.forms.layout import PRINT, Limits, render_form
from symgrad.forms.notation import to_str
from symgrad.forms.printing import _shared, render
from symgrad.forms.simplify import mirror_pairs
from symgrad.forms.sparseform import SparseElided, SparseForm, sparse_form
from symgrad.graph import ancestors

from .oracles import eval_closed_form
from .programs import programs
from .test_properties import fd_gradient, seeds, stop_nodes


def rosenbrock(x):
    return sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.fixture
def rosen6():
    with sg.Graph().as_default():
        x = sg.Variable(np.linspace(-1.0, 1.5, 6), name="x")
        (h,) = sg.hessians(rosenbrock(x), x)
        (hs,) = sg.hessians(rosenbrock(x), x, sparse=True)
        yield x, h, hs


def test_str_lists_the_stored_entries_in_csr_order_equal_to_the_dense_forms(rosen6):
    x, h, hs = rosen6
    lines = str(hs).splitlines()
    rows, cols = hs.pattern.nonzero()
    assert len(lines) == hs.nnz == len(rows)
    dense, form = sg.closed_form(h), sparse_form(hs)
    for line, i, j, entry in zip(lines, rows.tolist(), cols.tolist(), form.entries):
        assert line == f"[{i}, {j}] = {to_str(entry)}"
        assert sympy.expand(entry - dense[i, j]) == 0
    assert lines[0] == "[0, 0] = 1200*x[0]**2 - 400*x[1] + 2" and lines[-1] == "[5, 5] = 200"


def test_closed_form_is_a_sparse_matrix_of_the_stored_entries(rosen6):
    x, h, hs = rosen6
    form = sg.closed_form(hs)
    assert isinstance(form, sympy.ImmutableSparseMatrix) and form.shape == (6, 6)
    assert set(form.todok()) == set(zip(*map(np.ndarray.tolist, hs.pattern.nonzero())))
    assert sympy.expand(form - sympy.Matrix(sg.closed_form(h))) == sympy.zeros(6, 6)


@settings(max_examples=40, deadline=None)
@given(programs(max_steps=4))
def test_stored_entry_forms_evaluate_to_the_sparse_values(p):
    x = max(p.leaves, key=lambda leaf: leaf.size)
    assume(x.size <= 6 and not stop_nodes(p) and fd_gradient(p, x, []) is not None)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    (hs,) = sg.hessians(loss, x, sparse=True)
    value = hs.numpy().toarray()
    assume(np.isfinite(value).all())
    below = ancestors([hs.values])
    # (a loop whose body has kinks guards its steps with conditions that hold
    # Piecewises, which SymPy's Piecewise folds (rewriting to ITE, solving the
    # relations as sets) for minutes on some programs: not the entries' reading, which
    # the other programs test)
    assume(not any(n.opdef.kind == "control" for n in below))
    leaves = [n for n in below if n.is_leaf]
    np.testing.assert_allclose(eval_closed_form(hs, leaves), value, rtol=1e-9, atol=1e-12,
                               err_msg=p.code)
    form = sparse_form(hs, "none")
    assert form.places == list(zip(*map(np.ndarray.tolist, hs.pattern.nonzero())))


def test_a_pair_potential_prints_entries_that_evaluate_to_its_hessian():
    with sg.Graph().as_default():
        pos = sg.Variable(np.array([[0.0, 0.1, 0.0], [1.1, 0.0, 0.2], [0.1, 1.2, -0.1]]),
                          name="pos")
        d = sg.gather(pos, [0, 0, 1]) - sg.gather(pos, [1, 2, 2])
        r2 = sg.reduce_sum(d * d, axis=1)
        (hs,) = sg.hessians(sg.reduce_sum(1.0 / r2 ** 3 - 1.0 / sg.sqrt(r2)), pos, sparse=True)
        assert hs.nnz == 81 and str(hs).count("\n") == 80
        np.testing.assert_allclose(eval_closed_form(hs, [pos]), hs.numpy().toarray(),
                                   rtol=1e-12)


def test_every_printer_and_list_shows_the_stored_entries(rosen6):
    x, h, hs = rosen6
    listed = sg.hessians(rosenbrock(x), x, sparse=True)
    assert str(listed) == "[" + str(hs) + "]"
    assert sg.text(hs).splitlines()[0] == "[0, 0] = 1200 x[0]² − 400 x[1] + 2"
    assert "[0, 1] = -400⋅x[0]" in sg.pretty(hs)
    latex = sg.latex(hs)   # places braced: "\\[" would read as a line-spacing option
    assert latex.startswith(r"\begin{aligned}{[0, 0]} &= ") and r"\\ {[0, 1]} &= " in latex
    assert sg.mathml(hs).count("<mtr>") == hs.nnz
    shown = f"6×6, {hs.nnz} stored: [1402."      # x has a value: the stored values show
    assert r"\begin{aligned}" in hs._repr_latex_() and shown in hs._repr_latex_()
    assert "<mtable>" in hs._repr_html_() and shown in hs._repr_html_()
    assert r"\begin{aligned}" in listed._repr_latex_() and "<mtable>" in listed._repr_html_()
    assert _shared(Limits(sparse_limit=7), 3).sparse_limit == 7   # lists keep Jupyter's


def test_entries_beyond_the_limit_are_counted_and_large_vectors_are_not_expanded(rosen6):
    x, h, hs = rosen6
    few = render(hs, limits=Limits(entries=3))
    assert few.splitlines() == ["[0, 0] = 1200*x[0]**2 - 400*x[1] + 2",
                                "[0, 1] = -400*x[0]", "[1, 0] = -400*x[0]",
                                f"… ({hs.nnz - 3:,} more stored entries)"]
    assert render(hs, "latex", limits=Limits(entries=3)).endswith(
        r"\end{aligned}\quad \text{… (13 more stored entries)}")
    small = Limits(sparse_limit=50)
    note = render(hs, limits=small)
    assert note.startswith("<stored entries of the sparse 6×6 result") and "above 50" in note
    assert isinstance(sparse_form(hs, limit=50), SparseElided)
    assert render(hs, form="elementwise", limits=small) == str(hs)   # no limit asked for
    with pytest.raises(FormTooLargeError, match="expand_limit=None"):
        sg.closed_form(hs, expand_limit=50)
    assert sg.closed_form(hs, expand_limit=None).shape == (6, 6)


def test_a_large_sparse_result_prints_within_bounds():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3000,), name="x")
        (hs,) = sg.hessians(rosenbrock(x), x, sparse=True)
        text = str(hs)             # its vector's scalar size is ~300,000: a note
        assert text.startswith("<stored entries of the sparse 3000×3000 result")
        assert f"({hs.nnz:,} stored)" in text
        assert hs._repr_latex_().count(r"\text") >= 1


def test_large_entries_print_with_shared_parts_named_small_ones_whole(rng):
    with sg.Graph().as_default():
        w = sg.placeholder(shape=(3, 2), name="w")
        X = sg.constant(rng.standard_normal((6, 3)), name="X")
        y = sg.constant(np.eye(2)[rng.integers(0, 2, 6)], name="y")
        loss = sg.reduce_mean(sg.nn.softmax_cross_entropy_with_logits(labels=y,
                                                                      logits=X @ w))
        (hs,) = sg.hessians(loss, w, sparse=True)
        text = str(hs)
        assert "\n  where\n    t1 = " in text
        assert len(text.split("\n  where\n")[0].splitlines()) == hs.nnz
    x = sg.placeholder(shape=(4,), name="x")
    (small,) = sg.hessians(rosenbrock(x), x, sparse=True)
    assert "where" not in str(small)


def test_entries_equal_across_the_diagonal_print_alike():
    a, b = sympy.symbols("a b", real=True)
    items = [a * (b + 1), a * b + a, b]
    mirror_pairs(items, [(0, 1)], 2.0)
    assert items[0] == items[1] and items[2] == b
    form = SparseForm((2, 2), [(0, 1), (1, 0)], [a * b, a * b], 2)
    assert render_form(form, "str", PRINT) == "[0, 1] = a*b\n[1, 0] = a*b"


def test_sparse_results_given_where_tensors_are_expected_say_what_to_use(rosen6):
    x, h, hs = rosen6
    for call in (lambda: sg.gradients(hs, x), lambda: sg.explain(hs), lambda: sg.draw(hs),
                 lambda: sg.hvp(hs, x, np.ones(6))):
        with pytest.raises(NotATensorError, match=r"sparse result .*\.values"):
            call()
    with pytest.raises(NotATensorError, match=r"\.pattern"):
        sg.sparsity(hs)
    with pytest.raises(NotATensorError, match="being a float"):
        sg.explain(1.0)
