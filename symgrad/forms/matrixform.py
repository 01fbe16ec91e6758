"""Matrix notation for closed forms: ``2*X.T*(X*w - y)`` instead of n element formulas.

The graph is expanded at the matrix level: leaves become ``MatrixSymbol``s
(vectors are columns), ``matmul`` a ``MatMul``, ``transpose`` a ``Transpose``,
sums and broadcasts products with ones vectors.  A maximal run of elementwise
ops stays one *scalar* SymPy expression over "atoms" (Dummy symbols standing for
matrix-valued subexpressions), so the scalar simplifier of ``simplify`` does the
algebra (the logistic loss's chain of products collapses to ``sigmoid(z) - y``)
before the expression is turned into Hadamard products and elementwise function
applications.  A last pass collects common factors (``A x + Aᵀ x -> (A + Aᵀ) x``).

Ops without a matrix reading (rank > 2, indexing, concat, einsum, ...) make
:func:`matrix_form` fall back to the elementwise closed form; the result says
which form it holds and why.  Each op is read by its registry *kind*; the few
structural ops with a matrix reading are handled by kind and attributes.

Imports the graph, the op registry, ``symbolic``, ``simplify`` and ``notation``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     X = sg.Variable(np.ones((3, 2)), name="X")
...     w = sg.Variable(np.ones(2), name="w")
...     y = sg.constant(np.ones(3), name="y")
...     (g,) = sg.gradients(sg.reduce_sum((X @ w - y) ** 2), w)
...     m = matrix_form(g)
>>> m.form, str(m), m.text()
('matrix', '2*X.T*(X*w - y)', '2 Xᵀ(X w − y)')
"""
from __future__ import annotations

import numpy as np
import sympy
from sympy import Identity, MatAdd, MatMul, MatrixSymbol, OneMatrix, Transpose
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

from ..graph import Node, ancestors
from .budget import Budget
from .matrixalgebra import collect, explicit
from .notation import to_latex, to_pretty, to_str, to_text
from .simplify import BUDGET_SECONDS, check_strategy, elementwise_form, simplify_expr
from .symbolic import is_symbolic_leaf, to_number


class Unsupported(Exception):
    """No matrix reading for a node; the message says which and why."""


def mat_shape(shape):
    """Matrix shape of a tensor shape: scalars 1x1, vectors columns."""
    if len(shape) > 2:
        raise Unsupported(f"a tensor of rank {len(shape)} ({shape}) has no matrix notation")
    return {0: (1, 1), 1: (shape + (1,)) if shape else (1, 1), 2: shape}[len(shape)]


class Lifted:
    """A node's value: scalar expression ``expr`` over atoms, for a tensor of ``shape``."""

    def __init__(self, expr, shape):
        self.expr = sympy.sympify(expr)
        self.shape = tuple(shape)

    @property
    def scalar_like(self):
        return int(np.prod(self.shape, dtype=np.int64)) == 1


class Lifter:
    """Walks the graph and keeps the atom table (Dummy -> matrix expression)."""

    def __init__(self, strategy="auto", budget=BUDGET_SECONDS):
        self.atoms = {}
        self.by_matrix = {}
        self.strategy = strategy
        self.budget = Budget(budget)   # shared by every scalar simplification

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
            scalar = simplify_expr(self.elementwise_of(m), self.strategy, self.budget)
            m = self.to_matrix(scalar, m.shape)
        return m

    def matrix(self, value):
        """The matrix expression of a lifted value (a scalar expr for 1x1)."""
        expr = simplify_expr(value.expr, self.strategy, self.budget)
        r, c = mat_shape(value.shape)
        return self.to_matrix(expr, (r, c))

    def to_matrix(self, expr, shape):
        atoms = [a for a in expr.free_symbols if a in self.atoms]
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
        raise Unsupported(f"no matrix reading for the elementwise expression {expr}")

    def _sum(self, expr, shape):
        coeff, rest = expr.primitive()
        if coeff != 1:
            return coeff * self.to_matrix(rest, shape)
        return MatAdd(*[self.to_matrix(t, shape) for t in expr.args]).doit()

    def _product(self, expr, shape):
        scalars = [f for f in expr.args if not (f.free_symbols & self.atoms.keys())]
        mats = [self.to_matrix(f, shape) for f in expr.args if f not in scalars]
        body = mats[0] if len(mats) == 1 else sympy.HadamardProduct(*mats)
        return sympy.Mul(*scalars) * body

    def _apply(self, expr, atom, shape):
        # f(M) elementwise: a function of one matrix argument (inner structure kept).
        if isinstance(expr, sympy.Function) and len(expr.args) == 1:
            inner = self.to_matrix(expr.args[0], shape)
            d = sympy.Dummy("d", real=True)
            return ElementwiseApplyFunction(sympy.Lambda(d, expr.func(d)), inner)
        d = sympy.Dummy("d", real=True)
        return ElementwiseApplyFunction(sympy.Lambda(d, expr.xreplace({atom: d})),
                                        self.atoms[atom])

    def broadcast(self, value, shape):
        """``value`` broadcast (numpy rules) to ``shape`` as a lifted value."""
        if value.scalar_like or value.shape == tuple(shape):
            return Lifted(value.expr, shape)
        m = self.matrix(value)
        r, c = mat_shape(shape)
        src = tuple(value.shape)
        if len(src) == 1:          # a vector is a row of the result
            m, src = Transpose(m), (1, src[0])
        if src == (1, c):
            out = OneMatrix(r, 1) * m
        elif src == (r, 1):
            out = m * OneMatrix(1, c)
        else:
            raise Unsupported(f"broadcast from {value.shape} to {shape}")
        return Lifted(self.atom(out), shape)


