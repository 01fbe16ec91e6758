"""Sets of seed entries, one per element of a node: the index sets of ``sparsity``.

``patterns`` follows, node by node, which entries of the seed each element reads;
:class:`_Rows` holds those sets as CSR index arrays (plain numpy: a few calls per
node), with the gathers and unions the rules need, and :func:`_sorted_unique`
deduplicates their keys (by marking when the key space is small, else by sorting).

Imports numpy (and scipy.sparse for :meth:`_Rows.matrix`) only.

>>> r = _Rows.union(2, 3, [(np.array([1, 0, 1]), np.array([2, 1, 2]))])
>>> r.indptr.tolist(), r.indices.tolist()
([0, 1, 2], [1, 2])
"""
from __future__ import annotations

import numpy as np


class _Rows:
    """Sets of seed entries, one per element: CSR index arrays (sorted, unique per row).

    Plain numpy, a few calls per node (scipy.sparse objects cost ~0.1 ms each to make).
    """

    def __init__(self, indptr, indices, width):
        self.indptr, self.indices, self.width = indptr, indices, width

    @classmethod
    def identity(cls, n):
        ids = np.arange(n, dtype=np.int64)
        return cls(np.arange(n + 1, dtype=np.int64), ids, n)

    @classmethod
    def empty(cls, rows, n):
        return cls(np.zeros(rows + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), n)

    @property
    def shape(self):
        return (len(self.indptr) - 1, self.width)

    @property
    def nnz(self):
        return len(self.indices)

    def nonzero(self):
        """(rows, columns) of the members, row by row (columns sorted in each row)."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), self.counts()), self.indices

    def counts(self):
        return np.diff(self.indptr)

    def gather(self, out_ids, in_ids):
        """(element, entry) pairs: element out_ids[k] gets the set of element in_ids[k]."""
        in_ids = np.asarray(in_ids, dtype=np.int64)
        starts, lengths = self.indptr[in_ids], self.counts()[in_ids]
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        offsets = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        cols = self.indices[offsets + np.arange(total, dtype=np.int64)]
        return np.repeat(np.asarray(out_ids, dtype=np.int64), lengths), cols

    @classmethod
    def union(cls, rows, width, parts):
        """The sets of ``rows`` elements holding every (element, entry) pair of ``parts``."""
        if len(parts) == 1:
            keys = parts[0][0] * width + parts[0][1]
        else:
            keys = np.concatenate([r * width + c for r, c in parts])
        if keys.size > 1 and not np.all(keys[1:] > keys[:-1]):  # (often sorted already)
            keys = _sorted_unique(keys, rows * width)
        element = keys // width
        indptr = np.zeros(rows + 1, dtype=np.int64)
        np.cumsum(np.bincount(element, minlength=rows), out=indptr[1:])
        return cls(indptr, keys - element * width, width)

    def matrix(self):
        """A boolean ``scipy.sparse.csr_matrix`` (rows = elements), sorted indices."""
        from scipy.sparse import csr_matrix
        rows = len(self.indptr) - 1
        out = csr_matrix((np.ones(len(self.indices), dtype=bool), self.indices, self.indptr),
                         shape=(rows, self.width))
        out.has_sorted_indices = True
        return out


# Keys in a space of at most this many times their count are deduplicated by marking
# them in a boolean array (linear, already in order) instead of sorting them.
MARK_PER_KEY = 16


def _sorted_unique(keys, space):
    """The distinct ``keys`` (integers in [0, space)) in increasing order.

    Few possible keys beside the pairs (a dense pattern): one mark per possible key,
    no sort.  Logistic regression's sparse Hessian unions 500,000 pairs into 2,500
    entries; sorting them was 32 ms of its 52 ms pattern.
    """
    if space <= MARK_PER_KEY * keys.size:
        mark = np.zeros(space, dtype=bool)
        mark[keys] = True
        return np.flatnonzero(mark)
    keys = np.sort(keys)
    return keys[np.concatenate(([True], keys[1:] != keys[:-1]))] if keys.size else keys
