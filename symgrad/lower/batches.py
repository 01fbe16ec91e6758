"""``f.batched``'s loop: serial, or split over threads where that pays.

``parallel=True`` asks for threads; whether they pay depends on how long the batch
takes, which depends on the kernel.  So the cost of one point (seconds) is measured
once per kernel and core shape, on the caller's own batch: the first points run
serially, in growing runs, until a run lasts long enough to time (``PROBE_SECONDS``);
the rest of that batch, and every later one, is then planned from it.  A batch whose
serial time is not several thread hand-offs (measured once: a round trip through
the pool) or under ``THREADED_SECONDS`` runs serially; otherwise it is cut into chunks of at least
``CHUNK_SECONDS`` of work that the calling thread and the pool's threads take in
turn, so a thread slowed down by other processes just takes fewer chunks, and
the caller never waits for a thread that has not started yet.  The batch loop (a generated module's ``_loop``) releases the GIL.

Imports numpy and errors.
"""
from __future__ import annotations

import functools
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import ArgumentError, ShapeError

PROBE_SECONDS = 2e-4     # a timed run shorter than this says little (call overhead)
PROBE_POINTS = 256       # the first timed run; batches smaller than 4 of these: serial
CHUNK_SECONDS = 5e-5     # the least work worth handing to a thread
THREADED_SECONDS = 1e-3  # the least batch run on threads: on a busy machine a pool
                         # thread can lose its core mid-chunk for a time slice
                         # (milliseconds), and the caller has to wait for that chunk
PAYS = 3.0               # threads only if the time saved is this many hand-offs
RETRY = 16               # after a poor speedup, every RETRY-th batch tries threads again

_POOL: list = []         # [executor, seconds per hand-off], made on first use


@functools.lru_cache(maxsize=1)
def _workers():
    return os.cpu_count() or 1


def _pool():
    """The thread pool (one thread per core besides the caller) and its hand-off time."""
    if not _POOL:
        executor = ThreadPoolExecutor(max_workers=max(1, _workers() - 1))
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            list(executor.map(_nothing, range(max(1, _workers() - 1))))
            best = min(best, time.perf_counter() - t0)
        _POOL[:] = [executor, best]
    return _POOL[0], _POOL[1]


def _nothing(_):
    return None


def run(rows, count, parallel, cost):
    """Evaluate points ``0:count`` by calls ``rows(lo, hi)``: serially or over threads.

    Args:
        rows: evaluates the points ``lo:hi`` (releasing the GIL).
        count: how many points.
        parallel: whether threads may be used.
        cost: the kernel's :class:`Cost` (see :func:`cost_of`).
    """
    if not cost.warm and count:   # the loop's first call may compile it: not the cost
        rows(0, 1)
        cost.warm = True
        if count == 1:
            return
        rows = _shifted(rows, 1)
        count -= 1
    if not parallel or _workers() < 2 or count < cost.fewest or not cost.may_pay(count):
        t0 = time.perf_counter()
        rows(0, count)
        cost.observe(time.perf_counter() - t0, count)
        return
    start = 0 if cost.seconds is not None else _probe(rows, count, cost)
    if start < count:
        t0 = time.perf_counter()
        if _split(rows, start, count, cost.estimate, cost.speedup):
            cost.observe_threads(time.perf_counter() - t0, count - start)


def _shifted(rows, by):
    """``rows`` over points counted from ``by``."""
    return lambda lo, hi: rows(lo + by, hi + by)


