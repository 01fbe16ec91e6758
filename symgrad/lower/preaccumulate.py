"""Preaccumulation: a scalar reverse sweep multiplies its cotangent once per step.

A reverse sweep builds each cotangent as strong-zero products ``strong(g, g * p)``
(``ops.elementwise``: 0 where g is exactly 0), one per op: a step
``f = sin(a) * a + x`` sends back ``strong(g, g * sin(a)) + strong(strong(g, g * a),
strong(g, g * a) * cos(a))``: two products, two guards and a sum, one after the other
on the cotangent's dependent chain.  Here, for 0-d float64 nodes only (straight-line
code, where that chain is the kernel's critical path), the local partials are
multiplied first, from forward values alone, and the cotangent once:

- a strong product whose cotangent is another strong product used nowhere else,
  ``strong(strong(g, g * p), strong(g, g * p) * q)``, becomes
  ``strong(g, g * P)`` with ``P = strong(p, p * q)`` (the inner guard moves onto the
  forward value p: where p is 0 the term is 0, as before);
- a plain sum of two strong products of one cotangent, each used nowhere else,
  ``strong(g, g * P1) + strong(g, g * P2)``, becomes ``strong(g, g * (P1 + P2))``.

So the step above costs one product and one guard on the chain (a 200-step sine
chain: the reverse sweep as short as hand-written code's).  Values change by
rounding only (``g * (p * q)`` for ``(g * p) * q``); where g is exactly 0 the result
is still 0.  One edge differs: where ``g * p`` underflows to 0 with g and p nonzero
and q is inf or NaN, the sweep op by op gave 0 and this gives inf or NaN.  The graph
itself is not changed (closed forms and the reference evaluator keep the sweep op by
op): the lowering reads rewritten copies of the nodes, not in the graph.

Imports numpy, sympy, graph, ops (and evaluate's ``needed``) and ``lower.inplace``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(), name="x")
...     (g,) = sg.gradients(sg.sin(x) * x, x)
...     (out,) = preaccumulated([g])
>>> out.attrs["expr"], out.inputs[0].attrs["expr"], out.inputs[0].inputs[1].attrs["expr"]
(_x0*_x1, _x0 + _x1, _x0*cos(_x0))
"""
from __future__ import annotations

import functools

import numpy as np
import sympy

from ..evaluate import needed
from ..graph import Node, consumers
from ..ops.elementwise import GENERIC, arg_symbol
from .inplace import is_plain_sum

_F8 = np.dtype(np.float64)
_STEP = 1.0 / 1024          # ids of the nodes made for one node: between it and the one before


def preaccumulated(outputs, inputs=()):
    """``outputs`` (nodes) with their 0-d reverse sweeps preaccumulated (module doc),
    down to ``inputs``; nodes below that change are copies, out of the graph (ids keep a
    topological order)."""
    fed = set(inputs)
    nodes = needed(outputs, fed)
    users = consumers(nodes)
    outs = {id(o) for o in outputs}
    new, single = {}, set()
    for node in nodes:
        if node in fed:
            new[node] = node
            continue
        args = tuple(new[x] for x in node.inputs)
        made = _Maker(node)
        now = made.copy(args) if args != node.inputs else node
        now = _rewritten(now, single, made) or now
        new[node] = now
        if len(users[node]) == 1 and id(node) not in outs:
            single.add(now)
    return [new[o] for o in outputs]


class _Maker:
    """New nodes standing for ``node``: ids just below its own, in order of making."""

    def __init__(self, node):
        self.node, self.made = node, 0

    def copy(self, inputs):
        out = object.__new__(type(self.node))
        out.__dict__.update(self.node.__dict__)
        out.inputs = inputs
        return out

    def generic(self, inputs, expr, strong=None):
        self.made += 1
        attrs = {"expr": expr, "label": "preaccumulated"}
        if strong is not None:
            attrs["strong"] = strong
        return Node(self.node.graph, self.node.id - 1 + self.made * _STEP, GENERIC,
                    inputs, attrs, (), _F8, f"{self.node.name}/pre{self.made}")


