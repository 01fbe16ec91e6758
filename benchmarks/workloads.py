"""The benchmark workloads, each written once per tool from the same mathematics.

Every workload is a scalar function of ONE flat float64 vector ``x`` (length
``n``): numpy array in, ``(value, gradient array of length n)`` out, for every
tool.  Workloads with structured parameters reshape inside the program.

- ``rosenN``: sum_i 100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2, N = 2, 10, 100.
- ``chainN``: f_0 = 0, f_k = sin(f_{k-1}) * f_{k-1} + x_k for k = 1..N, value f_N.
  Since f_0 = 0, f_1 = x_1; every tool starts the loop there.
- ``mlp``: a 2 -> 8 (tanh) -> 1 network, mean squared error on a fixed data set of
  16 points; x holds W1 (2x8, row-major), b1 (8), W2 (8), b2 (1): n = 33.
- ``lj8``: Lennard-Jones energy (epsilon = sigma = 1) of 8 particles in 3-D,
  E = sum_{i<j} 4 (r_ij^-12 - r_ij^-6); x is the 8x3 positions row-major, n = 24;
  the forces are minus the gradient.

The symgrad and jax versions are tensor programs (what a user writes); the sympy
version is the scalar expression over x[0..n-1] that sympy needs.
"""
from __future__ import annotations

import numpy as np

MLP_HIDDEN, MLP_POINTS = 8, 16
LJ_PARTICLES = 8


def mlp_data():
    """The fixed 16-point data set of the MLP workload (inputs (16, 2), targets (16,))."""
    rng = np.random.default_rng(2024)
    inputs = rng.uniform(-1.0, 1.0, size=(MLP_POINTS, 2))
    targets = np.sin(2.0 * inputs[:, 0]) * np.cos(inputs[:, 1])
    return inputs, targets


def lj_pairs():
    """Index arrays (i, j) of the 28 pairs i < j."""
    i, j = np.triu_indices(LJ_PARTICLES, k=1)
    return i.astype(np.int64), j.astype(np.int64)


class Workload:
    """One benchmark function: its name, its size n and a sample point generator."""

    def __init__(self, name, kind, n):
        self.name, self.kind, self.n = name, kind, n

    def points(self, count, seed=0):
        """``count`` input vectors (count, n) in a range where the function is tame."""
        rng = np.random.default_rng(seed)
        if self.kind == "lj":
            return np.stack([_lj_positions(rng) for _ in range(count)])
        scale = {"rosen": 1.5, "chain": 1.0, "mlp": 0.7}[self.kind]
        return rng.uniform(-scale, scale, size=(count, self.n))

    def sample(self):
        return self.points(1, seed=1)[0]

    def __repr__(self):
        return f"<Workload {self.name} n={self.n}>"


def _lj_positions(rng):
    """8 particles near a 2x2x2 lattice of spacing 1.2 (no pair closer than ~0.8)."""
    grid = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], float) * 1.2
    return (grid + rng.uniform(-0.1, 0.1, size=grid.shape)).reshape(-1)


def all_workloads():
    """Every workload of the full benchmark, in table order."""
    out = [Workload(f"rosen{n}", "rosen", n) for n in (2, 10, 100)]
    out += [Workload(f"chain{n}", "chain", n) for n in (10, 50, 200, 1000)]
    out += [Workload("mlp", "mlp", 2 * MLP_HIDDEN + MLP_HIDDEN + MLP_HIDDEN + 1),
            Workload("lj8", "lj", 3 * LJ_PARTICLES)]
    return out


def get(name):
    for w in all_workloads():
        if w.name == name:
            return w
    raise KeyError(f"unknown workload {name!r}; known: {[w.name for w in all_workloads()]}")


# --- symgrad: the tensor program ---------------------------------------------------

def symgrad_loss(workload, sg, x):
    """The loss tensor of ``workload`` over the placeholder ``x`` (shape (n,))."""
    return {"rosen": _sg_rosen, "chain": _sg_chain, "mlp": _sg_mlp, "lj": _sg_lj}[
        workload.kind](sg, x, workload.n)


