"""``tf.image.crop_and_resize``: bilinear crops of boxes (Faster R-CNN's ROI pooling in
TF1 code), composed from gathers so gradients reach the image and the boxes.

For box b = (y1, x1, y2, x2) in normalised coordinates of image ``box_ind[b]``, output
row i samples ``y1 (h - 1) + i (y2 - y1) (h - 1) / (crop_h - 1)`` (the box's middle when
``crop_h`` is 1), likewise columns; a sample outside ``[0, h - 1]`` takes
``extrapolation_value``; inside, the four neighbours mix bilinearly (TF's kernel).

Sits in ``compat``; imports ``tracing`` and ``small_ops``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     img = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
...     crop = tf.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])
...     print(tf.Session().run(crop)[0, :, :, 0].tolist())
[[0.0, 3.0], [12.0, 15.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..tracing.arrays import static_value
from .small_ops import gather_nd

__all__ = ["crop_and_resize"]


def _positions(lo, hi, n_in, n_out):
    """Sample positions [boxes, n_out] along one axis, in pixels."""
    size = float(n_in - 1)
    if n_out > 1:
        steps = np.arange(n_out, dtype=np.float32) / np.float32(n_out - 1)
        return lo[:, None] * size + steps[None, :] * ((hi - lo) * size)[:, None]
    return (0.5 * (lo + hi) * size)[:, None]


class _Pixels:
    """The image's pixels at rows [boxes, ch] by columns [boxes, cw] (clipped to the
    image), each box reading its own image: [boxes, ch, cw, depth]."""

    def __init__(self, x, ind, ch, cw):
        self.x, self.ind, self.ch, self.cw = x, _t.cast(ind, np.int32), ch, cw

    def __call__(self, rows, cols):
        h, w = self.x.shape[1], self.x.shape[2]
        r = _t.cast(_t.clip_by_value(rows, 0.0, h - 1.0), np.int32)
        c = _t.cast(_t.clip_by_value(cols, 0.0, w - 1.0), np.int32)
        shape = _t.stack([_t.shape(r)[0], self.ch, self.cw])
        index = _t.stack([_t.broadcast_to(_t.reshape(self.ind, [-1, 1, 1]), shape),
                          _t.broadcast_to(_t.expand_dims(r, 2), shape),
                          _t.broadcast_to(_t.expand_dims(c, 1), shape)], axis=-1)
        return gather_nd(self.x, index)


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear",
                    extrapolation_value=0.0, name=None, box_indices=None):
    """``tf.image.crop_and_resize`` (module docstring): [boxes, crop_h, crop_w, depth]."""
    x = _t.as_tensor(image)
    x = x if x.dtype == np.float32 else _t.cast(x, np.float32)
    b = _t.cast(_t.as_tensor(boxes), np.float32)
    ind = _t.as_tensor(box_ind if box_ind is not None else box_indices)
    if method != "bilinear":
        raise ValueError(f"crop_and_resize: method {method!r}; symgrad has 'bilinear'")
    if x.ndim != 4 or not all(isinstance(d, int) for d in x.shape[1:3]):
        raise ShapeError(f"crop_and_resize: a batch [batch, height, width, depth] with known "
                         f"height and width, got shape {x.shape}")
    ch, cw = (int(v) for v in static_value(crop_size, "crop_and_resize(crop_size)"))
    h, w = x.shape[1], x.shape[2]
    ys = _positions(b[:, 0], b[:, 2], h, ch)            # [boxes, ch]
    xs = _positions(b[:, 1], b[:, 3], w, cw)            # [boxes, cw]
    inside = _t.logical_and(
        _t.expand_dims(_t.logical_and(ys >= 0.0, ys <= h - 1.0), 2),
        _t.expand_dims(_t.logical_and(xs >= 0.0, xs <= w - 1.0), 1))   # [boxes, ch, cw]
    top, left = _t.floor(ys), _t.floor(xs)
    dy = _t.expand_dims(_t.expand_dims(ys - top, 2), 3)   # [boxes, ch, 1, 1]
    dx = _t.expand_dims(_t.expand_dims(xs - left, 1), 3)  # [boxes, 1, cw, 1]
    bottom, right = _t.ceil(ys), _t.ceil(xs)   # (TF's: the same pixel at whole positions)
    at = _Pixels(x, ind, ch, cw)
    upper = at(top, left) + (at(top, right) - at(top, left)) * dx
    lower = at(bottom, left) + (at(bottom, right) - at(bottom, left)) * dx
    out = upper + (lower - upper) * dy
    fill = _t.cast(_t.as_tensor(extrapolation_value), np.float32)
    return _t.where(_t.expand_dims(inside, 3), out, _t.zeros_like(out) + fill, name=name)
