"""Timing helpers: per-call latency and batch throughput, interleaved across tools.

Interleaving (round 1: every tool, round 2: every tool, ...) makes the ratios
robust to the load on the machine drifting during the run: each tool's median
comes from the same stretches of time as the others'.
"""
import statistics
import time

import numpy as np


def median_seconds(run, repeats):
    """Median wall seconds of ``repeats`` calls of ``run()`` (one after another)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def calibrate(call, x, target=0.01, clock=time.perf_counter):
    """How many back-to-back calls take about ``target`` seconds."""
    loops, elapsed = 1, 0.0
    while elapsed < target and loops < 1 << 20:
        loops *= 2
        t0 = clock()
        for _ in range(loops):
            call(x)
        elapsed = clock() - t0
    return loops


def interleaved_latency(calls, x, rounds, clock=time.perf_counter):
    """``{name: median seconds per call}`` for ``calls = {name: call}`` at the point x.

    ``clock=time.process_time`` measures the process's CPU time instead of wall
    time: on a loaded machine, time spent waiting for a core is not counted.
    """
    loops = {name: calibrate(call, x, clock=clock) for name, call in calls.items()}
    samples = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            n = loops[name]
            t0 = clock()
            for _ in range(n):
                call(x)
            samples[name].append((clock() - t0) / n)
    return {name: float(np.median(s)) for name, s in samples.items()}


def batch_size(batch, X, rounds, budget):
    """Warm ``batch`` up (compiles, starts threads) and pick how many points fit the budget."""
    batch(X[:1000])
    t0 = time.perf_counter()
    batch(X[:1000])
    per_point = (time.perf_counter() - t0) / 1000
    return int(min(len(X), max(1000, budget / rounds / max(per_point, 1e-12))))


WARM_BATCHES = 3   # full-size calls before the timed rounds (see interleaved_throughput)
SETTLE_SECONDS = 0.01   # pause before each timed threaded batch (see interleaved_throughput)


def interleaved_throughput(batches, X, rounds, budget=10.0, threaded=()):
    """``{name: (points per second, points used)}`` for ``batches = {name: fn}``.

    A slow batch function (a Python loop) gets fewer points so that it stays
    within ``budget`` seconds; the points used are reported with the rate.  The
    ``threaded`` names run in a second phase after the others: worker threads
    spin for a while after a parallel loop and would slow the next serial run.

    Each function first runs ``WARM_BATCHES`` times at the size it is timed at: the
    first calls of a size touch fresh output memory (glibc gives the first large
    arrays from new pages: 2-4 ms of page faults on a 100,000-point Rosenbrock-10
    batch that then runs in 2 ms, for every tool), and an adaptive batch loop (symgrad's
    serial-or-threads choice) tries both ways on its first calls.  The figure is the
    steady state a caller evaluating batch after batch gets.  Each timed threaded batch
    waits ``SETTLE_SECONDS`` first: Numba's OpenMP threads spin for a few milliseconds
    after a ``prange`` loop, and whichever threaded batch ran next lost its second core
    to them (a 100,000-point chain10 batch on symgrad's threads: 12.6 ms right after
    hand ``prange``, 8.8-9.6 ms 10-20 ms later, 8.7-9.0 ms with no ``prange`` run).
    """
    points = {name: batch_size(fn, X, rounds, budget) for name, fn in batches.items()}
    samples = {name: [] for name in batches}
    phases = [[n for n in batches if n not in threaded], [n for n in batches if n in threaded]]
    for phase in phases:
        for name in phase:
            if points[name] == len(X):   # (slower tools: their budget is spent once)
                for _ in range(WARM_BATCHES):
                    batches[name](X[:points[name]])
        time.sleep(0.5)
        for _ in range(rounds):
            for name in phase:
                if name in threaded:   # the previous tool's threads stop spinning first
                    time.sleep(SETTLE_SECONDS)
                t0 = time.perf_counter()
                batches[name](X[:points[name]])
                samples[name].append(time.perf_counter() - t0)
    return {name: (points[name] / float(np.median(s)), points[name])
            for name, s in samples.items()}


def repeated(fn, arg, count):
    """``fn(arg)`` ``count`` times, each result dropped at once (a list of results would
    time fresh memory for every output: up to 3x a 52 KB Hessian's call)."""
    for _ in range(count):
        fn(arg)
