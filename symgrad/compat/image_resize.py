"""TF1's bicubic and area resizing as one fixed matrix per axis (so gradients are the
transposed maps), and ``preserve_aspect_ratio``'s size.

- bicubic (``tf.image.resize_bicubic``, ``ResizeMethod.BICUBIC``), TF1's legacy kernel:
  source position ``y * scale`` (``scale = in / out``, ``(in - 1) / (out - 1)`` with
  ``align_corners``), four taps at ``floor - 1 .. floor + 2`` clamped to the image,
  weights of the cubic convolution kernel with a = -0.75 read from TF's table of 1024
  steps (the fraction rounded to the nearest step, as ``lrint`` does);
- area (``tf.image.resize_area``, ``ResizeMethod.AREA``): each output pixel the mean of
  the input over ``[y * scale, (y + 1) * scale)``, cells cut at its ends counted by the
  part inside, indices past the edge read the last row;
- ``preserve_aspect_ratio``: the target scaled down to the image's aspect ratio,
  ``round(min(th / h, tw / w) * h)`` (half to even, in float32 as TF).

Sits in ``compat``; imports ``tracing``.

>>> import numpy as np
>>> area_matrix(4, 2, False).tolist()
[[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t

__all__ = ["bicubic_matrix", "area_matrix", "along_axis", "aspect_size"]

_STEPS = 1024   # TF's table of cubic weights
_A = -0.75


def _cubic_table():
    x = np.arange(_STEPS + 1, dtype=np.float64) / _STEPS
    near = ((_A + 2) * x - (_A + 3)) * x * x + 1            # |d| in [0, 1]
    far = ((_A * (x + 1) - 5 * _A) * (x + 1) + 8 * _A) * (x + 1) - 4 * _A   # |d| in [1, 2]
    return near.astype(np.float32), far.astype(np.float32)


def _scale(n_in, n_out, align_corners):
    return (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out


def bicubic_matrix(n_in, n_out, align_corners):
    """The [n_out, n_in] map of TF1's legacy bicubic resampling along one axis."""
    near, far = _cubic_table()
    src = np.arange(n_out) * np.float32(_scale(n_in, n_out, align_corners))
    low = np.floor(src).astype(np.int64)
    step = np.rint((src - low) * _STEPS).astype(np.int64)
    weights = [far[step], near[step], near[_STEPS - step], far[_STEPS - step]]
    m = np.zeros((n_out, n_in), np.float64)
    for k, w in enumerate(weights):
        np.add.at(m, (np.arange(n_out), np.clip(low - 1 + k, 0, n_in - 1)), w)
    return m


def area_matrix(n_in, n_out, align_corners):
    """The [n_out, n_in] map of TF's area resampling along one axis."""
    scale = np.float32(_scale(n_in, n_out, align_corners))
    m = np.zeros((n_out, n_in), np.float64)
    for y in range(n_out):
        lo, hi = np.float32(y * scale), np.float32((y + 1) * scale)
        for i in range(int(np.floor(lo)), int(np.ceil(hi))):
            m[y, min(i, n_in - 1)] += min(i + 1.0, hi) - max(float(i), lo)
    return m / scale


def along_axis(x, axis, matrix):
    """``matrix`` [n_out, n_in] applied to ``x`` along ``axis``."""
    moved = _t.tensordot(x, np.asarray(matrix, dtype=x.dtype), axes=[[axis], [1]])
    order = list(range(x.ndim - 1))
    order.insert(axis, x.ndim - 1)
    return _t.transpose(moved, order)


def aspect_size(height, width, target_height, target_width):
    """The size ``preserve_aspect_ratio`` resizes (h, w) to within the target."""
    factor = min(np.float32(target_height) / np.float32(height),
                 np.float32(target_width) / np.float32(width))
    return (int(np.round(np.float32(factor) * np.float32(height))),
            int(np.round(np.float32(factor) * np.float32(width))))
