"""Forward mode: the tangent sweep behind ``jvp``, ``hvp`` and the batched Jacobians.

The sweep visits, in topological order, the nodes on a float path from some x to
some y (the same set as the reverse sweep) and gives each a tangent node: the
directional derivative of its value along the xs' tangents.  Rules come from the
registry's derivative rules, so ops registered later need nothing new:

- elementwise ops: ``sum_i d(rule)/d(arg_i) * t_i`` from the same partials as the
  reverse sweep (``sympy.diff`` of the rule, TF's conventions at kinks), each
  product strong-zero in the tangent like the reverse products are in ``g``;
- every other op: its grad rule transposed.  The grad rule is linear in the
  cotangent ``u``, so ``d/du <grad(node, u), t>`` is the tangent ``J t``; a small
  reverse sweep over the rule's own graph computes it, and ``u`` drops out.

An op may also define ``op.jvp(node, tangents) -> tangent`` to override both.

Imports graph, ops, gcfreeze and differentiate (the reverse sweep it transposes with).

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable([1.0, 2.0], name="x")
...     [float(v) for v in jvp(t.reduce_sum(x ** 3), x, [1.0, 0.0])[0].numpy().ravel()]
[3.0]
"""
from __future__ import annotations

import numpy as np
import sympy

from . import gcfreeze
from .differentiate import (_add_n, _as_nodes, _between, _check_options, _result, backprop,
                            checked_args, gradients)
from .errors import ArgumentError, NoGradientError, ShapeError
from .graph import Node, ancestors
from .ops import REGISTRY, F, apply, arg_symbols, as_node, literal
from .ops.elementwise import elementwise_grad
from .display import GradientList


def seed_leaf(graph, shape, dtype, name="seed"):
    """A placeholder-like leaf standing for one seed vector (replaced by a batch later)."""
    return graph.add_node(REGISTRY["placeholder"], (), {"shape": tuple(shape)}, shape,
                          dtype, name=name)


def _fit(t, shape):
    return t if t.shape == tuple(shape) else F.broadcast_to(t, shape=tuple(shape))


def _elementwise_tangent(node, tangents):
    """``sum_i p_i * t_i`` for an elementwise node, strong-zero in each ``t_i``."""
    parts, syms = node.opdef.partials([x.dtype for x in node.inputs], **node.attrs)
    terms = []
    for x, p, t in zip(node.inputs, parts, tangents):
        if t is None or p is None or not x.is_float:
            continue
        p = sympy.sympify(p)
        if p == 0:
            continue
        terms.append(_scaled_tangent(node, t, p, syms))
    if not terms:
        return None
    out = _fit(_add_n(terms), node.shape)
    if out.dtype != node.dtype and node.dtype.kind == "f":   # a cast's tangent is cast too
        out = F.cast(out, dtype=node.dtype)
    return out


def _scaled_tangent(node, t, partial, syms):
    if partial == 1:
        return t
    if partial == -1:
        return F.neg(t)
    used = [i for i, s in enumerate(syms) if s in partial.free_symbols]
    inputs = [node.inputs[i] for i in used] + [t]
    new = arg_symbols([x.dtype for x in inputs])
    expr = new[-1] * partial.xreplace({syms[i]: new[k] for k, i in enumerate(used)})
    return apply("elementwise", inputs, expr=expr, strong=len(used),
                 label=f"{node.opdef.name}_jvp")


def _total(t):
    return F.reduce_sum(t, axis=tuple(range(t.ndim)), keepdims=False) if t.ndim else t


def _transposed_tangent(node, tangents):
    """``d/du <grad(node, u), t>``: the grad rule transposed by a local reverse sweep."""
    u = seed_leaf(node.graph, node.shape, node.dtype, name="cotangent")
    grads = node.opdef.grad(node, u)
    terms = [_total(F.mul(g, t)) for g, t in zip(grads, tangents)
             if g is not None and t is not None]
    if not terms:
        return None
    total = _add_n(terms)
    one = literal(node.graph, np.ones((), total.dtype))
    tangent = backprop([total], [one], [u], set()).adjoints.get(u)
    if tangent is None:
        return None
    if u in ancestors([tangent]):
        raise NoGradientError(f"op {node.opdef.name!r}: its grad rule is not linear in the "
                              "cotangent, so forward mode cannot transpose it; give the op "
                              "a jvp(node, tangents) rule")
    return tangent


def node_tangent(node, tangents):
    """The tangent of ``node`` from its inputs' tangents (None entries: no tangent)."""
    op = node.opdef
    if getattr(op, "jvp", None) is not None:
        return op.jvp(node, tangents)
    if op.grad is None:
        raise NoGradientError(
            f"op {op.name!r} (node {node.name!r}) has no derivative rule, and a tangent "
            "must flow through it; wrap its use in sg.stop_gradient(...) or register a "
            "grad rule for it in symgrad.ops")
    if op.grad is elementwise_grad:
        return _elementwise_tangent(node, tangents)
    return _transposed_tangent(node, tangents)


