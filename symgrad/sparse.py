"""Sparse Jacobians and Hessians: only the structural nonzeros, by compressed sweeps.

The pattern comes from ``sparsity`` of the dense derivative's graph (built, never
evaluated); a colouring groups the seeds (columns, rows, or a star colouring of
the symmetric Hessian); one batched sweep over ``colors`` compressed seeds gives
every nonzero, gathered into a vector in CSR order.  ``sparse=True`` changes the
container, never a value: ``.toarray()`` of the result equals the dense result.

A :class:`SparseTensor` evaluates (``sg.evaluate``, ``.numpy()``) and compiles
(``sg.compile``) to a ``scipy.sparse.csr_matrix`` of shape (rows, columns): y's
elements by x's for a Jacobian, x's by x's for a Hessian (tensors are raveled).

``jacobian`` and ``hessians`` here are the public ones: the dense sweeps of
``symgrad.seeds`` plus ``sparse=True``.

Imports ops, forms (closed forms of the stored entries), patterns and seeds;
scipy only when a matrix is built.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0, 3.0], name="x")
...     h = sparse_hessian(t.reduce_sum(x[1:] * x[:-1]), x)
...     h.colors, h.numpy().toarray().tolist()
(2, [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
"""
from __future__ import annotations

import numpy as np

from .display import GradientList
from .forms import closed_form
from .ops import F, literal
from .ops.deferred import deferrable
from .patterns import column_coloring, sparsity, star_coloring, star_recovery
from .values import SparseLayout  # lives in values: evaluators load without SymPy
from .seeds import (compression_seeds, forward_columns, hessian_block, reverse_rows,
                    hessians as dense_hessians, jacobian as dense_jacobian)


class SparseTensor:
    """The stored entries of a sparse Jacobian or Hessian, as a tensor of the graph.

    Attributes:
        values: a 1-D tensor, one entry per structural nonzero, in CSR order.
        layout: the :class:`SparseLayout` (``shape``, ``indptr``, ``indices``).
        colors: how many compressed seeds (sweeps) compute it.
        pattern: the structural pattern as a boolean (rows, columns) array.
        dense_shape: the shape of the dense result of the same call.
    """

    def __init__(self, values, layout, colors, pattern, dense_shape):
        self.values, self.layout, self.colors = values, layout, int(colors)
        self.pattern, self.dense_shape = pattern, tuple(dense_shape)

    @property
    def shape(self):
        return self.layout.shape

    def wrap_value(self, values):
        """The csr_matrix for evaluated ``values`` (``sg.evaluate`` and ``sg.compile``)."""
        return self.layout.wrap(values)

    @property
    def nnz(self):
        return int(self.values.shape[0])

    def numpy(self, feed_dict=None):
        """The value by the reference evaluator: a ``scipy.sparse.csr_matrix``."""
        from .evaluate import evaluate
        return self.layout.wrap(evaluate(self.values, feed_dict))

    def __str__(self):
        """The closed form of each stored entry, one ``[i, j] = ...`` line each."""
        if not self.nnz:
            return "(no stored entries)"
        form = closed_form(self.values)
        rows, cols = np.nonzero(self.pattern)
        return "\n".join(f"[{i}, {j}] = {form[k]}" for k, (i, j) in
                          enumerate(zip(rows.tolist(), cols.tolist())))

    def __repr__(self):
        return (f"<SparseTensor shape={self.shape} nnz={self.nnz} colors={self.colors} "
                f"of {self.values.name!r}>")


def _layout(pattern):
    counts = pattern.sum(axis=1)
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int32)
    indices = np.nonzero(pattern)[1].astype(np.int32)
    return SparseLayout(pattern.shape, indptr, indices)


def _gather(compressed, seed, at, size):
    flat = F.reshape(compressed, shape=(compressed.size,))
    if not len(seed):
        return literal(compressed.graph, np.zeros(0, compressed.dtype))
    return F.index(flat, index=(np.asarray(seed * size + at, dtype=np.int64),))


