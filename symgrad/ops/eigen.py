"""Symmetric eigendecompositions: ``eigh`` and ``eigvalsh`` (over the last two axes).

TF's ``self_adjoint_eig`` reads the lower triangle of each matrix and gives its
eigenvalues in ascending order with the eigenvectors as columns.  ``eigh`` gives
both in one array of shape ``(..., n + 1, n)``: row 0 holds the eigenvalues, rows 1
to n the eigenvectors (the front ends slice them apart, so that a gradient reaching
either is one cotangent of this one node); ``eigvalsh`` gives the eigenvalues alone.

The derivative rules are TF's (``linalg_grad.py``), built from graph ops so second
derivatives need nothing special.  With e the eigenvalues, V the eigenvectors and
F[i, j] = 1 / (e[j] - e[i]) off the diagonal (0 on it):

- eigh:      Ā = V (diag(ē) + F ∘ (Vᵀ V̄)) Vᵀ,
- eigvalsh:  Ā = V diag(ē) Vᵀ,

each then read as the lower triangle does: the symmetric part's lower triangle, the
diagonal once (``draws.half_lower``), since only that triangle is read.  Where two
eigenvalues are equal the eigenvectors are not defined and F is infinite (TF's
gradient is too); eigvalsh's gradient stays finite there.

SEMANTICS: an eigenvector is defined up to its sign.  symgrad makes each one's entry
of largest magnitude positive (the first such entry where several tie), in the
reference evaluator and the compiled code alike; TF's signs are whatever its kernel
gives (they agree with this convention in about one matrix in five), so values that
do not depend on the signs (V diag(e) Vᵀ, projections onto eigenvectors squared,
gradients of such values) match TF, and eigenvectors may differ from TF's by a sign.
A matrix holding inf or NaN in its lower triangle gives NaN (eigenvalues and
eigenvectors); above it, as TF, nothing is read.

No closed form: ``symbolic`` raises NoClosedFormError.  The compiled path calls
LAPACK through Numba (``lower.control``'s drivers ``eigh`` and ``eigvalsh``, and
``lower.runtime.eigh_batch``).

>>> a = np.array([[2.0, 1.0], [1.0, 2.0]])
>>> REGISTRY["eigh"].impl(a).round(6).tolist()
[[1.0, 3.0], [0.707107, 0.707107], [-0.707107, 0.707107]]
"""
from __future__ import annotations

import numpy as np

from ..errors import NoClosedFormError
from .base import REGISTRY, Example, F, Op, float_result, literal, register
from .draws import band_mask, half_lower
from .linalg import matrix_t
from .linalg_ops import square_size


def _shape(packed):
    def shape(in_shapes, **attrs):
        (a,) = in_shapes
        n = square_size(a, "eigh" if packed else "eigvalsh")
        return a[:-2] + ((n + 1, n) if packed else (n,))
    return shape


NEAR_TOP = 1.0 - 1e-6   # entries this close to a column's largest magnitude count as equal


def column_signs(v):
    """Per column of ``v`` (..., n, k): -1 where its first entry of largest magnitude is
    negative, else 1 (magnitudes within ``NEAR_TOP`` of the largest count as equal, so
    that LAPACK builds rounding a tie apart, numpy's and Numba's, choose the same
    entry); shaped (..., 1, k)."""
    if not v.size:
        return np.ones(v.shape[:-2] + (1, v.shape[-1]), v.dtype)
    size = np.abs(v)
    first = np.argmax(size >= size.max(axis=-2, keepdims=True) * NEAR_TOP, axis=-2)
    top = np.take_along_axis(v, first[..., None, :], axis=-2)
    return np.where(top < 0, -1, 1).astype(v.dtype)


def signed(v):
    """``v`` with each column's first entry of largest magnitude made positive (in
    place; :func:`column_signs`)."""
    v *= column_signs(v)
    return v


def as_float(a):
    """``a`` as an array of the factorisations' result dtype (integers: float64)."""
    a = np.asarray(a)
    return a.astype(float_result([a.dtype]), copy=False)


def finite_matrices(a, lower=False):
    """``(a, bad)``: ``a`` as floats with the matrices holding inf or NaN zeroed (LAPACK
    refuses them), and where they were (their results are then set to NaN); ``lower``:
    only the lower triangle counts (what eigh reads, as TF's kernel does)."""
    a = as_float(a)
    bad = ~np.isfinite(np.tril(a) if lower else a).all(axis=(-2, -1))
    return (np.where(bad[..., None, None], 0, a) if bad.any() else a), bad


