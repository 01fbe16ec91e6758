"""``f.batched``'s loop: serial, or split over threads where that pays.

``parallel=True`` asks for threads; whether they pay depends on the kernel, the batch
size and what else the machine runs, so it is decided from measurements of this
kernel's own batches (:class:`Cost`), like with like: the recent seconds per point of
serial runs and of threaded runs, per batch size (powers of two), the least of the last
few (what else the machine runs only ever slows a run down: the least is the run that
was disturbed least).  A batch runs on threads when they were faster than serial at its
size, and serially when not, or when its work is under ``THREADED_SECONDS`` or a few
thread hand-offs.  Now and then a batch tries the way not chosen, so a machine that
becomes busy (or idle) changes the choice: serial every ``RETRY``-th batch while threads
win, threads after 2, 4, 8 ... ``RETRY`` batches while they lose (sooner at first: early
threaded runs are the ones slowed by a late start).  The first batch of a kernel times its
leading points serially (growing runs, until one lasts ``PROBE_SECONDS``).

Threads: the calling thread and the pool's threads each call the batch loop (a
generated module's ``_loop``, which releases the GIL) once on a shared work array, from
which the loop claims chunks of at least ``CHUNK_SECONDS`` of work with an atomic add
until none are left: a thread slowed down by other processes takes fewer chunks, the
caller never waits for a thread that has not started yet, and no chunk needs the GIL.
(Taking the GIL for every chunk, as a Python loop over chunks does, made the threads
wait for each other: a 100,000-point Rosenbrock-10 batch, 2.5 ms of work, got no
speedup from two threads.)

The loop's arguments are prepared by ``lower.batch_args``.  Imports numpy.
"""
from __future__ import annotations

import functools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

PROBE_SECONDS = 2e-4     # a timed run shorter than this says little (call overhead)
PROBE_POINTS = 256       # the first timed run; batches smaller than 4 of these: serial
CHUNK_SECONDS = 5e-5     # the least work a chunk holds (claiming one is an atomic add)
THREADED_SECONDS = 1e-3  # the least batch run on threads: on a busy machine a pool
                         # thread can lose its core mid-chunk for a time slice
                         # (milliseconds), and the caller has to wait for that chunk
PAYS = 3.0               # threads only if the time saved is this many hand-offs
RETRY = 16               # batches of a size between tries of the way not chosen, at most
FIRST_RETRY = 2          # after threads lose: they are tried again this many batches
                         # later, then twice as many each time they lose again
RECENT = 3               # runs per size and way whose least is the estimate
TRIED = 3                # threaded runs of a size before they may be given up: one
                         # slow start is not the estimate (a pool thread's first run
                         # took 26 ms for 1 ms of work once)
FASTER = 0.97            # threads are chosen when at most this fraction of serial time

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


def run(loop, count, parallel, cost):
    """Evaluate points ``0:count`` with ``loop(work)``: serially or over threads.

    Args:
        loop: runs the batch loop on a work array (:func:`work`), releasing the GIL:
            it claims chunks of points until none are left and counts those it did.
        count: how many points.
        parallel: whether threads may be used.
        cost: the kernel's :class:`Cost` (see :func:`cost_of`).
    """
    start = 0
    if not cost.warm and count:   # the loop's first call may compile it: not the cost
        loop(work(0, 1))
        cost.warm, start = True, 1
    if count - start <= 0:
        return
    if not parallel or _workers() < 2 or count - start < cost.fewest:
        _serial(loop, start, count, cost)
        return
    if not cost.known():
        start = _probe(loop, start, count, cost)
        if start >= count:
            return
    if not cost.threads_for(count - start):
        _serial(loop, start, count, cost)
        return
    t0 = time.perf_counter()
    _split(loop, start, count, cost.serial_seconds(count - start))
    cost.observe(time.perf_counter() - t0, count - start, threaded=True)


def work(start, stop, size=None):
    """The batch loop's work array for points ``start:stop``: ``[next, stop, size,
    done]``, chunks of ``size`` points (default: all in one)."""
    return np.array([start, stop, max(1, stop - start if size is None else size), 0],
                    np.int64)


def _serial(loop, start, stop, cost):
    t0 = time.perf_counter()
    loop(work(start, stop))
    cost.observe(time.perf_counter() - t0, stop - start)


def cost_of(costs, key):
    """The :class:`Cost` kept in ``costs`` (a dict kept with the kernel) under ``key``."""
    return costs.get(key) or costs.setdefault(key, Cost())


