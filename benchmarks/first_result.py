"""The first answer after ``sg.compile``: ``python -m benchmarks.first_result [workloads]``.

For each workload, in a fresh process with fresh caches (SymPy, Numba and symgrad
imported and Numba warmed up beforehand, as ``benchmarks.run`` does), the wall time
of trace, ``gradients``, ``sg.compile`` and the first call, then how long until the
machine code answers.  ``default``: ``sg.compile`` as it is (the cheap tier answers
first); ``wait=True``: the machine code is built before ``compile`` returns (the
behaviour before issue 15).  Medians over ``--runs`` fresh processes; the load
average is printed, since other processes on the machine slow every figure, and the
first result's CPU time (trace to first answer) is given beside its wall time.
``--default-only`` skips the ``wait=True`` rows.

The fresh processes compile symgrad's sources unless .pyc files exist (this machine
sets PYTHONDONTWRITEBYTECODE=1; a pip-installed package has them): for the figures
with .pyc, run ``env -u PYTHONDONTWRITEBYTECODE python -m benchmarks.first_result``
twice and take the second run (Python reads .pyc files whatever that variable says:
delete symgrad's and benchmarks' ``__pycache__`` directories before measuring without).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from .procs import ROOT, fresh_env
from .workloads import all_workloads

PHASES = ["trace", "gradients", "compile", "first call", "first result", "machine code",
          "first result CPU"]


def child(name, wait):
    import numpy as np  # noqa: F401
    import sympy  # noqa: F401
    from numba import njit

    import symgrad as sg
    from .workloads import get, symgrad_loss
    sg.gradients, sg.compile  # noqa: B018  (the lazily imported API: import time, not build)
    njit(lambda v: v + 1.0)(1.0)
    w = get(name)
    point, clock, cpu = w.sample(), time.perf_counter, time.process_time
    c0 = cpu()   # CPU time: less sensitive than wall time to other processes' load
    t0 = clock()
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(w.n,), name="x")
        loss = symgrad_loss(w, sg, x)
        t1 = clock()
        (grad,) = sg.gradients(loss, x)
        t2 = clock()
        f = sg.compile([loss, grad], [x], wait=True if wait else None)
        t3 = clock()
        f(point)
        t4, c4 = clock(), cpu()
        f.wait()
        f(point)
        t5 = clock()
    print(json.dumps(dict(zip(PHASES, [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
                                       t5 - t0, c4 - c0]))))


def measure(name, wait, runs):
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="symgrad-first-") as tmp:
            env = fresh_env(tmp)
            env.pop("SYMGRAD_WAIT", None)
            out = subprocess.run([sys.executable, "-m", "benchmarks.first_result", "--child",
                                  name, str(int(wait))], cwd=ROOT, env=env, capture_output=True,
                                 text=True, timeout=600)
            if out.returncode:
                raise RuntimeError(out.stderr.strip().splitlines()[-1])
            samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {p: statistics.median(s[p] for s in samples) for p in PHASES}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.first_result",
                                description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="*", help="default: every workload")
    p.add_argument("--runs", type=int, default=3, help="fresh processes per figure")
    p.add_argument("--default-only", action="store_true",
                   help="skip the wait=True rows (the builds take most of the run)")
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    if opts.child:
        return child(opts.child[0], opts.child[1] == "1")
    names = opts.workloads or [w.name for w in all_workloads()]
    print(f"load average at start: {os.getloadavg()}")
    print("| workload | compile | " + " | ".join(f"{p} ms" for p in PHASES) + " |")
    print("|---|---|" + "---|" * len(PHASES))
    for name in names:
        for wait in (False,) if opts.default_only else (False, True):
            m = measure(name, wait, opts.runs)
            print(f"| {name} | {'wait=True' if wait else 'default'} | "
                  + " | ".join(f"{1e3 * m[p]:.1f}" for p in PHASES) + " |", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
