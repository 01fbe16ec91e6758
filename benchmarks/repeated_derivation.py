"""Deriving the same large graph again and again in one process (a notebook, a service).

``python -m benchmarks.repeated_derivation [--rounds 5] [--workload chain1000]`` traces
the workload and takes its gradient ``--rounds`` times in one process (SymPy, Numba and
symgrad imported first, as ``benchmarks.first_result`` does) and prints per round the
milliseconds of trace and of ``gradients``, and how many full collections of Python's
collector ran in the round with their milliseconds (``gc.callbacks``).  A full
collection walks every object of the process; ``SYMGRAD_GC_FREEZE=0`` shows the
rounds without ``symgrad.gcfreeze``.
"""
from __future__ import annotations

import argparse
import gc
import json
import time


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--workload", default="chain1000")
    args = p.parse_args(argv)
    import numpy as np  # noqa: F401
    import sympy  # noqa: F401
    from numba import njit

    import symgrad as sg
    from .workloads import get, symgrad_loss
    sg.gradients  # noqa: B018  (the lazily imported API: import time, not derivation)
    njit(lambda v: v + 1.0)(1.0)
    full, started = [], []

    def watch(phase, info):
        if info["generation"] == 2:
            if phase == "start":
                started.append(time.perf_counter())
            else:
                full.append(time.perf_counter() - started.pop())
    gc.callbacks.append(watch)
    w = get(args.workload)
    for k in range(args.rounds):
        before = len(full)
        with sg.Graph().as_default():
            t0 = time.perf_counter()
            x = sg.placeholder(shape=(w.n,), name="x")
            loss = symgrad_loss(w, sg, x)
            t1 = time.perf_counter()
            sg.gradients(loss, x)
            t2 = time.perf_counter()
        print(json.dumps({"round": k + 1, "trace_ms": round(1e3 * (t1 - t0), 1),
                          "gradients_ms": round(1e3 * (t2 - t1), 1),
                          "full_collections": len(full) - before,
                          "full_collection_ms": round(1e3 * sum(full[before:]), 1)}),
              flush=True)


if __name__ == "__main__":
    main()
