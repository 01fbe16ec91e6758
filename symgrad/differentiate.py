"""gradients with the semantics of TF1's ``tf.gradients``.

The reverse sweep visits, in reverse topological order, the nodes that lie on a
path from some x to some y through float tensors.  Each node sums the cotangents
it received (its adjoint) and hands them to its op's derivative rule.  The sweep
returns a structured :class:`Sweep` record; the teaching layer renders it.

Connectivity is structural: an x is ``None`` when no cotangent reached it, never
because a value happened to be zero.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     a = t.constant(0.0, name="a")
...     b = 2 * a
...     [float(g.numpy()) for g in gradients(a + b, [a, b])]
[3.0, 1.0]
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from . import gcfreeze
from .display import GradientList
from .errors import ArgumentError, NoGradientError, NotATensorError, ShapeError
from .graph import Dim, Node, ancestors, same_up_to_unknown
from .ops import REGISTRY, F, as_node, common_graph
from .ops.base import broadcast_shapes, derived_node, filled, merge_terms
from .ops.deferred import defer, meets_unknown_rank
from .ops.python import narrow, runs_python
from .values import is_sparse_result

from typing import TYPE_CHECKING, Any, Iterable, Sequence, Union

if TYPE_CHECKING:
    from .tracing.tensor import Tensor
Tensors = Union["Tensor", Sequence["Tensor"]]
"""A tensor or a list of tensors (``ys``, ``xs``, ``stop_gradients``)."""

UNCONNECTED = ("none", "zero")
_ADD = REGISTRY["add"]
AGGREGATION_METHODS = (None, 0, 1, 2, "add_n", "experimental_tree",
                       "experimental_accumulate_n")


class Sweep:
    """What one reverse sweep did, for results and explanations.

    Attributes:
        ys, seeds, xs, stops: the call's arguments as nodes.
        between: nodes on a float path from an x to a y (topological order).
        adjoints: ``{node: summed cotangent node}`` for every node reached.
        contributions: ``[(consumer, input_index, input, cotangent)]`` in sweep order.
        cut: ``{node: reason}`` where the sweep stopped (``"stop_gradients"`` or the op).
    """

    def __init__(self, ys: list[Node], seeds: list[Node], xs: list[Node],
                 stops: set[Node]) -> None:
        self.ys, self.seeds, self.xs, self.stops = ys, seeds, xs, stops
        self.between: list[Node] = []
        self.adjoints: dict[Node, Node] = {}
        self.contributions: list[tuple[Node | None, int, Node, Node]] = []
        self.cut: dict[Node, str] = {}


def _as_nodes(values, what):
    if values is None:
        raise NotATensorError(f"{what} is None; pass a tensor or a list of tensors")
    items = list(values) if isinstance(values, (list, tuple)) else [values]
    for i, v in enumerate(items):
        if is_sparse_result(v):
            raise NotATensorError(
                f"{what}[{i}] is a sparse result (sparse=True), not a tensor of the graph; "
                "its stored entries are the tensor .values (in CSR order): differentiate "
                "that, or the dense result of the same call (sparse=False)")
        if not isinstance(v, Node):
            kind = "a numpy array" if isinstance(v, np.ndarray) else \
                "None" if v is None else f"a {type(v).__name__}"
            raise NotATensorError(
                f"cannot take the gradient with {what}[{i}] being {kind}; gradients are taken "
                "between tensors of the graph — create it with sg.Variable(value) or "
                "sg.constant(value) and use that tensor in the computation")
    return items


def _check_options(unconnected_gradients, aggregation_method):
    if unconnected_gradients not in UNCONNECTED:
        raise ArgumentError(f"unconnected_gradients={unconnected_gradients!r}: use 'none' "
                            "(unconnected xs get None) or 'zero' (they get zeros)")
    if aggregation_method not in AGGREGATION_METHODS:
        raise ArgumentError(f"aggregation_method={aggregation_method!r} is unknown; "
                            f"valid: {AGGREGATION_METHODS}")


def _seeds(ys, grad_ys, graph):
    """One seed node per y: ones like y, or grad_ys broadcast to y's shape."""
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    elif not isinstance(grad_ys, (list, tuple)):
        grad_ys = [grad_ys]
    if len(grad_ys) != len(ys):
        raise ArgumentError(f"grad_ys has {len(grad_ys)} entries but ys has {len(ys)}; "
                            "pass one seed per y (None for ones)")
    seeds = []
    for i, (y, s) in enumerate(zip(ys, grad_ys)):
        if s is None:
            seeds.append(filled(graph, 1, y.shape, y.dtype if y.is_float else float))
            continue
        seeds.append(_seed(as_node(s, graph), y, i))
    return seeds


