"""More of TF1's sparse ops: the ``sparse_segment_*`` reductions of dense data, the
dense ``sparse_to_dense``, and ops on ``tf.SparseTensor`` whose dense shape is known
when the graph is built (``sparse_to_indicator``, ``sparse_retain``, ``sparse_reorder``,
``sparse_transpose``, ``sparse_concat``, ``sparse_add`` of a sparse and a dense tensor,
``sparse_reduce_max``, ``sparse_softmax``).

- ``sparse_segment_sum(data, indices, segment_ids)``: ``segment_sum(gather(data,
  indices), segment_ids)``; ``_mean`` divides each segment by its count, ``_sqrt_n`` by
  the count's square root (0 for an empty segment); ``num_segments``, else the last
  segment id + 1 (known when the ids are), gives the number of rows.
- ``sparse_reduce_max`` reduces the stored values only; an output position no value
  reaches holds the dtype's lowest value (TF's kernel starts from it).  symgrad differs:
  its gradient reaches the maxima (TF registers none).
- ``sparse_softmax``: a softmax over the stored values of each row (all axes but the
  last); gradients flow to the values.
- Results that are sparse keep TF's row-major order of indices.

Sits in ``compat``; imports ``tracing``, ``sparse``, ``segments`` and ``sorting``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.sparse_segment_sum([[1.0, 2.0], [3.0, 4.0]], [1, 0, 1], [0, 0, 1])
...     print(tf.Session().run(y).tolist())
[[4.0, 6.0], [3.0, 4.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from ..tracing.arrays import known_now, static_value
from .sparse import SparseTensor, _check, sparse_tensor_to_dense
from ..tracing.selection import checked_sorted, segment_count, sorted_segments
from .segments import unsorted_segment_max
from .sorting import argsort

__all__ = ["sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n",
           "sparse_to_dense", "sparse_to_indicator", "sparse_retain", "sparse_reorder",
           "sparse_transpose", "sparse_concat", "sparse_add", "sparse_reduce_max",
           "sparse_softmax"]


def _lift(x):
    return _t.functions._lift([x])[0]


def _segments(data, indices, segment_ids, num_segments, what):
    rows = _t.gather(_lift(data), _t.cast(_lift(indices), np.int64))
    raw = _lift(segment_ids)
    ids = _t.cast(raw, np.int64)
    if num_segments is None:   # the last id + 1, known now or when the ids are fed
        n = sorted_segments(raw, what)[1]
    else:
        n = segment_count(num_segments, what)
    counts = _t.unsorted_segment_sum(_t.ones_like(ids, dtype=rows.dtype), ids, n)
    total = _t.unsorted_segment_sum(rows, ids, n)
    return checked_sorted(total, None if known_now(raw) else raw), counts, rows.ndim


def _per_segment(total, scale, ndim, name):
    scale = _t.reshape(scale, [-1] + [1] * (ndim - 1))
    safe = _t.where(_t.greater(scale, 0.0), scale, _t.ones_like(scale))
    return _t.divide(total, safe, name=name)


def sparse_segment_sum(data, indices, segment_ids, name=None, num_segments=None):
    """Sums of the rows ``data[indices]`` grouped by ``segment_ids``."""
    total, _, _ = _segments(data, indices, segment_ids, num_segments, "sparse_segment_sum")
    return _t.identity(total, name=name)


def sparse_segment_mean(data, indices, segment_ids, name=None, num_segments=None):
    """Means of the rows ``data[indices]`` grouped by ``segment_ids``."""
    total, counts, ndim = _segments(data, indices, segment_ids, num_segments,
                                    "sparse_segment_mean")
    return _per_segment(total, counts, ndim, name)


def sparse_segment_sqrt_n(data, indices, segment_ids, name=None, num_segments=None):
    """Sums of the rows ``data[indices]`` per segment over the square root of its count."""
    total, counts, ndim = _segments(data, indices, segment_ids, num_segments,
                                    "sparse_segment_sqrt_n")
    return _per_segment(total, _t.sqrt(counts), ndim, name)


def sparse_to_dense(sparse_indices, output_shape, sparse_values, default_value=0,
                    validate_indices=True, name=None):
    """The dense tensor of ``output_shape`` with ``sparse_values`` at ``sparse_indices``
    (a scalar, [N] or [N, rank]) and ``default_value`` elsewhere."""
    shape = [int(d) for d in np.reshape(static_value(output_shape, "sparse_to_dense"), -1)]
    idx = _t.cast(_lift(sparse_indices), np.int64)
    idx = _t.reshape(idx, [-1, 1] if idx.ndim < 2 else [-1, int(idx.shape[-1])])
    values = _lift(sparse_values)
    values = values + _t.zeros([_t.shape(idx)[0]], values.dtype) if values.ndim == 0 else values
    spread = _t.scatter_nd(idx, values, shape)
    hit = _t.scatter_nd(idx, _t.ones_like(values, dtype=np.float32), shape)
    default = _t.cast(default_value, values.dtype)
    return _t.where(_t.greater(hit, 0.0), spread, _t.zeros_like(spread) + default, name=name)


def _static(sp, what):
    shape = _check(sp, what).static_shape()
    if shape is None:
        raise ValueError(f"tf.{what}: the SparseTensor's dense shape must be known when the "
                         "graph is built")
    return shape


def _rows_of(indices, shape):
    """The row-major number of each entry's position among all axes but the last."""
    strides = np.cumprod((tuple(shape[1:-1]) + (1,))[::-1])[::-1].astype(np.int64)
    row = None
    for j, stride in enumerate(strides):
        term = indices[:, j] * int(stride)
        row = term if row is None else row + term
    return row if row is not None else _t.zeros_like(indices[:, 0])


