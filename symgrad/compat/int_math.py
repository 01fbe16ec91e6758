"""TF1's integer arithmetic where it differs from the float rule: ``tf.div`` and
``tf.reduce_mean`` of integer tensors stay integers.

- ``tf.div(x, y)`` is TF1's Python-2 division: for integers it rounds toward -inf
  (``tf.div(-7, 2)`` is -4, int32), for floats it is true division.
- ``tf.reduce_mean`` of integers is the integer sum divided by the count, rounded toward
  zero as C divides (``tf.reduce_mean([1, 2])`` is 1, ``[-1, -2]`` gives -1), in the
  input's dtype; floats are unchanged.

Sits in ``compat`` under ``v1`` (``v1_more`` re-exports it); imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(tf.Session().run([tf.div(-7, 2), tf.reduce_mean([-1, -2]), tf.div(7., 2.)]))
[-4, -1, 3.5]
"""
from __future__ import annotations

from .. import tracing as _t
from .math_extra import truncatediv
from .tensor import tf1_results
from .v1_ops import reduce_mean as _float_mean, reduce_sum as _sum

__all__ = ["div", "reduce_mean"]


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
