"""``tf.TensorArray``: a list of tensors of one shape, held as one stacked tensor.

A TensorArray here is a value: ``write`` returns a new TensorArray whose stacked
tensor has row i replaced (a one-hot ``where``), ``read`` picks a row (``gather``),
``stack`` gives the tensor.  As a ``tf.while_loop`` variable it travels as its
stacked tensor (``compat.control``), so the loop's gradient flows through the writes.
TF1 code uses the array the same way (``ta = ta.write(t, h)`` in the body,
``ta.stack()`` after the loop).  Departures: the size is fixed when the array is
made (``dynamic_size=True`` needs ``size``); an element shape not given is taken
from the first write (inside a loop body, from tracing the body once first).  The
one-hot write would drop a write past the end silently: each write and read notes its
index (``tracing.kernel_notes``), and a Session raises TF's InvalidArgumentError
("Tried to write to index 3 but array is not resizeable and size is: 3"), or, for an
array made with ``dynamic_size=True`` that TF would grow, UnimplementedError with the
size to give.

Imports the tracing functions and the compat tensors.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     ta = tf.TensorArray(tf.float32, size=3).write(0, 1.0).write(2, [5.0][0])
...     tf.Session().run(ta.stack()).tolist()
[1.0, 0.0, 5.0]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError, ShapeError
from ..graph import Dim, Node
from ..ops import apply
from ..ops.base import filled
from ..ops.sizes import sizes_of
from ..control.api import write_row
from ..tracing.arrays import _gather, gather
from ..tracing.kernel_notes import note
from .tensor import as_tf1, tf_dtype_arg


class TensorArray:
    """``tf.TensorArray(dtype, size, element_shape=None, ...)`` (module docstring)."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        self.dtype = np.dtype(tf_dtype_arg(dtype))
        if size is None:
            raise ArgumentError("tf.TensorArray: give its size (size=n or "
                                "size=tf.shape(x)[0]); symgrad's arrays do not grow")
        found = sizes_of(size)
        if found is None or len(found) != 1:
            raise ArgumentError(f"tf.TensorArray(size={size!r}): the size must be a number "
                                "or a size read from a shape (tf.shape(x)[0])")
        self._size = found[0]
        if dynamic_size and isinstance(self._size, (int, np.integer)) and self._size == 0:
            raise ArgumentError(
                "tf.TensorArray(size=0, dynamic_size=True): symgrad's arrays do not grow; "
                "give the number of elements the loop writes, e.g. size=tf.shape(inputs)[0] "
                "or the loop's maximum_iterations")
        self._element_shape = None if element_shape is None else tuple(element_shape)
        if self._element_shape is not None and any(d is None for d in self._element_shape):
            self._element_shape = None   # partly known: taken from the first write
        self._stack = None
        self._probe = None   # while tracing a loop body once for the element shape
        self._grows = bool(dynamic_size)   # (TF's would: symgrad's cannot, and says so)

    def _like(self, stack):
        out = TensorArray.__new__(TensorArray)
        out.__dict__.update(self.__dict__)
        out._stack, out._element_shape = stack, tuple(stack.shape[1:])
        return out

    @property
    def element_shape(self):
        return _t.TensorShape(self._element_shape) if self._element_shape is not None \
            else None

    def size(self, name=None):
        """The number of elements (int32), read at run time when it is."""
        if isinstance(self._size, Dim):
            return as_tf1(_t.cast(apply("dim_size", [self.stack()], axis=(0,)), np.int32))
        return as_tf1(_t.constant(np.int32(self._size)))

    def _zeros(self, shape):
        graph = _t.get_default_graph()
        return filled(graph, 0, (self._size,) + tuple(shape), self.dtype)

    def stack(self, name=None):
        """The elements as one tensor of shape ``(size,) + element_shape``."""
        if self._stack is None:
            if self._element_shape is None:
                raise ShapeError("TensorArray.stack: nothing was written and no "
                                 "element_shape was given, so the shape is unknown")
            self._stack = self._zeros(self._element_shape)
        return self._stack

    def write(self, index, value, name=None):
        """A new TensorArray with element ``index`` set to ``value``."""
        value = self._element(value, "write", value_rank=0)
        base = self._stack if self._stack is not None else self._zeros(value.shape)
        if not isinstance(index, Node):
            index = _t.constant(np.int64(index))
        return self._like(self._written(write_row(base, index, value), index))

    def _written(self, stack, index):
        """``stack`` with the note that its write at ``index`` must fit the array
        (the Session checks it: the one-hot write would drop it silently)."""
        note(stack, "index", [index, stack], axis=0,
             label="tensor_array_grows" if self._grows else "tensor_array_write")
        return stack

    def scatter(self, indices, value, name=None):
        """A new TensorArray with element ``indices[k]`` set to row k of ``value``."""
        value = self._element(value, "scatter", value_rank=1)
        if isinstance(indices, (list, tuple)) and any(isinstance(i, Node) for i in indices):
            indices = _t.stack([_t.cast(i, np.int64) if isinstance(i, Node) else
                                _t.constant(np.int64(i)) for i in indices])   # ([i] in a loop)
        elif not isinstance(indices, Node):
            indices = _t.constant(np.asarray(indices, dtype=np.int64))
        if len(indices.shape) != 1 or indices.shape[0] != value.shape[0]:
            raise ShapeError(f"TensorArray.scatter: indices of shape {indices.shape} for a "
                             f"value of shape {value.shape}; give one index per row")
        base = self._stack if self._stack is not None else self._zeros(value.shape[1:])
        for k in range(value.shape[0]):   # (one write per row: TF's scatter)
            base = write_row(base, indices[k], value[k])
        note(base, "index", [indices, base], axis=0, label="tensor_array_scatter")
        return self._like(base)

    def _element(self, value, what, value_rank):
        """``value`` as a tensor of the array's dtype whose element shape (past its
        first ``value_rank`` axes) is the array's."""
        value = _t.cast(value, self.dtype) if isinstance(value, Node) and \
            value.dtype != self.dtype else value
        if not isinstance(value, Node):
            value = as_tf1(_t.constant(np.asarray(value, dtype=self.dtype)))
        shape = tuple(value.shape[value_rank:])
        if self._element_shape is not None and shape != self._element_shape:
            raise ShapeError(f"TensorArray.{what}: value of shape {value.shape}, but the "
                             f"elements have shape {self._element_shape}")
        if self._probe is not None:
            self._probe.append(shape)
        return value

    def read(self, index, name=None):
        """Element ``index`` (TF's message past the end: ``kernel_checks``)."""
        return _gather(self.stack(), index, 0, None, "tensor_array_read")

    def gather(self, indices, element_shape=None, name=None):
        return gather(self.stack(), indices)

    def unstack(self, value, name=None):
        """A TensorArray holding the rows of ``value``."""
        (value,) = [v if isinstance(v, Node) else as_tf1(_t.constant(v)) for v in [value]]
        if value.shape[0] != self._size:
            raise ShapeError(f"TensorArray.unstack: {value.shape[0]} rows for an array of "
                             f"size {self._size}")
        return self._like(_t.cast(value, self.dtype) if value.dtype != self.dtype else value)

    def concat(self, name=None):
        s = self.stack()
        return _t.reshape(s, (s.shape[0] * s.shape[1],) + tuple(s.shape[2:]))

    def identity(self):
        return self

    def close(self, name=None):
        from .variables import no_op
        return no_op()

    def __repr__(self):
        return f"<tf.TensorArray size={self._size} element_shape={self._element_shape}>"