def _linear(indices, shape):
    strides = np.cumprod((tuple(shape[1:]) + (1,))[::-1])[::-1].astype(np.int64)
    return _t.reduce_sum(indices * _t.constant(strides), 1)


def sparse_to_indicator(sp_input, vocab_size, name=None):
    """Dense booleans [..., vocab_size]: True where a row's ids (the values) include it."""
    shape = _static(sp_input, "sparse_to_indicator")
    n_rows = int(np.prod(shape[:-1]))
    hot = _t.one_hot(sp_input.values, int(vocab_size), dtype=np.float32)
    seen = unsorted_segment_max(hot, _rows_of(sp_input.indices, shape), n_rows)
    return _t.reshape(_t.greater(seen, 0.0), list(shape[:-1]) + [int(vocab_size)], name=name)


def sparse_retain(sp_input, to_retain):
    """The entries where ``to_retain`` (booleans [N]) is True."""
    shape = _static(sp_input, "sparse_retain")
    keep = _lift(to_retain)
    if keep.shape is None:
        raise ArgumentError(f"sparse_retain: to_retain {keep.name!r} has an unknown rank (it "
                            "is computed from a placeholder made without a shape); give that "
                            "placeholder its shape, e.g. tf.placeholder(tf.int32, [1])")
    indices = _t.boolean_mask(sp_input.indices, keep)
    # (one count of kept entries for both: each mask would make its own size)
    values = _t.reshape(_t.boolean_mask(sp_input.values, keep), [indices.shape[0]])
    return SparseTensor(indices, values, list(shape))


def sparse_reorder(sp_input, name=None):
    """The same entries with indices in row-major order."""
    shape = _static(sp_input, "sparse_reorder")
    order = argsort(_linear(sp_input.indices, shape))
    return SparseTensor(_t.gather(sp_input.indices, order), _t.gather(sp_input.values, order),
                        list(shape))


def sparse_transpose(sp_input, perm=None, name=None):
    """The entries with their index columns permuted (reversed by default), reordered."""
    shape = _static(sp_input, "sparse_transpose")
    perm = list(range(len(shape)))[::-1] if perm is None else \
        [int(p) for p in np.reshape(static_value(perm, "sparse_transpose(perm)"), -1)]
    moved = _t.gather(sp_input.indices, perm, axis=1)
    return sparse_reorder(SparseTensor(moved, sp_input.values, [shape[p] for p in perm]))


