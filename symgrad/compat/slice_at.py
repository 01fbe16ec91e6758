"""``tf.slice`` whose ``begin`` is computed in the graph.

The self-organizing map of the TF 1.x cookbook finds the winning unit's grid location
with ``tf.slice(locations, tf.pad(tf.reshape(tf.argmin(d, 0), [1]), [[0, 1]]), [1, 2])``:
the start is known only when the graph runs.  With every ``size`` given (none -1), the
result's shape is still known, and each axis is taken as a gather of the window
``begin[d] + range(size[d])``, so the gradient reaches the input as through ``tf.gather``.
A begin known when the graph is built is ``tracing.slice``'s static slice.  A window
past the edge raises InvalidArgumentError when the graph runs, as in TF (the gather's
range check, ``kernel_checks``, with TF's message on begin and size).  A
size of -1 with a computed begin is refused (TF gives an unknown dimension).

Sits in ``compat`` under ``v1`` (``v1_more`` exports it); imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     grid = tf.constant([[0, 0], [0, 1], [1, 0], [1, 1]])
...     start = tf.pad(tf.reshape(tf.argmin([3.0, 1.0, 2.0, 5.0], 0), [1]), [[0, 1]])
...     print(tf.Session().run(tf.slice(grid, start, [1, 2])))
[[0 1]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..graph import Node
from ..tracing.arrays import known_now, static_value
from ..tracing.kernel_notes import note

__all__ = ["slice"]


def computed(begin):
    """Whether ``begin`` (a start, or a list of them) holds a tensor computed (or fed)
    at run time."""
    items = begin if isinstance(begin, (list, tuple)) else [begin]
    return any(isinstance(b, Node) and not known_now(b) for b in items)


def window(x, axis, start, size):
    """``x``'s entries ``start .. start + size - 1`` along ``axis``, ``start`` computed
    at run time: a gather of those indices (``tf.image.crop_to_bounding_box`` at
    run-time offsets takes its rows and columns this way too)."""
    return _t.gather(x, _t.cast(start, np.int32) + np.arange(size, dtype=np.int32), axis=axis)


def slice(input_, begin, size, name=None):  # noqa: A001
    """``input_[begin[d]:begin[d] + size[d]]`` on every axis (TF's ``tf.slice``)."""
    if not computed(begin):
        return _t.slice(input_, begin, size, name=name)
    x, start = _t.functions._lift([input_, begin])
    size = [int(s) for s in static_value(size, "slice(size)").reshape(-1)]
    if len(size) != x.ndim or start.shape != (x.ndim,):
        raise ShapeError(f"slice: begin (shape {start.shape}) and size {size} need one entry "
                         f"per axis of the input, of shape {x.shape}")
    if any(s < 0 for s in size):
        raise ShapeError(f"slice: with a begin computed at run time, give every size (got "
                         f"{size}; -1, 'to the end', would leave the shape unknown): use "
                         f"the axis's length minus the start you expect, or a static begin")
    if all(isinstance(n, (int, np.integer)) for n in x.shape):
        start = _t.identity(start)   # (checked before the windows' gathers: TF's text)
        note(start, "slice", [start], shape=tuple(int(n) for n in x.shape), size=tuple(size))
    out = x
    for d, s in enumerate(size):
        out = window(out, d, start[d], s)
    out = _t.identity(out, name=name or "Slice")
    if "kernel_notes" in start.__dict__:   # (TF's message names the Slice op)
        start.kernel_notes[-1] = start.kernel_notes[-1]._replace(named=out)
    return out
