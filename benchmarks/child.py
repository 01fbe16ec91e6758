"""One measurement in a fresh process: ``python -m benchmarks.child MODE WORKLOAD TOOL``.

Modes:
- ``cold``: warm Numba (and jax) up on a trivial function, print ``READY``; build
  (derive + compile + first call) and print ``BUILT <seconds>``; then measure the
  per-call latency, the batched throughput and the operation counts, and print
  ``RESULT <json>``.  The parent kills the process if ``BUILT`` comes too late.
- ``cached``: time from the start of this process (before importing numpy) to the
  first result of building the same function again (the caches are warm).
- ``baseline``: the same for a trivial ``@njit(cache=True)`` function.

The parent sets ``SYMGRAD_CACHE_DIR`` and ``NUMBA_CACHE_DIR``.
"""
import time

T_START = time.perf_counter()

import json  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402


def emit(tag, payload=""):
    print(tag, payload, flush=True)


def warm_up(tool):
    """Pay Numba's (and jax's) one-off start-up outside every tool's build time."""
    import sympy  # noqa: F401  (imports are not part of any tool's build)
    from numba import njit

    import symgrad  # noqa: F401
    njit(lambda v: v + 1.0)(1.0)
    if tool == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.jit(lambda v: v + 1.0)(np.ones(2))


def per_call_seconds(call, x, repeats):
    """Median over ``repeats`` batches of the mean time of one call."""
    loops, elapsed = 1, 0.0
    while elapsed < 0.02 and loops < 1 << 20:
        loops *= 2
        t0 = time.perf_counter()
        for _ in range(loops):
            call(x)
        elapsed = time.perf_counter() - t0
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            call(x)
        samples.append((time.perf_counter() - t0) / loops)
    return float(np.median(samples))


def throughput(batch, X, repeats, budget=20.0):
    """Points per second of ``batch`` on X (median of ``repeats``; fewer points if slow)."""
    batch(X[:1000])                   # compiles lazily built batch code, starts threads
    t0 = time.perf_counter()
    batch(X[:1000])
    per_point = (time.perf_counter() - t0) / 1000
    points = int(min(len(X), max(256, budget / max(repeats, 1) / max(per_point, 1e-12))))
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        batch(X[:points])
        samples.append(time.perf_counter() - t0)
    return points / float(np.median(samples)), points


def check_batch(batch, built, X):
    """Largest difference between the batched results and per-point calls (3 points)."""
    values, grads = batch(X[:3])
    worst = 0.0
    for i in range(3):
        v, g = built.call(X[i])
        worst = max(worst, abs(float(values[i]) - float(v)),
                    float(np.max(np.abs(np.asarray(grads[i]) - np.asarray(g)))))
    return worst


def cold(workload, tool, points, repeats):
    from . import tools
    warm_up(tool)
    emit("READY")
    t0 = time.perf_counter()
    built = tools.BUILDERS[tool](workload)
    emit("BUILT", f"{time.perf_counter() - t0:.6f}")
    x = workload.sample()
    value, grad = built.call(x)
    result = {"derive": built.derive_seconds,
              "value": float(value), "grad": np.asarray(grad, float).tolist(),
              "latency": per_call_seconds(built.call, x, repeats), "ops": built.ops,
              "note": built.note, "throughput": {}, "points": {}, "batch_error": {}}
    X = workload.points(points, seed=3)
    for label, batch in built.batches.items():
        rate, used = throughput(batch, X, max(3, repeats // 3))
        result["throughput"][label], result["points"][label] = rate, used
        result["batch_error"][label] = check_batch(batch, built, X)
    emit("RESULT", json.dumps(result))


def cached(workload, tool):
    from . import tools
    built = tools.BUILDERS[tool](workload)      # ends with the first call
    emit("RESULT", json.dumps({"first_result": time.perf_counter() - T_START,
                               "note": built.note}))


def baseline():
    from ._trivial import trivial
    trivial(1.0)
    emit("RESULT", json.dumps({"first_result": time.perf_counter() - T_START}))


def main(argv):
    mode = argv[0]
    if mode == "baseline":
        return baseline()
    from .workloads import get
    workload, tool = get(argv[1]), argv[2]
    if mode == "cached":
        return cached(workload, tool)
    points, repeats = int(argv[3]), int(argv[4])
    return cold(workload, tool, points, repeats)


if __name__ == "__main__":
    main(sys.argv[1:])
