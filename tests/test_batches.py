"""``f.batched(parallel=True)``: threads only where the measured cost says they pay,
and the same numbers as the serial gufunc (bit for bit) whichever way it runs."""
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings

import symgrad as sg
from symgrad.lower import batch_args, batches

from .programs import programs


@pytest.fixture(scope="module")
def rosen():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        y = sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
        return sg.compile([y, sg.gradients(y, x)[0], x > 0], [x])


def _same(a, b):
    for u, v in zip(a, b):
        assert u.dtype == v.dtype and u.shape == v.shape and np.array_equal(u, v)


def _claiming(rows):
    """A batch loop in Python over ``rows(lo, hi)``: claims chunks of the work array as
    the generated ``_loop`` does (under a lock instead of an atomic add)."""
    lock = threading.Lock()

    def loop(work):
        while True:
            with lock:
                lo = int(work[0])
                work[0] += work[2]
            hi = min(lo + int(work[2]), int(work[1]))
            if lo >= hi:
                return
            rows(lo, hi)
            with lock:
                work[3] += hi - lo
    return loop


def _threaded(f, *values):
    """``f.batched(*values)`` split over the caller and the pool whatever the cost says:
    the generated loop claiming chunks of one work array from several threads."""
    _, _, count, args, outs, batch = f._batch_arguments(values)
    loop = f._loop()
    batches._split(lambda work: loop(work, *args, *outs), 0, count, 1e-3)
    return [o.reshape(batch + o.shape[1:]) for o in outs]


@pytest.mark.parametrize("shape", [(1, 3), (7, 3), (5000, 3), (40, 50, 3), (0, 3)])
def test_parallel_equals_serial(rosen, shape):
    points = np.random.default_rng(len(shape)).uniform(-2, 2, size=shape)
    serial = rosen.batched(points)
    for _ in range(3):   # first call probes the cost, later ones plan from it
        _same(rosen.batched(points, parallel=True), serial)
    _same(rosen.gufunc(points), serial)     # numpy's gufunc machinery: another path
    _same(_threaded(rosen, points), serial)   # threads, whatever the cost says
    for k in range(min(3, points.shape[0])):
        one = rosen(points.reshape(-1, 3)[-1 - k])
        assert serial[0].reshape(-1)[-1 - k] == one[0]
        assert np.array_equal(serial[1].reshape(-1, 3)[-1 - k], one[1])


def test_threads_split_every_row_once(monkeypatch):
    monkeypatch.setattr(batches, "_workers", lambda: 3)
    monkeypatch.setattr(batches, "_pool", lambda: (_Inline(), 0.0))
    seen = []
    batches._split(_claiming(lambda a, b: seen.append((a, b))), 5, 1000, 1e-5)
    covered = sorted(i for a, b in seen for i in range(a, b))
    assert covered == list(range(5, 1000)) and len(seen) > 3


def test_the_caller_never_waits_for_a_thread_that_has_not_started(monkeypatch):
    # A busy machine may not schedule a pool thread for milliseconds: the caller takes
    # every chunk itself then, instead of waiting for the thread to turn up.
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    monkeypatch.setattr(batches, "_pool", lambda: (_Never(), 0.0))
    seen = []
    batches._split(_claiming(lambda a, b: seen.append((a, b))), 0, 5000, 1e-6)
    assert sorted(i for a, b in seen for i in range(a, b)) == list(range(5000))


def test_an_error_in_a_pool_thread_reaches_the_caller():
    def rows(lo, hi):
        if lo <= 4000 < hi:
            raise FloatingPointError("chunk with point 4000")
        time.sleep(1e-4)
    with pytest.raises(FloatingPointError, match="point 4000"):
        batches._split(_claiming(rows), 0, 5000, 1e-6)


def test_cheap_batches_stay_serial(monkeypatch, rosen):
    def refuse(*args):
        raise AssertionError("threads for a batch that cannot pay for them")
    monkeypatch.setattr(batches, "_split", refuse)
    monkeypatch.setattr(batches, "_probe", refuse)
    cost = batches.Cost()
    cost.observe(1e-3, 10 ** 6)               # 1 ns a point, measured
    assert 1000 < cost.fewest and not cost.threads_for(1000)   # 1 µs of work
    rosen.batched(np.ones((10, 3)), parallel=True)   # below any probe: one serial run


