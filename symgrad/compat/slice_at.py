"""``tf.slice`` whose ``begin`` is computed in the graph.

The self-organizing map of the TF 1.x cookbook finds the winning unit's grid location
with ``tf.slice(locations, tf.pad(tf.reshape(tf.argmin(d, 0), [1]), [[0, 1]]), [1, 2])``:
the start is known only when the graph runs.  With every ``size`` given (none -1), the
result's shape is still known, and each axis is taken as a gather of the window
``begin[d] + range(size[d])``, so the gradient reaches the input as through ``tf.gather``;
a size of -1 from a computed start (WaveNet's ``tf.slice(out, [0, skip_cut, 0], [-1, -1,
-1])``) is the rest of the axis, a length bound when values arrive.
A begin known when the graph is built is ``tracing.slice``'s static slice.  A size read
at run time (BERT's ``tf.slice(position_table, [0, 0], [seq_length, -1])`` with
``seq_length = tf.shape(input_ids)[1]``) is taken as the same window, of that run-time
length, so the result's shape holds the input's unknown dimension; a size fed or
computed otherwise (a placeholder, ``[tf.minimum(k, 2), -1]``) gives each axis a length
bound from its value when the graph runs (-1: the rest of the axis).  A window past the
edge raises TF's InvalidArgumentError (``Expected size[0] in [0, 10], but got 12``) when
the session runs (the gathers alone would select zeros).  Difference: the result's
static shape keeps the dimensions TF's shape inference forgets (``[None, 4]`` where TF
says ``[None, None]``).

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
from ..graph import Dim, Node
from ..ops.draws import iota_of
from ..ops.sizes import sizes_of
from ..ops.valued import size_from_values
from ..tracing.arrays import _gather, known_now, static_value
from ..tracing.kernel_notes import note

__all__ = ["slice"]


def computed(begin):
    """Whether ``begin`` (a start, or a list of them) holds a tensor computed (or fed)
    at run time."""
    items = begin if isinstance(begin, (list, tuple)) else [begin]
    return any(isinstance(b, Node) and not known_now(b) for b in items)


def window(x, axis, start, size, checked=True):
    """``x``'s entries ``start .. start + size - 1`` along ``axis``, ``start`` computed
    at run time or ``size`` a run-time size (a Dim): a gather of those indices
    (``tf.image.crop_to_bounding_box`` at run-time offsets takes its rows and columns
    this way too), whose ids the Session checks as a gather's unless ``checked`` is
    False (``slice`` checks its windows itself, with TF's Slice message)."""
    ids = _t.cast(start, np.int32) + iota_of(x.graph, size, np.int32)
    return _gather(x, ids, axis, None, "gather" if checked else None)


def _sizes(size):
    """``size`` as a list of ints and Dims (run-time sizes), when it holds any Dim."""
    if not isinstance(size, (list, tuple, Node)):
        return None
    found = sizes_of(size)
    return list(found) if found is not None and any(isinstance(s, Dim) for s in found) \
        else None


def slice(input_, begin, size, name=None):  # noqa: A001
    """``input_[begin[d]:begin[d] + size[d]]`` on every axis (TF's ``tf.slice``)."""
    run_sizes = _sizes(size)
    if not computed(begin) and run_sizes is None and not computed(size):
        return _t.slice(input_, begin, size, name=name)
    x, start = _t.functions._lift([input_, begin])
    size = run_sizes or _fed_sizes(x, start, size) or \
        [int(s) for s in static_value(size, "slice(size)").reshape(-1)]
    if len(size) != x.ndim or start.shape != (x.ndim,):
        raise ShapeError(f"slice: begin (shape {start.shape}) and size {size} need one entry "
                         f"per axis of the input, of shape {x.shape}")
    fixed = _known_starts(begin, x.ndim)
    out, windows = x, {}
    for d, s in enumerate(size):
        if fixed[d] is not None and not isinstance(s, Dim):   # a static slice of this axis
            out = _t.slice(out, [fixed[d] if i == d else 0 for i in range(x.ndim)],
                           [s if i == d else -1 for i in range(x.ndim)])
            continue
        if isinstance(s, int) and s < 0:   # to the end from a start computed at run time
            s = size_from_values(_rest(x, start)[d])
        out = window(out, d, start[d], s, checked=False)
        windows[d] = out
    out = _t.identity(out, name=name or "Slice")
    # TF's Slice kernel refuses a window leaving x (the gathers would fill zeros): the
    # Session checks it (kernel_checks), with the lengths and sizes of this run's values
    axes = tuple(sorted(windows))
    note(out, "slice", [start, x] + [windows[d] for d in axes], axes=axes)
    return out


def _fed_sizes(x, start, size):
    """The sizes of a ``size`` fed or computed at run time but not from shapes (a
    placeholder, ``tf.minimum(k, n)``): one Dim per axis, bound when values arrive, a
    negative entry meaning the rest of the axis from its start; None if ``size`` is
    known now (or read from shapes: ``_sizes``)."""
    if not computed(size):
        return None
    if isinstance(size, (list, tuple)):
        size = _t.stack([_t.cast(s, np.int64) for s in size])
    if size.shape != (x.ndim,) or size.dtype.kind not in "iu":
        raise ShapeError(f"slice: size {size.name!r} must hold one integer per axis of the "
                         f"input, of shape {x.shape}; it has shape {size.shape} and dtype "
                         f"{size.dtype}")
    size, rest = _t.cast(size, np.int64), _rest(x, start)
    return [size_from_values(_t.where(size[d] < 0, rest[d], size[d])) for d in range(x.ndim)]


def _rest(x, start):
    """Per axis, the length from ``start`` to the end of ``x`` (at least 0: a start past
    the end is the Slice check's error): what a size of -1 takes."""
    return _t.maximum(_t.shape(x, out_type=np.int64) - _t.cast(start, np.int64), 0)


def _known_starts(begin, ndim):
    """Each axis's start as an int when known now, else None (computed at run time)."""
    items = list(begin) if isinstance(begin, (list, tuple)) else \
        [None] * ndim if computed(begin) else list(static_value(begin, "slice(begin)"))
    return [None if item is None or isinstance(item, Node) and not known_now(item)
            else int(static_value(item, "slice(begin)")) for item in items]
