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

Imports ``ops.onehot``.
"""
from __future__ import annotations

from . import onehot


class Shortcut:
    """``fn(*values of inputs)`` is the node's value (what its graph computes)."""

    __slots__ = ("inputs", "fn")

    def __init__(self, inputs, fn):
        self.inputs, self.fn = tuple(inputs), fn


def give_shortcut(node, inputs, fn):
    node.shortcut = Shortcut(inputs, fn)
    return node


# plans per order list (a loop body runs the same list at every iteration)
_PLANS: dict = {}


def plan(order, outputs, feeds):
    """``(skip, fast, shortcuts)`` for one evaluation of ``order`` (topological), or
    None when nothing in it has a faster way.  ``fast``: {einsum: (position of its
    one-hot operand, OneHot)}; ``shortcuts``: nodes computed by their Shortcut;
    ``skip``: nodes left uncomputed."""
    key = id(order)
    found = _PLANS.get(key)
    stamp = (tuple(map(id, outputs)), tuple(map(id, feeds)))
    if found is not None and found[0] is order and found[1] == stamp:
        return found[2]
    if len(_PLANS) >= 64:
        _PLANS.clear()
    made = _plan(order, outputs, feeds)
    _PLANS[key] = (order, stamp, made)
    return made


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
