"""``gather`` and ``gather_nd`` with ``batch_dims``: TF's per-example lookups, each
example of the leading ``batch_dims`` axes picking from its own slice of ``params``.

Both are reduced to the plain (``batch_dims=0``) ops of ``tracing.arrays``: the batch
axes are merged into one axis of size NB, and example k's ids address its rows by an
offset (``gather``: k * n over the merged batch-and-axis rows; ``gather_nd``: k as a
leading coordinate of every index tuple).  So the gradient is the plain ops' scatter-add,
and ids held in tensors keep TF's run-time range check (a note on the original ids:
an id outside ``[0, n)`` would otherwise select from a neighbouring example).

``arrays.gather``/``gather_nd`` call these with themselves as the plain op (so this
module does not import ``arrays``).

>>> from symgrad.tracing import Graph, constant, gather
>>> with Graph().as_default():
...     p = constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
...     gather(p, [[2, 0], [1, 1]], batch_dims=1).numpy().tolist()
[[3.0, 1.0], [5.0, 5.0]]
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Node, is_static, shape_size
from ..ops import normalize_axis
from .functions import _lift, cast, concat, reshape, transpose
from .kernel_notes import note
from .math_ops import named


def _batch_split(p, ids, batch_dims, what):
    """``batch_dims`` made non-negative, and the batch shape p and ids share."""
    b = batch_dims + ids.ndim if batch_dims < 0 else batch_dims
    if not 0 <= b <= min(ids.ndim, p.ndim):
        raise ShapeError(f"{what}: batch_dims={batch_dims} must be in [-{ids.ndim}, "
                         f"{ids.ndim}] for indices of rank {ids.ndim} (and at most the "
                         f"rank of params, {p.ndim})")
    batch = tuple(p.shape[:b])
    if tuple(ids.shape[:b]) != batch or not is_static(batch):
        raise ShapeError(f"{what}: the first batch_dims={b} axes of params {p.shape} and "
                         f"indices {ids.shape} must be equal and known")
    return b, batch


class _Ids:
    """Indices known when tracing (a numpy array) or held in a tensor, with the
    arithmetic both need (shape, reshape, adding offsets, a leading coordinate)."""

    def __init__(self, indices):
        self.node = indices if isinstance(indices, Node) else None
        self.value = None if self.node is not None else np.asarray(indices, dtype=np.int64)
        self.shape = tuple(self.node.shape if self.node is not None else self.value.shape)
        self.ndim = len(self.shape)

    def reshaped(self, shape):
        return reshape(self.node, shape) if self.node is not None else self.value.reshape(shape)

    def dtype(self):
        return self.node.dtype if self.node is not None else self.value.dtype


def gather_batched(params, indices, axis, batch_dims, name, gather):
    """``tf.gather(params, indices, axis=axis, batch_dims=batch_dims)``, batch_dims != 0,
    made of ``gather``, the plain op (``arrays.gather``)."""
    (p,) = _lift([params])
    ids = _Ids(indices)
    b, batch = _batch_split(p, ids, batch_dims, "gather")
    axis = normalize_axis(b if axis is None else axis, p.ndim, "gather")[0]
    if axis < b:
        raise ShapeError(f"gather: axis={axis} must be at least batch_dims={b}")
    nb, n = shape_size(batch), p.shape[axis]
    mid, rest, inner = p.shape[b:axis], p.shape[axis + 1:], ids.shape[b:]
    # [NB, n, mid..., rest...] with the batch and the gathered axis merged into rows
    perm = tuple(range(b)) + (axis,) + tuple(range(b, axis)) + tuple(range(axis + 1, p.ndim))
    rows = reshape(transpose(p, perm), (nb * n,) + mid + rest)
    offsets = (np.arange(nb) * n).reshape((nb,) + (1,) * len(inner))
    flat = ids.reshaped((nb,) + inner) + offsets.astype(ids.dtype())
    if ids.node is not None:   # (TF's range check reads the ids before the offsets)
        note(flat, "index", [ids.node, p], named=None, axis=axis, label="gather")
    picked = gather(rows, flat)   # [NB, inner..., mid..., rest...]
    i, m = len(inner), len(mid)
    order = (0,) + tuple(range(1 + i, 1 + i + m)) + tuple(range(1, 1 + i)) + \
        tuple(range(1 + i + m, picked.ndim))
    out = named(reshape(transpose(picked, order), batch + mid + inner + rest), name)
    if ids.node is not None:   # (the message names the result, as gather_nd's)
        flat.kernel_notes[0] = flat.kernel_notes[0]._replace(named=out)
    return out


def gather_nd_batched(params, indices, batch_dims, name, gather_nd):
    """``tf.gather_nd(params, indices, batch_dims=batch_dims)``, batch_dims != 0, made
    of ``gather_nd``, the plain op (``arrays.gather_nd``)."""
    (p,) = _lift([params])
    ids = _Ids(indices)
    b, batch = _batch_split(p, ids, batch_dims, "gather_nd")
    if b == ids.ndim:
        raise ShapeError(f"gather_nd: batch_dims={b} leaves no index tuples in indices "
                         f"of shape {ids.shape}")
    nb, inner = shape_size(batch), ids.shape[b:-1]
    lead = np.broadcast_to(np.arange(nb).reshape((nb,) + (1,) * (len(inner) + 1)),
                           (nb,) + inner + (1,))
    tail = ids.reshaped((nb,) + ids.shape[b:])
    tuples = (np.concatenate([lead, tail], -1) if ids.node is None else
              concat([cast(lead, ids.dtype()), tail], -1))
    picked = gather_nd(reshape(p, (nb,) + p.shape[b:]), tuples)
    return reshape(picked, batch + picked.shape[1:], name=name)