def _seed(s, y, i):
    """``grad_ys[i]`` with the shape of ``ys[i]``.  Where y's size is known only at run
    time and the seed's is known now (grad_ys=tf.constant([[1.], [2.]]) for a
    ``[None, 1]`` prediction), the seed takes y's unknown size, the two compared when
    values arrive (as TF compares them then)."""
    try:
        shape = broadcast_shapes(y.shape, s.shape)
    except ValueError:
        shape = None
    if shape is None or not same_up_to_unknown(shape, y.shape):
        raise ShapeError(f"grad_ys[{i}] has shape {s.shape}, which does not broadcast to "
                         f"the shape {y.shape} of ys[{i}] ({y.name!r})")
    if s.shape != shape:
        s = F.broadcast_to(s, shape=shape)
    return s if shape == y.shape else F.reshape(s, shape=tuple(y.shape))


def _between(ys, xs):
    """Nodes on a path from an x to a y through float tensors (topological order)."""
    xset = set(xs)
    upstream = ancestors(ys)
    reach = set()
    for node in upstream:   # (node.is_float, inline: every node of the graph asks)
        if node.dtype.kind == "f" and (node in xset or not reach.isdisjoint(node.inputs)):
            reach.add(node)
    return [n for n in upstream if n in reach]


def _add_n(terms):
    if len(terms) > 1:
        terms = merge_terms(terms)
    if len(terms) == 1:
        return terms[0]
    total = terms[0]
    for t in terms[1:]:   # cotangents of one node: one shape (no broadcast to check)
        total = derived_node(_ADD, [total, t], {}, total.shape,
                             _ADD.dtype_rule([total.dtype, t.dtype])) \
            if t.shape == total.shape else F.add(total, t)
    return total


def backprop(ys, seeds, xs, stops):
    """Run the reverse sweep; returns the :class:`Sweep` record."""
    sweep = Sweep(ys, seeds, xs, stops)
    sweep.between = _between(ys, xs)
    with gcfreeze.frozen_for(len(sweep.between)):
        _run(sweep, ys, seeds, stops)
    return sweep


def _run(sweep, ys, seeds, stops):
    on_path = set(sweep.between)
    pending = {}
    for y, s in zip(ys, seeds):
        if y in on_path:
            pending.setdefault(y, []).append(s)
            sweep.contributions.append((None, None, y, s))
    for node in reversed(sweep.between):
        terms = pending.pop(node, None)
        if not terms:
            continue
        g = _add_n(terms)
        sweep.adjoints[node] = g
        if node in stops:
            sweep.cut[node] = "stop_gradients"
            continue
        wanted = [x in on_path for x in node.inputs]
        if not any(wanted):
            continue
        if node.opdef.grad is None:
            raise NoGradientError(
                f"op {node.opdef.name!r} (node {node.name!r}) has no derivative rule, and a "
                "gradient must flow through it; wrap its use in sg.stop_gradient(...) or "
                "register a grad rule for it in symgrad.ops")
        cut = True   # no wanted input gets a cotangent
        for i, (x, gx, w) in enumerate(zip(node.inputs, node.opdef.grad(node, g), wanted)):
            if w and gx is not None:
                cut = False
                if gx.shape != x.shape:
                    gx = _fitted(gx, x, node)
                if gx.dtype != x.dtype:   # (a cast's cotangent: cast back, as TF's rule)
                    gx = F.cast(gx, dtype=x.dtype.name)
                if x in pending:
                    pending[x].append(gx)
                else:
                    pending[x] = [gx]
                sweep.contributions.append((node, i, x, gx))
        if cut:
            sweep.cut[node] = node.opdef.name


