"""Closed forms of sparse results: the stored entries only, each with its place.

A sparse Jacobian or Hessian (``sparse=True``: a ``sparse.SparseTensor``) holds one
vector of the graph, its stored entries in CSR order, and the layout that places
them.  Its closed form is that vector expanded and read with the places:
``[i, j] = 1200*x[i]**2 - 400*x[i + 1] + 202``, one line per stored entry.

The vector's entries are small, but the compressed sweeps behind them are as wide
as the variables: the expansion costs about its scalar size (entries of the vector
and of every tensor it is computed from, measured ~9 us each on Rosenbrock, so
``SPARSE_EXPAND_LIMIT`` is about a second).  Above the limit the printers show a
note instead (:class:`SparseElided`); only the entries a printer shows are
simplified, with the budget of the dense forms, and entries equal across the
diagonal of a Hessian print the same way, as in the dense ones.

Imports ``elided``, ``simplify`` and ``symbolic``; a sparse result is recognised by
its layout (``values.is_sparse_result``), so nothing here imports the layer that
makes it.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable([1.0, 2.0, 3.0], name="x")
...     (h,) = sg.hessians(sg.reduce_sum(x[1:] * x[:-1] ** 2), x, sparse=True)
...     form = sparse_form(h)
...     form.places[:3], form.entries[:3]
([(0, 0), (0, 1), (1, 0)], [2*x[1], 2*x[0], 2*x[0]])
"""
from __future__ import annotations

import numpy as np
import sympy

from .elided import Elided, scalar_size
from .simplify import BUDGET_SECONDS, MEDIUM_OPS, dag_size, mirror_pairs, simplify_array
from .symbolic import expand

SPARSE_EXPAND_LIMIT = 150_000   # scalar size of a sparse result's vector the printers expand


def places(t):
    """(row, column) of each stored entry of sparse result ``t``, in CSR order."""
    layout = t.layout
    rows = np.repeat(np.arange(layout.shape[0]), np.diff(layout.indptr))
    return list(zip(rows.tolist(), np.asarray(layout.indices).tolist()))


class SparseForm:
    """The closed forms of a sparse result's stored entries (the first ``len(entries)``).

    Attributes:
        shape: (rows, columns).  places: (row, column) of each entry shown.
        entries: their SymPy forms.  total: how many entries are stored in all.
    """

    def __init__(self, shape, places, entries, total):
        self.shape, self.places, self.entries, self.total = shape, places, entries, total

    def matrix(self):
        """A ``sympy.ImmutableSparseMatrix`` of the entries (all of them, when complete)."""
        return sympy.ImmutableSparseMatrix(*self.shape, dict(zip(self.places, self.entries)))


class SparseElided(Elided):
    """A sparse result whose stored entries are not expanded, and why."""

    def __init__(self, t, size, limit):
        super().__init__(t.values, size, "a sparse result prints its stored entries only")
        self.sparse, self.limit = t, limit

    def note(self):
        rows, cols = self.sparse.shape
        size = "unknown sizes" if self.size is None else \
            f"{self.size:,} scalar entries, above {self.limit:,}"
        return (f"stored entries of the sparse {rows}×{cols} result {self.tensor.name} "
                f"({self.sparse.nnz:,} stored) not expanded ({size}); "
                "sg.closed_form(t, expand_limit=None) expands them anyway")


def sparse_form(t, simplify="auto", limit=SPARSE_EXPAND_LIMIT, budget=BUDGET_SECONDS,
                entries=None):
    """The :class:`SparseForm` of sparse result ``t`` (its first ``entries`` stored
    entries simplified, all when None), or a :class:`SparseElided` when the vector's
    scalar size is unknown or above ``limit`` (None: no limit)."""
    size = scalar_size(t.values)
    if limit is not None and (size is None or size > limit):
        return SparseElided(t, size, limit)
    (values,) = expand([t.values])
    where = places(t)
    kept = len(where) if entries is None else min(entries, len(where))
    shown = simplify_array(np.asarray(values, dtype=object)[:kept], simplify, budget)
    shown = [sympy.sympify(e) for e in shown]
    if simplify != "none":
        _mirror(shown, where[:kept], budget)
    return SparseForm(tuple(t.shape), where[:kept], shown, len(where))


def _mirror(entries, where, budget):
    """Entries (i, j) and (j, i) both shown print the same way, where provably equal
    (pairs of entries too large for the simplifier's cheap passes are not tried: even
    estimating the proof's cost walks their trees)."""
    at = {p: k for k, p in enumerate(where)}
    pairs = [(k, at[(j, i)]) for k, (i, j) in enumerate(where)
             if i < j and (j, i) in at and entries[k] != entries[at[(j, i)]]]
    pairs = [(p, q) for p, q in pairs
             if dag_size(entries[p], MEDIUM_OPS) + dag_size(entries[q], MEDIUM_OPS) <= MEDIUM_OPS]
    mirror_pairs(entries, pairs, budget)
