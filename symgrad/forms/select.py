"""Which closed form a printer shows, within bounds that hold for any tensor.

The mathematics a person writes does not depend on the number of rows:
``∇w = Xᵀ(σ(X w) − y)``.  The elementwise expansion does (one formula per entry,
each a sum over every row), so the default printers (``form="auto"``) measure a
tensor's *scalar size* first -- the entries of every tensor it is computed from,
read off the graph without expanding anything -- and

- up to ``MATRIX_FIRST`` show the elementwise closed form (``2*x + 1``);
- above it show matrix notation where the graph has one;
- where it has none, expand only up to the target's ``expand_limit`` and otherwise
  print an :class:`Elided` form that says how large the expansion would be and
  why there is no matrix notation (``sg.closed_form`` still expands on request).

Imports ``elided``, ``matrixform`` and ``simplify``.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     X = sg.Variable(np.ones((300, 2)), name="X")
...     w = sg.Variable(np.ones(2), name="w")
...     (g,) = sg.gradients(sg.reduce_sum(X @ w), w)
...     str(choose(g))
'X.T*ones(300, 1)'
"""
from __future__ import annotations

from .elided import EXPAND_LIMIT, scalar_size
from .matrixform import matrix_form
from .simplify import BUDGET_SECONDS, elementwise_form

FORMS = ("auto", "elementwise", "matrix")
MATRIX_FIRST = 200          # scalar size above which "auto" prefers matrix notation


def choose(t, simplify="auto", form="auto", expand_limit=EXPAND_LIMIT, budget=BUDGET_SECONDS):
    """The form a printer shows for ``t``: a SymPy form or a :class:`MatrixForm`.

    Args:
        t: a tensor or None.  simplify: the strategy.  form: ``"auto"`` (see the
        module docstring), ``"elementwise"`` or ``"matrix"``.  expand_limit: the
        largest scalar size expanded elementwise when there is no matrix notation
        (above it the MatrixForm holds an :class:`~symgrad.forms.elided.Elided`
        note).  budget: seconds for simplification passes.
    """
    if t is None:
        return None
    if form == "elementwise":
        return elementwise_form(t, simplify, budget=budget)
    size = scalar_size(t)
    if form == "matrix" or size is None or size > MATRIX_FIRST:
        return matrix_form(t, simplify, expand_limit=expand_limit, budget=budget)
    return elementwise_form(t, simplify, budget=budget)
