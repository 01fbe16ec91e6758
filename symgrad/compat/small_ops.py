"""TF1 ops that are a line or two of other ops: ``tf.meshgrid``, ``tf.roll``
(``tf.manip.roll``), ``tf.div_no_nan`` (``tf.math.divide_no_nan``) and
``tf.nn.xw_plus_b``; their gradients are those of the ops they are made of.

- ``meshgrid(*xs, indexing="xy")``: N-d grids; "xy" (the default, as numpy's) swaps
  the first two output axes, "ij" keeps the inputs' order.
- ``roll(input, shift, axis)``: the entries move ``shift`` places along ``axis`` and
  wrap round (two slices concatenated); shifts known when the graph is built, several
  on one axis add up.
- ``div_no_nan(x, y)``: ``x / y``, 0 where y is 0 (its gradient 0 there too: the
  division sees 1 in place of a zero y).
- ``xw_plus_b(x, weights, biases)``: ``x @ weights + biases``.

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run(tf.roll(tf.range(5), shift=2, axis=0)))
[3 4 0 1 2]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..tracing.arrays import static_value

__all__ = ["meshgrid", "roll", "div_no_nan", "xw_plus_b"]


def meshgrid(*args, **kwargs):
    """``tf.meshgrid(x, y, ..., indexing="xy", name=None)``: one grid per input."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"meshgrid: unexpected arguments {sorted(kwargs)}")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [_t.reshape(_t.as_tensor(x), [-1]) for x in args]
    sizes = [x.shape[0] for x in xs]
    if indexing == "xy" and len(xs) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, x in enumerate(xs):
        axis = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) > 1 else i
        shape = [1] * len(xs)
        shape[axis] = -1
        full = _t.reshape(x, shape) * _t.ones(sizes, dtype=x.dtype)
        grids.append(_t.identity(full, name=f"{name}_{i}") if name else full)
    return grids


def roll(input, shift, axis, name=None):  # noqa: A002  (TF's argument name)
    """``tf.roll``: entries moved ``shift`` places along ``axis``, wrapping round."""
    x = _t.as_tensor(input)
    shifts = np.atleast_1d(static_value(shift, "roll(shift)")).astype(int)
    axes = np.atleast_1d(static_value(axis, "roll(axis)")).astype(int)
    if shifts.shape != axes.shape:
        raise ValueError(f"roll: shift {shifts.tolist()} and axis {axes.tolist()} must have "
                         f"the same length")
    total = {}
    for s, a in zip(shifts, axes):
        a = int(a) % x.ndim
        total[a] = total.get(a, 0) + int(s)
    for a, s in total.items():
        n = x.shape[a]
        if not isinstance(n, int):
            raise ShapeError(f"roll: axis {a} of shape {x.shape} must have a known size")
        s %= n
        if s:
            lead = (slice(None),) * a
            x = _t.concat([x[lead + (slice(n - s, None),)], x[lead + (slice(0, n - s),)]], a)
    return _t.identity(x, name=name) if name else x


def div_no_nan(x, y, name=None):
    """``tf.div_no_nan``: ``x / y`` where y is not 0, else 0."""
    x, y = _t.functions._lift([x, y])
    zero = _t.equal(y, _t.zeros_like(y))
    safe = _t.where(zero, _t.ones_like(y), y)
    q = x / safe
    return _t.where(_t.logical_and(zero, _t.ones_like(q, dtype=bool)), _t.zeros_like(q), q,
                    name=name)


def xw_plus_b(x, weights, biases, name=None):
    """``tf.nn.xw_plus_b``: ``matmul(x, weights) + biases``."""
    return _t.add(_t.matmul(x, weights), biases, name=name)
