"""``sg.linalg``: matrix functions over the last two axes (batches in front).

``inv``, ``det``, ``slogdet`` and ``cholesky`` are registry primitives
(``ops.linalg_ops``: TF's gradients, Gauss-Jordan/Cholesky in the compiled path), and
so are ``eigh``, ``eigvalsh``, ``svd`` and ``qr`` (``ops.eigen``, ``ops.factor``: TF's
gradients, LAPACK when compiled);
``logdet``, ``solve``, ``triangular_solve``, ``cholesky_solve`` and ``band_part``
are composed from them, so their gradients are TF's formulas.

SEMANTICS (TF's behaviour):

- ``logdet`` is TF's ``2 * sum(log(diag(cholesky(A))))``: for symmetric positive
  definite A, with TF's symmetric gradient A⁻¹.
- ``solve``/``triangular_solve`` multiply by the inverse (the same numbers up to
  rounding as LAPACK's solvers; their gradients are TF's: the rhs gets
  ``solve(Aᵀ, G)``, A gets ``-solve(Aᵀ, G) Xᵀ``, masked to the triangle).
- ``slogdet``'s sign carries no gradient.

- ``diag(v)`` builds a matrix with ``v`` on its diagonal; ``diag_part(m)`` reads
  the diagonal; their gradients are each other (TF).
- ``norm`` is the vector/Frobenius norm (``ord`` 'euclidean', 1 or inf over ``axis``).

>>> with Graph().as_default():
...     m = constant([[1.0, 2.0], [3.0, 4.0]])
...     trace(m).numpy(), diag_part(m).numpy().tolist()
(np.float64(5.0), [1.0, 4.0])
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..ops import apply
from ..ops.factor import qr_parts, svd_parts
from ..graph import Dim
from .arrays import band_mask, eye
from .pads import pad
from .arguments import publish
from .functions import (_lift, log, matmul, norm, reduce_sum, sign, where,  # noqa: F401
                        stop_gradient, trace)
from .math_ops import named
from .tensor import Graph, constant  # noqa: F401  (doctests)

__all__ = ["matmul", "matrix_transpose", "transpose", "adjoint", "trace", "diag", "diag_part",
           "eye", "norm", "tensor_diag", "tensor_diag_part", "inv", "det", "slogdet", "logdet",
           "cholesky", "solve", "triangular_solve", "cholesky_solve", "band_part", "eigh",
           "eigvalsh", "svd", "qr"]
# the functions TF also has at the top level (tf.trace, tf.diag, tf.matrix_transpose, ...)
TOP_LEVEL = ["matrix_transpose", "diag_part"]


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """The last two axes swapped."""
    (x,) = _lift([a])
    if x.ndim < 2:
        raise ShapeError(f"matrix_transpose: needs rank >= 2, got shape {x.shape}")
    perm = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return apply("transpose", [x], perm=perm, name=None if name == "matrix_transpose" else name)


transpose = adjoint = matrix_transpose


def diagonal_k(k, what):
    """TF's ``k`` as one diagonal offset (0: the main one, > 0 above, < 0 below); a
    band ``(k0, k1)`` of several diagonals is refused, saying what to do instead."""
    ks = np.asarray(k).reshape(-1)
    if ks.size == 2 and ks[0] == ks[1]:
        ks = ks[:1]
    if ks.size != 1:
        raise ShapeError(f"{what}(k={np.asarray(k).tolist()}): symgrad takes one diagonal "
                         f"(an int k); stack the results of one call per diagonal")
    return int(ks[0])


def offset_diagonal(v, rows, cols, k):
    """Matrices of shape (rows, cols) holding ``v`` (last axis) on diagonal ``k``: v's
    diagonal matrix padded so that entry i lands at (i + max(0, -k), i + max(0, k))."""
    n, r0, c0 = v.shape[-1], max(0, -k), max(0, k)
    batch = [[0, 0]] * (v.ndim - 1)
    square = diag(v)
    if not k and (rows, cols) == (n, n):
        return square
    return pad(square, batch + [[r0, rows - n - r0], [c0, cols - n - c0]])


def diag(diagonal, name="diag", k=0):
    """Matrices with ``diagonal`` (last axis) on their diagonal ``k`` (0: the main one),
    zeros elsewhere: n + |k| square, as TF's ``tf.linalg.diag``."""
    (v,) = _lift([diagonal])
    k = diagonal_k(k, "diag")
    if v.ndim < 1:
        raise ShapeError(f"diag: needs a tensor of rank >= 1, got shape {v.shape}")
    if k:
        size = v.shape[-1] + abs(k)
        return named(offset_diagonal(v, size, size, k), None if name == "diag" else name)
    n = v.shape[-1]
    ones = band_mask(v.graph, n, n, 0, 0, v.dtype if v.dtype.kind != "b" else np.int64)
    out = apply("reshape", [v], shape=v.shape + (1,)) * ones
    return named(out, None if name == "diag" else name)


def diag_part(input, name="diag_part", k=0):
    """Diagonal ``k`` (0: the main one, > 0 above) of the last two axes."""
    (x,) = _lift([input])
    k = diagonal_k(k, "diag_part")
    if x.ndim < 2:
        raise ShapeError(f"diag_part: needs a tensor of rank >= 2, got shape {x.shape}")
    rows, cols = x.shape[-2:]
    if isinstance(rows, Dim) or isinstance(cols, Dim):   # sizes known at run time
        if rows != cols or k:
            raise ShapeError(f"diag_part: a matrix of shape {x.shape} with sizes known at run "
                             "time must be square (the same size), read at k=0")
        picked = x * band_mask(x.graph, rows, cols, 0, 0, x.dtype)
        return reduce_sum(picked, axis=-1, name=None if name == "diag_part" else name)
    r0, c0 = max(0, -k), max(0, k)
    i = np.arange(max(0, min(rows - r0, cols - c0)))
    index = (Ellipsis, r0 + i, c0 + i)
    return apply("index", [x], index=index, name=None if name == "diag_part" else name)


