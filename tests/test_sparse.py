"""Structural sparsity, colourings and sparse results against dense oracles.

- ``sparsity`` is exact for the textbook patterns (tridiagonal Rosenbrock,
  block-diagonal separable sums, arrows) and never misses a nonzero on random
  programs (values at random points must lie inside the pattern);
- colourings: star colourings recover every entry of random symmetric matrices
  with their pattern; column colourings never put two columns of a row together;
- ``sparse=True`` equals the dense result (``.toarray()``), evaluated and compiled,
  and ``to_scipy(sparse=True)`` drives ``trust-constr``.
"""
import numpy as np
import pytest
from hypothesis import assume, given

import symgrad as sg
from symgrad.forward import seed_leaf
from symgrad.ops import REGISTRY, apply
from symgrad.patterns import column_coloring, seed_pattern, sparsity, star_coloring, star_recovery

from .oracles import example_values
from .programs import programs
from .test_properties import fd_gradient, seeds, stop_nodes


def rosenbrock(x):
    return sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _band(n, width):
    i = np.arange(n)
    return np.abs(i[:, None] - i[None, :]) <= width


def test_rosenbrock_hessian_pattern_is_exactly_tridiagonal_with_three_colours():
    x = sg.placeholder(shape=(60,), name="x")
    (h,) = sg.hessians(rosenbrock(x), x)
    assert np.array_equal(sparsity(h), _band(60, 1))
    (hs,) = sg.hessians(rosenbrock(x), x, sparse=True)
    assert hs.colors == 3 and hs.nnz == _band(60, 1).sum()


def test_block_diagonal_and_arrow_patterns_are_exact():
    x = sg.placeholder(shape=(4, 3), name="x")
    f = sg.reduce_sum(sg.exp(sg.reduce_sum(x * x, axis=1)))  # separable over rows
    (h,) = sg.hessians(f, x)
    blocks = np.kron(np.eye(4, dtype=bool), np.ones((3, 3), dtype=bool))
    assert np.array_equal(sparsity(h).reshape(12, 12), blocks)
    y = sg.placeholder(shape=(7,), name="y")
    arrow = y[0] * sg.reduce_sum(y[1:] ** 2) + sg.reduce_sum(sg.sin(y))
    expected = np.eye(7, dtype=bool)
    expected[0, :] = expected[:, 0] = True
    (ha,) = sg.hessians(arrow, y)
    assert np.array_equal(sparsity(ha), expected)
    (hs,) = sg.hessians(arrow, y, sparse=True)
    assert hs.colors == 2 and np.array_equal(hs.pattern.toarray(), expected)
    (hb,) = sg.hessians(f, x, sparse=True)
    assert np.array_equal(hb.pattern.toarray(), blocks)


def test_sparse_hessian_at_size_keeps_memory_proportional_to_the_nonzeros():
    # 30,000 variables: one dense n x n boolean mask would be 900 MB; the index sets
    # hold 3n entries.  Values from the reference evaluator against the closed form.
    n = 30_000
    x = sg.placeholder(shape=(n,), name="x")
    (h,) = sg.hessians(rosenbrock(x), x, sparse=True)
    assert h.colors == 3 and h.nnz == 3 * n - 2 and h.pattern.nnz == 3 * n - 2
    v = np.random.default_rng(3).uniform(-1, 1, n)
    H = h.numpy({x: v})
    a, b = v[:-1], v[1:]
    np.testing.assert_allclose(H.diagonal(), np.append(1200 * a * a - 400 * b + 2, 0) +
                               np.insert(np.full(n - 1, 200.0), 0, 0), rtol=1e-12)
    np.testing.assert_allclose(H.diagonal(1), -400 * a, rtol=1e-12)
    np.testing.assert_allclose(H.diagonal(-1), -400 * a, rtol=1e-12)


