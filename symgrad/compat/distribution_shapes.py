"""The shapes every ``tf.distributions`` distribution reports, as TF's ``Distribution``.

A distribution's parameters broadcast to its *batch shape*; one draw has its *event
shape* (``[]`` for the scalar distributions, the last axis for ``Categorical``'s
logits and ``Dirichlet``'s concentration, which that axis indexes rather than
batches).  TF1 policies read them statically (``pd.batch_shape``, ``pd.event_shape``)
and as tensors (``batch_shape_tensor()``; ``Categorical.event_size``).

:class:`BatchShapes` gives a distribution class those members from the tensors its
constructor stored (its parameters) and ``_EVENT_NDIMS``, the trailing axes of its
parameters one event spans.

Sits in ``compat``; imports ``tracing``, ``ops.broadcast_shapes`` and ``tensor_shape``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     d = tf.distributions.Normal(tf.placeholder(tf.float32, [None, 2]), 1.0)
...     d.batch_shape.as_list(), d.event_shape.as_list()
([None, 2], [])
"""
from __future__ import annotations

from .. import tracing as _t
from ..graph import Node
from ..ops import broadcast_shapes
from .tensor_shape import TensorShape

__all__ = ["BatchShapes"]


class BatchShapes:
    """``batch_shape``, ``event_shape`` and their tensors (module docstring)."""

    _EVENT_NDIMS = 0

    def _parameters(self):
        # the tensors the constructor stored, in the order it stored them
        return [v for v in vars(self).values() if isinstance(v, Node)]

    def _split(self, shape):
        cut = len(shape) - self._EVENT_NDIMS
        return tuple(shape[:cut]), tuple(shape[cut:])

    @property
    def batch_shape(self):
        """The parameters' batch axes broadcast together (a ``TensorShape``)."""
        return TensorShape(broadcast_shapes(*(self._split(p.shape)[0]
                                              for p in self._parameters())))

    @property
    def event_shape(self):
        """The shape of one draw (a ``TensorShape``)."""
        return TensorShape(self._split(self._parameters()[0].shape)[1])

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        """``batch_shape`` as an int32 vector, its unknown sizes read at run time."""
        return _t.shape(self._broadcast())[:len(self.batch_shape)]

    def event_shape_tensor(self, name="event_shape_tensor"):
        """``event_shape`` as an int32 vector."""
        start = len(self.batch_shape)
        return _t.shape(self._broadcast())[start:start + len(self.event_shape)]

    def _broadcast(self):
        # zeros of the parameters' broadcast shape (batch and event axes)
        total = None
        for p in self._parameters():
            total = _t.zeros_like(p) if total is None else total + _t.zeros_like(p)
        return total
