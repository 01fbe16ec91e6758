"""``tf.image.non_max_suppression`` (detection models' post-processing): the indices of
the boxes kept by TF's greedy rule, best score first.

Boxes are taken in decreasing score order (``top_k``: equal scores keep their index
order); a box is kept if its score is above ``score_threshold``, fewer than
``max_output_size`` are kept so far, and its IoU with every box kept before is at most
``iou_threshold``.  IoU is TF's: corners in either order, 0 where a box has no area.
The greedy pass is a ``tf.while_loop`` over the boxes carrying the mask of boxes still
alive; the result's length is known when the values are (``boolean_mask``).  The number
of boxes and ``max_output_size`` may be known only then too (boxes a mask kept, a
variable's limit).  Indices
carry no gradient, as in TF.

Sits in ``compat``; imports ``tracing``, ``control`` and ``sorting``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
...     keep = tf.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3, iou_threshold=0.5)
...     print(tf.Session().run(keep).tolist())
[0, 2]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..graph import Node
from ..tracing.arrays import known_now, static_value
from .control import while_loop
from .sorting import argsort

__all__ = ["non_max_suppression"]


def _iou(b):
    """Pairwise IoU [n, n] of boxes [n, 4] (y1, x1, y2, x2 in either order)."""
    ymin = _t.minimum(b[:, 0], b[:, 2])
    xmin = _t.minimum(b[:, 1], b[:, 3])
    ymax = _t.maximum(b[:, 0], b[:, 2])
    xmax = _t.maximum(b[:, 1], b[:, 3])
    area = (ymax - ymin) * (xmax - xmin)
    high = _t.minimum(ymax[:, None], ymax[None, :]) - _t.maximum(ymin[:, None], ymin[None, :])
    wide = _t.minimum(xmax[:, None], xmax[None, :]) - _t.maximum(xmin[:, None], xmin[None, :])
    inter = _t.maximum(high, 0.0) * _t.maximum(wide, 0.0)
    union = area[:, None] + area[None, :] - inter
    empty = _t.logical_or(area[:, None] <= 0.0, area[None, :] <= 0.0)
    return _t.where(empty, _t.zeros_like(union),
                    inter / _t.where(empty, _t.ones_like(union), union))


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5,
                        score_threshold=float("-inf"), name=None):
    """``tf.image.non_max_suppression`` (module docstring): int32 indices into boxes."""
    b = _t.cast(_t.as_tensor(boxes), np.float32)
    s = _t.cast(_t.as_tensor(scores), np.float32)
    if b.ndim != 2 or b.shape[1] != 4:
        raise ShapeError(f"non_max_suppression: boxes [num_boxes, 4], got shape {b.shape}")
    limit = _limit(max_output_size)
    n = b.shape[0]
    if isinstance(n, int):
        _, order = _t.top_k(s, k=n)
        count, slots = n, None
    else:   # (boxes a boolean_mask kept, YOLO's filter: a count known with the values)
        order = argsort(s, direction="DESCENDING", stable=True)
        count = _t.shape(b, out_type=np.int32)[0]
        slots = _t.range(count)
    iou = _iou(_t.gather(b, order))
    alive = _t.cast(_t.gather(s, order) > np.float32(score_threshold), np.float32)
    threshold = np.float32(iou_threshold)

    def body(i, alive, chosen, taken):
        take = alive[i] * _t.cast(taken < limit, np.float32)
        here = (_t.one_hot(i, n, dtype=np.float32) if slots is None
                else _t.cast(_t.equal(slots, i), np.float32))
        chosen = chosen + take * here
        alive = alive * (1.0 - take * _t.cast(iou[i] > threshold, np.float32)) * (1.0 - here)
        return i + 1, alive, chosen, taken + take
    _, _, chosen, _ = while_loop(lambda i, *_: i < count, body,
                                 [_t.constant(np.int32(0)), alive, _t.zeros_like(alive),
                                  _t.constant(np.float32(0.0))])
    return _t.boolean_mask(_t.cast(order, np.int32), chosen > 0.5, name=name)


def _limit(max_output_size):
    """The most boxes to keep: a number, or a tensor read when the values arrive (the
    YOLO assignment's ``K.variable(max_boxes, dtype='int32')``)."""
    if isinstance(max_output_size, Node) and not known_now(max_output_size):
        return _t.cast(max_output_size, np.float32)
    return np.float32(int(static_value(max_output_size, "non_max_suppression(max_output_size)")))
