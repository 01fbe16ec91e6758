"""Batched sweeps: a derivative along a batch of seed vectors as one graph.

A sweep (reverse or forward) is built once with a seed *leaf* standing for one
seed vector; :func:`vmap` then rebuilds the part of the graph that depends on the
seed with a leading seed axis (``ops.batching``), substituting a batch of seeds.
The graph of a Jacobian is therefore a constant multiple of the sweep's graph,
and compiled code is a loop over seeds, not one copy of the sweep per row.

``jacobian`` uses reverse mode (one seed per element of y) when y is smaller
than x, forward mode otherwise; ``hessians`` is forward over reverse with one
seed per element of x.  Seed batches are the identity (dense results) or a
colouring's compression matrix (``symgrad.sparsity``).  A dense result whose
structural pattern colours with few colours (a tridiagonal Hessian: 3) is computed
from the compressed seeds and scattered into the dense array, zeros elsewhere
(:func:`unit_sweep`): the same values, ``colors`` sweeps instead of n.

Imports graph, ops, differentiate and forward.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0], name="x")
...     jacobian(x * x, x).numpy().tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""
from __future__ import annotations

import numpy as np

from .differentiate import _as_nodes, _check_options, backprop, gradients
from .forward import seed_leaf, tangent_sweep
from .errors import NoGradientError, ShapeError
from .coloring import column_coloring
from . import frontier
from .graph import ancestors, is_static
from .ops import F, literal
from .patterns import seed_sets
from .ops.base import filled
from .ops.deferred import defer, meets_unknown_rank
from .ops.batching import batched_nodes, spread
from .display import GradientList


def vmap(outputs, seed, batch):
    """``outputs`` rebuilt with ``seed`` replaced by ``batch`` (shape ``(B,) + seed.shape``).

    Outputs that do not depend on the seed are broadcast along the new axis.
    """
    size = batch.shape[0]
    new = batched_nodes(outputs, {seed: batch}, size)
    out = []
    for o in outputs:
        b = new.get(o)
        if b is None:
            b = spread(o, size)
        seed.graph.batches[b] = (o, seed, batch)
        out.append(b)
    return out


def identity_seeds(graph, shape, dtype):
    """The ``n`` unit seeds for a tensor of ``shape`` (n = its size): shape (n,) + shape.

    Built as a scatter of ones at (k, k), so only n integers enter the graph.
    """
    n = int(np.prod(shape, dtype=np.int64))
    k = np.arange(n, dtype=np.int64)
    ones = F.broadcast_to(literal(graph, np.ones((), dtype)), shape=(n,))
    eye = F.index_add(ones, shape=(n, n), index=(k, k))
    return F.reshape(eye, shape=(n,) + tuple(shape))


# Compression matrices up to this many entries enter the graph as constants (compiled
# code reads them from a table: Rosenbrock-1000's sparse Hessian 8.7 -> 7.7 us); larger
# ones as a scatter of n ones, so the graph holds n integers, not ncolors * n numbers.
CONSTANT_SEEDS = 1 << 16


def compression_seeds(graph, colors, ncolors, shape, dtype):
    """Seed b is the sum of the unit seeds of colour b: shape (ncolors,) + shape."""
    n = len(colors)
    if ncolors * n <= CONSTANT_SEEDS:
        matrix = np.zeros((ncolors, n), dtype)
        matrix[np.asarray(colors, np.int64), np.arange(n)] = 1
        return literal(graph, matrix.reshape((ncolors,) + tuple(shape)))
    ones = F.broadcast_to(literal(graph, np.ones((), dtype)), shape=(n,))
    seeds = F.index_add(ones, shape=(ncolors, n),
                        index=(np.asarray(colors, np.int64), np.arange(n, dtype=np.int64)))
    return F.reshape(seeds, shape=(ncolors,) + tuple(shape))


# Fewer unit seeds than this: no compressed equal is built (the pattern analysis,
# ~20 ms, would cost more than the compressed sweep saves).
COMPRESS_MIN = 32


# A direct colouring with more seeds than this: a Hessian tries the frontier after x's
# selections (symgrad.frontier), which may need fewer.
FEW_SEEDS = 8


def unit_sweep(one, seed, alternative=None, sets=None):
    """``one`` over the unit seeds of ``seed``: shape (n,) + one.shape, row b = one at e_b.

    The result is the sweep over the identity (what ``sg.evaluate`` computes and the
    printers read, ``forms.batched``).  When the structural pattern of ``one`` in the
    seed has a column colouring with at most n / 2 colours, the graph also gets an
    equal computation over that many compressed seeds, each nonzero scattered to its
    place (zeros elsewhere), recorded in ``graph.compressed``: ``sg.compile`` computes
    that one.  Every entry is read where no other seed of its colour contributes, so
    the values are the unit seed's.  ``alternative(fewer_than)``, tried where that
    colouring needs more than ``FEW_SEEDS`` seeds, may give another equal computation
    (flat, n * one.size entries) with fewer seeds: it is recorded instead.  ``sets``:
    the pattern, when the caller knows it (else it is read from the sweep).
    """
    graph, n = seed.graph, seed.size
    (out,) = vmap([one], seed, identity_seeds(graph, seed.shape, seed.dtype))
    plan = _compression(one, seed, sets) if n >= COMPRESS_MIN else None
    ncolors = n // 2 + 1 if plan is None else plan[1]
    if alternative is not None and n >= COMPRESS_MIN and ncolors > FEW_SEEDS:
        with graph.name_scope("compressed"):
            alt = alternative(ncolors)
        if alt is not None:
            graph.compressed[out] = F.reshape(alt, shape=out.shape)
            return out
    if plan is not None:
        colors, ncolors, at, b = plan
        with graph.name_scope("compressed"):
            (comp,) = vmap([one], seed, compression_seeds(graph, colors, ncolors, seed.shape,
                                                          seed.dtype))
            values = gather(comp, colors[b], at, one.size)
            graph.compressed[out] = F.reshape(
                F.index_add(values, shape=(n * one.size,), index=(b * one.size + at,)),
                shape=out.shape)
    return out


def gather(compressed, seed, at, size):
    """Entries ``compressed[seed[k], at[k]]`` of a sweep over compressed seeds (each
    ``size`` long), as a 1-D tensor."""
    flat = F.reshape(compressed, shape=(compressed.size,))
    return F.index(flat, index=(np.asarray(seed * size + at, dtype=np.int64),))


def frontier_entries(found, dtype):
    """(values, keys) of a :class:`frontier.Plan`: H_z's stored entries from one sweep
    over its compressed seeds, and the flat places of H_x they add into."""
    graph = found.seed.graph
    (comp,) = vmap([found.tangent], found.seed,
                   compression_seeds(graph, found.colors, found.ncolors, found.seed.shape, dtype))
    seed, at, keys = found.recovery()
    return gather(comp, seed, at, found.seed.size), keys


def frontier_hessian(ys, x, fewer_than):
    """H_x flat (x.size ** 2 entries) from the Hessian after x's selections, or None
    when that needs ``fewer_than`` seeds or more (``symgrad.frontier``)."""
    found = frontier.plan(ys, x, fewer_than)
    return None if found is None else _flat_hessian(found, x)


def _flat_hessian(found, x):
    values, keys = frontier_entries(found, x.dtype)
    return F.index_add(values, shape=(x.size * x.size,), index=(keys,))


def derived(dense, fn):
    """``fn(dense)``; when ``dense`` has a compressed equal, ``fn`` of it is recorded too."""
    out = fn(dense)
    graph = dense.graph
    alt = graph.compressed.get(dense)
    if alt is not None and out is not dense:
        with graph.name_scope("compressed"):
            graph.compressed[out] = fn(alt)
    return out


def _compression(one, seed, pattern=None):
    """(colours, count, element, seed) per nonzero of d one / d seed (``pattern``, or
    read from the sweep), or None when a column colouring needs more than half as many
    seeds (or sizes are unknown)."""
    if not all(is_static(node.shape) for node in ancestors([one])):
        return None
    limit = seed.size // 2
    if pattern is None:
        pattern = seed_sets(one, seed, limit=limit)   # (no scipy: a dense result)
    elif pattern.nnz and pattern.counts().max() > limit:
        return None   # (a row's entries take a colour each: too many; not coloured)
    if pattern is None or not pattern.nnz:
        return None
    colors = column_coloring(pattern)
    ncolors = int(colors.max()) + 1
    if ncolors > limit:
        return None
    at, b = pattern.nonzero()
    return colors, ncolors, at.astype(np.int64), b.astype(np.int64)


def reverse_sweep(y, x):
    """One reverse sweep with a seed leaf u of y's shape: (u, u . J) (None: unreached)."""
    u = seed_leaf(y.graph, y.shape, y.dtype if y.is_float else np.float64)
    g = backprop([y], [u], [x], set()).adjoints.get(x)
    return u, (g if x.is_float else None)


