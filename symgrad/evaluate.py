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

import numpy as np

from .errors import FeedError, NotATensorError, ShapeError
from .graph import Node
from .ops import cast_value, check_value


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
        if arr.shape != key.shape:
            hint = (" (it was created without a shape, which symgrad reads as a scalar: "
                    "pass shape=... to placeholder)" if key.attrs.get("unspecified_shape")
                    else "")
            raise FeedError(f"feed_dict: {key.name!r} has shape {key.shape} but the value fed "
                            f"has shape {arr.shape}{hint}")
        feeds[key] = np.array(cast_value(arr, key.dtype, f"the value fed for {key.name!r}",
                                         FeedError))
    return feeds


def needed(outputs, feeds=()):
    """Nodes needed to compute ``outputs``, stopping at fed nodes, in topological order."""
    seen, stack = set(), [n for n in outputs if n is not None]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            if node not in feeds:
                stack.extend(node.inputs)
    return sorted(seen, key=lambda n: n.id)


def leaf_value(node, feeds):
    """The value of a leaf: its feed, else its stored value; FeedError if a placeholder is unfed."""
    if node in feeds:
        return feeds[node]
    if node.value is None:
        raise FeedError(f"placeholder {node.name!r} (shape {node.shape}) was not fed; pass "
                        f"feed_dict={{{node.name}: value}} when evaluating")
    return node.value


def run(outputs, feeds):
    """Compute every node needed for ``outputs``; returns {node: ndarray}."""
    values = {}
    with np.errstate(all="ignore"):
        for node in needed(outputs, feeds):
            if node in feeds or not node.inputs and node.op.kind == "leaf":
                values[node] = np.asarray(leaf_value(node, feeds))
                continue
            out = np.asarray(node.op.impl(*[values[x] for x in node.inputs], **node.attrs))
            if out.shape != node.shape:
                raise ShapeError(f"internal: {node.op.name} produced shape {out.shape}, "
                                 f"expected {node.shape} (node {node.name!r})")
            values[node] = out.astype(node.dtype, copy=False)
    return values


def evaluate(fetches, feed_dict=None):
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
    values = run([n for n in flat if n is not None], feeds)
    return rebuild([None if n is None else _export(values[n]) for n in flat])


def _export(value):
    value = np.array(value)
    return value[()] if value.ndim == 0 else value
