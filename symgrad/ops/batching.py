"""Batching rules: an op applied to inputs that carry a leading seed axis.

``batch_node(node, inputs, batched, size)`` rebuilds ``node`` over new inputs of
which some (``batched[i]``) have an extra leading axis of length ``size``; the
result has shape ``(size,) + node.shape``.  This is how Jacobians and Hessians
become one sweep over a batch of seed vectors (a loop over seeds when compiled)
instead of one sweep per row.

Rules are by kind (every elementwise op) or per op (``op.batch``, set below for
the ops that have axis, shape or index attributes, and for the matrix functions,
which already map over leading axes).  An op without a rule (the control-flow
ops, whose bodies are sub-graphs) is unrolled: applied to each seed's slice and
stacked, which is correct for any op but makes the graph ``size`` times larger;
over a size known only at run time (a Dim) it cannot be, and raises.
``batch_rule(op)`` says which rule an op has; the registry test lists the ops
without one.

The seeds of a Jacobian share one evaluation of the program: a random draw gives
them the same numbers.  ``map_fn``'s rows are separate runs of its function:
``batched_nodes(..., fresh=True)`` gives each its own numbers (``op.fresh``).
A batched graph that will itself be differentiated (map_fn's) must not use an op
whose rule keeps only its value (:func:`keeps_gradient`).

>>> import numpy as np
>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.constant(np.ones((2, 3)))
...     s = t.reduce_sum(x, axis=1)
...     batch_node(s, [t.constant(np.ones((4, 2, 3)))], [True], 4).shape
(4, 2)
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import ancestors
from .base import REGISTRY, F, apply, literal, normalize_axis


def spread(x, size):
    """``x`` copied along a new leading axis of ``size`` (a value every seed shares)."""
    return F.broadcast_to(F.reshape(x, shape=(1,) + tuple(x.shape)),
                          shape=(size,) + tuple(x.shape))


def _pad(x, ndim):
    """A batched ``x`` of shape (B,) + s with 1s inserted after B up to rank ``ndim``."""
    extra = ndim - (x.ndim - 1)
    return x if extra <= 0 else F.reshape(x, shape=x.shape[:1] + (1,) * extra + x.shape[1:])


def _spread(inputs, batched, size):
    """Unbatched inputs broadcast along a new leading axis (for ops that need every input)."""
    return [x if b else spread(x, size) for x, b in zip(inputs, batched)]


def _elementwise(node, inputs, batched, size):
    ins = [_pad(x, node.ndim) if b else x for x, b in zip(inputs, batched)]
    return apply(node.opdef, ins, **node.attrs)


def _shift_axis(node, inputs, batched, size):
    attrs = dict(node.attrs)
    attrs["axis"] = tuple(a + 1 for a in attrs["axis"])
    return apply(node.opdef, _spread(inputs, batched, size), **attrs)


def _reshape(node, inputs, batched, size):
    return F.reshape(inputs[0], shape=(size,) + tuple(node.attrs["shape"]))


def _transpose(node, inputs, batched, size):
    return F.transpose(inputs[0], perm=(0,) + tuple(p + 1 for p in node.attrs["perm"]))


def _broadcast_to(node, inputs, batched, size):
    return F.broadcast_to(_pad(inputs[0], node.ndim),
                          shape=(size,) + tuple(node.attrs["shape"]))


def _concat(node, inputs, batched, size):
    return F.concat(*_spread(inputs, batched, size), axis=node.attrs["axis"] + 1)


def _index(node, inputs, batched, size):
    return F.index(inputs[0], index=(slice(None),) + tuple(node.attrs["index"]))


def _index_add(node, inputs, batched, size):
    return F.index_add(inputs[0], shape=(size,) + tuple(node.attrs["shape"]),
                       index=(slice(None),) + tuple(node.attrs["index"]))


def _matmul(node, inputs, batched, size):
    ins = [_pad(x, node.ndim) if b else x for x, b in zip(inputs, batched)]
    return F.matmul(*ins)


def _einsum(node, inputs, batched, size):
    from .linalg import parse_subscripts
    parts, out = parse_subscripts(node.attrs["subscripts"], len(inputs))
    used = set("".join(parts))
    letter = next(c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA"
                  if c not in used)
    parts = [letter + p if b else p for p, b in zip(parts, batched)]
    return F.einsum(*inputs, subscripts=",".join(parts) + "->" + letter + out)


def unrolled(node, inputs, batched, size):
    """The rule of last resort: the op applied to each seed's slice, stacked."""
    if not isinstance(size, (int, np.integer)):
        raise ShapeError(f"{node.opdef.name} ({node.name!r}) has no batching rule that "
                         "applies here, and a batch whose size is known only at run time "
                         "cannot be unrolled")
    rows = []
    for k in range(size):
        ins = [F.index(x, index=(k,)) if b else x for x, b in zip(inputs, batched)]
        out = apply(node.opdef, ins, **node.attrs)
        rows.append(F.reshape(out, shape=(1,) + out.shape))
    return rows[0] if size == 1 else F.concat(*rows, axis=0)


