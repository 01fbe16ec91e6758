"""The reference evaluator: plain numpy over the graph, node by node.

It is the oracle the compiled path is tested against, not the fast path.  Floating
point follows numpy's error model with warnings silenced: 1/0 is inf, log(0) is
-inf, NaN propagates, nothing raises.

Imports the graph and the op registry only.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     p = t.placeholder(shape=(2,), name="p")
...     float(evaluate(t.reduce_sum(p * p), feed_dict={p: [3.0, 4.0]}))
25.0
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .errors import FeedError, MatrixError, NotATensorError, ShapeError
from .graph import (Dim, Node, concrete_attrs, concrete_shape, has_dims, is_static,
                    shape_text)
from .ops import check_value, fastpaths, onehot
from .ops.base import check_broadcast
from .ops.deferred import resolve
from .ops.valued import size_binders
from .values import bind_dims, cast_value, fits  # noqa: F401  (re-exported)


def flatten(structure, what="fetches"):
    """Nodes (and Nones) of a nested list/tuple/dict, plus a function rebuilding it."""
    if structure is None or isinstance(structure, Node):
        return [structure], lambda vals: vals[0]
    if hasattr(structure, "wrap_value"):  # a sparse result: its values, wrapped after
        return [structure.values], lambda vals: structure.wrap_value(vals[0])
    if isinstance(structure, dict):
        keys = list(structure)
        parts = [flatten(structure[k], what) for k in keys]
        return _join(parts, lambda items: dict(zip(keys, items)))
    if isinstance(structure, (list, tuple)):
        parts = [flatten(s, what) for s in structure]
        kind = type(structure)
        return _join(parts, lambda items: list(items) if issubclass(kind, list) else
                     kind(items) if kind is tuple else kind(*items))
    raise NotATensorError(
        f"{what} contains {type(structure).__name__} {structure!r}, which is not a tensor of "
        "the graph; create tensors with sg.constant/sg.Variable/sg.placeholder")


def _join(parts, build):
    flat, sizes = [], []
    for items, _ in parts:
        flat.extend(items)
        sizes.append(len(items))

    def rebuild(vals):
        out, start = [], 0
        for (_, sub), n in zip(parts, sizes):
            out.append(sub(vals[start:start + n]))
            start += n
        return build(out)
    return flat, rebuild


def check_feed(feed_dict):
    """Validate ``feed_dict``: tensor keys, real values of the tensor's shape."""
    feeds = {}
    for key, value in (feed_dict or {}).items():
        if not isinstance(key, Node):
            raise NotATensorError(f"feed_dict key {key!r} is not a tensor of the graph")
        arr = check_value(value, f"the value fed for {key.name!r}")
        if not fits(arr.shape, key.shape):
            hint = (" (it was created without a shape, which symgrad reads as a scalar: "
                    "pass shape=... to placeholder)" if key.attrs.get("unspecified_shape")
                    else "")
            raise FeedError(f"feed_dict: cannot feed a value of shape {arr.shape} for "
                            f"{key.name!r}, which has shape {key.shape}{hint}")
        feeds[key] = np.array(cast_value(arr, key.dtype, f"the value fed for {key.name!r}",
                                         FeedError))
    return feeds


def needed(outputs, feeds=()):
    """Nodes needed to compute ``outputs``, stopping at fed nodes, in topological order
    (with the nodes that bind sizes read from values, ``ops.valued``, which shapes
    among them depend on)."""
    seen, stack = set(), [n for n in outputs if n is not None]
    fed = None
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            if node not in feeds:
                stack.extend(node.inputs)
        if not stack:   # (also when the last node popped was seen already)
            fed = _fed_sizes(feeds) if fed is None else fed
            stack = _binders(seen, fed)
    return sorted(seen, key=lambda n: n.id)


def _fed_sizes(feeds):
    """The size symbols the shapes of fed nodes bind (``values.bind_dims``): a loop
    body's parameters carry the sizes of the outer tensors they stand for, so the
    outer node that read them from values is not run again inside the body (where a
    session's random draws differ at each step)."""
    return {d.symbol for node in feeds if node.shape is not None
            for d in node.shape if isinstance(d, Dim) and d.symbol is not None}


def _binders(nodes, fed=frozenset()):
    """The nodes binding the value-read sizes in the shapes of ``nodes`` that are not
    among them (a gradient's zeros have the mask's count, not the mask node), except
    sizes the feeds bind (``fed``)."""
    found, sizes = {}, None
    for node in nodes:
        if node.shape is None or is_static(node.shape):
            continue
        if sizes is None:
            sizes = size_binders(node.graph)
        if not sizes:
            return []
        for d in node.shape:
            if isinstance(d, Dim):
                for symbol in d.expr.free_symbols - fed:
                    binder = sizes.get(symbol)
                    if binder is not None and binder not in nodes:
                        found[binder] = None
    return list(found)


