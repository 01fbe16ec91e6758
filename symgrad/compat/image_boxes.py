"""``tf.image.draw_bounding_boxes(images, boxes, colors=None)``: one-pixel rectangle
outlines drawn over [batch, height, width, depth] images (depth 1, 3 or 4).

A box [ymin, xmin, ymax, xmax] (fractions of the image) covers rows
``int(ymin * (height - 1))`` to ``int(ymax * (height - 1))`` (truncated toward zero, as
TF's kernel casts) and likewise columns; each of its four edges is drawn where it lies
inside the image, over the part of its span inside the image; a box with ymin > ymax or
xmin > xmax draws nothing.  Box i has ``colors[i % len(colors)]`` (its first ``depth``
entries), by default TF's table of ten RGBA colours (yellow, blue, red, green, ...);
later boxes are drawn over earlier ones.  symgrad differs: the result has a gradient
(to the pixels no box covers), where TF registers none.

Sits in ``compat``; imports ``tracing``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.image.draw_bounding_boxes(np.zeros((1, 3, 3, 1), np.float32), [[[0, 0, 1, 1]]])
...     print(tf.Session().run(y)[0, :, :, 0])
[[1. 1. 1.]
 [1. 0. 1.]
 [1. 1. 1.]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.arrays import static_value

__all__ = ["draw_bounding_boxes"]

# TF's default colours, in order (RGBA)
_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                    [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1],
                    [1, 0, 1, 1]], np.float64)


def _edges(box, h, w):
    """A boolean [batch, H, W] mask of one box's outline ([batch, 4] coordinates)."""
    # truncation toward zero, TF's cast of the scaled coordinates
    top, left, bottom, right = (_t.cast(box[:, i] * float(size - 1), np.int32)
                                for i, size in enumerate((h, w, h, w)))
    rows = _t.reshape(_t.range(h), [1, h, 1])
    cols = _t.reshape(_t.range(w), [1, 1, w])

    def at(v):   # [batch] -> [batch, 1, 1]
        return _t.reshape(v, [-1, 1, 1])
    in_cols = _t.logical_and(_t.greater_equal(cols, at(left)), _t.less_equal(cols, at(right)))
    in_rows = _t.logical_and(_t.greater_equal(rows, at(top)), _t.less_equal(rows, at(bottom)))
    horizontal = _t.logical_and(in_cols, _t.logical_or(_t.equal(rows, at(top)),
                                                       _t.equal(rows, at(bottom))))
    vertical = _t.logical_and(in_rows, _t.logical_or(_t.equal(cols, at(left)),
                                                     _t.equal(cols, at(right))))
    valid = _t.logical_and(_t.less_equal(at(top), at(bottom)),
                           _t.less_equal(at(left), at(right)))
    return _t.logical_and(valid, _t.logical_or(horizontal, vertical))


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """``images`` with the outlines of ``boxes`` [batch, N, 4] drawn (module docstring)."""
    x = _t.functions._lift([images])[0]
    if x.ndim != 4 or int(x.shape[-1]) not in (1, 3, 4):
        raise ValueError(f"tf.image.draw_bounding_boxes: images must be [batch, height, "
                         f"width, depth] with depth 1, 3 or 4, got shape {x.shape}")
    b = _t.cast(_t.functions._lift([boxes])[0], np.float32)
    if b.ndim != 3 or int(b.shape[-1]) != 4:
        raise ValueError(f"tf.image.draw_bounding_boxes: boxes must be [batch, N, 4], got "
                         f"shape {b.shape}")
    depth, (h, w) = int(x.shape[-1]), (int(x.shape[1]), int(x.shape[2]))
    table = _COLORS if colors is None else np.atleast_2d(
        static_value(colors, "draw_bounding_boxes(colors)")).astype(np.float64)
    if table.shape[-1] < depth:
        raise ValueError(f"tf.image.draw_bounding_boxes: colors must have at least {depth} "
                         f"channels (the image's depth), got {table.shape[-1]}")
    out = x
    for i in range(int(b.shape[1])):
        mask = _t.expand_dims(_edges(b[:, i], h, w), -1)
        color = _t.constant(table[i % len(table), :depth].astype(x.dtype))
        out = _t.where(_t.logical_and(mask, _t.ones_like(out, dtype=np.bool_)),
                       _t.zeros_like(out) + color, out)
    return _t.identity(out, name=name)