def as_loop_vars(flat, body):
    """Loop variables with each TensorArray as its stacked tensor, and a function
    rebuilding them (``compat.control.while_loop``); an array with no element shape
    yet gets it from tracing ``body`` (called with the flat loop vars) once."""
    arrays = {k: v for k, v in enumerate(flat) if isinstance(v, TensorArray)}
    if not arrays:
        return flat, None
    unknown = {k: v for k, v in arrays.items() if v._stack is None and v._element_shape is None}
    if unknown:
        _probe_shapes(flat, unknown, body)

    def rebuild(values):
        return [arrays[k]._like(v) if k in arrays else v for k, v in enumerate(values)]
    return [v.stack() if k in arrays else v for k, v in enumerate(flat)], rebuild


def _probe_shapes(flat, unknown, body):
    from ..control.function import SubGraph, tracing_into
    graph = _t.get_default_graph()
    sub = SubGraph(graph, "tensor_array_probe")
    with tracing_into(sub):
        args = []
        for k, v in enumerate(flat):
            if k in unknown:
                v._probe = []
                args.append(v)
            else:
                node = v if isinstance(v, Node) else _t.constant(v)
                args.append(sub.argument(node.shape, node.dtype) if
                            not isinstance(v, TensorArray) else v)
        try:
            body(args)
        finally:
            shapes = {k: v._probe for k, v in unknown.items()}
            for v in unknown.values():
                v._probe = None
    for k, v in unknown.items():
        if not shapes[k]:
            raise ShapeError("tf.TensorArray in a while_loop: the body never writes it and "
                             "no element_shape was given; pass element_shape=")
        v._element_shape = shapes[k][0]