def forward_sweep(ys, x):
    """One tangent sweep with a seed leaf t of x's shape: (t, [J_y t per y or None])."""
    t = seed_leaf(x.graph, x.shape, x.dtype)
    tan = tangent_sweep(ys, [x], [t])
    return t, [tan.get(y) for y in ys]


def reverse_rows(y, x, seeds=None):
    """``seeds[b] . J`` for each seed b (shape (B,) + y.shape): (B,) + x.shape, or None.

    ``seeds=None``: the unit seeds of y (:func:`unit_sweep`)."""
    u, g = reverse_sweep(y, x)
    if g is None:
        return None
    return unit_sweep(g, u) if seeds is None else vmap([g], u, seeds)[0]


def forward_columns(ys, x, seeds=None):
    """``J_y . seeds[b]`` for each y and seed b: (B,) + y.shape per y (None if unreached).

    ``seeds=None``: the unit seeds of x (:func:`unit_sweep`), for one y."""
    t, tans = forward_sweep(ys, x)
    if seeds is None:
        (tan,) = tans
        return [None if tan is None else unit_sweep(tan, t)]
    found = [k for k, tan in enumerate(tans) if tan is not None]
    batched = dict(zip(found, vmap([tans[k] for k in found], t, seeds))) if found else {}
    return [batched.get(k) for k in range(len(ys))]


