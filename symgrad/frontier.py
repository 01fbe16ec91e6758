"""Hessians taken after the selections: few seeds for sums of local terms.

Many losses read their variables only through selections: a pair potential reads
``pos[i]`` and ``pos[j]`` of ``pos = reshape(x, (n, 3))``, a chained sum reads
``x[1:]`` and ``x[:-1]``.  A selection copies elements (``Op.selects``: reshape,
transpose, broadcast, concat, slices, gathers), so the selected values are
``z = G x`` with G a 0/1 matrix holding one 1 per row, and

    H_x = Gᵀ H_z G,

where ``H_z`` is the Hessian in the selected values, each frontier tensor taken as a
variable of its own (its partials: the other frontier tensors held fixed).  ``H_z``
is often far sparser than ``H_x``: 27 Lennard-Jones particles have a dense 81 x 81
``H_x`` (81 seeds) while ``H_z`` is block-diagonal, one 6 x 6 block per pair, which a
star colouring covers with 6 seeds.  Every stored entry of ``H_z`` is added into its
place ``(src[p], src[q])`` of ``H_x``; the values equal the direct sweep's up to the
order of the additions.

:func:`plan` finds the frontier and the colouring; the callers (``sparse.hessians``,
``seeds.hessians``' compiled equal) use it where it needs fewer seeds than the
direct sweep, and, where x is read through several selections (``Site.repeats``),
read H_x's own pattern from it (``Plan.x_sets``) instead of analysing the direct sweep.  Imports graph, ops, differentiate, forward, patterns and coloring.

>>> import numpy as np
>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable(np.arange(1.0, 7.0), name="x")
...     d = t.reshape(x, (3, 2))[np.array([0, 0, 1])] - t.reshape(x, (3, 2))[np.array([1, 2, 2])]
...     found = plan(t.reduce_sum(t.reduce_sum(d * d, axis=1) ** 2), x)
...     found.ncolors, found.pattern.shape
(4, (12, 12))
"""
from __future__ import annotations

import collections

import numpy as np

from .coloring import star_coloring, star_recovery
from .differentiate import gradients
from .forward import seed_leaf, tangent_sweep
from .graph import ancestors, is_static
from .ops import F, apply
from .ops.base import filled
from .patterns import index_sets, seed_sets, symmetric


class Plan:
    """H_z's sweep and colouring, and where each selected value comes from.

    Attributes:
        tangent: ``H_z t`` for one seed leaf ``seed`` of shape (N,) (the flat z).
        seed: that leaf.
        pattern: H_z's structural pattern, symmetric (N, N), as index sets
            (``.nonzero()``, ``.nnz``; ``.matrix()`` gives a ``csr_matrix``).
        colors, ncolors: a star colouring of it.
        source: for each of the N selected values, the flat index of x it copies.
        size: x's size.
    """

    def __init__(self, tangent, seed, pattern, colors, source, size):
        self.tangent, self.seed, self.pattern = tangent, seed, pattern
        self.colors, self.ncolors = colors, int(colors.max()) + 1
        self.source, self.size = source, size

    def recovery(self):
        """(seed, at, keys) per stored entry of H_z: it is entry ``at`` of compressed
        seed ``seed`` (``coloring.star_recovery``) and adds into the flat position
        ``keys = src[p] * n + src[q]`` of H_x (n: x's size)."""
        rows, cols, seed, at = star_recovery(self.pattern, self.colors)
        return seed, at, self.source[rows] * self.size + self.source[cols]

    def x_sets(self):
        """H_x's structural pattern, (n, n) index sets: each stored entry (p, q) of H_z
        at its place (src[p], src[q]).  It holds every entry the direct sweep can make
        nonzero, since that sweep computes Gᵀ (H_z (G t)) through the same rules; so
        a dense Hessian colours its direct seeds from it, with no analysis of its own."""
        rows, cols = self.pattern.nonzero()
        return index_sets(self.source[rows], self.source[cols], self.size, self.size)


# An implicit broadcast made explicit copies at most this many elements (its H_z
# pattern is built element by element).
BROADCAST_LIMIT = 1 << 18


def explicit_broadcasts(ys, x):
    """``ys`` rebuilt so that an elementwise op combining selections of x, some of them
    broadcast, reads those through ``broadcast_to``: a pair potential written
    ``x[:, None] - x[None, :]`` then has the pairs' copies as its frontier (one small
    block per pair) instead of the two slices, each read by every pair.  The same
    values; ``ys`` itself when there is nothing to make explicit (or the rebuilt part
    holds control flow).  A selection broadcast against anything else (a bias added
    to a matrix product) stays implicit: copying it separates nothing."""
    order = ancestors(ys)
    region = _selected(order, x)
    mapped = {}
    for node in order:
        if node in region or not node.inputs:
            continue
        ins = [mapped.get(i, i) for i in node.inputs]
        if node.opdef.kind == "elementwise" and is_static(node.shape) and \
                node.size <= BROADCAST_LIMIT and \
                sum(i in region for i in node.inputs) > 1:   # selections meeting
            ins = [F.broadcast_to(new, shape=node.shape)
                   if old in region and old.shape != node.shape else new
                   for old, new in zip(node.inputs, ins)]
        if any(a is not b for a, b in zip(ins, node.inputs)):
            if node.opdef.kind == "control":
                return ys
            mapped[node] = apply(node.opdef, ins, **node.attrs)
    return [mapped.get(y, y) for y in ys]


