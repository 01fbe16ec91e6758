"""One measurement in a fresh process: ``python -m benchmarks.child MODE WORKLOAD TOOL``.

Modes:
- ``cold``: warm Numba (and jax) up on a trivial function, print ``READY``; build
  (derive + compile + first call; symgrad: until the machine code answers, its first
  result by the default ``sg.compile`` is recorded on the way) and print
  ``BUILT <seconds>``; then check the
  batched functions against single calls, count operations and print
  ``RESULT <json>``.  The parent kills the process if ``BUILT`` comes too late.
- ``side``: build several tools (the ones that built in time) in one process and
  measure their per-call latency and batch throughput interleaved (timing.py).
- ``cached``: time from the start of this process (before importing numpy) to the
  first result of building the same function again (the caches are warm).
- ``load``: the same for ``sg.load`` of the file ``cold`` saved (no re-tracing); also
  says whether SymPy was imported (it must not be).
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

    import symgrad
    symgrad.gradients, symgrad.compile  # noqa: B018  (the lazily imported API: import time)
    njit(lambda v: v + 1.0)(1.0)
    if tool == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.jit(lambda v: v + 1.0)(np.ones(2))


def check_batch(batch, built, X):
    """Largest difference between the batched results and per-point calls (3 points)."""
    values, grads = batch(X[:3])
    worst = 0.0
    for i in range(3):
        v, g = built.call(X[i])
        worst = max(worst, abs(float(values[i]) - float(v)),
                    float(np.max(np.abs(np.asarray(grads[i]) - np.asarray(g)))))
    return worst


def cold(workload, tool):
    from . import tools
    warm_up(tool)
    emit("READY")
    t0 = time.perf_counter()
    built = tools.BUILDERS[tool](workload)
    emit("BUILT", f"{time.perf_counter() - t0:.6f}")
    if built.save is not None:
        built.save(saved_path())
    value, grad = built.call(workload.sample())
    X = workload.points(8, seed=3)
    result = {"derive": built.derive_seconds, "first": built.first_seconds,
              "value": float(value),
              "grad": np.asarray(grad, float).tolist(), "ops": built.ops, "note": built.note,
              "batch_error": {label: check_batch(batch, built, X)
                              for label, batch in built.batches.items()}}
    emit("RESULT", json.dumps(result))


def side(workload, names, points, repeats):
    """Latency and throughput of several tools, interleaved in this one process."""
    from . import tools
    from .timing import interleaved_latency, interleaved_throughput
    if "jax" in names:
        warm_up("jax")
    built = {name: tools.BUILDERS[name](workload) for name in names}
    latency = interleaved_latency({n: b.call for n, b in built.items()}, workload.sample(),
                                  repeats)
    batches = {(n, label): fn for n, b in built.items() for label, fn in b.batches.items()}
    threaded = [key for key in batches if key[1] == "parallel"]
    rates = interleaved_throughput(batches, workload.points(points, seed=3),
                                   max(5, repeats // 2), threaded=threaded)
    out = {n: {"latency": latency[n], "throughput": {}, "points": {}} for n in names}
    for (n, label), (rate, used) in rates.items():
        out[n]["throughput"][label], out[n]["points"][label] = rate, used
    emit("RESULT", json.dumps(out))


def cached(workload, tool):
    from . import tools
    built = tools.BUILDERS[tool](workload)      # ends with the first call
    emit("RESULT", json.dumps({"first_result": time.perf_counter() - T_START,
                               "note": built.note}))


def saved_path():
    """Where ``cold`` saves the evaluator: beside this run's cache dirs."""
    import os
    return os.path.join(os.path.dirname(os.environ["SYMGRAD_CACHE_DIR"]), "saved.sg")


def load(workload):
    import symgrad as sg
    f = sg.load(saved_path())
    f(workload.sample())
    emit("RESULT", json.dumps({"first_result": time.perf_counter() - T_START,
                               "sympy": "sympy" in sys.modules}))


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
    if mode == "load":
        return load(workload)
    if mode == "side":
        return side(workload, tool.split(","), int(argv[3]), int(argv[4]))
    return cold(workload, tool)


if __name__ == "__main__":
    main(sys.argv[1:])
