"""TF1's ``tf.one_hot`` and its dtype rules: the result is float32 unless ``dtype`` or
the on/off values say otherwise, and values of different dtypes (or not of ``dtype``)
are TF's TypeError.  A Python number takes TF's dtype (1 is int32, or float32 where
``dtype`` is float32); tensors and numpy values keep theirs.

Sits in ``compat``; imports ``tracing.arrays`` (the one_hot it configures).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.one_hot([0, 2], 3, on_value=5, off_value=0).dtype)
int32
"""
from __future__ import annotations

import numpy as np

from ..graph import Node
from ..tracing import arrays as _arrays

__all__ = ["one_hot"]


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``tf.one_hot``: float32 unless ``dtype`` or the values say otherwise; as TF, an
    ``on_value`` and ``off_value`` of different dtypes (or not ``dtype``) are a TypeError."""
    found = {}
    for what, v in (("on_value", on_value), ("off_value", off_value)):
        if v is not None:
            found[what] = np.dtype(_value_dtype(v, dtype))
            if dtype is not None and found[what] != np.dtype(dtype):
                raise TypeError(f"one_hot: dtype {found[what].name} of {what} does not match "
                                f"the dtype parameter {np.dtype(dtype).name}; give values of "
                                f"that dtype")
    if len(set(found.values())) > 1:
        raise TypeError(f"one_hot: dtype {found['on_value'].name} of on_value does not match "
                        f"dtype {found['off_value'].name} of off_value; give both the same "
                        f"dtype (1.0 and 0.0, or tf.cast one)")
    dtype = dtype if dtype is not None else next(iter(found.values()), np.float32)
    return _arrays.one_hot(indices, depth, on_value, off_value, axis, dtype, name)


def _value_dtype(value, hint):
    """The dtype TF converts an on/off value to: a tensor's or array's own; a Python
    number takes the hint where it fits (1 as float32), else int32 or float32."""
    if isinstance(value, Node) or isinstance(value, (np.ndarray, np.generic)):
        return value.dtype
    kind = np.asarray(value).dtype.kind
    if hint is not None and (kind == np.dtype(hint).kind or
                             (kind in "iu" and np.dtype(hint).kind in "fiu")):
        return hint
    return np.bool_ if kind == "b" else np.int32 if kind in "iu" else np.float32