def _fitted(gx, x, node):
    """The cotangent ``gx`` of input ``x`` of ``node`` in x's shape (sizes unknown until
    values arrive may agree); a rule that gave another shape is an internal error.  A
    gradient function's result of unknown rank (``tf.py_func`` in a registered
    gradient, TF's "numpy op with its own gradient") takes x's shape, checked when the
    function runs."""
    if gx.shape is None and x.shape is not None:
        if not runs_python(gx):
            raise ShapeError(f"the gradient of {node.opdef.name} ({node.name!r}) for input "
                             f"{x.name!r} has an unknown shape; give it x's shape "
                             f"{x.shape} (t.set_shape) in the gradient function")
        narrow(gx, [d if isinstance(d, int) else None for d in x.shape])
    if same_up_to_unknown(gx.shape, x.shape):
        gx = F.reshape(gx, shape=x.shape)  # unknown sizes that agree at run time
    if gx.shape != x.shape:
        raise ShapeError(f"internal: the {node.opdef.name} rule gave a cotangent of "
                         f"shape {gx.shape} for input {x.name!r} of shape {x.shape}")
    return gx


def checked_args(ys, xs, stop_gradients):
    """``(ys, xs, stops, graph)``: the arguments as node lists, all of one graph."""
    ys = _as_nodes(ys, "ys")
    xs = _as_nodes(xs, "xs")
    stops = _as_nodes(stop_gradients, "stop_gradients") if stop_gradients is not None else []
    graph = common_graph(ys + xs + stops, "ys, xs and stop_gradients")
    if any(x.graph is not graph for x in xs + stops):
        # inside a cond branch or loop body, ys use an outer tensor through the body's
        # stand-in for it (tf.gradients(loss, w) in a map_fn over a variable w)
        with graph.as_default():
            xs = [x if x.graph is graph else graph.capture(x) for x in xs]
            stops = [x if x.graph is graph else graph.capture(x) for x in stops]
    return ys, xs, stops, graph


def sweep(ys, xs, grad_ys=None, stop_gradients=None, name="gradients"):
    """Validate the arguments and run the sweep inside the name scope ``name`` (TF's:
    ``gradients``, ``gradients_1``, ... or the ``name`` given)."""
    ys, xs, stops, graph = checked_args(ys, xs, stop_gradients)
    with graph.name_scope(name or "gradients"):
        seeds = _seeds(ys, grad_ys, graph)
        outward = _outward(graph, xs)
        record = backprop(ys, seeds, xs + [arg for arg, _ in outward], set(stops))
        if outward:
            _carry_out(record, graph, xs, outward, stops)
        return record


def _outward(graph, xs):
    """Inside a cond branch or loop body: [(stand-in, outer tensor)] for the outer
    tensors the body reads that depend on an outer x (``tf.gradients(y[i], x)`` in a
    ``map_fn`` over rows, with ``y = f(x)`` made outside: TF's gradient leaves the body
    through y to reach x)."""
    captures = getattr(graph, "captures", None)
    if not captures:
        return []
    outer_of = {arg: c for c, arg in captures.items()}
    outer_xs = {outer_of[x] for x in xs if x in outer_of}
    if not outer_xs:
        return []
    return [(arg, c) for c, arg in list(captures.items())
            if c.is_float and c not in outer_xs and not outer_xs.isdisjoint(ancestors([c]))]


def _carry_out(record, graph, xs, outward, stops):
    """Add to each captured x's adjoint the path out of the body: the stand-ins'
    adjoints swept on through the enclosing graph (its ops' rules, built here in the
    body, which captures what they read)."""
    record.xs = xs
    reached = [(c, record.adjoints[arg]) for arg, c in outward if arg in record.adjoints]
    if not reached:
        return
    outer_of = {arg: c for c, arg in graph.captures.items()}
    targets = [outer_of[x] for x in xs if x in outer_of]
    outer_stops = {outer_of.get(s, s) for s in stops}
    out = backprop([c for c, _ in reached], [g for _, g in reached], targets, outer_stops)
    for x in xs:
        g = out.adjoints.get(outer_of.get(x))
        if g is not None and x.is_float:
            own = record.adjoints.get(x)
            record.adjoints[x] = g if own is None else _add_n([own, g])