def prepare(arrays, inputs, outputs, out=None):
    """The flat arguments of a module's ``_loop``: ``(count, args, outs, batch)``.

    ``arrays`` have batch axes in front of the core shapes of ``inputs`` (concrete);
    each becomes ``(m, flat)``: ``flat`` with one batch axis, writable and
    C-contiguous (0-d inputs in the kernel's scalar type), ``m`` 0 for an input
    every point shares.  ``outs`` have one batch axis of ``count`` points; reshape
    them to ``batch`` + core shape after the loop.  ``out``: the caller's arrays
    (``checked_out``) to write into, instead of new ones (``outs`` are views of them).
    """
    leads = [a.shape[:a.ndim - len(s)] for a, (_, _, s) in zip(arrays, inputs)]
    batch = leads[0] if len(set(leads)) == 1 else np.broadcast_shapes(*leads)
    count = math.prod(batch)
    args = []
    for a, lead, (_, dtype, core) in zip(arrays, leads, inputs):
        core = tuple(core)
        if lead == batch:
            flat, m = a.reshape((count,) + core), 1
        elif all(n == 1 for n in lead):    # the same value for every point
            flat, m = a.reshape((1,) + core), 0
        else:   # (a partly broadcast input is copied out in full)
            flat, m = np.broadcast_to(a, batch + core).reshape((count,) + core), 1
        want = np.dtype(dtype if core else _scalar_dtype(dtype))
        if not (flat.dtype == want and flat.flags.c_contiguous and flat.flags.writeable):
            flat = np.require(flat, want, ["C", "W"])
        args += [m, flat]
    if out is None:
        outs = [np.empty((count,) + tuple(core), dtype) for dtype, core, _ in outputs]
    else:
        out = checked_out(out, outputs, batch, [(n, a) for (n, _, _), a in
                                                 zip(inputs, args[1::2])])
        outs = [o.reshape((count,) + tuple(core)) for o, (_, core, _) in zip(out, outputs)]
    return count, args, outs, batch


def checked_out(out, outputs, batch, inputs=()):
    """``out=`` of ``f.batched`` as a list of arrays, one per output (``outputs``:
    ``(dtype, core shape, _)``), each checked to take the results in place: a numpy
    array of the output's dtype and of shape ``batch`` + core shape, C-contiguous,
    writeable, sharing no memory with another output or an input (``inputs``:
    ``(name, array)``).  A lone array stands for a tuple of one."""
    arrays, inputs = ((out,) if isinstance(out, np.ndarray) else out), list(inputs)
    if not isinstance(arrays, (tuple, list)) or len(arrays) != len(outputs):
        got = f"{len(arrays)} array(s)" if isinstance(arrays, (tuple, list)) else \
            type(out).__name__
        raise ArgumentError(f"batched: out= takes {len(outputs)} array(s), one per output "
                            f"in order (a tuple or list), got {got}")
    for k, (o, (dtype, core, _)) in enumerate(zip(arrays, outputs)):
        want = tuple(batch) + tuple(core)
        if not isinstance(o, np.ndarray):
            raise ArgumentError(f"batched: out[{k}] must be a numpy array, got "
                                f"{type(o).__name__}")
        if o.dtype != np.dtype(dtype):
            raise ArgumentError(f"batched: out[{k}] must have dtype {np.dtype(dtype)} "
                                f"(the output's), got {o.dtype}")
        if o.shape != want:
            raise ShapeError(f"batched: out[{k}] must have shape {want} (the batch axes, "
                             f"then the output's shape), got {o.shape}")
        if not (o.flags.c_contiguous and o.flags.writeable):
            raise ArgumentError(f"batched: out[{k}] must be a writeable C-contiguous array "
                                "(np.empty gives one)")
        for j, other in enumerate(arrays[:k]):
            if np.may_share_memory(o, other):
                raise ArgumentError(f"batched: out[{k}] shares memory with out[{j}]")
        for name, a in inputs:
            if np.may_share_memory(o, a):
                raise ArgumentError(f"batched: out[{k}] shares memory with input {name!r}; "
                                    "results cannot overwrite the points being read")
    return list(arrays)


def _scalar_dtype(dtype):
    """The numpy dtype of the kernel's 0-d arguments (``runtime.scalar_type``)."""
    kind = np.dtype(dtype).kind
    return np.float64 if kind == "f" else np.bool_ if kind == "b" else np.int64


def cost_of(costs, key):
    """The :class:`Cost` kept in ``costs`` (a dict kept with the kernel) under ``key``."""
    return costs.get(key) or costs.setdefault(key, Cost())


