"""Compiled linear algebra and gathers, side by side with numpy/LAPACK and @njit.

``python -m benchmarks.linalg_ops`` prints, per matrix size n, the median time of
one call of

- symgrad: ``sg.compile([inv(A), det(A)], [A])`` (unrolled Gauss-Jordan in the
  loop IR) and its build time (derive + lower + LLVM compile);
- numpy: ``np.linalg.inv(a), np.linalg.det(a)`` (LAPACK through numpy);
- njit: the same two numpy calls inside one ``@njit`` function (LAPACK via Numba);

and, for an embedding lookup with fed ids (one-hot contraction) against the same
rows gathered at static indices, the compiled call time per vocabulary size.
"""
from __future__ import annotations

import statistics
import time

import numpy as np

import symgrad as sg


def _median_call(fn, *args, repeat=2000, budget=1.0):
    fn(*args)
    times, start = [], time.perf_counter()
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
        if time.perf_counter() - start > budget:
            break
    return statistics.median(times)


def linalg_rows(sizes=(2, 3, 8, 16)):
    from numba import njit

    @njit(cache=False)
    def lapack(a):
        return np.linalg.inv(a), np.linalg.det(a)

    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        a = rng.normal(size=(n, n)) + n * np.eye(n)
        with sg.Graph().as_default():
            A = sg.placeholder(shape=(n, n), name="A")
            t0 = time.perf_counter()
            f = sg.compile([sg.linalg.inv(A), sg.linalg.det(A)], [A], wait=True)
            f(a)
            build = time.perf_counter() - t0
        err = max(np.max(np.abs(f(a)[0] - np.linalg.inv(a))),
                  abs(f(a)[1] - np.linalg.det(a)) / abs(np.linalg.det(a)))
        rows.append((n, build, _median_call(f.jit, a),
                     _median_call(lambda x: (np.linalg.inv(x), np.linalg.det(x)), a),
                     _median_call(lapack, a), err))
    return rows


def gather_rows(vocab=(10, 100, 1000), dim=16, batch=32):
    rows = []
    for v in vocab:
        rng = np.random.default_rng(v)
        table, ids = rng.normal(size=(v, dim)), rng.integers(0, v, size=batch)
        with sg.Graph().as_default():
            T = sg.placeholder(shape=(v, dim), name="T")
            I = sg.placeholder(np.int64, shape=(batch,), name="I")
            fed = sg.reduce_sum(sg.square(sg.nn.embedding_lookup(T, I)))
            f_fed = sg.compile([fed] + sg.gradients(fed, T), [T, I], wait=True)
            fixed = sg.reduce_sum(sg.square(sg.gather(T, ids)))
            f_fix = sg.compile([fixed] + sg.gradients(fixed, T), [T], wait=True)
        rows.append((v, _median_call(f_fed.jit, table, ids), _median_call(f_fix.jit, table)))
    return rows


def main():
    print("| n | symgrad build (s) | symgrad call (µs) | numpy call (µs) | njit LAPACK (µs) "
          "| max error |")
    print("|---|---|---|---|---|---|")
    for n, build, ours, numpy_t, njit_t, err in linalg_rows():
        print(f"| {n} | {build:.2f} | {ours * 1e6:.1f} | {numpy_t * 1e6:.1f} | "
              f"{njit_t * 1e6:.1f} | {err:.1e} |")
    print()
    print("| vocabulary | fed ids (one-hot) call (µs) | static ids call (µs) |")
    print("|---|---|---|")
    for v, fed, fixed in gather_rows():
        print(f"| {v} | {fed * 1e6:.1f} | {fixed * 1e6:.1f} |")


if __name__ == "__main__":
    main()
