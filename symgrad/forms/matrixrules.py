"""The matrix reading of each non-elementwise op: one rule per primitive.

Each op is read by its registry *kind*; the few structural ops with a matrix
reading are handled by name and attributes.  A rule takes the lifter, the node
and its inputs' lifted values, and returns the node's lifted value or raises
:class:`~symgrad.forms.lifting.Unsupported` saying why there is none.

Imports the graph-level expansion helpers (``symbolic``) and ``lifting``.
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy import Identity, MatMul, MatrixSymbol, OneMatrix, Transpose

from .lifting import Lifted, UnitVector, Unsupported, leaves, linear_in, mat_shape, size_of
from .symbolic import is_symbolic_leaf, to_number


def _leaf(lifter, node):
    if is_symbolic_leaf(node):
        if not node.shape:
            return Lifted(sympy.Symbol(node.op_name, real=True), ())
        return Lifted(lifter.atom(MatrixSymbol(node.op_name, *mat_shape(node.shape))),
                      node.shape)
    value = np.asarray(node.value)
    flat = value.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return Lifted(to_number(flat[0]), node.shape)
    if value.ndim == 2 and value.shape[0] == value.shape[1] and \
            np.array_equal(value, value[0, 0] * np.eye(value.shape[0])):
        return Lifted(lifter.atom(to_number(value[0, 0]) * Identity(value.shape[0])), node.shape)
    raise Unsupported(f"the literal {node.name!r} is neither constant nor a multiple of I")


def _elementwise(lifter, node, args):
    expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
    if any(x.dtype.kind == "b" for x in node.inputs):
        raise Unsupported(f"{node.opdef.name} takes boolean inputs")
    values = [lifter.broadcast(a, node.shape).expr for a in args]
    return Lifted(expr.xreplace(dict(zip(syms, values))), node.shape)


def _same_size(a, b):
    """Matrix shapes a, b equal, or differing only in one pair of unknown sizes: a reshape
    keeps the element count, so those sizes are equal (checked when values arrive)."""
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    return not diff or (len(diff) == 1 and not any(isinstance(v, int) for v in diff[0]))


def _reshape(lifter, node, arg):
    if arg.scalar_like or _same_size(mat_shape(arg.shape), mat_shape(node.shape)):
        return Lifted(arg.expr, node.shape)
    if mat_shape(arg.shape)[::-1] == mat_shape(node.shape):
        return Lifted(lifter.atom(Transpose(lifter.matrix(arg)).doit()), node.shape)
    raise Unsupported(f"reshape from {arg.shape} to {node.shape}")


def _transpose(lifter, node, arg):
    if node.ndim < 2 or arg.scalar_like:
        return Lifted(arg.expr, node.shape)
    return Lifted(lifter.atom(Transpose(lifter.matrix(arg)).doit()), node.shape)


def _reduce_sum(lifter, node, arg):
    axis, x_shape = node.attrs["axis"], node.inputs[0].shape
    count = sympy.Mul(*[size_of(x_shape[a]) for a in axis])
    if not (leaves(arg.expr) & lifter.atoms.keys()):
        return Lifted(count * arg.expr, node.shape)
    m = lifter.matrix(arg)
    r, c = mat_shape(x_shape)
    if len(x_shape) == 1 or set(axis) == {0, 1}:
        out = OneMatrix(1, r) * m * (OneMatrix(c, 1) if c != 1 else 1)
    elif axis == (0,):
        out = Transpose(OneMatrix(1, r) * m).doit() if not node.attrs.get("keepdims") \
            else OneMatrix(1, r) * m
    else:
        out = m * OneMatrix(c, 1)
    return Lifted(lifter.atom(out), node.shape)


def _matmul(lifter, node, a, b):
    ma, mb = lifter.matrix(a), lifter.matrix(b)
    if a.scalar_like or b.scalar_like:
        return Lifted(lifter.atom(ma * mb) if not (a.scalar_like and b.scalar_like)
                      else ma * mb, node.shape)
    return Lifted(lifter.atom(MatMul(ma, mb).doit()), node.shape)


def _no_reading(lifter, node, *args):
    raise Unsupported(f"op {node.opdef.name!r} (node {node.name!r}) has no matrix notation here")


def _broadcast_to(lifter, node, arg):
    return lifter.broadcast(arg, node.shape)


def _sum_of_exp(lifter, node, arg):
    """(the sums of exp(x) over the op's axis, the same broadcast back to x's shape).

    A vector's sum is the scalar 1ᵀ exp(v); a matrix's row sums exp(Z) 1 (axis 1)
    or column sums 1ᵀ exp(Z) (axis 0): the normalisers of softmax and logsumexp.
    """
    x, axis = node.inputs[0], tuple(node.attrs["axis"])
    exp_m = lifter.to_matrix(sympy.exp(arg.expr), mat_shape(arg.shape))
    r, c = mat_shape(x.shape)
    if x.ndim == 1:
        total = sympy.Trace(OneMatrix(1, r) * exp_m)
        return total, total
    if x.ndim == 2 and axis == (1,):
        sums = exp_m * OneMatrix(c, 1)
        return lifter.atom(sums), lifter.atom(sums * OneMatrix(1, c))
    if x.ndim == 2 and axis == (0,):
        sums = OneMatrix(1, r) * exp_m
        return lifter.atom(sums), lifter.atom(OneMatrix(r, 1) * sums)
    raise Unsupported(f"{node.opdef.name} over axis {axis} of a rank-{x.ndim} tensor has no "
                      "matrix notation here (vectors, and rows or columns of a matrix)")


def _softmax(lifter, node, arg):
    return Lifted(sympy.exp(arg.expr) / _sum_of_exp(lifter, node, arg)[1], node.shape)


def _logsumexp(lifter, node, arg):
    sums, _ = _sum_of_exp(lifter, node, arg)
    x = node.inputs[0]
    if x.ndim == 2 and tuple(node.attrs["axis"]) == (0,) and not node.attrs.get("keepdims"):
        sums = lifter.atom(Transpose(lifter.atoms[sums]).doit())   # column sums as a vector
    return Lifted(sympy.log(sums), node.shape)


def _square(lifter, node, arg):
    if node.inputs[0].ndim != 2:
        raise Unsupported(f"{node.opdef.name} of a batch of matrices has no matrix notation here")
    return lifter.matrix(arg)


def _inverse(lifter, node, arg):
    return Lifted(lifter.atom(sympy.Inverse(_square(lifter, node, arg)).doit()), node.shape)


def _det(lifter, node, arg):
    return Lifted(sympy.Determinant(_square(lifter, node, arg)), node.shape)


def _log_abs_det(lifter, node, arg):
    return Lifted(sympy.log(sympy.Abs(sympy.Determinant(_square(lifter, node, arg)))),
                  node.shape)
def _dim_size(lifter, node, arg):
    """The number of elements along axes (``reduce_mean`` over an unknown size): a
    scalar, the product of those sizes (``n_X``)."""
    return Lifted(sympy.Mul(*[size_of(node.inputs[0].shape[a]) for a in node.attrs["axis"]]),
                  ())


def _index_add(lifter, node, arg):
    # A scalar c added at one point of zeros: c e_i (vector) or c e_i e_jᵀ (matrix);
    # the reverse sweep seeds each Jacobian row this way.
    index, shape = node.attrs["index"], tuple(node.attrs["shape"])
    if not (arg.scalar_like and len(shape) in (1, 2) and len(index) == len(shape)
            and all(isinstance(i, int) for i in index)):
        raise Unsupported(f"index_add at {index!r} into shape {shape} has no matrix notation "
                          "here (one point of a vector or a matrix only)")
    r, c = mat_shape(shape)
    m = UnitVector(f"e_{index[0]}", r, 1)
    if len(shape) == 2:
        m = MatMul(m, Transpose(UnitVector(f"e_{index[1]}", c, 1)))
    return Lifted(arg.expr * lifter.atom(m), shape)


def _concat(lifter, node, *args):
    # Rows e_iᵀ B for i = 0..n-1 stacked are I B = B: a Jacobian (or Hessian) built
    # row by row, each row the gradient of one output seeded with e_i.
    n = node.shape[0] if node.ndim == 2 else 0
    if node.attrs["axis"] != 0 or len(args) != n or any(a.shape[0] != 1 for a in node.inputs):
        raise Unsupported(f"concat (node {node.name!r}) has no matrix notation here "
                          "(only rows e_iᵀ B stacked for every i)")
    seed, common = MatrixSymbol("E_seed", n, 1), None
    for i, a in enumerate(args):
        m = lifter.matrix(a).xreplace({UnitVector(f"e_{i}", n, 1): seed})
        if common is None:
            common = m
        elif m != common:
            raise Unsupported(f"concat (node {node.name!r}): rows {i} and 0 differ beyond "
                              "their seed e_i, so the stack has no matrix notation here")
    try:
        b = Transpose(linear_in(Transpose(common).doit(), seed)).doit()   # e_iᵀ B = (Bᵀ e_i)ᵀ
    except Unsupported:
        raise Unsupported(f"concat (node {node.name!r}): the rows are not linear in e_i") \
            from None
    return Lifted(lifter.atom(b), node.shape)


# The matrix reading of each non-elementwise op, one rule per primitive (as autodiff
# systems keep one rule table per transformation); elementwise ops need none.
RULES = {"index_add": _index_add, "concat": _concat, "reshape": _reshape,
         "transpose": _transpose, "broadcast_to": _broadcast_to, "reduce_sum": _reduce_sum,
         "matmul": _matmul, "softmax": _softmax, "logsumexp": _logsumexp,
         "matrix_inverse": _inverse, "det": _det, "log_abs_det": _log_abs_det,
         "dim_size": _dim_size}


def lift(node, lifter, values):
    """The lifted value of ``node`` from its inputs' values."""
    if node.is_leaf:
        return _leaf(lifter, node)
    args = [values[x] for x in node.inputs]
    if node.opdef.kind == "elementwise":
        return _elementwise(lifter, node, args)
    return RULES.get(node.opdef.name, _no_reading)(lifter, node, *args)