def _leaf(lifter, node):
    if is_symbolic_leaf(node):
        if not node.shape:
            return Lifted(sympy.Symbol(node.op_name, real=True), ())
        return Lifted(lifter.atom(MatrixSymbol(node.op_name, *mat_shape(node.shape))), node.shape)
    value = np.asarray(node.value)
    flat = value.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return Lifted(to_number(flat[0]), node.shape)
    if value.ndim == 2 and value.shape[0] == value.shape[1] and \
            np.array_equal(value, value[0, 0] * np.eye(value.shape[0])):
        return Lifted(lifter.atom(to_number(value[0, 0]) * Identity(value.shape[0])), node.shape)
    raise Unsupported(f"the literal {node.name!r} is neither constant nor a multiple of I")


def _elementwise(lifter, node, args):
    expr, syms = node.op.expr([x.dtype for x in node.inputs], **node.attrs)
    if any(x.dtype.kind == "b" for x in node.inputs):
        raise Unsupported(f"{node.op.name} takes boolean inputs")
    values = [lifter.broadcast(a, node.shape).expr for a in args]
    return Lifted(expr.xreplace(dict(zip(syms, values))), node.shape)


def _reshape(lifter, node, arg):
    if arg.scalar_like or mat_shape(arg.shape) == mat_shape(node.shape):
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
    count = int(np.prod([x_shape[a] for a in axis], dtype=np.int64))
    if not (arg.expr.free_symbols & lifter.atoms.keys()):
        return Lifted(count * arg.expr, node.shape)
    m = lifter.matrix(arg)
    r, c = mat_shape(x_shape)
    if len(x_shape) == 1 or set(axis) == {0, 1}:
        out = OneMatrix(1, r) * m * (OneMatrix(c, 1) if c > 1 else 1)
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
    raise Unsupported(f"op {node.op.name!r} (node {node.name!r}) has no matrix notation here")


def _broadcast_to(lifter, node, arg):
    return lifter.broadcast(arg, node.shape)


def _sum_of_exp(lifter, node, arg):
    # 1ᵀ exp(v): the normaliser of softmax and logsumexp, for a vector v only.
    if node.inputs[0].ndim != 1:
        raise Unsupported(f"{node.op.name} of a rank-{node.inputs[0].ndim} tensor "
                          "has no matrix notation here (vectors only)")
    exp_v = lifter.to_matrix(sympy.exp(arg.expr), mat_shape(arg.shape))
    return sympy.Trace(OneMatrix(1, arg.shape[0]) * exp_v)


def _softmax(lifter, node, arg):
    return Lifted(sympy.exp(arg.expr) / _sum_of_exp(lifter, node, arg), node.shape)


def _logsumexp(lifter, node, arg):
    return Lifted(sympy.log(_sum_of_exp(lifter, node, arg)), node.shape)


def _square(lifter, node, arg):
    if node.inputs[0].ndim != 2:
        raise Unsupported(f"{node.op.name} of a batch of matrices has no matrix notation here")
    return lifter.matrix(arg)


