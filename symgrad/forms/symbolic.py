"""Graph -> SymPy: the elementwise expansion behind closed forms.

Every node becomes a numpy object array of SymPy expressions in the *leaves'*
symbols: named constants, variables and placeholders become real symbols (``x``
for a scalar, ``X[0,1]`` for an element), literal numbers stay numbers.  The
expansion walks nodes in topological order, so deep graphs do not recurse.

Imports the graph, the op registry and ``forms.elided``.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     a = t.constant(5.0, name="a")
...     expand([(2 * a) ** 2])[0][()]
4*a**2
"""
from __future__ import annotations

import functools
import math
import time

import numpy as np
import sympy

from .. import progress
from ..evaluate import needed
from .elided import SlowExpansion


class Element(sympy.Symbol):
    """The symbol of one element of a leaf, ``X[10,0]``: ordered by its numeric index.

    A plain Symbol orders by its name as a string (``X[10,0]`` before ``X[2,0]``);
    an Element sorts as (leaf name, index numbers), with the class key of a Symbol so
    it orders among other symbols as before.  ``base`` and ``index`` give the parts
    (the LaTeX printer writes ``X_{10,0}``).
    """

    @classmethod
    def class_key(cls):
        return sympy.Symbol.class_key()

    @property
    def base(self):
        return self.name[:self.name.index("[")]

    @property
    def index(self):
        return tuple(int(i) for i in self.name[self.name.index("[") + 1:-1].split(","))

    def sort_key(self, order=None):
        return self.class_key(), (1, (self.base,) + self.index), sympy.S.One.sort_key(), \
            sympy.S.One


@functools.lru_cache(maxsize=65536)
def _symbol(name, is_bool=False, element=False):
    cls = Element if element else sympy.Symbol
    return cls(name) if is_bool else cls(name, real=True)


def element_name(name, index):
    """The symbol name of one element of leaf ``name``: ``X[0,1]``."""
    return f"{name}[{','.join(map(str, index))}]" if index else name


def leaf_symbols(node):
    """Object array of the symbols standing for a leaf's elements (real unless boolean)."""
    out = np.empty(node.shape, dtype=object)
    is_bool = node.dtype.kind == "b"
    for idx in np.ndindex(node.shape):
        out[idx] = _symbol(element_name(node.op_name, idx), is_bool, bool(idx))
    return out


def to_number(value):
    """A numpy scalar as a SymPy number that reads well: 2.0 -> 2, 0.5 -> 1/2."""
    if isinstance(value, (bool, np.bool_)):
        return sympy.true if value else sympy.false
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    v = float(value)
    if math.isnan(v):
        return sympy.nan
    if math.isinf(v):
        return sympy.oo if v > 0 else -sympy.oo
    if v.is_integer() and abs(v) < 1e15:
        return sympy.Integer(int(v))
    text = repr(v)
    if "e" not in text and len(text.lstrip("-").replace(".", "").lstrip("0")) <= 6:
        return sympy.Rational(text)
    return sympy.Float(v)


def literal_array(node):
    values = np.asarray(node.value)
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = to_number(values[idx])
    return out


def is_symbolic_leaf(node):
    """Leaves shown as symbols: everything but literals met inside expressions."""
    return not node.inputs and node.opdef.kind == "leaf" and not node.attrs.get("literal")


def expand(outputs, substitute=None, deadline=None):
    """SymPy object arrays for ``outputs`` (a list of nodes, None allowed).

    ``substitute`` optionally maps nodes to object arrays used instead of their
    expansion (the teaching layer uses it to stop at chosen intermediates).
    ``deadline``: a ``time.monotonic()`` after which the next node raises
    :class:`~symgrad.forms.elided.SlowExpansion` (checked between nodes).
    """
    values = dict(substitute or {})
    order = needed([n for n in outputs if n is not None], values)
    for k, node in enumerate(order):
        if node in values:
            continue
        if deadline is not None and time.monotonic() > deadline:
            raise SlowExpansion(f"expanding it elementwise was stopped at node {k + 1} of "
                                f"{len(order)}")
        progress.stage(f"expanding node {k + 1} of {len(order)} ({node.opdef.name})")
        if not node.inputs and node.opdef.kind == "leaf":
            values[node] = leaf_symbols(node) if is_symbolic_leaf(node) else literal_array(node)
            continue
        args = [np.asarray(values[x], dtype=object) for x in node.inputs]
        out = node.opdef.symbolic(node, *args)
        values[node] = np.asarray(out, dtype=object).reshape(node.shape)
    return [None if n is None else values[n] for n in outputs]
