"""Lifting a graph to matrix notation: the value of a node as a scalar expression over atoms.

A maximal run of elementwise ops stays one *scalar* SymPy expression over "atoms"
(Dummy symbols standing for matrix-valued subexpressions), so the scalar
simplifier does the algebra (the logistic loss's chain of products collapses to
``sigmoid(z) - y``) before the expression is turned back into Hadamard products
and elementwise function applications.  :class:`Lifter` keeps the atom table and
does both directions; the per-op readings are in ``matrixrules``.

Imports ``budget``, ``matrixalgebra`` and ``simplify``.

>>> lifter = Lifter()
>>> X = sympy.MatrixSymbol("X", 3, 2)
>>> lifter.to_matrix(2 * lifter.atom(X), (3, 2))
2*X
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy import Identity, MatAdd, MatMul, MatrixSymbol, OneMatrix, Transpose
from sympy.matrices.expressions.diagonal import DiagMatrix
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

from ..graph import same_up_to_unknown
from .budget import Budget
from .matrixalgebra import collect
from .simplify import BUDGET_SECONDS, simplify_expr


class Unsupported(Exception):
    """No matrix reading for a node; the message says which and why."""


class UnitVector(MatrixSymbol):
    """``e_i``: column i of an identity matrix, named ``e_i`` (the seed of a Jacobian row).

    Stacking the rows ``e_iᵀ B`` for every i gives ``B`` (``matrixrules``), which is
    how a Hessian built row by row reads as ``Xᵀ diag(d) X``.
    """

    @property
    def position(self):
        return int(self.name.split("_", 1)[1])


def leaves(expr):
    """Symbols and matrix symbols in ``expr``, in time linear in its DAG (SymPy's
    ``free_symbols`` walks the tree: 2^depth for a chain of shared parts)."""
    found, seen, stack = set(), set(), [expr]
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, (sympy.Symbol, MatrixSymbol)):
            found.add(e)
        elif isinstance(e, sympy.Basic):
            stack.extend(e.args)
    return found


def size_of(d):
    """A dimension as a matrix size: an int, or the SymPy size of an unknown one (``n_X``)."""
    return getattr(d, "expr", d)


def mat_shape(shape):
    """Matrix shape of a tensor shape: scalars 1x1, vectors columns; unknown sizes symbolic."""
    if len(shape) > 2:
        raise Unsupported(f"a tensor of rank {len(shape)} ({shape}) has no matrix notation")
    sizes = tuple(size_of(d) for d in shape)
    return {0: (1, 1), 1: sizes + (1,), 2: sizes}[len(sizes)]


def linear_in(m, seed):
    """The matrix ``M`` with ``m == M seed`` (``m`` a matrix or scalar expression linear in
    the unit vector ``seed``); raises :class:`Unsupported` when ``m`` is not of that form.

    Scalar factors may hold the seed as a trace: ``tr(r e) v = v r e`` (an outer product:
    ``(hᵀ e_k) h`` reads as ``h hᵀ e_k``).
    """
    m = collect(m)
    if m == seed:
        return Identity(seed.shape[0])
    if isinstance(m, (MatAdd, sympy.Add)):
        return MatAdd(*[linear_in(t, seed) for t in m.args]).doit()
    if isinstance(m, sympy.Trace):
        return linear_in(m.arg, seed)
    factors = m.args if isinstance(m, (MatMul, sympy.Mul)) else (m,)
    mats = [a for a in factors if a.is_Matrix]
    scalars = [a for a in factors if not a.is_Matrix]
    held = [a for a in scalars if a.has(seed)]
    if mats and mats[-1].has(seed) and not held and not any(a.has(seed) for a in mats[:-1]):
        return sympy.Mul(*scalars) * MatMul(*mats[:-1], linear_in(mats[-1], seed)).doit()
    if len(held) == 1 and not any(a.has(seed) for a in mats):
        rest = sympy.Mul(*[a for a in scalars if a is not held[0]])
        return rest * MatMul(*mats, linear_in(held[0], seed)).doit()
    raise Unsupported("not linear in its seed")


class Lifted:
    """A node's value: scalar expression ``expr`` over atoms, for a tensor of ``shape``."""

    def __init__(self, expr, shape):
        self.expr = sympy.sympify(expr)
        self.shape = tuple(shape)

    @property
    def scalar_like(self):
        return all(isinstance(d, (int, np.integer)) and d == 1 for d in self.shape)


