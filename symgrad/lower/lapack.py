"""LAPACK's symmetric eigensolver for compiled graphs: ``eigh`` and ``eigvalsh`` nodes.

The loop IR has no way to express an iterative eigensolver, so ``sg.compile`` treats
these nodes as it treats control flow (``lower.control``): the kernels around them
are compiled as usual and a small driver calls :func:`eigh_batch` or
:func:`eigvalsh_batch` between them, which run Numba's ``np.linalg.eigh`` (LAPACK)
matrix by matrix.  Each reads the lower triangle, gives a matrix holding inf or NaN
NaN, and signs the eigenvectors as ``ops.eigen.signed`` does (each column's first entry
within ``NEAR_TOP`` of its largest magnitude positive: two LAPACK builds may round
equal magnitudes apart), so compiled values equal the reference evaluator's.

Imports numpy and numba.

>>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
>>> eigvalsh_batch(a).round(12).tolist()
[1.0, 3.0]
"""
from __future__ import annotations

import numpy as np
from numba import njit

NEAR_TOP = 1.0 - 1e-6   # (ops.eigen's: entries this close to the largest count as equal)


@njit(cache=True)
def _solve_into(flat, out, vectors):
    """Eigenvalues (and eigenvectors, signed) of each (n, n) matrix of ``flat`` into
    ``out`` (count, 1 or n + 1, n)."""
    n = flat.shape[-1]
    m = np.empty((n, n), out.dtype)
    for b in range(flat.shape[0]):
        finite = True
        for i in range(n):
            for j in range(i + 1):
                x = flat[b, i, j]
                if not np.isfinite(x):
                    finite = False
                m[i, j] = x
                m[j, i] = x
        if not finite:
            out[b] = np.nan
            continue
        if not vectors:
            out[b, 0] = np.linalg.eigvalsh(m)
            continue
        e, v = np.linalg.eigh(m)
        out[b, 0] = e
        for c in range(n):
            top = 0.0
            for r in range(n):
                top = max(top, abs(v[r, c]))
            k = 0
            while abs(v[k, c]) < top * NEAR_TOP:
                k += 1
            sign = -1.0 if v[k, c] < 0 else 1.0
            for r in range(n):
                out[b, 1 + r, c] = v[r, c] * sign


@njit(cache=True)
def eigh_batch(a):
    """``a`` (..., n, n) -> (..., n + 1, n): eigenvalues in row 0, eigenvectors below."""
    n = a.shape[-1]
    flat = np.ascontiguousarray(a).reshape((-1, n, n))
    out = np.empty((flat.shape[0], n + 1, n), a.dtype)
    _solve_into(flat, out, True)
    return out.reshape(a.shape[:-2] + (n + 1, n))


@njit(cache=True)
def eigvalsh_batch(a):
    """``a`` (..., n, n) -> (..., n): the eigenvalues, ascending."""
    n = a.shape[-1]
    flat = np.ascontiguousarray(a).reshape((-1, n, n))
    out = np.empty((flat.shape[0], 1, n), a.dtype)
    _solve_into(flat, out, False)
    return out.reshape(a.shape[:-2] + (n,))
