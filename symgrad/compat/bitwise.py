"""``tf.bitwise``: ``bitwise_and``, ``bitwise_or``, ``bitwise_xor``, ``invert``,
``left_shift``, ``right_shift`` on integer tensors (the ops of ``ops.bitwise``).

TF's rules for the arguments, as its op library applies them:

- the first argument fixes the dtype: a tensor's own, a numpy value's, int32 for Python
  ints; it must be an integer type (int8 ... uint64), else TypeError naming ``x``;
- the second, if a tensor, must have that dtype (TypeError naming both); a Python or
  numpy value is converted to it (``tf.bitwise.bitwise_and(int8_t, 300)`` wraps 300 to 44),
  except a float, which is TF's TypeError ("Expected int32 passed to parameter 'y'");
- shifts clamp the shift to ``[0, bits - 1]`` and wrap left shifts in the dtype;
- no gradient flows (integers carry none); default names are TF's op types
  (``BitwiseAnd``, ``LeftShift``, ...).

Sits in ``compat`` under ``v1``; imports ``tracing`` and ``compat.tensor``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([12, -5], dtype=tf.int8)
...     print(tf.Session().run([tf.bitwise.bitwise_and(x, 10), tf.bitwise.left_shift(x, 4)]))
[array([ 8, 10], dtype=int8), array([-64, -80], dtype=int8)]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..tracing.tensor import apply
from .slices import convert_to_tensor
from .tensor import as_tensor_keeping_dtype

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_INTEGERS = "int8, int16, int32, int64, uint8, uint16, uint32, uint64"


def _is_tensor(value):
    return isinstance(value, Node) or hasattr(value, "as_graph_tensor")


def _first(value):
    """``x`` as a tensor of an integer dtype (TF's conversion of the first input)."""
    x = convert_to_tensor(value)
    if x.dtype.kind not in "iu":
        raise TypeError(f"Value passed to parameter 'x' has DataType {x.dtype.name} not in "
                        f"list of allowed values: {_INTEGERS}; tf.bitwise takes integer "
                        f"tensors: tf.cast it to an integer type first")
    return x


def _second(value, x, op_type):
    """``y`` as a tensor of x's dtype: a tensor must have it, a value is converted."""
    if _is_tensor(value):
        (y,) = _t.functions._lift([value])
        if y.dtype != x.dtype:
            raise TypeError(f"Input 'y' of '{op_type}' Op has type {y.dtype.name} that does "
                            f"not match type {x.dtype.name} of argument 'x'; tf.cast one "
                            f"of them so both have the same integer type")
        return y
    arr = np.asarray(value)
    if arr.dtype.kind not in "iub":
        raise TypeError(f"Expected {x.dtype.name} passed to parameter 'y' of op "
                        f"'{op_type}', got {value!r} of type '{type(value).__name__}' "
                        f"instead; pass integers")
    return as_tensor_keeping_dtype(arr.astype(x.dtype))


def _width(x):
    return {"bits": 8 * x.dtype.itemsize, "signed": x.dtype.kind == "i"}


def _binary(op, op_type, x, y, name, **attrs):
    x = _first(x)
    y = _second(y, x, op_type)
    return apply(op, [x, y], name=name or op_type, **attrs)


def bitwise_and(x, y, name=None):
    """``x & y`` elementwise (integers of one dtype)."""
    return _binary("bitwise_and", "BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    """``x | y`` elementwise (integers of one dtype)."""
    return _binary("bitwise_or", "BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    """``x ^ y`` elementwise (integers of one dtype)."""
    return _binary("bitwise_xor", "BitwiseXor", x, y, name)


def invert(x, name=None):
    """``~x``: every bit flipped (``-x - 1`` for signed integers)."""
    x = _first(x)
    return apply("invert", [x], name=name or "Invert", **_width(x))


def left_shift(x, y, name=None):
    """``x << y`` wrapped to x's dtype, y clamped to ``[0, bits - 1]`` (TF's kernel)."""
    first = _first(x)
    return _binary("left_shift", "LeftShift", first, y, name, **_width(first))


def right_shift(x, y, name=None):
    """``x >> y`` (arithmetic for signed x), y clamped to ``[0, bits - 1]`` (TF's kernel)."""
    first = _first(x)
    return _binary("right_shift", "RightShift", first, y, name, **_width(first))
