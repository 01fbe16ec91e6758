"""The call path and the parallel choice: ``python -m benchmarks.call_path [names]``.

Per workload, in one process, medians of interleaved rounds (timing.py):

- latency of ``f(x)`` (the evaluator), ``f.jit.kernel(x)`` (Numba's dispatcher of
  the kernel, called directly), the hand-written ``@njit`` call and SymPy
  lambdify+njit (where it builds within ``--limit`` seconds), and the ratios
  ``f / kernel`` (target <= 1.05), ``f / hand`` and ``f / sympy+njit`` (targets <= 1),
  in CPU time of the process (time waiting for a core on a loaded machine is not
  counted), medians and (in brackets) the least round;
- batches of 100, 10,000 and 100,000 points: ``f.batched`` serial and with
  ``parallel=True`` (target: parallel / serial time <= 1 + noise at every size), the
  hand-written serial and ``prange`` loops, and SymPy+njit's loop.

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


def batches(workload, f, hand, sympy, rounds):
    fns = {"serial": f.batched, "parallel=True": lambda X: f.batched(X, parallel=True),
           "hand": hand.batches["serial"], "hand prange": hand.batches["parallel"]}
    if sympy is not None:
        fns["sympy+njit"] = sympy.batches["serial"]
    threaded = ["hand prange"]   # Numba's workers spin after a prange loop; ours block
    for size in SIZES:
        X = workload.points(size, seed=3)
        got = interleaved_throughput(fns, X, rounds, budget=3.0, threaded=threaded)
        rates = {name: rate for name, (rate, _) in got.items()}
        best_peer = max(v for k, v in rates.items() if k not in ("serial", "parallel=True"))
        line = "  ".join(f"{name} {rate:.3g}/s" for name, rate in rates.items())
        print(f"{workload.name:9s} {size:>7d} pts  {line}  |  parallel/serial "
              f"{rates['parallel=True'] / rates['serial']:.2f}  best symgrad/best peer "
              f"{max(rates['serial'], rates['parallel=True']) / best_peer:.2f}", flush=True)


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
        batches(workload, f, hand, sympy, max(3, opts.rounds // 3))
        check = f.batched(workload.points(5, seed=4), parallel=True)
        want = hand.batches["serial"](workload.points(5, seed=4))
        assert np.allclose(check[0], want[0]) and np.allclose(check[1], want[1]), name
    print(f"load average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