def leaf_value(node, feeds):
    """The value of a leaf: its feed, else its stored value; FeedError if a placeholder is unfed."""
    if node in feeds:
        return feeds[node]
    if node.value is None:
        raise FeedError(f"placeholder {node.name!r} (shape {shape_text(node.shape)}) was not fed; pass "
                        f"feed_dict={{{node.name}: value}} when evaluating")
    return node.value


def run(outputs, feeds, order=None):
    """Compute every node needed for ``outputs``; returns {node: ndarray}.

    ``order`` is ``needed(outputs, feeds)`` when the caller already has it (a loop
    body runs once per iteration over the same nodes).
    """
    values, bindings = {}, bind_dims(feeds)
    order = order if order is not None else needed(outputs, feeds)
    known = _known_sizes(order, bindings)
    # (nodes read only by contractions that do without them are not in ``live``)
    live, fast, shortcuts = fastpaths.plan(order, outputs, feeds) or (order, {}, ())
    sums = fastpaths.Sums(order, outputs)
    with np.errstate(all="ignore"):
        for node in live:
            if node in feeds or not node.inputs and node.opdef.kind == "leaf":
                values[node] = np.asarray(leaf_value(node, feeds))
                sums.foreign(values[node])
                continue
            if node in fast:
                values[node] = _by_indices(node, fast[node], values)
                continue
            if node in shortcuts:
                cut = node.shortcut
                out = np.asarray(cut.fn(*[values[x] for x in cut.inputs]))
                values[node] = out.astype(node.dtype, copy=False)
                continue
            args = [values[x] for x in node.inputs]
            ready = known.get(node) if known is not None else None
            if ready is not None and ready[2] == [a.dtype for a in args]:
                shape, impl, _ = ready   # checked at these sizes before: the op alone
                try:
                    out = sums.in_place(node, args, shape)
                    out = np.asarray(impl(*args)) if out is None else out
                except (ValueError, IndexError):   # (a value-dependent error: said below)
                    out, shape = _run_node(node, args, bindings)
            else:
                out, shape = _run_node(node, args, bindings)
                if known is not None:
                    dtypes = [a.dtype for a in args]
                    known[node] = (shape, node.opdef.prepared(
                        dtypes, _attrs_at(node, bindings)), dtypes)
            if out.shape != shape:
                raise ShapeError(f"internal: {node.opdef.name} produced shape {out.shape}, "
                                 f"expected {shape} (node {node.name!r})")
            values[node] = out.astype(node.dtype, copy=False)
            sums.made(values[node])
    return values


def _by_indices(node, found, values):
    """An einsum with a one-hot operand, from the indices (``ops.onehot``)."""
    position, hot = found
    operands = [None if i == position else values[x] for i, x in enumerate(node.inputs)]
    out = onehot.contract(node.attrs["subscripts"], operands, position, values[hot.ids],
                          hot.depth)
    return np.asarray(out).astype(node.dtype, copy=False)


def _known_sizes(order, bindings):
    """``{node: (concrete shape, op function, input dtypes)}`` of the nodes already run
    (and checked) at these bound sizes, kept on the graph, so a session's second run of
    a step skips the size bookkeeping (half of a small step's time) and the op's
    lookups (``Op.prepared``, for inputs of those dtypes); None where sizes are read
    from values (``ops.valued``), which another run may change."""
    if not order or _sizes_from_values(order):
        return None
    memo = order[0].graph.__dict__.setdefault("_known_sizes", {})
    key = frozenset(bindings.items())   # (sorting by the symbols' text printed them: slow)
    if key not in memo and len(memo) >= 16:   # (a few batch sizes per graph)
        memo.clear()
    return memo.setdefault(key, {})


def _sizes_from_values(order):
    """Whether a node of ``order`` reads its size from values; asked once per order
    list (a loop body runs the same list at every iteration)."""
    return fastpaths.per_order(order, "_sizing_orders", lambda o: any(
        getattr(n.opdef, "binds_sizes", False) for n in o))


def _attrs_at(node, bindings):
    return concrete_attrs(node.attrs, bindings) if any(has_dims(v) for v in node.attrs.values()) \
        else node.attrs


def _run_node(node, args, bindings):
    """One node, its sizes checked: (value, shape)."""
    if is_static(node.shape) and all(is_static(x.shape) for x in node.inputs) \
            and not any(has_dims(v) for v in node.attrs.values()):
        return np.asarray(node.opdef.impl(*args, **node.attrs)), node.shape
    return _run_unknown(node, args, bindings)


