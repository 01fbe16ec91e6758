"""The names printed forms show: the ones users gave, not the graph's unique names.

A graph makes names unique (a second ``Variable(..., name="x")``, say from running a
notebook cell again, is ``x_1``), and closed forms are written in symbols named after
the graph's names.  Printers show the name the user asked for (``x``) wherever that
is unambiguous: no other leaf of the same printed form asks for, or has, that name.
Nodes named after their op (``gradients/add``) have no user-facing name.

Imports the graph only.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     old = t.Variable(1.0, name="x")
...     new = t.Variable(2.0, name="x")
...     new.name, renames([new * 2]), renames([new * old])
('x_1', {'x_1': 'x'}, {})
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

import sympy

from ..graph import Dim, Node, ancestors, size_symbol_name


def user_name(node: Node) -> str | None:
    """The name the user gave ``node`` (``x`` even where the graph says ``x_1``), or None."""
    return node.requested_name


def renames(tensors: Iterable[Node | None]) -> dict[str, str]:
    """{graph name: user name} for the leaves below ``tensors`` that can show their user
    name, and for the size symbols of their unknown dimensions (``n_X_1`` -> ``n_X``)."""
    leaves = [n for n in ancestors([t for t in tensors if t is not None]) if n.is_leaf]
    taken = {n.op_name for n in leaves}       # symbols are named after op names
    wanted = {n.op_name: user_name(n) or n.op_name for n in leaves}
    counts = Counter(wanted.values())
    out = {old: new for old, new in wanted.items()
           if new != old and counts[new] == 1 and new not in taken}
    sizes = {}   # a renamed leaf's size symbols, named after its user name
    for n in leaves:
        unknown = [(a, d) for a, d in enumerate(n.shape or ()) if isinstance(d, Dim)]
        for a, d in unknown:
            if d.expr.is_Symbol:
                sizes[d.expr.name] = size_symbol_name(out.get(n.op_name, n.op_name), a,
                                                      len(unknown))
    counts = Counter(sizes.values())
    out.update({old: new for old, new in sizes.items()
                if new != old and counts[new] == 1 and new not in sizes})
    return out


def rename_symbols(expr: Any, mapping: dict[str, str]) -> Any:
    """``expr`` with the symbols of renamed leaves renamed (``x_1[0]`` -> ``x[0]``,
    matrix symbols too); assumptions are kept."""
    if not mapping or not isinstance(expr, sympy.Basic):
        return expr
    swap = {}
    for atom in expr.atoms(sympy.Symbol):
        base, bracket, rest = atom.name.partition("[")
        if base in mapping:
            # the same class: element symbols keep their numeric order and subscripts
            swap[atom] = type(atom)(mapping[base] + bracket + rest, **atom.assumptions0)
    for atom in expr.atoms(sympy.MatrixSymbol):   # (sizes in its shape renamed too)
        shape = [sympy.sympify(s).xreplace(swap) for s in atom.shape]
        if atom.name in mapping or list(atom.shape) != shape:
            swap[atom] = sympy.MatrixSymbol(mapping.get(atom.name, atom.name), *shape)
    return expr.xreplace(swap) if swap else expr
