"""``tf.IndexedSlices``: rows ``values`` at positions ``indices`` of a tensor of shape
``dense_shape``, as TF1 code builds and tests them (``isinstance(g, tf.IndexedSlices)``).

``tf.gradients`` gives them for tables read through ``tf.gather`` /
``tf.nn.embedding_lookup`` (``compat.rows``); programs also build their own.

IndexedSlices behave as TF's: ``tf.convert_to_tensor`` densifies them
(rows summed into a tensor of ``dense_shape``, which must be given and whose first size
must be known), and so does any ``tf.*`` op they are passed to; ``tf.global_norm`` and
``tf.clip_by_global_norm`` take the norm over their ``values`` and clip those, as TF.
A session fetches one as TF's ``IndexedSlicesValue(values, indices, dense_shape)``
(a namedtuple of arrays; one without ``dense_shape`` cannot be fetched).

Sits in ``compat``; imports the tracing layer.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     rows = tf.IndexedSlices(tf.constant([[1., 2.], [3., 4.]]), tf.constant([0, 0]),
...                             dense_shape=[2, 2])
...     print(tf.Session().run(tf.convert_to_tensor(rows)).tolist())
[[4.0, 6.0], [0.0, 0.0]]
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import tracing as _t
from ..graph import Dim, Node
from ..ops.sizes import sizes_of
from ..tracing.arrays import static_value
from ..tracing import math_ops as _math_ops
from ..tracing import selection as _selection
from .tensor import TensorShape, UnknownShape, as_tf1, constant, tf_dtype_arg
from .tensor_shape import not_convertible
from .variables import tf_dtype


IndexedSlicesValue = namedtuple("IndexedSlicesValue", ["values", "indices", "dense_shape"])
IndexedSlicesValue.__doc__ = "What a session gives for an IndexedSlices: three arrays."


class IndexedSlices:
    """``tf.IndexedSlices(values, indices, dense_shape=None)`` (module docstring: symgrad's
    own gradients are dense tensors, never IndexedSlices)."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values if isinstance(values, Node) else _t.as_tensor(values)
        self._indices = indices if isinstance(indices, Node) else _t.constant(
            np.asarray(indices, dtype=np.int32))
        self._dense_shape = dense_shape
        self._dense = None

    values = property(lambda self: self._values)
    indices = property(lambda self: self._indices)
    dense_shape = property(lambda self: self._dense_shape)
    dtype = property(lambda self: self._values.dtype)
    name = property(lambda self: self._values.name)
    op = property(lambda self: self._values.op)
    graph = property(lambda self: self._values.graph)
    device = ""

    @property
    def shape(self):
        """The dense shape, as far as it is known now."""
        if self._dense_shape is None:
            return TensorShape((None,) + tuple(self._values.shape[1:]))
        return TensorShape(None if isinstance(d, Dim) else d for d in self._known_shape())

    def dense_shape_tensor(self):
        """``dense_shape`` as an int tensor (a list given to the constructor becomes one)."""
        if not isinstance(self._dense_shape, Node):
            self._dense_shape = as_tf1(_t.constant(np.asarray(self._dense_shape, np.int32)))
        return self._dense_shape

    def _known_shape(self):
        """ints, and Dims for sizes known at run time (``tf.shape(x)``)."""
        sizes = sizes_of(self._dense_shape)
        if sizes is None:
            sizes = static_value(self._dense_shape, "IndexedSlices(dense_shape)").reshape(-1)
        return [d if isinstance(d, Dim) else int(d) for d in sizes]

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def as_graph_tensor(self):
        """The dense tensor (rows added at their indices; made once), as TF converts an
        IndexedSlices wherever a tensor is wanted."""
        if self._dense is None:
            if self._dense_shape is None:
                raise ValueError("Tensor conversion requested for IndexedSlices for argument "
                                 f"`value` without dense_shape: {self!r}; give dense_shape")
            shape = self._known_shape()
            # (values of unknown rank, made when fed: the rows dense_shape says)
            rows = tuple(shape[1:]) if self._values.shape is None else self._values.shape[1:]
            if len(shape) != len(rows) + 1 or any(
                    not isinstance(d, Dim) and not isinstance(s, Dim) and d != s
                    for d, s in zip(rows, shape[1:])):
                raise ValueError(f"IndexedSlices: dense_shape {shape} does not fit values of "
                                 f"shape {self._values.shape}")
            if isinstance(shape[0], Dim):   # rows known at run time: a one-hot sum
                hot = _t.one_hot(self._indices, shape[0], dtype=self._values.dtype)
                self._dense = _t.tensordot(hot, self._values, axes=[[0], [0]])
            else:
                self._dense = _selection.unsorted_segment_sum(
                    self._values, self._indices, shape[0], name="UnsortedSegmentSum")
        return self._dense

    def __repr__(self):
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!r}"
        return f"IndexedSlices(indices={self._indices!r}, values={self._values!r}{shape})"


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, dtype_hint=None):
    """``tf.convert_to_tensor``: tensors as they are, IndexedSlices densified (summing
    rows with the same index), other values as constants."""
    if hasattr(value, "_get_variable_list"):   # a PartitionedVariable: the whole table
        value = value.as_tensor()
    if isinstance(value, (TensorShape, UnknownShape)):   # TF: its sizes, all known
        if not value.is_fully_defined():
            raise ValueError(not_convertible(value))
        value = np.asarray(value.as_list(), np.int32)
    if isinstance(value, IndexedSlices):
        dense = value.as_graph_tensor()
        return dense if dtype is None or dense.dtype == np.dtype(dtype) else \
            _t.cast(dense, dtype, name=name)
    if hasattr(value, "as_graph_tensor"):   # an assign: TF1's tensor of the updated value
        value = value.as_graph_tensor()
    if not _holds_tensor(value):   # a constant named ``name`` ("w:0"), TF's dtypes
        dtype = dtype if dtype is not None else _hinted(value, preferred_dtype, dtype_hint)
        return constant(value, dtype=tf_dtype(value, dtype), name=name or "Const")
    return _t.convert_to_tensor(value, dtype, name)