@settings(max_examples=6, deadline=None)
@given(programs(max_steps=6, control=()))
def test_threads_equal_serial_on_random_programs(p):
    with p.graph.as_default():
        grads = sg.gradients(p.ys, p.xs, grad_ys=p.grad_ys)
        fetches = list(p.ys) + [g for g in grads if g is not None]
        f = sg.compile(fetches, p.leaves)
    rng = np.random.default_rng(len(p.lines))
    count = int(rng.integers(40, 400))
    values = [np.asarray(leaf.value) + rng.uniform(-0.3, 0.3, (count,) + leaf.shape)
              for leaf in p.leaves]
    serial = f.batched(*values)
    _same(_threaded(f, *values), serial)
    _same(f.batched(*values, parallel=True), serial)
    out = [np.empty_like(a) for a in serial]    # (f.batched(..., out=): _batch_into)
    _same(f.batched(*values, out=out), serial)
    k = int(rng.integers(count))
    for got, want in zip(serial, sg.evaluate(fetches, dict(zip(p.leaves, [v[k] for v in values])))):
        np.testing.assert_allclose(got[k], want, rtol=1e-10, atol=1e-10, err_msg=p.code)


def test_values_converted_or_taken_as_they_are_give_the_same(rosen):
    # C-contiguous float64 arrays go to the loop as they are (batch_args.prepare_fast);
    # anything else is converted after the full checks (batch_args.prepare)
    points = np.random.default_rng(11).uniform(-2, 2, size=(6, 5, 3))
    want = rosen.batched(points)
    frozen = points.copy()
    frozen.flags.writeable = False
    for other in (np.asfortranarray(points), points.tolist(), frozen,
                  np.concatenate([points, points], axis=2)[..., :3]):
        _same(rosen.batched(other), want)
    assert batch_args.prepare_fast([points], rosen._inputs, rosen._outputs) is not None
    assert batch_args.prepare_fast([frozen], rosen._inputs, rosen._outputs) is None
    # one batch axis: the arrays go to the loop unreshaped, the outputs come back as
    # the loop wrote them; the same values, in fresh arrays every call
    rows = points.reshape(30, 3)
    first, second = rosen.batched(rows), rosen.batched(rows)
    _same(first, [np.asarray(w).reshape((30,) + np.shape(w)[2:]) for w in want])
    assert all(a is not b and not np.shares_memory(a, rows) for a, b in zip(first, second))


def test_shared_and_broadcast_inputs():
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(2,), name="x")
        t = sg.placeholder(name="t", dtype=np.float32)
        n = sg.placeholder(name="n", dtype=np.int64)
        y = sg.reduce_sum(x * x) * t + sg.cast(n, "float64")
        f = sg.compile([y, sg.gradients(y, x)[0], n * 2], [x, t, n])
    xs = np.random.default_rng(3).normal(size=(4, 1, 2))
    ts = np.array([0.5, 1.5, 2.5], np.float32)      # broadcasts against x's batch axes
    got = f.batched(xs, ts, 7)                      # n: one value for every point
    assert got[0].shape == (4, 3) and got[1].shape == (4, 3, 2) and got[2].dtype == np.int64
    for i in range(4):
        for j in range(3):
            one = f(xs[i, 0], float(ts[j]), 7)
            assert got[0][i, j] == one[0] and np.array_equal(got[1][i, j], one[1])
            assert got[2][i, j] == 14
    # batch axes that do not broadcast: an error naming the inputs (numpy's named args)
    with pytest.raises(sg.ShapeError, match=r"batch axes .* must broadcast together, got "
                                            r"\(4, 2\) for input 0 \('x'\), \(3,\) for input 1"):
        f.batched(np.ones((4, 2, 2)), ts, 7)


@pytest.fixture(scope="module")
def straight():
    """Straight-line code (no loops): the batch loop takes its points in pairs."""
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        t = sg.placeholder(name="t", dtype=np.float32)
        n = sg.placeholder(name="n", dtype=np.int64)
        f = x[0]
        for k in (1, 2, 1, 2):
            f = sg.sin(f) * f * t + x[k]
        y = f + sg.cast(n, "float64")
        gx, gt = sg.gradients(y, [x, t])
        return sg.compile([y, gx, gt, n * 2, y > 0], [x, t, n])


