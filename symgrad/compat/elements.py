"""What the elements of a TF1 dataset are made of: a :class:`Spec` per component, the
:class:`Run` that one initialization of an iterator makes them in, and the placeholders
that stand for one component (a get_next's, a dataset function's argument).

Sits in ``compat``; imports the tracing layer and ``compat.tensor``.
"""
from __future__ import annotations

import itertools

import numpy as np

from .. import tracing as _t
from ..dims import is_static
from ..graph import Node
from ..ops.deferred import any_shape_placeholder
from .nest import flatten, map_structure, pack
from .tensor import TensorShape, as_tf1


class Specified:
    """TF1's ``output_types``, ``output_shapes`` and ``output_classes`` of a dataset or an
    iterator, read from its ``_spec`` (a structure of :class:`Spec`)."""

    @property
    def output_types(self):
        return map_structure(lambda s: s.dtype, self._spec)

    @property
    def output_shapes(self):
        return map_structure(lambda s: None if s.shape is None else TensorShape(s.shape),
                             self._spec)

    @property
    def output_classes(self):
        return map_structure(lambda s: _t.Tensor, self._spec)


class Spec:
    """One component of a dataset's elements: a dtype and a shape (None for a size that
    varies; ``shape`` None for an unknown rank)."""

    def __init__(self, dtype, shape):
        self.dtype = np.dtype(dtype)
        self.shape = None if shape is None else tuple(
            int(d) if d is not None and is_static((d,)) else None for d in shape)

    def __repr__(self):
        return f"Spec({self.dtype.name}, {self.shape})"


def declared_spec(output_types, output_shapes):
    """The spec structure of TF's ``(output_types, output_shapes)`` pair (no shapes:
    unknown ranks)."""
    types = flatten(output_types)
    shapes = [None] * len(types) if output_shapes is None else shape_leaves(
        output_types, output_shapes)
    return pack(output_types, [Spec(t, None if s is None else tuple(s))
                               for t, s in zip(types, shapes)])


def fits_declared(shape, declared):
    """Whether ``shape`` fits a declared one (None: unknown rank; a None size: any)."""
    if declared is None or shape is None:
        return declared is None
    return len(shape) == len(declared) and all(
        d is None or d == s for s, d in zip(shape, declared))


def spec_of(value):
    shape = value.shape if isinstance(value, Node) else np.shape(value)
    return Spec(value.dtype, shape)


class Run:
    """One initialization of an iterator in a session: the captured tensors' values,
    the seed of its shuffles and of its functions' random ops, what ``cache`` stored."""

    def __init__(self, values, seed):
        self.values, self.seed = values, int(seed)
        self.epochs, self.cached = {}, {}
        self.draws = itertools.count(1)

    def rng(self, dataset, seed, reshuffle):
        """The generator of ``dataset``'s next pass (the same each pass without
        ``reshuffle``)."""
        n = self.epochs[dataset.key] = self.epochs.get(dataset.key, -1) + 1
        base = [int(seed)] if seed is not None else [self.seed, dataset.key]
        return np.random.default_rng(base + [n if reshuffle else 0])


def placeholder_for(graph, spec, name):
    if spec.shape is None:
        return as_tf1(any_shape_placeholder(graph, spec.dtype, name))
    return as_tf1(_t.placeholder(spec.dtype, spec.shape, name=name))


def shape_leaves(structure, shapes):
    """The shapes of ``shapes`` (lists, tuples, TensorShapes), one per component of
    ``structure`` (whose tuples and dicts ``shapes`` follows)."""
    if isinstance(structure, dict):
        return [s for k in sorted(structure) for s in shape_leaves(structure[k], shapes[k])]
    if isinstance(structure, tuple):
        return [s for a, b in zip(structure, shapes) for s in shape_leaves(a, b)]
    return [None if shapes is None else tuple(shapes)]
