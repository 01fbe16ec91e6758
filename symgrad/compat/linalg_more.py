"""``tf.linalg`` functions built from symgrad's matrix ops.

- ``matvec(a, b)``: ``a @ b`` for a batch of vectors b (``transpose_a``/``adjoint_a``).
- ``normalize(tensor, ord, axis)``: ``(tensor / norm, norm)``.
- ``pinv(a)``: the Moore–Penrose inverse of a full-rank matrix, ``(aᵀa)⁻¹aᵀ`` when it has
  at least as many rows as columns, else ``aᵀ(aaᵀ)⁻¹``; there (where it is smooth) its
  value and gradient are the pseudo-inverse's.  symgrad differs: TF computes it with an
  SVD, which also handles rank-deficient matrices (``rcond``); symgrad has no SVD, so
  for them the value is wrong (a singular Gram matrix) — use full-rank matrices.
- ``tridiagonal_matmul`` and ``tridiagonal_solve`` (the "compact" [..., 3, M] and
  "sequence" formats): the dense matrix is built and multiplied or solved (O(M²)
  memory, fine for the sizes graphs hold; TF uses the Thomas algorithm).

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run(tf.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])))
[3. 7.]
"""
from __future__ import annotations

from .. import tracing as _t
from .norms import norm as _norm
from .v1_ops import linalg as _linalg

__all__ = ["matvec", "normalize", "pinv", "tridiagonal_matmul", "tridiagonal_solve"]


def _lift(x):
    return _t.functions._lift([x])[0]


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``a @ b[..., None]`` without the last axis: matrices times vectors."""
    a, b = _lift(a), _lift(b)
    y = _t.matmul(a, _t.expand_dims(b, -1), transpose_a=transpose_a or adjoint_a)
    return _t.squeeze(y, [-1], name=name)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """``(tensor / norm(tensor, ord, axis), norm)``, the norm with the reduced axes kept."""
    x = _lift(tensor)
    norm = _norm(x, ord=ord, axis=axis, keepdims=True)
    return _t.divide(x, norm, name=name), norm


def pinv(a, rcond=None, validate_args=False, name=None):
    """The pseudo-inverse of a full-rank matrix (module docstring)."""
    a = _lift(a)
    if a.ndim < 2:
        raise ValueError(f"tf.linalg.pinv: a must be a matrix (or a batch of them), got "
                         f"shape {a.shape}")
    rows, cols = a.shape[-2], a.shape[-1]
    if not isinstance(rows, int) or not isinstance(cols, int):
        raise ValueError("tf.linalg.pinv: the matrix sizes must be known when the graph is "
                         "built")
    if rows >= cols:   # (aᵀa)⁻¹aᵀ
        gram = _t.matmul(a, a, transpose_a=True)
        return _t.identity(_linalg.solve(gram, _t.linalg.matrix_transpose(a)), name=name)
    gram = _t.matmul(a, a, transpose_b=True)   # aᵀ(aaᵀ)⁻¹ = (solve(aaᵀ, a))ᵀ
    return _t.linalg.matrix_transpose(_linalg.solve(gram, a), name=name)


def _dense(superdiag, maindiag, subdiag):
    """The [..., M, M] matrix with the three diagonals (superdiag's last and subdiag's
    first entries are ignored, as TF's)."""
    sup, main, sub = _lift(superdiag), _lift(maindiag), _lift(subdiag)
    batch = [[0, 0]] * (main.ndim - 1)
    upper = _t.pad(_linalg.diag(sup[..., :-1]), batch + [[0, 1], [1, 0]])
    lower = _t.pad(_linalg.diag(sub[..., 1:]), batch + [[1, 0], [0, 1]])
    return _linalg.diag(main) + upper + lower


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """The tridiagonal matrix (``compact`` [..., 3, M]: super, main, sub; ``sequence``: the
    three) times ``rhs`` [..., M, N]."""
    t = _lift(diagonals) if diagonals_format == "matrix" else \
        _dense(*_three(diagonals, diagonals_format, "tridiagonal_matmul"))
    return _t.matmul(t, rhs, name=name)


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False,
                      conjugate_rhs=False, name=None, partial_pivoting=True,
                      perturb_singular=False):
    """``x`` with ``T x = rhs`` for the tridiagonal T (formats as ``tridiagonal_matmul``;
    ``matrix``: T itself)."""
    if diagonals_format == "matrix":
        t = _lift(diagonals)
    else:
        t = _dense(*_three(diagonals, diagonals_format, "tridiagonal_solve"))
    rhs = _lift(rhs)
    if transpose_rhs:
        rhs = _t.linalg.matrix_transpose(rhs)
    vector = rhs.ndim == t.ndim - 1
    x = _linalg.solve(t, _t.expand_dims(rhs, -1) if vector else rhs)
    return _t.squeeze(x, [-1], name=name) if vector else _t.identity(x, name=name)


def _three(diagonals, fmt, what):
    if fmt == "sequence":
        if len(diagonals) != 3:
            raise ValueError(f"tf.linalg.{what}: diagonals_format='sequence' takes a list of "
                             f"three tensors (super, main, sub), got {len(diagonals)}")
        return diagonals
    if fmt != "compact":
        raise ValueError(f"tf.linalg.{what}: diagonals_format={fmt!r}; use 'compact', "
                         "'sequence' (or 'matrix' for tridiagonal_solve)")
    d = _lift(diagonals)
    if d.ndim < 2 or d.shape[-2] != 3:
        raise ValueError(f"tf.linalg.{what}: compact diagonals must have shape [..., 3, M], "
                         f"got {d.shape}")
    return d[..., 0, :], d[..., 1, :], d[..., 2, :]
