"""Compiled evaluators over unknown dimensions: one machine-code build for every size.

Oracle: the reference evaluator at each size.  "One build" is checked on the
Numba dispatcher (one compiled overload after calls at several sizes).
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.compiler import Evaluator, PerSize
from symgrad.lower.program import lower_graph
from symgrad.lower.sized import NeedsStaticSizes
from symgrad.ops import REGISTRY, apply

from .oracles import example_values


@pytest.fixture(scope="module")
def logistic():
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(None, 5), name="X")
        y = sg.placeholder(shape=(None,), name="y")
        w = sg.placeholder(shape=(5,), name="w")
        p = sg.sigmoid(X @ w)
        loss = -sg.reduce_mean(y * sg.log(p) + (1 - y) * sg.log(1 - p))
        outputs = [loss] + sg.gradients(loss, w) + sg.hessians(loss, w)
        yield sg.compile(outputs, [X, y, w]), outputs, (X, y, w)


def test_one_build_serves_every_size(logistic, rng):
    f, outputs, (X, y, w) = logistic
    assert isinstance(f, Evaluator)
    for n in (1, 7, 1000, 0):
        Xv, yv = rng.standard_normal((n, 5)), (rng.random(n) > 0.5).astype(float)
        wv = rng.standard_normal(5)
        got = f(Xv, yv, wv)
        want = sg.evaluate(outputs, {X: Xv, y: yv, w: wv})
        for g, v in zip(got, want):
            np.testing.assert_allclose(g, v, rtol=1e-12, atol=1e-14, equal_nan=True)
    assert len(f.jit.kernel.overloads) == 1  # compiled once, at the first call's signature


def test_sizes_that_must_agree_are_checked_at_call_time(logistic):
    f, _, _ = logistic
    with pytest.raises(ValueError, match="sizes must agree"):
        f(np.ones((4, 5)), np.ones(3), np.ones(5))
    with pytest.raises(ValueError, match=r"'X'.*\(None, 5\)"):
        f(np.ones((4, 3)), np.ones(4), np.ones(5))


@pytest.mark.parametrize("path", ["call", "batched", "gufunc", "dask"])
def test_sizes_that_must_agree_are_checked_on_every_path(logistic, path):
    # X's rows and y's length: one size the graph needs equal, two symbols (n_X, n_y)
    f, _, _ = logistic
    X, y, w = np.ones((2, 4, 5)), np.ones((2, 3)), np.ones((2, 5))
    with pytest.raises(sg.ShapeError, match=r"sizes must agree, here n_\w+ = [34] and "
                                            r"n_\w+ = [34]; pass arrays whose sizes agree"):
        if path == "call":
            f(X[0], y[0], w[0])
        elif path == "batched":   # the batch loop read past y's rows before
            f.batched(X, y, w)
        elif path == "gufunc":
            f.gufunc(X, y, w, *f.gufunc_extra)
        else:
            da = pytest.importorskip("dask.array")
            f.batched(da.from_array(X, chunks=1), da.from_array(y, chunks=1),
                      da.from_array(w, chunks=1))[0].compute()


def test_batched_over_dask_arrays_of_unknown_sizes(logistic, rng):
    da = pytest.importorskip("dask.array")
    f, _, _ = logistic
    Xv, wv = rng.standard_normal((4, 6, 5)), rng.standard_normal((4, 5))
    yv = (rng.random((4, 6)) > 0.5).astype(float)
    want = f.batched(Xv, yv, wv)
    lazy = f.batched(da.from_array(Xv, chunks=(2, 6, 5)), da.from_array(yv, chunks=(2, 6)),
                     da.from_array(wv, chunks=(2, 5)))
    assert lazy[2].shape == (4, 5, 5)   # the Hessian's shape, known before computing
    for got, v in zip(lazy, want):
        np.testing.assert_array_equal(got.compute(), v)


def test_batched_over_unknown_sizes(logistic, rng):
    f, outputs, (X, y, w) = logistic
    Xv = rng.standard_normal((3, 6, 5))
    yv = (rng.random((3, 6)) > 0.5).astype(float)
    wv = rng.standard_normal((3, 5))
    values, grads, hess = f.batched(Xv, yv, wv)
    for b in range(3):
        want = sg.evaluate(outputs, {X: Xv[b], y: yv[b], w: wv[b]})
        np.testing.assert_allclose(values[b], want[0], rtol=1e-12)
        np.testing.assert_allclose(grads[b], want[1], rtol=1e-12)
        np.testing.assert_allclose(hess[b], want[2], rtol=1e-12)


# Elementwise ops share one lowering (op.expr over broadcast reads): a few stand for all.
ELEMENTWISE = ("add", "mul", "pow", "maximum", "where", "sigmoid")


def _registry_graph(rng, names, grads=True):
    """The registry examples of ``names`` with the leading axis of their inputs unknown,
    and the gradients of a random projection: one graph, so one compile covers them."""
    outputs, holders, values = [], [], []
    for name in names:
        op = REGISTRY[name]
        for i, example in enumerate(op.examples):
            if any(isinstance(a, np.ndarray) for a in example.attrs.get("index", ())):
                continue  # index arrays: compiled per size (the test below)
            vals = example_values(example, rng)
            hs = [sg.placeholder(v.dtype, tuple(None if a == 0 else d for a, d in
                                                enumerate(v.shape)), name=f"{name}{i}_{k}")
                  for k, v in enumerate(vals)]
            out = apply(name, hs, **example.attrs)
            outputs.append(out)
            if grads and out.is_float and op.grad is not None and \
                    name not in ("concat", "reduce_prod"):
                u = rng.standard_normal(np.shape(op.impl(*vals, **example.attrs)))
                floats = [h for h, v in zip(hs, vals) if v.dtype.kind == "f" and v.ndim]
                outputs += [g for g in sg.gradients(sg.reduce_sum(out * u), floats)
                            if g is not None]
            holders += hs
            values += vals
    return outputs, holders, values


def _size_generic(name, rng):
    """Does op ``name`` (its examples, unknown leading axes) lower for every size?"""
    with sg.Graph().as_default():
        outputs, holders, _ = _registry_graph(rng, [name])
        try:
            lower_graph(outputs, holders)
        except NeedsStaticSizes:
            return False
    return True


def _compiled_equals_reference(names, rng, grads=True):
    with sg.Graph().as_default():
        outputs, holders, values = _registry_graph(rng, names, grads)
        f = sg.compile(outputs, holders)
        got = f(*values)
        want = sg.evaluate(outputs, dict(zip(holders, values)))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g, dtype=float), np.asarray(w, dtype=float),
                                   rtol=1e-9, atol=1e-12)
    return f


def test_every_registry_op_compiles_over_unknown_sizes(rng):
    names = [n for n, op in sorted(REGISTRY.items()) if op.kind != "leaf" and op.examples
             and not getattr(op, "value_sized", False) and not getattr(op, "driven", False)
             and (op.kind != "elementwise" or n in ELEMENTWISE)]
    generic = [n for n in names if _size_generic(n, rng)]
    # one build serves every size, except for ops decomposed over their sizes (linalg) and
    # numbers made per size (drawn or counted, baked into each size's build)
    assert set(names) - set(generic) <= {"matrix_inverse", "det", "log_abs_det", "cholesky",
                                         "random_draw", "positions"}
    assert isinstance(_compiled_equals_reference(generic, rng), Evaluator)
    rest = sorted(set(names) - set(generic))
    if rest:  # those compile per size, to the same values
        assert isinstance(_compiled_equals_reference(rest, rng, grads=False), PerSize)


def test_factorisations_over_an_unknown_batch_compile_per_size(rng):
    # eigh, svd, qr and kin run LAPACK in a driver (lower.lapack), as control flow runs
    # its kernels: with a batch axis of unknown length, one build per length
    driven = sorted(n for n, op in REGISTRY.items() if getattr(op, "driven", False))
    assert {"eigh", "eigvalsh", "svd", "singular_values", "qr"} <= set(driven)
    with sg.Graph().as_default():
        outputs, holders, values = [], [], []
        for name in driven:
            example = next(e for e in REGISTRY[name].examples if np.ndim(e.args[0]) == 3)
            (v,) = example_values(example, rng)
            h = sg.placeholder(v.dtype, (None,) + v.shape[1:], name=f"{name}_in")
            out = apply(name, [h], **example.attrs)
            u = rng.standard_normal(np.shape(REGISTRY[name].impl(v, **example.attrs))[1:])
            outputs += [out, sg.gradients(sg.reduce_sum(out * u), h)[0]]
            holders.append(h)
            values.append(v)
        f = sg.compile(outputs, holders)
        assert isinstance(f, PerSize)
        for batch in (values, [np.concatenate([v, v]) for v in values]):
            want = sg.evaluate(outputs, dict(zip(holders, batch)))
            for g, w in zip(f(*batch), want):
                np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def test_ops_outside_the_size_generic_lowering_compile_per_size(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None,), name="x")
        y = sg.reduce_sum(x[np.array([0, 2, 2])] ** 2)
        f = sg.compile([y] + sg.gradients(y, x), [x])
        assert isinstance(f, PerSize)
        for n in (3, 5, 5):
            v = rng.standard_normal(n)
            got = f(v)
            want = sg.evaluate([y] + sg.gradients(y, x), {x: v})
            np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
            np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
        assert len(f.evaluators) == 2


def test_dropout_over_an_unknown_batch_compiles_per_size_to_the_reference(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None, 6), name="x")
        keep = sg.placeholder(shape=(), name="keep")
        y = sg.nn.dropout(sg.tanh(x), keep_prob=keep, seed=3)
        loss = sg.reduce_sum(y * y)
        outputs = [y, loss] + sg.gradients(loss, x)
        f = sg.compile(outputs, [x, keep])
        assert isinstance(f, PerSize)
        for n, k in ((5, 0.5), (9, 0.5), (5, 1.0)):
            v = rng.standard_normal((n, 6))
            got, want = f(v, k), sg.evaluate(outputs, {x: v, keep: k})
            for g, w in zip(got, want):
                np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15)
        kept = f(v, 0.5)[0] != 0
        assert 0 < kept.mean() < 1
        np.testing.assert_array_equal(f(v[:2], 0.5)[0] != 0, kept[:2])  # a row's own mask
        assert len(f.evaluators) == 3


def test_programs_with_unknown_sizes_round_trip_through_their_literal(logistic):
    import ast

    from symgrad.lower.ir import Program
    from symgrad.lower.source import render_program
    f, _, _ = logistic
    program = f.program
    again = Program.from_literal(ast.literal_eval(repr(program.to_literal())))
    assert again.sizes == program.sizes and again.checks == program.checks
    assert render_program(again, f.input_names) == render_program(program, f.input_names)
    assert "range(n_X)" in f.source


def test_per_size_evaluators_answer_ready_and_wait_as_evaluators_do(tmp_path):
    # code written for sg.compile's evaluators (f.wait()(x), if f.ready) runs on them
    # (a loop over a run-time number of rows is compiled per size)
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(None, 3), name="X")
        f = sg.compile([sg.reduce_sum(sg.map_fn(lambda r: sg.reduce_sum(r * r), X,
                                                vectorize=False))], [X])
    assert isinstance(f, PerSize) and f.ready and f.wait(timeout=1) is f
    assert f.wait()(np.ones((2, 3))) == [6.0]
    f.save(tmp_path / "f.sg")
    g = sg.load(tmp_path / "f.sg")
    assert g.ready and g.wait() is g and g(np.ones((2, 3))) == [6.0]
