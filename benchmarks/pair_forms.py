"""A pair potential's Hessian written two ways: index arrays, and numpy broadcasting.

``python -m benchmarks.pair_forms [--particles 27]`` prints one JSON line per form:
Lennard-Jones energy of n particles near a cubic lattice, written with the pair
index arrays (``pos[i] - pos[j]``, the i < j pairs) and the way numpy code writes it
(``pos[:, None, :] - pos[None, :, :]``, every ordered pair, the diagonal masked).
For each: the seeds its compiled Hessian sweeps (``colors`` of ``sparse=True``), the
build of value + Hessian (derive + compile, fresh cache), one call (median), and
the largest difference from the other form's Hessian.  With jax installed, ``jax.jit``
of ``jax.hessian`` of the broadcast form in the same run.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np

from .timing import median_seconds, repeated


def lattice(n, seed=0):
    side = int(np.ceil(n ** (1 / 3)))
    grid = np.array([[a, b, c] for a in range(side) for b in range(side)
                     for c in range(side)], float)[:n] * 1.2
    return grid + np.random.default_rng(seed).uniform(-0.1, 0.1, grid.shape)


def energy(sg, pos, n, form):
    if form == "index":
        i, j = np.triu_indices(n, 1)
        d = sg.gather(pos, i) - sg.gather(pos, j)
        s6 = 1.0 / sg.reduce_sum(d * d, axis=1) ** 3
        return 4.0 * sg.reduce_sum(s6 * s6 - s6)
    d = pos[:, None, :] - pos[None, :, :]
    r2 = sg.reduce_sum(d * d, axis=2) + sg.constant(np.eye(n))
    s6 = 1.0 / (r2 * r2 * r2)
    return 2.0 * sg.reduce_sum(sg.constant(1.0 - np.eye(n)) * (s6 * s6 - s6))


def symgrad_form(n, form, point):
    import symgrad as sg
    with sg.Graph().as_default():
        pos = sg.placeholder(shape=(n, 3), name="pos")
        e = energy(sg, pos, n, form)
        t0 = time.perf_counter()
        (h,) = sg.hessians(e, pos)
        f = sg.compile([e, h], [pos], wait=True)
        f(point)
        build = time.perf_counter() - t0
        (hs,) = sg.hessians(e, pos, sparse=True)
        return f, build, hs.colors


def jax_form(n, point):
    try:
        import jax
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    eye = jnp.eye(n)

    def e(p):
        d = p[:, None, :] - p[None, :, :]
        s6 = 1.0 / (jnp.sum(d * d, axis=2) + eye) ** 3
        return 2.0 * jnp.sum((1.0 - eye) * (s6 * s6 - s6))
    f = jax.jit(lambda p: (e(p), jax.hessian(e)(p)))
    t0 = time.perf_counter()
    f(point)[1].block_until_ready()
    return f, time.perf_counter() - t0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--particles", type=int, default=27)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    os.environ.setdefault("SYMGRAD_CACHE_DIR", tempfile.mkdtemp(prefix="symgrad-pairs-"))
    os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false "
                                       "intra_op_parallelism_threads=1")
    n, point = args.particles, lattice(args.particles)
    symgrad_form(2, "index", lattice(2))   # Numba's start-up is paid before measuring
    rows, hessians = [], {}
    for form in ("index", "broadcast"):
        f, build, colors = symgrad_form(n, form, point)
        hessians[form] = f(point)[1].reshape(3 * n, 3 * n)
        rows.append({"tool": "symgrad", "form": form, "particles": n, "colors": colors,
                     "build_s": round(build, 3),
                     "call_us": round(1e4 * median_seconds(
                         lambda: repeated(f, point, 100), args.repeat), 1)})
    for row in rows:
        other = hessians["broadcast" if row["form"] == "index" else "index"]
        row["max_diff"] = float(np.abs(hessians[row["form"]] - other).max())
        print(json.dumps(row), flush=True)
    found = jax_form(n, point)
    if found is not None:
        f, build = found
        h = np.asarray(f(point)[1]).reshape(3 * n, 3 * n)
        print(json.dumps({"tool": "jax", "form": "broadcast", "particles": n,
                          "build_s": round(build, 3),
                          "call_us": round(1e4 * median_seconds(lambda: repeated(
                              lambda p: f(p)[1].block_until_ready(), point, 100), args.repeat),
                              1),
                          "max_diff": float(np.abs(h - hessians["index"]).max())}))


if __name__ == "__main__":
    main()
