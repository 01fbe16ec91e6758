"""The lowering's economy: unit-cotangent copies alias, elementwise producers run inside
the scatter-adds that consume them, temporaries alive at different times share memory,
contractions with a small output read their operands row by row (no transposed copy),
and kernels whose sizes are read at call time are split into functions too.

Each case checks the Program's shape (what the change is about; each fails without
it) and the compiled values against the reference evaluator.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import llvm
from symgrad.lower.liveness import share_buffers
from symgrad.lower.program import lower_graph

_COPY = (("arg", 0),)


def _rosenbrock(x):
    return sg.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _assert_matches(f, outputs, feeds):
    got = f(*feeds.values())
    want = sg.evaluate(outputs, feeds)
    for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def rosen_hessian():
    n = 12
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(n,), name="x")
        f = _rosenbrock(x)
        outputs = [f] + sg.gradients(f, x) + sg.hessians(f, x)
        yield sg.compile(outputs, [x], cache=False), outputs, x, n


def test_dense_hessian_keeps_few_seed_sized_temporaries(rosen_hessian, rng):
    f, outputs, x, n = rosen_hessian
    p = f.program
    big = [size for size in p.buffers if size >= n * (n - 1)]
    # the identity seeds and one tangent (was: six (n, n)-sized buffers, two of them copies)
    assert len(big) <= 2, p.buffers
    copies = [s for s in p.stmts if s.body == _COPY and s.reduce is None
              and len(s.srcs) == 1 and s.srcs[0][0][0] == "buf" and s.dst[0] == "buf"]
    assert not copies
    for _ in range(3):
        _assert_matches(f, outputs, {x: rng.uniform(-1, 1, n)})


def test_buffers_share_memory_only_when_never_alive_together(monkeypatch):
    from symgrad.lower import program as lowering
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(9,), name="x")
        f = _rosenbrock(x) + sg.reduce_sum(sg.tanh(x) * x[::-1])
        outputs = [f] + sg.gradients(f, x) + sg.hessians(f, x)
        monkeypatch.setattr(lowering, "share_buffers", lambda p: None)
        p = lower_graph(outputs, [x])
    before = {id(st): [st.dst] + [r for r, _ in st.srcs] for st in p.stmts}
    share_buffers(p)   # (may also reorder statements: the emitter's loop nests, lower.loopfuse)
    slot = {}
    for st in p.stmts:
        for old, new in zip(before[id(st)], [st.dst] + [r for r, _ in st.srcs]):
            if old[0] == "buf":
                assert slot.setdefault(old[1], new[1]) == new[1]
    assert len(set(slot.values())) < len(slot)  # something was shared
    # lifetimes of the old buffers in the new order of the statements (whether
    # statements may share a loop nest is checked on the renamed buffers: lower.loopfuse)
    span = {}
    for n, st in enumerate(p.stmts):
        for ref in before[id(st)]:
            if ref[0] == "buf":
                span[ref[1]] = (span.get(ref[1], (n, n))[0], n)
    for a in slot:
        for b in slot:
            if a < b and slot[a] == slot[b]:  # disjoint lifetimes, in either order
                assert span[a][1] < span[b][0] or span[b][1] < span[a][0], (a, b)


def test_elementwise_producer_runs_inside_its_scatter(rng):
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(50,), name="x")
        y = sg.reduce_sum((x[1:] * x[1:] - 2.0) * x[:-1])
        g = sg.gradients(y, x)
        p = lower_graph(g, [x])
        # the cotangents of x[1:] and x[:-1] go straight into the gradient (stored, or
        # added in place), computed in the loop: no loop of them writes a temporary
        assert all(s.dst[0] == "out" for s in p.stmts if s.dims == (49,))
        f = sg.compile(g, [x], cache=False)
        _assert_matches(f, g, {x: rng.standard_normal(50)})


@pytest.mark.parametrize("n", [None, 300])
def test_small_contractions_read_rows_without_a_transposed_copy(n, rng):
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(n, 6), name="X")
        w = sg.placeholder(shape=(6,), name="w")
        r = sg.sigmoid(X @ w)
        loss = sg.reduce_sum(r * r)
        outputs = [loss] + sg.gradients(loss, w)
        p = lower_graph(outputs, [X, w])
        copies = [s for s in p.stmts if s.body == _COPY and s.srcs
                  and s.srcs[0][0] == ("in", 0)]
        assert not copies  # Xᵀ is read in place
        (xtg,) = [s for s in p.stmts if len(s.srcs) == 2 and s.srcs[0][0] == ("in", 0)
                  and s.dst[0] == "out"]
        assert xtg.dims[0] == (n or p.inputs[0][2][0])  # the data rows are the outer loop
        f = sg.compile(outputs, [X, w], cache=False)
        for rows in ([0, 1, 7, 50] if n is None else [n]):
            _assert_matches(f, outputs, {X: rng.standard_normal((rows, 6)),
                                         w: rng.standard_normal(6)})


def test_kernels_with_runtime_sizes_split_into_functions(monkeypatch, rng):
    monkeypatch.setattr(llvm, "SPLIT_ABOVE", 0)
    monkeypatch.setattr(llvm, "CHUNK_SIZE", 7)
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(None, 3), name="X")
        w = sg.placeholder(shape=(3,), name="w")
        z = sg.sin(X @ w) * sg.reduce_sum(X * X, axis=1)
        loss = sg.reduce_mean(z * z) + sg.reduce_sum(w * w)
        outputs = [loss] + sg.gradients(loss, [X, w])
        f = sg.compile(outputs, [X, w], cache=False)
        for rows in (1, 7, 40):
            _assert_matches(f, outputs, {X: rng.standard_normal((rows, 3)),
                                         w: rng.standard_normal(3)})
        kernel = f.jit.kernel
        assert len(kernel.overloads) == 1
        assert "symgrad.chunk" in "".join(kernel.inspect_llvm().values())


def test_forward_values_are_computed_once_not_once_per_seed(rng):
    X = rng.standard_normal((30, 4))
    y = np.where(rng.standard_normal(30) > 0, 1.0, -1.0)
    with sg.Graph().as_default():
        w = sg.placeholder(shape=(4,), name="w")
        h1 = sg.tanh(sg.matmul(sg.constant(X), w))
        loss = sg.reduce_mean(sg.softplus(-h1 * sg.constant(y))) + sg.reduce_sum(w * w)
        outputs = sg.hessians(loss, w)
        p = lower_graph(outputs, [w])
        # math calls (tanh, exp, log1p) run over the 30 data points, never over
        # the 4 seeds x 30 points of the batched sweep
        batched = [s for s in p.stmts if len(s.dims) >= 2 and 4 in s.dims and 30 in s.dims]
        assert batched and not [s for s in batched if any(op[0] == "call" for op in s.body)]
        f = sg.compile(outputs, [w], cache=False)
        for _ in range(3):
            _assert_matches(f, outputs, {w: rng.standard_normal(4)})


def test_kernels_of_many_loops_split_into_functions(monkeypatch, rng):
    monkeypatch.setattr(llvm, "SPLIT_LOOPS", 4)
    monkeypatch.setattr(llvm, "CHUNK_LOOPS", 2)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None,), name="x")
        ys = [sg.reduce_sum(sg.sin(x * float(k)) * x) for k in range(1, 7)]
        outputs = ys + sg.gradients(ys, x)
        f = sg.compile(outputs, [x], cache=False)
        assert llvm.program_size(f.program.stmts) < llvm.SPLIT_ABOVE
        for n in (0, 3, 20):
            _assert_matches(f, outputs, {x: rng.standard_normal(n)})
        assert "symgrad.chunk" in "".join(f.jit.kernel.inspect_llvm().values())


@pytest.mark.parametrize("values", [
    [0.0, 1.0, -1.0, 5.0, 127.0, -127.0],     # small whole numbers: stored as int8
    [0.0, 1.0, -1.0, 5.0, 127.0, -128.0],     # |v| beyond 127: stays float
    [0.0, -0.0, 1.0, 2.0, 3.0, 4.0],          # -0.0 must keep its sign: stays float
    [0.5, 1.0, 2.0, 3.0, 4.0, 5.0],           # a fraction: stays float
    [0.0, 1.0, 300.0, 2.0, 3.0, 4.0],         # beyond int8: stays float
    [0.0, np.inf, 1.0, np.nan, 2.0, 3.0]])    # not finite: stays float
def test_baked_tables_are_stored_narrow_and_read_exactly(values):
    """A kernel's baked constants (``llvm_loops.narrowest``): whole-number tables are
    stored as int8 and widened on load; anything else keeps its float64 bits."""
    table = np.array(values)
    from symgrad.lower.llvm_loops import narrowest
    narrowed = narrowest(table)
    np.testing.assert_array_equal(np.signbit(narrowed.astype(np.float64)), np.signbit(table))
    np.testing.assert_array_equal(narrowed.astype(np.float64), table)
    whole = np.isfinite(table).all() and (table == np.round(table)).all() and \
        not np.signbit(table[table == 0]).any() and np.abs(table).max() <= 127
    assert narrowed.dtype == (np.int8 if whole else np.float64)
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(6,), name="x")
        y = x * sg.constant(table)
        f = sg.compile(y, [x], cache=False, wait=True)
        point = np.array([1.0, 2.0, -3.0, 0.5, 1.0, -1.0])
        got, want = f(point), point * table
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n, dtype", [(100, np.int8), (1000, np.int16), (40000, np.int32)])
def test_index_tables_are_stored_in_the_narrowest_integers(n, dtype, rng):
    """Gathers through a table of positions stored as int8/int16/int32 and widened to
    64 bits on load read the same elements as numpy."""
    from symgrad.lower.llvm_loops import narrowest
    idx = rng.permutation(n)[:min(n, 300)]
    assert narrowest(idx).dtype == dtype
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(n,), name="x")
        f = sg.compile(sg.gather(x, idx) * 2.0, [x], cache=False, wait=True)
        point = rng.standard_normal(n)
        np.testing.assert_array_equal(f(point), point[idx] * 2.0)


def test_the_gaps_of_a_scatter_are_found_without_listing_them(rng):
    """``indexed.gaps_fit`` equals ``affine_fit`` of the listed zero positions."""
    from symgrad.lower.indexed import gaps_fit
    from symgrad.lower.ir import affine_fit
    cases = [np.ones(10, dtype=np.int64)]
    for _ in range(300):
        n = int(rng.integers(1, 40))
        hits = (rng.random(n) < rng.random()).astype(np.int64)
        if rng.random() < 0.5:   # evenly spaced gaps, as a banded scatter leaves them
            start, step = int(rng.integers(0, n)), int(rng.integers(1, 5))
            hits = np.ones(n, dtype=np.int64)
            hits[start::step] = 0
        cases.append(hits)
    for hits in cases:
        rest = np.flatnonzero(hits == 0)
        if rest.size:
            assert gaps_fit(hits, rest.size) == affine_fit(rest), hits
