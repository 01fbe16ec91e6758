"""Compile time per generated operation, 1,000 to 100,000 operations.

``python -m benchmarks.compile_scaling [steps ...]`` compiles value + gradient of the
chain f_k = sin(f_{k-1}) f_{k-1} + x_k (about 11 generated operations a step) in a
fresh process per size, with a fresh cache and Numba warmed up, and prints one JSON
line per size: generated operations, lowering and total compile CPU seconds
(``time.process_time``, less disturbed by other processes than wall time), CPU
microseconds per operation and the latency of one call.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

STEPS = (100, 1000, 2500, 5000, 9000)


def measure(steps):
    import symgrad as sg
    from symgrad.lower.program import lower_graph
    with sg.Graph().as_default():  # warm-up: Numba's start-up is not the build
        y = sg.placeholder(shape=(3,), name="y")
        sg.compile(sg.reduce_sum(y * y), [y], cache=False, wait=True)(np.ones(3))
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(steps,), name="x")
        f = x[0]
        for k in range(1, steps):
            f = sg.sin(f) * f + x[k]
        outs = [f] + sg.gradients(f, x)
        t0 = time.process_time()
        lower_graph(outs, [x])
        t1 = time.process_time()
        c = sg.compile(outs, [x], wait=True)
        v = np.random.default_rng(0).uniform(0, 0.1, steps)
        c(v)
        t2 = time.process_time()
        number, total = timeit.Timer(lambda: c.jit(v)).autorange()
        return {"steps": steps, "ops": c.op_count, "lower_cpu_s": round(t1 - t0, 3),
                "compile_cpu_s": round(t2 - t1, 3),
                "us_per_op": round(1e6 * (t2 - t1) / c.op_count, 1),
                "latency_us": round(1e6 * total / number, 2)}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compile_scaling",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("steps", type=int, nargs="*", default=list(STEPS),
                        help=f"chain lengths (default: {' '.join(map(str, STEPS))})")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.child:
        print(json.dumps(measure(args.steps[0])), flush=True)
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for steps in args.steps:
        env = dict(os.environ, SYMGRAD_CACHE_DIR=tempfile.mkdtemp(prefix="sgscale_"))
        env["PYTHONPATH"] = os.pathsep.join([root, env.get("PYTHONPATH", "")])
        out = subprocess.run([sys.executable, "-m", "benchmarks.compile_scaling", "--child",
                              str(steps)], cwd=root, env=env, capture_output=True, text=True)
        print(out.stdout.strip() or out.stderr.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
