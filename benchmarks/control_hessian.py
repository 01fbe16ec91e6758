"""Value, gradient and Hessian through a ``while_loop``: build time, first result, call.

``python -m benchmarks.control_hessian [n ...] [--runs 3]`` prints one JSON line per
size: for the loss sum(y_T ** 2) after 5 steps of y <- y + 0.1 sin(y x) from y_0 = x
(x of n variables), in a fresh process with fresh caches (Numba warmed up first):

- ``derive``: ``gradients`` + ``hessians``; ``graph``: the nodes the Hessian needs
  (a batched sweep: the same for every n);
- ``first``: ``sg.compile`` (which returns at once) and its first call, answered by
  numpy while the machine code is built;
- ``build``: until the machine code is in (``f.wait()``, or ``wait=True``);
- ``call_us``: one call of the built evaluator (median);
- ``check``: the Hessian against central differences of the compiled gradient.

Medians over ``--runs`` processes.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time

from .procs import ROOT, fresh_env


def child(n):
    import numpy as np
    from numba import njit
    njit(lambda v: v + 1.0)(1.0)
    import symgrad as sg
    from symgrad.graph import ancestors
    from .timing import median_seconds, repeated
    clock = time.perf_counter
    x = sg.placeholder(shape=(n,), name="x")
    _, y = sg.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a + 0.1 * sg.sin(a * x)),
                         [sg.constant(0), x])
    loss = sg.reduce_sum(y * y)
    t0 = clock()
    (g,) = sg.gradients(loss, x)
    (h,) = sg.hessians(loss, x)
    t1 = clock()
    f = sg.compile([loss, g, h], [x])
    point = np.linspace(-1.0, 1.0, n)
    f(point)
    t2 = clock()
    f.wait()
    t3 = clock()
    value, grad, hess = f(point)
    grad_of = sg.compile(g, [x], wait=True)
    fd = np.stack([(grad_of(point + 1e-6 * e) - grad_of(point - 1e-6 * e)) / 2e-6
                   for e in np.eye(n)])
    print(json.dumps({"n": n, "derive": t1 - t0, "graph": len(ancestors([h])),
                      "first": t2 - t1, "build": t3 - t1,
                      "call_us": 1e4 * median_seconds(lambda: repeated(f, point, 100), 7),
                      "check": float(np.abs(fd - hess).max() / np.abs(hess).max())}))


def measure(n, runs):
    samples = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="symgrad-ch-") as tmp:
            out = subprocess.run([sys.executable, "-m", "benchmarks.control_hessian",
                                  "--child", str(n)], cwd=ROOT, env=fresh_env(tmp),
                                 capture_output=True, text=True, timeout=1800)
            if out.returncode:
                raise RuntimeError(out.stderr.strip().splitlines()[-1])
            samples.append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: (statistics.median(s[k] for s in samples) if k != "n" else n)
            for k in samples[0]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sizes", nargs="*", type=int, default=[10, 20, 40])
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(args.sizes[0])
        return
    for n in args.sizes:
        row = measure(n, args.runs)
        print(json.dumps({k: float(f"{v:.3g}") if isinstance(v, float) else v
                          for k, v in row.items()}), flush=True)


if __name__ == "__main__":
    main()
