"""Reductions: reduce_sum/prod/max/min, softmax and logsumexp.

Attributes: ``axis`` (a sorted tuple of non-negative ints) and ``keepdims``.
Numeric rules are numpy's; symbolic ones build one ``Add``/``Mul``/``Max``/``Min``
per output element (never a chain of pairwise sums).

>>> import numpy as np
>>> REGISTRY["reduce_sum"].impl(np.ones((2, 3)), axis=(1,), keepdims=False)
array([3., 3.])
"""
from __future__ import annotations

import numpy as np
import sympy

from ..graph import shape_size
from .base import (REGISTRY, Example, F, Op, as_object_array, float_result,
                   normalize_axis, register)
from .draws import band_mask


def reduced_shape(shape, axis, keepdims):
    """The shape after reducing ``axis`` of ``shape``."""
    if keepdims:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def _reduce_shape(in_shapes, axis, keepdims=False):
    axis = normalize_axis(axis, len(in_shapes[0]))
    return reduced_shape(in_shapes[0], axis, keepdims)


def _rows(x, axis):
    """Move ``axis`` last and flatten them: shape (kept..., n)."""
    keep = [i for i in range(x.ndim) if i not in axis]
    moved = np.transpose(x, keep + list(axis))
    return moved.reshape(moved.shape[:len(keep)] + (-1,))


def reduce_objects(x, axis, keepdims, fn):
    """``fn(*elements)`` (one Add/Mul/Max/Min) per output element of an object array."""
    rows = _rows(np.asarray(x, dtype=object), axis)
    out = np.empty(rows.shape[:-1], dtype=object)
    for idx in np.ndindex(out.shape):
        out[idx] = fn(*rows[idx])
    return as_object_array(out.reshape(reduced_shape(x.shape, axis, keepdims)))


def _symbolic_reduce(fn):
    def symbolic(node, x):
        return reduce_objects(x, node.attrs["axis"], node.attrs.get("keepdims", False), fn)
    return symbolic


def _keep(node, t):
    """Reshape the reduced ``t`` (shaped like ``node``) to keepdims form."""
    x = node.inputs[0]
    shape = reduced_shape(x.shape, node.attrs["axis"], True)
    return t if t.shape == shape else F.reshape(t, shape=shape)


def _sum_grad(node, g):
    # d(sum x)/dx_i = 1: every element receives g.
    return [F.broadcast_to(_keep(node, g), shape=node.inputs[0].shape)]


def _prod_grad(node, g):
    # d(prod x)/dx_i = product of the *other* elements: exact with zeros, no division.
    # Rows (kept..., n) -> masked (kept..., n, n) with 1 on the diagonal -> prod.
    x, axis = node.inputs[0], node.attrs["axis"]
    keep = [i for i in range(x.ndim) if i not in axis]
    perm = tuple(keep + list(axis))
    xt = F.transpose(x, perm=perm) if perm != tuple(range(x.ndim)) else x
    lead = tuple(x.shape[i] for i in keep)
    n = shape_size([x.shape[i] for i in axis])   # (a Dim: sizes known at run time)
    rows = F.reshape(xt, shape=lead + (1, n))
    tiled = F.broadcast_to(rows, shape=lead + (n, n))
    others = F.reduce_prod(F.where(band_mask(x.graph, n, n, 0, 0, np.bool_), 1.0, tiled),
                           axis=(len(lead) + 1,))
    scaled = F.mul(others, F.reshape(g, shape=lead + (1,)))
    back = F.reshape(scaled, shape=xt.shape)
    return [F.transpose(back, perm=tuple(np.argsort(perm))) if xt is not x else back]


def _extreme_grad(node, g):
    # TF: the gradient is shared equally among the elements equal to the extreme.
    x = node.inputs[0]
    hit = F.cast(F.equal(x, _keep(node, node)), dtype=x.dtype.name)
    count = F.reduce_sum(hit, axis=node.attrs["axis"], keepdims=True)
    return [F.div(F.mul(hit, _keep(node, g)), count)]


def _numeric_extreme(fn, empty):
    def impl(x, axis, keepdims=False):
        if x.size == 0:
            return np.full(reduced_shape(x.shape, axis, keepdims), empty, dtype=x.dtype)
        return fn(x, axis=axis, keepdims=keepdims)
    return impl


_EXAMPLES = [Example((2, 3), axis=(1,), keepdims=False), Example((2, 3), axis=(0, 1)),
             Example((2, 3, 2), axis=(0, 2), keepdims=True), Example((4,), axis=(0,))]

register(Op("reduce_sum", kind="reduce", shape=_reduce_shape,
            impl=lambda x, axis, keepdims=False: np.sum(x, axis=axis, keepdims=keepdims),
            symbolic=_symbolic_reduce(sympy.Add), grad=_sum_grad, examples=_EXAMPLES,
            doc="sum over axes; every element gets the gradient of the sum"))
register(Op("reduce_prod", kind="reduce", shape=_reduce_shape,
            impl=lambda x, axis, keepdims=False: np.prod(x, axis=axis, keepdims=keepdims),
            symbolic=_symbolic_reduce(sympy.Mul), grad=_prod_grad, examples=_EXAMPLES,
            doc="product over axes; each element gets the product of the others"))
