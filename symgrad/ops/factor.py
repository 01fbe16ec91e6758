"""Singular value and QR decompositions: ``svd``, ``singular_values``, ``qr``.

Each factorisation is one node whose value packs its factors in one array (the front
ends slice them apart, so that the cotangents of all of them reach this one node's
derivative rule together), for an input ``(..., m, n)`` with k = min(m, n) (m or n
for a factor of full size, ``full``):

- ``svd``: ``(..., 1 + m + n, w)``: row 0 the singular values s (k, descending),
  rows 1..m the left vectors u (m columns: k, or m when full), rows m+1..m+n the right
  vectors v (n columns: k, or n when full); w the widest of them;
- ``singular_values``: s alone, ``(..., k)``;
- ``qr``: ``(..., m + kq, w)``: q in rows 0..m-1 (kq = k columns, or m when full), r
  in the rows below (n columns); w = max(kq, n), the rest zeros.

Derivative rules are TF's (``linalg_grad.py``: ``_SvdGrad`` with its safe reciprocal
``x / (x² + 1e-20)``, ``_QrGrad``), built from graph ops so second derivatives need
nothing special; ``singular_values``' is ``u diag(s̄) vᵀ``.  As in TF, a full-size
SVD has a gradient only for |m - n| <= 1, and a full-size QR of a tall matrix none.

SEMANTICS: QR's signs are LAPACK's Householder convention, which TF's kernel shares
(r's diagonal opposite in sign to each pivot), so q and r equal TF's.  Singular
vectors are defined up to a sign shared by u's and v's column: symgrad makes each
column of u have its entry of largest magnitude positive (``eigen.signed``), where
TF's signs are its kernel's; products that do not depend on the signs (u diag(s) vᵀ,
s itself, their gradients) match TF.  No closed forms.  Compiled, these call LAPACK
in a driver between kernels (``lower.lapack``), as ``eigh`` does.

>>> REGISTRY["singular_values"].impl(np.array([[3.0, 0.0], [0.0, -4.0]])).tolist()
[4.0, 3.0]
"""
from __future__ import annotations

import numpy as np

from ..errors import GradientNotImplementedError, ShapeError
from ..graph import Dim
from .base import REGISTRY, Example, F, Op, float_result, literal, register
from .draws import band_mask
from .eigen import _no_closed_form, as_float, column_signs, finite_matrices
from .linalg import matrix_t


def _sizes(a, op):
    """(m, n, k) of matrices of shape ``a`` (their sizes must be known)."""
    if len(a) < 2 or any(isinstance(d, Dim) for d in a[-2:]):
        raise ShapeError(f"{op}: needs matrices of known size in the last two axes, got "
                         f"shape {a}")
    m, n = a[-2:]
    k = min(m, n)
    return m, n, k


def _svd_shape(in_shapes, full=False):
    (a,) = in_shapes
    m, n, k = _sizes(a, "svd")
    return a[:-2] + (1 + m + n, max(m, n) if full else k)


def _qr_shape(in_shapes, full=False):
    (a,) = in_shapes
    m, n, k = _sizes(a, "qr")
    kq = m if full else k
    return a[:-2] + (m + kq, max(kq, n))


def svd_factors(a, full=False):
    """``(s, u, v)`` of each matrix of ``a``: u's columns signed by
    ``eigen.column_signs`` and v's first k columns with them (its others, a full v's,
    signed on their own); NaN for a matrix holding inf or NaN."""
    a, bad = finite_matrices(a)
    u, s, vh = np.linalg.svd(a, full_matrices=full)
    v = np.swapaxes(vh, -1, -2)
    k = s.shape[-1]
    signs = column_signs(u)
    u *= signs
    v[..., :, :k] *= signs[..., :k]
    v[..., :, k:] *= column_signs(v[..., :, k:])
    for x in (s, u, v):
        x[bad] = np.nan
    return s, u, v


def _svd_impl(a, full=False):
    s, u, v = svd_factors(a, full)
    m = u.shape[-2]
    out = np.zeros(a.shape[:-2] + _svd_shape([a.shape], full)[-2:], s.dtype)
    out[..., 0, :s.shape[-1]] = s
    out[..., 1:1 + m, :u.shape[-1]] = u
    out[..., 1 + m:, :v.shape[-1]] = v
    return out