def _sg_rosen(sg, x, n):
    a, b = x[:-1], x[1:]
    return sg.reduce_sum(100.0 * (b - a ** 2) ** 2 + (1.0 - a) ** 2)


def _sg_chain(sg, x, n):
    f = x[0]
    for k in range(1, n):
        f = sg.sin(f) * f + x[k]
    return f


def _sg_mlp(sg, x, n):
    inputs, targets = mlp_data()
    h = MLP_HIDDEN
    w1 = sg.reshape(x[0:2 * h], (2, h))
    b1, w2, b2 = x[2 * h:3 * h], x[3 * h:4 * h], x[4 * h]
    hidden = sg.tanh(sg.matmul(sg.constant(inputs, name="inputs"), w1) + b1)
    pred = sg.matmul(hidden, w2) + b2
    return sg.reduce_mean((pred - sg.constant(targets, name="targets")) ** 2)


def _sg_lj(sg, x, n):
    i, j = lj_pairs()
    pos = sg.reshape(x, (LJ_PARTICLES, 3))
    d = pos[i] - pos[j]
    r2 = sg.reduce_sum(d * d, axis=1)
    s6 = 1.0 / (r2 * r2 * r2)
    return sg.reduce_sum(4.0 * (s6 * s6 - s6))


# --- sympy: the scalar expression ----------------------------------------------------

def sympy_expr(workload, sympy, xs):
    """The sympy expression of ``workload`` over the scalar symbols ``xs``."""
    return {"rosen": _sy_rosen, "chain": _sy_chain, "mlp": _sy_mlp, "lj": _sy_lj}[
        workload.kind](sympy, xs)


def _sy_rosen(sympy, x):
    return sympy.Add(*[100 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
                       for i in range(len(x) - 1)])


def _sy_chain(sympy, x):
    f = x[0]
    for k in range(1, len(x)):
        f = sympy.sin(f) * f + x[k]
    return f


def _sy_mlp(sympy, x):
    inputs, targets = mlp_data()
    h = MLP_HIDDEN
    total = 0
    for (u, v), t in zip(inputs, targets):
        hidden = [sympy.tanh(u * x[k] + v * x[h + k] + x[2 * h + k]) for k in range(h)]
        pred = sympy.Add(*[hidden[k] * x[3 * h + k] for k in range(h)]) + x[4 * h]
        total += (pred - float(t)) ** 2
    return total / len(targets)


def _sy_lj(sympy, x):
    total = 0
    for i, j in zip(*lj_pairs()):
        r2 = sympy.Add(*[(x[3 * i + c] - x[3 * j + c]) ** 2 for c in range(3)])
        s6 = 1 / r2 ** 3
        total += 4 * (s6 ** 2 - s6)
    return total


# --- jax: the same tensor program ---------------------------------------------------

def jax_function(workload, jnp):
    """A function ``x -> value`` of ``workload`` written with ``jax.numpy``."""
    return {"rosen": _jx_rosen, "chain": _jx_chain, "mlp": _jx_mlp, "lj": _jx_lj}[
        workload.kind](jnp, workload.n)


def _jx_rosen(jnp, n):
    return lambda x: jnp.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _jx_chain(jnp, n):
    def chain(x):
        f = x[0]
        for k in range(1, n):
            f = jnp.sin(f) * f + x[k]
        return f
    return chain


def _jx_mlp(jnp, n):
    inputs, targets = mlp_data()
    h = MLP_HIDDEN

    def mlp(x):
        hidden = jnp.tanh(inputs @ x[:2 * h].reshape(2, h) + x[2 * h:3 * h])
        return jnp.mean((hidden @ x[3 * h:4 * h] + x[4 * h] - targets) ** 2)
    return mlp


def _jx_lj(jnp, n):
    i, j = lj_pairs()

    def lj(x):
        pos = x.reshape(LJ_PARTICLES, 3)
        d = pos[i] - pos[j]
        s6 = 1.0 / jnp.sum(d * d, axis=1) ** 3
        return jnp.sum(4.0 * (s6 * s6 - s6))
    return lj
