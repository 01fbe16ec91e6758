"""``tf.strided_slice``: TF's slicing op spelled with begin/end/strides vectors and bit
masks (seq2seq tutorials drop each target's last step with
``tf.strided_slice(targets, [0, 0], [batch_size, -1], [1, 1])``).

The vectors and masks become one Python index and go through the tensor's own
``__getitem__``, so values, static shapes and gradients are those of ``x[...]``: bit i
of ``begin_mask``/``end_mask`` leaves that bound out (``None``), of
``shrink_axis_mask`` takes the single index ``begin[i]`` (the axis goes), of
``new_axis_mask`` inserts an axis of size 1 (``None``), of ``ellipsis_mask`` stands for
the axes not named (``...``).  Bounds may be numbers, constants or scalar tensors known
as sizes (``tf.shape(x)[0]``).

Sits in ``compat``; imports ``tracing`` only.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.reshape(tf.range(12), [3, 4])
...     y = tf.strided_slice(x, [0, 0], [3, -1], [1, 2])
...     print(tf.Session().run(y).tolist())
[[0, 2], [4, 6], [8, 10]]
"""
from __future__ import annotations

from .. import tracing as _t
from ..graph import Node
from ..tracing.arrays import known_now, static_value

__all__ = ["strided_slice"]


def _entries(vector, n, what):
    """The n entries of a begin/end/strides vector: ints, or scalar tensors."""
    if isinstance(vector, Node) and not known_now(vector):
        if vector.ndim != 1 or vector.shape[0] != n:
            raise ValueError(f"strided_slice: {what} must be a vector of {n} entries, got "
                             f"shape {vector.shape}")
        return [vector[i] for i in range(n)]
    if isinstance(vector, (list, tuple)) and any(isinstance(v, Node) for v in vector):
        entries = list(vector)
    else:
        entries = [int(v) for v in static_value(vector, f"strided_slice({what})").reshape(-1)]
    if len(entries) != n:
        raise ValueError(f"strided_slice: begin, end and strides must have one entry per "
                         f"sliced axis; {what} has {len(entries)}, begin has {n}")
    return entries


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0,
                  ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0, var=None,
                  name=None):
    """``tf.strided_slice`` (module docstring): ``input_[index]`` for the index the
    vectors and masks describe."""
    x = _t.as_tensor(input_)
    n = len(begin) if isinstance(begin, (list, tuple)) else \
        int(begin.shape[0]) if isinstance(begin, Node) else len(static_value(begin, "begin"))
    starts, stops = _entries(begin, n, "begin"), _entries(end, n, "end")
    steps = [1] * n if strides is None else _entries(strides, n, "strides")
    index = []
    for i in range(n):
        bit = 1 << i
        if ellipsis_mask & bit:
            index.append(Ellipsis)
        elif new_axis_mask & bit:
            index.append(None)
        elif shrink_axis_mask & bit:
            index.append(starts[i])
        else:
            index.append(slice(None if begin_mask & bit else starts[i],
                               None if end_mask & bit else stops[i], steps[i]))
    out = x[tuple(index)]
    return _t.identity(out, name=name) if name else out
