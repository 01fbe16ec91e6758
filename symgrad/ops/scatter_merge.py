"""Cotangent terms that are scatters into zeros of one shape (``index_add``, the adjoint
of ``index``), fused before a reverse sweep sums them (``Op.merge``):

- scatters at integer points (x[0], x[1], ... used apart) become one scatter of the
  stacked terms at an index array;
- scatters into disjoint slices along one axis (tf.split's parts) become one concat,
  with zeros where no part reads.

Imports the graph's Dim and ``ops.base``.
"""
from __future__ import annotations

import numpy as np

from ..graph import Dim, is_static
from .base import REGISTRY, F, derived_node, filled


def merge_scatters(nodes):
    """Cotangent terms that are scatters into zeros of one shape, fused before they are
    summed: at integer points (one scatter of the stacked terms) and into disjoint
    slices along one axis (a concat)."""
    return _merge_slice_scatters(_merge_point_scatters(nodes))


def _merge_point_scatters(nodes):
    # The gradient of x[0], x[1], ..., x[n-1] used separately is n scatters into zeros
    # of x's shape: summing them costs n * size(x).  Scatters at integer points of the
    # same shape fuse into one scatter of the stacked cotangents at an index array.
    groups, out = {}, []
    for n in nodes:
        index = n.attrs["index"]
        if index and all(isinstance(i, int) for i in index):
            groups.setdefault((tuple(n.attrs["shape"]), len(index)), []).append(n)
        else:
            out.append(n)
    for (shape, m), group in groups.items():
        if len(group) == 1:
            out.extend(group)
            continue
        rows = [_as_row(n.inputs[0]) for n in group]
        stacked = F.concat(*rows, axis=0)
        index = tuple(np.array([n.attrs["index"][j] for n in group], dtype=np.int64)
                      for j in range(m))
        out.append(F.index_add(stacked, shape=shape, index=index))
    return out


def _merge_slice_scatters(nodes):
    # The gradient of the parts of tf.split(x, 4, axis) (an LSTM's gates) is four
    # scatters into zeros of x's shape, each the size of x, then three additions of
    # that size; their sum is the concat of the parts' cotangents (and zeros where no
    # part reads), one pass that the compiled kernel writes in place.  The terms keep
    # their order (the concat where its first part was): sums are made in that order.
    groups = {}
    for n in nodes:
        found = _slice_run(n)
        if found is not None:
            groups.setdefault((tuple(n.attrs["shape"]), found[0], n.dtype), []).append(
                (found[1], found[2], n))
    replaced = {}
    for (shape, axis, dtype), group in groups.items():
        concat = _concat_of(sorted(group, key=lambda item: item[0]), shape, axis, dtype)
        if concat is not None:
            replaced.update((n, None) for _, _, n in group)
            replaced[group[0][2]] = concat
    return [replaced.get(n, n) for n in nodes if replaced.get(n, n) is not None]


def _concat_of(group, shape, axis, dtype):
    """The concat equal to the sum of ``group``'s scatters (sorted by start), or None
    when they overlap, are one, or leave gaps at sizes known only at run time."""
    if len(group) == 1 or any(a[1] > b[0] for a, b in zip(group, group[1:])):
        return None
    gaps = group[0][0] > 0 or group[-1][1] < shape[axis] or \
        any(a[1] < b[0] for a, b in zip(group, group[1:]))
    if gaps and not is_static(shape):
        return None
    graph, pieces, at = group[0][2].graph, [], 0
    for start, stop, n in group:
        if start > at:
            pieces.append(filled(graph, 0, shape[:axis] + (start - at,) + shape[axis + 1:], dtype))
        pieces.append(n.inputs[0])
        at = stop
    if at < shape[axis]:
        pieces.append(filled(graph, 0, shape[:axis] + (shape[axis] - at,) + shape[axis + 1:],
                             dtype))
    return F.concat(*pieces, axis=axis)


def _slice_run(node):
    """(axis, start, stop) when the scatter ``node`` adds its whole input into
    ``[start, stop)`` along one axis of known size (every other axis whole), else None."""
    shape, index = tuple(node.attrs["shape"]), node.attrs["index"]
    if not isinstance(index, tuple) or len(index) > len(shape) or \
            not all(isinstance(i, slice) for i in index):
        return None
    found = None
    for axis, (part, d) in enumerate(zip(index, shape)):
        if isinstance(d, Dim):   # (a size known at run time: only whole)
            if (part.start, part.stop, part.step) not in ((None, None, None), (None, None, 1)):
                return None
            continue
        start, stop, step = part.indices(d)
        if (start, stop, step) == (0, d, 1):
            continue
        if step != 1 or stop <= start or found is not None:
            return None
        found = (axis, start, stop)
    g = node.inputs[0]
    if found is None or g.dtype != node.dtype or \
            g.shape != shape[:found[0]] + (found[2] - found[1],) + shape[found[0] + 1:]:
        return None
    return found


def _as_row(g):
    # g reshaped to (1,) + g.shape: the size cannot differ, so no rule is asked
    shape = (1,) + g.shape
    return derived_node(REGISTRY["reshape"], [g], {"shape": shape}, shape, g.dtype)
