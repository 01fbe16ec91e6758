"""Compiled sparse results: built by the machine code (``lower.boxing``), checked once
per layout against scipy's documented constructor (``values.csr_result``).

Oracles: the reference evaluator's sparse result (bit for bit), the dense Hessian
compiled (to rounding: star colouring reads H[i, j] as H[j, i]), scipy's ``check_format(full_check=True)``, and
independence of successive results (a user's in-place edits of one result never
reach the next).  Also the lowering changes made for this path: a hoisted power whose constant
exponent makes it the input or 1 is read, not computed (``x**2``'s second
derivative has no ``pow`` loop) and a
scatter into zeros at distinct positions stores ``g + 0.0`` (+0.0 for -0.0, as the
reference's ``0 + g``).
"""
import pickle

import numpy as np
import pytest
import scipy.sparse

import symgrad as sg
import symgrad.values as V


def rosenbrock(x):
    return sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


@pytest.fixture(scope="module")
def built():
    """[f, g, H sparse, H dense] of a Rosenbrock plus an arrow (one compile)."""
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(40,), name="x")
        f = rosenbrock(x) + sg.sin(x[0]) * sg.reduce_sum(x[1:] ** 2)   # a dense first row
        (g,) = sg.gradients(f, x)
        (hs,) = sg.hessians(f, x, sparse=True)
        (hd,) = sg.hessians(f, x)
        fn = sg.compile([f, g, hs, hd], [x], cache=False, wait=True)
        v = np.random.default_rng(5).uniform(-0.9, 0.9, 40)
        ref = sg.evaluate(hs, {x: v}).toarray()   # the reference evaluator's sparse result
        np.testing.assert_allclose(ref, sg.evaluate(hd, {x: v}), rtol=1e-13, atol=1e-12)
        yield fn, v, ref, hs


def test_compiled_sparse_result_is_a_valid_csr_equal_to_dense_and_reference(built):
    fn, v, ref, hs = built
    for _ in range(3):   # the first result (the constructor's) and later ones (the fast path)
        f, g, h, dense = fn(v)
        assert type(h) is scipy.sparse.csr_matrix and h.shape == (40, 40)
        h.check_format(full_check=True)
        assert h.nnz == hs.nnz and h.has_sorted_indices
        np.testing.assert_array_equal(h.indptr, hs.layout.indptr)
        np.testing.assert_array_equal(h.indices, hs.layout.indices)
        np.testing.assert_array_equal(h.toarray(), ref)
        np.testing.assert_allclose(h.toarray(), dense, rtol=1e-13, atol=1e-12)
    flat = fn.jit(v)   # the kernel's own tuple: the stored values of the sparse result
    np.testing.assert_array_equal(flat[2], h.data)


def test_each_result_owns_its_arrays(built):
    fn, v, ref, _ = built
    first = fn(v)[2]
    second = fn(v)[2]
    for a in ("data", "indices", "indptr"):
        assert not np.shares_memory(getattr(first, a), getattr(second, a)), a
        assert getattr(first, a).flags.writeable
    first.data[:] = 0.0
    first.eliminate_zeros()   # rewrites indices and indptr in place
    first.indices[:] = 0
    third = fn(v)[2]
    third.check_format(full_check=True)
    np.testing.assert_array_equal(third.toarray(), ref)
    np.testing.assert_array_equal(second.toarray(), ref)


def test_first_use_check_and_the_constructor_fallback(built, monkeypatch):
    fn, v, ref, hs = built
    fn(v)
    ((digest, maker),) = [(d, m) for d, m in V._CSR_MAKERS.items() if m.shape == (40, 40)]
    monkeypatch.setattr(V, "_CSR_STATES", {})
    monkeypatch.setattr(maker, "fast", None)   # as in a new process
    first = fn(v)[2]   # checked against the constructor: the machine code takes over
    cls, state = V._CSR_STATES[digest]
    assert cls is scipy.sparse.csr_matrix and state is not None and maker.fast is not None
    assert maker.fast == (scipy.sparse.csr_matrix, state) and maker.fast[1] is state
    for h in (first, fn(v)[2], fn(v)[2]):
        assert type(h) is scipy.sparse.csr_matrix and h.__dict__.keys() == first.__dict__.keys()
        h.check_format(full_check=True)
        np.testing.assert_array_equal(h.toarray(), ref)
    # a scipy whose matrices hold other state than ours: every result by the constructor
    monkeypatch.setattr(V, "_CSR_STATES", {})
    monkeypatch.setattr(maker, "fast", None)
    monkeypatch.setattr(V, "same_csr", lambda a, b: False)
    results = [fn(v)[2] for _ in range(3)]
    assert V._CSR_STATES[digest][1] is None and maker.fast is None
    for h in results:
        assert type(h) is scipy.sparse.csr_matrix
        h.check_format(full_check=True)
        np.testing.assert_array_equal(h.toarray(), ref)