def eigh_values(a, vectors=True):
    """numpy's ``eigh`` of the lower triangles of ``a`` (..., n, n): ``(e, V)`` with V's
    signs as :func:`signed` makes them (``vectors=False``: e alone); a matrix holding
    inf or NaN gives NaN."""
    a, bad = finite_matrices(a, lower=True)
    if vectors:
        e, v = np.linalg.eigh(a)
        v = signed(v)
        if bad.any():
            e[bad], v[bad] = np.nan, np.nan
        return e, v
    e = np.linalg.eigvalsh(a)
    if bad.any():
        e[bad] = np.nan
    return e


def _eigh_impl(a):
    e, v = eigh_values(a)
    return np.concatenate([e[..., None, :], v], axis=-2)


def _no_closed_form(node, *arrays):
    raise NoClosedFormError(f"{node.opdef.name} ({node.name!r}): a matrix factorisation has no "
                            "closed form symgrad prints; evaluate it (sg.evaluate, sg.compile "
                            "or a Session)")


def _parts(packed):
    """(eigenvalues, eigenvectors) of a packed ``eigh`` value or cotangent."""
    return (F.index(packed, index=(Ellipsis, 0, slice(None))),
            F.index(packed, index=(Ellipsis, slice(1, None), slice(None))))


def _lower_read(node, grad):
    """The gradient of a function of the lower triangle only: TF's symmetrised lower
    triangle of ``grad``, its diagonal once."""
    n = grad.shape[-1]
    halved = F.mul(F.add(grad, matrix_t(grad)), half_lower(node.graph, n, grad.dtype))
    # (a selection, as TF's band_part: +0 above the diagonal, where a product gave -0)
    return F.where(band_mask(node.graph, n, n, -1, 0, np.bool_), halved,
                   literal(node.graph, np.zeros((), grad.dtype)))


def _eigh_grad(node, g):
    e, v = _parts(node)
    ge, gv = _parts(g)
    n = node.shape[-1]
    eye = band_mask(node.graph, n, n, 0, 0, node.dtype)
    gap = F.sub(F.index(e, index=(Ellipsis, None, slice(None))),
                F.index(e, index=(Ellipsis, slice(None), None)))   # e[j] - e[i]
    off = F.sub(band_mask(node.graph, n, n, -1, -1, node.dtype), eye)
    inv_gap = F.div(off, F.add(gap, eye))   # (1 / (e[j] - e[i]) off the diagonal, 0 on it)
    inner = F.add(F.mul(eye, F.index(ge, index=(Ellipsis, None, slice(None)))),
                  F.mul(inv_gap, F.matmul(matrix_t(v), gv)))
    return [_lower_read(node, F.matmul(F.matmul(v, inner), matrix_t(v)))]


def _eigvalsh_grad(node, g):
    _, v = _parts(F.eigh(node.inputs[0]))
    scaled = F.mul(v, F.index(g, index=(Ellipsis, None, slice(None))))   # V diag(g)
    return [_lower_read(node, F.matmul(scaled, matrix_t(v)))]


def _symmetric(n, batch=(), seed=3):
    rng = np.random.default_rng(seed)
    b = rng.uniform(-1, 1, size=batch + (n, n))
    # distinct eigenvalues, well apart: the rules' 1 / (e[j] - e[i]) stays moderate
    return b + np.swapaxes(b, -1, -2) + np.diag(np.arange(n) * 1.5)


# the lower triangle is read: the upper one of these examples differs from it on purpose
_EXAMPLES = [Example(np.tril(_symmetric(2)) + np.triu(np.full((2, 2), 7.0), 1)),
             Example(_symmetric(3)), Example(_symmetric(2, (2,)))]

register(Op("eigh", kind="special", shape=_shape(True), impl=_eigh_impl,
            symbolic=_no_closed_form, grad=_eigh_grad, dtype=float_result,
            examples=_EXAMPLES,
            doc="eigenvalues (row 0) and eigenvectors (rows 1..n, as columns) of the "
                "symmetric matrix the lower triangle describes"))
register(Op("eigvalsh", kind="special", shape=_shape(False),
            impl=lambda a: eigh_values(a, vectors=False), symbolic=_no_closed_form,
            grad=_eigvalsh_grad, dtype=float_result, examples=_EXAMPLES,
            doc="the eigenvalues, ascending, of the symmetric matrix the lower triangle "
                "describes; its gradient is V diag(ē) Vᵀ"))
for _name in ("eigh", "eigvalsh"):
    REGISTRY[_name].closed_form = False   # (the registry tests read it)
    REGISTRY[_name].driven = True   # compiled as a driver's call (lower.control, lower.lapack)
