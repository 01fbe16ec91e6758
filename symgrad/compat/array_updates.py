"""TF 1.13-1.15 ops for updating and selecting inside tensors: ``tf.tensor_scatter_nd_update``
(``tf.tensor_scatter_update``), ``_add``, ``_sub``, ``tf.batch_gather`` and
``tf.switch_case``, composed from ``scatter_nd``, ``where``, ``gather_nd`` and ``tf.case``.

- ``tensor_scatter_nd_update(tensor, indices, updates)``: ``tensor`` with the entries (or
  slices) at ``indices`` replaced; the tensor gets the gradient where nothing was
  written, the updates the gradient at their places.  Repeated indices: TF leaves the
  order undefined; here their updates add up.  ``_add``/``_sub`` add or subtract them.
- ``batch_gather(params, indices)``: ``params[b, indices[b, k]]`` for each batch row b,
  and ``tf.gather(..., batch_dims=b)`` (:func:`gather`, :func:`gather_in_batches`): a
  ``gather_nd`` with the batch coordinates beside the indices (sizes may be known only
  at run time).
- ``switch_case(branch_index, branch_fns, default=None)``: the branch of that index
  (a list, or a dict of index: function), ``default`` (TF: the last branch) otherwise;
  only the branch taken runs, as with ``tf.case``.

Sits in ``compat``; imports ``tracing``, ``control``, ``rows`` and ``small_ops``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     t = tf.tensor_scatter_nd_update(tf.zeros([4]), [[1], [3]], [5.0, 7.0])
...     print(tf.Session().run(t))
[0. 5. 0. 7.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..graph import Node
from . import rows as _rows
from .control import case
from .small_ops import gather_nd

__all__ = ["tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
           "batch_gather", "switch_case"]


def _scattered(tensor, indices, updates, what):
    x = _t.as_tensor(tensor)
    if not all(isinstance(d, int) for d in x.shape):
        raise ShapeError(f"{what}: the tensor's shape {x.shape} must be known when the graph "
                         f"is built")
    u = _t.cast(_t.as_tensor(updates), x.dtype)
    return x, u, _t.scatter_nd(indices, u, list(x.shape))


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the entries at ``indices`` replaced by ``updates``."""
    x, u, spread = _scattered(tensor, indices, updates, "tensor_scatter_nd_update")
    hit = _t.scatter_nd(indices, _t.ones_like(u, dtype=np.float32), list(x.shape))
    return _t.where(_t.greater(hit, 0.0), spread, x, name=name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tensor`` plus ``updates`` at ``indices``."""
    x, _, spread = _scattered(tensor, indices, updates, "tensor_scatter_nd_add")
    return _t.add(x, spread, name=name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """``tensor`` minus ``updates`` at ``indices``."""
    x, _, spread = _scattered(tensor, indices, updates, "tensor_scatter_nd_sub")
    return _t.sub(x, spread, name=name)


def batch_gather(params, indices, name=None):
    """``tf.batch_gather``: ``params[b, indices[b, k]]`` (module docstring)."""
    idx = _t.as_tensor(indices)
    if idx.ndim < 1:
        raise ShapeError(f"batch_gather: indices must have a batch axis, got shape {idx.shape}")
    return gather(params, idx, name=name, batch_dims=idx.ndim - 1)


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """``tf.gather``: ``rows.gather`` (with ``batch_dims`` over batch axes of known sizes:
    ``tracing.batch_gather``, along any axis), or :func:`gather_in_batches` where the
    batch axes' sizes are known only at run time (along axis ``batch_dims``, TF's
    default axis then: Q-values ``[None, A]`` picked by actions ``[None]``).

    Raises:
        ValueError: ``batch_dims`` over run-time sizes with another ``axis`` (symgrad
            then gathers along the axis right after the batch axes only).
    """
    if not batch_dims:
        return _rows.gather(params, indices, validate_indices, name, axis, batch_dims)
    # (shapes read without converting: a list of ids made a constant node per reading)
    p_shape, ids_shape = (v.shape if isinstance(v, Node) else np.shape(v)
                          for v in (params, indices))
    b = batch_dims + len(ids_shape or ()) if batch_dims < 0 else batch_dims
    if p_shape is None or ids_shape is None or all(   # (unknown ranks: rows.gather defers)
            isinstance(d, int) for d in tuple(p_shape[:b]) + tuple(ids_shape[:b])):
        return _rows.gather(params, indices, validate_indices, name, axis, batch_dims)
    if axis is not None and (axis + len(p_shape) if axis < 0 else axis) != b:
        raise ValueError(f"gather: axis={axis} with batch_dims={batch_dims} over batch axes "
                         f"of sizes known only at run time is not supported; symgrad gathers "
                         f"along axis batch_dims ({b}) there: transpose params so the gathered "
                         "axis follows the batch axes")
    return gather_in_batches(params, indices, batch_dims, name=name)


def gather_in_batches(params, indices, batch_dims, name=None):
    """``tf.gather(params, indices, batch_dims=b)`` along axis b: for the b leading axes
    that ``params`` and ``indices`` share, ``params[i..., indices[i..., j...], ...]``
    (a ``gather_nd`` with each entry's batch coordinates beside its index).

    Raises:
        ValueError: ``batch_dims`` outside ``[-rank(indices), rank(indices)]`` or not
            below ``rank(params)`` (TF's checks).
    """
    p, idx = _t.as_tensor(params), _t.as_tensor(indices)
    b = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
    if not 0 <= b <= idx.ndim or b >= p.ndim:
        raise ValueError(f"gather: batch_dims={batch_dims} must be in [-{idx.ndim}, "
                         f"{idx.ndim}] (the rank of indices {idx.shape}) and less than the "
                         f"rank of params {p.shape}")
    coords = [_coordinate(idx, k) for k in range(b)]
    return gather_nd(p, _t.stack(coords + [idx], axis=-1), name=name)


def _coordinate(idx, k):
    # the position along axis k of every entry of idx, shaped like idx
    at = _t.cast(_t.range(_t.shape(idx)[k]), idx.dtype)
    return _t.reshape(at, [-1 if j == k else 1 for j in range(idx.ndim)]) + _t.zeros_like(idx)


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """``tf.switch_case`` (module docstring)."""
    pairs = sorted(branch_fns.items()) if isinstance(branch_fns, dict) else \
        list(enumerate(branch_fns))
    if not pairs:
        raise ValueError("switch_case: branch_fns must hold at least one function")
    if [k for k, _ in pairs] != list(range(len(pairs))):
        raise ValueError(f"switch_case: branch indices (keys) must form contiguous range of "
                         f"[0 to {len(pairs)}) but found {sorted(k for k, _ in pairs)}")
    index = _t.as_tensor(branch_index)
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    return case([(_t.equal(index, np.asarray(k, index.dtype)), fn) for k, fn in pairs],
                default=default, name=name)
