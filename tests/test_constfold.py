"""Constant folding (``lower.constfold``) and streamed contractions (``lower.relayout``).

Folding: values that depend on no compiled input are computed once when compiling
(a Hessian's seeds meeting a constant matrix), never for what the compiled function
reads at call time, never above the size limit or for one repeated number.  Streaming:
long sums into long output rows run with the output axis innermost over a constant
laid out along it, bit for bit equal to the register order.  Each case checks the
Program (what the change is about; each fails without it) and the values against
the reference evaluator.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import constfold, relayout
from symgrad.lower.program import lower_graph


def _logreg(rng, rows=40, n=20):
    X = rng.standard_normal((rows, n)) / np.sqrt(n)
    y = np.where(rng.standard_normal(rows) > 0, 1.0, -1.0)
    w = sg.placeholder(shape=(n,), name="w")
    z = sg.matmul(sg.constant(X), w) * sg.constant(y)
    loss = sg.reduce_mean(sg.softplus(-z)) + 0.01 * sg.reduce_sum(w * w)
    return w, loss


def _contractions(program, work=None):
    """The contraction statements (of ``work`` multiply-adds, if given)."""
    return [s for s in program.stmts if s.reduce is not None and len(s.srcs) == 2
            and (work is None or int(np.prod(s.dims)) == work)]


def test_a_hessians_seeds_through_a_constant_matrix_are_folded(rng):
    w, loss = _logreg(rng)
    outputs = [loss] + sg.gradients(loss, w) + sg.hessians(loss, w)
    p = lower_graph(outputs, [w])
    # X @ seeds (20 seeds x 40 rows x 20 terms) is baked: one such contraction is left,
    # the tangents' way back (Xᵀ diag(.) X)
    assert len(_contractions(p, 20 * 40 * 20)) == 1
    f = sg.compile(outputs, [w], cache=False)
    v = rng.standard_normal(20)
    for got, want in zip(f(v), sg.evaluate(outputs, {w: v})):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_constants_above_the_limit_or_uniform_are_lowered(monkeypatch, rng):
    w, loss = _logreg(rng)
    outputs = sg.hessians(loss, w)
    monkeypatch.setattr(constfold, "FOLD_MAX", 10)
    p = lower_graph(outputs, [w])
    assert len(_contractions(p, 20 * 40 * 20)) == 2
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        ones = sg.ones((3,)) * 2.0  # one repeated number: a single SSA value, no array
        assert constfold.folded_constants([x * ones], [x]) == {}
        varied = sg.constant(np.arange(3.0)) * 2.0
        (value,) = constfold.folded_constants([x * varied], [x]).values()
        assert value.tolist() == [0.0, 2.0, 4.0]


def test_nothing_read_at_call_time_is_folded(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        v = sg.Variable(np.array([1.0, 2.0, 3.0]), name="v")
        c = sg.constant(np.array([0.5, -1.0, 2.0]))
        y = sg.sin(c * v) * x + sg.cos(x) * c
        folded = constfold.folded_constants([y], [x, v])
        assert folded == {}  # v is an input: c * v is computed per call
        folded = constfold.folded_constants([y], [x])  # v baked, as every other leaf
        assert [n.opdef.name for n in folded] == ["sin"]
        f = sg.compile(y, [x, v], cache=False)
        a, b = rng.standard_normal(3), rng.standard_normal(3)
        np.testing.assert_allclose(f(a, b), sg.evaluate(y, {x: a, v: b}), rtol=1e-15)


def test_a_constant_the_reference_evaluator_refuses_is_left_to_the_kernel():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2, 2), name="x")
        singular = sg.constant(np.array([[1.0, 2.0], [2.0, 4.0]]))
        fine = sg.constant(np.array([[2.0, 0.0], [0.0, 4.0]]))
        y = x * sg.linalg.inv(singular) + x * sg.linalg.inv(fine)
        folded = constfold.folded_constants([y], [x])
        assert [v.tolist() for v in folded.values()] == [[[0.5, 0.0], [0.0, 0.25]]]
        f = sg.compile(y, [x], cache=False)  # compiling does not raise LinAlgError
        assert f(np.ones((2, 2))).shape == (2, 2)


def test_control_flow_is_not_folded():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        c = sg.constant(np.array([1.0, 3.0]))
        loop = sg.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * c),
                             (sg.constant(0), c))
        assert constfold.folded_constants([x * loop[1]], [x]) == {}


def _streamed(program):
    """Contractions summing in memory with an output axis innermost."""
    return [s for s in _contractions(program) if s.reduce[2] is False
            and s.dims[-1] > 1 and s.dst_addr[2][-1] != 0]


@pytest.mark.parametrize("rows", [40, 200])
def test_long_sums_stream_along_the_output_rows_bit_for_bit(monkeypatch, rng, rows):
    w, loss = _logreg(rng, rows=rows)
    outputs = sg.hessians(loss, w)
    p = lower_graph(outputs, [w])
    streamed = _streamed(p)
    assert streamed  # Xᵀ diag(.) X: 20 x 20 outputs, `rows` terms each, rows innermost
    for s in streamed:
        assert all(addr[2][-1] in (0, 1) for _, addr in s.srcs)  # read along the row
    v = rng.standard_normal(20)
    (got,) = sg.compile(outputs, [w], cache=False)(v)
    monkeypatch.setattr(relayout, "STREAM_MIN_SUM", 10 ** 9)
    assert not _streamed(lower_graph(outputs, [w]))
    (registers,) = sg.compile(outputs, [w], cache=False)(v)
    assert np.array_equal(got, registers)  # each element: the same sum in the same order
    np.testing.assert_allclose(got, sg.evaluate(outputs[0], {w: v}), rtol=1e-12)


def test_operands_read_across_the_row_keep_the_register_order(monkeypatch):
    with sg.Graph().as_default():
        A = sg.placeholder(shape=(30, 40), name="A")
        B = sg.placeholder(shape=(30, 40), name="B")
        # A Bᵀ reads B with stride 40 along the output row: an input is not copied
        p = lower_graph([sg.matmul(A, sg.transpose(B))], [A, B])
        assert not _streamed(p)
        # a constant read across its rows is laid out along them (80 x 80 outputs: too
        # large for the small-output order), unless its copy would be too large
        A = sg.placeholder(shape=(80, 40), name="A2")
        Bc = sg.constant(np.ones((80, 40)) + np.arange(40.0))
        assert _streamed(lower_graph([sg.einsum("ik,jk->ij", A, Bc)], [A]))
        monkeypatch.setattr(relayout, "RELAYOUT_MAX", 100)
        assert not _streamed(lower_graph([sg.einsum("ik,jk->ij", A, Bc)], [A]))


def _generic(inputs, expr):
    from symgrad.ops import apply
    return apply("elementwise", inputs, expr=expr)


def test_a_tangent_that_reads_its_input_only_through_a_zeroth_power_is_folded():
    """``u**(p-2)*p*(p-1)*du`` at p = 2 with a constant du (a Hessian's seed) reads u
    only in ``u**0``: constant, folded; ``u*(p-2)*du`` at p = 2 is 0 in SymPy but NaN
    for u = inf in numpy, and stays lowered."""
    from symgrad.ops import arg_symbols
    x = sg.placeholder(shape=(4,), name="x")
    u = 1.0 - x
    p = sg.constant(2.0)
    du = sg.constant(np.array([0.0, 1.0, -1.0, 2.0]))
    s = arg_symbols([np.dtype(np.float64)] * 3)
    power = _generic([u, p, du], s[0] ** (s[1] - 2) * s[1] * (s[1] - 1) * s[2])
    product = _generic([u, p, du], s[0] * (s[1] - 2) * s[2] + s[2])
    folded = constfold.folded_constants([x * power, x * product], [x])
    assert list(folded) == [power]
    assert folded[power].tolist() == [0.0, 2.0, -2.0, 4.0]
    f = sg.compile([x * power, x * product], [x], cache=False, wait=True)
    v = np.array([0.5, -1.0, 3.0, 2.0])
    for got, want in zip(f(v), sg.evaluate([x * power, x * product], {x: v})):
        np.testing.assert_array_equal(got, want)
    edges = np.array([np.inf, -np.inf, np.nan, 0.0])   # u**0 is 1 for every u
    np.testing.assert_array_equal(f(edges)[0], sg.evaluate(x * power, {x: edges}))