def _deferred_where_connected(fn):
    """``gradients`` over tensors of unknown rank (``ops.deferred``): the call is recorded
    for the xs some y reaches, and an x none reaches is None now, as TF knows it when the
    graph is built (so ``minimize`` skips a variable the loss does not use)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not (meets_unknown_rank(args) or meets_unknown_rank(kwargs.values())):
            return fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        ys, xs = bound.arguments["ys"], bound.arguments["xs"]
        xs_list = list(xs) if isinstance(xs, (list, tuple)) else [xs]
        ys_list = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        if (bound.arguments.get("unconnected_gradients", "none") != "none"
                or not all(isinstance(v, Node) for v in xs_list + ys_list)):
            return defer(fn, args, kwargs, len(xs_list))
        reached = _reached(ys_list, bound.arguments.get("stop_gradients"))
        # (an outer x, a variable read inside a map_fn body, is reached as its stand-in)
        held = getattr(common_graph(ys_list), "captures", {})
        wanted = [x for x in xs_list if (x in reached or held.get(x) in reached)
                  and (x.shape is None or x.is_float)]
        if len(wanted) == len(xs_list):
            return defer(fn, args, kwargs, len(xs_list))
        bound.arguments["xs"] = wanted
        made = iter(defer(fn, bound.args, bound.kwargs, len(wanted)) if wanted else [])
        return GradientList(next(made) if x in wanted else None for x in xs_list)
    return wrapper


def _reached(ys, stop_gradients):
    """The nodes a gradient from ``ys`` can reach, judged from the graph alone: the
    walk stops at stop_gradient ops, at ``stop_gradients`` and at integer tensors of
    known shape (a deferred node's dtype is a guess until it is made)."""
    stops = stop_gradients if isinstance(stop_gradients, (list, tuple)) else [stop_gradients]
    stops = {s for s in stops if isinstance(s, Node)}
    seen, stack = set(), list(ys)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        blocks = node.opdef.blocks   # (True, or a rule of the node: a Python call's)
        cut = node in stops or (blocks(node) if callable(blocks) else blocks) or (
            node.shape is not None and node.dtype.kind != "f")
        if not cut:
            stack.extend(node.inputs)
    return seen


@_deferred_where_connected
def gradients(ys: Tensors, xs: Tensors, grad_ys: Any = None, name: str = "gradients",
              gate_gradients: bool = False, aggregation_method: str | None = None,
              stop_gradients: Tensors | None = None, unconnected_gradients: str = "none",
              colocate_gradients_with_ops: bool = False) -> GradientList:
    """The derivative of sum(grad_ys * ys) with respect to each x, like ``tf.gradients``.

    Args:
        ys: a tensor or list of tensors (summed; non-scalar ys are summed over elements).
        xs: a tensor or list of tensors of the graph (any tensor, not only leaves).
        grad_ys: seeds, one per y (None entries mean ones); each must broadcast to its y.
        stop_gradients: tensors treated as constants for this call.
        unconnected_gradients: ``"none"`` or ``"zero"``.
        name: the name scope of the gradient's tensors (``gradients``).
        gate_gradients, aggregation_method, colocate_gradients_with_ops: accepted
            for compatibility; they do not change values.
    Returns:
        a list with one entry per x: a tensor of x's shape and dtype, or None.
    Raises:
        NotATensorError: ys/xs contain numpy arrays, numbers or None.
        ArgumentError: grad_ys of the wrong length, unknown options.
        ShapeError: a seed that does not broadcast to its y.
        NoGradientError: an op on the path has no derivative rule.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     a = t.constant(5.0, name="a")
    ...     b = 2 * a
    ...     [str(g) for g in gradients(a**3 + 2 * b**2, [a, b])]
    ['3*a**2 + 16*a', '8*a']
    """
    _check_options(unconnected_gradients, aggregation_method)
    record = sweep(ys, xs, grad_ys, stop_gradients, name)
    return GradientList(_result(x, record.adjoints.get(x), unconnected_gradients)
                        for x in record.xs)


def _result(x, adjoint, unconnected):
    if adjoint is None or not x.is_float:
        if unconnected == "zero":
            return filled(x.graph, 0, x.shape, x.dtype)
        return None
    return adjoint
