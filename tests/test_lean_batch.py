"""``f.batched``'s lean call (``lower.lean_batch``): the common arguments go to one
compiled ``_batch`` (with ``out=``: ``_batch_into``); every other argument takes the
general path, with the same numbers and the same errors."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import batches


@pytest.fixture(scope="module")
def f():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        t = sg.placeholder(name="t")
        y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2) * t
        return sg.compile([y, sg.gradients(y, x)[0], x > 0], [x, t], wait=True)


def _points(count, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-2, 2, (count, 3)), rng.uniform(0.5, 2, count)


def _one_by_one(f, xs, ts):
    rows = [f(x, t) for x, t in zip(xs, ts)]
    return [np.array([r[k] for r in rows]) for k in range(3)]


def _general_only(monkeypatch, f):
    """Make the general path raise: what answers then is the lean call."""
    assert f.ready and f._lean is not None
    def refuse(*args, **kwargs):
        raise AssertionError("the general path answered a common call")
    monkeypatch.setattr(type(f), "_flat_batched", refuse)


@pytest.mark.parametrize("count", [0, 1, 5, 300])
def test_common_arguments_take_the_lean_call_with_the_same_numbers(monkeypatch, f, count):
    xs, ts = _points(count)
    _general_only(monkeypatch, f)
    got = f.batched(xs, ts)
    want = _one_by_one(f, xs, ts) if count else [np.zeros(0), np.zeros((0, 3)),
                                                 np.zeros((0, 3), bool)]
    for g, w in zip(got, want):
        assert g.dtype == np.asarray(w).dtype and g.shape == np.shape(w)
        np.testing.assert_array_equal(g, w)
    again = f.batched(xs, ts)            # fresh outputs every call
    assert all(a is not b for a, b in zip(got, again))


def test_only_shared_inputs_and_threads_need_the_batch_loop():
    # one compiled _batch answers common calls and converted ones, _batch_into those
    # with out=; the batch loop (for threads and inputs shared by every point, and out=
    # with converted inputs) is built only when one comes
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        t = sg.placeholder(name="t")
        g = sg.compile([sg.reduce_sum(x * x * 0.8125) * t], [x, t], wait=True)  # (no other
    ones = np.ones((300, 2))                                               # test has it)
    for args in [(ones, np.ones(300)), (ones[:4], np.ones(4)), (ones.T.copy().T, np.ones(300)),
                 (ones.tolist(), [1] * 300), (ones.reshape(3, 100, 2), np.ones((3, 100)))]:
        np.testing.assert_array_equal(np.ravel(g.batched(*args)[0]), 1.625)
    out = (np.empty(300),)
    assert g.batched(ones, np.ones(300), out=out)[0] is out[0]
    np.testing.assert_array_equal(out[0], 1.625)
    assert "batch" in g._gufuncs and "batch_into" in g._gufuncs and "loop" not in g._gufuncs
    np.testing.assert_array_equal(g.batched(ones, 2.0)[0], [3.25] * 300)   # t shared
    assert "loop" in g._gufuncs


def test_other_arguments_take_the_general_path(monkeypatch, f):
    xs, ts = _points(6, 2)
    xs = xs.astype(np.float32).astype(np.float64)   # (the same after a round trip)
    want = f.batched(xs, ts)
    frozen = xs.copy()
    frozen.flags.writeable = False
    others = [
        (np.asfortranarray(xs), ts),          # not C-contiguous
        (frozen, ts),                         # read-only
        (xs.astype(np.float32), ts),          # another dtype: converted
        (xs.tolist(), ts.tolist()),           # lists
        (xs, 1.0 * ts[:, None][:, 0]),        # (a view that is contiguous: lean)
        (xs[None], ts[None]),                 # two batch axes
        (xs, np.full(6, ts[0])[:1]),          # a shared point count of 1 broadcasts
    ]
    for args in others[:5]:
        for g, w in zip(f.batched(*args), want):
            np.testing.assert_array_equal(g, w)
    two = f.batched(*others[5])
    assert two[0].shape == (1, 6)
    np.testing.assert_array_equal(two[1][0], want[1])
    shared = f.batched(*others[6])
    np.testing.assert_array_equal(shared[0], f.batched(xs, np.full(6, ts[0]))[0])


def test_errors_are_the_general_paths(f):
    xs, ts = _points(6, 3)
    f.batched(xs, ts)
    with pytest.raises(sg.ShapeError, match=r"batched: input 0 \('x'\)"):
        f.batched(np.ones((6, 4)), ts)       # the wrong core shape
    with pytest.raises(sg.ShapeError, match="must broadcast together"):
        f.batched(xs, ts[:4])                # point counts that disagree
    with pytest.raises(TypeError):
        f.batched(xs)                        # an input missing


def test_a_parallel_batch_that_may_pay_for_threads_takes_the_general_path(monkeypatch, f):
    xs, ts = _points(3000, 4)
    f.batched(xs[:2], ts[:2])
    cost = batches.Cost()
    cost.warm = True
    monkeypatch.setitem(f.__dict__, "_static_cost", cost)
    seen = []
    general = type(f)._flat_batched
    monkeypatch.setattr(type(f), "_flat_batched",
                        lambda self, *a: seen.append(len(a[0][0])) or general(self, *a))
    small = f.batched(xs[:10], ts[:10], parallel=True)     # under cost.fewest: lean
    cost.fewest = 1000         # (as if each point took 1 µs: 3000 points may pay)
    big = f.batched(xs, ts, parallel=True)
    assert seen == [3000] and len(small[0]) == 10
    np.testing.assert_array_equal(big[0], f.batched(xs, ts)[0])


def test_long_serial_runs_are_timed_for_the_parallel_choice(monkeypatch, f):
    xs, ts = _points(batches.PROBE_POINTS, 5)
    f.batched(xs[:2], ts[:2])
    cost = batches.Cost()
    cost.warm = True
    monkeypatch.setitem(f.__dict__, "_static_cost", cost)
    f.batched(xs[:10], ts[:10])
    f.batched(xs[:10], ts[:10], parallel=True)
    assert cost.least == float("inf")     # 10 points: call overhead, not timed
    f.batched(xs, ts)
    assert cost.least < float("inf")


def _outs(count):
    return np.full(count, np.nan), np.full((count, 3), np.nan), np.zeros((count, 3), bool)


@pytest.mark.parametrize("count", [0, 1, 5, 300])
def test_out_arrays_take_the_lean_call_and_are_the_results(monkeypatch, f, count):
    xs, ts = _points(count, 6)
    want = f.batched(xs, ts)
    _general_only(monkeypatch, f)
    for out in (_outs(count), list(_outs(count))):
        got = f.batched(xs, ts, out=out)
        assert all(g is o for g, o in zip(got, out))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_out_arrays_the_lean_call_refuses_get_the_general_paths_errors(f):
    xs, ts = _points(4, 7)
    value, grad, mask = _outs(4)
    f.batched(xs, ts, out=(value, grad, mask))
    shared = np.empty(4 * 3 + 3)
    frozen = grad.copy()
    frozen.flags.writeable = False
    cases = [
        ((value, xs, mask), sg.ArgumentError, "out.1. shares memory with input 'x'"),
        ((shared[:4], shared[3:15].reshape(4, 3), mask), sg.ArgumentError,
         r"out\[1\] shares memory with out\[0\]"),
        ((value, grad.astype(np.float32), mask), sg.ArgumentError, "must have dtype float64"),
        ((value, grad[:3], mask), sg.ShapeError, r"must have shape \(4, 3\)"),
        ((value, frozen, mask), sg.ArgumentError, "writeable C-contiguous"),
        ((value, np.asfortranarray(np.empty((4, 3))), mask), sg.ArgumentError,
         "writeable C-contiguous"),
        ((value, grad), sg.ArgumentError, "out= takes 3 array"),
    ]
    for out, error, message in cases:
        with pytest.raises(error, match=message):
            f.batched(xs, ts, out=out)
