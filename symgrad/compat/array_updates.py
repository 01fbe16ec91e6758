"""TF 1.13-1.15 ops for updating and selecting inside tensors: ``tf.tensor_scatter_nd_update``
(``tf.tensor_scatter_update``), ``_add``, ``_sub``, ``tf.batch_gather`` and
``tf.switch_case``, composed from ``scatter_nd``, ``where``, ``gather_nd`` and ``tf.case``.

- ``tensor_scatter_nd_update(tensor, indices, updates)``: ``tensor`` with the entries (or
  slices) at ``indices`` replaced; the tensor gets the gradient where nothing was
  written, the updates the gradient at their places.  Repeated indices: TF leaves the
  order undefined; here their updates add up.  ``_add``/``_sub`` add or subtract them.
- ``batch_gather(params, indices)``: ``params[b, indices[b, k]]`` for each batch row b
  (a ``gather_nd`` with the row numbers beside the indices; sizes may be known only at
  run time).
- ``switch_case(branch_index, branch_fns, default=None)``: the branch of that index
  (a list, or a dict of index: function), ``default`` (TF: the last branch) otherwise;
  only the branch taken runs, as with ``tf.case``.

Sits in ``compat``; imports ``tracing``, ``control`` and ``small_ops``.

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
    p, idx = _t.as_tensor(params), _t.as_tensor(indices)
    if idx.ndim != 2 or p.ndim < 2:
        raise ShapeError(f"batch_gather: indices [batch, k] into params [batch, n, ...] are "
                         f"supported, got shapes {idx.shape} and {p.shape}; use tf.gather")
    rows = _t.cast(_t.range(_t.shape(idx)[0]), idx.dtype)
    rows = _t.tile(_t.expand_dims(rows, 1), _t.stack([1, _t.shape(idx)[1]]))
    return gather_nd(p, _t.stack([rows, idx], axis=-1), name=name)


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
