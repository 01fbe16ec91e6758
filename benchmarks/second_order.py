"""Second order side by side: value + gradient + Hessian, and Hessian-vector products.

``python -m benchmarks.second_order [--quick] [--workloads ...] [--tools ...]`` prints
one table and writes it to ``benchmarks/SECOND_ORDER.md``.

Builds: every (workload, tool, part) runs in a fresh process with fresh caches;
the tool's runtime is warmed up first (imports, Numba/XLA start-up), so a cold
build is derive + compile + first call, in CPU seconds of the process (waiting
for a core on a loaded machine is not counted; the wall time is in the log on
stderr); ``--repeat N`` runs each N times (alternating [f, g, H] and [f, g]) and
shows the medians.  ``cached``: the same build in a second
process over the first one's disk cache (symgrad only).  The ratio column is
build [f, g, H] / build [f, g] of the same tool.  ``--builds-only`` skips the
latency process.

Latencies: one process per workload builds every tool, checks each Hessian
against symgrad's reference evaluator (``check``: max relative difference), and
times the calls *interleaved* (round 1: every call of every tool, round 2: ...,
``--rounds`` rounds, each a batch calibrated to ~10 ms after warm-up calls), so
load drifting during the run hits every tool alike; figures are medians of the
process's CPU time per call (``time.process_time``: waiting for a core on a
loaded machine is not counted; on an idle one it equals wall time) through each
tool's public call (symgrad's ``fn(v)``, a ``jax.jit`` function with
``block_until_ready``, a CasADi ``Function`` on a numpy array).  XLA runs on
one thread (``XLA_FLAGS``), as every other tool does.
``H``: value + gradient + Hessian; ``HVP``: a Hessian-vector product;
``grad``: value + gradient; ``H alone``: the Hessian by itself (what ``to_scipy``'s
``hess`` calls; symgrad's tools only), ``H alone/grad`` its ratio to ``grad``.

Tools: ``symgrad`` (dense ``hessians``; compiled from compressed seeds when its
pattern colours with at most n/2 colours, e.g. Rosenbrock, or the Hessian after
x's selections with fewer, e.g. Lennard-Jones), ``symgrad-sparse`` (``sparse=True``:
star colouring, CSR result; the unit seeds for dense patterns unless the Hessian
after the selections needs fewer), ``jax`` (``jit`` of value, ``grad``,
``hessian``; HVP as ``jvp`` of ``grad``), ``casadi`` (SX ``hessian`` in a ``Function``, HVP by
``jtimes``), ``hand`` (@njit Rosenbrock), ``sympy`` (``diff`` + ``lambdify`` +
``njit``, n <= 30, within ``--limit``).  See ``second_order_tools.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import second_order_tools as T
from .timing import interleaved_latency

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ["symgrad", "symgrad-sparse", "jax", "casadi", "hand", "sympy"]
WORKLOADS = ["rosen10", "rosen100", "rosen1000", "lj8", "lj27", "mlp", "logreg50"]
QUICK = ["rosen10", "rosen100", "lj8"]
# every tool on one core, like symgrad's kernels (XLA would start a thread pool)
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


# -- children ----------------------------------------------------------------------------

def child_build(tool, name, part):
    T.warm_up(tool)
    start = time.perf_counter()
    built = T.build(tool, name, part, extras=False)
    return {"build": built.seconds, "wall": time.perf_counter() - start, **built.extra}


def child_latency(name, tools, rounds):
    import symgrad as sg
    for tool in tools:
        T.warm_up(tool)
    v, p = T.point(name), np.linspace(-1.0, 1.0, T.size(name))
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(T.size(name),), name="x")
        (h,) = sg.hessians(T.sg_loss(sg, name, x), x)
        reference = np.asarray(sg.evaluate(h, {x: v}), dtype=float)
    calls, out = {}, {}
    for tool in tools:
        built = T.build(tool, name, "fgh")
        got = built.dense_h(v)
        out[tool] = {"check": float(np.max(np.abs(got - reference)) /
                                    max(1.0, np.max(np.abs(reference))))}
        for kind, fn in (("H", built.fgh), ("grad", built.grad), ("Halone", built.h)):
            if fn is not None:
                calls[tool, kind] = fn
        if built.hvp is not None:
            calls[tool, "HVP"] = lambda u, hv=built.hvp: hv(u, p)
    for fn in calls.values():  # warm-up calls (first-call costs, caches)
        for _ in range(3):
            fn(v)
    medians = interleaved_latency(calls, v, rounds, clock=time.process_time)
    for (tool, kind), seconds in medians.items():
        out[tool][kind + "_us"] = 1e6 * seconds
    return out


def child(args):
    if args[0] == "build":
        result = child_build(*args[1:])
    else:
        result = child_latency(args[1], args[3:], int(args[2]))
    print("RESULT " + json.dumps(result), flush=True)


# -- the driver --------------------------------------------------------------------------

def spawn(args, limit, cache_dir=None):
    """Run a child over fresh caches (or ``cache_dir``'s); its result or an error."""
    base = cache_dir or tempfile.mkdtemp(prefix="sg2bench_")
    env = dict(os.environ, SYMGRAD_CACHE_DIR=os.path.join(base, "symgrad"),
               NUMBA_CACHE_DIR=os.path.join(base, "numba"),
               PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("XLA_FLAGS", XLA_ONE_THREAD)
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.second_order", "--child",
                               *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {limit:g} s"}, base
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:]), base
    last = [e for e in proc.stderr.splitlines() if e.strip()][-1:] or ["no output"]
    return {"error": "crashed: " + last[0][:120]}, base


