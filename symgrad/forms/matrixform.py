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

import time

import numpy as np
import sympy

from ..graph import Node
from .elided import (EXPAND_LIMIT, TRY_SECONDS, Elided, SlowExpansion, scalar_size,
                     worth_trying)
from .indexed import indexed_form
from .lifting import Lifter, Unsupported, leaves
from .matrixalgebra import collect, explicit
from .batched import lift_all
from .notation import to_latex, to_pretty, to_str, to_text
from .simplify import BUDGET_SECONDS, check_strategy, elementwise_form


def matrix_expression(t, strategy="auto", budget=BUDGET_SECONDS):
    """The simplified matrix expression of tensor ``t`` (raises :class:`Unsupported`)."""
    lifter, values = Lifter(strategy, budget), {}
    lift_all([t], lifter, values)
    out = lifter.matrix(values[t])
    if not isinstance(out, sympy.Basic) or not any(
            isinstance(a, sympy.MatrixSymbol) for a in leaves(out)):
        return out      # scalars only (doit and collect would walk a shared tree)
    return collect(lifter.tidy(collect(out.doit())))


class MatrixForm:
    """A closed form in matrix notation, or the elementwise one it fell back to.

    Attributes:
        expr: a SymPy matrix expression (``form == "matrix"``), a scalar expression,
            or the elementwise closed form (``form == "elementwise"``).
        form: ``"matrix"``, ``"elementwise"``, ``"indexed"`` (no matrix notation and
            too large or sized unknown: one entry with symbolic indices, ``forms.indexed``)
            or ``"elided"`` (``expr`` is then an :class:`~symgrad.forms.elided.Elided`
            note: too large to expand and no indexed form).
        reason: why the elementwise form was used (None for the matrix form).
        tensor: the tensor it describes.
    """

    def __init__(self, expr, form, tensor, reason=None):
        # form "elided": expr is an Elided note (no matrix notation, too large to expand)
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
        if self.form == "elided":
            raise ValueError(f"{self.expr.note()}; expand it with sg.closed_form(t)")
        if self.form == "indexed":
            raise ValueError("an indexed form (symbolic sizes) has no element array; expand "
                             "it with sg.closed_form(t) where the sizes are known")
        if self.form == "elementwise":
            return np.asarray(self.expr.tolist() if self.tensor.shape else self.expr,
                              dtype=object).reshape(self.tensor.shape)
        return explicit(self.expr, self.tensor)


def matrix_form(t: Node, simplify: str = "auto", expand_limit: int = EXPAND_LIMIT,
                budget: float = BUDGET_SECONDS) -> MatrixForm:
    """The closed form of ``t`` in matrix notation, else elementwise; says which.

    Args:
        t: a tensor built from matrix ops (matmul, transpose, sums, elementwise math).
        simplify: strategy for the scalar parts (``"none"``, ``"auto"``, ``"full"``).
        expand_limit: where there is no matrix notation, the largest scalar size
            (``forms.elided.scalar_size``) expanded elementwise; above it the result
            is an ``"elided"`` note (None: no limit).
        budget: seconds for simplification passes.
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
        return MatrixForm(matrix_expression(t, simplify, budget), "matrix", t)
    except Unsupported as exc:
        reason = str(exc)
    except sympy.matrices.exceptions.ShapeError as exc:   # e.g. two unknown sizes met
        reason = f"the matrix shapes do not line up: {exc}"
    size = scalar_size(t)
    deadline = None
    if expand_limit is not None and (size is None or size > expand_limit):
        try:        # one entry with symbolic indices: Sum(v[k], (k, 0, n_v - 1))
            return MatrixForm(indexed_form(t), "indexed", t, reason=reason)
        except Unsupported as exc:
            reason = f"{reason}; no indexed form: {exc}"
        if expand_limit != EXPAND_LIMIT or not worth_trying(t, size):
            return MatrixForm(Elided(t, size, reason), "elided", t, reason=reason)
        deadline = time.monotonic() + TRY_SECONDS   # (the size may overstate the work)
    try:
        form = elementwise_form(t, simplify, budget=budget, deadline=deadline)
    except SlowExpansion as exc:
        reason = f"{reason}; {exc} after {TRY_SECONDS:g} s"
        return MatrixForm(Elided(t, size, reason), "elided", t, reason=reason)
    return MatrixForm(form, "elementwise", t, reason=reason)
