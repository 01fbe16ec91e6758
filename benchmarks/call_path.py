"""The call path and the parallel choice: ``python -m benchmarks.call_path [names]``.

Per workload, in one process, medians of interleaved rounds (timing.py):

- latency of ``f(x)`` (the evaluator), ``f.jit.kernel(x)`` (Numba's dispatcher of
  the kernel, called directly), the hand-written ``@njit`` call and SymPy
  lambdify+njit (where it builds within ``--limit`` seconds), and the ratios
  ``f / kernel`` (target <= 1.05), ``f / hand`` and ``f / sympy+njit`` (targets <= 1),
  in CPU time of the process (time waiting for a core on a loaded machine is not
  counted), medians and (in brackets) the least round;
- batches of 100, 10,000 and 100,000 points, in two conditions stated on each line:
  ``new outputs`` (every tool allocates its output arrays on each call, as
  ``f.batched(X)`` does: the loop then touches fresh pages) and ``out= reused``
  (outputs allocated once and written again on every call: ``f.batched(X, out=...)``
  and the hand loops given the same arrays).  ``f.batched`` serial and with
  ``parallel=True`` (target: parallel / serial time <= 1 + noise at every size), the
  hand-written serial and ``prange`` loops (``benchmarks.hand``), and SymPy+njit's
  loop (new outputs only: its wrapper allocates).  Each line's ratio compares
  symgrad with the peers of the same condition.

Default workloads: the eight of the issue's targets (rosen2/10/100, chain10/50/200,
mlp, lj8).  Runs in a few minutes on an idle 2-core machine; prints the load average.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from . import tools
from .timing import calibrate, interleaved_throughput
from .workloads import get

DEFAULT = ["rosen2", "rosen10", "rosen100", "chain10", "chain50", "chain200", "mlp", "lj8"]
SIZES = (100, 10_000, 100_000)


def _sympy(workload, limit):
    """SymPy+njit's call and batch, or None when it does not build within ``limit`` s.

    The build is first tried in a child process, killed at ``limit``: a build left
    running in a thread of this process (SymPy cannot be interrupted) kept taking CPU
    and the GIL from every later measurement (medians 2-3x the least rounds on chain50,
    chain200, mlp and lj8).  Only a build that finished there is repeated here.
    """
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get(
        "PYTHONPATH", "")]))
    code = ("from benchmarks import tools, workloads; "
            f"tools.build_sympy_njit(workloads.get({workload.name!r}))")
    try:
        subprocess.run([sys.executable, "-c", code], cwd=root, env=env, timeout=limit,
                       check=True, capture_output=True)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError):
        return None
    return tools.build_sympy_njit(workload)


def _latency(calls, x, rounds, clock=time.process_time):
    """``{name: (median, least)}`` CPU seconds per call, interleaved round by round.

    CPU time of this process (one thread here), so that time spent waiting for a core
    on a loaded machine is not counted; the least round is printed too.
    """
    loops = {name: calibrate(call, x, clock=clock) for name, call in calls.items()}
    samples = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            t0 = clock()
            for _ in range(loops[name]):
                call(x)
            samples[name].append((clock() - t0) / loops[name])
    return {name: (float(np.median(s)), min(s)) for name, s in samples.items()}


def latency(workload, f, hand, sympy, rounds):
    calls = {"f(x)": f, "kernel": f.jit.kernel, "hand": hand.call}
    if sympy is not None:
        calls["sympy+njit"] = sympy.call
    got = _latency(calls, workload.sample(), rounds)
    line = "  ".join(f"{name} {med * 1e6:.3f} ({least * 1e6:.3f}) µs"
                     for name, (med, least) in got.items())
    pairs = [("f/kernel", "kernel"), ("f/hand", "hand")] + \
        ([("f/sympy+njit", "sympy+njit")] if sympy is not None else [])
    ratios = [f"{label} {got['f(x)'][0] / got[other][0]:.3f} "
              f"({got['f(x)'][1] / got[other][1]:.3f})" for label, other in pairs]
    print(f"{workload.name:9s} latency median (least)  {line}  |  {'  '.join(ratios)}",
          flush=True)


def _reused(run, width):
    """``run(X, V, G)`` with outputs allocated once per batch size and reused by every
    later call (what hand-written code does; ``out=`` for ``f.batched``)."""
    buffers = {}

    def go(X):
        if X.shape[0] not in buffers:
            buffers[X.shape[0]] = (np.empty(X.shape[0]), np.empty((X.shape[0], width)))
        run(X, *buffers[X.shape[0]])
        return buffers[X.shape[0]]
    return go


def batch_functions(workload, f, sympy):
    """``{name: X -> (values, gradients)}``: symgrad and the peers, each with new output
    arrays on every call (``fresh``) and with outputs reused across calls (``out``)."""
    from . import hand
    _, serial, threads = hand.drivers(workload.kind)
    fresh = {"serial": f.batched, "parallel=True": lambda X: f.batched(X, parallel=True),
             "hand": lambda X: _fresh(serial, X, workload.n),
             "hand prange": lambda X: _fresh(threads, X, workload.n)}
    if sympy is not None:
        fresh["sympy+njit"] = sympy.batches["serial"]
    out = {"serial out=": _reused(lambda X, V, G: f.batched(X, out=(V, G)), workload.n),
           "parallel out=": _reused(lambda X, V, G: f.batched(X, parallel=True, out=(V, G)),
                                    workload.n),
           "hand out": _reused(serial, workload.n),
           "hand prange out": _reused(threads, workload.n)}
    return fresh, out


def _fresh(kernel, X, width):
    V, G = np.empty(X.shape[0]), np.empty((X.shape[0], width))
    kernel(X, V, G)
    return V, G


def batches(workload, f, sympy, rounds):
    """Throughput at each size, symgrad and the peers under the same conditions: new
    output arrays every call (a fresh ``np.empty``: its pages are touched for the first
    time by the loop) and outputs reused across calls (``f.batched(..., out=)``, the
    hand loops writing into the same arrays)."""
    fresh, out = batch_functions(workload, f, sympy)
    fns = {**fresh, **out}
    threaded = ["hand prange", "hand prange out"]   # Numba's workers spin after a prange
    for size in SIZES:                              # loop; ours block
        X = workload.points(size, seed=3)
        got = interleaved_throughput(fns, X, rounds, budget=3.0, threaded=threaded)
        rates = {name: rate for name, (rate, _) in got.items()}
        for label, group, mine in (("new outputs", fresh, ("serial", "parallel=True")),
                                   ("out= reused", out, ("serial out=", "parallel out="))):
            best_peer = max(rates[k] for k in group if k not in mine)
            line = "  ".join(f"{name} {rates[name]:.3g}/s" for name in group)
            print(f"{workload.name:9s} {size:>7d} pts  {label}: {line}  |  parallel/serial "
                  f"{rates[mine[1]] / rates[mine[0]]:.2f}  best symgrad/best peer "
                  f"{max(rates[mine[0]], rates[mine[1]]) / best_peer:.2f}", flush=True)
    X = workload.points(5, seed=4)
    want = fresh["hand"](X)
    for name, fn in fns.items():
        assert all(np.allclose(g, w) for g, w in zip(fn(X), want)), (workload.name, name)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.call_path",
                                description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="*", default=DEFAULT)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--limit", type=float, default=12.0, help="SymPy+njit build limit, s")
    opts = p.parse_args(argv)
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for name in opts.workloads:
        workload = get(name)
        f = tools.build_symgrad(workload).call
        hand = tools.build_hand(workload)
        sympy = _sympy(workload, opts.limit)
        latency(workload, f, hand, sympy, opts.rounds)
        batches(workload, f, sympy, max(3, opts.rounds // 3))
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
