"""Sparse results of ``batched``: :class:`SparseBatch`, one matrix per point of the
batch, all of one structural pattern, held as a values array ``batch + (nnz,)``.

scipy has no stack of sparse matrices, and a batch of a million Hessians as a million
``csr_matrix`` objects would cost more than computing them; the batch keeps the
values in one array (what the batch loop wrote) and makes a ``csr_matrix`` only for
the points asked for.  Dask values stay lazy.

Imports numpy only (and is handed the layout, ``values.SparseLayout``).

>>> import numpy as np
>>> from symgrad.values import SparseLayout
>>> layout = SparseLayout((2, 2), np.array([0, 1, 2], np.int32), np.array([0, 1], np.int32))
>>> b = SparseBatch(layout, np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
>>> b.shape, len(b), b.nnz
((3, 2, 2), 3, 2)
>>> b[1].toarray().tolist(), b.toarray()[2].tolist()
([[3.0, 0.0], [0.0, 4.0]], [[5.0, 0.0], [0.0, 6.0]])
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np


class SparseBatch:
    """The sparse result of ``f.batched`` for a batch of points: ``b[i]`` is point i's
    ``scipy.sparse.csr_matrix`` (equal to ``f(x[i])``'s), ``b.toarray()`` the dense
    array ``batch + (rows, columns)``, ``b.data`` the stored values ``batch + (nnz,)``
    (in the order of ``b.indices``, row by row as ``b.indptr`` says, the same for
    every point)."""

    __slots__ = ("layout", "data")

    def __init__(self, layout: Any, data: Any) -> None:
        self.layout, self.data = layout, data

    @property
    def batch_shape(self) -> tuple:
        return tuple(self.data.shape[:-1])

    @property
    def shape(self) -> tuple:
        return self.batch_shape + tuple(self.layout.shape)

    @property
    def nnz(self) -> int:
        """Stored entries per point."""
        return len(self.layout.indices)

    @property
    def indices(self) -> np.ndarray:
        return self.layout.indices.copy()

    @property
    def indptr(self) -> np.ndarray:
        return self.layout.indptr.copy()

    def __len__(self) -> int:
        if not self.batch_shape:
            raise TypeError("len() of a SparseBatch with no batch axes: index it with "
                            "b[()] for its one matrix")
        return self.batch_shape[0]

    def __getitem__(self, index: Any) -> Any:
        """A point's ``csr_matrix`` for a full index of the batch axes (an int per
        axis); a ``SparseBatch`` for fewer or for slices."""
        key = index if isinstance(index, tuple) else (index,)
        if any(k is Ellipsis or k is None for k in key):
            raise IndexError("SparseBatch: index the batch axes with ints and slices "
                             "(no ... or None)")
        if len(key) > len(self.batch_shape):
            raise IndexError(f"SparseBatch: {len(key)} indices for {len(self.batch_shape)} "
                             "batch axes (a point's matrix is indexed after b[i])")
        picked = self.data[key]
        if picked.ndim == 1:   # one point: its own copy of the values
            return self.layout.wrap(np.array(picked, dtype=np.float64))
        return SparseBatch(self.layout, picked)

    def __iter__(self) -> Iterator[Any]:
        for k in range(len(self)):
            yield self[k]

    def _scatter(self, values: np.ndarray) -> np.ndarray:
        rows, cols = self.layout.shape
        out = np.zeros(values.shape[:-1] + (rows * cols,), dtype=values.dtype)
        out[..., _places(self.layout)] = values
        return out

    def toarray(self) -> Any:
        """The dense results, ``batch + (rows, columns)`` (lazy for dask values)."""
        rows, cols = self.layout.shape
        if isinstance(self.data, np.ndarray):
            return self._scatter(self.data).reshape(self.shape)
        dense = self.data.map_blocks(self._scatter, dtype=self.data.dtype,
                                     chunks=self.data.chunks[:-1] + ((rows * cols,),))
        return dense.reshape(self.shape)

    def compute(self, **kwargs: Any) -> "SparseBatch":
        """For dask values: the batch with its values computed (numpy)."""
        data = self.data.compute(**kwargs) if hasattr(self.data, "compute") else self.data
        return SparseBatch(self.layout, np.asarray(data))

    def __repr__(self) -> str:
        rows, cols = self.layout.shape
        return (f"<SparseBatch of {self.batch_shape} matrices {rows}x{cols}, "
                f"{self.nnz} stored entries each>")


def _places(layout) -> np.ndarray:
    """The flat (row-major) positions of the layout's stored entries."""
    indptr = np.asarray(layout.indptr)
    rows = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    return rows * layout.shape[1] + np.asarray(layout.indices)
