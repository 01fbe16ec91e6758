"""Closed forms: expand a tensor into SymPy and simplify it under a budget.

Strategies: ``"none"`` (the raw expansion), ``"auto"`` (cheap canonicalisation,
then ``sympy.simplify`` only on small expressions and only while the time budget
lasts) and ``"full"`` (``sympy.simplify`` on every element).  A stronger pass is
kept only when it makes the expression smaller, so "auto" never reads worse
than "none".

Imports the graph-level expansion (``symbolic``) and nothing above it.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable(2.0, name="x")
...     closed_form(x * x + x * x)
2*x**2
"""
from __future__ import annotations

import time

import numpy as np
import sympy

from .errors import ArgumentError
from .graph import Node
from .symbolic import expand, leaf_symbols

STRATEGIES = ("none", "auto", "full")
SMALL_OPS = 60          # sympy.simplify is tried only below this many operations
BUDGET_SECONDS = 2.0    # total time "auto" may spend on stronger passes per call


def _size(expr):
    return sympy.count_ops(expr, visual=False) if isinstance(expr, sympy.Basic) else 0


def _cheap(expr):
    if not isinstance(expr, sympy.Expr):
        return expr
    if expr.has(sympy.Piecewise):
        expr = sympy.piecewise_fold(expr)
    return expr


KEEP_RATIO = 0.7        # a stronger form must be at least 30% smaller to replace the input


def _stronger(expr):
    # sympy.simplify likes factored forms (a*(3*a + 16)); a person reads the expanded
    # polynomial 3*a**2 + 16*a as well, so a rewrite must pay for itself in size.
    candidate = sympy.simplify(expr)
    return candidate if _size(candidate) <= KEEP_RATIO * _size(expr) else expr


def simplify_expr(expr, strategy="auto", deadline=None):
    """Simplify one SymPy expression with ``strategy``; see the module docstring."""
    if strategy == "none" or not isinstance(expr, sympy.Basic):
        return expr
    expr = _cheap(expr)
    if strategy == "full":
        return _stronger(expr)
    if _size(expr) <= SMALL_OPS and (deadline is None or time.monotonic() < deadline):
        return _stronger(expr)
    return expr


def simplify_array(values, strategy="auto", budget=BUDGET_SECONDS):
    """Simplify every element of an object array within one time budget."""
    deadline = time.monotonic() + budget
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = simplify_expr(sympy.sympify(values[idx]), strategy, deadline)
    return out


def to_sympy(values):
    """A 0-d object array as a SymPy expression, anything else as a SymPy Array."""
    if values.ndim == 0:
        return sympy.sympify(values[()])
    return sympy.ImmutableDenseNDimArray(values.tolist(), values.shape)


def closed_form(t, simplify="auto", keep=()):
    """The closed form of tensor ``t`` in its leaves' symbols.

    Args:
        t: a tensor (``None`` gives ``None``: an unconnected gradient).
        simplify: ``"none"``, ``"auto"`` (default) or ``"full"``.
        keep: intermediate tensors to show as symbols of their own name instead of
            expanding them (``keep=[s]`` prints ``2*s + 1``).
    Returns:
        a SymPy expression for a 0-d tensor, else a SymPy N-d array of t's shape.
    Raises:
        ArgumentError: unknown strategy.  TypeError: ``t`` is not a tensor.
    """
    if simplify not in STRATEGIES:
        raise ArgumentError(f"simplify={simplify!r} is not one of {STRATEGIES}")
    if t is None:
        return None
    if not isinstance(t, Node):
        raise TypeError(f"closed_form takes a tensor of the graph, not {type(t).__name__}")
    (values,) = expand([t], {k: leaf_symbols(k) for k in keep})
    return to_sympy(simplify_array(values, simplify))
