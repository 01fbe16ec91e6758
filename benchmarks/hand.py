"""Hand-written ``@njit`` value-and-gradient kernels: the practical speed limit.

Each kernel ``<kind>_vg(X, G, r) -> value`` evaluates row r of X and writes the
gradient into row r of G with a hand-derived reverse pass (no allocation except
the MLP's 8 hidden activations).  Rows, not slices, because making a view per
point costs more than the whole Rosenbrock-2 evaluation.
For each kernel there are three drivers, all ``cache=True`` so a new process can
load them: ``<kind>_call(x) -> (value, g)``, ``<kind>_batch(X, V, G)`` (serial)
and ``<kind>_pbatch(X, V, G)`` (``prange`` over the batch).
"""
import math

import numpy as np
from numba import njit, prange

from .workloads import LJ_PARTICLES, MLP_HIDDEN, mlp_data

_MLP_INPUTS, _MLP_TARGETS = mlp_data()


@njit(cache=True)
def rosen_vg(X, G, r):
    n = X.shape[1]
    G[r, :] = 0.0
    f = 0.0
    for i in range(n - 1):
        a, b = X[r, i], X[r, i + 1]
        t, u = b - a * a, 1.0 - a
        f += 100.0 * t * t + u * u
        G[r, i] += -400.0 * t * a - 2.0 * u   # d/da of 100 t^2 + u^2, t = b - a^2, u = 1 - a
        G[r, i + 1] += 200.0 * t
    return f


@njit(cache=True)
def chain_vg(X, G, r):
    # forward: f_k = sin(f) f + x_k; G[r, k] temporarily holds df_k/df_{k-1} = cos(f) f + sin(f)
    n = X.shape[1]
    f = X[r, 0]
    for k in range(1, n):
        s, c = math.sin(f), math.cos(f)
        G[r, k] = c * f + s
        f = s * f + X[r, k]
    # reverse: df_N/dx_k = prod_{j>k} df_j/df_{j-1}
    adj = 1.0
    for k in range(n - 1, 0, -1):
        factor = G[r, k]
        G[r, k] = adj
        adj *= factor
    G[r, 0] = adj
    return f


@njit(cache=True)
def mlp_vg(X, G, r):
    h, m = MLP_HIDDEN, _MLP_TARGETS.shape[0]
    x, g = X[r], G[r]     # one view each per call: cheap next to the 16-point loop
    g[:] = 0.0
    hidden = np.empty(h)
    loss = 0.0
    for p in range(m):
        u, v = _MLP_INPUTS[p, 0], _MLP_INPUTS[p, 1]
        pred = x[4 * h]
        for k in range(h):
            a = math.tanh(u * x[k] + v * x[h + k] + x[2 * h + k])
            hidden[k] = a
            pred += a * x[3 * h + k]
        r = pred - _MLP_TARGETS[p]
        loss += r * r
        dr = 2.0 * r / m
        g[4 * h] += dr
        for k in range(h):
            a = hidden[k]
            g[3 * h + k] += dr * a
            dz = dr * x[3 * h + k] * (1.0 - a * a)   # tanh' = 1 - tanh^2
            g[k] += dz * u
            g[h + k] += dz * v
            g[2 * h + k] += dz
    return loss / m


@njit(cache=True)
def lj_vg(X, G, r):
    x, g = X[r], G[r]     # one view each per call: cheap next to the 28 pairs
    g[:] = 0.0
    energy = 0.0
    for i in range(LJ_PARTICLES):
        for j in range(i + 1, LJ_PARTICLES):
            dx = x[3 * i] - x[3 * j]
            dy = x[3 * i + 1] - x[3 * j + 1]
            dz = x[3 * i + 2] - x[3 * j + 2]
            r2 = dx * dx + dy * dy + dz * dz
            s6 = 1.0 / (r2 * r2 * r2)
            energy += 4.0 * (s6 * s6 - s6)
            # dE/dr2 = (12 s6 - 24 s6^2) / r2 and dr2/d(dx) = 2 dx
            c = 2.0 * (12.0 * s6 - 24.0 * s6 * s6) / r2
            g[3 * i] += c * dx
            g[3 * i + 1] += c * dy
            g[3 * i + 2] += c * dz
            g[3 * j] -= c * dx
            g[3 * j + 1] -= c * dy
            g[3 * j + 2] -= c * dz
    return energy


@njit(cache=True)
def rosen_call(x):
    g = np.empty((1, x.shape[0]))
    return rosen_vg(x.reshape((1, x.shape[0])), g, 0), g[0]


@njit(cache=True)
def chain_call(x):
    g = np.empty((1, x.shape[0]))
    return chain_vg(x.reshape((1, x.shape[0])), g, 0), g[0]


@njit(cache=True)
def mlp_call(x):
    g = np.empty((1, x.shape[0]))
    return mlp_vg(x.reshape((1, x.shape[0])), g, 0), g[0]


@njit(cache=True)
def lj_call(x):
    g = np.empty((1, x.shape[0]))
    return lj_vg(x.reshape((1, x.shape[0])), g, 0), g[0]


@njit(cache=True)
def rosen_batch(X, V, G):
    for b in range(X.shape[0]):
        V[b] = rosen_vg(X, G, b)


@njit(cache=True)
def chain_batch(X, V, G):
    for b in range(X.shape[0]):
        V[b] = chain_vg(X, G, b)


@njit(cache=True)
def mlp_batch(X, V, G):
    for b in range(X.shape[0]):
        V[b] = mlp_vg(X, G, b)


@njit(cache=True)
def lj_batch(X, V, G):
    for b in range(X.shape[0]):
        V[b] = lj_vg(X, G, b)


@njit(cache=True, parallel=True)
def rosen_pbatch(X, V, G):
    for b in prange(X.shape[0]):
        V[b] = rosen_vg(X, G, b)


@njit(cache=True, parallel=True)
def chain_pbatch(X, V, G):
    for b in prange(X.shape[0]):
        V[b] = chain_vg(X, G, b)


@njit(cache=True, parallel=True)
def mlp_pbatch(X, V, G):
    for b in prange(X.shape[0]):
        V[b] = mlp_vg(X, G, b)


@njit(cache=True, parallel=True)
def lj_pbatch(X, V, G):
    for b in prange(X.shape[0]):
        V[b] = lj_vg(X, G, b)


def drivers(kind):
    """``(call, batch, pbatch)`` for a workload kind."""
    names = {"rosen": "rosen", "chain": "chain", "mlp": "mlp", "lj": "lj"}[kind]
    module = globals()
    return module[f"{names}_call"], module[f"{names}_batch"], module[f"{names}_pbatch"]
