"""TF1 ops built from symgrad's primitives (gradients follow from theirs): the old
names ``tf.arg_max``/``tf.arg_min``, ``tf.matrix_set_diag`` (``tf.linalg.set_diag``),
``tf.unique``/``unique_with_counts``, ``tf.nn.zero_fraction``, ``tf.nn.lrn``
(``local_response_normalization``), ``tf.nn.depthwise_conv2d`` and
``separable_conv2d``.

- ``set_diag``: the input where the mask of its main diagonal is False, the diagonal
  (broadcast along the other axis) where it is True; so the input gets the gradient off
  the diagonal and the diagonal the gradient's diagonal, as in TF.
- ``unique(x)``: ``(y, idx)``, y the values of the vector x in order of first
  appearance (its length known when the values are, like ``tf.boolean_mask``'s), idx
  the position in y of each entry of x.  An entry is a first appearance when no earlier
  entry equals it (comparisons of all pairs: n**2 work).  As in TF, no gradient is
  defined through y (``tf.gradients`` raises LookupError).
- ``lrn``: ``x / (bias + alpha * s) ** beta``, s the sum of squares over the channels
  within ``depth_radius`` (a constant band matrix over the channels, which must be
  known).
- ``depthwise_conv2d``: ``conv2d`` with the block-diagonal filter that keeps each input
  channel apart (channel c's m-th output is output channel ``c * M + m``, TF's order);
  ``separable_conv2d`` follows it with the 1x1 ``pointwise_filter``.

Sits in ``compat``; imports the tracing layer and ``ops``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y, idx = tf.unique(tf.constant([1, 1, 2, 4, 4, 4, 7, 8, 8]))
...     print(*tf.Session().run([y, idx]))
[1 2 4 7 8] [0 0 1 2 2 2 3 4 4]
"""
from __future__ import annotations

import collections

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..graph import Dim, Node
from ..ops import apply, literal
from ..ops.draws import band_mask
from ..tracing import linalg as _linalg
from ..tracing.conv import conv2d
from .tensor import as_tf1


def arg_max(input, dimension, output_type=np.int64, name=None):  # noqa: A002
    """TF1's ``tf.arg_max`` (``tf.argmax`` with ``dimension`` required)."""
    return _t.argmax(input, axis=dimension, output_type=output_type, name=name or "ArgMax")


def arg_min(input, dimension, output_type=np.int64, name=None):  # noqa: A002
    """TF1's ``tf.arg_min``."""
    return _t.argmin(input, axis=dimension, output_type=output_type, name=name or "ArgMin")


def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """The matrices of ``input`` (last two axes) with ``diagonal`` on their diagonal
    ``k`` (0: the main one, > 0 above it).  A list or array diagonal takes input's
    dtype, as TF converts it."""
    x = _t.as_tensor(input)
    d = diagonal if isinstance(diagonal, Node) else _t.constant(np.asarray(diagonal, x.dtype))
    k = _linalg.diagonal_k(k, "set_diag")
    if x.ndim < 2:
        raise ShapeError(f"set_diag: needs matrices (rank >= 2), got shape {x.shape}")
    rows, cols = x.shape[-2:]
    unknown = isinstance(rows, Dim) or isinstance(cols, Dim)
    if unknown and (rows != cols or k):
        raise ShapeError(f"set_diag: matrices of shape {x.shape} with sizes known at run "
                         "time must be square (the same size), set at k=0")
    length = rows if unknown else max(0, min(rows - max(0, -k), cols - max(0, k)))
    if tuple(d.shape) != tuple(x.shape[:-2]) + (length,):
        raise ShapeError(f"set_diag: the diagonal must have shape {x.shape[:-2]} + "
                         f"({length},) for input of shape {x.shape} and k={k}; got {d.shape}")
    if k:
        on = literal(x.graph, np.eye(rows, cols, k, dtype=bool))
        return _t.where(on, _linalg.offset_diagonal(d, rows, cols, k), x,
                        name=name or "set_diag")
    # (a batch of n x n matrices, n known at run time: the diagonal's mask made then)
    on = band_mask(x.graph, rows, cols, 0, 0, np.bool_) if unknown else \
        literal(x.graph, np.eye(rows, cols, dtype=bool))
    spread = _t.expand_dims(d, -1 if unknown or rows <= cols else -2)
    return _t.where(on, spread, x, name=name or "set_diag")


