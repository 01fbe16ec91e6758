"""TF1 ops built from symgrad's primitives (gradients follow from theirs): ``tf.cross``
(``tf.linalg.cross``), ``tf.nn.crelu``, ``tf.nn.log_poisson_loss``,
``tf.math.polygamma`` (an order known when built), and the counting
ops ``tf.bincount`` (``tf.math.bincount``) and ``tf.setdiff1d``, which have no
gradient in TF (``tf.gradients`` through them raises LookupError, as TF's).

- ``cross(a, b)``: the cross product of the 3-vectors in the last axis; a and b have
  the same shape (TF does not broadcast).
- ``log_poisson_loss(targets, log_input, compute_full_loss)``: ``exp(c) - c * z``;
  the full loss adds Stirling's term ``z log z - z + log(2 pi z) / 2`` where z > 1
  (0 for 0 <= z <= 1, TF's mask).  Differs from TF: the targets' gradient at z = 0
  is finite (symgrad's ``where`` lets no NaN in from the branch not taken; TF's is NaN).
- ``bincount(arr)``: how often each of 0..max(arr) occurs (``minlength``/``maxlength``
  widen or cut the result; its length is known when the values are, as
  ``tf.boolean_mask``'s); with ``weights``, their sums.  Negative entries fail the run
  (InvalidArgumentError), as TF's.  Work is len(arr) times the result's length.
- ``setdiff1d(x, y)``: ``(out, idx)``, the entries of the vector x not in y, in order,
  and their positions in x.

Sits in ``compat``; imports numpy, the tracing layer, ``ops`` and ``compat.debugging``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     counts = tf.bincount(tf.constant([1, 1, 3, 0]))
...     out, idx = tf.setdiff1d([1, 2, 3, 4], [1, 3])
...     print(*tf.Session().run([counts, out, idx]))
[1 2 0 1] [2 4] [1 3]
"""
from __future__ import annotations

import collections
import math

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..ops import apply
from ..ops.deferred import deferrable
from . import debugging as _debugging
from . import variables as _variables
from .tensor import constant as _constant


@deferrable()
def cross(a, b, name=None):
    """``tf.cross``: ``a x b`` for the 3-vectors in the last axis."""
    x, y = _tf1([a, b])
    if x.shape != y.shape or x.ndim == 0 or x.shape[-1] != 3:
        raise ShapeError(f"cross: a and b must have the same shape with 3 as the last "
                         f"dimension (3-vectors); got {x.shape} and {y.shape}")
    a0, a1, a2 = _t.unstack(x, axis=-1)
    b0, b1, b2 = _t.unstack(y, axis=-1)
    return _t.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1,
                    name=name or "Cross")


@deferrable()
def crelu(features, name=None, axis=-1):
    """``tf.nn.crelu``: ``concat([relu(x), relu(-x)], axis)``."""
    x = _t.as_tensor(features)
    return _t.concat([_t.relu(x), _t.relu(-x)], axis, name=name or "CRelu")


