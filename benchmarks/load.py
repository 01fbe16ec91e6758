"""``python -m benchmarks.load [--workloads rosen2 mlp chain200] [--runs 5]``: the
new-process figures of issue 15 alone, in a minute or two.

Per workload: one cold build in a fresh process (which saves the evaluator, see
``child.cold``), then ``--runs`` rounds of three fresh processes, each timed from
its start to the first result: the trivial cached ``@njit`` baseline (Numba's own
start-up), ``sg.load`` of the saved file, and re-tracing + compiling from the warm
cache.  Prints medians and the load average.
"""
from __future__ import annotations

import argparse
import tempfile

import numpy as np

from .procs import fresh_env, run_child
from .run import baseline_env, load_average
from .workloads import get


def measure(name, runs, tmp, base_env):
    env = fresh_env(tmp)
    cold = run_child(["cold", name, "symgrad"], env, build_limit=120.0)
    if "error" in cold:
        return {"error": cold["error"]}
    rows = {"baseline": [], "load": [], "cached": []}
    sympy = False
    for _ in range(runs):
        for mode in rows:
            out = run_child([mode] if mode == "baseline" else [mode, name, "symgrad"],
                            base_env if mode == "baseline" else env)
            if "error" in out:
                return {"error": f"{mode}: {out['error']}"}
            rows[mode].append(out["first_result"])
            sympy |= bool(out.get("sympy"))
    base = np.array(rows["baseline"])
    return {"baseline": float(np.median(base)),
            "load": float(np.median(np.array(rows["load"]) - base)),
            "cached": float(np.median(np.array(rows["cached"]) - base)), "sympy": sympy}


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__)
    p.add_argument("--workloads", nargs="*", default=["rosen2", "mlp", "chain200"])
    p.add_argument("--runs", type=int, default=5)
    opts = p.parse_args(argv)
    start = load_average()
    print("| workload | baseline s (trivial cached @njit) | sg.load +s (≤0.15) | "
          "re-trace+compile, cached +s | SymPy imported by sg.load |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="symgrad-load-") as tmp:
        base_env = baseline_env(tmp)
        for name in opts.workloads:
            get(name)   # unknown names fail here
            r = measure(name, opts.runs, tmp, base_env)
            if "error" in r:
                print(f"| {name} | {r['error']} | | | |", flush=True)
                continue
            print(f"| {name} | {r['baseline']:.3f} | {r['load']:+.3f} "
                  f"{'ok' if r['load'] <= 0.15 else 'MISS'} | {r['cached']:+.3f} | "
                  f"{'yes' if r['sympy'] else 'no'} |", flush=True)
    print(f"\nload average at start {start}, at end {load_average()}; medians of "
          f"{opts.runs} rounds")


if __name__ == "__main__":
    main()
