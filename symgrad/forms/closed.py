"""``closed_form``: the public entry to a tensor's closed form, elementwise or matrix.

Sits above ``simplify`` (elementwise forms) and ``matrixform`` (matrix notation),
so neither imports the other's caller.

>>> from symgrad import tracing as tr
>>> with tr.Graph().as_default():
...     x = tr.Variable(0.5, name="x")
...     closed_form(tr.sin(x) ** 2 + tr.cos(x) ** 2 + x)
x + 1
"""
from __future__ import annotations

from ..errors import ArgumentError

from typing import Any, Sequence

from ..graph import Node
from .matrixform import matrix_form
from .simplify import BUDGET_SECONDS, check_strategy, elementwise_form

FORMS = ("elementwise", "matrix")


def closed_form(t: Node, simplify: str = "auto", keep: Sequence[Node] = (),
                budget: float = BUDGET_SECONDS, form: str = "elementwise") -> Any:
    """The closed form of tensor ``t`` in its leaves' symbols.

    Args:
        t: a tensor (``None`` gives ``None``: an unconnected gradient).
        simplify: ``"none"``, ``"auto"`` (default) or ``"full"``.
        keep: intermediate tensors to show as symbols of their own name instead of
            expanding them (``keep=[s]`` prints ``2*s + 1``).
        budget: seconds "auto" may spend on stronger passes.
        form: ``"elementwise"`` (default) or ``"matrix"``: matrix notation where the
            graph is built from matrix ops (see ``symgrad.forms.matrixform.matrix_form``).
    Returns:
        a SymPy expression for a 0-d tensor, else a SymPy N-d array of t's shape;
        with ``form="matrix"`` a ``MatrixForm`` that says which form it holds.
    Raises:
        ArgumentError: unknown strategy or form.  TypeError: ``t`` is not a tensor.
    """
    check_strategy(simplify)
    if form not in FORMS:
        raise ArgumentError(f"form={form!r} is not one of {FORMS}")
    if form == "matrix":
        return matrix_form(t, simplify)
    return elementwise_form(t, simplify, keep, budget)