set_diag = matrix_set_diag


def zero_fraction(value, name=None):
    """``tf.nn.zero_fraction``: the fraction of entries equal to zero (float32)."""
    x = _t.as_tensor(value)
    with x.graph.name_scope(name or "zero_fraction"):
        zero = literal(x.graph, np.zeros((), x.dtype))
        return _t.reduce_mean(_t.cast(_t.equal(x, zero), np.float32), name="fraction")


Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _first_appearances(x, what):
    """(pairwise equality, first-appearance flags, rank of each first appearance)."""
    if x.ndim != 1:
        raise ShapeError(f"{what}: x must be a vector (rank 1), got shape {x.shape}")
    n = x.shape[0]
    same = _t.equal(_t.expand_dims(x, 1), _t.expand_dims(x, 0))          # [i, j]: x_i == x_j
    up_to = band_mask(x.graph, n, n, -1, 0, np.bool_)                     # [i, j]: j <= i
    before = _t.logical_and(up_to, _t.logical_not(band_mask(x.graph, n, n, 0, 0, np.bool_)))
    first = _t.logical_not(_t.reduce_any(_t.logical_and(same, before), axis=1))
    # a first appearance's position in y: the first appearances up to it, less one
    rank = _t.reduce_sum(_t.cast(_t.logical_and(up_to, first), np.int64), axis=1) - 1
    return same, first, rank


def _no_gradient(g):
    raise LookupError("No gradient defined for operation 'Unique' (op type: Unique): the "
                      "values tf.unique keeps are not differentiable; put tf.stop_gradient "
                      "on its input if it should count as a constant")


def unique(x, out_idx=np.int32, name=None):
    """``tf.unique(x)``: ``(y, idx)`` (module docstring)."""
    return Unique(*_unique(x, out_idx, name, "unique")[:2])


def unique_with_counts(x, out_idx=np.int32, name=None):
    """``tf.unique_with_counts(x)``: ``(y, idx, count)``, count[k] how often y[k] occurs."""
    y, idx, same, first = _unique(x, out_idx, name, "unique_with_counts")
    counts = _t.reduce_sum(_t.cast(same, np.dtype(out_idx)), axis=1)
    return UniqueWithCounts(y, idx, _t.boolean_mask(counts, first))


def _unique(x, out_idx, name, what):
    """(y, idx, pairwise equality, first-appearance flags) of the vector ``x``."""
    x = _t.as_tensor(x)
    same, first, rank = _first_appearances(x, what)
    picked = _t.boolean_mask(x, first)
    y = as_tf1(apply("custom_gradient", [x, picked], name=name or "Unique",
                     grad=_no_gradient))
    mine = _t.logical_and(same, _t.expand_dims(first, 0))   # [i, j]: j is x_i's first
    idx = _t.reduce_sum(_t.cast(mine, np.int64) * _t.expand_dims(rank, 0), axis=1)
    return y, _t.cast(idx, out_idx, name=f"{name or 'Unique'}_idx"), same, first


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5, name=None):
    """``tf.nn.lrn``: ``x / (bias + alpha * s) ** beta``, s the sum of squares of the
    channels within ``depth_radius`` of each one (NHWC, float32 or float16)."""
    x = _t.as_tensor(input)
    if x.ndim != 4:
        raise ShapeError(f"lrn: Shape must be rank 4 but is rank {x.ndim} (input of shape "
                         f"{x.shape}; a batch [batch, height, width, channels])")
    if x.dtype not in (np.float32, np.float16):
        raise TypeError(f"Value passed to parameter 'input' has DataType {x.dtype.name} not "
                        "in list of allowed values: float16, float32; cast it to tf.float32")
    channels = x.shape[-1]
    if isinstance(channels, Dim):
        raise ShapeError(f"lrn: the number of channels must be known, got shape {x.shape}")
    c = np.arange(channels)
    near = (np.abs(c[:, None] - c[None, :]) <= int(depth_radius)).astype(x.dtype)
    sums = _t.einsum("nhwc,cd->nhwd", _t.square(x), literal(x.graph, near))
    scale = _t.pow(bias + alpha * sums, np.asarray(beta, x.dtype))
    return _t.div(x, scale, name=name or "LRN")


