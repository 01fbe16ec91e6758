"""Matrix functions: matrix_inverse, det, log_abs_det, cholesky (over the last two axes).

Numeric rules are numpy's (LAPACK); closed forms are SymPy's matrix algebra per
matrix of the batch; the derivative rules are TF's (linalg_grad.py), built from
graph ops so second derivatives need nothing special:

- inverse Y = A⁻¹:   Ā = -Yᵀ G Yᵀ
- det:               Ā = g · det A · A⁻ᵀ
- log|det A|:        Ā = g · A⁻ᵀ
- cholesky L:        Ā = sym(L⁻ᵀ Φ(Lᵀ G) L⁻¹), Φ = lower triangle with half diagonal

For the compiled path each op *decomposes* into registry primitives: Gauss-Jordan
elimination with partial pivoting (inverse, det, log|det|) and the column
Cholesky algorithm, unrolled over the (static) matrix size.

SEMANTICS (TF's behaviour at the edges):

- cholesky reads the symmetric part (A + Aᵀ)/2 (TF reads the lower triangle; the
  same for the symmetric inputs both require), so its gradient is TF's symmetric one.
- A singular matrix given to matrix_inverse: the reference evaluator raises
  ``MatrixError`` ("Input is not invertible.", TF's InvalidArgumentError in a
  session); a matrix that is not positive definite gives cholesky NaN in its lower
  triangle, zeros above, as TF 2.21's kernel (the batch's other matrices are
  factored).  The compiled evaluator returns inf/NaN.

>>> import numpy as np
>>> REGISTRY["det"].impl(np.array([[2.0, 1.0], [1.0, 3.0]]))
array(5.)
"""
from __future__ import annotations

import numpy as np
import sympy

from ..errors import MatrixError, ShapeError
from ..graph import Dim
from .base import REGISTRY, Example, F, Op, as_object_array, float_result, literal, register
from .draws import half_lower
from .linalg import matrix_t


def square_size(a, op):
    """The size n of the square matrices of shape ``a`` (..., n, n); ShapeError naming
    ``op`` if they are not square (a known size wins over an unknown one, which is
    checked when values arrive)."""
    if len(a) < 2 or a[-1] != a[-2] and not any(isinstance(d, Dim) for d in a[-2:]):
        raise ShapeError(f"{op}: needs square matrices in the last two axes, got shape {a}")
    return a[-1] if not isinstance(a[-1], Dim) else a[-2]


def _square_shape(op):
    def shape(in_shapes, **attrs):
        (a,) = in_shapes
        n = square_size(a, op)
        return a[:-2] + (n, n) if op in ("matrix_inverse", "cholesky") else a[:-2]
    return shape


def _per_matrix(fn, batch_out):
    """A symbolic rule applying ``fn`` (SymPy Matrix -> Matrix or expr) per matrix."""
    def symbolic(node, a):
        a = np.asarray(a, dtype=object)
        out = np.empty(a.shape if batch_out else a.shape[:-2], dtype=object)
        for idx in np.ndindex(a.shape[:-2]):
            value = fn(sympy.Matrix(a[idx]))
            if batch_out:
                out[idx] = np.array(value.tolist(), dtype=object)
            else:
                out[idx] = value
        return as_object_array(out)
    return symbolic


def _scalar_per_matrix(g):
    return F.reshape(g, shape=g.shape + (1, 1))


def _inverse_grad(node, g):
    y_t = matrix_t(node)
    return [F.neg(F.matmul(F.matmul(y_t, g), y_t))]


def _det_grad(node, g):
    inv_t = matrix_t(F.matrix_inverse(node.inputs[0]))
    return [F.mul(_scalar_per_matrix(F.mul(g, node)), inv_t)]


def _log_abs_det_grad(node, g):
    return [F.mul(_scalar_per_matrix(g), matrix_t(F.matrix_inverse(node.inputs[0])))]


