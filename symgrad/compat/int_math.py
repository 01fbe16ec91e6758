"""TF1's integer arithmetic where it differs from the float rule: ``tf.div`` and
``tf.reduce_mean`` of integer tensors stay integers; ``tf.truediv`` picks TF's float type.

- ``tf.div(x, y)`` is TF1's Python-2 division: for integers it rounds toward -inf
  (``tf.div(-7, 2)`` is -4, int32), for floats it is true division.
- ``tf.reduce_mean`` of integers is the integer sum divided by the count, rounded toward
  zero as C divides (``tf.reduce_mean([1, 2])`` is 1, ``[-1, -2]`` gives -1), in the
  input's dtype; floats are unchanged.
- ``tf.truediv`` / ``tf.divide`` / ``x / y`` of integers divide as floats: float32 for 8- and
  16-bit integers, float64 for wider ones (TF's table); Python ints are int32 there, so
  ``tf.truediv(7, 2)`` is a float64 3.5.

Sits in ``compat`` under ``v1`` (``v1_more`` re-exports it); imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run([tf.div(-7, 2), tf.reduce_mean([-1, -2]), tf.div(7., 2.)]))
...     print(tf.truediv(7, 2).dtype, (tf.constant([7], tf.int8) / 2).dtype)
[-4, -1, 3.5]
float64 float32
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from .math_extra import truncatediv
from .tensor import constant, tf1_results
from .v1_ops import reduce_mean as _float_mean, reduce_sum as _sum

__all__ = ["div", "reduce_mean", "truediv"]

# TF's truediv table: the float type each integer type divides in
_TRUEDIV = {np.dtype(t): np.dtype(f) for t, f in [
    (np.int8, np.float32), (np.uint8, np.float32), (np.int16, np.float32),
    (np.uint16, np.float32), (np.int32, np.float64), (np.uint32, np.float64),
    (np.int64, np.float64), (np.uint64, np.float64)]}


def _is_integer(x):
    return x.dtype.kind in "iu"


@tf1_results
def div(x, y, name=None):
    """``tf.div``: integers divided rounding toward -inf (floor), floats divided exactly."""
    a, b = _t.functions._lift([x, y])
    if _is_integer(a) and _is_integer(b):
        return _t.floordiv(a, b, name=name)
    return _t.div(a, b, name=name)


@tf1_results
def reduce_mean(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
                keep_dims=None):
    """``tf.reduce_mean``: of integers, the sum over the count rounded toward zero (TF's
    integer kernel) in the input's dtype; of floats, the mean."""
    (x,) = _t.functions._lift([input_tensor])
    if not _is_integer(x):
        return _float_mean(x, axis, keepdims, name, reduction_indices, keep_dims)
    total = _sum(x, axis, keepdims, None, reduction_indices, keep_dims)
    # the count of each mean: all entries over the entries left after the reduction
    count = _t.floordiv(_t.cast(_t.size(x), x.dtype), _t.cast(_t.size(total), x.dtype))
    return truncatediv(total, count, name=name)


def truediv(x, y, name=None):
    """``x / y`` (``tf.truediv``, ``tf.divide``, the ``/`` of TF1 tensors): integers of
    one type divided in TF's float type for it, others as they are."""
    a, b = _operands(x, y)
    to = _TRUEDIV.get(a.dtype) if a.dtype == b.dtype else None
    if to is not None:
        a, b = _t.cast(a, to), _t.cast(b, to)
    return _t.div(a, b, name=name)


# its results are TF1 tensors already; tf1_results's wrapper would make the float64 of
# two Python ints float32 (its rule for results of Python numbers alone)
truediv.tf1_results = True


def _operands(x, y):
    """Two tensors; Python numbers alone become TF's default types (int32, float32)."""
    if not any(isinstance(v, Node) or hasattr(v, "as_graph_tensor") for v in (x, y)):
        x, y = (constant(np.asarray(v, dtype=_PYTHON.get(np.asarray(v).dtype.kind)))
                for v in (x, y))
    return _t.functions._lift([x, y])


_PYTHON = {"i": np.int32, "f": np.float32}