class Cost:
    """What is known of a kernel's seconds per point: a measurement (the least of the
    timed runs long enough to mean something) or an upper bound (from shorter runs)."""

    def __init__(self):
        self.seconds, self.bound = None, float("inf")
        self.speedup = float(_workers())   # of threaded runs, as observed (moving average)
        self.skipped = 0                   # batches run serially for a low speedup
        self.fewest = 4 * PROBE_POINTS     # fewer points than this never pay (cheap test)
        self.warm = False                  # whether the loop has run (been compiled)

    def _update(self):
        est = self.estimate or self.bound
        _, handoff = _pool()
        gain = 1.0 - 1.0 / _workers()      # on idle cores
        self.fewest = max(PAYS * handoff / gain, THREADED_SECONDS) / est

    def observe_threads(self, elapsed, points):
        """Fold a threaded run into the speedup: other processes may hold the cores.
        The run bounds the cost too: no point took longer than all threads' time."""
        if points > 0 and elapsed * _workers() / points < self.bound:
            self.bound = elapsed * _workers() / points
        if self.estimate is not None and elapsed > 0:
            self.speedup = 0.5 * self.speedup + 0.5 * points * self.estimate / elapsed
            self._update()

    def observe(self, elapsed, points):
        if points <= 0:
            return
        per_point = elapsed / points
        if elapsed >= PROBE_SECONDS:
            self.seconds = per_point if self.seconds is None else min(self.seconds, per_point)
        if per_point < self.bound or elapsed >= PROBE_SECONDS:
            self.bound = min(self.bound, per_point)
            self._update()

    @property
    def estimate(self):
        """Seconds per point: the measurement, never above the bound (a measured run
        that other processes slowed down is not the kernel's cost); None: unknown."""
        return None if self.seconds is None else min(self.seconds, self.bound)

    def may_pay(self, points):
        """Whether threads might save time on ``points`` points."""
        if self.bound == float("inf"):
            return points >= 4 * PROBE_POINTS
        work = points * (self.estimate or self.bound)   # measured, or the most it can be
        if _pays(work, self.speedup):
            return True
        if _pays(work, _workers()):   # would pay on idle cores: try again now and then
            self.skipped += 1
            return self.skipped % RETRY == 0
        return False


def _pays(work, speedup=None):
    """Whether ``work`` seconds of batch, split with ``speedup``, saves enough."""
    _, handoff = _pool()
    speedup = _workers() if speedup is None else speedup
    return work * (1.0 - 1.0 / max(speedup, 1.0)) >= PAYS * handoff and \
        work >= THREADED_SECONDS


def _probe(rows, count, cost):
    """Run growing leading runs serially until one is long enough to time; the points done."""
    done, size = 0, PROBE_POINTS
    while done < count and cost.seconds is None:
        size = min(size, count - done)
        t0 = time.perf_counter()
        rows(done, done + size)
        cost.observe(time.perf_counter() - t0, size)
        done += size
        size *= 2
    return done


def _split(rows, start, stop, row_seconds, speedup):
    """Points ``start:stop`` serially, or in chunks over the caller and the pool (True)."""
    executor, _ = _pool()
    if not _pays((stop - start) * row_seconds, max(speedup, 1.1)):
        rows(start, stop)
        return False
    chunk = max(1, int(CHUNK_SECONDS / max(row_seconds, 1e-12)))
    chunk = max(chunk, -(-(stop - start) // (8 * _workers())))   # at most ~8 per thread
    work = _Chunks(rows, start, stop, chunk)
    for _ in range(_workers() - 1):
        executor.submit(work.take)
    work.take()
    work.wait()
    return True


class _Chunks:
    """A batch cut into chunks that threads take in turn.  The caller waits only for
    chunks a thread has taken: a pool thread that other processes keep from starting
    finds nothing left when it does (the caller did its share), instead of holding
    the whole batch up until it is scheduled."""

    def __init__(self, rows, start, stop, size):
        self.rows, self.next, self.stop, self.size = rows, start, stop, size
        self.left = -(-(stop - start) // size)   # chunks not finished yet
        self.lock = threading.Condition()
        self.error = None

    def take(self):
        while True:
            with self.lock:
                lo = self.next
                if lo >= self.stop:
                    return
                self.next = lo + self.size
            try:
                self.rows(lo, min(lo + self.size, self.stop))
            except BaseException as exc:   # raised again by the caller's wait()
                self.error = exc
            with self.lock:
                self.left -= 1
                if not self.left:
                    self.lock.notify_all()

    def wait(self):
        with self.lock:
            while self.left:
                self.lock.wait()
        if self.error is not None:
            raise self.error