def _cholesky_grad(node, g):
    l_inv = F.matrix_inverse(node)
    middle = F.mul(F.matmul(matrix_t(node), g), half_lower(node.graph, node.shape[-1], node.dtype))
    grad = F.matmul(F.matmul(matrix_t(l_inv), middle), l_inv)
    return [F.mul(F.add(grad, matrix_t(grad)), 0.5)]


def _cholesky_impl(a):
    sym = (a + np.swapaxes(a, -1, -2)) / 2
    try:
        return np.linalg.cholesky(sym)
    except np.linalg.LinAlgError:   # TF 2.21: NaN in the lower triangle of each such matrix
        pass
    n = sym.shape[-1]
    failed = np.where(np.tri(n, dtype=bool), np.nan, 0.0).astype(sym.dtype)
    out = np.empty_like(sym)
    for idx in np.ndindex(sym.shape[:-2]):
        try:
            out[idx] = np.linalg.cholesky(sym[idx])
        except np.linalg.LinAlgError:
            out[idx] = failed
    return out


def _inverse_impl(a):
    try:
        return np.linalg.inv(a)
    except np.linalg.LinAlgError:
        raise MatrixError("matrix_inverse: Input is not invertible. (a singular matrix: TF's "
                          "InvalidArgumentError)") from None


def _cholesky_symbolic(m):
    return ((m + m.T) / 2).cholesky(hermitian=False)


def _inverse_symbolic(m):
    det = m.det()
    return m.adjugate() / det


def _log_abs_det_impl(a):
    return np.linalg.slogdet(a)[1]


def _pd(n, batch=(), seed=0):
    rng = np.random.default_rng(seed)
    b = rng.uniform(-1, 1, size=batch + (n, n))
    return b @ np.swapaxes(b, -1, -2) + n * np.eye(n)


def _well_conditioned(n, batch=(), seed=1):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, size=batch + (n, n)) + 3 * np.eye(n)


_SQUARE = [Example(_well_conditioned(2)), Example(_well_conditioned(3)),
           Example(_well_conditioned(2, (2,)))]

register(Op("matrix_inverse", kind="special", shape=_square_shape("matrix_inverse"),
            impl=_inverse_impl, symbolic=_per_matrix(_inverse_symbolic, True),
            grad=_inverse_grad, dtype=float_result, examples=_SQUARE,
            doc="the inverse matrix Y = A⁻¹; its gradient is -Yᵀ G Yᵀ"))
register(Op("det", kind="special", shape=_square_shape("det"),
            impl=lambda a: np.asarray(np.linalg.det(a)),
            symbolic=_per_matrix(lambda m: m.det(), False), grad=_det_grad,
            dtype=float_result, examples=_SQUARE,
            doc="the determinant; its gradient is det(A) A⁻ᵀ"))
register(Op("log_abs_det", kind="special", shape=_square_shape("log_abs_det"),
            impl=_log_abs_det_impl,
            symbolic=_per_matrix(lambda m: sympy.log(sympy.Abs(m.det())), False),
            grad=_log_abs_det_grad, dtype=float_result, examples=_SQUARE,
            doc="log |det A| (slogdet's second output); its gradient is A⁻ᵀ"))
register(Op("cholesky", kind="special", shape=_square_shape("cholesky"),
            impl=_cholesky_impl, symbolic=_per_matrix(_cholesky_symbolic, True),
            grad=_cholesky_grad, dtype=float_result,
            examples=[Example(_pd(2)), Example(_pd(3)), Example(_pd(2, (2,)))],
            doc="the lower-triangular L with L Lᵀ = A (A symmetric positive definite)"))


# -- decompositions for the compiler -------------------------------------------------

def _letters(nbatch):
    return "abcdefgh"[:nbatch]


def _rows_times(vec, mat):
    """(..., n) · (..., n, m) -> (..., m): the combination of mat's rows."""
    b = _letters(vec.ndim - 1)
    return F.einsum(vec, mat, subscripts=f"{b}i,{b}ij->{b}j")


def _outer(u, v):
    b = _letters(u.ndim - 1)
    return F.einsum(u, v, subscripts=f"{b}i,{b}j->{b}ij")


def _column(m, k):
    return F.index(m, index=(Ellipsis, slice(None), k))