@pytest.mark.parametrize("count", [0, 1, 2, 7, 5000])
def test_points_in_pairs_equal_one_point_at_a_time(straight, count):
    from symgrad.lower.lanes import eligible
    assert eligible(straight.program) and "_lanes(" in straight._text
    rng = np.random.default_rng(count)
    xs, ts = rng.uniform(-2, 2, (count, 3)), rng.uniform(-2, 2, count).astype(np.float32)
    ns = rng.integers(-5, 5, count)
    got = straight.batched(xs, ts, ns)
    _same(straight.batched(xs, ts, ns, parallel=True), got)
    for i in range(count) if count < 10 else (0, 1, 2, 3, count - 2, count - 1):
        one = straight(xs[i], float(ts[i]), int(ns[i]))
        assert np.array_equal(got[1][i], one[1])
        assert all(got[k][i] == one[k] for k in (0, 2, 3, 4))
    shared = straight.batched(xs, 1.5, 3)          # 0-d inputs shared by every point
    for i in range(min(count, 3)):
        assert shared[0][i] == straight(xs[i], 1.5, 3)[0]


def test_loops_keep_one_point_a_call(rosen):
    assert "_lanes(" not in rosen._text


def test_cost_keeps_recent_runs_per_size():
    cost = batches.Cost()
    cost.observe(1e-6, 100)                   # too short to time: an upper bound only
    assert not cost.known() and cost.least == pytest.approx(1e-8)
    for seconds in (5e-4, 2e-3, 1e-3, 9e-3):  # 1000 points: disturbed runs are slower
        cost.observe(seconds, 1000)
    # the least of the last RECENT (3): a run is slowed by other work, never sped up
    assert cost.known() and cost.serial_seconds(1000) == pytest.approx(1e-6)
    assert cost.serial_seconds(900) == cost.serial_seconds(1000)    # the same size class
    cost.observe(2e-3, 10 ** 6)
    assert cost.serial_seconds(10 ** 6) == pytest.approx(2e-9)
    assert cost.serial_seconds(3 * 10 ** 5) == pytest.approx(2e-9)   # the nearest size
    assert cost.least == pytest.approx(2e-9)
    for _ in range(batches.RECENT):           # only the recent runs count
        cost.observe(4e-3, 10 ** 6)
    assert cost.serial_seconds(10 ** 6) == pytest.approx(4e-9)


def test_batches_under_a_millisecond_stay_serial(monkeypatch):
    # a pool thread descheduled mid-chunk makes the caller wait a time slice (ms):
    # mlp at 100 points (0.3 ms of work) ran 0.07x serial on a busy machine
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    monkeypatch.setattr(batches, "_pool", lambda: (None, 0.0))   # free hand-offs
    cost = batches.Cost()
    cost.observe(3e-3, 1000)                  # 3 µs a point, measured
    assert not cost.threads_for(100) and not batches._pays(5e-4)
    assert cost.threads_for(1000) and cost.fewest <= 1000   # untried at this size: try


def test_the_first_run_compiling_the_loop_is_not_the_cost():
    # the batch loop compiles on its first call: timed, 1000 points of ~1 µs looked
    # like 50 µs each, and every later batch was split into threads for nothing
    calls = []

    def rows(lo, hi):
        calls.append((lo, hi))
        time.sleep(0.3 if len(calls) == 1 else (hi - lo) * 1e-6)
    cost = batches.Cost()
    batches.run(_claiming(rows), 1000, False, cost)
    assert sorted(i for a, b in calls for i in range(a, b)) == list(range(1000))
    # timed, the first call would be 3e-4 s a point; the rest sleep ~1e-6 s a point,
    # and the bound leaves a busy machine's sleeps 50x room
    assert cost.serial_seconds(1000) < 5e-5 and cost.least < 5e-5


def _decisions(cost, points, n):
    return [cost.threads_for(points) for _ in range(n)]


