"""``tf.SparseTensor`` and the TF1 ops that bag-of-words and linear models use on it.

A SparseTensor is three tensors: ``indices`` [N, rank] int64, ``values`` [N] and
``dense_shape`` [rank] int64.  ``sess.run`` of one gives a ``tf.SparseTensorValue``;
``tf.sparse_placeholder`` is fed with a SparseTensorValue or an ``(indices, values,
dense_shape)`` tuple.  Ops: ``tf.sparse_tensor_to_dense`` (``tf.sparse.to_dense``),
``tf.sparse_tensor_dense_matmul`` (``adjoint_a``/``adjoint_b``), ``tf.sparse_reduce_sum``
and ``tf.nn.embedding_lookup_sparse`` (``sum``, ``mean``, ``sqrtn``; TF's result has
``max(row) + 1`` rows).  They are sums over the N entries (gathers, segment sums), so
gradients flow to ``values`` and to the dense operand as in TF.

A dense shape that is known only when fed (``tf.sparse_placeholder(tf.float32)`` or
``shape=[None, V]``) is carried by a hidden placeholder of any shape, fed with a
zero-stride array of that shape: what is built on it is made when the shape arrives,
once per fed shape (``ops.deferred``).

Imports the tracing functions and ``ops.deferred``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     st = tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[2, 3])
...     print(tf.Session().run(tf.sparse_tensor_to_dense(st)).tolist())
[[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]]
"""
from __future__ import annotations

import collections

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError, ShapeError
from ..graph import Node, is_static, shape_size
from ..ops.deferred import any_shape_placeholder, deferrable
from ..ops.sizes import sizes_of
from ..tracing.arrays import static_value
from ..tracing.functions import _one_size
from ..tracing.tensor import _leaf
from . import rows as _rows
from .tensor import TensorShape, as_tf1, constant
from .variables import tf_dtype


class SparseTensorValue(collections.namedtuple("SparseTensorValue",
                                               ["indices", "values", "dense_shape"])):
    """What ``sess.run`` gives for a SparseTensor (numpy arrays)."""


class SparseTensor:
    """``tf.SparseTensor(indices, values, dense_shape)`` (module docstring)."""

    def __init__(self, indices, values, dense_shape, _carrier=None, _known=None):
        self.indices = _as_int64(indices, "indices")
        self.values = values if isinstance(values, Node) else constant(
            np.asarray(values, dtype=tf_dtype(values, None)))
        self.dense_shape = _as_int64(dense_shape, "dense_shape")
        self._carrier = _carrier          # an any-shape placeholder: the fed dense shape
        self._known = _known              # the dense shape when it is known now
        if _known is None and _carrier is None:
            self._known = _sizes(self.dense_shape)
        if self.indices.ndim != 2 or self.values.ndim != 1 or self.dense_shape.ndim != 1:
            raise ArgumentError(f"SparseTensor: indices [N, rank], values [N] and dense_shape "
                                f"[rank]; got shapes {self.indices.shape}, {self.values.shape}, "
                                f"{self.dense_shape.shape}")

    dtype = property(lambda self: self.values.dtype)
    graph = property(lambda self: self.values.graph)

    @property
    def shape(self):
        """The dense shape, as far as it is known when the graph is built."""
        known = self.static_shape()
        if known is not None:
            return TensorShape(known)
        if getattr(self, "_declared", None) is not None:
            return self._declared
        rank = self.dense_shape.shape[0]
        return TensorShape([None] * rank) if isinstance(rank, int) else None

    def get_shape(self):
        return self.shape

    def static_shape(self):
        """The dense shape as a tuple of ints, or None when it is known only when fed."""
        return self._known

    def eval(self, feed_dict=None, session=None):
        from .state import default_session
        return (session or default_session()).run(self, feed_dict)

    # -- what compat.session asks of a fetch or a feed key ------------------------------
    def _fetch_parts(self):
        return [self.indices, self.values, self.dense_shape]

    def _fetched(self, values):
        return SparseTensorValue(*values)

    def _feed_parts(self, value):
        if not isinstance(value, (tuple, list)) or len(value) != 3:
            raise TypeError(f"a SparseTensor ({self.values.op_name}) is fed with a "
                            "tf.SparseTensorValue or an (indices, values, dense_shape) tuple "
                            f"of arrays, not {type(value).__name__}")
        indices, values, shape = value
        shape = np.asarray(shape, np.int64).reshape(-1)
        parts = {self.indices: np.asarray(indices, np.int64).reshape(-1, shape.size),
                 self.values: np.asarray(values, self.values.dtype).reshape(-1),
                 self.dense_shape: shape}
        if self._carrier is not None:   # its shape is the dense shape; no memory
            parts[self._carrier] = np.broadcast_to(np.zeros((), self.dtype), tuple(shape))
        return parts

    def __mul__(self, other):
        """``sp * dense`` (TF's sparse_dense_cwise_mul): each entry times the dense value
        at its position, the dense side broadcast to the dense shape (GCN's sparse
        dropout scales by ``1. / keep_prob``)."""
        return self._cwise(other, _t.multiply)

    def __truediv__(self, other):
        return self._cwise(other, _t.truediv)

    def _cwise(self, other, op):
        d = other if isinstance(other, Node) else constant(np.asarray(other, self.dtype))
        if d.ndim:
            if self._known is None:
                raise ArgumentError("sparse * dense: a dense side of rank > 0 needs the "
                                    "sparse tensor's dense shape known when the graph is built")
            d = _t.gather_nd(_t.broadcast_to(d, list(self._known)), self.indices)
        return SparseTensor(self.indices, op(self.values, d), self.dense_shape,
                            _carrier=self._carrier, _known=self._known)

    def __repr__(self):
        return (f"SparseTensor(indices={self.indices!r}, values={self.values!r}, "
                f"dense_shape={self.dense_shape!r})")


