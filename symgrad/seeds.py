"""Batched sweeps: a derivative along a batch of seed vectors as one graph.

A sweep (reverse or forward) is built once with a seed *leaf* standing for one
seed vector; :func:`vmap` then rebuilds the part of the graph that depends on the
seed with a leading seed axis (``ops.batching``), substituting a batch of seeds.
The graph of a Jacobian is therefore a constant multiple of the sweep's graph,
and compiled code is a loop over seeds, not one copy of the sweep per row.

``jacobian`` uses reverse mode (one seed per element of y) when y is smaller
than x, forward mode otherwise; ``hessians`` is forward over reverse with one
seed per element of x.  Seed batches are the identity (dense results) or a
colouring's compression matrix (``symgrad.sparsity``).

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
from .errors import ShapeError
from .graph import ancestors, is_static
from .ops import F, literal
from .ops.base import filled
from .ops.batching import batch_node
from .display import GradientList


def vmap(outputs, seed, batch):
    """``outputs`` rebuilt with ``seed`` replaced by ``batch`` (shape ``(B,) + seed.shape``).

    Outputs that do not depend on the seed are broadcast along the new axis.
    """
    size = batch.shape[0]
    new = {seed: batch}
    for node in ancestors(outputs):
        if node is not seed and any(x in new for x in node.inputs):
            new[node] = batch_node(node, [new.get(x, x) for x in node.inputs],
                                   [x in new for x in node.inputs], size)
    out = []
    for o in outputs:
        b = new.get(o)
        if b is None:
            b = F.broadcast_to(F.reshape(o, shape=(1,) + o.shape), shape=(size,) + o.shape)
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


def compression_seeds(graph, colors, ncolors, shape, dtype):
    """Seed b is the sum of the unit seeds of colour b: shape (ncolors,) + shape."""
    n = len(colors)
    ones = F.broadcast_to(literal(graph, np.ones((), dtype)), shape=(n,))
    seeds = F.index_add(ones, shape=(ncolors, n),
                        index=(np.asarray(colors, np.int64), np.arange(n, dtype=np.int64)))
    return F.reshape(seeds, shape=(ncolors,) + tuple(shape))


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


def reverse_rows(y, x, seeds):
    """``seeds[b] . J`` for each seed b (shape (B,) + y.shape): (B,) + x.shape, or None."""
    u, g = reverse_sweep(y, x)
    return None if g is None else vmap([g], u, seeds)[0]


def forward_columns(ys, x, seeds):
    """``J_y . seeds[b]`` for each y and seed b: (B,) + y.shape per y (None if unreached)."""
    t, tans = forward_sweep(ys, x)
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
    _check_options(unconnected_gradients, None)
    (y,) = _as_nodes(y, "y")
    (x,) = _as_nodes(x, "x")
    if not is_static(y.shape):
        raise ShapeError(f"jacobian: y ({y.name!r}) has shape {y.shape} with unknown sizes "
                         "(None): a Jacobian has one row per element of y, so y's shape must be "
                         "known (x's may have unknown sizes)")
    graph = x.graph
    with graph.name_scope("jacobian"):
        out = None
        if x.is_float and y.is_float:
            if not is_static(x.shape) or y.size <= x.size:  # (one reverse seed per y element)
                rows = reverse_rows(y, x, identity_seeds(graph, y.shape, y.dtype))
                out = None if rows is None else F.reshape(rows, shape=y.shape + x.shape)
            else:
                (cols,) = forward_columns([y], x, identity_seeds(graph, x.shape, x.dtype))
                out = None if cols is None else _columns_last(cols, y, x)
        if out is None and unconnected_gradients == "zero":
            out = filled(graph, 0, y.shape + x.shape, x.dtype)
        return out


def hessian_block(ys, x, seeds):
    """Forward over reverse: ``H . seeds[b]`` for each seed (shape (B,) + x.shape) or None."""
    (g,) = gradients(ys, x)
    if g is None:
        return None
    return forward_columns([g], x, seeds)[0]


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
    out = []
    for x in hessian_args(xs, unconnected_gradients, aggregation_method):
        with x.graph.name_scope("hessians"):
            h = hessian_block(ys, x, identity_seeds(x.graph, x.shape, x.dtype)) \
                if x.is_float else None
            h = F.reshape(h, shape=x.shape * 2) if h is not None else \
                literal(x.graph, np.zeros(x.shape * 2, x.dtype))
        out.append(h)
    return GradientList(out)
