"""The benchmark command: ``python -m benchmarks.run [--quick]`` from the repository root.

Measures symgrad and its peers side by side in one run, every (workload, tool)
in a fresh process with fresh cache dirs, and prints two tables (per tool; symgrad
against the issue's targets) plus the core's scaling, to stdout and to
``benchmarks/RESULTS.md``.  Figures are medians.

- cold build: derive + compile + first call, Numba/jax start-up paid beforehand
  (symgrad: until the machine code answers).
- first result (symgrad): derive + ``sg.compile`` (the default: it returns at once,
  numpy answers until the machine code is in) + the first call, in the same process
  and run as the cold build.
- cached load: a new process builds the same function again from the warm cache
  and returns the first result; the figure is the median over pairs of that time
  minus the same for a trivial ``@njit(cache=True)`` function (Numba's own
  start-up) run just before it.  ``sg.load``: the same for a new process loading
  the evaluator the cold build saved (``f.save``) instead of re-tracing it.  sympy and jax have no cross-process cache of the
  derived function here ("—").
- latency: one call with a numpy array in, (value, gradient array) out.  Latency
  and throughput of all tools that built are measured in ONE process, interleaved
  round by round (timing.py), so the ratios share the machine's load; jax alone
  runs in a second process (its runtime threads slowed the others' batches).
- batch: points per second on 1e5 points (symgrad: ``f.batched``, serial and
  ``parallel=True``; hand: an @njit loop and a ``prange`` loop; sympy: the
  vectorised numpy lambdify or an @njit loop; jax: ``jit(vmap(value_and_grad))``),
  every tool allocating new output arrays on each call (``benchmarks.call_path``
  also measures outputs reused across calls: ``f.batched(..., out=)`` against the
  hand loops writing into the same arrays).  Steady state: each batch function
  first runs three times at the timed size (timing.interleaved_throughput).
- ops: scalar operations of value+gradient code over the value's (see opcount.py).
- check: each tool's value and gradient at a sample point against symgrad's
  reference evaluator (max abs difference relative to the gradient's size).

``--quick`` runs a subset (rosen2, chain50, mlp) with a 5 s build limit and
fewer repeats, in under ~2 minutes.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from . import report
from .procs import ROOT, fresh_env, run_child
from .tools import CACHED, SAVED, TOOLS, jax_available
from .workloads import all_workloads, get

QUICK_WORKLOADS = ["rosen2", "chain50", "mlp"]


def parse(argv):
    p = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a subset in under ~2 minutes")
    p.add_argument("--workloads", nargs="*", help="names, e.g. rosen2 chain50")
    p.add_argument("--tools", nargs="*", choices=TOOLS, help="default: all available")
    p.add_argument("--limit", type=float, help="build time limit per tool in s (40; quick 5)")
    p.add_argument("--points", type=int, default=100_000, help="batch size for throughput")
    p.add_argument("--output", default=str(ROOT / "benchmarks" / "RESULTS.md"),
                   help="markdown file to write ('' to skip)")
    return p.parse_args(argv)


def reference(workload):
    """Value and gradient by symgrad's reference evaluator (the oracle)."""
    import symgrad as sg
    from .workloads import symgrad_loss
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(workload.n,), name="x")
        loss = symgrad_loss(workload, sg, x)
        value, grad = sg.evaluate([loss, sg.gradients(loss, x)[0]], {x: workload.sample()})
    return float(value), np.asarray(grad)


def check(result, expected):
    value, grad = expected
    scale = max(1.0, abs(value), float(np.abs(grad).max()))
    err = max(abs(result["value"] - value), float(np.abs(np.array(result["grad"]) - grad).max()))
    worst_batch = max(result.get("batch_error", {}).values(), default=0.0)
    ok = err / scale < 1e-8 and worst_batch / scale < 1e-8
    return f"{'ok' if ok else 'WRONG'} ({max(err, worst_batch) / scale:.0e})"


def baseline_env(tmp):
    """An environment whose trivial cached @njit function is already compiled."""
    env = fresh_env(tmp)
    run_child(["baseline"], env)
    return env


def cached_over_baseline(workload, tool, env, base_env, runs, mode="cached"):
    """Median over ``runs`` of (cached first result - trivial baseline), run in pairs
    (``mode`` "load": ``sg.load`` of the saved file instead of building again)."""
    diffs, raws = [], []
    for _ in range(runs):
        base = run_child(["baseline"], base_env)
        load = run_child([mode, workload.name, tool], env)
        if "error" in load or "error" in base:
            continue
        diffs.append(load["first_result"] - base["first_result"])
        raws.append((load["first_result"], base["first_result"], load.get("sympy")))
    return (float(np.median(diffs)) if diffs else None), raws