def _hinted(value, preferred_dtype, dtype_hint):
    """The preferred dtype if ``value`` converts to it (TF tries it first and falls back
    to the value's own dtype: a Python float does not become an integer), else None."""
    hint = preferred_dtype if preferred_dtype is not None else dtype_hint
    if hint is None:
        return None
    target = np.dtype(tf_dtype_arg(hint))
    python_floats = not isinstance(value, np.ndarray) and np.asarray(value).dtype.kind == "f"
    return None if python_floats and target.kind in "iub" else target


def _holds_tensor(value):
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, Node)


def _rows(t):
    return t.values if isinstance(t, IndexedSlices) else t


def global_norm(t_list, name=None):
    """``tf.global_norm``: over the ``values`` of IndexedSlices, as TF."""
    return _math_ops.global_norm([_rows(t) for t in t_list], name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``tf.clip_by_global_norm``: IndexedSlices count and are clipped by their values
    (and stay IndexedSlices), as TF."""
    t_list = _math_ops.tensor_sequence(t_list, "clip_by_global_norm")
    clipped, norm = _math_ops.clip_by_global_norm([_rows(t) for t in t_list], clip_norm,
                                                  use_norm, name)
    return [IndexedSlices(c, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else c
            for c, t in zip(clipped, t_list)], norm


def identity(input, name=None):  # noqa: A002
    """``tf.identity``: an IndexedSlices stays one (its parts passed through), as TF."""
    if isinstance(input, IndexedSlices):
        return IndexedSlices(_t.identity(input.values, name=name), input.indices,
                             input.dense_shape)
    return _t.identity(input, name=name)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``tf.clip_by_value``: an IndexedSlices has its values clipped (and stays one), as
    TF; so duplicate rows are clipped before they are summed."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(_math_ops.clip_by_value(t.values, clip_value_min, clip_value_max,
                                                     name), t.indices, t.dense_shape)
    return _math_ops.clip_by_value(t, clip_value_min, clip_value_max, name)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``tf.clip_by_norm``: an IndexedSlices is clipped by the norm of its values (each
    looked-up row apart) and stays one, as TF."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(_math_ops.clip_by_norm(t.values, clip_norm, axes, name),
                             t.indices, t.dense_shape)
    return _math_ops.clip_by_norm(t, clip_norm, axes, name)


__all__ = ["IndexedSlices", "IndexedSlicesValue", "convert_to_tensor", "global_norm",
           "clip_by_global_norm", "clip_by_value", "clip_by_norm", "identity"]