def gauss_jordan(a, want_inverse=True):
    """Gauss-Jordan with partial pivoting over static n: (inverse or None, pivots, flips).

    pivots[k] and flips[k] (1.0 where rows were swapped) are tensors of the batch shape.
    """
    n, g = a.shape[-1], a.graph
    batch = a.shape[:-2]
    eye = literal(g, np.broadcast_to(np.eye(n), a.shape).copy())
    m = F.concat(F.cast(a, dtype="float64"), eye, axis=a.ndim - 1) if want_inverse else \
        F.cast(a, dtype="float64")
    iota = literal(g, np.arange(n, dtype=np.float64))
    pivots, flips = [], []
    for k in range(n):
        below = literal(g, np.arange(n) >= k)
        cand = F.where(below, F.abs(_column(m, k)), -1.0)
        best = F.reduce_max(cand, axis=(cand.ndim - 1,), keepdims=True)
        first = F.reduce_min(F.where(F.equal(cand, best), iota, float(n)),
                             axis=(cand.ndim - 1,), keepdims=True)
        e_p = F.cast(F.equal(iota, first), dtype="float64")
        d = F.sub(literal(g, np.eye(n)[k]), e_p)
        row_p = _rows_times(e_p, m)
        row_k = F.index(m, index=(Ellipsis, k, slice(None)))
        m = F.add(m, _outer(d, F.sub(row_p, row_k)))  # rows k and p swapped
        pivot = F.index(row_p, index=(Ellipsis, k))
        pivots.append(pivot)
        flips.append(F.cast(F.not_equal(F.reshape(first, shape=batch), float(k)),
                            dtype="float64"))
        r = F.div(row_p, F.reshape(pivot, shape=batch + (1,)))
        others = F.where(literal(g, np.arange(n) == k), 0.0, _column(m, k))
        e_k = literal(g, np.broadcast_to(np.eye(n)[k], batch + (n,)).copy())
        m = F.add(F.sub(m, _outer(others, r)), _outer(e_k, F.sub(r, row_p)))
    inverse = F.index(m, index=(Ellipsis, slice(None), slice(n, 2 * n))) if want_inverse else None
    return inverse, pivots, flips


def _decompose_inverse(a):
    return gauss_jordan(a)[0]


def _decompose_det(a):
    _, pivots, flips = gauss_jordan(a, want_inverse=False)
    out = None
    for p, f in zip(pivots, flips):
        term = F.mul(p, F.sub(1.0, F.mul(f, 2.0)))
        out = term if out is None else F.mul(out, term)
    return out


def _decompose_log_abs_det(a):
    _, pivots, _ = gauss_jordan(a, want_inverse=False)
    out = None
    for p in pivots:
        term = F.log(F.abs(p))
        out = term if out is None else F.add(out, term)
    return out


def _decompose_cholesky(a):
    n, g = a.shape[-1], a.graph
    batch = a.shape[:-2]
    sym = F.mul(F.add(F.cast(a, dtype="float64"), matrix_t(F.cast(a, dtype="float64"))), 0.5)
    b = _letters(len(batch))
    cols = []
    for j in range(n):
        c = _column(sym, j)
        if cols:
            done = F.concat(*cols, axis=len(batch) + 1)  # (..., n, j)
            lj = F.index(done, index=(Ellipsis, j, slice(None)))
            c = F.sub(c, F.einsum(done, lj, subscripts=f"{b}ik,{b}k->{b}i"))
        d = F.sqrt(F.index(c, index=(Ellipsis, j)))
        col = F.where(literal(g, np.arange(n) >= j), F.div(c, F.reshape(d, shape=batch + (1,))),
                      0.0)
        cols.append(F.reshape(col, shape=batch + (n, 1)))
    return F.concat(*cols, axis=len(batch) + 1)


REGISTRY["matrix_inverse"].decompose = _decompose_inverse
REGISTRY["det"].decompose = _decompose_det
REGISTRY["log_abs_det"].decompose = _decompose_log_abs_det
REGISTRY["cholesky"].decompose = _decompose_cholesky
