"""The cheap tier of ``f.batched``: the graph over a batch axis, evaluated by numpy.

While the machine code is being built (``lower.background``), ``f.batched`` is
answered by a :class:`~symgrad.lower.plan.Plan` of the graph rebuilt with a leading
batch axis on every input: the batching rules of ``ops.batching`` (the ones
``sg.hessians`` uses), applied in a private graph, so the user's graph and its
names do not change.  Points are evaluated in chunks of at most ``CHUNK``; a chunk
of ``n`` points runs the plan for the next power of two (the last point repeated),
so a handful of plans serve every batch size.  An op whose batching rule does not
apply (the rules' last resort, unrolling per point, would make the graph ``size``
times larger) raises :class:`NoBatchRule`: the caller waits for the machine code.

Imports numpy, the graph, the op registry's batching rules and ``lower.plan``.

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(2,), name="x")
...     y = sg.reduce_sum(x * x)
...     tier = BatchedPlan([y], [x])
>>> out = np.empty(3)
>>> tier.rows(0, 3, [(1, np.array([[1.0, 2.0], [3.0, 4.0], [0.0, 1.0]]))], [out])
>>> out.tolist()
[5.0, 25.0, 1.0]
"""
from __future__ import annotations

import numpy as np

from ..graph import Graph, ancestors
from ..ops.batching import batch_rule, spread
from .plan import Plan

CHUNK = 256   # points per plan call: arrays of this many rows keep numpy's overhead small


class NoBatchRule(Exception):
    """An op of the graph has no batching rule that applies (it would be unrolled)."""


class BatchedPlan:
    """``outputs`` (nodes) evaluated at many points of ``inputs`` by numpy.

    ``rows(lo, hi, pairs, outs)`` fills ``out[lo:hi]`` of every output array from
    the points ``lo:hi`` of ``pairs``: per input ``(m, flat)`` as
    ``lower.batch_args.prepare`` makes them (``flat`` with one batch axis; ``m`` 0 for
    an input every point shares).
    """

    def __init__(self, outputs, inputs, order=None):
        self.outputs, self.inputs = list(outputs), list(inputs)
        self.order = ancestors(self.outputs + self.inputs) if order is None else order
        self._plans: dict = {}

    def plan(self, size):
        """The plan over a batch of ``size`` points (built on first use)."""
        if size not in self._plans:
            outs, ins = batched_graph(self.outputs, self.inputs, self.order, size)
            self._plans[size] = Plan(outs, ins)
        return self._plans[size]

    def rows(self, lo, hi, pairs, outs):
        while lo < hi:
            n = min(CHUNK, hi - lo)
            size = 1 << (n - 1).bit_length()
            take = np.minimum(np.arange(lo, lo + size), lo + n - 1)
            values = [flat[take] if m else np.broadcast_to(flat[0], (size,) + flat.shape[1:])
                      for m, flat in pairs]
            values = [v if v.dtype == x.dtype else v.astype(x.dtype)
                      for v, x in zip(values, self.inputs)]
            for out, value in zip(outs, self.plan(size)(values)):
                out[lo:lo + n] = value[:n]
            lo += n


def batched_graph(outputs, inputs, order, size):
    """``(outputs, inputs)`` rebuilt in a new graph, every input with a leading axis of
    ``size``; nodes that depend on no input are copied as they are."""
    graph = Graph()
    new = {x: graph.add_node(x.opdef, (), {}, (size,) + x.shape, x.dtype, name=x.name)
           for x in inputs}
    batched = set(inputs)
    for node in order:
        if node in new:
            continue
        ins = [new[x] for x in node.inputs]
        flags = [x in batched for x in node.inputs]
        if not any(flags):   # the same for every point
            new[node] = graph.add_node(node.opdef, ins, node.attrs, node.shape, node.dtype,
                                       value=node.value)
            continue
        new[node] = _batched(node, ins, flags, size)
        batched.add(node)
    outs = []
    for o in outputs:
        b = new[o]
        if o not in batched:   # a constant output: the same value at every point
            b = spread(b, size)
        outs.append(b)
    return outs, [new[x] for x in inputs]


def _batched(node, inputs, flags, size):
    rule = batch_rule(node.opdef)
    try:
        out = None if rule is None else rule(node, inputs, flags, size)
    except Exception as exc:  # noqa: BLE001 (an index pattern the rule cannot shift)
        raise NoBatchRule(f"{node.opdef.name} ({node.name!r}): {exc}") from exc
    if out is None or out.shape != (size,) + node.shape:
        raise NoBatchRule(f"{node.opdef.name} ({node.name!r}) has no batching rule here")
    return out
