"""LAPACK for compiled graphs: ``eigh``, ``eigvalsh``, ``svd``, ``singular_values``, ``qr``.

The loop IR has no way to express an iterative eigensolver, so ``sg.compile`` treats
these nodes as it treats control flow (``lower.control``): the kernels around them
are compiled as usual and a small driver calls ``<op>_batch`` between them, which runs
Numba's ``np.linalg.eigh``, ``svd`` or ``qr`` (LAPACK) matrix by matrix, and packs the
factors as ``ops.eigen`` and ``ops.factor`` do.  Each reads the lower triangle, gives a matrix holding inf or NaN
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
def _sign_of(x, c):
    """-1.0 where column ``c`` of ``x`` has its first entry of largest magnitude (within
    ``NEAR_TOP``) negative, else 1.0 (``ops.eigen.column_signs``)."""
    top = 0.0
    for r in range(x.shape[0]):
        top = max(top, abs(x[r, c]))
    k = 0
    while k < x.shape[0] - 1 and abs(x[k, c]) < top * NEAR_TOP:
        k += 1
    return -1.0 if x[k, c] < 0 else 1.0


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
            sign = _sign_of(v, c)
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


@njit(cache=True)
def svd_batch(a, full):
    """``a`` (..., m, n) -> ``ops.factor``'s packed svd: s in row 0, u in rows 1..m, v
    below; u's columns signed, v's first k with them, a full v's others on their own."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    flat = np.ascontiguousarray(a).reshape((-1, m, n))
    width = max(m, n) if full else k
    out = np.zeros((flat.shape[0], 1 + m + n, width), a.dtype)
    for b in range(flat.shape[0]):
        if not np.isfinite(flat[b]).all():
            out[b] = np.nan
            continue
        u, s, vh = np.linalg.svd(flat[b], full_matrices=full)
        out[b, 0, :k] = s
        for c in range(u.shape[1]):
            sign = _sign_of(u, c)
            for r in range(m):
                out[b, 1 + r, c] = u[r, c] * sign
            if c < k:
                for r in range(n):
                    out[b, 1 + m + r, c] = vh[c, r] * sign
        v = vh.T
        for c in range(k, v.shape[1]):
            sign = _sign_of(v, c)
            for r in range(n):
                out[b, 1 + m + r, c] = vh[c, r] * sign
    return out.reshape(a.shape[:-2] + (1 + m + n, width))


@njit(cache=True)
def singular_values_batch(a):
    """``a`` (..., m, n) -> (..., min(m, n)): the singular values, descending."""
    m, n = a.shape[-2], a.shape[-1]
    flat = np.ascontiguousarray(a).reshape((-1, m, n))
    out = np.empty((flat.shape[0], min(m, n)), a.dtype)
    for b in range(flat.shape[0]):
        if np.isfinite(flat[b]).all():
            out[b] = np.linalg.svd(flat[b], full_matrices=False)[1]
        else:
            out[b] = np.nan
    return out.reshape(a.shape[:-2] + (min(m, n),))


@njit(cache=True)
def qr_batch(a):
    """``a`` (..., m, n) -> ``ops.factor``'s packed reduced qr: q in rows 0..m-1, r below
    (LAPACK's signs, which TF's kernel shares)."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    flat = np.ascontiguousarray(a).reshape((-1, m, n))
    out = np.zeros((flat.shape[0], m + k, max(k, n)), a.dtype)
    for b in range(flat.shape[0]):
        q, r = np.linalg.qr(flat[b])
        out[b, :m, :k] = q
        out[b, m:, :n] = r
    return out.reshape(a.shape[:-2] + (m + k, max(k, n)))