def test_same_csr_compares_with_the_constructor():
    r = scipy.sparse.random(6, 5, density=0.4, format="csr", random_state=1)

    def made():
        return scipy.sparse.csr_matrix((r.data.copy(), r.indices.copy(), r.indptr.copy()),
                                       shape=r.shape)
    a, b = made(), made()
    assert V.same_csr(a, b)
    b.data[0] += 1.0
    assert not V.same_csr(a, b)
    c = made()
    c.indices = c.indices.astype(np.int64)
    assert not V.same_csr(a, c)   # another index dtype
    d = made()
    d.maxprint = a.maxprint + 1
    assert not V.same_csr(a, d)   # another attribute
    assert not V.same_csr(a, a.tocsc())


def test_pickled_sparse_evaluator_builds_the_same_matrix(built):
    fn, v, ref, _ = built
    again = pickle.loads(pickle.dumps(fn))
    h = again(v)[2]
    assert type(h) is scipy.sparse.csr_matrix
    np.testing.assert_array_equal(h.toarray(), ref)


def test_hoisted_constant_powers_are_read_not_computed(built):
    fn = built[0]
    calls = [op[1] for st in fn.program.stmts for op in st.body if op[0] == "call"]
    assert "pow" not in calls   # x**2, (1 - x)**2 and their derivatives: multiplications
    assert "cos" in calls and "sin" in calls   # (the test sees calls at all)


def test_scatter_into_zeros_stores_plus_zero_like_the_reference():
    x = sg.placeholder(shape=(5,), name="x")
    z = sg.placeholder(shape=(4,), name="z")
    (g,) = sg.gradients(sg.reduce_sum(x[1:] * z), x)
    fn = sg.compile(g, [x, z], cache=False, wait=True)
    zv = np.array([-0.0, 2.0, -0.0, -3.0])
    out = fn(np.ones(5), zv)
    ref = np.asarray(sg.evaluate(g, {x: np.ones(5), z: zv}))
    np.testing.assert_array_equal(out, ref)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(ref))
    assert np.signbit(out[1:]).tolist() == [False, False, False, True]


def test_periodic_gather_tables_split_into_small_tables_and_strides(rng):
    from symgrad.lower.program import lower_graph
    from symgrad.lower.indexed import periodic_pieces
    band = np.array([[0, 1000, 1], [0, 1, 2000]]).ravel()   # 6 entries, shift 3 per period
    table = np.concatenate([[7, 2], (band + 3 * np.arange(60)[:, None]).ravel(), [5, 9, 4]])
    pieces = periodic_pieces(table)
    assert [p for _, _, p in pieces] == [2, 6, 3] and pieces[1][1] == 60
    assert sum(r * p for _, r, p in pieces) == table.size
    for start, rows, period in pieces:   # each piece: a table over one period + a stride
        part = table[start:start + rows * period].reshape(rows, period)
        assert len({tuple(d) for d in np.diff(part, axis=0)}) <= 1
    assert periodic_pieces(rng.permutation(3000)) is None   # no period: one table
    assert periodic_pieces(np.arange(100)) is None   # short
    x = sg.placeholder(shape=(3000,), name="x")
    y = sg.gather(x, table)
    program = lower_graph([y], [x])
    assert {s.dims for s in program.stmts} == {(1, 2), (60, 6), (1, 3)}
    v = rng.normal(size=3000)
    np.testing.assert_array_equal(sg.compile(y, [x], cache=False, wait=True)(v), v[table])


def test_batched_sparse_results_are_sparse_batches_equal_to_each_call(built):
    """``batched`` gives a SparseBatch per sparse output: its points equal the single
    calls, its dense form the dense Hessian; into ``out=`` too, and over dask chunks."""
    from symgrad.sparse_batch import SparseBatch
    fn, v, ref, hs = built
    X = np.random.default_rng(7).uniform(-0.9, 0.9, (3, 2, 40))
    f, g, hb, hd = fn.batched(X)
    assert isinstance(hb, SparseBatch) and hb.shape == (3, 2, 40, 40)
    assert hb.data.shape == (3, 2, hs.nnz) and len(hb) == 3
    np.testing.assert_array_equal(hb.toarray(), np.stack(
        [[fn(X[i, j])[2].toarray() for j in range(2)] for i in range(3)]))
    np.testing.assert_allclose(hb.toarray(), hd, rtol=1e-12, atol=1e-10)
    one = hb[2, 1]
    assert isinstance(one, scipy.sparse.csr_matrix)
    one.check_format(full_check=True)
    one.data[:] = 0   # a point's matrix owns its values: the batch is unchanged
    np.testing.assert_array_equal(hb[2][1].toarray(), fn(X[2, 1])[2].toarray())
    assert [m.nnz for m in hb[0]] == [hs.nnz, hs.nnz]
    with pytest.raises(IndexError, match="batch axes"):
        hb[0, 0, 0]
    outs = [np.empty((6,)), np.empty((6, 40)), np.empty((6, hs.nnz)), np.empty((6, 40, 40))]
    got = fn.batched(X.reshape(6, 40), out=outs)
    assert got[2].data is outs[2]
    np.testing.assert_array_equal(got[2].toarray(), hb.toarray().reshape(6, 40, 40))
    da = pytest.importorskip("dask.array")
    lazy = fn.batched(da.from_array(X.reshape(6, 40), chunks=(4, 40)))[2]
    np.testing.assert_array_equal(lazy.toarray().compute(), hb.toarray().reshape(6, 40, 40))
    np.testing.assert_array_equal(lazy.compute().data, hb.data.reshape(6, -1))
