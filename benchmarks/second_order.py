"""Second order side by side: value + gradient + Hessian, and Hessian-vector products.

``python -m benchmarks.second_order [--quick] [--workloads ...] [--tools ...]`` prints
one table (and writes ``benchmarks/SECOND_ORDER.md``).  Every (workload, tool) runs
in a fresh process with fresh caches; the tool's runtime is warmed up first, so a
build is: derive + compile + first call.  Latencies are medians of repeated calls
in that process (the machine's load is printed; ratios of one run share it).

Tools: ``symgrad`` (dense ``hessians``), ``symgrad-sparse`` (``sparse=True``: star
colouring, CSR), ``jax`` (``jit`` of value, ``grad``, ``hessian``; HVP as
``jvp`` of ``grad``), ``casadi`` (SX ``hessian`` in a ``Function``, HVP by
``jtimes``), ``hand`` (@njit Rosenbrock value/gradient/Hessian), ``sympy``
(``hessian`` + ``lambdify`` + ``njit``, within the build limit).

Workloads: Rosenbrock n = 10, 100, 1000; Lennard-Jones 8 and 27 particles; the MLP
of ``workloads.py`` (33 weights); logistic regression with 50 weights (200 points).
Columns: cold build of [f, g] and of [f, g, H] (s), their ratio, the cached build
(s, second process, warm disk cache), Hessian latency, HVP latency and gradient
latency (µs), and a check of H against symgrad's reference evaluator.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

from . import workloads as W

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ["symgrad", "symgrad-sparse", "jax", "casadi", "hand", "sympy"]
WORKLOADS = ["rosen10", "rosen100", "rosen1000", "lj8", "lj27", "mlp", "logreg50"]
QUICK = ["rosen10", "rosen100", "lj8"]


# -- workloads (numpy-free descriptions each tool writes in its own language) --------

def size(name):
    if name.startswith("rosen"):
        return int(name[5:])
    if name.startswith("lj"):
        return 3 * int(name[2:])
    return {"mlp": 33, "logreg50": 50}[name]


def point(name):
    rng = np.random.default_rng(1)
    n = size(name)
    if name.startswith("lj"):
        return lj_positions(n // 3, rng)
    return rng.uniform(-0.7, 0.7, size=n)


def lj_positions(p, rng):
    side = int(round(p ** (1 / 3)))
    grid = np.array([[a, b, c] for a in range(side) for b in range(side)
                     for c in range(side)], float)[:p] * 1.2
    return (grid + rng.uniform(-0.1, 0.1, size=grid.shape)).reshape(-1)


def logreg_data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 50)) / np.sqrt(50)
    y = np.where(X @ rng.normal(size=50) + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    return X, y


def sg_loss(sg, name, x):
    n = size(name)
    if name.startswith("rosen"):
        return sg.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    if name.startswith("lj"):
        i, j = np.triu_indices(n // 3, k=1)
        pos = sg.reshape(x, (n // 3, 3))
        d = pos[i] - pos[j]
        s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
        return sg.reduce_sum(4.0 * (s6 * s6 - s6))
    if name == "mlp":
        return W._sg_mlp(sg, x, n)
    X, y = logreg_data()
    z = sg.matmul(sg.constant(X), x) * sg.constant(y)
    return sg.reduce_mean(sg.softplus(-z)) + 0.01 * sg.reduce_sum(x * x)


def jax_loss(jnp, jax, name):
    n = size(name)
    if name.startswith("rosen"):
        return lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    if name.startswith("lj"):
        i, j = np.triu_indices(n // 3, k=1)

        def lj(x):
            pos = x.reshape(n // 3, 3)
            d = pos[i] - pos[j]
            s6 = 1.0 / jnp.sum(d * d, axis=1) ** 3
            return jnp.sum(4.0 * (s6 * s6 - s6))
        return lj
    if name == "mlp":
        return W._jx_mlp(jnp, n)
    X, y = logreg_data()
    return lambda w: jnp.mean(jax.nn.softplus(-(X @ w) * y)) + 0.01 * jnp.sum(w * w)


def casadi_loss(ca, name, x):
    n = size(name)
    if name.startswith("rosen"):
        return ca.sum1(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    if name.startswith("lj"):
        total = 0
        for i, j in zip(*np.triu_indices(n // 3, k=1)):
            d = x[3 * i:3 * i + 3] - x[3 * j:3 * j + 3]
            s6 = 1 / ca.dot(d, d) ** 3
            total += 4 * (s6 * s6 - s6)
        return total
    if name == "mlp":
        inputs, targets = W.mlp_data()
        h = W.MLP_HIDDEN
        w1 = ca.reshape(x[0:2 * h], h, 2).T
        hidden = ca.tanh(ca.mtimes(ca.DM(inputs), w1) + ca.repmat(x[2 * h:3 * h].T, 16, 1))
        pred = ca.mtimes(hidden, x[3 * h:4 * h]) + x[4 * h]
        return ca.sum1((pred - ca.DM(targets)) ** 2) / 16
    X, y = logreg_data()
    z = ca.mtimes(ca.DM(X), x) * ca.DM(y)
    return ca.sum1(ca.log1p(ca.exp(-z))) / 200 + 0.01 * ca.dot(x, x)


# -- one tool in this process ------------------------------------------------------------

def median_us(fn, repeat=7):
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    return 1e6 * float(np.median(timer.repeat(repeat, max(1, number // 5 or 1)))) / \
        max(1, number // 5 or 1)


def run_symgrad(name, sparse, part):
    import symgrad as sg
    with sg.Graph().as_default():  # warm-up: Numba's own start-up is not the build
        y = sg.placeholder(shape=(2,), name="y")
        sg.compile(sg.reduce_sum(y * y), [y], cache=False)(np.ones(2))
    n, v = size(name), point(name)
    out = {}
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(n,), name="x")
        t0 = time.perf_counter()
        f = sg_loss(sg, name, x)
        (g,) = sg.gradients(f, x)
        outs = [f, g]
        if part != "fg":
            (h,) = sg.hessians(f, x, sparse=sparse)
            outs.append(h)
            if sparse:
                out["colors"] = h.colors
        fn = sg.compile(outs, [x])
        res = fn(v)
        out["build"] = time.perf_counter() - t0
        if part == "fg":
            out["grad_us"] = median_us(lambda: fn.jit(v))
            return out
        H = res[2].toarray() if sparse else res[2]
        ref = sg.hessians(f, x)[0]
        out["check"] = float(np.max(np.abs(H - sg.evaluate(ref, {x: v}))) /
                             max(1.0, np.max(np.abs(H))))
        out["hess_us"] = median_us(lambda: fn(v)) if sparse else median_us(lambda: fn.jit(v))
        if part == "fgh":
            p = sg.placeholder(shape=(n,), name="p")
            t1 = time.perf_counter()
            hv = sg.compile(sg.hvp(f, x, p), [x, p])
            hv(v, v)
            out["hvp_build"] = time.perf_counter() - t1
            out["hvp_us"] = median_us(lambda: hv.jit(v, v))
    return out


def run_jax(name, part):
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    jax.jit(lambda a: a * 2)(jnp.ones(2)).block_until_ready()
    f = jax_loss(jnp, jax, name)
    v = jnp.asarray(point(name))
    t0 = time.perf_counter()
    if part == "fg":
        fn = jax.jit(jax.value_and_grad(f))
        jax.block_until_ready(fn(v))
        return {"build": time.perf_counter() - t0,
                "grad_us": median_us(lambda: jax.block_until_ready(fn(v)))}
    fn = jax.jit(lambda x: (f(x), jax.grad(f)(x), jax.hessian(f)(x)))
    res = jax.block_until_ready(fn(v))
    out = {"build": time.perf_counter() - t0,
           "hess_us": median_us(lambda: jax.block_until_ready(fn(v))),
           "H": np.asarray(res[2]).tolist() if size(name) <= 100 else None}
    hvp = jax.jit(lambda x, p: jax.jvp(jax.grad(f), (x,), (p,))[1])
    jax.block_until_ready(hvp(v, v))
    out["hvp_us"] = median_us(lambda: jax.block_until_ready(hvp(v, v)))
    return out


def run_casadi(name, part):
    import casadi as ca
    n, v = size(name), point(name)
    t0 = time.perf_counter()
    x = ca.SX.sym("x", n)
    f = casadi_loss(ca, name, x)
    g = ca.gradient(f, x)
    if part == "fg":
        fn = ca.Function("fg", [x], [f, g])
        fn(v)
        return {"build": time.perf_counter() - t0, "grad_us": median_us(lambda: fn(v))}
    H = ca.hessian(f, x)[0]
    fn = ca.Function("fgh", [x], [f, g, H])
    res = fn(v)
    out = {"build": time.perf_counter() - t0, "hess_us": median_us(lambda: fn(v))}
    out["H"] = np.asarray(ca.DM(res[2])).tolist() if n <= 100 else None
    p = ca.SX.sym("p", n)
    hv = ca.Function("hv", [x, p], [ca.jtimes(g, x, p)])
    hv(v, v)
    out["hvp_us"] = median_us(lambda: hv(v, v))
    return out


def run_hand(name, part):
    from numba import njit
    if not name.startswith("rosen"):
        return {"error": "Rosenbrock only"}

    @njit(cache=False)
    def fgh(x):
        n = x.shape[0]
        f, g, H = 0.0, np.zeros(n), np.zeros((n, n))
        for i in range(n - 1):
            a, b = x[i], x[i + 1]
            r = b - a * a
            f += 100.0 * r * r + (1.0 - a) ** 2
            g[i] += -400.0 * r * a - 2.0 * (1.0 - a)
            g[i + 1] += 200.0 * r
            H[i, i] += 1200.0 * a * a - 400.0 * b + 2.0
            H[i, i + 1] += -400.0 * a
            H[i + 1, i] += -400.0 * a
            H[i + 1, i + 1] += 200.0
        return f, g, H
    v = point(name)
    t0 = time.perf_counter()
    fgh(v)
    return {"build": time.perf_counter() - t0, "hess_us": median_us(lambda: fgh(v))}


def run_sympy(name, part):
    import sympy
    from numba import njit
    n, v = size(name), point(name)
    kind = "rosen" if name.startswith("rosen") else "lj" if name.startswith("lj") else None
    if kind is None:
        return {"error": "not written for sympy"}
    t0 = time.perf_counter()
    xs = sympy.symbols(f"x0:{n}", real=True)
    expr = W.sympy_expr(W.Workload(name, kind, n), sympy, xs) if kind == "rosen" else \
        _sympy_lj(sympy, xs)
    grads = [sympy.diff(expr, s) for s in xs]
    H = [sympy.diff(g, s) for g in grads for s in xs]
    core = njit(sympy.lambdify([xs], [expr] + grads + H, modules="numpy", cse=True))

    @njit
    def fn(x):
        return np.asarray(core(x))
    fn(v)
    return {"build": time.perf_counter() - t0, "hess_us": median_us(lambda: fn(v))}


def _sympy_lj(sympy, x):
    total = 0
    for i, j in zip(*np.triu_indices(len(x) // 3, k=1)):
        r2 = sympy.Add(*[(x[3 * i + c] - x[3 * j + c]) ** 2 for c in range(3)])
        total += 4 * (1 / r2 ** 6 - 1 / r2 ** 3)
    return total


def child(name, tool, part):
    if tool in ("symgrad", "symgrad-sparse"):
        out = run_symgrad(name, tool == "symgrad-sparse", part)
    else:
        out = {"jax": run_jax, "casadi": run_casadi, "hand": run_hand,
               "sympy": run_sympy}[tool](name, part)
    print("RESULT " + json.dumps(out), flush=True)


# -- the driver --------------------------------------------------------------------------

def spawn(name, tool, part, limit, cache_dir=None):
    env = dict(os.environ)
    base = cache_dir or tempfile.mkdtemp(prefix="sg2bench_")
    env["SYMGRAD_CACHE_DIR"] = os.path.join(base, "symgrad")
    env["NUMBA_CACHE_DIR"] = os.path.join(base, "numba")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env.setdefault("JAX_PLATFORMS", "cpu")
    try:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.second_order", "--child",
                               name, tool, part], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"no result within {limit:g} s"}, base
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:]), base
    last = [e for e in proc.stderr.splitlines() if e.strip()][-1:] or ["no output"]
    return {"error": "crashed: " + last[0][:120]}, base


def available(tool):
    module = {"jax": "jax", "casadi": "casadi", "sympy": "sympy"}.get(tool)
    if module is None:
        return True
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def measure(name, tool, limit):
    row = {}
    if tool.startswith("symgrad"):
        fgh, base = spawn(name, tool, "fgh", limit)
        fg, _ = spawn(name, tool, "fg", limit)
        cached, _ = spawn(name, tool, "cached", limit, cache_dir=base)
        row.update(fgh)
        row["fg_build"], row["grad_us"] = fg.get("build"), fg.get("grad_us")
        row["cached"] = cached.get("build")
    else:
        fgh, _ = spawn(name, tool, "fgh", limit)
        row.update(fgh)
        if tool in ("jax", "casadi") and "error" not in fgh:
            fg, _ = spawn(name, tool, "fg", limit)
            row["fg_build"], row["grad_us"] = fg.get("build"), fg.get("grad_us")
    return row


def fmt(v, digits=3):
    if v is None:
        return "—"
    return f"{v:.{digits}f}" if v < 100 else f"{v:.0f}"


def table(results):
    lines = ["| workload | tool | build [f,g] s | build [f,g,H] s | ratio | cached s | "
             "colours | H latency µs | HVP µs | grad µs | HVP/grad |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (name, tool), r in results.items():
        if "error" in r:
            lines.append(f"| {name} | {tool} | {r['error']} |||||||||")
            continue
        ratio = r["build"] / r["fg_build"] if r.get("fg_build") else None
        hg = r["hvp_us"] / r["grad_us"] if r.get("hvp_us") and r.get("grad_us") else None
        lines.append(f"| {name} | {tool} | {fmt(r.get('fg_build'))} | {fmt(r['build'])} | "
                     f"{fmt(ratio, 2)} | {fmt(r.get('cached'))} | {r.get('colors', '—')} | "
                     f"{fmt(r.get('hess_us'), 1)} | {fmt(r.get('hvp_us'), 1)} | "
                     f"{fmt(r.get('grad_us'), 1)} | {fmt(hg, 2)} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.second_order")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--workloads", nargs="*")
    p.add_argument("--tools", nargs="*", choices=TOOLS)
    p.add_argument("--limit", type=float, default=120.0)
    p.add_argument("--output", default=str(ROOT / "benchmarks" / "SECOND_ORDER.md"))
    p.add_argument("--child", nargs=3)
    args = p.parse_args(argv)
    if args.child:
        return child(*args.child)
    names = args.workloads or (QUICK if args.quick else WORKLOADS)
    tools = [t for t in (args.tools or TOOLS) if available(t)]
    load0 = os.getloadavg()
    results = {}
    for name in names:
        for tool in tools:
            if tool == "hand" and not name.startswith("rosen"):
                continue
            if tool == "sympy" and size(name) > 30:
                continue
            results[name, tool] = measure(name, tool, args.limit)
            print(f"{name} {tool}: {json.dumps({k: v for k, v in results[name, tool].items() if k != 'H'})}",
                  file=sys.stderr, flush=True)
    text = (f"# Second order\n\nCommand: `python -m benchmarks.second_order"
            f"{' --quick' if args.quick else ''}`  \nDate: "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  \n"
            f"Load average at start/end: {load0[0]:.1f} / {os.getloadavg()[0]:.1f} "
            f"(2 cores shared)\n\n" + table(results) + "\n")
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
