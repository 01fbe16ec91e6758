"""In-place gradient sums: ``a + index_add(g)`` scatters g into a's buffer.

Reverse mode sums one sparse cotangent per use of a tensor (``x[k]`` sends back
``index_add(g_k)``, zeros except one slot).  Lowered naively, a chain of N uses
costs N dense zero-fills and N dense additions: O(N^2) work and memory.  Here an
``index_add`` whose only use is a plain sum is never materialised; the sum adds
its g straight into the other operand's buffer when nothing else can see that
buffer (one use overall, not an output), else into a copy.  Values are unchanged:
numpy adds the same numbers in the same order (and ``a + 0 == a``).

The pattern is found by kind and expression (a registry op whose rule is
``_x0 + _x1``; an op with ``scatter_positions``), never by op name.

Imports graph, ops and ``lower.program`` helpers (passed in by the mixin's user).

>>> import symgrad as sg
>>> from symgrad.lower.program import lower_graph
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(100,), name="x")
...     y = x[0] * x[1] + x[2]
...     p = lower_graph(sg.gradients(y, x), [x])
>>> len(p.buffers) <= 2  # the gradient and the stacked cotangents, not one per use
True
"""
from __future__ import annotations

import functools

from ..graph import consumers


def is_plain_sum(node):
    """True for an elementwise ``x + y`` of same-shaped, same-dtype inputs."""
    if node.opdef.kind != "elementwise" or len(node.inputs) != 2 or "strong" in node.attrs:
        return False
    if any(x.shape != node.shape or x.dtype != node.dtype for x in node.inputs):
        return False
    expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
    return expr == _sum_of(syms)


@functools.lru_cache(maxsize=64)
def _sum_of(syms):
    """``syms[0] + syms[1]``, built once (every node of a graph may ask)."""
    return syms[0] + syms[1]


def is_scatter(node):
    return getattr(node.opdef, "scatter_positions", None) is not None


class InPlaceSums:
    """Mixin for the lowering: use counts, deferral of scatters, in-place sums."""

    def count_uses(self, nodes, outputs):
        self.users = consumers(nodes)
        self.uses = {n: len(self.users[n]) for n in nodes}
        for n in outputs:
            self.uses[n] = self.uses.get(n, 0) + 1
        self.deferred, self.owner, self.shared = {}, {}, set()

    def defer(self, node):
        """Whether ``node`` (a scatter) is left to its single consumer, a plain sum."""
        if not is_scatter(node) or self.uses.get(node) != 1 or len(self.users[node]) != 1:
            return False
        (user,) = self.users[node]
        if not is_plain_sum(user) or user.inputs[0] is user.inputs[1]:
            return False
        other = user.inputs[1] if user.inputs[0] is node else user.inputs[0]
        if user.inputs[0] is node and is_scatter(other) and self.uses.get(other) == 1:
            return False  # both operands are scatters: materialise the first, defer the second
        self.deferred[node] = len(self.deferred)
        return True

    def accumulate(self, node):
        """Lower a plain sum with a deferred scatter operand; None if it has none."""
        if not is_plain_sum(node):
            return None
        scat = next((x for x in node.inputs if x in self.deferred), None)
        if scat is None:
            return None
        base = node.inputs[1] if node.inputs[0] is scat else node.inputs[0]
        ref = self.env[base]
        if ref[0] == "buf" and ref not in self.shared and self.owner.get(ref) is base \
                and self.uses.get(base) == 1:
            self.forget([base])  # the buffer changes: a node equal to base met later recomputes
        else:
            ref = self.copy_of(node, base)
        self.owner[ref] = node
        self.scatter_into(scat, ref, node)
        return ref

    def claim(self, node, ref):
        """Record that ``node`` now holds ``ref``; a ref held by two nodes is shared."""
        holder = self.owner.setdefault(ref, node)
        if holder is not node:
            self.shared.add(ref)