def _sizes(dense_shape):
    """A dense shape given as a tensor: ints where it is known now, else one size per
    entry known when its values arrive (``tf.SparseTensor(ids, vals, shape_ph)`` of a
    wide model, the shape fed with the batch)."""
    try:
        return tuple(int(d) for d in static_value(dense_shape, "dense_shape"))
    except ShapeError:
        if not isinstance(dense_shape.shape[0], int):
            raise ArgumentError(f"SparseTensor: a dense_shape computed in the graph must have a "
                                f"known length (the rank), got {dense_shape.name!r} of shape "
                                f"{dense_shape.shape}") from None
        return tuple(_one_size(dense_shape[k], "dense_shape")
                     for k in range(dense_shape.shape[0]))


def _as_int64(value, what):
    if isinstance(value, Node):
        return value if value.dtype == np.int64 else _t.cast(value, np.int64)
    array = np.asarray(value, dtype=np.int64)
    if what == "indices" and array.size == 0:
        array = array.reshape(0, 1)
    return constant(array)


def sparse_placeholder(dtype, shape=None, name=None):
    """``tf.sparse_placeholder``: fed with a SparseTensorValue (module docstring)."""
    graph = _t.get_default_graph()
    if isinstance(shape, Node):   # a shape tensor (GCN's tf.constant(features[2], tf.int64))
        found = sizes_of(shape) if shape.shape is not None and len(shape.shape) == 1 else None
        if found is None:
            raise ArgumentError(f"sparse_placeholder(shape={shape.name!r}): a shape tensor "
                                "must have a value known when the graph is built")
        shape = [d if isinstance(d, int) else None for d in found]
    rank = None if shape is None else len(shape)
    with graph.name_scope(name or "SparsePlaceholder"):
        values = as_tf1(_t.placeholder(dtype, (None,), name="values"))
        # one size for both: the number of entries N (indices [N, rank], values [N])
        indices = as_tf1(_leaf("placeholder", None, "indices", np.dtype(np.int64),
                               (values.shape[0], rank)))
        dense_shape = as_tf1(_t.placeholder(np.int64, (rank,), name="shape"))
        carrier = None
        known = shape is not None and all(isinstance(d, (int, np.integer)) for d in shape)
        if not known:
            carrier = as_tf1(any_shape_placeholder(graph, values.dtype, "dense_shape_carrier"))
    sp = SparseTensor(indices, values, dense_shape, _carrier=carrier,
                      _known=tuple(int(d) for d in shape) if known else None)
    sp._declared = None if shape is None else TensorShape(
        None if d is None else int(d) for d in shape)
    return sp


def _check(sp, what):
    if not isinstance(sp, SparseTensor):
        raise ArgumentError(f"{what}: sp_input must be a tf.SparseTensor, not "
                            f"{type(sp).__name__}")
    return sp


def _size_source(sp):
    """A tuple for a shape known now, else the carrier (a tensor of the fed shape)."""
    known = sp.static_shape()
    return known if known is not None else sp._carrier


def _shape_of(size_source):
    return tuple(size_source) if isinstance(size_source, tuple) else tuple(size_source.shape)


def sparse_tensor_to_dense(sp_input, default_value=0, validate_indices=True, name=None):
    """``tf.sparse_tensor_to_dense``: the dense tensor, ``default_value`` elsewhere."""
    sp = _check(sp_input, "sparse_tensor_to_dense")
    return _to_dense(sp.indices, sp.values, _size_source(sp), default_value, name)


