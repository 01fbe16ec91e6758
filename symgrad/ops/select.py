"""``np.where`` without branches, for the reference evaluator's large float arrays.

numpy's ``where`` picks each element with a branch, which the processor mispredicts
about half the time on a random mask: a max-pool's "is this the window's maximum"
over 1.25 million float32 values took 4-6 ms.  Picking by bits takes three
vectorised passes (~1.2 ms): the mask widened to all-ones or all-zeros words, then
``(a & mask) | (b & ~mask)`` on the floats' bit patterns.  The result is numpy's bit
for bit (nan payloads, signed zeros, infinities), in numpy's dtype.

Only what is sure to have numpy's result type takes this path: a boolean array
condition, and two floats of one dtype (arrays or 0-d arrays, or Python numbers that
the array's dtype holds exactly: NumPy 2 gives the array's dtype then); anything else,
and small arrays, go to ``np.where``.

Imports numpy only.

>>> c = np.array([True, False, True])
>>> where(c, np.array([1.0, 2.0, -0.0]), np.nan).tolist()
[1.0, nan, -0.0]
"""
from __future__ import annotations

import numpy as np

# from this many elements (of the condition) the bits are picked; below it np.where
SELECT_FROM = 1 << 14
_WORDS = {2: np.int16, 4: np.int32, 8: np.int64}


def where(c, a, b):
    """``np.where(c, a, b)``, picked by bits where that is sure to give numpy's result."""
    if type(c) is not np.ndarray or c.dtype != np.bool_ or c.size < SELECT_FROM:
        return np.where(c, a, b)
    a_, b_ = _floats(a, b)
    if a_ is None:
        return np.where(c, a, b)
    word = _WORDS[a_.dtype.itemsize]
    mask = c.view(np.int8).astype(word)
    np.negative(mask, out=mask)          # 0 or -1: every bit
    out = np.bitwise_and(a_.view(word), mask)
    np.invert(mask, out=mask)
    out = np.bitwise_or(out, np.bitwise_and(b_.view(word), mask))
    return out.view(a_.dtype)


def _floats(a, b):
    """(a, b) as arrays of one float dtype with numpy's result type, or (None, None)."""
    arrays = [v for v in (a, b) if type(v) is np.ndarray]
    if not arrays:
        return None, None
    dtype = arrays[0].dtype
    if dtype.kind != "f" or dtype.itemsize not in _WORDS or \
            any(v.dtype != dtype for v in arrays):
        return None, None
    out = []
    for v in (a, b):
        if type(v) is not np.ndarray:
            v = _exact(v, dtype)
            if v is None:
                return None, None
        out.append(v)
    return out[0], out[1]


def _exact(value, dtype):
    """A Python int or float as a 0-d array of ``dtype`` when it holds it exactly."""
    if type(value) not in (int, float):
        return None
    try:
        held = np.array(value, dtype=dtype)
    except (OverflowError, ValueError):
        return None
    if value != value:   # nan: the same in every float dtype
        return held
    with np.errstate(all="ignore"):
        return held if float(held) == value else None
