"""Shape rules shared by ops: numpy's broadcasting (with unknown dimensions) and axes.

``broadcast_shapes`` is numpy's rule, where an unknown dimension (a Dim) keeps what is
known and is checked when values arrive (``check_broadcast``); ``normalize_axis``
turns an ``axis`` argument into sorted non-negative ints.  ``ops.base`` re-exports
them.  Imports numpy, ``symgrad.graph`` and ``symgrad.errors`` only.

>>> broadcast_shapes((2, 1), (3,)), normalize_axis(-1, 3)
((2, 3), (2,))
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Dim, is_static


def broadcast_shapes(*shapes, op="op"):
    """numpy's broadcast of ``shapes``; ShapeError naming the op when they clash.

    With unknown dimensions (Dims) an axis keeps what is known: a Dim against 1 is
    the Dim, against a size d > 1 is d, against another Dim is the first; the sizes
    must then agree when values arrive (``check_broadcast``): symgrad does not
    stretch an unknown dimension that turns out to be 1.
    """
    try:   # static shapes met before (a graph meets few distinct ones)
        return _BROADCAST[shapes]
    except (KeyError, TypeError):
        pass
    first = shapes[0] if shapes else ()
    if all(s == first for s in shapes) and is_static(first):  # no broadcasting at all
        return _remember(shapes, tuple(first))
    if all(is_static(s) for s in shapes):
        try:
            return _remember(shapes, tuple(np.broadcast_shapes(*shapes)))
        except ValueError:
            pass
    else:
        out = _broadcast_dims(shapes)
        if out is not None:
            return out
    raise ShapeError(f"{op}: shapes {', '.join(map(str, shapes))} do not broadcast "
                     "(numpy rules: trailing axes must match or be 1)")


def _remember(shapes, out):
    if len(_BROADCAST) < 4096 and all(type(s) is tuple and all(type(d) is int for d in s)
                                      for s in shapes):
        _BROADCAST[shapes] = out
    return out


_BROADCAST: dict = {}


def _broadcast_dims(shapes):
    rank = max(len(s) for s in shapes)
    out = []
    for axis in range(rank):
        dims = [s[len(s) - rank + axis] for s in shapes if len(s) - rank + axis >= 0]
        known = {d for d in dims if not isinstance(d, Dim) and d != 1}
        if len(known) > 1:
            return None
        unknown = [d for d in dims if isinstance(d, Dim)]
        out.append(known.pop() if known else unknown[0] if unknown else 1)
    return tuple(out)


def check_broadcast(in_shapes, out_shape, static_in, op="op"):
    """At evaluation: each unknown input dimension equals the output's size there."""
    for shape, static in zip(in_shapes, static_in):
        lead = len(out_shape) - len(shape)
        for axis, (d, s) in enumerate(zip(shape, static)):
            if isinstance(s, Dim) and d != out_shape[lead + axis]:
                raise ShapeError(
                    f"{op}: shapes {', '.join(map(str, in_shapes))} do not agree: an unknown "
                    f"dimension (None) must match the other operands' size {out_shape[lead + axis]} "
                    f"(it is {d}); symgrad broadcasts only dimensions known to be 1")


def normalize_axis(axis, ndim, op="op"):
    """``axis`` (None, int or sequence) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise ShapeError(f"{op}: axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: repeated axis in {axis}")
    return tuple(sorted(out)) if ndim else ()
