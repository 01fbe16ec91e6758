"""``batch``, ``padded_batch``, ``unbatch`` and ``window`` of ``compat.datasets.Dataset``
(the :class:`Batching` mixin), and the counts transformations take (:class:`Count`: an
int, or a scalar tensor read when the iterator starts).

A batch stacks ``batch_size`` consecutive elements (TF's InvalidArgumentError when
their shapes differ: ``padded_batch`` pads them to a common shape); a window holds,
of each component, a dataset of ``size`` values (``WindowSpec`` in the element's
spec, ``_Rows`` in its values).

Sits in ``compat`` under ``datasets``; imports numpy, ``compat.elements``,
``compat.errors`` and ``compat.nest``.

>>> [list(g) for g in _groups(range(5), 2, drop_remainder=False)]
[[0, 1], [2, 3], [4]]
"""
from __future__ import annotations

import itertools

import numpy as np

from ..graph import Node
from . import errors
from .elements import Spec, shape_leaves
from .nest import flatten, map_structure, pack


class Batching:
    """The batching transformations of a dataset; ``self._derived(spec, captured,
    elements)`` makes the dataset each returns."""

    def batch(self, batch_size, drop_remainder=False):
        """Elements of ``batch_size`` consecutive elements stacked (the last one smaller
        unless ``drop_remainder``)."""
        n = Count(batch_size, "batch_size", positive=True)
        first = n.static if drop_remainder else None
        spec = map_structure(lambda s: Spec(s.dtype, None if s.shape is None else
                                            (first,) + s.shape), self._spec)

        def elements(run):
            for group in _groups(self.elements(run), n(run), drop_remainder):
                yield pack(self._spec, [_stack(col, i) for i, col in
                                        enumerate(zip(*map(flatten, group)))])
        return self._derived(spec, n.captured, elements)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False):
        """``batch`` of elements padded to ``padded_shapes`` (a None size: the longest
        in the batch) with ``padding_values`` (zeros)."""
        n = Count(batch_size, "batch_size", positive=True)
        specs = flatten(self._spec)
        shapes = [s.shape for s in specs] if padded_shapes is None else shape_leaves(
            self._spec, padded_shapes)
        pads = [0] * len(specs) if padding_values is None else flatten(padding_values)
        if len(pads) == 1 and len(specs) > 1:
            pads = pads * len(specs)
        out = [Spec(s.dtype, (n.static if drop_remainder else None,) + tuple(
            None if d is None or d == -1 else int(d) for d in shape))
            for s, shape in zip(specs, shapes)]

        def elements(run):
            for group in _groups(self.elements(run), n(run), drop_remainder):
                cols = zip(*map(flatten, group))
                yield pack(self._spec, [_padded(col, shape, run.values.get(pad, pad)
                                                if isinstance(pad, Node) else pad, spec.dtype)
                                        for col, shape, pad, spec in zip(cols, shapes, pads,
                                                                         specs)])
        return self._derived(pack(self._spec, out), n.captured + nodes_of(pads), elements)

    def unbatch(self):
        """The rows of each element, one element each."""
        spec = map_structure(lambda s: Spec(s.dtype, None if s.shape is None else
                                            s.shape[1:]), self._spec)

        def elements(run):
            for e in self.elements(run):
                cols = flatten(e)
                for i in range(len(cols[0])):
                    yield pack(self._spec, [c[i] for c in cols])
        return self._derived(spec, elements=elements)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Elements are windows: of each component a dataset of ``size`` values, taken
        every ``stride`` elements; a window starts every ``shift`` (``size``) elements;
        the last ones are shorter unless ``drop_remainder``.  Read them with
        ``flat_map`` (``lambda w: w.batch(size)``) or ``interleave``."""
        size = Count(size, "size", positive=True).static
        shift = size if shift is None else Count(shift, "shift", positive=True).static
        stride = Count(stride, "stride", positive=True).static
        span = (size - 1) * stride

        def elements(run):
            source, held, start, ended = iter(self.elements(run)), [], 0, False
            for first in itertools.count(0, shift):
                while not ended and start + len(held) <= first + span:
                    try:
                        held.append(next(source))
                    except StopIteration:
                        ended = True
                if start + len(held) <= first:
                    return
                picks = held[first - start:first - start + span + 1:stride]
                if len(picks) < size and drop_remainder:
                    return
                yield pack(self._spec, [_Rows(col) for col in zip(*map(flatten, picks))])
                drop = first + shift - start
                del held[:drop]
                start += drop
        return self._derived(map_structure(WindowSpec, self._spec), elements=elements)


class WindowSpec:
    """A component of ``window``'s elements: a dataset of ``spec``'s values."""

    def __init__(self, spec):
        self.spec, self.dtype, self.shape = spec, None, None


class _Rows:
    """The values of one window's component (a leaf of the element's structure)."""

    def __init__(self, rows):
        self.rows = list(rows)


class Count:
    """A transformation's count: an int, or a scalar tensor read when the iterator
    starts (``batch(batch_size_placeholder)``); ``static`` is the int or None."""

    def __init__(self, value, what, positive=False):
        self.what, self.positive = what, positive
        self.node = value if isinstance(value, Node) else None
        self.captured = [] if self.node is None else [self.node]
        self.static = None if self.node is not None else self._checked(value)

    def _checked(self, value):
        n = int(value)
        if self.positive and n <= 0:
            raise ValueError(f"{self.what} must be positive, got {n}")
        return n

    def __call__(self, run):
        if self.node is None:
            return self.static
        try:
            return self._checked(run.values[self.node])
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None


def nodes_of(leaves):
    return [v for v in leaves if isinstance(v, Node)]


def _groups(elements, n, drop_remainder):
    it = iter(elements)
    while True:
        group = list(itertools.islice(it, n))
        if not group or (drop_remainder and len(group) < n):
            return
        yield group


def _stack(column, component):
    first = np.shape(column[0])
    for k, v in enumerate(column):
        if np.shape(v) != first:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component "
                f"{component}. First element had shape {list(first)} and element {k} had "
                f"shape {list(np.shape(v))}; use padded_batch to pad them")
    return np.stack(column)


def _padded(column, shape, pad, dtype):
    rank = np.ndim(column[0])
    if shape is None:
        shape = (None,) * rank
    if len(shape) != rank:
        raise ValueError(f"padded_batch: padded shape {list(shape)} has rank {len(shape)}, "
                         f"the component has rank {rank}")
    longest = np.max([np.shape(v) for v in column], axis=0) if rank else ()
    target = tuple(int(m) if d is None or d == -1 else int(d) for d, m in zip(shape, longest))
    out = np.full((len(column),) + target, pad, dtype=dtype)
    for k, v in enumerate(column):
        if any(a > b for a, b in zip(np.shape(v), target)):
            raise errors.InvalidArgumentError(
                None, None, f"padded_batch: an element of shape {list(np.shape(v))} is "
                f"larger than the padded shape {list(target)}")
        out[(k,) + tuple(slice(0, a) for a in np.shape(v))] = v
    return out
