"""TF1's segment reductions beyond the sums and means of ``tracing.selection``:
``tf.unsorted_segment_max``/``min``/``prod``/``sqrt_n`` and the sorted
``tf.segment_max``/``min``/``prod`` (graph networks pool messages with them).

Each is composed from differentiable primitives: a mask ``ids == s`` for every segment
s (shape [num_segments, rows]) selects the rows, the rest get the reduction's identity,
and ``reduce_max``/``reduce_min``/``reduce_prod`` reduce over the rows.  So the
gradients are TF's: max and min share ``g`` equally among the rows that tie for the
extreme (TF's ``_UnsortedSegmentMinOrMaxGrad``), prod gives each row the product of
the others in its segment (exact with zeros).

An empty segment holds what TF writes there: the dtype's lowest value for
``unsorted_segment_max`` (highest for ``min``), 1 for ``prod``, 0 for ``sqrt_n`` and
for the sorted ops' gaps (``segment_max`` of ids [0, 2] leaves row 1 at 0).

Sits in ``compat``; imports ``tracing`` and ``ops.draws`` (``iota_of``).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     m = tf.unsorted_segment_max([1.0, 5.0, 3.0], [1, 1, 0], num_segments=2)
...     with tf.Session() as sess:
...         print(sess.run(m))
[3. 5.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.kernel_notes import note
from ..errors import ShapeError
from ..graph import same_up_to_unknown
from ..ops.draws import iota_of
from ..tracing.selection import checked_sorted, segment_count, sorted_segments

__all__ = ["unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod",
           "unsorted_segment_sqrt_n", "segment_max", "segment_min", "segment_prod"]


def _extreme(dtype, highest):
    """The dtype's lowest (or highest) value: TF's fill for an empty max (min) segment."""
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return np.asarray(info.max if highest else info.min, dtype)


def _selected(data, segment_ids, num_segments, fill, what):
    """(``data``'s rows placed under each segment, ``fill`` elsewhere: shape
    [num_segments, rows, ...], the mask of shape [num_segments, rows, 1, ...])."""
    x, ids = _t.as_tensor(data), _t.as_tensor(segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: segment_ids must be integers, got {ids.dtype}")
    n = segment_count(num_segments, what)
    k = ids.ndim
    if not same_up_to_unknown(x.shape[:k], ids.shape):
        raise ShapeError(f"{what}: segment_ids of shape {ids.shape} must match the leading "
                         f"axes of data {x.shape}")
    rest = tuple(x.shape[k:])
    rows = _t.reshape(x, (-1,) + rest)
    flat = _t.reshape(ids, (-1,))
    mask = _t.equal(_t.expand_dims(flat, 0), _t.expand_dims(iota_of(x.graph, n, flat.dtype), 1))
    note(mask, "segment", [ids], num=n)   # (TF refuses an id >= n, drops negative ones)
    mask = _t.reshape(mask, mask.shape + (1,) * len(rest))
    filler = _t.cast(_t.constant(np.asarray(fill)), x.dtype)
    return _t.where(mask, _t.expand_dims(rows, 0), filler), mask


def unsorted_segment_max(data, segment_ids, num_segments, name=None):
    """``tf.unsorted_segment_max``: each segment's largest row (the dtype's lowest value
    for an empty segment, as TF)."""
    x = _t.as_tensor(data)
    picked, _ = _selected(x, segment_ids, num_segments, _extreme(x.dtype, False),
                          "unsorted_segment_max")
    return _t.reduce_max(picked, axis=1, name=name)


def unsorted_segment_min(data, segment_ids, num_segments, name=None):
    """``tf.unsorted_segment_min``: each segment's smallest row (the dtype's highest
    value for an empty segment, as TF)."""
    x = _t.as_tensor(data)
    picked, _ = _selected(x, segment_ids, num_segments, _extreme(x.dtype, True),
                          "unsorted_segment_min")
    return _t.reduce_min(picked, axis=1, name=name)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """``tf.unsorted_segment_prod``: each segment's product of rows (1 when empty)."""
    picked, _ = _selected(data, segment_ids, num_segments, 1, "unsorted_segment_prod")
    return _t.reduce_prod(picked, axis=1, name=name)


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """``tf.unsorted_segment_sqrt_n``: each segment's sum over sqrt(its row count), 0
    when empty."""
    picked, mask = _selected(data, segment_ids, num_segments, 0, "unsorted_segment_sqrt_n")
    counts = _t.reduce_sum(_t.cast(mask, picked.dtype), axis=1)
    return _t.div(_t.reduce_sum(picked, axis=1), _t.sqrt(_t.maximum(counts, 1.0)), name=name)


def _gaps_zero(out, ids, n, name):
    """``out`` with the rows of segments no id names set to 0 (TF's sorted ops), checked
    as TF's kernel checks run-time ids."""
    if isinstance(ids, np.ndarray):
        present = np.isin(np.arange(n), ids)
        if present.all():
            return checked_sorted(_t.identity(out, name=name) if name else out, ids)
        keep = _t.constant(present.reshape((n,) + (1,) * (out.ndim - 1)))
    else:   # ids computed in the graph: the segments some id names, from their counts
        counts = _t.unsorted_segment_sum(_t.ones_like(ids), ids, n)
        keep = _t.reshape(counts > 0, (n,) + (1,) * (out.ndim - 1))
    return checked_sorted(_t.where(keep, out, _t.zeros_like(out), name=name), ids)


def segment_max(data, segment_ids, name=None):
    """``tf.segment_max`` over sorted ids (rows of segments no id names are 0)."""
    ids, n = sorted_segments(segment_ids, "segment_max")
    return _gaps_zero(unsorted_segment_max(data, ids, n), ids, n, name)


def segment_min(data, segment_ids, name=None):
    """``tf.segment_min`` over sorted ids (rows of segments no id names are 0)."""
    ids, n = sorted_segments(segment_ids, "segment_min")
    return _gaps_zero(unsorted_segment_min(data, ids, n), ids, n, name)


def segment_prod(data, segment_ids, name=None):
    """``tf.segment_prod`` over sorted ids (1 in a gap)."""
    ids, n = sorted_segments(segment_ids, "segment_prod")
    out = unsorted_segment_prod(data, ids, n)
    return checked_sorted(_t.identity(out, name=name) if name else out, ids)