def _qr_impl(a, full=False):
    a = as_float(a)
    q, r = np.linalg.qr(a, mode="complete" if full else "reduced")
    m, kq = q.shape[-2:]
    out = np.zeros(a.shape[:-2] + _qr_shape([a.shape], full)[-2:], q.dtype)
    out[..., :m, :kq] = q
    out[..., m:, :r.shape[-1]] = r
    return out


def _block(x, rows, cols):
    return F.index(x, index=(Ellipsis, slice(*rows), slice(*cols)))


def svd_parts(packed, m, n, full):
    """``(s, u, v)`` of a packed ``svd`` value or cotangent."""
    k = min(m, n)
    return (F.index(packed, index=(Ellipsis, 0, slice(0, k))),
            _block(packed, (1, 1 + m), (0, m if full else k)),
            _block(packed, (1 + m, 1 + m + n), (0, n if full else k)))


def qr_parts(packed, m, n, full):
    """``(q, r)`` of a packed ``qr`` value or cotangent."""
    kq = m if full else min(m, n)
    return _block(packed, (0, m), (0, kq)), _block(packed, (m, m + kq), (0, n))


def _safe_reciprocal(x):
    """TF's ``_SafeReciprocal``: x / (x² + 1e-20), 0 at 0."""
    return F.div(x, F.add(F.mul(x, x), literal(x.graph, np.asarray(1e-20, x.dtype))))


def _diag(v):
    """Square matrices with ``v`` (last axis) on the diagonal."""
    k = v.shape[-1]
    return F.mul(F.index(v, index=(Ellipsis, None, slice(None))),
                 band_mask(v.graph, k, k, 0, 0, v.dtype))


def _svd_grad(node, g):
    m, n = node.inputs[0].shape[-2:]
    full = node.attrs["full"]
    if full and abs(m - n) > 1:
        raise GradientNotImplementedError(
            "svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True "
            f"(node {node.name!r}, shape {node.inputs[0].shape}, as in TF): use "
            "full_matrices=False")
    s, u, v = svd_parts(node, m, n, full)
    gs, gu, gv = svd_parts(g, m, n, full)
    wide = m <= n   # else: the gradient of Aᵀ = V diag(s) Uᵀ, transposed at the end
    if not wide:
        m, n, u, v, gu, gv = n, m, v, u, gv, gu
    s_mat, s2 = _diag(s), F.mul(s, s)
    k = s.shape[-1]
    # 1 / (s[j]² - s[i]²), its diagonal set to 0 as TF's matrix_set_diag does: a select,
    # so that no cotangent reaches the reciprocal's 1e20 slope there (second order)
    f = F.where(band_mask(s.graph, k, k, 0, 0, np.bool_), literal(s.graph, np.zeros((), s.dtype)),
                _safe_reciprocal(F.sub(F.index(s2, index=(Ellipsis, None, slice(None))),
                                       F.index(s2, index=(Ellipsis, slice(None), None)))))
    v1, gv1 = _block(v, (0, n), (0, m)), _block(gv, (0, n), (0, m))
    f_u = F.mul(f, F.matmul(matrix_t(u), gu))
    f_v = F.mul(f, F.matmul(matrix_t(v1), gv1))
    inner = F.add(F.add(_diag(gs), F.matmul(F.add(f_u, matrix_t(f_u)), s_mat)),
                  F.matmul(s_mat, F.add(f_v, matrix_t(f_v))))
    grad = F.matmul(u, F.matmul(inner, matrix_t(v1)))
    if m != n:
        gv1t = matrix_t(gv1)
        rest = F.sub(gv1t, F.matmul(F.matmul(gv1t, v1), matrix_t(v1)))
        if full:
            v2, gv2 = _block(v, (0, n), (m, n)), _block(gv, (0, n), (m, n))
            rest = F.sub(rest, F.matmul(F.matmul(matrix_t(v1), gv2), matrix_t(v2)))
        grad = F.add(grad, F.matmul(F.matmul(u, _diag(_safe_reciprocal(s))), rest))
    return [grad if wide else matrix_t(grad)]