lrn = local_response_normalization


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None,  # noqa: A002
                     data_format=None, dilations=None):
    """``tf.nn.depthwise_conv2d``: ``filter`` [KH, KW, C, M] applied to each of the C
    input channels apart; output channels ``C * M`` (module docstring)."""
    x, f = _pair(input, filter)
    channels_at = 1 if str(data_format or "NHWC").upper().startswith("NC") else 3
    if f.ndim != 4 or x.ndim != 4 or x.shape[channels_at] != f.shape[2]:
        raise ShapeError(f"depthwise_conv2d: input {x.shape} ({data_format or 'NHWC'}) and "
                         f"filter {f.shape} [height, width, in_channels, multiplier] must "
                         "agree on the input channels")
    kh, kw, c, m = f.shape
    blocks = literal(f.graph, np.eye(c, dtype=f.dtype).reshape(1, 1, c, c, 1))
    full = _t.reshape(_t.expand_dims(f, 2) * blocks, (kh, kw, c, c * m))
    return conv2d(x, full, strides, padding, data_format=data_format or "NHWC",
                  dilations=_dilations(rate, dilations), name=name or "depthwise")


def _pair(x, f):
    """The input and filter as tensors (a Python or numpy filter takes the input's dtype,
    as TF converts it)."""
    x = _t.as_tensor(x)
    return x, f if isinstance(f, _t.Tensor) else literal(x.graph, np.asarray(f, x.dtype))


def _dilations(rate, dilations):
    given = dilations if rate is None else rate
    return 1 if given is None else given


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     rate=None, name=None, data_format=None, dilations=None):
    """``tf.nn.separable_conv2d``: ``depthwise_conv2d`` then the 1x1 convolution with
    ``pointwise_filter`` [1, 1, C * M, O]."""
    point = _t.as_tensor(pointwise_filter)
    if point.ndim != 4 or tuple(point.shape[:2]) != (1, 1):
        raise ShapeError(f"separable_conv2d: pointwise_filter must be [1, 1, in_channels * "
                         f"channel_multiplier, out_channels], got shape {point.shape}")
    deep = depthwise_conv2d(input, depthwise_filter, strides, padding, rate,
                            data_format=data_format, dilations=dilations)
    return conv2d(deep, pointwise_filter, 1, "VALID", data_format=data_format or "NHWC",
                  name=name or "separable_conv2d")


class LinearOperatorLowerTriangular:
    """``tf.linalg.LinearOperatorLowerTriangular(tril)``: the lower triangle of ``tril``
    (the rest ignored, as TF's) as an operator; here ``to_dense()`` (a Transformer's
    causal mask), ``matmul`` and ``matvec``, ``shape`` and ``dtype``."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorLowerTriangular"):
        self._tril, self.name = _t.as_tensor(tril), name
        if self._tril.ndim < 2:
            raise ShapeError(f"LinearOperatorLowerTriangular: tril must be a matrix (or a "
                             f"batch of them), got shape {self._tril.shape}")

    @property
    def shape(self):
        return self._tril.shape

    @property
    def dtype(self):
        return self._tril.dtype

    def to_dense(self, name="to_dense"):
        return _t.linalg.band_part(self._tril, -1, 0, name=name)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        return _t.matmul(self.to_dense(), x, transpose_a=adjoint, transpose_b=adjoint_arg,
                         name=name)

    def matvec(self, x, adjoint=False, name="matvec"):
        column = _t.expand_dims(x, -1)
        return _t.squeeze(self.matmul(column, adjoint=adjoint), -1, name=name)


__all__ = ["arg_max", "arg_min", "matrix_set_diag", "set_diag", "zero_fraction", "unique",
           "unique_with_counts", "local_response_normalization", "lrn", "depthwise_conv2d",
           "separable_conv2d", "LinearOperatorLowerTriangular"]