def test_sparsity_of_ordinary_tensors_follows_constants_and_kinks():
    x = sg.Variable([1.0, 2.0, 3.0], name="x")
    assert sparsity(x * sg.constant([0.0, 1.0, 0.0])).tolist() == [False, True, False]
    assert sparsity(x + sg.constant([0.0, 1.0, 0.0])).tolist() == [True, True, True]
    cond = sg.constant([True, False, True])
    assert sparsity(sg.where(cond, x, 0.0)).tolist() == [True, False, True]
    assert sparsity(sg.constant([[0.0, 1.0], [0.0, 0.0]]) @ sg.reshape(x[:2], (2, 1))) \
        .ravel().tolist() == [True, False]
    with pytest.raises(sg.NotATensorError):
        sparsity(np.ones(3))


@given(programs(max_steps=5))
def test_sparsity_never_misses_a_nonzero(p):
    x = p.leaves[0]
    assume(x.size <= 6)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    (h,) = sg.hessians(loss, x)
    J = sg.jacobian(p.ys[0], x)
    pats = [(h, sparsity(h))] + ([(J, sparsity(J))] if J is not None else [])
    rng = np.random.default_rng(len(p.nodes))
    for _ in range(3):
        for leaf in p.leaves:
            leaf.assign(rng.uniform(-2, 2, size=leaf.shape))
        for t, pattern in pats:
            value = np.asarray(sg.evaluate(t), dtype=float)
            outside = value[~pattern]
            assert np.all((outside == 0) | np.isnan(outside)), p.code


@given(programs(max_steps=4))
def test_sparse_results_equal_dense(p):
    x = p.leaves[0]
    assume(x.size <= 6 and not stop_nodes(p) and fd_gradient(p, x, []) is not None)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    (h,) = sg.hessians(loss, x)
    (hs,) = sg.hessians(loss, x, sparse=True)
    exact = sparsity(h).reshape(x.size, x.size)  # (the dense analysis: values on masks)
    assert not np.any((exact | exact.T) & ~hs.pattern.toarray()), p.code
    dense = np.asarray(sg.evaluate(h), dtype=float).reshape(x.size, x.size)
    assume(np.isfinite(dense).all())
    np.testing.assert_allclose(hs.numpy().toarray(), dense, rtol=1e-9, atol=1e-12,
                               err_msg=p.code)
    J = sg.jacobian(p.ys[0], x)
    if J is not None:
        Js = sg.jacobian(p.ys[0], x, sparse=True)
        Jd = np.asarray(sg.evaluate(J), dtype=float).reshape(p.ys[0].size, x.size)
        assume(np.isfinite(Jd).all())
        np.testing.assert_allclose(Js.numpy().toarray(), Jd, rtol=1e-9, atol=1e-12,
                                   err_msg=p.code)