def available(tool):
    module = {"jax": "jax", "casadi": "casadi", "sympy": "sympy",
              "symgrad-sparse": "scipy"}.get(tool)
    try:
        if module:
            __import__(module)
        return True
    except ImportError:
        return False


def measure_builds(name, tool, limit, repeat=1):
    """Builds of [f, g, H] and [f, g] (medians of ``repeat`` fresh processes each,
    alternating) and the cached build of [f, g, H]."""
    fgh, fg, base = [], [], None
    for _ in range(repeat):
        row, base = spawn(["build", tool, name, "fgh"], limit)
        if "error" in row:
            return row
        fgh.append(row)
        if tool not in ("symgrad-sparse", "hand", "sympy"):  # (sparse's [f, g] is symgrad's)
            fg.append(spawn(["build", tool, name, "fg"], limit)[0].get("build"))
    row = dict(fgh[len(fgh) // 2], build=float(np.median([r["build"] for r in fgh])))
    if tool != "symgrad-sparse":
        row["fg_build"] = float(np.median(fg)) if fg and None not in fg else None
    if tool.startswith("symgrad"):
        row["cached"] = spawn(["build", tool, name, "fgh"], limit, cache_dir=base)[0].get("build")
    return row


def measure(name, tools, limit, rounds, builds_only=False, repeat=1):
    rows = {}
    for tool in tools:
        if T.applies(tool, name):
            rows[tool] = measure_builds(name, tool, limit, repeat)
            print(f"{name} {tool}: {json.dumps(rows[tool])}", file=sys.stderr, flush=True)
    if "symgrad" in rows and "symgrad-sparse" in rows:
        rows["symgrad-sparse"]["fg_build"] = rows["symgrad"].get("fg_build")
    if builds_only:
        return rows
    built = [t for t, r in rows.items() if "error" not in r and
             (t != "sympy" or r["build"] < 20.0)]  # (sympy's rebuild must stay short)
    lat, _ = spawn(["latency", name, str(rounds), *built], 12 * limit)
    print(f"{name} latency: {json.dumps(lat)}", file=sys.stderr, flush=True)
    for tool, r in rows.items():
        r.update(lat.get(tool, {}) if "error" not in lat else {"latency_error": lat["error"]})
    return rows


def fmt(v, digits=3):
    if v is None:
        return "—"
    return f"{v:.{digits}f}" if v < 100 else f"{v:.0f}"


def table(results):
    lines = ["| workload | tool | build [f,g] s | build [f,g,H] s | ratio | cached s | colours | "
             "H µs | HVP µs | grad µs | HVP/grad | H alone µs | H alone/grad | check |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for (name, tool), r in results.items():
        if "error" in r:
            lines.append(f"| {name} | {tool} | {r['error']} ||||||||||||")
            continue
        ratio = r["build"] / r["fg_build"] if r.get("fg_build") else None
        hg = r["HVP_us"] / r["grad_us"] if r.get("HVP_us") and r.get("grad_us") else None
        alone = r["Halone_us"] / r["grad_us"] if r.get("Halone_us") and r.get("grad_us") \
            else None
        check = f"{r['check']:.0e}" if "check" in r else r.get("latency_error", "—")
        lines.append(f"| {name} | {tool} | {fmt(r.get('fg_build'))} | {fmt(r['build'])} | "
                     f"{fmt(ratio, 2)} | {fmt(r.get('cached'))} | {r.get('colors', '—')} | "
                     f"{fmt(r.get('H_us'), 1)} | {fmt(r.get('HVP_us'), 1)} | "
                     f"{fmt(r.get('grad_us'), 1)} | {fmt(hg, 2)} | "
                     f"{fmt(r.get('Halone_us'), 1)} | {fmt(alone, 2)} | {check} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.second_order")
    p.add_argument("--quick", action="store_true", help=f"only {' '.join(QUICK)}")
    p.add_argument("--workloads", nargs="*", choices=WORKLOADS)
    p.add_argument("--tools", nargs="*", choices=TOOLS)
    p.add_argument("--limit", type=float, default=120.0, help="seconds per build process")
    p.add_argument("--rounds", type=int, default=15, help="interleaved latency rounds")
    p.add_argument("--builds-only", action="store_true",
                   help="only the build columns (no latency process)")
    p.add_argument("--repeat", type=int, default=1,
                   help="build processes per (workload, tool, part); the median is shown")
    p.add_argument("--output", default=str(ROOT / "benchmarks" / "SECOND_ORDER.md"))
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        return child(args.child)
    names = args.workloads or (QUICK if args.quick else WORKLOADS)
    tools = [t for t in (args.tools or TOOLS) if available(t)]
    load0, start, results = os.getloadavg(), time.perf_counter(), {}
    for name in names:
        for tool, row in measure(name, tools, args.limit, args.rounds,
                                 args.builds_only, args.repeat).items():
            results[name, tool] = row
    command = "python -m benchmarks.second_order" + (" " + " ".join(argv or sys.argv[1:])
                                                      if (argv or sys.argv[1:]) else "")
    text = (f"# Second order\n\nCommand: `{command}`  \nDate: "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
            f"{time.perf_counter() - start:.0f} s  \n"
            f"Load average at start/end: {load0[0]:.1f} / {os.getloadavg()[0]:.1f} "
            f"(2 cores)\n\n" + table(results) + "\n\n" + __doc__.split("\n\n", 2)[2] + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