def sparse_concat(axis, sp_inputs, name=None, expand_nonconcat_dim=False, concat_dim=None,
                  expand_nonconcat_dims=None):
    """The SparseTensors side by side along ``axis`` (the other sizes must agree)."""
    axis = int(concat_dim if concat_dim is not None else axis)
    shapes = [_static(sp, "sparse_concat") for sp in sp_inputs]
    rank = len(shapes[0])
    axis %= rank
    others = {tuple(s[:axis] + s[axis + 1:]) for s in shapes}
    if len(others) > 1 and not (expand_nonconcat_dim or expand_nonconcat_dims):
        raise ValueError(f"tf.sparse_concat: the sizes off axis {axis} differ: {shapes}")
    offsets = np.cumsum([0] + [s[axis] for s in shapes[:-1]])
    shifted = [sp.indices + _t.constant(np.eye(rank, dtype=np.int64)[axis] * int(off))
               for sp, off in zip(sp_inputs, offsets)]
    out_shape = [max(s[d] for s in shapes) for d in range(rank)]
    out_shape[axis] = int(sum(s[axis] for s in shapes))
    merged = SparseTensor(_t.concat(shifted, 0), _t.concat([sp.values for sp in sp_inputs], 0),
                          out_shape)
    return sparse_reorder(merged)


def sparse_add(a, b, threshold=0, thresh=None):
    """A SparseTensor plus a dense tensor: the dense sum (TF's result for that case)."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        raise ValueError("tf.sparse_add of two SparseTensors is not supported in symgrad; "
                         "add their dense forms (tf.sparse_tensor_to_dense) instead")
    sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
    return _t.add(sparse_tensor_to_dense(sp), dense)


def sparse_reduce_max(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None):
    """The largest stored value (over ``axis``; all axes by default); 0 where no value
    is stored, as TF."""
    shape = _static(sp_input, "sparse_reduce_max")
    axis = reduction_axes if axis is None else axis
    keep = bool(keep_dims if keepdims is None else keepdims)
    values = sp_input.values
    if axis is None:
        top = _t.reduce_max(values)
        return _t.reshape(top, [1] * len(shape), name=name) if keep else _t.identity(top, name=name)
    axes = sorted({int(a) % len(shape) for a in np.reshape(axis, -1)})
    kept = [d for d in range(len(shape)) if d not in axes]
    out = [shape[d] for d in kept]
    strides = np.cumprod((tuple(out[1:]) + (1,))[::-1])[::-1].astype(np.int64)
    group = _t.reduce_sum(_t.gather(sp_input.indices, kept, axis=1) * _t.constant(strides), 1) \
        if kept else _t.zeros_like(sp_input.indices[:, 0])
    n = int(np.prod(out))
    reduced = unsorted_segment_max(values, group, n)
    # an output entry no stored value reaches is 0 (TF's), not the dtype's lowest value
    stored = _t.unsorted_segment_sum(_t.ones_like(group, dtype=np.int64), group, n)
    reduced = _t.where(_t.greater(stored, 0), reduced, _t.zeros_like(reduced))
    full = [1 if d in axes else shape[d] for d in range(len(shape))] if keep else out
    return _t.reshape(reduced, full, name=name)


def sparse_softmax(sp_input, name=None):
    """A SparseTensor of the same entries: a softmax over each row's stored values."""
    shape = _static(sp_input, "sparse_softmax")
    rows, n = _rows_of(sp_input.indices, shape), int(np.prod(shape[:-1]))
    values = sp_input.values
    top = _t.stop_gradient(_t.gather(unsorted_segment_max(values, rows, n), rows))
    e = _t.exp(values - top)
    out = e / _t.gather(_t.unsorted_segment_sum(e, rows, n), rows)
    return SparseTensor(sp_input.indices, out, list(shape))
