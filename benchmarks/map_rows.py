"""``tf.map_fn`` over the rows of a batch, with its gradient: the while loop against fn's
batched body (``symgrad.control.vectorize``), in a TF1 session.

``python -m benchmarks.map_rows [n ...] [--repeat 5] [--loop-max 10000] [--hessian 100 1000]``
prints one JSON line per (rows, placeholder shape, form):

- the program: a one-hidden-layer network applied to each row of X (d = 8 inputs,
  16 hidden units), ``rows = tf.map_fn(lambda r: ..., X)``, the loss their sum and
  the gradients with respect to its three variables; X is ``[n, 8]`` ("known") or
  ``[None, 8]`` ("None");
- ``build``: seconds to build map_fn and ``tf.gradients``; ``first``: the first
  ``sess.run([rows, grads])`` (plans built); ``run``: the median of ``--repeat``
  further runs (fewer for the loop when one run takes seconds: ``runs`` says how many);
- ``check``: the largest difference from the loop's results, relative to the largest
  entry of each result, where the loop ran.

Then, for the ``--hessian`` sizes (X known), one line per form for the Hessian of the
loss with respect to the hidden biases (16 x 16): ``build`` (``tf.hessians``),
``first`` and ``run`` as above, and for the smallest size ``compile``: ``sg.compile``
of the Hessian until its machine code is in (a fresh cache directory, Numba warmed up,
the batched form compiled first so that it meets no code the loop's build made).

Both forms are ``symgrad.control.api.map_fn`` (``vectorize=False`` for the loop); TF1's
``tf.map_fn`` is the batched one whenever fn's body allows.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

D, HIDDEN = 8, 16
BUDGET = 30.0   # seconds of timed runs per measurement at most (the loop at 10,000 rows)


def network(tf, X, vectorize):
    """(rows, loss, variables) of the per-row network over X."""
    from symgrad.control import api
    rng = np.random.default_rng(0)
    W1 = tf.Variable(rng.normal(size=(D, HIDDEN)) / np.sqrt(D), name="W1")
    b1 = tf.Variable(rng.normal(size=HIDDEN) * 0.1, name="b1")
    w2 = tf.Variable(rng.normal(size=HIDDEN) / 4, name="w2")

    def fn(r):
        h = tf.tanh(tf.matmul(tf.reshape(r, [1, D]), W1)[0] + b1)
        return tf.reduce_sum(h * w2) ** 2
    rows = api.map_fn(fn, X, vectorize=vectorize)
    return rows, tf.reduce_sum(rows), [W1, b1, w2]


def timed_runs(run, first, repeat):
    """(median seconds, runs) of up to ``repeat`` calls of ``run()`` within the budget."""
    count = max(1, min(repeat, int(BUDGET / max(first, 1e-9))))
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), count


def session_row(n, shape, vectorize, data, repeat):
    """One measurement of the gradient: a dict, and the fetched values."""
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float64, [n if shape == "known" else None, D])
        t0 = time.perf_counter()
        rows, loss, variables = network(tf, X, vectorize)
        grads = tf.gradients(loss, variables)
        build = time.perf_counter() - t0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            t0 = time.perf_counter()
            values = sess.run([rows] + grads, {X: data})
            first = time.perf_counter() - t0
            run, count = timed_runs(lambda: sess.run([rows] + grads, {X: data}), first,
                                    repeat)
    return {"rows": n, "X": shape, "form": "batched" if vectorize else "loop",
            "build": build, "first": first, "run": run, "runs": count}, values


def hessian_row(n, vectorize, data, compile_too, repeat):
    import symgrad as sg
    import symgrad.compat.v1 as tf
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float64, [n, D])
        rows, loss, (_, b1, _) = network(tf, X, vectorize)
        t0 = time.perf_counter()
        (h,) = tf.hessians(loss, b1)
        build = time.perf_counter() - t0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            t0 = time.perf_counter()
            value = sess.run(h, {X: data})
            first = time.perf_counter() - t0
            run, count = timed_runs(lambda: sess.run(h, {X: data}), first, repeat)
        row = {"rows": n, "hessian": "16x16", "form": "batched" if vectorize else "loop",
               "build": build, "first": first, "run": run, "runs": count}
        if compile_too:
            t0 = time.perf_counter()
            f = sg.compile([h], [X], wait=True)
            row["compile"] = time.perf_counter() - t0
            row["compiled_check"] = relative(f(data)[0], value)
    return row, value


def relative(got, want):
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-300))


def emit(row):
    print(json.dumps({k: float(f"{v:.3g}") if isinstance(v, float) else v
                      for k, v in row.items()}), flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sizes", nargs="*", type=int, default=[100, 1000, 10000])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--loop-max", type=int, default=10000,
                   help="run the loop only up to this many rows (it is O(n^2))")
    p.add_argument("--hessian", type=int, nargs="*", default=[100, 1000])
    args = p.parse_args(argv)
    # sg.compile's first build is timed: a cache of this run only, Numba warmed up
    os.environ["SYMGRAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="symgrad-maprows-")
    from numba import njit
    njit(lambda v: v + 1.0)(1.0)
    rng = np.random.default_rng(1)
    for n in args.sizes:
        data = rng.normal(size=(n, D))
        for shape in ("known", "None"):
            loop = None
            if n <= args.loop_max:
                row, loop = session_row(n, shape, False, data, args.repeat)
                emit(row)
            row, values = session_row(n, shape, True, data, args.repeat)
            if loop is not None:
                row["check"] = max(relative(a, b) for a, b in zip(values, loop))
            emit(row)
    for k, n in enumerate(args.hessian):
        data = rng.normal(size=(n, D))
        # (the batched form first: neither compile meets code the other built)
        found = [hessian_row(n, vectorize, data, k == 0, args.repeat)
                 for vectorize in (True, False)]
        found[0][0]["check"] = relative(found[0][1], found[1][1])
        for row, _ in found[::-1]:
            emit(row)


if __name__ == "__main__":
    main()