def tensor_diag(diagonal, name=None):
    """TF1's ``tf.diag`` for a vector: the square diagonal matrix."""
    return diag(diagonal, name=name or "diag")


def tensor_diag_part(input, name=None):
    """TF1's ``tf.diag_part`` for a matrix: its diagonal."""
    return diag_part(input, name=name or "diag_part")


def inv(input, adjoint=False, name=None):
    """The inverse of each matrix (``adjoint``: of its transpose).

    >>> with Graph().as_default():
    ...     inv(constant([[2.0, 0.0], [0.0, 4.0]])).numpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    (x,) = _lift([input])
    return apply("matrix_inverse", [matrix_transpose(x) if adjoint else x], name=name)


def det(input, name=None):
    """The determinant of each matrix."""
    return apply("det", _lift([input]), name=name)


def slogdet(input, name=None):
    """``(sign, log|det|)`` of each matrix; the sign carries no gradient."""
    (x,) = _lift([input])
    return stop_gradient(sign(det(x))), apply("log_abs_det", [x], name=name)


def cholesky(input, name=None):
    """The lower-triangular Cholesky factor of each symmetric positive definite matrix."""
    return apply("cholesky", _lift([input]), name=name)


def eigh(tensor, name=None):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors (columns) of each
    symmetric matrix, read from its lower triangle; each eigenvector's entry of largest
    magnitude is positive (``ops.eigen``).

    >>> with Graph().as_default():
    ...     e, v = eigh(constant([[2.0, 1.0], [1.0, 2.0]]))
    ...     e.numpy().round(6).tolist()
    [1.0, 3.0]
    """
    packed = apply("eigh", _lift([tensor]), name=name)
    return (apply("index", [packed], index=(Ellipsis, 0, slice(None))),
            apply("index", [packed], index=(Ellipsis, slice(1, None), slice(None))))


def eigvalsh(tensor, name=None):
    """The eigenvalues (ascending) of each symmetric matrix, read from its lower triangle."""
    return apply("eigvalsh", _lift([tensor]), name=name)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """TF's order: ``(s, u, v)`` with ``a = u diag(s) vᵀ`` (s descending), or ``s`` alone
    (``compute_uv=False``); u's columns are signed as ``eigh``'s eigenvectors, v's with
    them (``ops.factor``).

    >>> with Graph().as_default():
    ...     svd(constant([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False).numpy().tolist()
    [4.0, 3.0]
    """
    (x,) = _lift([tensor])
    if not compute_uv:
        return apply("singular_values", [x], name=name)
    m, n = x.shape[-2:] if x.ndim >= 2 else (None, None)
    packed = apply("svd", [x], full=bool(full_matrices), name=name)
    return svd_parts(packed, m, n, bool(full_matrices))


def qr(input, full_matrices=False, name=None):
    """``(q, r)`` with ``a = q r``, r upper triangular with LAPACK's (and TF's) signs."""
    (x,) = _lift([input])
    packed = apply("qr", [x], full=bool(full_matrices), name=name)
    return qr_parts(packed, *x.shape[-2:], bool(full_matrices))


def logdet(matrix, name=None):
    """log det of symmetric positive definite matrices, TF's way (through Cholesky)."""
    chol = cholesky(matrix)
    return named(2.0 * reduce_sum(log(diag_part(chol)), axis=-1), name)


def solve(matrix, rhs, adjoint=False, name=None):
    """X with A X = rhs (``adjoint``: Aᵀ X = rhs)."""
    a, b = _lift([matrix, rhs])
    return matmul(inv(a, adjoint=adjoint), b, name=name)


def band_part(input, num_lower, num_upper, name=None):
    """Entries within ``num_lower`` below and ``num_upper`` above the diagonal (-1: all)."""
    (x,) = _lift([input])
    if x.ndim < 2:
        raise ShapeError(f"band_part: needs matrices (rank >= 2), got shape {x.shape}")
    rows, cols = x.shape[-2:]
    # a selection, as TF's kernel copies: +0 outside the band, whatever is there
    # (x * mask made -0 of negative entries and NaN of infinite ones)
    keep = band_mask(x.graph, rows, cols, int(num_lower), int(num_upper), np.bool_)
    return where(keep, x, np.zeros((), x.dtype), name=name)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with T X = rhs, T the lower (or upper) triangle of ``matrix``."""
    a, b = _lift([matrix, rhs])
    tri = band_part(a, -1, 0) if lower else band_part(a, 0, -1)
    return solve(tri, b, adjoint=adjoint, name=name)


def cholesky_solve(chol, rhs, name=None):
    """X with A X = rhs, given A's Cholesky factor L (A = L Lᵀ)."""
    l, b = _lift([chol, rhs])
    y = triangular_solve(l, b, lower=True)
    return triangular_solve(l, y, lower=True, adjoint=True, name=name)


# every public function checks its arity and argument kinds and records calls meeting a
# tensor of unknown rank (tracing.arguments)
publish(globals(), counts={"slogdet": 2, "eigh": 2, "qr": 2})
