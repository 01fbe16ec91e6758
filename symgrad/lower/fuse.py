"""Loop fusion: an elementwise array node used once, by an elementwise node of the
same shape or by a reduction, is computed inside its user's loop instead of in a
loop of its own.  So is a gather of an input or a constant through an index table
used once by an elementwise node: its user reads the table's positions itself
(Lennard-Jones' ``pos[i] - pos[j]``: no copy of each side in a buffer first).

The producer's body (SSA instructions) is spliced into the consumer's body in
place of the argument that read it, so no value is rounded, simplified or
reordered: the same instructions run, only without the round trip through a
buffer.  (Substituting SymPy expressions instead would let SymPy simplify
``(x - y) + y`` to ``x``, wrong for inf and NaN.)

Imports numpy and ``lower.inplace`` (the plain-sum test).

>>> splice((("arg", 0), ("arg", 1), ("add", 0, 1)), 1, (("arg", 0), ("call", "sin", 0)), 1)
(('arg', 1), ('call', 'sin', 0), ('arg', 0), ('add', 2, 1))
"""
from __future__ import annotations

import numpy as np

from .inplace import is_plain_sum, is_scatter


def splice(body, k, inner, first):
    """``body`` with argument ``k`` computed by ``inner`` (whose args start at ``first``).

    Argument ``k`` disappears: the consumer's later arguments move down by one, and
    the producer's argument ``j`` becomes ``first + j``.
    """
    out = [("arg", first + op[1]) if op[0] == "arg" else op for op in inner]
    produced, where = len(out) - 1, {}
    for i, op in enumerate(body):
        if op[0] == "arg" and op[1] == k:
            where[i] = produced
            continue
        if op[0] == "arg":
            out.append(("arg", op[1] - (op[1] > k)))
        elif op[0] == "const":
            out.append(op)
        else:
            out.append(_renumber(op, where))
        where[i] = len(out) - 1
    if where[len(body) - 1] != len(out) - 1:  # the result must be the last instruction
        out.append(("id", where[len(body) - 1]))
    return tuple(out)


def prune(srcs, body):
    """``(srcs, body)`` without the sources no ``("arg", k)`` of ``body`` reads (folding
    and cross-node reuse can leave some): an unread source would still count as a
    read for buffer sharing and loop fusion, and keep them from sharing or fusing.

    >>> prune([("a", None), ("b", None)], (("arg", 1), ("neg", 0)))
    ([('b', None)], (('arg', 0), ('neg', 0)))
    """
    used = sorted({op[1] for op in body if op[0] == "arg"})
    if len(used) == len(srcs):
        return srcs, body
    new = {k: i for i, k in enumerate(used)}
    return ([srcs[k] for k in used],
            tuple(("arg", new[op[1]]) if op[0] == "arg" else op for op in body))


def _renumber(op, where):
    if op[0] == "call":
        return (op[0], op[1]) + tuple(where[i] for i in op[2:])
    return (op[0],) + tuple(where[i] for i in op[1:])


class FuseLoops:
    """Mixin for the lowering: defer fusible producers, splice them into users."""

    def fusible(self, node, body=()):
        # A producer calling a math function keeps its buffer: gradients often need the
        # same value again (tanh' = 1 - tanh**2), and lower.reuse can only read a buffer.
        if any(op[0] == "call" for op in body):
            return False
        if not node.shape or node.dtype.kind != "f" or node.dtype.itemsize != 8:
            return False
        if self.uses.get(node) != 1 or len(self.users.get(node, ())) != 1:
            return False
        (user,) = self.users[node]
        if user.dtype != node.dtype:
            return False
        if user.opdef.kind == "reduce" or is_scatter(user):  # computed inside the user's loop
            return True  # (a reduction's, or a scatter-add's: index_add of a cotangent)
        if user.opdef.kind != "elementwise" or user.shape != node.shape:
            return False
        # A sum that absorbs a scatter writes into its other operand's buffer.
        return not (is_plain_sum(user) and any(is_scatter(x) for x in user.inputs))

    def fused_reads(self, ref, order):
        """The deferred producer ``ref`` read in a loop nest over its axes in ``order``."""
        srcs, body = self.fused[ref[1]]
        return [(r, self.reordered(a, tuple(order))) for r, a in srcs], body

    def reordered(self, addr, order):
        """``addr`` read in a loop nest over its axes in ``order``."""
        if addr is None or order == tuple(range(len(order))):
            return addr
        if addr[0] == "aff":
            return ("aff", addr[1], tuple(addr[2][i] for i in order))
        table = self.program.const_array(addr[1])   # a gather's table (lower.program)
        return self.table_addr(np.transpose(table, order))

    def fuse_inputs(self, srcs, body):
        """Splice deferred producers among ``srcs`` into ``body``; returns both updated
        (without the sources the body no longer reads: :func:`prune`)."""
        while True:
            k = next((i for i, (ref, _) in enumerate(srcs) if ref[0] == "fused"), None)
            if k is None:
                return prune(srcs, body)
            inner_srcs, inner_body = self.fused[srcs[k][0][1]]
            body = splice(body, k, inner_body, len(srcs) - 1)
            srcs = list(srcs[:k]) + list(srcs[k + 1:]) + list(inner_srcs)
