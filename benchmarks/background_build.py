"""The background build while the caller works: ``python -m benchmarks.background_build``.

``sg.compile`` answers from numpy at once and builds the machine code in a thread
of the same process.  Numba holds the GIL for much of a build, so a caller that
keeps the interpreter busy meanwhile shares it.  For each workload, in fresh
processes with empty caches (imports and Numba's warm-up paid first), the seconds
from ``sg.compile`` until the machine code is in:

- ``wait=True``: built before ``compile`` returns (the reference);
- ``idle caller``: ``f.wait()`` right after the first call;
- ``busy caller``: the caller runs pure-Python work until ``f.ready``; the column
  ``caller speed`` is its work rate meanwhile, relative to the same work alone;
- ``numpy caller``: the caller runs large numpy operations (they release the GIL);
- ``new process``: what a separate build process would need instead: start
  Python, import numpy, Numba and symgrad's runtime, and compile the saved
  module into an empty cache (``sg.load``), i.e. the subprocess option, before the
  main process loads the result from the cache.

Medians over ``--runs`` fresh processes; the load average is printed.
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

MODES = ["wait=True", "idle caller", "busy caller", "numpy caller"]


def _python_work(seconds):
    """Pure-Python work for ``seconds``; returns how many units were done."""
    units, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        sum(i * i for i in range(200))
        units += 1
    return units


def child(name, mode, save_to):
    import numpy as np
    from numba import njit

    import symgrad as sg
    from .workloads import get, symgrad_loss
    sg.gradients, sg.compile  # noqa: B018  (the lazily imported API)
    njit(lambda v: v + 1.0)(1.0)
    rate = _python_work(0.3) / 0.3   # the caller's work rate alone
    w = get(name)
    point = w.sample()
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(w.n,), name="x")
        loss = symgrad_loss(w, sg, x)
        (grad,) = sg.gradients(loss, x)
        t0 = time.perf_counter()
        f = sg.compile([loss, grad], [x], wait=mode == "wait=True")
        f(point)
        busy = None
        if mode == "busy caller":
            units, t1 = 0, time.perf_counter()
            while not f.ready:
                units += _python_work(0.01)
            busy = units / (time.perf_counter() - t1) / rate
        elif mode == "numpy caller":
            a = np.random.default_rng(0).normal(size=(400, 400))
            while not f.ready:
                a = np.tanh(a @ a.T * 1e-3)
        f.wait()
        built = time.perf_counter() - t0
        if save_to:
            f.save(save_to)
    print(json.dumps({"seconds": built, "caller speed": busy}))


def _load_child(path):
    """Start, import and compile the saved module into the (empty) cache: a build process."""
    import symgrad as sg
    f = sg.load(path)
    f.jit  # noqa: B018


def _fresh(args, env):
    out = subprocess.run([sys.executable, "-m", "benchmarks.background_build", *args],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1])
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(name, runs):
    rows = {m: [] for m in MODES + ["new process"]}
    speed = []
    for _ in range(runs):
        for mode in MODES:
            with tempfile.TemporaryDirectory(prefix="symgrad-bg-") as tmp:
                env = fresh_env(tmp)
                env.pop("SYMGRAD_WAIT", None)
                save = os.path.join(tmp, "f.sg") if mode == "wait=True" else ""
                got = _fresh(["--child", name, mode, save], env)
                rows[mode].append(got["seconds"])
                if got["caller speed"] is not None:
                    speed.append(got["caller speed"])
                if save:   # the subprocess option: a new process compiles it, cold cache
                    env = fresh_env(tmp)
                    t0 = time.perf_counter()
                    subprocess.run([sys.executable, "-c", "import sys; from benchmarks."
                                    "background_build import _load_child as c; c(sys.argv[1])",
                                    save], cwd=ROOT, env=env, check=True, timeout=900)
                    rows["new process"].append(time.perf_counter() - t0)
    return {m: statistics.median(v) for m, v in rows.items()}, statistics.median(speed)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.background_build",
                                description=__doc__.split("\n")[0])
    p.add_argument("workloads", nargs="*", default=["rosen10", "mlp", "chain50"])
    p.add_argument("--runs", type=int, default=3, help="fresh processes per figure")
    p.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    opts = p.parse_args(argv)
    if opts.child:
        return child(*opts.child)
    print(f"load average at start: {os.getloadavg()}")
    print("| workload | " + " | ".join(f"{m} s" for m in MODES + ["new process"])
          + " | caller speed while building |")
    print("|---|" + "---|" * (len(MODES) + 2))
    for name in opts.workloads:
        m, speed = measure(name, opts.runs)
        print(f"| {name} | " + " | ".join(f"{m[k]:.2f}" for k in MODES + ["new process"])
              + f" | {speed:.2f} |", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