@deferrable()
def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``tf.nn.log_poisson_loss``: ``exp(log_input) - log_input * targets``, plus TF's
    Stirling term where targets > 1 when ``compute_full_loss``."""
    c, z = _tf1([log_input, targets])
    if c.shape != z.shape:
        raise ValueError(f"`log_input` and `targets` must have the same shape, received "
                         f"({c.shape} vs {z.shape}).")
    with c.graph.name_scope(name or "log_poisson_loss"):
        loss = _t.exp(c) - c * z
        if not compute_full_loss:
            return loss
        half = np.asarray(0.5, z.dtype)
        stirling = z * _t.log(z) - z + half * _t.log(np.asarray(2 * math.pi, z.dtype) * z)
        small = _t.logical_and(_t.greater_equal(z, np.asarray(0, z.dtype)),
                               _t.less_equal(z, np.asarray(1, z.dtype)))
        return loss + _t.where(small, _t.zeros_like(z), stirling)


def polygamma(a, x, name=None):
    """``tf.math.polygamma(a, x)``: psi^(a)(x) for an order ``a`` known when the graph is
    built, one non-negative integer for every entry (TF's a is elementwise; its
    gradient None, as here); the gradient in x is polygamma(a + 1, x)."""
    (v,) = _tf1([x])
    order = np.unique(_t.arrays.static_value(a, "polygamma(a)"))
    if order.size != 1 or order[0] != int(order[0]) or order[0] < 0:
        raise ValueError(f"polygamma: the order a must be one non-negative integer for "
                         f"every entry, known when the graph is built; got {order.tolist()}")
    return apply("polygamma", [v], n=int(order[0]), name=name or "Polygamma")


def _no_gradient(op_name, op_type):
    def grad(g):
        raise LookupError(f"No gradient defined for operation '{op_name}' (op type: "
                          f"{op_type}): its result counts or picks values; put "
                          "tf.stop_gradient on its input if it should count as a constant")
    return grad


def _without_gradient(inputs, out, op_name, op_type):
    return apply("custom_gradient", list(inputs) + [out], name=op_name,
                 grad=_no_gradient(op_name, op_type))


@deferrable()
def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=np.int32, name=None):
    """``tf.bincount``: counts (or sums of ``weights``) of each of 0..max(arr)."""
    values = _t.reshape(_integers(arr, "bincount(arr)"), [-1])
    with values.graph.name_scope(name or "bincount"):
        check = _debugging.assert_non_negative(values, message="Input arr must be "
                                               "non-negative!")
        with _variables.control_dependencies([check] if check is not None else []):
            values = _t.identity(values)
        size = _t.reduce_max(_t.concat([values + 1, _t.constant([0], values.dtype)], 0))
        if minlength is not None:
            size = _t.maximum(size, np.asarray(minlength, size.dtype))
        if maxlength is not None:
            size = _t.minimum(size, np.asarray(maxlength, size.dtype))
        bins = _t.range(_t.cast(size, np.int32), dtype=values.dtype)
        hit = _t.equal(_t.expand_dims(values, 1), _t.expand_dims(bins, 0))   # [entry, bin]
        if weights is None:
            counts = _t.reduce_sum(_t.cast(hit, dtype), axis=0)
            return _t.cast(counts, dtype, name="bincount")
        w = _t.reshape(_tf1([weights])[0], [-1])
        if isinstance(w.shape[0], int) and isinstance(values.shape[0], int) and \
                w.shape[0] != values.shape[0]:
            raise ValueError(f"bincount: weights ({w.shape[0]} entries) must have arr's "
                             f"shape ({values.shape[0]} entries)")
        counts = _t.reduce_sum(_t.where(hit, _t.expand_dims(w, 1), _t.zeros_like(
            _t.expand_dims(w, 1))), axis=0)
        return _without_gradient([w], _t.cast(counts, w.dtype), "bincount", "DenseBincount")


def _integers(value, what):
    if isinstance(value, _t.Tensor):
        if value.dtype.kind == "f":   # (TF casts, dropping the fractions)
            return _t.cast(value, np.int32)
        if value.dtype.kind not in "iu":
            raise TypeError(f"{what}: needs an integer tensor, got {value.dtype}; cast it "
                            "with tf.cast(arr, tf.int32)")
        return value
    return _constant(np.asarray(value).astype(np.int32))


def _tf1(values):
    """Tensors as they are; Python values as TF converts them (float32, int32)."""
    return [v if isinstance(v, _t.Tensor) else _constant(v, dtype=_variables.tf_dtype(v, None))
            for v in values]


ListDiff = collections.namedtuple("ListDiff", ["out", "idx"])


def setdiff1d(x, y, index_dtype=np.int32, name=None):
    """``tf.setdiff1d``: ``(out, idx)``, the entries of the vector x not in y and where
    they are in x (module docstring)."""
    return ListDiff(*_setdiff1d(x, y, index_dtype, name))


@deferrable(count=lambda *args, **kwargs: 2)
def _setdiff1d(x, y, index_dtype, name):
    a, b = _tf1([x, y])
    if a.ndim != 1 or b.ndim != 1:
        raise ShapeError(f"setdiff1d: x and y must be vectors (rank 1), got shapes {a.shape} "
                         f"and {b.shape}")
    if a.dtype != b.dtype:
        raise TypeError(f"Input 'y' of 'ListDiff' Op has type {b.dtype} that does not match "
                        f"type {a.dtype} of argument 'x'.")
    with a.graph.name_scope(name or "ListDiff"):
        found = _t.reduce_any(_t.equal(_t.expand_dims(a, 1), _t.expand_dims(b, 0)), axis=1)
        keep = _t.logical_not(found)
        out = _without_gradient([a], _t.boolean_mask(a, keep), "ListDiff", "ListDiff")
        where = _t.range(_t.shape(a)[0], dtype=index_dtype)
        return [out, _t.boolean_mask(where, keep)]


__all__ = ["cross", "crelu", "log_poisson_loss", "bincount", "setdiff1d", "polygamma"]
