"""Matrix-expression algebra for matrix notation: collecting factors, expanding to elements.

``collect`` turns ``A x + Aᵀ x`` into ``(A + Aᵀ) x`` and moves a common numeric
factor of a sum to the front (``Xᵀ(2 X w − 2 y) -> 2 Xᵀ(X w − y)``); ``explicit``
expands a matrix expression over a tensor's leaves into element formulas (the
check against the elementwise closed form).

Imports the graph and ``symbolic`` only.

>>> import sympy
>>> A, x = sympy.MatrixSymbol("A", 3, 3), sympy.MatrixSymbol("x", 3, 1)
>>> collect(A * x + A.T * x)
(A + A.T)*x
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy import Identity, MatAdd, MatMul, MatrixSymbol, OneMatrix
from sympy.matrices.expressions.diagonal import DiagMatrix

from ..graph import ancestors
from .symbolic import is_symbolic_leaf, leaf_symbols


def mat_shape(shape):
    """Matrix shape of a tensor shape of rank <= 2: scalars 1x1, vectors columns."""
    return {0: (1, 1), 1: tuple(shape) + (1,), 2: tuple(shape)}[len(shape)]


def _split(term):
    """(scalar coefficient, list of matrix factors) of one term of a sum."""
    if isinstance(term, MatMul):
        return (sympy.Mul(*[a for a in term.args if not a.is_Matrix]),
                [a for a in term.args if a.is_Matrix])
    return sympy.S.One, [term]


def _collect_side(terms, side):
    """Terms sharing a first (side=0) or last (side=-1) factor, factored out once."""
    groups, order = {}, []
    for term in terms:
        coeff, fs = _split(term)
        key = fs[side] if len(fs) > 1 else None
        if key not in groups:
            order.append(key)
            groups[key] = []
        groups[key].append((coeff, fs))
    out = []
    for key in order:
        members = groups[key]
        if key is None or len(members) == 1:
            out += [c * MatMul(*fs).doit() if len(fs) > 1 else c * fs[0] for c, fs in members]
            continue
        rest = [c * (MatMul(*(fs[1:] if side == 0 else fs[:-1])).doit()) for c, fs in members]
        inner = MatAdd(*rest).doit()
        out.append(MatMul(key, inner) if side == 0 else MatMul(inner, key))
    return out


def collect(m):
    """Bottom-up: ``A x + Aᵀ x`` becomes ``(A + Aᵀ) x`` (right factors first, then left)."""
    if not isinstance(m, sympy.Basic) or not m.args:
        return m
    if isinstance(m, sympy.matrices.MatrixExpr) or isinstance(m, (sympy.Trace, sympy.Expr)):
        args = [collect(a) if isinstance(a, sympy.Basic) and a.args and not isinstance(
            a, sympy.Lambda) else a for a in m.args]
        m = m.func(*args) if args != list(m.args) else m
    if isinstance(m, MatAdd):
        terms = _collect_side(list(m.args), -1)
        terms = _collect_side(terms, 0)
        m = MatAdd(*terms).doit() if len(terms) > 1 else terms[0]
    if isinstance(m, MatMul):
        m = _coefficient_out(_diag_times_ones(m))
    return m


def _diag_times_ones(m):
    """``diag(d) 𝟏`` is ``d`` and ``𝟏ᵀ diag(d)`` is ``dᵀ`` (an outer product's factors)."""
    args, out = list(m.args), []
    for a in args:
        prev = out[-1] if out else None
        if isinstance(a, OneMatrix) and a.shape[1] == 1 and isinstance(prev, DiagMatrix):
            out[-1] = prev.args[0]
        elif isinstance(a, DiagMatrix) and isinstance(prev, OneMatrix) and prev.shape[0] == 1:
            out[-1] = sympy.Transpose(a.args[0])
        else:
            out.append(a)
    return m if len(out) == len(args) else MatMul(*out).doit()


def _coefficient_out(m):
    """``Xᵀ(2 X w − 2 y)`` as ``2 Xᵀ(X w − y)``: a common numeric factor of a sum moves front."""
    coeff, args = sympy.S.One, []
    for a in m.args:
        if isinstance(a, MatAdd):
            common = sympy.gcd_list([_split(t)[0] for t in a.args]) if all(
                _split(t)[0].is_Rational for t in a.args) else 1
            if common not in (0, 1):
                coeff *= common
                a = MatAdd(*[t / common for t in a.args]).doit()
        args.append(a)
    return MatMul(coeff, *args) if coeff != 1 else m


def explicit(expr, tensor):
    """Element formulas of a matrix expression over ``tensor``'s leaves."""
    subs = {}
    for leaf in ancestors([tensor]):
        if leaf.is_leaf and is_symbolic_leaf(leaf) and leaf.shape:
            sym = MatrixSymbol(leaf.op_name, *mat_shape(leaf.shape))
            subs[sym] = sympy.ImmutableMatrix(leaf_symbols(leaf).reshape(mat_shape(leaf.shape)))
    if isinstance(expr, sympy.Basic):
        for const in expr.atoms(OneMatrix, Identity):
            subs[const] = sympy.ImmutableMatrix(const.as_explicit())
    value = expr.xreplace(subs).doit() if isinstance(expr, sympy.Basic) else expr
    if getattr(value, "is_Matrix", False):
        value = sympy.ImmutableMatrix(value.as_explicit()).applyfunc(lambda e: e.doit())
        flat = np.empty(value.shape, dtype=object)
        for i, j in np.ndindex(value.shape):
            flat[i, j] = value[i, j]
        return flat.reshape(tensor.shape)
    out = np.empty((), dtype=object)
    out[()] = sympy.sympify(value).doit()
    return out.reshape(tensor.shape)
