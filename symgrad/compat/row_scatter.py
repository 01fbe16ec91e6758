"""Row updates of a table, as TF's sparse optimizer kernels apply them.

``rows_at(ufunc, table, indices, rows)`` is ``ufunc.at(table, indices, rows)``: row
``rows[k]`` is combined into ``table[indices[k]]`` one after another, so a repeated
index sees every one of its rows, in order (TF's ``scatter_sub``/``scatter_add``,
``unsorted_segment_sum``).  numpy's ``at`` takes one row at a time: 128 rows of 128
floats into word2vec's 50,000-row embedding cost ~120 µs, a quarter of a training
step, where one fancy-indexed pass costs ~11.  Here the rows go in passes, each over
distinct indices (the first occurrence of every index, then the second, ...), which
is the same arithmetic in the same order.  Indices outside the table, and 1-D tables
(where ``at`` is fast), are left to ``ufunc.at``.

Imports numpy only.

>>> table = np.zeros((3, 2))
>>> rows_at(np.add, table, np.array([2, 0, 2]), np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))
>>> table.tolist()
[[2.0, 2.0], [0.0, 0.0], [4.0, 4.0]]
"""
from __future__ import annotations

import numpy as np


def rows_at(ufunc, table, indices, rows):
    """``ufunc.at(table, indices, rows)`` for a table of rows (module docstring)."""
    idx = np.asarray(indices).reshape(-1)
    if table.ndim < 2 or idx.size < 2 or idx.min() < 0 or idx.max() >= table.shape[0]:
        ufunc.at(table, indices, rows)
        return
    rows = np.broadcast_to(rows, np.shape(indices) + table.shape[1:]).reshape(
        (idx.size,) + table.shape[1:])
    order = np.argsort(idx, kind="stable")
    ranked = idx[order]
    first = np.empty(idx.size, bool)   # in sorted order: the first of its index
    first[0] = True
    np.not_equal(ranked[1:], ranked[:-1], out=first[1:])
    if first.all():   # distinct: one pass
        table[idx] = ufunc(table[idx], rows)
        return
    positions = np.arange(idx.size)
    occurrence = np.empty(idx.size, np.intp)   # 0 for an index's first row, 1, ...
    occurrence[order] = positions - np.maximum.accumulate(np.where(first, positions, 0))
    for k in range(int(occurrence.max()) + 1):
        chosen = occurrence == k
        at = idx[chosen]
        table[at] = ufunc(table[at], rows[chosen])