def _check_recovery(pattern, H, colors):
    """Neighbours differ in colour and every entry is read back from H @ S."""
    n = len(pattern)
    for i, j in zip(*np.nonzero(pattern & ~np.eye(n, dtype=bool))):
        assert colors[i] != colors[j]
    S = np.zeros((n, colors.max() + 1))
    S[np.arange(n), colors] = 1.0
    compressed = (H @ S).T  # compressed[b, i] = sum over colour b of row i
    rows, cols, seed_of, at = star_recovery(pattern, colors)
    np.testing.assert_allclose(compressed[seed_of, at], H[rows, cols], atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_block_diagonal_patterns_colour_with_their_largest_block(seed):
    """Disjoint cliques (blocks in shuffled order) take the largest block's size in
    colours, each vertex its rank in its block; one more edge between two blocks
    makes it no union of cliques (the greedy colouring then), still a star colouring."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 7, size=8)
    blocks = np.repeat(np.arange(len(sizes)), sizes)
    order = rng.permutation(len(blocks))
    block = blocks[order]
    pattern = block[:, None] == block[None, :]
    H = np.where(pattern, rng.normal(size=pattern.shape), 0.0)
    H = H + H.T
    colors = star_coloring(pattern)
    assert colors.max() + 1 == sizes.max()
    assert colors.tolist() == [int(np.sum(block[:v] == block[v])) for v in range(len(block))]
    _check_recovery(pattern, H, colors)
    i, j = np.flatnonzero(block == 0)[0], np.flatnonzero(block == 1)[0]
    pattern[i, j] = pattern[j, i] = True
    H[i, j] = H[j, i] = 1.5
    _check_recovery(pattern, H, star_coloring(pattern))
    lower = np.tril(pattern)            # not symmetric: left to the greedy colouring
    assert star_coloring(lower).shape == (len(block),)


@pytest.mark.parametrize("seed", range(8))
def test_star_colouring_recovers_random_symmetric_matrices(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 25))
    pattern = rng.random((n, n)) < rng.uniform(0.05, 0.5)
    pattern = pattern | pattern.T | np.eye(n, dtype=bool)
    H = np.where(pattern, rng.normal(size=(n, n)), 0.0)
    H = (H + H.T) / 2
    _check_recovery(pattern, H, star_coloring(pattern))
    jac = rng.random((n, n + 3)) < 0.2
    cc = column_coloring(jac)
    for row in jac:
        used = cc[np.flatnonzero(row)]
        assert len(set(used.tolist())) == len(used)


def test_sparse_jacobian_rows_and_columns_and_compiled_csr(rng):
    x = sg.placeholder(shape=(6,), name="x")
    tall = sg.concat([sg.sin(x[1:]) * x[:-1], sg.reshape(sg.reduce_sum(x), (1,))], axis=0)
    wide = sg.reshape(sg.stack([x[0] * x[1], sg.reduce_sum(x * x)]), (2,))
    v = rng.normal(size=6)
    for y in (tall, wide):
        J, Js = sg.jacobian(y, x), sg.jacobian(y, x, sparse=True)
        f = sg.compile([J, Js], [x])
        dense, csr = f(v)
        assert type(csr).__name__ == "csr_matrix" and csr.shape == (y.size, 6)
        csr.check_format(full_check=True)
        np.testing.assert_allclose(csr.toarray(), dense, rtol=1e-12)
        csr.indices[:] = 0  # each call's matrix owns its index arrays
        np.testing.assert_allclose(f(v)[1].toarray(), dense, rtol=1e-12)
        np.testing.assert_allclose(sg.evaluate(Js, {x: v}).toarray(), dense, rtol=1e-12)
    assert sg.jacobian(wide, x, sparse=True).colors <= 2


def test_to_scipy_sparse_hessian_drives_trust_constr():
    from scipy.optimize import minimize
    x = sg.Variable(np.full(12, -1.0), name="x")
    w = sg.Variable([0.5, 0.5], name="w")
    loss = rosenbrock(x) + sg.reduce_sum((w - x[:2]) ** 2)
    obj = sg.to_scipy(loss, [x, w], sparse=True)
    dense = sg.to_scipy(loss, [x, w])
    H = obj.hess(obj.x0)
    assert type(H).__name__ == "csr_matrix"
    np.testing.assert_allclose(H.toarray(), dense.hess(dense.x0), rtol=1e-12)
    result = minimize(obj.fun, obj.x0, jac=True, hess=obj.hess, method="trust-constr",
                      options={"gtol": 1e-10, "maxiter": 2000})
    np.testing.assert_allclose(result.x, np.ones(14), atol=1e-5)
    p = np.linspace(-1, 1, 14)
    np.testing.assert_allclose(obj.hessp(obj.x0, p), dense.hess(dense.x0) @ p, rtol=1e-10)


_CASES = [(name, i) for name, op in sorted(REGISTRY.items()) if op.kind not in ("leaf", "control")
          and not getattr(op, "value_sized", False)   # (no pattern: sizes read from values)
          for i in range(len(op.examples))]


@pytest.mark.parametrize("name,i", _CASES)
def test_dependence_rules_never_miss_a_nonzero_of_the_op_jacobian(name, i, rng):
    # Each op with one float input replaced by the seed leaf: the index-set pattern
    # must hold every nonzero of the op's Jacobian in that input at random points.
    example = REGISTRY[name].examples[i]
    values = example_values(example, rng)
    for k, v in enumerate(values):
        if np.asarray(v).dtype.kind != "f":
            continue
        with sg.Graph().as_default() as graph:
            ins = [sg.constant(u) for u in values]
            seed = seed_leaf(graph, np.shape(v), np.float64)
            ins[k] = seed
            y = apply(name, ins, **example.attrs)
            if not y.is_float or not y.shape or not np.shape(v):
                continue
            pattern = seed_pattern(y, seed).toarray()
            J = sg.jacobian(y, seed)
            if J is None:  # (no derivative rule, e.g. ceil: nothing to miss)
                continue
            for _ in range(2):
                point = v + 0.05 * rng.normal(size=np.shape(v))  # (near the example)
                value = np.asarray(sg.evaluate(J, {seed: point}), dtype=float)
                value = value.reshape(y.size, seed.size)
                assert not np.any((value != 0) & ~pattern & np.isfinite(value)), (name, k)


def test_dense_patterns_take_the_unit_seeds_and_keep_csr_results(rng):
    # lj/mlp-like: every entry structurally nonzero, so no colouring compresses; the
    # unit seeds' sweep is gathered in CSR order (a non-symmetric J checks the transposes)
    x = sg.placeholder(shape=(5,), name="x")
    A = sg.constant(rng.normal(size=(7, 5)))
    v = rng.normal(size=5)
    (h,) = sg.hessians(sg.reduce_sum(sg.tanh(A @ x)) ** 2, x)
    (hs,) = sg.hessians(sg.reduce_sum(sg.tanh(A @ x)) ** 2, x, sparse=True)
    assert hs.colors == 5 and hs.nnz == 25
    # entry (r, c) from the sweep's row r, as the dense Hessian has it: equal bit for bit,
    # and compiled, the extraction is a plain copy (no table of positions to bake)
    np.testing.assert_array_equal(hs.numpy({x: v}).toarray(), sg.evaluate(h, {x: v}))
    fs, fd = sg.compile(hs, [x]), sg.compile(h, [x])
    np.testing.assert_array_equal(fs(v).toarray(), fd(v))
    assert "index table" not in fs.source
    # mostly full (x[4] is separate: 17 of 25 stored): still the unit seeds, still equal
    (h2,) = sg.hessians(sg.reduce_sum(sg.tanh(A[:, :4] @ x[:4])) ** 2 + x[4] ** 3, x)
    (hs2,) = sg.hessians(sg.reduce_sum(sg.tanh(A[:, :4] @ x[:4])) ** 2 + x[4] ** 3, x,
                         sparse=True)
    assert hs2.colors == 5 and hs2.nnz == 17
    np.testing.assert_array_equal(hs2.numpy({x: v}).toarray(), sg.evaluate(h2, {x: v}))
    np.testing.assert_array_equal(sg.compile(hs2, [x])(v).toarray(), sg.compile(h2, [x])(v))
    for y in (sg.tanh(A @ x) * x[0], sg.tanh(A[:3] @ x) * x[1]):   # tall: forward, wide: reverse
        J, Js = sg.jacobian(y, x), sg.jacobian(y, x, sparse=True)
        assert Js.colors == min(y.size, 5) and Js.nnz == y.size * 5
        dense = sg.evaluate(J, {x: v})
        np.testing.assert_allclose(Js.numpy({x: v}).toarray(), dense, rtol=1e-12)
        csr = sg.compile(Js, [x])(v)
        csr.check_format(full_check=True)
        np.testing.assert_allclose(csr.toarray(), dense, rtol=1e-13)


def test_sparse_jacobian_checks_arguments_without_building_the_dense_one(fresh_graph):
    x = sg.placeholder(shape=(200,), name="x")
    Js = sg.jacobian(sg.sin(x[1:]) * x[:-1], x, sparse=True)
    assert Js.colors == 2 and not any(n.shape == (199, 200) or n.shape == (200, 199)
                                      or n.shape == (200, 200) for n in fresh_graph.nodes)
    z = sg.placeholder(shape=(2,), name="z")
    assert sg.jacobian(z * 2.0, x, sparse=True) is None
    empty = sg.jacobian(z * 2.0, x, sparse=True, unconnected_gradients="zero")
    assert empty.nnz == 0 and empty.numpy({x: np.ones(200)}).shape == (2, 200)
    with pytest.raises(ValueError, match="unconnected_gradients"):
        sg.jacobian(z, x, sparse=True, unconnected_gradients="zeros")


def test_sparsity_of_dense_derivatives_reads_index_sets():
    # a dense 2,000 x 2,000 Hessian: one n x n mask per node of its batched sweep would
    # be ~4 MB each over ~100 nodes; the index sets of the unbatched sweep hold 3n entries
    x = sg.placeholder(shape=(2000,), name="x")
    (h,) = sg.hessians(rosenbrock(x), x)
    assert np.array_equal(sparsity(h), _band(2000, 1))
    y = sg.placeholder(shape=(4, 30), name="y")
    tall = sg.concat([sg.reshape(y * y, (120,)), sg.reshape(y[:, 1:] * y[:, :-1], (116,))], 0)
    J = sg.jacobian(tall, y)                      # forward: a transpose over the batch
    dense = np.abs(sg.evaluate(J, {y: np.random.default_rng(2).normal(size=(4, 30))})) > 0
    assert sparsity(J).shape == (236, 4, 30) and np.array_equal(sparsity(J), dense)


def test_index_sets_deduplicate_by_marks_or_by_sorting_alike(rng):
    # few possible keys beside the pairs: marked in a boolean array; many: sorted
    from symgrad.seed_sets import MARK_PER_KEY, _sorted_unique
    for space, count in ((50, 4000), (10**6, 300), (MARK_PER_KEY * 64, 64),
                         (MARK_PER_KEY * 64 + 1, 64), (10, 0), (0, 0)):
        keys = rng.integers(0, space, size=count)
        got = _sorted_unique(keys, space)
        assert got.dtype.kind == "i" and np.array_equal(got, np.unique(keys))
    # logistic-regression-like: X^T diag(w) X unions many pairs into few entries
    X = rng.normal(size=(120, 9))
    x = sg.placeholder(shape=(9,), name="x")
    (hs,) = sg.hessians(sg.reduce_mean(sg.softplus(sg.constant(X) @ x)), x, sparse=True)
    assert hs.nnz == 81 and np.array_equal(hs.pattern.toarray(), np.ones((9, 9), bool))


def test_patterns_over_sizes_known_only_at_run_time_are_refused_by_name():
    # the Hessian in w is 4 x 4, but its sweep runs through X of shape (None, 4): the
    # pattern is read element by element, so each entry point says so (it raised a
    # TypeError from inside numpy); the dense result still serves every size
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(None, 4), name="X")
        w = sg.placeholder(shape=(4,), name="w")
        loss = sg.reduce_sum(sg.tanh(X * w) ** 2)
        (h,) = sg.hessians(loss, w)
        calls = [lambda: sg.sparsity(h), lambda: sg.hessians(loss, w, sparse=True),
                 lambda: sg.jacobian(sg.reduce_sum(sg.tanh(X * w), 0), w, sparse=True)]
        for call in calls:
            with pytest.raises(sg.ShapeError, match=r"'X' of shape \(None, 4\).*fixed sizes"):
                call()
        value = sg.evaluate(h, {X: np.ones((3, 4)), w: np.full(4, 0.5)})
        assert value.shape == (4, 4) and np.count_nonzero(value - np.diag(np.diag(value))) == 0