def tangent_sweep(ys, xs, tangents, stops=()):
    """``{node: tangent node}`` for the nodes between xs and ys (forward mode)."""
    between = _between(ys, xs)
    with gcfreeze.frozen_for(len(between)):
        return _tangents_between(between, xs, tangents, stops)


def _tangents_between(between, xs, tangents, stops):
    on_path, stops = set(between), set(stops)
    seeds = {}
    for x, t in zip(xs, tangents):
        if x in on_path:
            seeds.setdefault(x, []).append(t)
    tan = {}
    for node in between:
        parts = list(seeds.get(node, []))
        if node not in stops and any(x in tan for x in node.inputs):
            t = node_tangent(node, [tan.get(x) for x in node.inputs])
            if t is not None:
                if t.shape != node.shape:
                    raise ShapeError(f"internal: the tangent of {node.opdef.name} has shape "
                                     f"{t.shape}, the node {node.shape}")
                if t.dtype != node.dtype and node.is_float:
                    # a tangent has its node's dtype: through a cast (or a loop's packed
                    # float64 result unpacked to float32) it is cast too, as the reverse
                    # sweep casts a cast's cotangent back
                    t = F.cast(t, dtype=node.dtype.name)
                parts.append(t)
        if parts:
            tan[node] = _add_n(parts)
    return tan


def _tangents(tangents, xs, graph):
    per_x = isinstance(tangents, (list, tuple)) and len(tangents) == len(xs) and (
        len(xs) > 1 or xs[0].shape == () or isinstance(tangents[0], Node)
        or np.ndim(tangents[0]) > 0)
    tangents = list(tangents) if per_x else [tangents]
    if len(tangents) != len(xs):
        raise ArgumentError(f"tangents has {len(tangents)} entries but xs has {len(xs)}; "
                            "pass one tangent per x")
    out = []
    for i, (x, t) in enumerate(zip(xs, tangents)):
        t = as_node(t if not isinstance(t, (int, float)) else np.full(x.shape, float(t)),
                    graph)
        if t.shape != x.shape:
            try:
                t = F.broadcast_to(t, shape=x.shape)
            except ShapeError:
                raise ShapeError(f"tangents[{i}] has shape {t.shape}, which does not "
                                 f"broadcast to the shape {x.shape} of xs[{i}] "
                                 f"({x.name!r})") from None
        if t.dtype != x.dtype and x.is_float:
            t = F.cast(t, dtype=x.dtype.name)
        out.append(t)
    return out


def jvp(ys, xs, tangents, stop_gradients=None, unconnected_gradients="none"):
    """The directional derivative ``sum_i dy/dx_i . t_i`` for each y (forward mode).

    Args:
        ys: a tensor or list of tensors.
        xs: a tensor or list of tensors of the graph (any tensor: total derivatives,
            as in ``gradients``).
        tangents: one tangent per x (a tensor or array of x's shape, or a number).
        stop_gradients, unconnected_gradients: as in ``gradients``.
    Returns:
        a list with one entry per y: a tensor of y's shape, or None when no x
        reaches y (zeros with ``unconnected_gradients="zero"``).

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable(2.0, name="x")
    ...     [str(v) for v in jvp([x ** 3, 5 * x], x, 1.0)]
    ['3*x**2', '5']
    """
    _check_options(unconnected_gradients, None)
    ys, xs, stops, graph = checked_args(ys, xs, stop_gradients)
    with graph.name_scope("jvp"):
        ts = _tangents(tangents, xs, graph)
        tan = tangent_sweep(ys, xs, ts, stops)
        return GradientList(_result(y, tan.get(y), unconnected_gradients) for y in ys)


def hvp(ys, xs, vs, unconnected_gradients="none"):
    """Hessian-vector products, forward over reverse, never forming the Hessian.

    Entry i is ``sum_j d/dx_j (d sum(ys)/dx_i) . v_j``, which equals
    ``gradients(sum_i <gradients(ys, xs)_i, v_i>, xs)``.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable([1.0, 2.0], name="x")
    ...     hvp(t.reduce_sum(x ** 3), x, [1.0, 1.0])[0].numpy().tolist()
    [6.0, 12.0]
    """
    _check_options(unconnected_gradients, None)
    xs = _as_nodes(xs, "xs")
    grads = gradients(ys, xs)
    graph = xs[0].graph
    with graph.name_scope("hvp"):
        ts = _tangents(vs, xs, graph)
        connected = [g for g in grads if g is not None]
        tan = tangent_sweep(connected, xs, ts) if connected else {}
    return GradientList(_result(x, tan.get(g) if g is not None else None,
                                unconnected_gradients) for x, g in zip(xs, grads))
