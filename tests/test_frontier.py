"""Hessians taken after the selections of x (``symgrad.frontier``): H_x = Gᵀ H_z G.

Oracles: the dense Hessian over the unit seeds by the reference evaluator (what
``sg.evaluate`` of ``hessians`` computes), equal to 1e-12 to the frontier's values
(the same terms added in another order), evaluated and compiled, dense and sparse;
the frontier and the source map are checked against what the programs select.
"""
import numpy as np
import pytest
from hypothesis import assume, given

import symgrad as sg
from symgrad import frontier, seeds as seeds_module, sparse as sparse_module
from symgrad.graph import ancestors
from symgrad.ops import REGISTRY

from .programs import programs
from .test_properties import seeds


def pair_energy(x, n):
    """Lennard-Jones energy of n particles in 3-D (every pair: a dense Hessian)."""
    i, j = np.triu_indices(n, k=1)
    pos = sg.reshape(x, (n, 3))
    d = pos[i] - pos[j]
    s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
    return sg.reduce_sum(4.0 * (s6 * s6 - s6))


def lattice(n, seed=3):
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.array([[a, b, c] for a in range(side) for b in range(side)
                     for c in range(side)], float)[:n] * 1.2
    return (grid + np.random.default_rng(seed).uniform(-0.1, 0.1, grid.shape)).ravel()


def _colours(alt):
    return {b.shape[0] for b in ancestors([alt]) if b in alt.graph.batches}


