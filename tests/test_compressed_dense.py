"""Dense Jacobians and Hessians of structurally sparse patterns, computed compressed.

``seeds.unit_sweep`` adds to the graph, beside the sweep over the n unit seeds, an
equal computation over a column colouring's compressed seeds scattered into the dense
array (``graph.compressed``); ``sg.compile`` computes that one.  Oracles: the
reference evaluator on the sweep over the unit seeds (the old dense path), the
closed form of Rosenbrock's Hessian, and the printers (unchanged by construction).
"""
import contextlib

import numpy as np
import pytest
from hypothesis import assume, given

import symgrad as sg
from symgrad import seeds as seeds_module
from symgrad.graph import ancestors

from .programs import programs
from .test_properties import seeds


@contextlib.contextmanager
def compress_from(n):
    saved, seeds_module.COMPRESS_MIN = seeds_module.COMPRESS_MIN, n
    try:
        yield
    finally:
        seeds_module.COMPRESS_MIN = saved


def rosenbrock(x):
    return sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def _colours(alt):
    """The number of compressed seeds behind ``alt`` (the batch axis of its sweep)."""
    found = [b for b in ancestors([alt]) if b in alt.graph.batches]
    return {b.shape[0] for b in found}


def _check_equal(dense, alt, feed_dict=None):
    """``alt`` equals ``dense`` bit for bit where dense is finite; where the unit seeds
    give NaN from 0 * inf outside the pattern, the compressed value is that 0."""
    d, a = (np.asarray(v, dtype=float) for v in sg.evaluate([dense, alt], feed_dict))
    finite = np.isfinite(d)
    np.testing.assert_array_equal(a[finite], d[finite])
    assert np.all(np.isnan(a[~finite]) | np.isinf(a[~finite]) | (a[~finite] == 0))


def test_rosenbrock_dense_hessian_compiles_from_three_compressed_seeds():
    n = 64
    x = sg.placeholder(shape=(n,), name="x")
    (h,) = sg.hessians(rosenbrock(x), x)
    alt = h.graph.compressed[h]
    assert alt.shape == h.shape and _colours(alt) == {3}
    v = np.random.default_rng(5).uniform(-1, 1, n)
    fn = sg.compile(h, [x])
    assert max(fn.program.buffers) < n * n // 4   # 3 seeds of n (the unit seeds: n * n)
    H = fn(v)
    np.testing.assert_array_equal(H, sg.evaluate(h, {x: v}))   # the unit seeds' values
    a, b = v[:-1], v[1:]
    expected = np.diag(np.append(1200 * a * a - 400 * b + 2, 0) + np.insert(np.full(n - 1, 200.0), 0, 0)) \
        + np.diag(-400 * a, 1) + np.diag(-400 * a, -1)
    np.testing.assert_allclose(H, expected, rtol=1e-12)
    assert np.count_nonzero(H) == 3 * n - 2      # zeros outside the band, written by the scatter


def test_printing_and_names_are_those_of_the_unit_seed_sweep():
    texts = {}
    for limit in (0, 10**9):
        with compress_from(limit), sg.Graph().as_default() as graph:
            x = sg.placeholder(shape=(40,), name="x")
            (h,) = sg.hessians(rosenbrock(x), x)
            X = sg.placeholder(shape=(50, 40), name="X")
            (hl,) = sg.hessians(sg.reduce_sum(sg.softplus(X @ x)) + sg.reduce_sum(x[1:] * x[:-1]), x)
            assert (h in graph.compressed) == (limit == 0)
            texts[limit] = (h.name, hl.name, sg.text(h), sg.text(hl, form="matrix"),
                            str(sg.hessians(rosenbrock(x[:4]), x)[0]))
    assert texts[0] == texts[10**9]


def test_dense_patterns_and_small_sizes_get_no_compressed_equal():
    x = sg.placeholder(shape=(40,), name="x")
    (dense,) = sg.hessians(sg.reduce_sum(x) ** 3, x)     # every entry nonzero
    y = sg.placeholder(shape=(8,), name="y")
    (small,) = sg.hessians(rosenbrock(y), y)             # fewer seeds than COMPRESS_MIN
    assert dense not in x.graph.compressed and small not in x.graph.compressed


@pytest.mark.parametrize("tall", [True, False])
def test_banded_jacobians_forward_and_reverse(tall, rng):
    x = sg.placeholder(shape=(48,), name="x")
    y = sg.concat([sg.sin(x[1:]) * x[:-1], x * x], axis=0) if tall else \
        sg.sin(x[2:]) * x[:-2] - x[1:-1]
    J = sg.jacobian(y, x)
    alt = J.graph.compressed[J]
    assert _colours(alt) == ({2} if tall else {3})
    v = rng.normal(size=48)
    _check_equal(J, alt, {x: v})
    np.testing.assert_array_equal(sg.compile(J, [x])(v), sg.evaluate(J, {x: v}))


@given(programs(max_steps=5))
def test_compressed_equals_the_unit_seeds_on_random_programs(p):
    x = p.leaves[0]
    assume(x.size >= 2)
    loss = sum(sg.reduce_sum(y * s) for y, s in zip(p.ys, seeds(p)))
    with compress_from(0):
        (h,) = sg.hessians(loss, x)
        J = sg.jacobian(p.ys[0], x)
    pairs = [(t, p.graph.compressed[t]) for t in (h, J) if t is not None and t in p.graph.compressed]
    rng = np.random.default_rng(len(p.nodes))
    for _ in range(2):
        for leaf in p.leaves:
            leaf.assign(rng.uniform(-2, 2, size=leaf.shape))
        for dense, alt in pairs:
            _check_equal(dense, alt)
