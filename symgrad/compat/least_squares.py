"""``tf.matrix_solve_ls`` (``tf.linalg.lstsq``): least squares ``min ||A x - b||² +
λ||x||²`` through the normal equations, as TF's ``fast=True`` path solves it.

With A of shape [..., m, n]: for m >= n, x = (AᵀA + λI)⁻¹ Aᵀ b; for m < n (an
underdetermined system, the least-norm solution), x = Aᵀ (AAᵀ + λI)⁻¹ b; each system
goes through a Cholesky factor, so gradients follow from ``cholesky`` and
``cholesky_solve``.  ``fast=False`` (TF's complete orthogonal decomposition, for
rank-deficient A) is solved the same way: equal for full-rank A, and a rank-deficient
A makes the Cholesky factor fail instead of giving TF's minimum-norm answer.

Sits in ``compat``; imports ``tracing`` only.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     A = tf.constant([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]], tf.float64)
...     b = tf.constant([[1.0], [2.0], [4.0]], tf.float64)
...     print(tf.Session().run(tf.matrix_solve_ls(A, b)).round(6).tolist())
[[0.833333], [1.5]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing import linalg as _linalg
from ..errors import ShapeError

__all__ = ["matrix_solve_ls"]


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """``tf.matrix_solve_ls`` (module docstring): x of shape [..., n, k] for A [..., m, n]
    and b [..., m, k]."""
    a, b = _t.as_tensor(matrix), _t.as_tensor(rhs)
    if a.ndim < 2 or b.ndim < 2:
        raise ShapeError(f"matrix_solve_ls: matrix and rhs must be matrices (or batches), "
                         f"got shapes {a.shape} and {b.shape}")
    m, n = a.shape[-2], a.shape[-1]
    if not isinstance(m, int) or not isinstance(n, int):
        raise ShapeError(f"matrix_solve_ls: the matrix's last two sizes must be known when "
                         f"the graph is built, got shape {a.shape}")
    lam = _t.cast(_t.as_tensor(l2_regularizer), a.dtype)
    if m >= n:
        gram = _t.matmul(a, a, transpose_a=True) + lam * np.eye(n, dtype=a.dtype)
        x = _linalg.cholesky_solve(_linalg.cholesky(gram), _t.matmul(a, b, transpose_a=True))
    else:
        gram = _t.matmul(a, a, transpose_b=True) + lam * np.eye(m, dtype=a.dtype)
        x = _t.matmul(a, _linalg.cholesky_solve(_linalg.cholesky(gram), b), transpose_a=True)
    return _t.identity(x, name=name) if name else x
