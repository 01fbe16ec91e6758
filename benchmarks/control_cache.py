"""Compiling control flow in new processes, cold and over the disk cache.

``python -m benchmarks.control_cache [--runs 3]`` prints one JSON line per case and
kind: the median wall seconds of ``sg.compile(..., wait=True)`` (derivation excluded)
in a fresh process with a fresh cache (``cold``), and in a second process over the
first one's cache (``warm``: kernels and drivers load, nothing compiles).  Cases: a
scan's gradient and its Hessian (3 elements), and the Hessian of a 3-step
``while_loop`` over 8 variables.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from .procs import ROOT, fresh_env

CASES = ["scan_gradient", "scan_hessian", "while_hessian8"]


def child(case):
    import time

    import numpy as np

    import symgrad as sg
    if case.startswith("scan"):
        x = sg.placeholder(shape=(3,), name="x")
        s = sg.scan(lambda acc, e: sg.tanh(acc * e + 0.5), x, initializer=sg.constant(1.0))
        loss = sg.reduce_sum(s ** 2)
        outputs = [loss] + sg.gradients(loss, x)
        if case == "scan_hessian":
            outputs += sg.hessians(loss, x)
        point = np.array([0.4, -0.3, 0.8])
    else:
        x = sg.placeholder(shape=(8,), name="x")
        _, z = sg.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, sg.tanh(z) + 0.1 * x),
                             [0, x])
        outputs = sg.hessians(sg.reduce_sum(z ** 2), x)
        point = np.linspace(-1.0, 1.0, 8)
    t0 = time.perf_counter()
    f = sg.compile(outputs, [x], wait=True)
    seconds = time.perf_counter() - t0
    f(point)
    print(json.dumps({"seconds": seconds}))


def _run(case, env):
    done = subprocess.run([sys.executable, "-m", "benchmarks.control_cache", "--child", case],
                          capture_output=True, text=True, cwd=ROOT, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])["seconds"]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child(args.child)
    for case in CASES:
        cold, warm = [], []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as tmp:
                env = fresh_env(tmp)   # empty caches, shared by the two processes
                cold.append(_run(case, env))
                warm.append(_run(case, env))
        print(json.dumps({"case": case, "cold": round(statistics.median(cold), 2),
                          "warm": round(statistics.median(warm), 2), "runs": args.runs,
                          "load": round(os.getloadavg()[0], 2)}), flush=True)


if __name__ == "__main__":
    main()