def _inverse(lifter, node, arg):
    return Lifted(lifter.atom(sympy.Inverse(_square(lifter, node, arg)).doit()), node.shape)


def _det(lifter, node, arg):
    return Lifted(sympy.Determinant(_square(lifter, node, arg)), node.shape)


def _log_abs_det(lifter, node, arg):
    return Lifted(sympy.log(sympy.Abs(sympy.Determinant(_square(lifter, node, arg)))),
                  node.shape)


# The matrix reading of each non-elementwise op, one rule per primitive (as autodiff
# systems keep one rule table per transformation); elementwise ops need none.
MATRIX_RULES = {"reshape": _reshape, "transpose": _transpose, "broadcast_to": _broadcast_to,
                "reduce_sum": _reduce_sum, "matmul": _matmul, "softmax": _softmax,
                "logsumexp": _logsumexp, "matrix_inverse": _inverse, "det": _det,
                "log_abs_det": _log_abs_det}


def lift(node, lifter, values):
    """The lifted value of ``node`` from its inputs' values."""
    if node.is_leaf:
        return _leaf(lifter, node)
    args = [values[x] for x in node.inputs]
    if node.op.kind == "elementwise":
        return _elementwise(lifter, node, args)
    return MATRIX_RULES.get(node.op.name, _no_reading)(lifter, node, *args)


def matrix_expression(t, strategy="auto"):
    """The simplified matrix expression of tensor ``t`` (raises :class:`Unsupported`)."""
    lifter, values = Lifter(strategy), {}
    for node in ancestors([t]):
        values[node] = lift(node, lifter, values)
    out = lifter.matrix(values[t])
    if not isinstance(out, sympy.Basic):
        return out
    return collect(lifter.tidy(collect(out.doit())))


class MatrixForm:
    """A closed form in matrix notation, or the elementwise one it fell back to.

    Attributes:
        expr: a SymPy matrix expression (``form == "matrix"``), a scalar expression,
            or the elementwise closed form (``form == "elementwise"``).
        form: ``"matrix"`` or ``"elementwise"``.
        reason: why the elementwise form was used (None for the matrix form).
        tensor: the tensor it describes.
    """

    def __init__(self, expr, form, tensor, reason=None):
        self.expr, self.form, self.tensor, self.reason = expr, form, tensor, reason

    def __str__(self):
        return to_str(self.expr)

    def __repr__(self):
        why = f", reason={self.reason!r}" if self.reason else ""
        return f"<MatrixForm form={self.form!r} {self}{why}>"

    def text(self):
        """Textbook unicode, one line: ``2 Xᵀ(X w − y)``."""
        return to_text(self.expr)

    def latex(self):
        return to_latex(self.expr)

    def pretty(self):
        return to_pretty(self.expr)

    def _repr_latex_(self):
        return f"$\\displaystyle {self.latex()}$"

    def elements(self):
        """The form expanded to an object array of the tensor's shape (leaves' symbols)."""
        if self.form == "elementwise":
            return np.asarray(self.expr.tolist() if self.tensor.shape else self.expr,
                              dtype=object).reshape(self.tensor.shape)
        return explicit(self.expr, self.tensor)


def matrix_form(t, simplify="auto"):
    """The closed form of ``t`` in matrix notation, else elementwise; says which.

    Args:
        t: a tensor built from matrix ops (matmul, transpose, sums, elementwise math).
        simplify: strategy for the scalar parts (``"none"``, ``"auto"``, ``"full"``).
    Returns:
        a :class:`MatrixForm` (``None`` for ``None``: an unconnected gradient).
    Raises:
        ArgumentError: unknown strategy.  TypeError: ``t`` is not a tensor.

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     v = sg.Variable(np.ones(3), name="v")
    ...     m = matrix_form(v[0] * v)
    >>> m.form, m.reason
    ('elementwise', "op 'index' (node 'index') has no matrix notation here")
    """
    check_strategy(simplify)
    if t is None:
        return None
    if not isinstance(t, Node):
        raise TypeError(f"matrix_form takes a tensor of the graph, not {type(t).__name__}")
    try:
        return MatrixForm(matrix_expression(t, simplify), "matrix", t)
    except Unsupported as exc:
        return MatrixForm(elementwise_form(t, simplify), "elementwise", t, reason=str(exc))