def _close(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("op", [op for op in REGISTRY.values() if op.selects],
                         ids=lambda op: op.name)
def test_selecting_ops_copy_one_input_element_each(op, rng):
    """What ``Op.selects`` promises, on every registry example: run on the inputs'
    flat indices, the op says which element each output copies, and run on values it
    gives exactly those elements."""
    assert op.examples
    for example in op.examples:
        values = [rng.uniform(-2, 2, a) if isinstance(a, tuple) else np.asarray(a, float)
                  for a in example.args]
        starts = np.cumsum([0] + [v.size for v in values])
        ids = [np.arange(a, a + v.size).reshape(v.shape) for a, v in zip(starts, values)]
        src = np.asarray(op.impl(*ids, **example.attrs))
        out = np.asarray(op.impl(*values, **example.attrs))
        assert np.array_equal(out, np.concatenate([v.ravel() for v in values])[src])
    assert not REGISTRY["index_add"].selects and not REGISTRY["reduce_sum"].selects


def test_pair_potential_frontier_is_the_two_gathers_with_their_sources():
    x = sg.placeholder(shape=(12,), name="x")
    y = pair_energy(x, 4)
    nodes = frontier.frontier([y], x)
    assert [f.opdef.name for f in nodes] == ["index", "index"]
    assert [f.shape for f in nodes] == [(6, 3), (6, 3)]
    i, j = np.triu_indices(4, k=1)
    expected = np.concatenate([(3 * i[:, None] + np.arange(3)).ravel(),
                               (3 * j[:, None] + np.arange(3)).ravel()])
    assert np.array_equal(frontier.source_of(nodes, x), expected)


def test_no_frontier_when_x_is_read_whole():
    x = sg.placeholder(shape=(5,), name="x")
    A = sg.constant(np.ones((3, 5)))
    assert frontier.frontier([sg.reduce_sum(sg.tanh(sg.matmul(A, sg.reshape(x, (5, 1)))))],
                             x) is not None      # (the reshape is a selection)
    assert frontier.frontier([sg.reduce_sum(sg.sin(x) * x)], x) is None
    assert frontier.plan([sg.reduce_sum(sg.sin(x) * x)], x) is None


def test_nested_selections_are_separate_variables():
    """pos is used whole and through gathers: both are frontier tensors, each held
    fixed while the other varies, so the partial Hessians add up to H_x."""
    x = sg.placeholder(shape=(15,), name="x")
    pos = sg.reshape(x, (5, 3))
    i, j = np.triu_indices(5, k=1)
    d = pos[i] - pos[j]
    y = sg.reduce_sum(sg.exp(-sg.reduce_sum(d * d, axis=1))) + sg.reduce_sum(pos ** 4)
    nodes = frontier.frontier([y], x)
    assert pos in nodes and len(nodes) == 3
    found = frontier.plan([y], x)
    assert found.ncolors == 6
    (h,) = sg.hessians(y, x, sparse=True)
    (dense,) = sg.hessians(y, x)
    v = lattice(5)
    _close(h.numpy({x: v}).toarray(), sg.evaluate(dense, {x: v}))


@pytest.mark.parametrize("build", ["slices", "transpose", "broadcast", "repeats", "concat",
                                   "implicit"])
def test_selections_of_every_kind_give_the_dense_hessian(build, rng):
    x = sg.placeholder(shape=(6, 4), name="x")
    if build == "slices":       # a chained sum, 2-D
        y = sg.reduce_sum(sg.sin(x[1:, :] * x[:-1, :])) + sg.reduce_sum(x[:, 1:] ** 3 * x[:, :-1])
    elif build == "transpose":
        t = sg.transpose(x)
        y = sg.reduce_sum(sg.exp(t[:, 1:] - t[:, :-1]) * t[:, :-1])
    elif build == "broadcast":  # each row against a copy of the first
        first = sg.broadcast_to(x[0:1, :], (6, 4))
        y = sg.reduce_sum(sg.tanh(x - first) ** 2 * x)
    elif build == "repeats":    # an index array selecting some elements twice
        flat = sg.reshape(x, (24,))
        y = sg.reduce_sum(sg.cos(flat[np.array([0, 3, 3, 7, 23, 0])] *
                                 flat[np.array([1, 2, 5, 7, 22, 9])]))
    elif build == "concat":     # a concat of selections is a selection
        flat = sg.reshape(x, (24,))
        z = sg.concat([flat[12:], flat[:12]], axis=0)
        y = sg.reduce_sum(z[1:] ** 2 * z[:-1])
    else:                       # every row against every row, by numpy broadcasting
        y = sg.reduce_sum(sg.tanh(x[:, None, :] - x[None, :, :]) ** 2 * x[None, :, 1:2])
    v = rng.uniform(-1, 1, (6, 4))
    (dense,) = sg.hessians(y, x)
    want = sg.evaluate(dense, {x: v}).reshape(24, 24)
    found = frontier.plan([y], x)
    assert found is not None
    (hs,) = sg.hessians(y, x, sparse=True)
    with few_seeds(0):
        (hs_front,) = sg.hessians(y, x, sparse=True)
    for h in (hs, hs_front):
        _close(h.numpy({x: v}).toarray(), want)
        assert np.array_equal(sg.sparsity(dense).reshape(24, 24), h.pattern.toarray())


class few_seeds:
    """Try the frontier whatever the direct colouring needs (and at every size)."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.saved = seeds_module.FEW_SEEDS, seeds_module.COMPRESS_MIN
        seeds_module.FEW_SEEDS = seeds_module.COMPRESS_MIN = self.n
        self.sparse_saved, sparse_module.FEW_SEEDS = sparse_module.FEW_SEEDS, self.n

    def __exit__(self, *exc):
        seeds_module.FEW_SEEDS, seeds_module.COMPRESS_MIN = self.saved
        sparse_module.FEW_SEEDS = self.sparse_saved


@pytest.fixture(scope="module")
def lj12():
    """12 particles: a dense 36 x 36 Hessian, 6 seeds after the selections."""
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(36,), name="x")
        y = pair_energy(x, 12)
        (h,) = sg.hessians(y, x)
        (hs,) = sg.hessians(y, x, sparse=True)
        fn = sg.compile([y, h, hs], [x])
        yield x, y, h, hs, fn


def test_dense_pair_hessian_compiles_from_six_seeds(lj12):
    x, y, h, hs, fn = lj12
    alt = h.graph.compressed[h]
    assert _colours(alt) == {6} and hs.colors == 6
    assert hs.nnz == 36 * 36 and h.shape == (36, 36)
    assert max(fn.program.buffers) < 36 * 36 * 6 // 2   # (unit seeds: 36 * 66 * 3 per array)
    for seed in range(3):
        v = lattice(12, seed)
        want = sg.evaluate(h, {x: v})
        value, H, Hs = fn(v)
        _close(H, want)
        _close(Hs.toarray(), want)
        _close(sg.evaluate(alt, {x: v}), want)
        np.testing.assert_allclose(value, sg.evaluate(y, {x: v}), rtol=1e-14)


def test_pairs_written_by_broadcasting_take_the_frontier_of_their_copies():
    """``x[:, None] - x[None, :]`` (the numpy way to write every pair) broadcasts two
    slices inside the subtraction; made explicit, the copies are the frontier, one 6 x
    6 block per pair: 6 seeds for a dense 36 x 36 Hessian, as with index arrays."""
    n = 12
    x = sg.placeholder(shape=(n, 3), name="x")
    d = x[:, None, :] - x[None, :, :]
    r2 = sg.reduce_sum(d * d, axis=2) + sg.constant(np.eye(n))
    s6 = 1.0 / (r2 * r2 * r2)
    y = 2.0 * sg.reduce_sum(sg.constant(1.0 - np.eye(n)) * (s6 * s6 - s6))
    (h,) = sg.hessians(y, x)
    (hs,) = sg.hessians(y, x, sparse=True)
    assert hs.colors == 6 and _colours(h.graph.compressed[h]) == {6}
    v = lattice(n).reshape(n, 3)
    want = sg.evaluate(h, {x: v}).reshape(3 * n, 3 * n)
    _close(hs.numpy({x: v}).toarray(), want)
    _close(sg.compile(h, [x])(v).reshape(3 * n, 3 * n), want)
    found = frontier.plan([y], x)
    assert found.pattern.shape == (2 * n * n * 3,) * 2   # the two (n, n, 3) copies


def test_large_implicit_broadcasts_stay_implicit():
    x = sg.placeholder(shape=(600,), name="x")   # 360,000 pairs: over the limit
    y = sg.reduce_sum(sg.sin(x[:, None] - x[None, :]))
    assert frontier.explicit_broadcasts([y], x) == [y]
    bias = sg.reduce_sum(sg.sin(x[0:1] + sg.constant(np.ones(3))))   # meets no selection
    assert frontier.explicit_broadcasts([bias], x) == [bias]
    small = sg.reduce_sum(sg.sin(x[:3, None] - x[None, 3:5]))
    (made,) = frontier.explicit_broadcasts([small], x)
    assert made is not small
    assert sum(n.opdef.name == "broadcast_to" for n in ancestors([made])) == 2


def test_printing_reads_the_unit_seed_sweep(lj12):
    x, y, h, hs, fn = lj12
    assert "compressed" not in h.name
    assert h in h.graph.compressed


def test_chained_sums_keep_the_direct_colouring():
    """Rosenbrock's direct colouring needs 3 seeds (few): no frontier is tried."""
    x = sg.placeholder(shape=(40,), name="x")
    y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    (h,) = sg.hessians(y, x)
    (hs,) = sg.hessians(y, x, sparse=True)
    assert _colours(h.graph.compressed[h]) == {3} and hs.colors == 3
    assert not any(n.opdef.name == "index_add" and n.shape == (hs.nnz,) for n in ancestors([hs.values]))


def test_repeated_selections_colour_the_direct_seeds_from_the_frontier(monkeypatch):
    """Rosenbrock reads x[1:] and x[:-1]: the frontier's pattern, mapped back, is H_x's
    (tridiagonal), so the dense Hessian's 3 direct seeds come with no analysis of the
    direct sweep; pair potentials likewise find H_x dense without one."""
    def no_direct_analysis(*args, **kwargs):
        raise AssertionError("the direct sweep was analysed")
    monkeypatch.setattr(seeds_module, "seed_sets", no_direct_analysis)
    x = sg.placeholder(shape=(40,), name="x")
    y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    (h,) = sg.hessians(y, x)
    assert _colours(h.graph.compressed[h]) == {3}
    found = frontier.plan([y], x)
    want = np.eye(40, dtype=bool) | np.eye(40, k=1, dtype=bool) | np.eye(40, k=-1, dtype=bool)
    np.testing.assert_array_equal(found.x_sets().matrix().toarray(), want)
    x36 = sg.placeholder(shape=(36,), name="x36")
    (hp,) = sg.hessians(pair_energy(x36, 12), x36)
    assert _colours(hp.graph.compressed[hp]) == {6}


def test_sparse_hessians_skip_a_frontier_that_only_relabels_x(monkeypatch, rng):
    """A network reading its weights through slices that copy each weight once: H_z is
    H_x relabelled, so ``sparse=True`` (a star colouring of H_x already) makes no
    frontier sweep; the dense result's column colouring may still use one."""
    x = sg.placeholder(shape=(33,), name="x")
    inputs = sg.constant(rng.standard_normal((20, 2)))
    w1, b1 = sg.reshape(x[0:16], (2, 8)), x[16:24]
    w2, b2 = x[24:32], x[32]
    pred = sg.matmul(sg.tanh(sg.matmul(inputs, w1) + b1), w2) + b2
    loss = sg.reduce_mean((pred - 0.5) ** 2)
    assert frontier.frontier([loss], x) is not None   # there is one, copying x once
    swept = []
    real = frontier.partial_sweep
    monkeypatch.setattr(frontier, "partial_sweep", lambda *a: swept.append(a) or real(*a))
    (hs,) = sg.hessians(loss, x, sparse=True)
    assert not swept
    (h,) = sg.hessians(loss, x)
    point = rng.standard_normal(33)
    dense = np.asarray(sg.evaluate(h, {x: point}))
    np.testing.assert_allclose(sg.evaluate(hs, {x: point}).toarray(), dense, rtol=1e-12,
                               atol=1e-12)
    assert frontier.plan([loss], x) is not None   # (not skipped unless asked)


@given(programs(max_steps=5))
def test_frontier_hessians_equal_the_unit_seeds_on_random_programs(p):
    x = p.leaves[0]
    assume(x.size >= 2)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    (dense,) = sg.hessians(loss, x)
    found = frontier.plan([loss], x) if dense is not None else None   # (any colouring)
    assume(found is not None)
    alt_dense = seeds_module.frontier_hessian([loss], x, None)
    alt_sparse = sparse_module._from_frontier(found, x)
    mapped = found.x_sets().matrix().toarray()
    assert not (sg.sparsity(dense).reshape(x.size, x.size) & ~mapped).any()
    rng = np.random.default_rng(len(p.nodes))
    for _ in range(2):
        for leaf in p.leaves:
            leaf.assign(rng.uniform(-2, 2, size=leaf.shape))
        d = np.asarray(sg.evaluate(dense), float).reshape(x.size, x.size)
        got = [alt_sparse.numpy().toarray(),
               np.asarray(sg.evaluate(alt_dense), float).reshape(x.size, x.size)]
        finite = np.isfinite(d)
        for a in got:
            np.testing.assert_allclose(a[finite], d[finite], rtol=1e-10, atol=1e-10)
        # H_z's pattern mapped back holds every entry the direct sweep made nonzero
        # (a dense Hessian colours its direct seeds from it when x is read repeatedly)
        assert not ((d != 0) & ~mapped).any()


def test_tf1_pair_potential_hessian_runs_with_the_import_changed():
    """A TF1 program as TF's documentation writes one (tf.gather, tf.hessians, a
    Session): sess.run gives the unit seeds' Hessian, and the compiled evaluator of the
    same tensor, computed after the gathers from 6 seeds, equals it."""
    import symgrad.compat.v1 as tf
    n = 12
    i, j = np.triu_indices(n, k=1)
    x = tf.placeholder(tf.float64, shape=[3 * n], name="x")
    pos = tf.reshape(x, [n, 3])
    d = tf.gather(pos, i) - tf.gather(pos, j)
    s6 = 1.0 / tf.reduce_sum(d * d, axis=1) ** 3
    energy = tf.reduce_sum(4.0 * (s6 * s6 - s6))
    hess = tf.hessians(energy, x)[0]
    v = lattice(n, seed=5)
    with tf.Session() as sess:
        H = sess.run(hess, feed_dict={x: v})
    assert H.shape == (3 * n, 3 * n)
    assert _colours(hess.graph.compressed[hess]) == {6}
    _close(sg.compile(hess, [x])(v), H)