@deferrable()
def _to_dense(indices, values, size_source, default_value, name):
    shape = _shape_of(size_source)
    if not is_static(shape[2:]):
        raise ArgumentError(f"sparse_tensor_to_dense: a dense shape of rank {len(shape)} known "
                            "only when fed; give it when building the SparseTensor (a list)")
    # rows by the first index, the rest flattened: N x (rows + rest) numbers, not N x size
    rest = shape_size(shape[1:])
    strides = np.cumprod((shape[2:] + (1,))[::-1])[::-1].astype(np.int64)
    within = None
    for j, stride in enumerate(strides, start=1):   # (columns: indices [N, ?] of any rank)
        term = indices[:, j] * stride
        within = term if within is None else within + term

    def scattered(v):
        spread = v if within is None else _t.one_hot(within, rest, dtype=v.dtype) * \
            _t.expand_dims(v, 1)
        return _t.unsorted_segment_sum(spread, indices[:, 0], shape[0])
    total, present = scattered(values), scattered(_t.ones_like(values))
    filled = _t.where(present > 0, total, _t.zeros_like(total) + default_value)
    return _t.reshape(filled, shape, name=name)


def sparse_tensor_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``tf.sparse_tensor_dense_matmul``: ``op(A) @ op(B)`` for sparse 2-D A."""
    sp = _check(sp_a, "sparse_tensor_dense_matmul")
    dense = b if isinstance(b, Node) else constant(np.asarray(b, tf_dtype(b, None)))
    return _dense_matmul(sp.indices, sp.values, _size_source(sp), dense, bool(adjoint_a),
                         bool(adjoint_b), name)


@deferrable()
def _dense_matmul(indices, values, size_source, b, adjoint_a, adjoint_b, name):
    shape = _shape_of(size_source)
    if len(shape) != 2:
        raise ArgumentError(f"sparse_tensor_dense_matmul: the sparse operand has dense shape "
                            f"{shape}; it must be a matrix")
    rows, cols = indices[:, 0], indices[:, 1]
    rows, cols = (cols, rows) if adjoint_a else (rows, cols)
    n_rows = shape[1] if adjoint_a else shape[0]
    b = _t.transpose(b) if adjoint_b else b
    # row i of the product: the sum over entries (i, j, v) of v * b[j]
    contributions = _t.expand_dims(values, 1) * _t.gather(b, cols)
    return _t.unsorted_segment_sum(contributions, rows, n_rows, name=name)


def sparse_reduce_sum(sp_input, axis=None, keepdims=None, reduction_axes=None,
                      keep_dims=None, name=None):
    """``tf.sparse_reduce_sum``: a dense sum (of all values when ``axis`` is None)."""
    sp = _check(sp_input, "sparse_reduce_sum")
    axis = reduction_axes if axis is None else axis
    keep = bool(keep_dims if keepdims is None else keepdims)
    if axis is None and not keep:
        return _t.reduce_sum(sp.values, name=name)
    return _t.reduce_sum(sparse_tensor_to_dense(sp), axis=axis, keepdims=keep, name=name)


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None):
    """``tf.nn.embedding_lookup_sparse``: per row of ``sp_ids``, the combined embeddings
    of its ids (weighted by ``sp_weights``' values); ``max(row) + 1`` rows, as TF."""
    combiner = combiner or "mean"
    if combiner not in ("sum", "mean", "sqrtn"):
        raise ArgumentError(f"embedding_lookup_sparse(combiner={combiner!r}): use 'sum', "
                            "'mean' or 'sqrtn'")
    if max_norm is not None:
        raise ArgumentError("embedding_lookup_sparse(max_norm=...) is not supported")
    ids = _check(sp_ids, "embedding_lookup_sparse")
    rows = ids.indices[:, 0]
    embedded = _rows.embedding_lookup(params, ids.values, partition_strategy)   # (TF's slices)
    weights = _t.ones_like(_t.cast(ids.values, embedded.dtype))
    if sp_weights is not None:
        weights = _t.cast(_check(sp_weights, "embedding_lookup_sparse").values, embedded.dtype)
    n = _t.reduce_max(rows) + 1
    known = ids.static_shape()
    # the rows: the dense shape's first entry, a size known when it is fed
    count = known[0] if known is not None else _one_size(ids.dense_shape[0], "dense_shape")
    return _combined(embedded, weights, rows, n, combiner, count, name)


def _combined(embedded, weights, rows, n, combiner, count, name):
    total = _t.unsorted_segment_sum(embedded * _t.expand_dims(weights, 1), rows, count)
    if combiner != "sum":
        w = weights if combiner == "mean" else weights * weights
        norm = _t.unsorted_segment_sum(w, rows, count)
        norm = norm if combiner == "mean" else _t.sqrt(norm)
        total = total / _t.expand_dims(_t.where(norm > 0, norm, _t.ones_like(norm)), 1)
    return _t.identity(total[:n], name=name)
