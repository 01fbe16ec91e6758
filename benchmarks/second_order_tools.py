"""The tools of ``benchmarks.second_order``: each builds value + gradient + Hessian.

``build(tool, name, part)`` returns a :class:`Built`: CPU ``seconds`` from the first
line of the program to the first call's result (derive + compile + first call),
and the callables the latency phase times: ``fgh(v)`` (value, gradient, Hessian),
``grad(v)`` (value and gradient), ``hvp(v, p)``, ``h(v)`` (the Hessian alone, as
``to_scipy``'s ``hess`` computes it; symgrad only), and ``dense_h(v)`` (the Hessian as
a numpy array, for the check against symgrad's reference evaluator).  ``part`` is
``"fg"`` (only value + gradient) or ``"fgh"``.  Every tool's runtime is warmed up
by ``warm_up(tool)`` before the clock starts (imports, Numba/XLA start-up).

Workloads (the same program in each tool's language): Rosenbrock n = 10, 100,
1000; Lennard-Jones 8 and 27 particles; the MLP of ``workloads.py`` (33 weights);
logistic regression with 50 weights on 200 points.
"""
from __future__ import annotations

import time

import numpy as np

from . import workloads as W

# Builds are timed in CPU seconds of the process (all its threads): on a loaded
# machine, waiting for a core is not counted; on an idle one it is wall time.
clock = time.process_time


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
        side = int(np.ceil((n // 3) ** (1 / 3)))
        grid = np.array([[a, b, c] for a in range(side) for b in range(side)
                         for c in range(side)], float)[:n // 3] * 1.2
        return (grid + rng.uniform(-0.1, 0.1, size=grid.shape)).reshape(-1)
    return rng.uniform(-0.7, 0.7, size=n)


def logreg_data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(200, 50)) / np.sqrt(50)
    y = np.where(X @ rng.normal(size=50) + 0.3 * rng.normal(size=200) > 0, 1.0, -1.0)
    return X, y


def _pairs(name):
    return np.triu_indices(size(name) // 3, k=1)


def sg_loss(sg, name, x):
    if name.startswith("rosen"):
        return sg.reduce_sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    if name.startswith("lj"):
        i, j = _pairs(name)
        pos = sg.reshape(x, (size(name) // 3, 3))
        d = pos[i] - pos[j]
        s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
        return sg.reduce_sum(4.0 * (s6 * s6 - s6))
    if name == "mlp":
        return W._sg_mlp(sg, x, 33)
    X, y = logreg_data()
    z = sg.matmul(sg.constant(X), x) * sg.constant(y)
    return sg.reduce_mean(sg.softplus(-z)) + 0.01 * sg.reduce_sum(x * x)


def jax_loss(jax, jnp, name):
    if name.startswith("rosen"):
        return lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)
    if name.startswith("lj"):
        i, j = _pairs(name)

        def lj(x):
            pos = x.reshape(-1, 3)
            d = pos[i] - pos[j]
            s6 = 1.0 / jnp.sum(d * d, axis=1) ** 3
            return jnp.sum(4.0 * (s6 * s6 - s6))
        return lj
    if name == "mlp":
        return W._jx_mlp(jnp, 33)
    X, y = logreg_data()
    return lambda w: jnp.mean(jax.nn.softplus(-(X @ w) * y)) + 0.01 * jnp.sum(w * w)


def casadi_loss(ca, name, x):
    if name.startswith("rosen"):
        return ca.sum1(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)
    if name.startswith("lj"):
        total = 0
        for i, j in zip(*_pairs(name)):
            d = x[3 * i:3 * i + 3] - x[3 * j:3 * j + 3]
            s6 = 1 / ca.dot(d, d) ** 3
            total += 4 * (s6 * s6 - s6)
        return total
    if name == "mlp":
        inputs, targets = W.mlp_data()
        h = W.MLP_HIDDEN
        w1 = ca.reshape(x[0:2 * h], h, 2).T  # (column-major reshape, then the row-major w1)
        hidden = ca.tanh(ca.mtimes(ca.DM(inputs), w1) + ca.repmat(x[2 * h:3 * h].T, 16, 1))
        pred = ca.mtimes(hidden, x[3 * h:4 * h]) + x[4 * h]
        return ca.sum1((pred - ca.DM(targets)) ** 2) / 16
    X, y = logreg_data()
    z = ca.mtimes(ca.DM(X), x) * ca.DM(y)
    return ca.sum1(ca.log1p(ca.exp(-z))) / 200 + 0.01 * ca.dot(x, x)


class Built:
    def __init__(self, seconds, fgh=None, grad=None, hvp=None, dense_h=None, h=None,
                 **extra):
        self.seconds, self.fgh, self.grad, self.hvp, self.dense_h = seconds, fgh, grad, hvp, dense_h
        self.h = h
        self.extra = extra


def warm_up(tool):
    """Start the tool's runtime (imports, JIT start-up) before any clock runs."""
    if tool.startswith("symgrad") or tool in ("hand", "sympy"):
        import symgrad as sg
        with sg.Graph().as_default():
            y = sg.placeholder(shape=(2,), name="y")
            sg.compile(sg.reduce_sum(y * y), [y], cache=False, wait=True)(np.ones(2))
        if tool == "symgrad-sparse":
            import scipy.sparse  # noqa: F401  (its results are scipy matrices)
    if tool == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.jit(lambda a: a * 2)(jax.numpy.ones(2)).block_until_ready()
    if tool == "casadi":
        import casadi  # noqa: F401


def build_symgrad(name, part, sparse=False, extras=True):
    import symgrad as sg
    n, v = size(name), point(name)
    graph = sg.Graph()
    with graph.as_default():
        x = sg.placeholder(shape=(n,), name="x")
        t0 = clock()
        f = sg_loss(sg, name, x)
        (g,) = sg.gradients(f, x)
        outs = [f, g] + (list(sg.hessians(f, x, sparse=sparse)) if part == "fgh" else [])
        fn = sg.compile(outs, [x], wait=True)
        fn(v)
        seconds = clock() - t0
        extra = {"colors": outs[2].colors} if sparse and part == "fgh" else {}
        if part == "fg" or not extras:
            return Built(seconds, grad=fn, **extra)
        fg = sg.compile([f, g], [x], wait=True)
        p = sg.placeholder(shape=(n,), name="p")
        hv = sg.compile(sg.hvp(f, x, p), [x, p], wait=True)
        h = sg.compile(outs[2], [x], wait=True)
        dense = (lambda u: fn(u)[2].toarray()) if sparse else (lambda u: fn(u)[2])
        return Built(seconds, fgh=fn, grad=fg, hvp=None if sparse else hv, dense_h=dense,
                     h=h, **extra)


def build_jax(name, part):
    import jax
    import jax.numpy as jnp
    f = jax_loss(jax, jnp, name)
    v = jnp.asarray(point(name))
    t0 = clock()
    if part == "fg":
        fn = jax.jit(jax.value_and_grad(f))
        jax.block_until_ready(fn(v))
        return Built(clock() - t0, grad=lambda u: jax.block_until_ready(fn(u)))
    fn = jax.jit(lambda u: (f(u), jax.grad(f)(u), jax.hessian(f)(u)))
    jax.block_until_ready(fn(v))
    seconds = clock() - t0
    fg = jax.jit(jax.value_and_grad(f))
    hv = jax.jit(lambda u, p: jax.jvp(jax.grad(f), (u,), (p,))[1])
    return Built(seconds, fgh=lambda u: jax.block_until_ready(fn(u)),
                 grad=lambda u: jax.block_until_ready(fg(u)),
                 hvp=lambda u, p: jax.block_until_ready(hv(u, p)),
                 dense_h=lambda u: np.asarray(fn(u)[2]))


def build_casadi(name, part):
    import casadi as ca
    n, v = size(name), point(name)
    t0 = clock()
    x = ca.SX.sym("x", n)
    f = casadi_loss(ca, name, x)
    g = ca.gradient(f, x)
    if part == "fg":
        fn = ca.Function("fg", [x], [f, g])
        fn(v)
        return Built(clock() - t0, grad=fn)
    fn = ca.Function("fgh", [x], [f, g, ca.hessian(f, x)[0]])
    fn(v)
    seconds = clock() - t0
    p = ca.SX.sym("p", n)
    return Built(seconds, fgh=fn, grad=ca.Function("fg", [x], [f, g]),
                 hvp=ca.Function("hv", [x, p], [ca.jtimes(g, x, p)]),
                 dense_h=lambda u: np.asarray(ca.DM(fn(u)[2])))


def _hand_rosenbrock():
    from numba import njit

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
    return fgh


def build_hand(name, part):
    v = point(name)
    t0 = clock()
    fgh = _hand_rosenbrock()
    fgh(v)
    return Built(clock() - t0, fgh=fgh, dense_h=lambda u: fgh(u)[2])


def build_sympy(name, part):
    import sympy
    from numba import njit
    n, v = size(name), point(name)
    t0 = clock()
    xs = sympy.symbols(f"x0:{n}", real=True)
    expr = _sympy_lj(sympy, xs, name) if name.startswith("lj") else \
        W.sympy_expr(W.Workload(name, "rosen" if name.startswith("rosen") else "mlp", n),
                     sympy, xs)
    grads = [sympy.diff(expr, s) for s in xs]
    hess = [sympy.diff(gi, s) for gi in grads for s in xs]
    core = njit(sympy.lambdify([xs], [expr] + grads + hess, modules="numpy", cse=True))

    @njit
    def fgh(u):
        return np.asarray(core(u))
    fgh(v)
    return Built(clock() - t0, fgh=fgh,
                 dense_h=lambda u: fgh(u)[1 + n:].reshape(n, n))


def _sympy_lj(sympy, x, name):
    total = 0
    for i, j in zip(*_pairs(name)):
        r2 = sympy.Add(*[(x[3 * i + c] - x[3 * j + c]) ** 2 for c in range(3)])
        total += 4 * (1 / r2 ** 6 - 1 / r2 ** 3)
    return total


def build(tool, name, part, extras=True):
    """``tool``'s build of ``name``; ``extras=False``: only what the clock measures."""
    if tool in ("symgrad", "symgrad-sparse"):
        return build_symgrad(name, part, sparse=tool == "symgrad-sparse", extras=extras)
    return {"jax": build_jax, "casadi": build_casadi, "hand": build_hand,
            "sympy": build_sympy}[tool](name, part)


def applies(tool, name, limit_n=30):
    """Whether ``tool`` runs ``name``: hand code is Rosenbrock's; SymPy only small n
    (and no logistic regression: it is not written for SymPy here)."""
    if tool == "hand":
        return name.startswith("rosen")
    if tool == "sympy":
        return size(name) <= limit_n and name != "logreg50"
    return True