def _columns_last(cols, y, x):
    # (n,) + y.shape -> y.shape + x.shape
    n, m = x.size, y.size
    flat = F.reshape(cols, shape=(n, m))
    return F.reshape(F.transpose(flat, perm=(1, 0)), shape=y.shape + x.shape)


def jacobian(y, x, unconnected_gradients="none"):
    """d y / d x with shape ``y.shape + x.shape`` (like ``GradientTape.jacobian``).

    Row i is ``gradients(y[i], x)``: ``gradients`` is this Jacobian contracted
    with grad_ys.  None (zeros with ``"zero"``) when y does not depend on x.
    One batched sweep: reverse over y's unit seeds when y is smaller than x,
    forward over x's unit seeds otherwise.  (``sg.jacobian`` adds ``sparse=True``:
    ``symgrad.sparse``.)

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable([1.0, 2.0, 3.0], name="x")
    ...     jacobian(t.reduce_sum(x * x), x).numpy().tolist()
    [2.0, 4.0, 6.0]
    """
    y, x = jacobian_args(y, x, unconnected_gradients)
    graph = x.graph
    with graph.name_scope("jacobian"):
        out = None
        if x.is_float and y.is_float:
            if not is_static(x.shape) or y.size <= x.size:  # (one reverse seed per y element)
                rows = reverse_rows(y, x)
                out = None if rows is None else \
                    derived(rows, lambda r: F.reshape(r, shape=y.shape + x.shape))
            else:
                (cols,) = forward_columns([y], x)
                out = None if cols is None else derived(cols, lambda c: _columns_last(c, y, x))
        if out is None and unconnected_gradients == "zero":
            out = filled(graph, 0, y.shape + x.shape, x.dtype)
        return out


def jacobian_args(y, x, unconnected_gradients):
    """y and x of ``jacobian`` as nodes, y of known shape (else an error naming it)."""
    _check_options(unconnected_gradients, None)
    (y,) = _as_nodes(y, "y")
    (x,) = _as_nodes(x, "x")
    if not is_static(y.shape):
        raise ShapeError(f"jacobian: y ({y.name!r}) has shape {y.shape} with unknown sizes "
                         "(None): a Jacobian has one row per element of y, so y's shape must be "
                         "known (x's may have unknown sizes)")
    return y, x


