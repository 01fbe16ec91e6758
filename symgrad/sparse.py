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

Imports ops, display (its printers: ``forms.sparseform``), patterns and seeds;
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

from .display import GradientList, show
from .ops import F, literal
from .ops.deferred import deferrable
from . import progress
from .coloring import column_coloring, star_coloring, star_recovery
from .differentiate import gradients
from .graph import Node, is_static
from .patterns import require_known_sizes, seed_pattern
from .values import SparseLayout  # lives in values: evaluators load without SymPy
from . import frontier
from .seeds import (FEW_SEEDS, compression_seeds, forward_columns, forward_sweep,
                    frontier_entries, gather, hessian_args, identity_seeds, jacobian_args,
                    reverse_rows, reverse_sweep, vmap, hessians as dense_hessians,
                    jacobian as dense_jacobian)


class SparseTensor:
    """The stored entries of a sparse Jacobian or Hessian, as a tensor of the graph.

    Attributes:
        values: a 1-D tensor, one entry per structural nonzero, in CSR order.
        layout: the :class:`SparseLayout` (``shape``, ``indptr``, ``indices``).
        colors: how many compressed seeds (sweeps) compute it.
        pattern: the structural pattern, a ``scipy.sparse.csr_matrix`` of booleans
            (rows, columns), never a dense n x n array.
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
        """The closed form of each stored entry, one ``[i, j] = ...`` line each (the
        printers' bounds: ``forms.sparseform``)."""
        return show("str", self)

    def _repr_latex_(self):
        return show("latex", self)

    def _repr_html_(self):
        return show("html", self)

    def __repr__(self):
        return (f"<SparseTensor shape={self.shape} nnz={self.nnz} colors={self.colors} "
                f"of {self.values.name!r}>")


def _layout(pattern):
    return SparseLayout(pattern.shape, pattern.indptr.astype(np.int32),
                        pattern.indices.astype(np.int32))


def _canonical(pattern):
    pattern = pattern.tocsr().astype(bool)
    pattern.sum_duplicates()
    pattern.eliminate_zeros()
    pattern.sort_indices()
    return pattern


def _no_entries(graph, pattern, dtype, dense_shape):
    return SparseTensor(literal(graph, np.zeros(0, dtype)), _layout(pattern), 0, pattern,
                        dense_shape)


def sparse_hessian(ys, x):
    """The Hessian of sum(ys) in x as a :class:`SparseTensor` (star colouring).

    The pattern is read from one unbatched forward-over-reverse sweep (index sets,
    ``patterns.seed_pattern``), or, where x is read through several selections, from
    the Hessian after them (``symgrad.frontier``), mapped back; the values come from
    the sweep batched over the colouring's compressed seeds, or, where that needs
    fewer seeds, from the Hessian after the selections.
    """
    n = x.size
    with progress.task(f"sparse Hessian in {x.name!r} ({n} variables)") as job:
        job.stage("the forward-over-reverse sweep")
        (g,) = gradients(ys, x) if x.is_float else (None,)
        t, (tangent,) = forward_sweep([g], x) if g is not None else (None, (None,))
        if tangent is None:
            return _no_entries(x.graph, _zeros(n, n), x.dtype, x.shape * 2)
        job.stage("structural pattern (index sets)")
        # x read through several selections: the Hessian after them is analysed first,
        # and its pattern mapped back is H_x's (a star colouring of H_x can only beat
        # it then; a frontier copying x once would be H_x relabelled: not tried)
        site = frontier.locate(ys, x)
        found = frontier.plan(ys, x, fewer_than=n + 1, site=site) \
            if site is not None and site.repeats else None
        if found is not None:
            pattern = _canonical(found.x_sets().matrix())
        else:
            pattern = _canonical(seed_pattern(tangent, t))
            pattern = _canonical(pattern + pattern.T)
        if not pattern.nnz:
            return _no_entries(x.graph, pattern, x.dtype, x.shape * 2)
        full = _mostly_full(pattern)  # then no colouring would compress it
        if not full:
            job.stage(f"star colouring of {pattern.nnz} nonzeros")
        colors = None if full else star_coloring(pattern)
        ncolors = n if full else int(colors.max()) + 1
        if ncolors > FEW_SEEDS and found is not None and found.ncolors < ncolors:
            job.stage(f"the Hessian after the selections of x ({found.ncolors} seeds)")
            return _from_frontier(found, x)
        if full:
            job.stage(f"the sweep batched over {n} unit seeds (a dense pattern)")
            rows, cols = pattern.nonzero()
            (units,) = vmap([tangent], t, identity_seeds(x.graph, x.shape, x.dtype))
            # Row b of the batch is H e_b, and H is symmetric: entry (r, c) is read from
            # row r, as the dense ``hessians`` lays it out (equal to it bit for bit, and
            # for a full pattern the read is the identity: a plain copy, no table).
            return SparseTensor(gather(units, rows, cols, n), _layout(pattern), n, pattern,
                                x.shape * 2)
        rows, cols, seed, at = star_recovery(pattern, colors)
        job.stage(f"the sweep batched over {ncolors} compressed seeds")
        (compressed,) = vmap([tangent], t, compression_seeds(x.graph, colors, ncolors,
                                                             x.shape, x.dtype))
        return SparseTensor(gather(compressed, seed, at, n), _layout(pattern), ncolors,
                            pattern, x.shape * 2)


def _from_frontier(found, x):
    """The SparseTensor of H_x = Gᵀ H_z G: each stored entry of H_z added into its
    place (several land on one where x's elements are selected more than once)."""
    from scipy.sparse import csr_matrix
    values, keys = frontier_entries(found, x.dtype)
    n = x.size
    places, slot = np.unique(keys, return_inverse=True)   # (sorted: CSR order)
    pattern = _canonical(csr_matrix((np.ones(len(places), bool), (places // n, places % n)),
                                    shape=(n, n)))
    summed = F.index_add(values, shape=(len(places),), index=(slot.astype(np.int64),))
    return SparseTensor(summed, _layout(pattern), found.ncolors, pattern, x.shape * 2)


def _mostly_full(pattern):
    """More than half the entries stored: colourings need about as many colours as
    columns (n for a full pattern) and cost O(nnz * row length) to find; the unit
    seeds give the same values at once."""
    m, n = pattern.shape
    return pattern.nnz * 2 > m * n


def _zeros(m, n):
    from scipy.sparse import csr_matrix
    return csr_matrix((m, n), dtype=bool)  # (canonical: no entries)


def sparse_jacobian(y, x):
    """d y / d x as a :class:`SparseTensor` (column or row colouring); None if unconnected."""
    m, n = y.size, x.size
    if m <= n:
        u, g = reverse_sweep(y, x)
        pattern = seed_pattern(g, u).T if g is not None else None
    else:
        t, (tangent,) = forward_sweep([y], x)
        pattern = seed_pattern(tangent, t) if tangent is not None else None
    if pattern is None:   # y does not depend on x
        return None
    pattern = _canonical(pattern)
    if not pattern.nnz:
        return _no_entries(x.graph, pattern, x.dtype, y.shape + x.shape)
    rows, cols = pattern.nonzero()
    if _mostly_full(pattern):  # the unit seeds, as the dense jacobian chooses them
        if m <= n:
            (full,) = vmap([g], u, identity_seeds(x.graph, u.shape, u.dtype))
            values = gather(full, rows, cols, n)         # row b: e_b . J
        else:
            (full,) = vmap([tangent], t, identity_seeds(x.graph, x.shape, x.dtype))
            values = gather(full, cols, rows, m)         # row b: J e_b
        return SparseTensor(values, _layout(pattern), min(m, n), pattern, y.shape + x.shape)
    by_col, by_row = column_coloring(pattern), column_coloring(pattern.T)
    if by_col.max() <= by_row.max():
        c = int(by_col.max()) + 1
        (comp,) = forward_columns([y], x, compression_seeds(x.graph, by_col, c, x.shape,
                                                            x.dtype))
        values = gather(comp, by_col[cols], rows, m)       # comp[b, i] = sum_j J[i, j]
    else:
        c = int(by_row.max()) + 1
        comp = reverse_rows(y, x, compression_seeds(x.graph, by_row, c, y.shape, y.dtype))
        values = gather(comp, by_row[rows], cols, n)       # comp[b, j] = sum_i J[i, j]
    return SparseTensor(values, _layout(pattern), c, pattern, y.shape + x.shape)


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
    if not sparse:
        return dense_jacobian(y, x, unconnected_gradients)
    y, x = jacobian_args(y, x, unconnected_gradients)
    if not (x.is_float and y.is_float and is_static(x.shape)):
        return dense_jacobian(y, x, unconnected_gradients)   # None or zeros
    require_known_sizes([y], "jacobian(y, x, sparse=True)")
    with x.graph.name_scope("jacobian"):
        out = sparse_jacobian(y, x)
    if out is None and unconnected_gradients == "zero":
        return _no_entries(x.graph, _zeros(y.size, x.size), x.dtype, y.shape + x.shape)
    return out


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
    if not sparse:
        return dense_hessians(ys, xs, name, gate_gradients, aggregation_method,
                              unconnected_gradients)
    xs = hessian_args(xs, unconnected_gradients, aggregation_method)
    require_known_sizes([y for y in (ys if isinstance(ys, (list, tuple)) else [ys])
                         if isinstance(y, Node)], "hessians(ys, xs, sparse=True)")
    out = []
    for x in xs:
        with x.graph.name_scope("hessians"):
            out.append(sparse_hessian(ys, x))
    return GradientList(out)