def _selected(order, x):
    """x and the nodes selections make of it alone (static shapes), among ``order``."""
    region = {x}
    for node in order:
        if node is not x and node.opdef.selects and node.inputs and \
                all(i in region for i in node.inputs) and is_static(node.shape):
            region.add(node)
    return region


def frontier(ys, x):
    """The tensors through which ``ys`` read ``x`` after its selections (in graph order):
    those a selection of x makes (x itself included) and a non-selection uses, or that
    are in ys.  None when that is x alone (nothing to gain) or sizes are unknown."""
    if not is_static(x.shape):
        return None
    order = ancestors(ys)
    region = _selected(order, x)
    used_outside = {i for node in order if node not in region for i in node.inputs}
    found = [node for node in order if node in region and
             (node in used_outside or node in ys)]
    return None if found == [x] or not found else found


def source_of(frontier_nodes, x):
    """For each element of the flattened, concatenated frontier: the flat index of x.

    The selections between x and the frontier run on x's flat indices."""
    values = {x: np.arange(x.size, dtype=np.int64).reshape(x.shape)}
    for node in ancestors(frontier_nodes):
        if node not in values and node.inputs and all(i in values for i in node.inputs):
            values[node] = np.asarray(node.opdef.impl(*[values[i] for i in node.inputs],
                                                   **node.attrs))
    return np.concatenate([values[f].reshape(-1) for f in frontier_nodes])


def partial_sweep(ys, frontier_nodes, dtype):
    """(seed, tangent): ``H_z t`` for a seed leaf t of z's flat size, each frontier
    tensor a variable of its own (the others held fixed: stopped in both sweeps)."""
    graph = frontier_nodes[0].graph
    sizes = [f.size for f in frontier_nodes]
    seed = seed_leaf(graph, (sum(sizes),), dtype)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    pieces = [F.reshape(F.index(seed, index=(slice(int(a), int(b)),)), shape=f.shape)
              for f, a, b in zip(frontier_nodes, starts[:-1], starts[1:])]
    grads = gradients(ys, frontier_nodes, stop_gradients=frontier_nodes)
    found = [g for g in grads if g is not None]
    tan = tangent_sweep(found, frontier_nodes, pieces, stops=frontier_nodes) if found else {}
    parts = []
    for f, g in zip(frontier_nodes, grads):
        t = tan.get(g) if g is not None else None
        parts.append(F.reshape(t, shape=(f.size,)) if t is not None else
                     filled(graph, 0, (f.size,), dtype))
    return seed, (parts[0] if len(parts) == 1 else F.concat(*parts, axis=0))


class Site(collections.namedtuple("Site", "ys nodes source")):
    """Where ``ys`` read x: ``ys`` with explicit broadcasts, the frontier and, for each
    of its elements, the flat index of x it copies (:func:`source_of`)."""

    @property
    def repeats(self):
        """Whether some element of x is read through more than one selection (a pair
        potential's ``pos[i]`` and ``pos[j]``, a chain's ``x[1:]`` and ``x[:-1]``): then
        H_z may need far fewer seeds than H_x, and its pattern gives H_x's
        (``Plan.x_sets``)."""
        return np.unique(self.source).size < self.source.size


def locate(ys, x):
    """The :class:`Site` of x in ``ys``, or None (no frontier other than x, or sizes
    unknown)."""
    if not is_static(x.shape):
        return None
    ys = explicit_broadcasts(list(ys) if isinstance(ys, (list, tuple)) else [ys], x)
    nodes = frontier(ys, x)
    return None if nodes is None else Site(ys, nodes, source_of(nodes, x))


def plan(ys, x, fewer_than=None, against_star=False, site=None):
    """The frontier Hessian's :class:`Plan`, or None: no frontier other than x, sizes
    unknown, or (with ``fewer_than``) a colouring needing that many seeds or more.
    ``site``: :func:`locate`'s, when the caller has it.

    ``against_star``: the caller has a star colouring of H_x itself.  Then a frontier
    copying each element of x at most once is not tried: its H_z is H_x's graph
    relabelled (the MLP's slices of its weights), so its colouring would save nothing
    and its sweep and pattern cost ~20 ms of the build."""
    site = site or locate(ys, x)
    if site is None or against_star and not site.repeats:
        return None
    ys, nodes, source = site
    seed, tangent = partial_sweep(ys, nodes, x.dtype)
    if not all(is_static(node.shape) for node in ancestors([tangent])):
        return None
    pattern = seed_sets(tangent, seed, limit=fewer_than)
    if pattern is None or not pattern.nnz:
        return None
    pattern = symmetric(pattern)
    colors = star_coloring(pattern)
    if fewer_than is not None and colors.max() + 1 >= fewer_than:
        return None
    return Plan(tangent, seed, pattern, colors, source, x.size)
