"""Results whose size depends on values: the rows a boolean mask keeps, the positions
where a condition holds.

TF1 programs mask with computed conditions (``tf.boolean_mask(losses, labels > 0)``,
``tf.where(x > 0)``, ``x[i:j]`` with computed bounds).  Their result's length is a
Dim made when the op is traced (``attrs["size"]``, named after the node, ``k_...``);
the reference evaluator binds it when the op runs (``binds_sizes``), and it flows
into every later shape as a placeholder's ``None`` does.

- ``mask_rows(x, mask)``: the entries of ``x`` where ``mask`` (a boolean tensor of x's
  leading axes) is True, in C order: shape ``(K,) + x.shape[mask.ndim:]``.
- ``unmask_rows(g, mask)``: zeros of shape ``mask.shape + g.shape[1:]`` with g's rows
  where ``mask`` is True -- mask_rows's transpose, and so its gradient (TF's too).
- ``nonzero(cond)``: the positions where ``cond`` is True, ``(K, cond.ndim)`` int64
  (``tf.where`` with one argument); no gradient.
- ``arange_of(n)``: ``0, 1, ..., n-1`` for a count computed in the graph; its size
  stands for n in shape arguments (``tf.fill([n], x)``, ``tf.range(n)``).

``sg.compile``, ``jacobian`` and sparsity need sizes known from the inputs and
refuse such graphs with a message that says so; closed forms are not expanded.

Imports numpy, the graph and ``ops.base``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Dim
from .base import REGISTRY, Example, F, Op, apply, register


def _mask_shape(in_shapes, size=None):
    x, mask = in_shapes
    if len(mask) > len(x) or any(not (a == b or isinstance(a, Dim) or isinstance(b, Dim))
                                 for a, b in zip(x, mask)):
        raise ShapeError(f"boolean_mask: a mask of shape {tuple(mask)} does not match the "
                         f"leading axes of shape {tuple(x)}")
    return (size,) + tuple(x[len(mask):])


def _mask_rows(x, mask, size=None):
    return np.asarray(x)[np.asarray(mask, dtype=bool)]


def _unmask_rows(g, mask):
    mask = np.asarray(mask, dtype=bool)
    g = np.asarray(g)
    out = np.zeros(mask.shape + g.shape[1:], dtype=g.dtype)
    out[mask] = g
    return out


def _no_closed_form(node, *arrays):
    raise TypeError(f"{node.opdef.name}: the size of its result depends on values; it has no "
                    "closed form")


def _first_dtype(dtypes, **attrs):
    return dtypes[0]


_MASK = np.array([True, False, True, True])
register(Op("mask_rows", kind="special", shape=_mask_shape, impl=_mask_rows,
            symbolic=_no_closed_form, dtype=_first_dtype,
            grad=lambda node, g: [F.unmask_rows(g, node.inputs[1]), None],
            examples=[Example((4, 2), _MASK), Example((4,), _MASK)],
            doc="the entries where a boolean mask is True (tf.boolean_mask); its size is "
                "known when the mask's values are"))
register(Op("unmask_rows", kind="special",
            shape=lambda in_shapes: tuple(in_shapes[1]) + tuple(in_shapes[0][1:]),
            impl=_unmask_rows, symbolic=_no_closed_form, dtype=_first_dtype,
            grad=lambda node, g: [F.mask_rows(g, node.inputs[1],
                                              size=node.inputs[0].shape[0]), None],
            examples=[Example((3, 2), _MASK), Example((3,), _MASK)],
            doc="rows placed where a boolean mask is True, zeros elsewhere (boolean_mask's "
                "gradient)"))
register(Op("nonzero", kind="special",
            shape=lambda in_shapes, size=None: (size, len(in_shapes[0])),
            impl=lambda cond, size=None: np.argwhere(np.asarray(cond)).astype(np.int64),
            symbolic=_no_closed_form, dtype=lambda dtypes, **attrs: np.dtype(np.int64),
            grad=lambda node, g: [None],
            examples=[Example(np.array([[True, False], [False, True]]))],
            doc="the positions where a condition is True (tf.where with one argument)"))
def _arange_of(n, size=None):
    n = int(np.asarray(n))
    if n < 0:
        raise ShapeError(f"a size computed in the graph is negative ({n})")
    return np.arange(n, dtype=np.int64)


register(Op("arange_of", kind="special", shape=lambda in_shapes, size=None: (size,),
            impl=_arange_of, symbolic=_no_closed_form,
            dtype=lambda dtypes, **attrs: np.dtype(np.int64), grad=lambda node, g: [None],
            examples=[Example(np.array(4))],
            doc="0, 1, ..., n-1 for a count n computed in the graph (tf.range(n), a size in "
                "tf.fill or tf.zeros from values)"))
for _name in ("mask_rows", "nonzero", "arange_of"):
    REGISTRY[_name].binds_sizes = True     # the evaluator binds their new size
for _name in ("mask_rows", "nonzero", "unmask_rows", "arange_of"):
    REGISTRY[_name].value_sized = True     # sg.compile refuses graphs holding them


def sized_by_values(op, inputs, name=None, size=None):
    """``op`` (mask_rows, nonzero or arange_of) applied to ``inputs``; its new size is
    kept in ``attrs["size"]``, so every rebuild of the node (batched seeds, control
    flow) has the same one."""
    node = apply(op, list(inputs), name=name, size=size)
    node.attrs = dict(node.attrs, size=node.shape[0])
    return node


def size_from_values(count):
    """The Dim standing for the scalar integer tensor ``count`` (a size computed in the
    graph): the length of ``arange_of(count)``, bound when that node runs (the
    evaluator runs it for any shape holding the Dim)."""
    if count.shape != () or count.dtype.kind not in "iu":
        raise ShapeError(f"a size must be a scalar integer, got {count.name!r} of shape "
                         f"{count.shape} and dtype {count.dtype}")
    return sized_by_values("arange_of", [count]).shape[0]


def _batched_rows(node, inputs, batched, size):
    """mask_rows over a leading seed axis of x: the seed axis moved behind the mask's
    axes, masked, moved back; a mask per seed is unrolled (None)."""
    if batched[1]:
        return None
    x, k = inputs[0], node.inputs[1].ndim
    order = tuple(range(1, k + 1)) + (0,) + tuple(range(k + 1, x.ndim))
    picked = F.mask_rows(F.transpose(x, perm=order), inputs[1], size=node.shape[0])
    return F.transpose(picked, perm=(1, 0) + tuple(range(2, picked.ndim)))


def _batched_unmask(node, inputs, batched, size):
    """unmask_rows over a leading seed axis of g: the same moves the other way."""
    if batched[1]:
        return None
    g, k = inputs[0], node.inputs[1].ndim
    placed = F.unmask_rows(F.transpose(g, perm=(1, 0) + tuple(range(2, g.ndim))), inputs[1])
    order = (k,) + tuple(range(k)) + tuple(range(k + 1, placed.ndim))
    return F.transpose(placed, perm=order)


REGISTRY["mask_rows"].batch = _batched_rows
REGISTRY["unmask_rows"].batch = _batched_unmask


def size_binders(graph):
    """{size symbol: node} of the nodes of ``graph`` (and the graphs around it) that bind
    a size when they run; kept on each graph, extended as it grows."""
    found = {}
    while graph is not None:
        done, known = graph.__dict__.get("_size_binders", (0, {}))
        for node in graph.nodes[done:]:
            if getattr(node.opdef, "binds_sizes", False) and node.shape:
                # a Python call's every size is its own (set_shape's Nones); the others
                # make only their leading one
                new = node.shape if getattr(node.opdef, "runs_python", False) else \
                    node.shape[:1]
                for d in new:
                    if isinstance(d, Dim):
                        known.setdefault(d.symbol, node)   # the first one made
        graph._size_binders = (len(graph.nodes), known)
        found = {**known, **found}
        graph = graph.outer
    return found


def value_sized(nodes):
    """The first node among ``nodes`` whose size is read from values, or None."""
    return next((n for n in nodes if getattr(n.opdef, "value_sized", False)), None)