register(Op("reduce_max", kind="reduce", shape=_reduce_shape,
            impl=_numeric_extreme(np.max, -np.inf), symbolic=_symbolic_reduce(sympy.Max),
            grad=_extreme_grad, examples=_EXAMPLES,
            doc="maximum over axes; ties share the gradient equally (TF)"))
register(Op("reduce_min", kind="reduce", shape=_reduce_shape,
            impl=_numeric_extreme(np.min, np.inf), symbolic=_symbolic_reduce(sympy.Min),
            grad=_extreme_grad, examples=_EXAMPLES,
            doc="minimum over axes; ties share the gradient equally (TF)"))


def _stable_max(x, axis):
    # the shift that keeps exp() finite; empty or all-infinite rows shift by 0 (integer
    # input too: its float result is computed in floats, -inf needs them)
    m = np.max(np.asarray(x, dtype=np.result_type(x, np.float32)), axis=axis, keepdims=True,
               initial=-np.inf)
    return np.where(np.isfinite(m), m, 0)


def _softmax_impl(x, axis):
    shifted = x - _stable_max(x, axis)
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


def _softmax_symbolic(node, x):
    (axis,) = node.attrs["axis"]
    e = np.frompyfunc(sympy.exp, 1, 1)(np.asarray(x, dtype=object))
    total = reduce_objects(e, (axis,), True, sympy.Add)
    return as_object_array(e / total)


def _softmax_grad(node, g):
    # ds_i/dx_j = s_i (delta_ij - s_j), so x_bar = (g - sum(g * s)) * s.
    s = node
    inner = F.reduce_sum(F.mul(g, s), axis=node.attrs["axis"], keepdims=True)
    return [F.mul(F.sub(g, inner), s)]


def _softmax_shape(in_shapes, axis):
    normalize_axis(axis, len(in_shapes[0]), "softmax")
    return in_shapes[0]


register(Op("softmax", kind="special", shape=_softmax_shape, impl=_softmax_impl,
            symbolic=_softmax_symbolic, grad=_softmax_grad, dtype=float_result,
            examples=[Example((3,), axis=(0,)), Example((2, 3), axis=(1,))],
            doc="exp(x) / sum(exp(x)) along an axis"))


def _lse_impl(x, axis, keepdims=False):
    m = _stable_max(x, axis)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def _lse_symbolic(node, x):
    e = np.frompyfunc(sympy.exp, 1, 1)(np.asarray(x, dtype=object))
    total = reduce_objects(e, node.attrs["axis"], node.attrs.get("keepdims", False), sympy.Add)
    return as_object_array(np.frompyfunc(sympy.log, 1, 1)(total))


def _lse_grad(node, g):
    # d logsumexp(x)/dx = softmax(x) (over one axis; exp(x - lse) over several).
    x, axis = node.inputs[0], node.attrs["axis"]
    if len(axis) == 1:
        weights = F.softmax(x, axis=axis)
    else:
        weights = F.exp(F.sub(x, _keep(node, node)))
    return [F.mul(weights, _keep(node, g))]


register(Op("logsumexp", kind="special", shape=_reduce_shape, impl=_lse_impl,
            symbolic=_lse_symbolic, grad=_lse_grad, dtype=float_result,
            examples=[Example((3,), axis=(0,)), Example((2, 3), axis=(1,), keepdims=True),
                      Example((2, 3), axis=(0, 1))],
            doc="log(sum(exp(x))) computed stably; its gradient is softmax(x)"))


def _stable_max_node(x, axis):
    # _stable_max in graph ops: a non-finite max becomes 0.  The test is |m| <= the
    # largest double, not |m| < oo: SymPy takes a real symbol as finite and would fold
    # |m| < oo to True, leaving inf - inf = nan in logsumexp([inf, inf]).
    m = F.reduce_max(x, axis=axis, keepdims=True)
    m0 = sympy.Symbol("_x0", real=True)
    finite = sympy.Abs(m0) <= sympy.Float(np.finfo(np.float64).max)
    return F.elementwise(m, expr=sympy.Piecewise((m0, finite), (0, True)))


def _softmax_decompose(x, axis):
    # For the compiler: the reference formula in primitive ops.
    e = F.exp(F.sub(x, _stable_max_node(x, axis)))
    return F.div(e, F.reduce_sum(e, axis=axis, keepdims=True))


def _lse_decompose(x, axis, keepdims=False):
    # For the compiler: max-shifted, with a non-finite max replaced by 0 (as _lse_impl).
    m = _stable_max_node(x, axis)
    out = F.add(F.log(F.reduce_sum(F.exp(F.sub(x, m)), axis=axis, keepdims=True)), m)
    shape = reduced_shape(x.shape, axis, keepdims)
    return out if out.shape == shape else F.reshape(out, shape=shape)


REGISTRY["softmax"].decompose = _softmax_decompose
REGISTRY["logsumexp"].decompose = _lse_decompose