def _singular_values_grad(node, g):
    a = node.inputs[0]
    m, n = a.shape[-2:]
    _, u, v = svd_parts(F.svd(a, full=False), m, n, False)
    scaled = F.mul(u, F.index(g, index=(Ellipsis, None, slice(None))))   # u diag(s̄)
    return [F.matmul(scaled, matrix_t(v))]


def _solve_upper_t(x, r):
    """x r⁻ᵀ for an upper triangular r (TF's ``_TriangularSolve``)."""
    return F.matmul(x, matrix_t(F.matrix_inverse(r)))


def _qr_square_deep(q, r, dq, dr):
    qdq = F.matmul(matrix_t(q), dq)
    rdr = F.matmul(r, matrix_t(dr))
    both = F.add(F.sub(qdq, matrix_t(qdq)), F.sub(rdr, matrix_t(rdr)))
    k = both.shape[-1]
    tril = F.where(band_mask(both.graph, k, k, -1, 0, np.bool_), both,
                   literal(both.graph, np.zeros((), both.dtype)))
    grad_a = F.matmul(q, F.add(dr, _solve_upper_t(tril, r)))
    return F.add(grad_a, _solve_upper_t(F.sub(dq, F.matmul(q, qdq)), r))


def _qr_grad(node, g):
    a = node.inputs[0]
    m, n = a.shape[-2:]
    full = node.attrs["full"]
    if full and m > n:
        raise GradientNotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true (node "
            f"{node.name!r}, shape {a.shape}, as in TF): use full_matrices=False")
    q, r = qr_parts(node, m, n, full)
    dq, dr = qr_parts(g, m, n, full)
    if m >= n:
        return [_qr_square_deep(q, r, dq, dr)]
    # a = [x, y], r = [u, v]: the square case for x, and y's part
    y, dv = _block(a, (0, m), (m, n)), _block(dr, (0, m), (m, n))
    dx = _qr_square_deep(q, _block(r, (0, m), (0, m)), F.add(dq, F.matmul(y, matrix_t(dv))),
                         _block(dr, (0, m), (0, m)))
    return [F.concat(dx, F.matmul(q, dv), axis=a.ndim - 1)]


def _matrices(shape, seed):
    rng = np.random.default_rng(seed)
    # well-separated singular values: TF's 1 / (s[j]² - s[i]²) stays moderate
    a = rng.uniform(-1, 1, size=shape)
    k = min(shape[-2:])
    a[..., np.arange(k), np.arange(k)] += 2.0 * np.arange(1, k + 1)
    return a


register(Op("svd", kind="special", shape=_svd_shape, impl=_svd_impl,
            symbolic=_no_closed_form, grad=_svd_grad, dtype=float_result,
            examples=[Example(_matrices((3, 2), 7), full=False),
                      Example(_matrices((2, 3), 8), full=False),
                      Example(_matrices((2, 2, 2), 9), full=False),
                      Example(_matrices((2, 3), 10), full=True)],
            doc="singular values (row 0), left and right singular vectors (below), packed"))
register(Op("singular_values", kind="special", shape=lambda in_shapes: in_shapes[0][:-2] + (
                min(_sizes(in_shapes[0], "svd")[:2]),),
            impl=lambda a: svd_factors(a)[0], symbolic=_no_closed_form,
            grad=_singular_values_grad, dtype=float_result,
            examples=[Example(_matrices((3, 2), 11)), Example(_matrices((2, 2, 3), 12))],
            doc="the singular values, descending; their gradient is u diag(s̄) vᵀ"))
register(Op("qr", kind="special", shape=_qr_shape, impl=_qr_impl,
            symbolic=_no_closed_form, grad=_qr_grad, dtype=float_result,
            examples=[Example(_matrices((3, 2), 13), full=False),
                      Example(_matrices((2, 3), 14), full=False),
                      Example(_matrices((2, 2, 2), 15), full=False)],
            doc="q (rows 0..m-1) and r (below) of the QR decomposition, packed"))
for _name in ("svd", "singular_values", "qr"):
    REGISTRY[_name].closed_form = False   # (the registry tests read it)
    REGISTRY[_name].driven = True   # compiled as a driver's call (lower.control, lower.lapack)
    REGISTRY[_name].static_matrices = True   # matrices of unknown size: a ShapeError
