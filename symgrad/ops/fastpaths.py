"""Which nodes the reference evaluator computes another way, and which it can then
leave uncomputed (``evaluate.run``).

Two kinds of node carry a faster way to their value, equal to the graph's:

- a one-hot tensor (``Node.one_hot``, ``ops.onehot``): the einsums reading it are
  computed from the indices, and it is not made when only they read it;
- a node with a ``Node.shortcut`` (:class:`Shortcut`): its value is ``fn`` of the
  values of a few other nodes (``top_k``'s results from its input by one sort,
  instead of k rounds of arg-max over the whole axis).

Every node read only by nodes left uncomputed, or by shortcuts that do not read
it, is left uncomputed too (the comparisons that make a one-hot tensor, the rounds
of a top_k).  Outputs, fed nodes and the indices are always computed.

The evaluator also writes a sum into a dead operand's array (:class:`Sums`).

Imports numpy and ``ops.onehot``.
"""
from __future__ import annotations

import numpy as np

from . import onehot


class Shortcut:
    """``fn(*values of inputs)`` is the node's value (what its graph computes)."""

    __slots__ = ("inputs", "fn")

    def __init__(self, inputs, fn):
        self.inputs, self.fn = tuple(inputs), fn


def give_shortcut(node, inputs, fn):
    # (inputs of an enclosing graph -- top_k of an outer tensor in a cond branch -- are
    # read through the stand-ins the branch captured, as the node's own ops read them)
    node.shortcut = Shortcut([x if x.graph is node.graph else node.graph.capture(x)
                              for x in inputs], fn)
    return node


def per_order(order, name, make, stamp=None):
    """``make(order)``, kept on the graph per order list under ``name`` (a loop body runs
    the same list at every iteration; the list is kept, so ids stay unique; a ``stamp``
    that differs from the kept one makes it anew).  ``sg.evaluate`` makes a new list at
    every call: at most 64 are kept."""
    table = order[0].graph.__dict__.setdefault(name, {})
    found = table.get(id(order))
    if found is None or found[0] is not order or found[1] != stamp:
        if len(table) >= 64:
            table.clear()
        found = table[id(order)] = (order, stamp, make(order))
    return found[2]


def plan(order, outputs, feeds):
    """``(skip, fast, shortcuts)`` for one evaluation of ``order`` (topological), or
    None when nothing in it has a faster way.  ``fast``: {einsum: (position of its
    one-hot operand, OneHot)}; ``shortcuts``: nodes computed by their Shortcut;
    ``skip``: nodes left uncomputed."""
    if not order:
        return None
    return per_order(order, "_fast_plans", lambda o: _plan(o, outputs, feeds),
                     (tuple(map(id, outputs)), tuple(map(id, feeds))))


def _plan(order, outputs, feeds):
    hots = [n for n in order if n.one_hot is not None and n not in feeds]
    shortcuts = {n for n in order if n.shortcut is not None and n not in feeds}
    if not hots and not shortcuts:
        return None
    readers = {}
    for node in order:
        for x in (node.shortcut.inputs if node in shortcuts else node.inputs):
            readers.setdefault(x, []).append(node)
    wanted, fast, skip = set(outputs), {}, set()
    for hot in hots:
        found = _contractions(hot, readers.get(hot, ()))
        if found and hot not in wanted:
            fast.update(found)
            skip.add(hot)
    keep = wanted | {hot.one_hot.ids for hot in skip} | set(feeds)
    bypassed = {x for n in shortcuts for x in n.inputs}   # (read through the graph only)
    for node in reversed(order):
        if node in skip or node in keep:
            continue
        found = readers.get(node)
        if (found or node in bypassed) and all(r in skip for r in found or ()):
            skip.add(node)
    return skip, fast, shortcuts


def _contractions(hot, readers):
    """{einsum: (position, OneHot)} when every reader is an einsum ``onehot`` handles."""
    found = {}
    for r in readers:
        if r.opdef.name != "einsum" or len(r.inputs) != 2 or \
                (r.inputs[0] is hot) == (r.inputs[1] is hot):
            return None
        position = r.inputs.index(hot)
        if r.inputs[1 - position].one_hot is not None or \
                not onehot.handles(r.attrs["subscripts"], position, hot.one_hot.ids.ndim):
            return None   # (of two one-hot operands, both are made: a confusion matrix)
        found[r] = (position, hot.one_hot)
    return found


class Sums:
    """Sums written into a dead operand: an ``add`` whose input was made in this run,
    is read by nothing after it and holds an array of its own and of the sum's shape
    and dtype adds the other operand into that array (a gradient summed over an
    unrolled RNN's steps made a new 400 x 800 array at each of them).  The same
    values bit for bit: ``np.add(a, b, out=a)`` is ``a + b``."""

    # arrays from this many elements are tracked and written into (a small array's
    # allocation costs less than the bookkeeping, for every node of a long chain)
    FROM = 4096

    def __init__(self, order, outputs):
        self.order, self.last, self.wanted, self.holders = order, None, outputs, {}

    def foreign(self, array):
        """A value not made in this run (a leaf's, a feed): never written."""
        if array.size >= self.FROM:
            self.holders[id(array)] = 2

    def made(self, array):
        if array.size >= self.FROM:
            self.holders[id(array)] = self.holders.get(id(array), 0) + 1

    def in_place(self, node, args, shape):
        if node.opdef.name != "add" or len(args) != 2:
            return None
        for k in (0, 1):
            a, x = args[k], node.inputs[k]
            if type(a) is not np.ndarray or a.size < self.FROM or \
                    self.holders.get(id(a)) != 1:
                continue
            if self.last is None:   # (made at the first candidate)
                self.last, self.wanted = last_readers(self.order), set(self.wanted)
            if self.last.get(x) is node and x not in self.wanted \
                    and a.base is None and a.flags.writeable and a.shape == shape \
                    and a.dtype == node.dtype and args[1 - k] is not a:
                self.holders[id(a)] = 0    # (its node is dead: the sum's, once made)
                return np.add(a, args[1 - k], out=a)
        return None


def last_readers(order):
    """{node: the last node of ``order`` reading it}, kept per order list."""
    return per_order(order, "_last_readers", _last_readers) if order else {}


def _last_readers(order):
    last = {}
    for node in order:
        for x in node.inputs:
            last[x] = node
    return last
