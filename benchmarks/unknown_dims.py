"""One compiled evaluator for every size: ``python -m benchmarks.unknown_dims [--quick]``.

Logistic regression, loss and gradient, X: (N, D) with D = 20, timed three ways at
each N (medians of interleaved rounds, one process):

- ``sized``: ONE build of the graph with ``X: (None, 20)``, ``y: (None,)``; every N
  uses it (the number of Numba overloads is printed: 1 means no recompilation);
- ``fixed``: today's kernel, compiled for exactly (N, 20) (one build per N);
- ``numpy``: the hand-written vectorised numpy formula.

Prints one JSON line per N and a markdown table.  Build times are printed too.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np

D = 20


def _graph(sg, n):
    with sg.Graph().as_default():
        X = sg.placeholder(shape=(n, D), name="X")
        y = sg.placeholder(shape=(n,), name="y")
        w = sg.placeholder(shape=(D,), name="w")
        p = sg.sigmoid(X @ w)
        loss = -sg.reduce_mean(y * sg.log(p) + (1 - y) * sg.log(1 - p))
        return [loss] + sg.gradients(loss, w), [X, y, w]


def _numpy(X, y, w):
    z = X @ w
    p = 1 / (1 + np.exp(-z))
    loss = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
    return loss, X.T @ (p - y) / len(y)


def _build(sg, n, directory):
    t0 = time.perf_counter()
    outputs, inputs = _graph(sg, n)
    f = sg.compile(outputs, inputs, cache=False, wait=True)
    return f, time.perf_counter() - t0


def _median_times(fns, args, rounds):
    times = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn(*args)
            times[name].append(time.perf_counter() - t0)
    return {name: float(np.median(t)) for name, t in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.unknown_dims")
    parser.add_argument("--quick", action="store_true", help="N up to 10^5 only")
    args = parser.parse_args(argv)
    import symgrad as sg
    sizes = [7, 1000, 200_000] + ([] if args.quick else [1_000_000])
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as directory:
        sized, sized_build = _build(sg, None, directory)
        rows = []
        for n in sizes:
            X, y = rng.standard_normal((n, D)), (rng.random(n) > 0.5).astype(float)
            w = rng.standard_normal(D) * 0.1
            fixed, fixed_build = _build(sg, n, directory)
            for got in (sized(X, y, w), fixed(X, y, w)):
                ref = _numpy(X, y, w)
                assert np.allclose(got[0], ref[0]) and np.allclose(got[1], ref[1])
            rounds = 30 if n <= 200_000 else 15
            t = _median_times({"sized": sized, "fixed": fixed, "numpy": _numpy}, (X, y, w),
                              rounds)
            rows.append({"N": n, "sized_s": t["sized"], "fixed_s": t["fixed"],
                         "numpy_s": t["numpy"], "fixed_build_s": fixed_build,
                         "sized_overloads": len(sized.jit.kernel.overloads)})
            print(json.dumps(rows[-1]))
    print(f"\nsized build (once, serves every N): {sized_build:.2f} s\n")
    print("| N | sized (one build) | fixed-shape kernel | numpy | sized/fixed | "
          "fixed build |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['N']:,} | {r['sized_s'] * 1e3:.3f} ms | {r['fixed_s'] * 1e3:.3f} ms | "
              f"{r['numpy_s'] * 1e3:.3f} ms | {r['sized_s'] / r['fixed_s']:.2f} | "
              f"{r['fixed_build_s']:.2f} s |")
    print(f"\nNumba overloads of the sized kernel after every N: {rows[-1]['sized_overloads']}")


if __name__ == "__main__":
    main()
