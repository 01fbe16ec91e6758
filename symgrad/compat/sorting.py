"""``tf.sort``, ``tf.argsort`` and ``tf.searchsorted``, built from comparisons so that
the sort's gradient follows from symgrad's primitives.

- Each entry's place in the order is its rank: how many entries come before it
  (smaller ones, ascending; larger ones, descending), plus the equal ones at lower
  positions.  So equal values keep their order, as TF's sort (``top_k`` underneath)
  does, and ``stable`` changes nothing.  The sorted values are the entries moved to
  their ranks (a sum, per place, of the entry whose rank it is): the gradient of
  ``sort`` returns each incoming value to the entry it came from, as TF's.  Work and
  memory are n**2 per row of n (fine for the rows tutorials sort); any size may be
  None, and a placeholder of any shape is sorted once its value's shape is known.
  Differs from TF: a sorted -0.0 comes out as 0.0.
- NaN: TF's order with NaNs is not defined (its top_k scatters them); symgrad puts
  NaN after every number ascending, before every number descending (numpy's order
  for the ascending case).
- ``searchsorted(sorted_sequence, values, side)``: for each value, how many entries of
  its row of ``sorted_sequence`` are smaller (``"left"``) or not larger (``"right"``),
  int32 (``out_type``); no gradient (integers).

Sits in ``compat``; imports numpy, the tracing layer and ``ops``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([3., 1., 2., 1.])
...     print(*tf.Session().run([tf.sort(x), tf.argsort(x, direction="DESCENDING")]))
[1. 1. 2. 3.] [0 2 1 3]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..ops import literal
from ..ops.deferred import deferrable

_DIRECTIONS = ("ASCENDING", "DESCENDING")


@deferrable()
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``tf.sort``: ``values`` sorted along ``axis`` (module docstring)."""
    x, axis, perm = _prepare(values, axis, direction, "sort")
    with x.graph.name_scope(name or "sort"):
        moved = _move(x, axis, perm)
        hit, _ = _placed(moved, direction)
        # (where, not a product with the one-hot: 0 * inf would be NaN)
        out = _t.reduce_sum(_t.where(hit, _t.expand_dims(moved, -1), _zero(x)), axis=-2)
        return _move_back(_t.cast(out, x.dtype), axis, perm, name="sort")


@deferrable()
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """``tf.argsort``: int32 positions that sort ``values`` along ``axis`` (ties in
    order of position, stable or not, as TF's)."""
    x, axis, perm = _prepare(values, axis, direction, "argsort")
    with x.graph.name_scope(name or "argsort"):
        hit, position = _placed(_move(x, axis, perm), direction)
        out = _t.reduce_sum(_t.where(hit, _t.expand_dims(position, -1), 0), axis=-2)
        return _move_back(_t.cast(out, np.int32), axis, perm, name="argsort")


def _zero(x):
    return np.zeros((), dtype=x.dtype)


def _prepare(values, axis, direction, what):
    """(x, the axis as a non-negative int, the permutation moving it last or None)."""
    if direction not in _DIRECTIONS:
        raise ValueError(f"Argument `direction` should be one of ASCENDING, DESCENDING. "
                         f"Received: direction={direction}")
    x = _t.as_tensor(values)
    if x.dtype.kind not in "fiu":
        raise TypeError(f"{what}: values of dtype {x.dtype} cannot be sorted (TF sorts "
                        "float and integer tensors); cast them with tf.cast")
    axis = int(_t.arrays.static_value(axis, f"{what}(axis)"))
    if not -x.ndim <= axis < x.ndim:
        raise ShapeError(f"{what}: axis {axis} is out of range for values of rank {x.ndim} "
                         f"(shape {x.shape}); sort along an axis in [{-x.ndim}, {x.ndim})")
    axis %= x.ndim
    perm = None if axis == x.ndim - 1 else [d for d in range(x.ndim) if d != axis] + [axis]
    return x, axis, perm


def _move(x, axis, perm):
    return x if perm is None else _t.transpose(x, perm)


def _move_back(out, axis, perm, name):
    if perm is None:
        return _t.identity(out, name=name)
    return _t.transpose(out, list(np.argsort(perm)), name=name)


def _placed(x, direction):
    """``(hit, position)``: hit[.., i, r] is True when entry i goes to place r along the
    last axis (its rank, module docstring); position[.., i] is i (int32)."""
    n = x.shape[-1]
    position = (literal(x.graph, np.arange(n, dtype=np.int32)) if isinstance(n, int)
                else _t.cast(_t.range(_t.shape(x)[-1]), np.int32))   # (read when fed)
    mine, other = _t.expand_dims(x, -1), _t.expand_dims(x, -2)    # [.., i, 1], [.., 1, j]
    first = _t.less(other, mine) if direction == "ASCENDING" else _t.greater(other, mine)
    tie = _t.equal(other, mine)
    if x.dtype.kind == "f":    # NaN after the numbers (ascending), before them descending
        nan_i, nan_j = _t.is_nan(mine), _t.is_nan(other)
        nan_first = nan_j if direction == "ASCENDING" else nan_i
        late = nan_i if direction == "ASCENDING" else nan_j
        first = _t.logical_or(first, _t.logical_and(_t.logical_not(nan_first), late))
        tie = _t.logical_or(tie, _t.logical_and(nan_i, nan_j))
    lower = _t.less(_t.expand_dims(position, -2), _t.expand_dims(position, -1))  # j < i
    before = _t.logical_or(first, _t.logical_and(tie, lower))
    rank = _t.reduce_sum(_t.cast(before, np.int32), axis=-1)
    return _t.equal(_t.expand_dims(rank, -1), _t.expand_dims(position, -2)), position


@deferrable()
def searchsorted(sorted_sequence, values, side="left", out_type=np.int32, name=None):
    """``tf.searchsorted``: where each of ``values`` would go in its row of
    ``sorted_sequence`` (the same leading axes; the last axes may differ)."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = {side!r}.")
    seq, v = _t.as_tensor(sorted_sequence), _t.as_tensor(values)
    if seq.ndim == 0 or seq.ndim != v.ndim or seq.shape[:-1] != v.shape[:-1]:
        raise ShapeError(f"searchsorted: sorted_sequence {seq.shape} and values {v.shape} "
                         "must have the same rank (at least 1) and leading dimensions")
    with seq.graph.name_scope(name or "SearchSorted"):
        smaller = (_t.less if side == "left" else _t.less_equal)(
            _t.expand_dims(seq, -2), _t.expand_dims(v, -1))       # [.., value, entry]
        return _t.reduce_sum(_t.cast(smaller, out_type), axis=-1)


__all__ = ["sort", "argsort", "searchsorted"]
