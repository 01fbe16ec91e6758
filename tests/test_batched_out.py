"""``f.batched(..., out=...)``: results written into the caller's arrays (numpy's ``out=``).

Oracle: the same batch without ``out`` (bit for bit), on every path that answers a
batch (the batch loop serially and over threads, the numpy tier before the machine
code is in, control flow, evaluators per size); every bad ``out`` is refused with an
error naming it, before anything is written.
"""
import numpy as np
import pytest

import symgrad as sg
from symgrad.errors import ArgumentError, ShapeError
from symgrad.lower import batch_args

from .test_compile_background import held  # noqa: F401 (fixture)


def _rosen():
    x = sg.placeholder(shape=(3,), name="x")
    y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    return x, [y, sg.gradients(y, x)[0], x > 0]


@pytest.fixture(scope="module")
def rosen():
    with sg.Graph().as_default():
        x, outputs = _rosen()
        return sg.compile(outputs, [x])


def _empty_like(result):
    return tuple(np.full_like(r, 7) for r in result)   # not the answer anywhere


def _same(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w)


@pytest.mark.parametrize("shape", [(3,), (1, 3), (9, 3), (5000, 3), (40, 50, 3), (0, 3)])
@pytest.mark.parametrize("parallel", [False, True])
def test_out_holds_what_a_new_batch_gives(rosen, shape, parallel):
    points = np.random.default_rng(len(shape)).uniform(-2, 2, size=shape)
    want = rosen.batched(points)
    for _ in range(2):   # the second call writes over the first's results
        out = _empty_like(want)
        got = rosen.batched(points, parallel=parallel, out=out)
        assert isinstance(got, list) and all(g is o for g, o in zip(got, out))
        _same(out, want)


def test_a_lone_array_for_a_single_output():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        f = sg.compile(sg.reduce_sum(sg.sin(x) * x), [x])
    points = np.random.default_rng(1).normal(size=(6, 2))
    out = np.empty(6)
    assert f.batched(points, out=out) is out
    np.testing.assert_array_equal(out, f.batched(points))
    assert f.batched(points, out=[out]) is out   # a sequence of one too


def test_shared_inputs_and_structured_outputs():
    # a dict output with a None gradient: out= lists the arrays in the flat order
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        k = sg.placeholder(dtype=np.int64, name="k")
        y = sg.reduce_sum(x * x) * sg.cast(k, np.float64)
        f = sg.compile({"y": y, "g": sg.gradients(y, [x, k])}, [x, k])
    points = np.random.default_rng(2).normal(size=(4, 5, 2))
    want = f.batched(points, 3)
    out = (np.empty((4, 5)), np.empty((4, 5, 2)))
    got = f.batched(points, 3, out=out)
    assert got["y"] is out[0] and got["g"][0] is out[1] and got["g"][1] is None
    np.testing.assert_array_equal(out[0], want["y"])
    np.testing.assert_array_equal(out[1], want["g"][0])


def _bad_outs(n=5):
    V, G, B = np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3), bool)
    frozen = np.empty((n, 3))
    frozen.flags.writeable = False
    return [
        ((V, G), ArgumentError, r"out= takes 3 array\(s\), one per output.*got 2"),
        (V, ArgumentError, r"out= takes 3 array\(s\).*got 1"),
        ({"a": V}, ArgumentError, r"out= takes 3 array\(s\).*got dict"),
        ((V, G.tolist(), B), ArgumentError, r"out\[1\] must be a numpy array, got list"),
        ((V.astype(np.float32), G, B), ArgumentError, r"out\[0\] must have dtype float64.*"
                                                      "got float32"),
        ((V, G, G.copy()), ArgumentError, r"out\[2\] must have dtype bool"),
        ((V, np.empty((n + 1, 3)), B), ShapeError, rf"out\[1\] must have shape \({n}, 3\)"),
        ((V[:, None], G, B), ShapeError, rf"out\[0\] must have shape \({n},\)"),
        ((V, np.empty((3, n)).T, B), ArgumentError, r"out\[1\] must be a writeable "
                                                     "C-contiguous"),
        ((V, frozen, B), ArgumentError, r"out\[1\] must be a writeable C-contiguous"),
        ((V, G, G.view(bool)[:, ::8]), ArgumentError, r"out\[2\] must be a writeable"),
        ((G[:, 0].copy(), G, np.empty((n, 3), bool)), None, None),   # fine: no overlap
    ]


@pytest.mark.parametrize("case", range(len(_bad_outs())))
def test_a_bad_out_is_refused_naming_it(rosen, case):
    out, error, match = _bad_outs()[case]
    points = np.random.default_rng(0).normal(size=(5, 3))
    if error is None:
        _same(rosen.batched(points, out=out), rosen.batched(points))
        return
    before = [np.array(o, copy=True) for o in (out if isinstance(out, tuple) else ())
              if isinstance(o, np.ndarray)]
    with pytest.raises(error, match=match):
        rosen.batched(points, out=out)
    for o, b in zip([o for o in (out if isinstance(out, tuple) else ())
                     if isinstance(o, np.ndarray)], before):
        np.testing.assert_array_equal(o, b)   # nothing written


