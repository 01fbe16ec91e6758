"""TF1's static shapes: ``TensorShape`` (a tuple of sizes with TF1's methods:
``as_list``, ``ndims``/``rank``, ``num_elements``, ``is_fully_defined``, slices that are
shapes, ``concatenate``, ``is_compatible_with``, ``merge_with``, ``with_rank`` and its
``_at_least``/``_at_most`` checks, ``==`` a list of sizes), ``Dimension`` (a known
size with ``.value``) and ``UnknownShape`` (``TensorShape(None)``, unknown rank).

Sits in ``compat`` under ``tensor``; imports numpy only.  Also the check of the shape
arguments TF converts to tensors (:func:`converted_shape_check`).

>>> s = TensorShape([None, 3, 4])
>>> s[1:].num_elements(), s.concatenate([5]).as_list(), s.merge_with([2, None, 4]).as_list()
(12, [None, 3, 4, 5], [2, 3, 4])
"""
from __future__ import annotations

import functools

import numpy as np


class Dimension(int):
    """A known size in a :class:`TensorShape`: an int with TF1's ``.value``
    (``x.get_shape()[1].value``; an unknown size is a Dim, whose ``.value`` is None)."""

    @property
    def value(self):
        return int(self)


class TensorShape(tuple):
    """A shape tuple with TF1's methods (``as_list``, ``ndims``, ``num_elements``)."""

    def __new__(cls, dims=()):
        if dims is None:   # unknown rank (a placeholder made without a shape)
            return UnknownShape()
        return super().__new__(cls, (Dimension(d) if isinstance(d, (int, np.integer)) and
                                     not isinstance(d, (bool, np.bool_)) else d for d in dims))

    def as_list(self):
        return [int(d) if isinstance(d, int) else None for d in self]

    def __getitem__(self, key):
        # a slice is a shape too: x.get_shape()[1:].num_elements() (flatten helpers)
        got = tuple.__getitem__(self, key)
        return TensorShape(got) if isinstance(key, slice) else got

    @property
    def ndims(self):
        return len(self)

    rank = ndims

    def concatenate(self, other):
        """The dimensions of this shape, then ``other``'s (unknown rank: unknown)."""
        other = as_shape(other)
        if isinstance(other, UnknownShape):
            return other
        return TensorShape(tuple(self) + tuple(other))

    def is_compatible_with(self, other):
        """Same rank, and equal sizes wherever both are known."""
        other = as_shape(other)
        return isinstance(other, UnknownShape) or len(other) == len(self) and all(
            _known(a) is None or _known(b) is None or _known(a) == _known(b)
            for a, b in zip(self, other))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The shape both describe: each size known in either (ValueError if they differ)."""
        self.assert_is_compatible_with(other)
        other = as_shape(other)
        if isinstance(other, UnknownShape):
            return self
        return TensorShape(a if _known(a) is not None else b for a, b in zip(self, other))

    def with_rank(self, rank):
        """This shape, if it has ``rank`` dimensions (TF's ValueError otherwise)."""
        return self._ranked(len(self) == rank, f"rank {rank}")

    def with_rank_at_least(self, rank):
        return self._ranked(len(self) >= rank, f"rank at least {rank}")

    def with_rank_at_most(self, rank):
        return self._ranked(len(self) <= rank, f"rank at most {rank}")

    def _ranked(self, holds, what):
        if not holds:
            raise ValueError(f"Shape {self} must have {what}")
        return self

    def __eq__(self, other):
        # TF compares a list of sizes as the shape it describes (DCGAN-era code writes
        # x.get_shape() == [batch, 64, 64, 3]); tuples compare as the tuples they are
        if isinstance(other, list):
            return self.as_list() == [getattr(d, "value", d) for d in other]
        return tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = tuple.__hash__

    @property
    def dims(self):
        return list(self)

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        total = 1
        for d in self:
            total *= d
        return total

    def is_fully_defined(self):
        return all(isinstance(d, int) for d in self)

    def __repr__(self):
        # as the tuple it is, so messages read the same everywhere
        return tuple.__repr__(tuple(None if d is None else d for d in self))

    def __str__(self):
        # TF1 prints a size not yet known as "?": print(x.shape) shows (?, 3)
        sizes = ["?" if d is None or not isinstance(d, int) else str(int(d)) for d in self]
        return "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"


def _known(d):
    """The size ``d`` as an int, None where it is unknown (None or a Dim)."""
    return int(d) if isinstance(d, (int, np.integer)) else None


def as_shape(shape):
    """``shape`` as a TensorShape (a list, a tuple, None for unknown rank)."""
    if isinstance(shape, (TensorShape, UnknownShape)):
        return shape
    return TensorShape(None if shape is None else
                       [getattr(d, "value", d) for d in shape])


class UnknownShape:
    """TF1's ``TensorShape(None)``: the shape of a tensor of unknown rank (``x.get_shape()``
    of ``tf.placeholder(tf.float32)``); prints ``<unknown>``, ``ndims`` and ``dims`` None."""

    ndims = dims = rank = None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def is_fully_defined(self):
        return False

    def num_elements(self):
        return None

    def is_compatible_with(self, other):
        return True

    def assert_is_compatible_with(self, other):
        pass

    def merge_with(self, other):
        return as_shape(other)

    def concatenate(self, other):
        return self

    def with_rank(self, rank):
        """A shape of ``rank`` unknown sizes: an unknown rank may be any."""
        return TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        return self

    with_rank_at_most = with_rank_at_least

    def __eq__(self, other):
        return isinstance(other, UnknownShape) or other is None

    def __hash__(self):
        return hash(None)

    def __str__(self):
        return "<unknown>"

    def __repr__(self):
        return "TensorShape(None)"


# tf.* functions whose argument TF converts to a tensor, where a TensorShape with unknown
# sizes is TF's ValueError (carpedm20's deconv2d: tf.reshape(x, deconv.get_shape()) when
# conv2d_transpose's static batch is unknown)
_CONVERTED = {"reshape": "shape", "zeros": "shape", "ones": "shape", "fill": "dims",
              "random_normal": "shape", "random_uniform": "shape", "truncated_normal": "shape",
              "conv2d_transpose": "output_shape", "broadcast_to": "shape", "tile": "multiples"}


def converted_shape_check(fn, names):
    """``fn`` (parameters ``names``), raising TF's ValueError where the argument TF
    converts to a tensor is a TensorShape not fully known; ``fn`` itself if it has none."""
    name = _CONVERTED.get(fn.__name__)
    if name not in names:
        return fn
    at = names.index(name)

    @functools.wraps(fn)
    def checked(*args, **kwargs):
        value = args[at] if len(args) > at else kwargs.get(name)
        if isinstance(value, (TensorShape, UnknownShape)) and not value.is_fully_defined():
            raise ValueError(f"Tried to convert '{name}' to a tensor and failed. Error: "
                             f"{not_convertible(value)}")
        return fn(*args, **kwargs)
    return checked


def not_convertible(shape):
    """TF's words for a TensorShape with unknown sizes given where a tensor is needed."""
    return (f"Cannot convert a partially known TensorShape {shape} to a Tensor (give the "
            "sizes, or tf.shape(x) for those known only at run time).")