def _rewritten(node, single, made):
    """The preaccumulated form of ``node`` (inputs already rewritten), or None."""
    own = _split(node)
    if own is not None:
        g, partial = own
        inner = _split(g) if g in single and node.inputs.count(g) == 1 else None
        if inner is None:
            return None
        g_inner, p = inner
        return _product(made, g_inner, _guarded(made, _factor(made, p), partial))
    if not (_scalar(node) and is_plain_sum(node)):
        return None
    a, b = node.inputs
    sa, sb = (_split(x) if x in single else None for x in (a, b))
    if a is b or sa is None or sb is None or sa[0] is not sb[0]:
        return None
    nodes, (ea, eb) = _merged([sa[1], sb[1]])
    return _product(made, sa[0], made.generic(nodes, ea + eb))


def _scalar(node):
    return node.shape == () and node.dtype == _F8


def _split(node):
    """``(g, (nodes, p))`` for a 0-d strong product ``strong(g, g * p)``, p an expression
    over ``nodes`` (arguments ``_x0...``); else None."""
    if node.opdef is not GENERIC or "strong" not in node.attrs or not _scalar(node) or \
            any(not _scalar(x) for x in node.inputs):
        return None
    s = node.attrs["strong"]
    p = _partial_of(node.attrs["expr"], s, len(node.inputs))
    if p is None:
        return None
    others = [k for k in range(len(node.inputs)) if k != s]
    if node.inputs[s] in [node.inputs[k] for k in others]:
        return None
    return node.inputs[s], (tuple(node.inputs[k] for k in others), p)


@functools.lru_cache(maxsize=1 << 14)
def _partial_of(expr, s, count):
    """p when ``expr`` (over ``count`` arguments) is ``g * p``, g argument ``s`` and p
    free of it, over the other arguments renumbered in order; else None.  Memoised: a
    chain's cotangents are a few distinct expressions met again and again (SymPy's
    ``as_independent`` was a quarter of lowering a 200-step chain)."""
    g = arg_symbol(s)
    p, rest = sympy.sympify(expr).as_independent(g, as_Add=False)
    if rest != g:
        return None
    others = [k for k in range(count) if k != s]
    return p.xreplace({arg_symbol(k): arg_symbol(i) for i, k in enumerate(others)})


def _merged(partials):
    """One tuple of nodes for several ``(nodes, expr)`` partials, and each expr over it."""
    nodes, exprs = [], []
    for inputs, expr in partials:
        for x in inputs:
            if not any(x is y for y in nodes):
                nodes.append(x)
        where = tuple(next(i for i, y in enumerate(nodes) if y is x) for x in inputs)
        exprs.append(_renumbered(expr, where))
    return tuple(nodes), exprs


@functools.lru_cache(maxsize=1 << 14)
def _renumbered(expr, where):
    """``expr`` with argument k renamed argument ``where[k]`` (memoised, as _partial_of)."""
    return expr.xreplace({arg_symbol(k): arg_symbol(i) for k, i in enumerate(where)})


def _factor(made, partial):
    """A node holding the value of ``partial`` (an input itself when it is one)."""
    inputs, expr = partial
    if isinstance(expr, sympy.Symbol):
        return inputs[int(expr.name[2:])]
    return made.generic(inputs, expr)


def _guarded(made, p, partial):
    """``strong(p, p * q)`` for the node p and the partial q: 0 where p is 0."""
    nodes, (pe, qe) = _merged([((p,), arg_symbol(0)), partial])
    return made.generic(nodes, pe * qe, strong=int(pe.name[2:]))


def _product(made, g, p):
    """``strong(g, g * p)``: the cotangent g times the node p, 0 where g is 0."""
    return made.generic((p, g), arg_symbol(0) * arg_symbol(1), strong=1)
