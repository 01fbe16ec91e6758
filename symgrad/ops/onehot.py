"""Contractions with a one-hot tensor, computed without it (the reference evaluator).

Indices held in tensors select by a one-hot contraction (``tracing.arrays.gather``):
``einsum(params, one_hot(ids, V))`` is params' rows at ``ids``, and its gradient
``einsum(g, one_hot(ids, V))`` adds g's rows at ``ids``.  Made dense, both cost
O(V) per index: word2vec's lookups in a 50,000-word table (TF's ``word2vec_basic``)
took most of a 200 ms step.  Here the first is ``np.take`` and the second
``np.add.at``: O(1) per index, and the entries an index selects are its row's own
(a row of inf or nan elsewhere does not leak into them as ``inf * 0``).  An index
outside ``[0, V)`` selects zeros, as the one-hot row of zeros does.

``one_hot`` marks the tensors it makes (:func:`mark`: ids, depth; values 1 and 0,
the new axis last); the evaluator (``evaluate.fast_plan``) leaves such a tensor
uncomputed when every reader is a two-operand einsum that :func:`contract` handles.

Imports numpy only.

>>> params = np.arange(6.0).reshape(3, 2)
>>> contract("ab,ca->cb", [params, None], 1, np.array([2, 0, 7]), 3).tolist()
[[4.0, 5.0], [0.0, 1.0], [0.0, 0.0]]
>>> contract("cb,ca->ab", [np.ones((3, 2)), None], 1, np.array([2, 0, 2]), 3).tolist()
[[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError


class OneHot:
    """What ``one_hot`` made a tensor from: its ``ids`` node and ``depth``."""

    __slots__ = ("ids", "depth")

    def __init__(self, ids, depth):
        self.ids, self.depth = ids, depth


def mark(node, ids, depth):
    """Record on ``node`` that it is ``one_hot(ids, depth)`` (values 1 and 0, new axis last).
    Made in a cond branch or loop body from outer ids, it records the body's stand-in
    for them: the evaluator reads the ids among the body's values."""
    node.one_hot = OneHot(own(node, ids), int(depth))
    return node


def own(node, x):
    """``x`` as ``node``'s graph sees it: the stand-in a branch or loop body captured
    for a node of an enclosing graph (``tf.cond(p, lambda: tf.gather(table,
    outer_ids), ...)``), else ``x`` itself."""
    graph = node.graph
    return graph.capture(x) if x.graph is not graph and x.graph.encloses(graph) else x


def handles(subscripts, hot_position, ids_ndim):
    """Whether :func:`contract` computes ``einsum(subscripts)`` with its operand at
    ``hot_position`` one-hot (else the one-hot tensor is made and einsum runs)."""
    parts = _parts(subscripts)
    if parts is None or len(parts[0]) != 2:
        return False
    terms, out = parts
    a, h = terms[1 - hot_position], terms[hot_position]
    if len(h) != ids_ndim + 1 or any(len(set(s)) != len(s) for s in (a, h, out)):
        return False
    depth, ids = h[-1], h[:-1]
    if (depth in a) == (depth in out):   # (read by both or by neither: the dense einsum)
        return False
    if depth in a:   # a gather: no diagonal between ids and a
        return not set(ids) & set(a)
    return set(ids) <= set(a)   # a scatter: ids' axes come from a


def contract(subscripts, operands, hot_position, ids, depth):
    """``np.einsum(subscripts, *operands)`` with ``operands[hot_position]`` the one-hot
    tensor of integer ``ids`` over ``depth`` classes (``handles`` said yes)."""
    (terms, out) = _parts(subscripts)
    a_letters, h_letters = terms[1 - hot_position], terms[hot_position]
    a = np.asarray(operands[1 - hot_position])
    depth_letter, id_letters = h_letters[-1], h_letters[:-1]
    ids = np.asarray(ids).astype(np.int64, copy=False)
    valid = (ids >= 0) & (ids < depth)
    safe = np.where(valid, ids, 0)
    if depth_letter in a_letters:
        return _gather(a, a_letters, depth_letter, id_letters, out, safe, valid)
    return _scatter(a, a_letters, depth_letter, id_letters, out, safe, valid, depth)


def _gather(a, a_letters, depth_letter, id_letters, out, safe, valid):
    axis = a_letters.index(depth_letter)
    taken = np.take(a, safe, axis=axis)
    if not valid.all():
        shape = [1] * taken.ndim
        shape[axis:axis + valid.ndim] = valid.shape
        taken = np.where(valid.reshape(shape), taken, a.dtype.type(0))
    letters = a_letters[:axis] + id_letters + a_letters[axis + 1:]
    return np.einsum(f"{letters}->{out}", taken)


def _scatter(a, a_letters, depth_letter, id_letters, out, safe, valid, depth):
    sizes = dict(zip(a_letters, a.shape))
    sizes.update(zip(id_letters, safe.shape))
    sizes[depth_letter] = depth
    kept = [c for c in out if c in id_letters]      # index axes the output keeps
    rest = [c for c in out if c != depth_letter and c not in id_letters]
    values = np.einsum(f"{a_letters}->{id_letters}{''.join(rest)}", a)
    if values.shape[:safe.ndim] != safe.shape:   # (a size known only now: TF's check)
        raise ShapeError(f"segment_ids of shape {list(safe.shape)} do not match the "
                         f"leading axes of data of shape {list(values.shape)}")
    total = np.zeros(tuple(sizes[c] for c in out), dtype=values.dtype)
    front = [out.index(depth_letter)] + [out.index(c) for c in kept]
    view = np.moveaxis(total, front, list(range(len(front))))
    flat = values.reshape((safe.size,) + values.shape[safe.ndim:])
    where_ids = np.unravel_index(np.arange(safe.size), safe.shape) if safe.ndim else ()
    index = (safe.ravel(),) + tuple(where_ids[id_letters.index(c)] for c in kept)
    keep = valid.ravel()
    if not keep.all():
        index, flat = tuple(i[keep] for i in index), flat[keep]
    np.add.at(view, index, flat)
    return total


def _parts(subscripts):
    if "." in subscripts or "->" not in subscripts:
        return None
    left, out = subscripts.replace(" ", "").split("->")
    return left.split(","), out
