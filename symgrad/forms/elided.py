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


def _entries(shape):
    if any(not isinstance(d, (int, np.integer)) for d in shape):
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