def test_threads_where_they_were_faster_at_that_size(monkeypatch):
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    monkeypatch.setattr(batches, "_pool", lambda: (None, 1e-5))
    cost = batches.Cost()
    cost.observe(1e-2, 10 ** 5)               # 0.1 µs a point: 1e5 points pay on 2 cores
    for _ in range(batches.TRIED):            # threads untried at this size: try them
        assert cost.threads_for(10 ** 5)
        cost.observe(6e-3, 10 ** 5, threaded=True)
    decisions = _decisions(cost, 10 ** 5, batches.RETRY)
    assert decisions.count(True) == batches.RETRY - 1 and not decisions[-1]   # serial
    # the machine gets busy: threaded runs now take twice the serial time
    for _ in range(batches.RECENT):
        cost.observe(2e-2, 10 ** 5, threaded=True)
    # tried again now and then: soon at first, then twice as long after each loss
    decisions = _decisions(cost, 10 ** 5, 3 * batches.RETRY)
    tries = [n + 1 for n, d in enumerate(decisions) if d]
    gaps = [batches.FIRST_RETRY * 2 ** k for k in range(4)]
    assert gaps[-1] == batches.RETRY
    assert tries[:4] == list(np.cumsum(gaps)) and np.all(np.diff(tries[3:]) == batches.RETRY)
    assert cost.threads_for(10 ** 4) is True   # another size: its own measurements


def test_threads_tried_again_soon_after_losing_get_their_size_back(monkeypatch):
    # the benchmark's case: a parallel=True function called a few times at a size
    # right after other threads ran; its first tries were slow, the next ones are not
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    monkeypatch.setattr(batches, "_pool", lambda: (None, 1e-5))
    cost = batches.Cost()
    cost.observe(1e-2, 10 ** 5)
    for _ in range(batches.TRIED):            # three slow starts: threads lose
        assert cost.threads_for(10 ** 5)
        cost.observe(2e-2, 10 ** 5, threaded=True)
    chosen = []
    for _ in range(6):                        # from now on threads take 6 ms
        chosen.append(cost.threads_for(10 ** 5))
        cost.observe(6e-3 if chosen[-1] else 1e-2, 10 ** 5, threaded=chosen[-1])
    assert chosen == [False, True, True, True, True, True]   # one retry wins them back


def test_one_slow_early_threaded_run_does_not_give_threads_up(monkeypatch):
    # a pool thread's first runs can start late (seen: 26 ms for 1 ms of work); the
    # choice waits for TRIED threaded runs and takes the least
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    monkeypatch.setattr(batches, "_pool", lambda: (None, 1e-5))
    cost = batches.Cost()
    cost.observe(1e-2, 10 ** 5)
    for elapsed in (6e-3, 5e-2) + (6e-3,) * (batches.TRIED - 2):
        assert cost.threads_for(10 ** 5)
        cost.observe(elapsed, 10 ** 5, threaded=True)
    assert cost.threads_for(10 ** 5)          # the faster way, one outlier ignored


def test_parallel_batches_measure_both_ways(monkeypatch, rosen):
    # a kernel batched with parallel=True only: the serial side is measured by the probe
    # and by every RETRY-th batch, so the choice rests on runs of the same size
    monkeypatch.setattr(batches, "_workers", lambda: 2)
    cost = batches.Cost()
    monkeypatch.setitem(rosen.__dict__, "_static_cost", cost)   # (the evaluator's Cost)
    points = np.random.default_rng(9).uniform(-2, 2, size=(20000, 3))
    want = rosen.batched(points)
    for _ in range(batches.RETRY + 2):
        _same(rosen.batched(points, parallel=True), want)
    bits = (len(points) - 1).bit_length()   # the first point runs alone (warm-up)
    assert (bits, False) in cost.runs or not batches._pays(
        cost.serial_seconds(len(points)) * len(points))


class _Never:
    """An executor whose threads never start (and must not be waited for)."""

    def submit(self, fn):
        return _Later(lambda: pytest.fail("waited for a thread that never started"))


class _Inline:
    """An executor that runs each task when its result is asked for."""

    def submit(self, fn):
        return _Later(fn)


class _Later:
    def __init__(self, fn):
        self.fn = fn

    def result(self):
        return self.fn()