def test_out_may_not_overlap_the_inputs_or_each_other(rosen):
    points = np.random.default_rng(0).normal(size=(5, 3))
    V, B = np.empty(5), np.empty((5, 3), bool)
    with pytest.raises(ArgumentError, match=r"out\[1\] shares memory with input 'x'"):
        rosen.batched(points, out=(V, points, B))
    G = np.empty((5, 3))
    with pytest.raises(ArgumentError, match=r"out\[1\] shares memory with out\[0\]"):
        rosen.batched(points, out=(G.reshape(-1)[:5], G, B))


def test_out_overlaps_found_on_the_fast_path(rosen, monkeypatch):
    # Arrays that pass every test are taken by batch_args.FastPath.taken without the full
    # checks; any overlap there (the same array twice, an input itself, views into
    # one buffer) still reaches the full checks' error, and disjoint views are taken.
    points = np.random.default_rng(4).normal(size=(5, 3))
    want = rosen.batched(points)
    V, G, B = np.empty(5), np.empty((5, 3)), np.empty((5, 3), bool)
    for out in [(V, points, B), (V, points[:, :].reshape(5, 3), B)]:
        with pytest.raises(ArgumentError, match=r"out\[1\] shares memory with input 'x'"):
            rosen.batched(points, out=out)
    G2 = np.empty((5, 3))
    with pytest.raises(ArgumentError, match=r"out\[1\] shares memory with out\[0\]"):
        rosen.batched(points, out=(G2.reshape(-1)[:5], G2, B))
    buffer = np.full(20, 7.0)   # two views of one buffer that do not overlap
    out = (buffer[:5], buffer[5:].reshape(5, 3), B)
    assert not any(o.flags.owndata for o in out[:2])
    _same(rosen.batched(points, out=out), want)
    assert np.shares_memory(rosen.batched(points, out=out)[1], buffer)

    def no_full_checks(*args, **kwargs):
        raise AssertionError("the full checks ran")
    monkeypatch.setattr(batch_args, "checked_out", no_full_checks)
    got = rosen.batched(points, out=(V, G, B))
    assert got[0] is V and got[1] is G and got[2] is B
    _same((V, G, B), want)
    _same(rosen.batched(points, out=out), want)


def test_the_numpy_tier_writes_into_out(held):  # noqa: F811 (the fixture)
    x, outputs = _rosen()
    f = sg.compile(outputs, [x], wait=False)
    points = np.random.default_rng(5).uniform(-2, 2, size=(300, 3))
    out = (np.empty(300), np.empty((300, 3)), np.empty((300, 3), bool))
    got = f.batched(points, out=out)
    assert not f.ready and all(g is o for g, o in zip(got, out))
    with pytest.raises(ShapeError, match=r"out\[0\] must have shape \(300,\)"):
        f.batched(points, out=(np.empty(299),) + out[1:])
    held.set()
    want = f.wait(timeout=120).batched(points)
    for g, w in zip(out, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_control_flow_writes_into_out():
    with sg.Graph().as_default():
        x = sg.placeholder(name="x")
        y = sg.cond(x > 0, lambda: x * x, lambda: -x)
        f = sg.compile([y, sg.gradients(y, x)[0]], [x])
    points = np.array([-2.0, -0.5, 0.5, 3.0])
    out = (np.empty(4), np.empty(4))
    assert all(g is o for g, o in zip(f.batched(points, out=out), out))
    np.testing.assert_array_equal(out[0], [2.0, 0.5, 0.25, 9.0])
    np.testing.assert_array_equal(out[1], [-1.0, -1.0, 1.0, 6.0])
    with pytest.raises(ShapeError, match=r"out\[1\] must have shape \(4,\)"):
        f.batched(points, out=(out[0], np.empty(3)))


def test_sizes_known_at_call_time_take_out():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(None,), name="x")
        y = sg.reduce_sum(x * x * x)
        f = sg.compile([y, sg.gradients(y, x)[0]], [x])
    points = np.random.default_rng(6).normal(size=(7, 4))
    out = (np.empty(7), np.empty((7, 4)))
    got = f.batched(points, out=out)
    assert got[0] is out[0] and got[1] is out[1]
    np.testing.assert_allclose(out[0], (points ** 3).sum(axis=1), rtol=1e-14)
    np.testing.assert_allclose(out[1], 3 * points ** 2, rtol=1e-14)
    with pytest.raises(ShapeError, match=r"out\[1\] must have shape \(7, 4\)"):
        f.batched(points, out=(out[0], np.empty((7, 5))))


def test_dask_arrays_refuse_out(rosen):
    da = pytest.importorskip("dask.array")
    points = da.from_array(np.ones((4, 3)), chunks=2)
    with pytest.raises(ArgumentError, match="out= takes no part with dask arrays"):
        rosen.batched(points, out=(np.empty(4), np.empty((4, 3)), np.empty((4, 3), bool)))