class Cost:
    """What this kernel's batches took: seconds per point, serial and on threads, per
    batch size (its bit length), the last ``RECENT`` runs long enough to time each;
    and ``least``, the fewest seconds per point any serial run showed (short runs
    too: an upper bound of the cost), for the cheap test of tiny batches."""

    def __init__(self):
        self.runs = {}                     # (size bits, threaded) -> recent s/point
        self.retry = {}                    # size bits -> [threads chosen, gap, left]
        self.least = float("inf")
        self.fewest = 4 * PROBE_POINTS     # fewer points than this stay serial
        self.warm = False                  # whether the loop has run (been compiled)

    def known(self):
        """Whether a serial run has been timed (else the batch probes first)."""
        return any(not threaded for _, threaded in self.runs)

    def observe(self, elapsed, points, threaded=False):
        if points <= 0:
            return
        per_point = elapsed / points
        if not threaded and per_point < self.least:
            self.least = per_point
            _, handoff = _pool()
            gain = 1.0 - 1.0 / _workers()      # on idle cores
            self.fewest = max(PAYS * handoff / gain, THREADED_SECONDS) / per_point
        if elapsed >= PROBE_SECONDS:
            recent = self.runs.setdefault((points.bit_length(), threaded), [])
            recent.append(per_point)
            del recent[:-RECENT]

    def _estimate(self, points, threaded):
        """The least of the recent runs of the nearest size with any (None: none)."""
        bits = points.bit_length()
        sizes = [b for b, t in self.runs if t == threaded]
        if not sizes:
            return None
        return min(self.runs[min(sizes, key=lambda b: (abs(b - bits), -b)), threaded])

    def serial_seconds(self, points):
        """Seconds per point of a serial run of ``points`` (the nearest size measured)."""
        known = self._estimate(points, False)
        return self.least if known is None else known

    def threads_for(self, points):
        """Whether to run ``points`` on threads: they were faster than serial at this
        size (or were tried fewer than ``TRIED`` times, and the work would repay the
        hand-offs), except on the batches that try the other way (:meth:`_retry`)."""
        serial = self.serial_seconds(points)
        if not _pays(points * serial):
            return False
        bits = points.bit_length()
        threaded = self.runs.get((bits, True), ())
        if len(threaded) < TRIED:   # one slow early run (a thread waking late) is not
            return True             # enough to give threads up for RETRY batches
        serial_here = self.runs.get((bits, False))
        faster = min(threaded) <= FASTER * (min(serial_here) if serial_here else serial)
        return faster != self._retry(bits, faster)

    def _retry(self, bits, threads):
        """Whether this batch of size ``bits`` tries the way not chosen (``threads``:
        whether threads are).  Serial is tried every ``RETRY``-th batch while threads
        win; threads ``FIRST_RETRY`` batches after they lost, then after twice as many
        each time they lose again, up to ``RETRY``; a change of choice starts afresh."""
        state = self.retry.get(bits)
        if state is None or state[0] != threads:
            gap = RETRY if threads else FIRST_RETRY
            state = self.retry[bits] = [threads, gap, gap]
        state[2] -= 1
        if state[2] > 0:
            return False
        if not threads:
            state[1] = min(2 * state[1], RETRY)
        state[2] = state[1]
        return True


def _pays(work):
    """Whether ``work`` seconds of batch, split over idle cores, saves enough."""
    _, handoff = _pool()
    return work * (1.0 - 1.0 / _workers()) >= PAYS * handoff and work >= THREADED_SECONDS


def _probe(loop, start, count, cost):
    """Run growing leading runs serially until one is long enough to time; the points done."""
    done, size = start, PROBE_POINTS
    while done < count and not cost.known():
        size = min(size, count - done)
        _serial(loop, done, done + size, cost)
        done += size
        size *= 2
    return done


def _split(loop, start, stop, row_seconds):
    """Points ``start:stop`` in chunks that the caller and the pool's threads claim
    from one work array, each in one call of the loop (one GIL hand-off per thread)."""
    executor, _ = _pool()
    chunk = max(1, int(CHUNK_SECONDS / max(row_seconds, 1e-12)))
    chunk = max(chunk, -(-(stop - start) // (16 * _workers())))   # at most ~16 per thread
    team = _Team(loop, work(start, stop, chunk))
    for _ in range(_workers() - 1):
        executor.submit(team.join)
    loop(team.work)
    team.wait(stop - start)


class _Team:
    """The pool's threads on one batch: each runs the loop on the shared work array,
    claiming chunks until none are left.  The caller waits only for chunks a thread
    has claimed (``done`` short of the batch): a pool thread that other processes keep
    from starting finds nothing left when it does, instead of holding the batch up."""

    def __init__(self, loop, work):
        self.loop, self.work = loop, work
        self.lock = threading.Condition()
        self.error = None

    def join(self):
        try:
            self.loop(self.work)
        except BaseException as exc:   # raised again by the caller's wait()
            self.error = exc
        finally:
            with self.lock:
                self.lock.notify_all()

    def wait(self, points):
        with self.lock:
            while self.work[3] < points and self.error is None:
                self.lock.wait()
        if self.error is not None:
            raise self.error