def hessian_block(ys, x):
    """Forward over reverse: ``H . e_b`` for each unit seed (shape (n,) + x.shape) or None.

    Compiled, it is computed from compressed seeds where a colouring of H (or of the
    Hessian after x's selections, ``symgrad.frontier``) needs few of them."""
    (g,) = gradients(ys, x)
    if g is None:
        return None
    try:
        t, (tangent,) = forward_sweep([g], x)
    except NoGradientError:   # a custom gradient not linear in its cotangent
        return _reverse_rows(g, x)
    if tangent is None:
        return None
    site = frontier.locate(ys, x) if x.size >= COMPRESS_MIN else None
    if site is not None and site.repeats:
        return _frontier_first(ys, x, site, tangent, t)
    return unit_sweep(tangent, t, lambda fewer: frontier_hessian(ys, x, fewer))


def _frontier_first(ys, x, site, tangent, t):
    """:func:`unit_sweep` of a Hessian whose loss reads x's elements through several
    selections: the Hessian after them (``symgrad.frontier``) is analysed first, and its
    pattern mapped back gives H_x's for the direct colouring, so the sweep's own
    analysis (LJ-27: ~8 ms, reaching the final scatter before it finds H_x dense) is
    not run when the frontier's pattern is known."""
    with x.graph.name_scope("compressed"):   # (the unit sweep's names stay as they were)
        found = frontier.plan(ys, x, x.size // 2 + 1, site=site)
    if found is None:   # (the frontier needs as many seeds: it is not tried again)
        return unit_sweep(tangent, t, lambda fewer: None)

    def alternative(fewer):
        return None if found.ncolors >= fewer else _flat_hessian(found, x)
    return unit_sweep(tangent, t, alternative, sets=found.x_sets())


def _reverse_rows(g, x):
    """TF1's Hessian: the gradient of each entry of ``g`` (one reverse sweep per row),
    for a graph forward mode cannot sweep (a user's gradient function that is not
    linear in its cotangent, such as clipping it)."""
    n = int(np.prod(x.shape, dtype=np.int64))
    flat = F.reshape(g, shape=(n,))
    rows = []
    for i in range(n):
        (row,) = gradients(F.index(flat, index=(i,)), x, unconnected_gradients="zero")
        rows.append(F.reshape(row, shape=(1,) + tuple(x.shape)))
    return rows[0] if n == 1 else F.concat(*rows, axis=0)


def hessian_args(xs, unconnected_gradients, aggregation_method):
    """The xs of ``hessians`` as nodes, each of known shape (else an error naming it)."""
    _check_options(unconnected_gradients, aggregation_method)
    xs = _as_nodes(xs, "xs")
    for x in xs:
        if not is_static(x.shape):
            raise ShapeError(f"hessians: x ({x.name!r}) has shape {x.shape} with unknown sizes "
                             "(None): a Hessian has one column per element of x, so x's shape "
                             "must be known (ys may have unknown sizes)")
    return xs


def hessians(ys, xs, name="hessians", gate_gradients=False, aggregation_method=None,
             unconnected_gradients="none"):
    """Per x, the Hessian of sum(ys) with respect to that x alone: shape x.shape * 2.

    symgrad differs from TF: where a second derivative is structurally zero (or
    sum(ys) does not depend on x) the block is zeros instead of an error.  Each
    block is one forward-over-reverse sweep over a batch of x.size unit seeds.
    (``sg.hessians`` adds ``sparse=True``: ``symgrad.sparse``.)

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable([1.0, 2.0], name="x")
    ...     hessians(t.reduce_sum(x ** 3), x)[0].numpy().tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    if meets_unknown_rank([ys, xs]):
        # ys or an x of unknown rank (a TF1 placeholder without shape, ops.deferred):
        # recorded, and made at the shapes fed, as TF sizes its Hessian at run time
        _check_options(unconnected_gradients, aggregation_method)
        count = len(xs) if isinstance(xs, (list, tuple)) else 1
        return GradientList(defer(hessians, (ys, xs), {
            "unconnected_gradients": unconnected_gradients,
            "aggregation_method": aggregation_method}, count))
    out = []
    for x in hessian_args(xs, unconnected_gradients, aggregation_method):
        with x.graph.name_scope("hessians"):
            h = hessian_block(ys, x) if x.is_float else None
            h = derived(h, lambda b: F.reshape(b, shape=x.shape * 2)) if h is not None else \
                literal(x.graph, np.zeros(x.shape * 2, x.dtype))
        out.append(h)
    return GradientList(out)