def measure_cold(workload, tool, opts, tmp, base_env):
    """Cold build (fresh caches) in its own process, then the cached load in new ones."""
    env = fresh_env(tmp)
    result = run_child(["cold", workload.name, tool], env, build_limit=opts.limit)
    if "error" in result:
        return result
    result["check"] = check(result, reference(workload))
    if tool in CACHED:
        result["cached"], result["cached_pairs"] = cached_over_baseline(
            workload, tool, env, base_env, opts.cached_runs)
    if tool in SAVED:
        result["loaded"], pairs = cached_over_baseline(workload, tool, env, base_env,
                                                       opts.cached_runs, mode="load")
        result["loaded_sympy"] = any(p[2] for p in pairs)
    return result


def measure_side(workload, built, opts, tmp):
    """Latency and throughput of the tools that built, interleaved in one process.

    jax gets a process of its own: its runtime threads keep spinning after a call
    and slowed the other tools' batches 3x when they shared a process.
    """
    results = {}
    for group in ([t for t in built if t != "jax"], [t for t in built if t == "jax"]):
        if not group:
            continue
        out = run_child(["side", workload.name, ",".join(group), str(opts.points),
                         str(opts.repeats)], fresh_env(tmp))
        for tool in group:
            results[tool] = {"side_error": out["error"]} if "error" in out else out[tool]
    return results


def measure(workload, tools, opts, tmp, base_env):
    results = {}
    for tool in tools:
        results[tool] = r = measure_cold(workload, tool, opts, tmp, base_env)
        cached = "" if r.get("cached") is None else f", cached +{r['cached']:.3f} s"
        cached += "" if r.get("loaded") is None else f", sg.load +{r['loaded']:.3f} s"
        print(f"{workload.name:10s} {tool:11s} " + (
            r.get("error") or f"build {r['build']:.3f} s{cached}, {r['check']}"), flush=True)
    built = [t for t in tools if "error" not in results[t]]
    for tool, figures in measure_side(workload, built, opts, tmp).items():
        results[tool].update(figures)
        if "latency" in figures:
            print(f"{workload.name:10s} {tool:11s} latency {figures['latency'] * 1e6:.2f} µs, "
                  f"batch {max(figures['throughput'].values()):.3g} points/s", flush=True)
    return results


def scaling():
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "benchmarks.scaling"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=600)
    if out.returncode:
        return [{"nodes": "?", "steps": "?", "trace": None, "gradients": None,
                 "gradient_nodes": "?", "error": out.stderr.strip().splitlines()[-1]}]
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def machine():
    import numba
    import sympy
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os
    versions = (f"python {platform.python_version()}, numpy {np.__version__}, "
                f"numba {numba.__version__}, sympy {sympy.__version__}")
    if jax_available():
        import jax
        versions += f", jax {jax.__version__}"
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}; {versions}"


def load_average():
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def render(opts, command, results, workloads, base, scale, loads):
    lines = ["# symgrad benchmarks", "",
             f"Command: `{command}`  ",
             f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC  ",
             f"Machine: {machine()}  ",
             f"Load average (1/5/15 min) at start: {loads[0]}, at end: {loads[1]} "
             "(other processes on the machine make every figure noisier; the ratios are "
             "measured side by side)  ",
             f"Build limit per tool: {opts.limit:g} s; batch: {opts.points} points, new "
             "output arrays on every call for every tool (outputs reused: "
             "`python -m benchmarks.call_path`); "
             f"baseline (trivial cached @njit, first call in a fresh process): {base:.3f} s", "",
             "## symgrad against the targets", "",
             report.markdown(report.TARGET_HEADER, report.target_rows(results, workloads)), "",
             "## Every tool", "",
             report.markdown(report.TOOL_HEADER, report.tool_rows(results)), "",
             "## Core scaling: trace + gradients of a chain", "",
             report.markdown(report.SCALING_HEADER, report.scaling_rows(scale)), ""]
    notes = sorted({r.get("note") for r in results.values() if r.get("note")})
    if notes:
        lines += ["Notes: " + "; ".join(notes), ""]
    return "\n".join(lines)


def main(argv=None):
    opts = parse(sys.argv[1:] if argv is None else argv)
    opts.limit = opts.limit or (5.0 if opts.quick else 40.0)
    opts.repeats = 5 if opts.quick else 9
    opts.cached_runs = 1 if opts.quick else 3
    names = opts.workloads or (QUICK_WORKLOADS if opts.quick else [w.name for w in all_workloads()])
    tools = [t for t in (opts.tools or TOOLS) if t != "jax" or jax_available()]
    command = "python -m benchmarks.run " + " ".join(sys.argv[1:] if argv is None else argv)
    results, start_load = {}, load_average()
    with tempfile.TemporaryDirectory(prefix="symgrad-bench-") as tmp:
        base_env = baseline_env(tmp)
        for name in names:
            for tool, r in measure(get(name), tools, opts, tmp, base_env).items():
                results[(name, tool)] = r
    scale = scaling()
    bases = [p[1] for r in results.values() for p in r.get("cached_pairs", [])]
    base = float(np.median(bases)) if bases else float("nan")
    text = render(opts, command.strip(), results, names, base, scale,
                  (start_load, load_average()))
    print()
    print(text)
    if opts.output:
        Path(opts.output).write_text(text)
    return results


if __name__ == "__main__":
    main()