def sparse_hessian(ys, x, dense=None):
    """The Hessian of sum(ys) in x as a :class:`SparseTensor` (star colouring)."""
    dense = dense if dense is not None else dense_hessians(ys, x)[0]
    n = x.size
    pattern = sparsity(dense).reshape(n, n)
    pattern = pattern | pattern.T
    colors = star_coloring(pattern)
    ncolors = int(colors.max()) + 1 if n else 0
    rows, cols, seed, at = star_recovery(pattern, colors)
    compressed = hessian_block(ys, x, compression_seeds(x.graph, colors, ncolors, x.shape,
                                                        x.dtype)) if len(rows) else None
    values = _gather(compressed, seed, at, n) if compressed is not None else \
        literal(x.graph, np.zeros(0, x.dtype))
    return SparseTensor(values, _layout(pattern), ncolors if len(rows) else 0, pattern,
                        x.shape * 2)


def sparse_jacobian(y, x, dense):
    """d y / d x as a :class:`SparseTensor`: column (forward) or row (reverse) colouring."""
    m, n = y.size, x.size
    pattern = sparsity(dense).reshape(m, n)
    by_col, by_row = column_coloring(pattern), column_coloring(pattern.T)
    rows, cols = np.nonzero(pattern)
    layout = _layout(pattern)
    if not len(rows):
        return SparseTensor(literal(x.graph, np.zeros(0, x.dtype)), layout, 0, pattern,
                            y.shape + x.shape)
    if by_col.max() <= by_row.max():
        c = int(by_col.max()) + 1
        (comp,) = forward_columns([y], x, compression_seeds(x.graph, by_col, c, x.shape,
                                                            x.dtype))
        values = _gather(comp, by_col[cols], rows, m)      # comp[b, i] = sum_j J[i, j]
    else:
        c = int(by_row.max()) + 1
        comp = reverse_rows(y, x, compression_seeds(x.graph, by_row, c, y.shape, y.dtype))
        values = _gather(comp, by_row[rows], cols, n)      # comp[b, j] = sum_i J[i, j]
    return SparseTensor(values, layout, c, pattern, y.shape + x.shape)


@deferrable()
def jacobian(y, x, unconnected_gradients="none", sparse=False):
    """d y / d x with shape ``y.shape + x.shape`` (like ``GradientTape.jacobian``).

    Row i is ``gradients(y[i], x)``: ``gradients`` is this Jacobian contracted
    with grad_ys.  None (zeros with ``"zero"``) when y does not depend on x.
    One batched sweep: reverse over y's unit seeds when y is smaller than x,
    forward over x's unit seeds otherwise.  ``sparse=True`` gives a
    :class:`SparseTensor` (a ``scipy.sparse.csr_matrix`` when evaluated or
    compiled, y's elements by x's) computed by compressed sweeps (column or row
    colouring, ``.colors`` of them); the dense result equals its ``.toarray()``.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable([1.0, 2.0], name="x")
    ...     jacobian(x * x, x, sparse=True).numpy().toarray().tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    """
    dense = dense_jacobian(y, x, unconnected_gradients)
    if not sparse or dense is None:
        return dense
    return sparse_jacobian(dense_inputs(y), dense_inputs(x), dense)


@deferrable(count=lambda ys, xs, *a, **k: len(xs) if isinstance(xs, (list, tuple)) else 1)
def hessians(ys, xs, name="hessians", gate_gradients=False, aggregation_method=None,
             unconnected_gradients="none", sparse=False):
    """Per x, the Hessian of sum(ys) with respect to that x alone: shape x.shape * 2.

    symgrad differs from TF: where a second derivative is structurally zero (or
    sum(ys) does not depend on x) the block is zeros instead of an error.  Each
    block is one forward-over-reverse sweep over a batch of x.size unit seeds.
    ``sparse=True`` gives :class:`SparseTensor` s (``scipy.sparse.csr_matrix`` of
    shape (x.size, x.size) when evaluated or compiled) computed by a star
    colouring's ``.colors`` compressed sweeps; the dense result equals their
    ``.toarray()``.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable([1.0, 2.0], name="x")
    ...     hessians(t.reduce_sum(x ** 3), x)[0].numpy().tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    dense = dense_hessians(ys, xs, name, gate_gradients, aggregation_method,
                           unconnected_gradients)
    if not sparse:
        return dense
    xs = xs if isinstance(xs, (list, tuple)) else [xs]
    return GradientList(sparse_hessian(ys, x, h) for x, h in zip(xs, dense))


def dense_inputs(t):
    """``t`` itself, or the single tensor of a one-element list (as ``jacobian`` accepts)."""
    return t[0] if isinstance(t, (list, tuple)) else t