def _leading(node, inputs, batched, size):
    # matrix functions act on the last two axes of any batch of matrices
    return apply(node.opdef, _spread(inputs, batched, size), **node.attrs)


def _dim_size(node, inputs, batched, size):
    # the same count for every seed (it reads the shape, not the values)
    axis = normalize_axis(node.attrs["axis"], node.inputs[0].ndim)
    count = apply(node.opdef, [inputs[0]], axis=tuple(a + 1 for a in axis))
    return F.broadcast_to(F.reshape(count, shape=(1,)), shape=(size,))


def _same_numbers(node, inputs, batched, size):
    # every seed reads the same numbers (they depend on the shape, not the values)
    one = F.index(inputs[0], index=(0,)) if batched[0] else inputs[0]
    out = apply(node.opdef, [one], **node.attrs)
    return spread(out, size)


def _own_numbers(node, size):
    # one draw of (size,) + shape: member k reads the k-th block of the key's stream
    zero = literal(node.graph, np.zeros((), np.float64))
    shape = F.broadcast_to(zero, shape=(size,) + tuple(node.shape))
    return apply(node.opdef, [shape], **node.attrs)


def _value_only(node, inputs, batched, size):
    # a user's gradient function builds graph for the one call it was given
    return _spread(inputs, batched, size)[-1]   # its value is its last input's


def keeps_gradient(op):
    """False for an op whose batching rule keeps its value but not its derivative."""
    return batch_rule(op) is not _value_only


def batch_rule(op):
    """The batching rule of ``op`` (by kind or its own ``op.batch``), or None."""
    rule = getattr(op, "batch", None)
    if rule is None and op.kind == "elementwise":
        rule = _elementwise
    return rule


def batched_nodes(outputs, replaced, size, fresh=False):
    """Every node below ``outputs`` that reads one of ``replaced`` ({node: its stand-in
    with a leading axis of ``size``}) rebuilt over that axis: {node: batched node},
    ``replaced`` included.  (A Jacobian's seeds, a loop body's batched parameters.)
    ``fresh``: the members are separate runs, so an op that draws numbers
    (``op.fresh``) draws them for each member, whatever it reads (map_fn's rows)."""
    new = dict(replaced)
    for node in ancestors(outputs):
        if node in new:
            continue
        draw = getattr(node.opdef, "fresh", None) if fresh else None
        if draw is not None:
            new[node] = draw(node, size)
        elif any(x in new for x in node.inputs):
            new[node] = batch_node(node, [new.get(x, x) for x in node.inputs],
                                   [x in new for x in node.inputs], size)
    return new


def batch_node(node, inputs, batched, size):
    """``node`` rebuilt over ``inputs`` (those flagged in ``batched`` lead with ``size``)."""
    rule = batch_rule(node.opdef)
    want = (size,) + node.shape
    if rule is not None:
        try:
            out = rule(node, inputs, batched, size)
        except Exception:  # noqa: BLE001 (an index pattern the rule cannot shift)
            out = None
        if out is not None and out.shape == want:
            return out
    return unrolled(node, inputs, batched, size)


for _name in ("reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "softmax", "logsumexp"):
    REGISTRY[_name].batch = _shift_axis
REGISTRY["reshape"].batch = _reshape
REGISTRY["transpose"].batch = _transpose
REGISTRY["broadcast_to"].batch = _broadcast_to
REGISTRY["concat"].batch = _concat
REGISTRY["index"].batch = _index
REGISTRY["index_add"].batch = _index_add
REGISTRY["matmul"].batch = _matmul
REGISTRY["einsum"].batch = _einsum
for _name in ("matrix_inverse", "det", "log_abs_det", "cholesky", "eigh", "eigvalsh", "svd",
              "singular_values", "qr"):
    REGISTRY[_name].batch = _leading
REGISTRY["dim_size"].batch = _dim_size
REGISTRY["random_draw"].batch = _same_numbers
REGISTRY["positions"].batch = _same_numbers
REGISTRY["random_draw"].fresh = _own_numbers
REGISTRY["custom_gradient"].batch = _value_only
