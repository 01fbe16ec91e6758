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
    try:
        batch = leads[0] if len(set(leads)) == 1 else np.broadcast_shapes(*leads)
    except ValueError:
        axes = ", ".join(f"{lead} for input {k} ({name!r})"
                         for k, (lead, (name, _, _)) in enumerate(zip(leads, inputs)))
        raise ShapeError(f"batched: the batch axes (in front of each input's shape) must "
                         f"broadcast together, got {axes}") from None
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
    named = ((n, a) for (n, _, _), a in zip(inputs, args[1::2]))   # (read with out= only)
    return count, args, _outs(out, outputs, batch, count, named), batch


def prepare_fast(values, inputs, outputs, out=None):
    """``prepare``'s result for values the loop takes as they are (numpy arrays of the
    kernel's dtypes, C-contiguous and writeable, ending in the static core shapes of
    ``inputs``, all with the same batch axes); None for anything else, which
    ``prepare`` converts after the full checks.  An evaluator keeps its
    :class:`FastPath` instead of calling this."""
    return FastPath(inputs, outputs).prepare(values, out)


class FastPath:
    """:func:`prepare_fast` for one evaluator's static ``inputs`` and ``outputs``,
    with the shapes and dtypes it compares against made once.  (The full checks took
    ~10 µs of a 100-point batch's ~25.  Measured on rosen2, 100 points, interleaved
    in one process: :func:`prepare_fast` 8.5 µs, this 5.2, the batch loop itself
    2.8; ``f.batched`` 12.6-14.0 -> 8.8-9.1 µs, least of 15 rounds, processes
    alternating with the tree before.)"""

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.want = [(tuple(core), len(core),
                      np.dtype(dtype if core else _scalar_dtype(dtype)))
                     for _, dtype, core in inputs]
        self.made = [(tuple(core), np.dtype(dtype)) for dtype, core, _ in outputs]

    def prepare(self, values, out=None):
        batch, arrays = None, []
        for v, (core, ncore, dtype) in zip(values, self.want):
            if type(v) is not np.ndarray:
                return None
            flags, shape = v.flags, v.shape
            lead = len(shape) - ncore
            if not (flags.c_contiguous and flags.writeable) or lead < 0 or \
                    shape[lead:] != core or v.dtype != dtype:
                return None
            if batch is None:
                batch = shape[:lead]
            elif shape[:lead] != batch:
                return None
            arrays.append(v)
        if batch is None:   # no inputs
            return None
        count = math.prod(batch)
        args = []
        for v, (core, _, _) in zip(arrays, self.want):   # one batch axis: v as it is
            args += (1, v if len(batch) == 1 else v.reshape((count,) + core))
        if out is None:
            outs = [np.empty((count,) + core, dtype) for core, dtype in self.made]
        else:
            outs = self.taken(out, batch, count, [(v, v.flags.owndata) for v in arrays])
            if outs is None:   # the full checks convert the values, or say what is wrong
                return None
        return count, args, outs, batch

    def taken(self, out, batch, count, arrays):
        """The caller's ``out=`` as the loop's outputs (one batch axis each), when every
        array passes :func:`checked_out`'s tests; None for anything else, which the full
        checks then refuse with the error that names it.  The same tests, with the
        shapes and dtypes made once, no messages built, and ``np.may_share_memory``
        (0.25 µs a pair) only where an array does not own its memory: two arrays that
        own theirs overlap only if they are one array.  Through ``checked_out``,
        ``f.batched(X, out=...)`` of 100 Rosenbrock-10 points took longer than
        allocating new outputs (9.9 against 6.4 µs, medians of 15 rounds in one
        process); now 7.7 µs."""
        if type(out) is np.ndarray:
            out = (out,)
        elif type(out) is not tuple and type(out) is not list:
            return None
        if len(out) != len(self.made):
            return None
        flat = []
        for k, (o, (core, dtype)) in enumerate(zip(out, self.made)):
            if type(o) is not np.ndarray or o.dtype != dtype or o.shape != batch + core:
                return None
            flags = o.flags
            if not (flags.c_contiguous and flags.writeable):
                return None
            owns = flags.owndata   # two arrays that own their memory share none of it
            for other in out[:k]:
                if other is o or not (owns and other.flags.owndata) and \
                        np.may_share_memory(o, other):
                    return None
            for a, a_owns in arrays:
                if a is o or not (owns and a_owns) and np.may_share_memory(o, a):
                    return None
            flat.append(o if len(batch) == 1 else o.reshape((count,) + core))
        return flat


def _outs(out, outputs, batch, count, inputs):
    """The loop's output arrays, one batch axis of ``count`` points each: new ones, or
    views of the caller's ``out`` (``checked_out`` against ``inputs``: (name, array))."""
    if out is None:
        return [np.empty((count,) + tuple(core), dtype) for dtype, core, _ in outputs]
    out = checked_out(out, outputs, batch, inputs)
    return [o.reshape((count,) + tuple(core)) for o, (_, core, _) in zip(out, outputs)]


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
    batch, inputs = tuple(batch), list(inputs)
    for k, (o, (dtype, core, _)) in enumerate(zip(arrays, outputs)):
        if not (isinstance(o, np.ndarray) and o.dtype == dtype and
                o.shape == batch + tuple(core) and o.flags.c_contiguous and
                o.flags.writeable):   # (one test for the arrays that pass: a fast path)
            _bad_out(k, o, dtype, batch + tuple(core))
        for j in range(k):
            if np.may_share_memory(o, arrays[j]):
                raise ArgumentError(f"batched: out[{k}] shares memory with out[{j}]")
        for name, a in inputs:
            if np.may_share_memory(o, a):
                raise ArgumentError(f"batched: out[{k}] shares memory with input {name!r}; "
                                    "results cannot overwrite the points being read")
    return list(arrays)


def _bad_out(k, o, dtype, want):
    """Raise the error that says what is wrong with ``out[k]``."""
    if not isinstance(o, np.ndarray):
        raise ArgumentError(f"batched: out[{k}] must be a numpy array, got "
                            f"{type(o).__name__}")
    if o.dtype != np.dtype(dtype):
        raise ArgumentError(f"batched: out[{k}] must have dtype {np.dtype(dtype)} "
                            f"(the output's), got {o.dtype}")
    if o.shape != want:
        raise ShapeError(f"batched: out[{k}] must have shape {want} (the batch axes, "
                         f"then the output's shape), got {o.shape}")
    raise ArgumentError(f"batched: out[{k}] must be a writeable C-contiguous array "
                        "(np.empty gives one)")


def _scalar_dtype(dtype):
    """The numpy dtype of the kernel's 0-d arguments (``runtime.scalar_type``)."""
    kind = np.dtype(dtype).kind
    return np.float64 if kind == "f" else np.bool_ if kind == "b" else np.int64


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