def _run_unknown(node, args, bindings):
    """One node with unknown sizes: they take their values (``bindings``); dims that
    must agree are checked here, with an error naming the shapes."""
    shapes = [a.shape for a in args]
    if getattr(node.opdef, "binds_sizes", False):   # its size is read from its values
        return _run_sizing(node, args, bindings)
    try:
        shape = concrete_shape(node.shape, bindings, f"{node.name!r}")
        if node.opdef.kind == "elementwise":
            check_broadcast(shapes, shape, [x.shape for x in node.inputs], node.opdef.name)
        out = np.asarray(node.opdef.impl(*args, **concrete_attrs(node.attrs, bindings)))
    except (ValueError, IndexError) as exc:
        if isinstance(exc, (ShapeError, FeedError, MatrixError)):
            raise
        raise ShapeError(f"{node.opdef.name} ({node.name!r}): inputs of shapes "
                         f"{', '.join(map(str, shapes))} do not fit together "
                         f"(static shapes {', '.join(shape_text(x.shape) for x in node.inputs)})"
                         f": {exc}") from None
    if out.shape != shape:
        raise ShapeError(f"{node.opdef.name} ({node.name!r}): inputs of shapes "
                         f"{', '.join(map(str, shapes))} give shape {out.shape}, not "
                         f"{shape_text(node.shape)} = {shape} as the sizes fed imply")
    return out, shape


def _run_sizing(node, args, bindings):
    """A node whose result's size depends on values (``ops.valued``): computed first,
    its new sizes bound from the result, then checked like any other."""
    attrs = {k: v for k, v in node.attrs.items() if k != "size"}
    out = np.asarray(node.opdef.impl(*args, **concrete_attrs(attrs, bindings)))
    if out.ndim == len(node.shape):
        for d, n in zip(node.shape, out.shape):
            if isinstance(d, Dim) and d.symbol is not None and d.symbol not in bindings:
                bindings[d.symbol] = n
    shape = concrete_shape(node.shape, bindings, f"{node.name!r}")
    if out.shape != shape:
        raise ShapeError(f"{node.opdef.name} ({node.name!r}) gives shape {out.shape} where "
                         f"{shape_text(node.shape)} = {shape} is expected (two masks that "
                         "must keep as many entries keep different numbers)")
    return out, shape


def evaluate(fetches: Any, feed_dict: Mapping[Any, Any] | None = None) -> Any:
    """Evaluate tensors like ``Session.run``: same structure, numpy values.

    Args:
        fetches: a tensor, or a nested list/tuple/dict of tensors (``None`` entries,
            such as unconnected gradients, come back as ``None``).
        feed_dict: ``{tensor: value}`` for placeholders (any tensor may be fed).
    Returns:
        numpy arrays (0-d results as numpy scalars) in the structure of ``fetches``.
    Raises:
        FeedError: an unfed placeholder or a fed value of the wrong shape.
    """
    flat, rebuild = flatten(fetches)
    feeds = check_feed(feed_dict)
    mapping = resolve(needed([n for n in flat if n is not None], feeds), feeds, run)
    if mapping:  # tensors of unknown rank: made at the shapes fed (ops.deferred)
        flat = [mapping.get(n, n) for n in flat]
        feeds = {mapping.get(k, k): v for k, v in feeds.items()}
    values = run([n for n in flat if n is not None], feeds)
    return rebuild([None if n is None else _export(values[n]) for n in flat])


def specialize(outputs, bindings, graph=None, memo=None):
    """The graph below ``outputs`` rebuilt with every unknown size at its value.

    Each node is applied again (its op's shape rule runs on the concrete shapes, so
    sizes that must agree are checked); leaves keep their values.  The sub-graphs of
    control-flow nodes (their Function attrs, which know how) are rebuilt too, once
    each (``memo``).  Returns ``{old node: new node}`` over ``graph`` (a new one by
    default).
    """
    from .graph import Graph, ancestors
    from .ops import apply
    graph = Graph() if graph is None else graph
    memo = {} if memo is None else memo
    mapping = {}
    for node in ancestors(outputs):
        if not node.inputs and node.opdef.kind == "leaf":
            shape = concrete_shape(node.shape, bindings, repr(node.name))
            mapping[node] = graph.add_node(node.opdef, (), dict(node.attrs), shape, node.dtype,
                                           name=node.name, value=node.value)
            continue
        attrs = concrete_attrs(node.attrs, bindings)
        if node.opdef.kind == "control":
            attrs = {k: _specialized(v, bindings, graph, memo) for k, v in attrs.items()}
        mapping[node] = apply(node.opdef, [mapping[x] for x in node.inputs], name=node.name,
                              **attrs)
    return mapping


def _specialized(value, bindings, graph, memo):
    """A control node's attr at concrete sizes: its sub-graph functions rebuilt."""
    if isinstance(value, tuple):
        return tuple(_specialized(v, bindings, graph, memo) for v in value)
    if hasattr(value, "specialize"):
        return value.specialize(bindings, graph, memo)
    return value


def _export(value):
    value = np.array(value)
    return value[()] if value.ndim == 0 else value
