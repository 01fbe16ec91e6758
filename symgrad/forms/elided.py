"""Sizes of closed forms read off the graph, and the note shown instead of one too large.

:func:`scalar_size` counts the entries of a tensor and of every tensor it is
computed from, without expanding anything: the elementwise expansion costs about
that many SymPy operations (and, for a reduction over k terms, a sum of k), so the
printers decide from it which form to build.  :class:`Elided` stands for a form
not built, and says why.

Imports the graph only.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(2.0, name="x")
...     scalar_size(x * x + 1)
4
"""
from __future__ import annotations

import numpy as np

EXPAND_LIMIT = 2000         # largest scalar size the printers expand elementwise (str, text)
# Above EXPAND_LIMIT, up to TRY_LIMIT, the expansion is tried for TRY_SECONDS: the scalar
# size counts every entry of every tensor, zeros and seeds included, and overstates some
# (the Hessian of Rosenbrock with 10 variables: 2,817 entries, expanded in 0.04 s) as it
# understates others (an MLP's gradient of 1,364: 2 s).  Beyond TRY_LIMIT one node alone
# can take longer than the whole attempt should.
TRY_LIMIT = 60_000
TRY_SECONDS = 2.0
# The deadline is checked between nodes, so a try also needs every node to be quick: a
# reduction, contraction or special op reads at most TRY_INPUTS entries (max and min
# at most TRY_EXTREMA: SymPy's Max compares its arguments pairwise).
TRY_INPUTS = 2048
TRY_EXTREMA = 64


def worth_trying(t, size):
    """Whether an expansion counted at ``size`` (above the printers' limit) is tried
    within TRY_SECONDS (see TRY_LIMIT)."""
    if size is None or size > TRY_LIMIT:
        return False
    seen, todo = set(), [t]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        todo.extend(node.inputs)
        if node.opdef.kind in ("elementwise", "structural", "leaf") or not node.inputs:
            continue
        read = max(_entries(x.shape) or 0 for x in node.inputs)
        cap = TRY_EXTREMA if node.opdef.name in ("reduce_max", "reduce_min") else TRY_INPUTS
        if read > cap:
            return False
    return True


class SlowExpansion(Exception):
    """An elementwise expansion stopped at its deadline (see TRY_SECONDS)."""


def _entries(shape):
    if shape is None or any(not isinstance(d, (int, np.integer)) for d in shape):
        return None         # an unknown dimension: no elementwise expansion exists
    return int(np.prod(shape, dtype=np.int64))


def scalar_size(t, stop=()):
    """Entries of ``t`` and of every tensor it is computed from, not looking past the
    tensors in ``stop`` (kept as symbols); None when a size is unknown."""
    stop, total, seen, todo = set(stop), 0, set(), [t]
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        if node not in stop:
            todo.extend(node.inputs)
        n = _entries(node.shape)
        if n is None:
            return None
        total += n
    return total


class Elided:
    """A closed form too large to show: what it is and why (printers render it as a note).

    Attributes:
        tensor: the tensor; size: its scalar size (None: unknown dims); reason: why
        there is no matrix notation.
    """

    def __init__(self, tensor, size, reason):
        self.tensor, self.size, self.reason = tensor, size, reason

    def note(self):
        size = "unknown sizes" if self.size is None else f"{self.size:,} scalar entries"
        return (f"closed form of {self.tensor.name} {tuple(self.tensor.shape)} not expanded "
                f"({size}); no matrix notation: {self.reason}")

    def __str__(self):
        return f"<{self.note()}>"


