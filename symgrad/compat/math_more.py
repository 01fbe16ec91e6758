"""TF1's small top-level and ``tf.math`` functions real programs call, built from
symgrad's ops (their gradients are those of the ops they are made of, which give TF's).

- ``asinh``, ``acosh``, ``atanh``: from ``log1p`` and ``sqrt`` in forms accurate near 0
  (``asinh`` is odd by a ``where``, so its gradient at 0 is 1, as TF's).
- ``logical_xor``; ``reverse_v2`` (``reverse``); ``parallel_stack`` (``stack``);
  ``shape_n``; ``repeat`` (repeats known when the graph is built).
- ``clip_by_average_norm(t, clip_norm)``: ``t * clip_norm / max(clip_norm, |t|₂ / n)``.
- ``saturate_cast``: clamped to the target dtype's range, then cast.
- ``unravel_index``, ``dynamic_stitch`` (the last of equal indices wins; every data
  entry receives the gradient at its index, as TF's; indices computed at run time must
  be a permutation of 0..n-1, as ``dynamic_partition`` of a range gives),
  ``histogram_fixed_width``.
- ``parallel_stack`` has a gradient (that of ``stack``); TF registers none.
- ``reduce_euclidean_norm``, ``rint`` (round half to even).

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run(tf.repeat([1, 2], [2, 1])))
[1 1 2]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.kernel_notes import note
from ..tracing.arrays import known_now, static_value
from .sorting import argsort
from .segments import unsorted_segment_max

__all__ = ["asinh", "acosh", "atanh", "logical_xor", "reverse_v2", "parallel_stack", "shape_n",
           "repeat", "clip_by_average_norm", "saturate_cast", "unravel_index", "dynamic_stitch",
           "histogram_fixed_width", "reduce_euclidean_norm"]


def _lift(x):
    return _t.functions._lift([x])[0]


def _asinh_nonneg(x):
    # asinh(x) = log1p(x + x² / (1 + sqrt(1 + x²))): no cancellation for x >= 0
    return _t.log1p(x + x * x / (1.0 + _t.sqrt(1.0 + x * x)))


def asinh(x, name=None):
    """Inverse hyperbolic sine; odd, so negative entries are ``-asinh(-x)``."""
    x = _lift(x)
    return _t.where(_t.less(x, 0.0), -_asinh_nonneg(-x), _asinh_nonneg(x), name=name)


def acosh(x, name=None):
    """Inverse hyperbolic cosine, ``log1p((x-1) + sqrt(x-1) sqrt(x+1))``; NaN below 1
    (TF).  Two square roots, not one of the product: at x = 1 the gradient is +inf, as
    TF's, where the product's rule would give inf * 0 = NaN."""
    x = _lift(x)
    t = x - 1.0
    return _t.log1p(t + _t.sqrt(t) * _t.sqrt(x + 1.0), name=name)


def atanh(x, name=None):
    """Inverse hyperbolic tangent, ``log1p(2x / (1 - x)) / 2``; ±inf at ±1, NaN beyond."""
    x = _lift(x)
    return _t.multiply(0.5, _t.log1p(2.0 * x / (1.0 - x)), name=name)


def logical_xor(x, y, name=None):
    """Elementwise exclusive or of booleans: one of the two, not both."""
    return _t.logical_and(_t.logical_or(x, y), _t.logical_not(_t.logical_and(x, y)), name=name)


def reverse_v2(tensor, axis, name=None):
    """``tf.reverse`` (TF1.x's name for the list-of-axes form)."""
    return _t.reverse(tensor, axis, name=name)


def parallel_stack(values, name="parallel_stack"):
    """``tf.stack(values)`` along a new first axis (TF only schedules it differently)."""
    return _t.stack(values, axis=0, name=name)


def shape_n(input, out_type=np.int32, name=None):
    """``[tf.shape(x) for x in input]``."""
    return [_t.shape(x, out_type=out_type) for x in input]


def repeat(input, repeats, axis=None, name=None):
    """Each entry (slice along ``axis``; of the flattened tensor if None) ``repeats``
    times: one count for all, or one per entry, known when the graph is built."""
    x = _lift(input)
    if axis is None:
        x, axis = _t.reshape(x, [-1]), 0
    if x.shape[axis] is None or not isinstance(x.shape[axis], (int, np.integer)):
        raise ValueError("tf.repeat: the size of the repeated axis must be known when the "
                         "graph is built; give the input a static shape")
    counts = static_value(repeats, "tf.repeat(repeats)").astype(np.int64)
    n = int(x.shape[axis])
    if counts.ndim > 1 or (counts.ndim == 1 and counts.size not in (1, n)) or (counts < 0).any():
        raise ValueError(f"tf.repeat: repeats must be a non-negative scalar or a list of {n} "
                         f"counts (one per entry of axis {axis}), got {counts.tolist()}")
    index = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
    return _t.gather(x, index.astype(np.int32), axis=axis, name=name)


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(clip_norm, |t|₂ / n)``, n the number of entries (TF1)."""
    t = _lift(t)
    n = float(np.prod(t.shape)) if all(isinstance(d, (int, np.integer)) for d in t.shape) \
        else _t.cast(_t.size(t), t.dtype)
    inv_norm = _t.rsqrt(_t.reduce_sum(t * t))
    return _t.identity(t * clip_norm * _t.minimum(inv_norm * n, 1.0 / clip_norm), name=name)


def saturate_cast(value, dtype, name=None):
    """``cast(value, dtype)`` with values outside dtype's range clamped to its ends."""
    x = _lift(value)
    target = np.dtype(dtype)
    if target.kind in "iu" and x.dtype.kind in "iuf":
        lo, hi = np.iinfo(target).min, np.iinfo(target).max
        if x.dtype.kind == "f":   # the ends as the input's floats hold them, not beyond
            lo, top = np.asarray(lo, x.dtype), np.asarray(hi, x.dtype)
            hi = np.nextafter(top, top.dtype.type(0)) if float(top) > hi else top
        x = _t.minimum(_t.maximum(x, _t.cast(lo, x.dtype)), _t.cast(hi, x.dtype))
    elif target.kind == "f" and x.dtype.kind == "f" and target.itemsize < x.dtype.itemsize:
        info = np.finfo(target)
        x = _t.minimum(_t.maximum(x, float(info.min)), float(info.max))
    return _t.cast(x, target, name=name)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``: shape
    ``[len(dims)] + indices.shape`` (row-major, as numpy's ``unravel_index``)."""
    idx = _lift(indices)
    sizes = _lift(dims)
    if sizes.ndim != 1:
        raise ValueError("tf.unravel_index: dims must be a 1-D list of sizes")
    sizes = _t.cast(sizes, idx.dtype)
    # the stride of axis k is the product of the sizes after it
    strides = _t.cumprod(sizes, exclusive=True, reverse=True)
    shape = [-1] + [1] * idx.ndim
    coords = _t.floormod(_t.floordiv(_t.expand_dims(idx, 0), _t.reshape(strides, shape)),
                         _t.reshape(sizes, shape))
    return _t.identity(coords, name=name)


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]``; of equal indices the last wins.  Each
    ``data[m]`` receives the gradient at its indices, also where overwritten (TF)."""
    indices = [_lift(i) for i in indices]
    data = [_lift(d) for d in data]
    if len(indices) != len(data) or not indices:
        raise ValueError(f"tf.dynamic_stitch: indices and data must be lists of the same "
                         f"length (got {len(indices)} and {len(data)})")
    rest = list(data[0].shape[indices[0].ndim:])
    flat_idx = _t.concat([_t.reshape(i, [-1]) for i in indices], 0)
    flat = _t.concat([_t.reshape(d, [-1] + rest) for d, i in zip(data, indices)], 0)
    if not all(known_now(i) for i in indices):
        # run-time indices: a permutation of 0..n-1 (what dynamic_partition gives)
        out = _t.gather(flat, argsort(flat_idx), name=name)
        note(flat_idx, "stitch", [flat_idx], named=out)   # (checked when run: else refused)
        return out
    n = int(max((static_value(i, "dynamic_stitch").max(initial=-1) for i in indices))) + 1
    last = unsorted_segment_max(_t.range(int(flat_idx.shape[0])), flat_idx, n)
    picked = _t.gather(_t.stop_gradient(flat), _t.maximum(last, 0))
    # the linear part carries the gradient: d/d flat is gather(g, flat_idx), value 0
    spread = _t.scatter_nd(_t.expand_dims(flat_idx, 1), flat, [n] + rest)
    return _t.add(picked, spread - _t.stop_gradient(spread), name=name)


def histogram_fixed_width(values, value_range, nbins=100, dtype=np.int32, name=None):
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range``; values below
    or above it count in the first or last bin."""
    v = _lift(values)
    lo_hi = _t.cast(_lift(value_range), v.dtype)
    nbins = int(static_value(nbins, "histogram_fixed_width(nbins)"))
    scaled = (v - lo_hi[0]) / (lo_hi[1] - lo_hi[0])
    bins = _t.clip_by_value(_t.floor(scaled * float(nbins)), 0.0, float(nbins - 1))
    bins = _t.reshape(_t.cast(bins, np.int32), [-1])
    ones = _t.cast(_t.ones_like(bins), np.dtype(dtype))
    return _t.unsorted_segment_sum(ones, bins, nbins, name=name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x²))`` over ``axis`` (all axes by default)."""
    x = _lift(input_tensor)
    return _t.sqrt(_t.reduce_sum(x * x, axis=axis, keepdims=keepdims), name=name)
