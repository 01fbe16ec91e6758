"""``pad``: TF's ``tf.pad`` in its three modes, composed from registry primitives.

CONSTANT pads concatenate blocks of ``constant_values`` (widths may be sizes known
only at run time, as WaveNet's time_to_batch computes them); REFLECT and SYMMETRIC
gather each axis at numpy's mirrored index table, so the gradient is a scatter-add.

SEMANTICS (TF's): a REFLECT pad must be narrower than its axis (the edge is not
repeated), a SYMMETRIC one at most as wide (``ArgumentError``, which compat's
``tf.pad`` raises as TF's InvalidArgumentError); numpy would wrap round instead.

Imports ``tracing.arrays`` (its helpers), which does not import this module.

>>> from symgrad.tracing import Graph, constant
>>> with Graph().as_default():
...     pad(constant([1.0, 2.0, 3.0]), [[2, 1]], "REFLECT").numpy().tolist()
[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, ShapeError
from ..graph import Dim
from ..ops import apply
from ..ops.base import filled
from .arguments import publish
from .arrays import _along, _sized, static_value
from .functions import _lift, _one_size, concat
from .math_ops import named

__all__ = ["pad"]


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tensor`` padded by ``paddings[d] = [before, after]`` on each axis; ``mode`` is
    CONSTANT (``constant_values``), REFLECT or SYMMETRIC (numpy's reflect/symmetric)."""
    (x,) = _lift([tensor])
    widths = _pad_widths(paddings)
    if len(widths) != x.ndim or any(isinstance(w, int) and w < 0 for r in widths for w in r):
        raise ShapeError(f"pad: paddings {widths} must be [before, after] >= 0 for "
                         f"each of the {x.ndim} axes")
    mode = str(mode).upper()
    if mode != "CONSTANT" and any(isinstance(w, Dim) for r in widths for w in r):
        raise ShapeError(f"pad(mode={mode!r}): paddings {widths} computed at run time "
                         "are padded with mode='CONSTANT' only")
    if mode in ("REFLECT", "SYMMETRIC"):
        out = x
        for d, (n, (a, b)) in enumerate(zip(x.shape, widths)):   # one axis at a time
            if not a and not b:
                continue
            if isinstance(n, Dim):
                raise ShapeError(f"pad(mode={mode!r}): axis {d} of {x.shape} has a size "
                                 "known only at run time; pad it with mode='CONSTANT' or "
                                 "give it a fixed size")
            _reflectable(mode, d, n, a, b)
            out = _along(out, d, np.pad(np.arange(n), (int(a), int(b)), mode=mode.lower()))
        return named(out, name) if out is not x else apply("identity", [x], name=name)
    if mode != "CONSTANT":
        raise ValueError(f"pad(mode={mode!r}): use 'CONSTANT', 'REFLECT' or 'SYMMETRIC'")
    out = x
    for d, (a, b) in enumerate(widths):
        parts = []
        for width in (a, b):
            shape = out.shape[:d] + (width,) + out.shape[d + 1:]
            parts.append(filled(x.graph, constant_values, shape, x.dtype))
        out = concat([parts[0], out, parts[1]], d) if a or b else out
    return named(out, name) if out is not x else apply("identity", [x], name=name)


def _reflectable(mode, d, n, a, b):
    """TF's bound on a mirrored pad: below the axis size for REFLECT (the edge is not
    repeated), at most the size for SYMMETRIC (numpy would wrap around again)."""
    limit = n - 1 if mode == "REFLECT" else n
    if max(a, b) > limit:   # (an ArgumentError: compat's tf.pad raises TF's class)
        raise ArgumentError(f"pad(mode={mode!r}): paddings [{a}, {b}] of axis {d} (size {n}) "
                         f"must be at most {limit}; pad less or use mode='CONSTANT'")


def _pad_widths(paddings):
    """``paddings`` as rows [before, after] of ints, and of sizes bound when values
    arrive for widths computed in the graph (WaveNet's time_to_batch pads by
    ``dilation - 1 - (tf.shape(x)[1] + dilation - 1) % dilation``)."""
    rows = list(paddings) if isinstance(paddings, (list, tuple)) else None
    if rows is None or not any(_sized(r) for r in rows):
        return static_value(paddings, "pad(paddings)").astype(np.int64).reshape(-1, 2).tolist()
    return [[_one_size(w, "pad(paddings)") for w in r] for r in rows]


publish(globals())