class Diag(DiagMatrix):
    """diag(d) of a column vector d.  SymPy's DiagMatrix.doit asks the assumptions
    system (0.13 s per call, most of a Hessian's matrix form); this one only
    evaluates its argument."""

    def doit(self, **hints):
        return Diag(self.args[0].doit(**hints)) if hints.get("deep", True) else self


class Applied(ElementwiseApplyFunction):
    """f(M) elementwise, transposed as ``f(M)ᵀ`` (SymPy writes ``f(Mᵀ)``: ``tanh(Wᵀ Xᵀ)``
    where a textbook writes ``tanh(X W)ᵀ``)."""

    def _eval_transpose(self):
        return None


# The variable of every elementwise Lambda: one symbol, so equal applications compare equal.
_D = sympy.Dummy("d", real=True)


class Lifter:
    """Walks the graph and keeps the atom table (Dummy -> matrix expression)."""

    def __init__(self, strategy="auto", budget=BUDGET_SECONDS):
        self.atoms = {}
        self.by_matrix = {}
        self.strategy = strategy
        self.budget = Budget(budget)   # shared by every scalar simplification
        self.simplified = {}           # seedless expression -> its simplification
        self.matrices = {}             # (seedless expression, shape) -> its matrix

    def atom(self, matrix):
        """A scalar stand-in for ``matrix`` (one per distinct matrix); 1x1 ones are traces."""
        if tuple(matrix.shape) == (1, 1):
            return sympy.Trace(matrix)
        if matrix not in self.by_matrix:
            d = sympy.Dummy("M", real=True)
            self.atoms[d] = matrix
            self.by_matrix[matrix] = d
        return self.by_matrix[matrix]

    def elementwise_of(self, m):
        """The inverse of :meth:`to_matrix`: a sum/Hadamard/f(M) tree as a scalar expression."""
        if isinstance(m, (sympy.MatAdd, sympy.HadamardProduct)):
            op = sympy.Add if isinstance(m, sympy.MatAdd) else sympy.Mul
            return op(*[self.elementwise_of(a) for a in m.args])
        if isinstance(m, MatMul) and not [a for a in m.args if a.is_Matrix][1:]:
            return sympy.Mul(*[self.elementwise_of(a) if a.is_Matrix else a for a in m.args])
        if isinstance(m, sympy.HadamardPower):
            return self.elementwise_of(m.base) ** m.exp
        if isinstance(m, ElementwiseApplyFunction):
            fn = m.function
            return fn.expr.xreplace({fn.variables[0]: self.elementwise_of(m.expr)})
        if isinstance(m, OneMatrix):
            return sympy.S.One
        return self.atom(m) if m.is_Matrix else m

    def tidy(self, m):
        """Bottom-up: every elementwise sum re-simplified as a scalar expression."""
        if not getattr(m, "is_Matrix", False) or not m.args:
            return m
        args = [self.tidy(a) if getattr(a, "is_Matrix", False) else a for a in m.args]
        if args != list(m.args):
            m = m.func(*args).doit()
        if isinstance(m, sympy.MatAdd):
            scalar = self.simplify(self.elementwise_of(m))
            m = self.to_matrix(scalar, m.shape)
        return m

    def matrix(self, value):
        """The matrix expression of a lifted value (a scalar expr for 1x1)."""
        key, seed = self._seedless(value.expr)
        shape = mat_shape(value.shape)
        if (key, shape) not in self.matrices:
            self.matrices[(key, shape)] = self.to_matrix(self.simplify(key), shape)
        m = self.matrices[(key, shape)]
        if seed is None or not isinstance(m, sympy.Basic):
            return m
        return m.xreplace({UnitVector("e_k", *seed.shape): seed})

    def simplify(self, expr):
        """``simplify_expr`` once per expression up to the seed e_i of a Jacobian row.

        The rows of a Jacobian differ only in their seed, so they are simplified
        (and turned into matrices) once -- the same form for every row, whatever the
        budget left -- and the seed put back.
        """
        key, seed = self._seedless(expr)
        if key not in self.simplified:
            self.simplified[key] = simplify_expr(key, self.strategy, self.budget)
        return self._reseed(self.simplified[key], UnitVector("e_k", 1, 1), seed)

    def _seedless(self, expr):
        """(``expr`` with its one seed e_i written e_k, e_i); (expr, None) unless one seed."""
        found = leaves(expr)
        held = [leaves(self.atoms[a]) for a in found & self.atoms.keys()]
        seeds = {u for u in found.union(*held) if isinstance(u, UnitVector)}   # and in atoms
        if len(seeds) != 1:
            return expr, None
        (seed,) = seeds
        return self._reseed(expr, seed, UnitVector("e_k", *seed.shape)), seed

    def _reseed(self, expr, old, new):
        """``expr`` with every atom holding seed ``old`` replaced by the atom holding ``new``."""
        if new is None:
            return expr
        old = UnitVector(old.name, *new.shape)
        swap = {}
        for a in leaves(expr) & self.atoms.keys():
            if self.atoms[a].has(old):
                swap[a] = self.atom(self.atoms[a].xreplace({old: new}))
        return expr.xreplace(swap).xreplace({old: new})

    def to_matrix(self, expr, shape):
        atoms = [a for a in leaves(expr) if a in self.atoms]
        if not atoms:
            return expr if shape == (1, 1) else expr * OneMatrix(*shape)
        if expr in self.atoms:
            return self.atoms[expr]
        if isinstance(expr, sympy.Add):
            return self._sum(expr, shape)
        if isinstance(expr, sympy.Mul):
            return self._product(expr, shape)
        if isinstance(expr, sympy.Pow) and expr.exp.is_Integer:
            return sympy.HadamardPower(self.to_matrix(expr.base, shape), expr.exp)
        if len(atoms) == 1:
            return self._apply(expr, atoms[0], shape)
        shown = expr.xreplace({a: self.atoms[a] for a in atoms})   # (the atoms' matrices)
        raise Unsupported(f"no matrix reading for the elementwise expression {shown}")

    def _sum(self, expr, shape):
        coeff, rest = expr.primitive()
        if coeff != 1:
            return coeff * self.to_matrix(rest, shape)
        return MatAdd(*[self.to_matrix(t, shape) for t in expr.args]).doit()

    def _product(self, expr, shape):
        scalars = [f for f in expr.args if not (leaves(f) & self.atoms.keys())]
        mats = [self.to_matrix(f, shape) for f in expr.args if f not in scalars]
        seeded = [m for m in mats if m.has(UnitVector)]
        if shape[1] == 1 and len(mats) > 1 and len(seeded) == 1:
            # d ∘ v = diag(d) v: keeps a Jacobian row linear in its seed e_i
            rest = [m for m in mats if m is not seeded[0]]
            d = rest[0] if len(rest) == 1 else sympy.HadamardProduct(*rest)
            return sympy.Mul(*scalars) * MatMul(Diag(d), seeded[0])
        body = mats[0] if len(mats) == 1 else sympy.HadamardProduct(*mats)
        return sympy.Mul(*scalars) * body

    def _apply(self, expr, atom, shape):
        # f(M) elementwise: a function of one matrix argument (inner structure kept).
        if isinstance(expr, sympy.Function) and len(expr.args) == 1:
            inner = self.to_matrix(expr.args[0], shape)
            return Applied(sympy.Lambda(_D, expr.func(_D)), inner)
        return Applied(sympy.Lambda(_D, expr.xreplace({atom: _D})),
                                        self.atoms[atom])

    def broadcast(self, value, shape):
        """``value`` broadcast (numpy rules) to ``shape`` as a lifted value."""
        if value.scalar_like or same_up_to_unknown(value.shape, tuple(shape)):
            # sizes unknown on both sides agree (evaluation checks it when values arrive)
            return Lifted(value.expr, shape)
        m = self.matrix(value)
        r, c = mat_shape(shape)
        src = tuple(size_of(d) for d in value.shape)
        if len(src) == 1:          # a vector is a row of the result
            m, src = Transpose(m), (1, src[0])
        if src == (1, c):
            out = OneMatrix(r, 1) * m
        elif src == (r, 1):
            out = m * OneMatrix(1, c)
        else:
            raise Unsupported(f"broadcast from {value.shape} to {shape}")
        return Lifted(self.atom(out), shape)
