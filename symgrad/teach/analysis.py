"""Structured facts about one reverse sweep, for explanations and drawings.

Everything here is data (names, SymPy expressions, numpy values, reasons as
small records); :mod:`symgrad.teach.render` turns it into prose and tables.

- :func:`local_expression`: a node's value as an expression in its inputs' names.
- :func:`local_partials`: d node / d input_i in the inputs' names (elementwise ops).
- :func:`none_reason`: why an x gets ``None`` (no path, stopped, integer).
- :func:`paths`: every path from x to the ys with its product of local derivatives.

Imports the pipeline below ``teach`` (graph, ops, evaluate, symbolic, simplify,
differentiate); nothing below imports it.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(0.0, name="a")
...     b = 2 * a
...     str(local_expression(b))
'2*a'
"""
from __future__ import annotations

import numpy as np
import sympy

from ..graph import ancestors
from ..forms.symbolic import is_symbolic_leaf, to_number

MAX_PATHS = 12


class Reason:
    """Why an x's gradient is None: ``kind`` in ``integer``, ``no_path``,
    ``integer_path``, ``stopped``; ``nodes`` the tensors responsible."""

    def __init__(self, kind, x, nodes=(), how=()):
        self.kind, self.x, self.nodes, self.how = kind, x, list(nodes), list(how)
        self.blockers = []      # integer tensors on other paths (for "stopped")

    def __repr__(self):
        return f"Reason({self.kind!r}, {self.x.name!r}, {[n.name for n in self.nodes]})"


def is_literal(node):
    """A number written inside an expression (shown inline, not as a row)."""
    return not node.inputs and node.opdef.kind == "leaf" and not is_symbolic_leaf(node)


def input_symbol(node):
    """How an input appears in a local expression: its name, or a literal's value."""
    if is_literal(node) and node.size == 1:
        return to_number(np.asarray(node.value).reshape(())[()])
    if node.dtype.kind == "b":
        return sympy.Symbol(node.op_name)   # booleans carry no assumptions (as in closed forms)
    return sympy.Symbol(node.op_name, real=True)


def _inputs_map(node, syms):
    return {s: input_symbol(x) for s, x in zip(syms, node.inputs)}


def local_expression(node):
    """The node as an expression of its inputs (SymPy for elementwise ops, else text)."""
    if not node.inputs:
        return None
    if node.opdef.kind == "elementwise":
        expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
        return expr.xreplace(_inputs_map(node, syms))
    args = [str(input_symbol(x)) for x in node.inputs]
    # sub-graphs (cond branches, loop bodies) are drawn and explained on their own
    args += [f"{k}={v!r}" for k, v in node.attrs.items()
             if k not in ("expr", "label", "layout") and "<" not in repr(v)]
    return f"{node.opdef.name}({', '.join(args)})"


def local_partials(node):
    """``[d node / d input_i]`` as SymPy in the inputs' names (None: no gradient).

    Only elementwise ops have scalar partials; other ops return ``None`` (their
    derivative is a vector-Jacobian product, described by the op's doc line).
    """
    if node.opdef.kind != "elementwise" or node.opdef.grad is None:
        return None
    parts, syms = node.opdef.partials([x.dtype for x in node.inputs], **node.attrs)
    mapping = _inputs_map(node, syms)
    return [None if p is None or not x.is_float else sympy.sympify(p).xreplace(mapping)
            for p, x in zip(parts, node.inputs)]


def downstream(x, ys):
    """Nodes that depend on ``x`` and that some y depends on (x included), in order."""
    down = set()
    for node in ancestors(ys):
        if node is x or any(i in down for i in node.inputs):
            down.add(node)
    return down


def none_reason(sweep, x):
    """A :class:`Reason` if x's gradient is None in ``sweep``, else None."""
    if not x.is_float:
        return Reason("integer", x)
    if x in sweep.adjoints:
        return None
    down = downstream(x, sweep.ys)
    if not down & set(sweep.ys):
        return Reason("no_path", x)
    ordered = sorted(down, key=lambda n: n.id)
    blockers = [n for n in ordered if not n.is_float][:3]
    cuts = [n for n in ordered if n in sweep.cut and n is not x]
    if not cuts:
        return Reason("integer_path", x, blockers)
    reason = Reason("stopped", x, cuts, [sweep.cut[n] for n in cuts])
    reason.blockers = blockers
    return reason


def paths(sweep, x):
    """Every path from x to a y the sweep used: lists of ``(consumer, input_index)`` edges.

    Returns None when there are more than :data:`MAX_PATHS` paths.
    """
    seeded = {inp for c, _, inp, _ in sweep.contributions if c is None}
    found, stack = [], [(x, [])]
    while stack:
        node, trail = stack.pop()
        if node in seeded and trail:
            found.append(trail)
        elif node in seeded and node is x:
            found.append([])
        for consumer, i in _consumers_of(node, sweep):
            stack.append((consumer, trail + [(consumer, i)]))
        if len(found) > MAX_PATHS or len(stack) > 10 * MAX_PATHS:
            return None
    return sorted(found, key=lambda p: [(c.id, i) for c, i in p])


def _consumers_of(node, sweep):
    return [(c, i) for c, i, inp, _ in sweep.contributions if inp is node and c is not None]


def edge_partial(consumer, index):
    """d consumer / d consumer.inputs[index] as SymPy, or None if not elementwise."""
    parts = local_partials(consumer)
    return None if parts is None else parts[index]


def symbol_values(nodes, values):
    """``{Symbol(name): number}`` for scalar nodes with known values (to evaluate partials)."""
    out = {}
    for n in nodes:
        v = values.get(n)
        if v is None or np.size(v) != 1:
            continue
        v = np.asarray(v).reshape(())[()]
        if n.dtype.kind == "b":
            out[sympy.Symbol(n.op_name)] = sympy.true if v else sympy.false
        else:
            out[sympy.Symbol(n.op_name, real=True)] = float(v)
    return out
