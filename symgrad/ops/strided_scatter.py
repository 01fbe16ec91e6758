"""Scatter-adds at a static index as a few strided additions (the reference evaluator's
``index_add``).

``np.add.at`` adds one element at a time; the adjoint of a convolution's window
gather (50 x 14 x 14 x 32 windows of 25 taps: 7.8 million elements) took 135-175 ms
that way, most of a training step of TF's "Deep MNIST" network.  Its positions
have a structure: for each tap (one index along the windows' last axis) they are an
affine function of the other axes, with no position repeated.  Each such slice is
one in-place addition into a strided view of the output (25 additions: ~27 ms).

:func:`plan` looks for that structure once per index and size
(:func:`cached_plan`): the whole scatter, or every slice along one axis of at
most ``MAX_PIECES`` entries, affine and one-to-one.  Otherwise (repeated positions
inside a slice, tables without that shape, small scatters) it is ``np.add.at``.
Either way every position receives the same terms; only the order in which the
slices' terms are summed may differ from ``np.add.at`` (a rounding difference).

Imports numpy only.

>>> g = np.arange(6.0).reshape(3, 2)
>>> index = (np.array([[0, 1], [1, 2], [2, 3]]),)   # windows of 2 over 4 entries
>>> add_at(g, (4,), index).tolist()
[0.0, 3.0, 7.0, 5.0]
>>> plan((4,), index, (3, 2), small=0)[0]             # one strided addition per tap
1
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

# slices along one axis: at most this many strided additions (each costs a call)
MAX_PIECES = 64
# below this many elements np.add.at is as fast as looking for a plan
SMALL = 4096
# dtypes added through strided views (object arrays, e.g. SymPy values, are not)
NUMERIC = "biufc"


def flat_positions(shape, index):
    """Where element j of ``g`` lands in the flattened output: an int64 array of g's shape."""
    return np.arange(math.prod(shape), dtype=np.int64).reshape(shape)[index]


def plan(shape, index, g_shape, small=SMALL):
    """``(axis, pieces)``: ``axis`` None for one affine piece (the whole of g), else the
    axis of g whose slices are the pieces; each piece is (offset, strides in elements).
    None when the scatter has no such structure (or is too small to be worth it).

    The positions are looked at with every slice of the index cut to its first two
    entries: along a slice's axis of g they are affine by construction, and the rest
    of the position does not depend on it (a window table's batch axis: 25x fewer)."""
    size = math.prod(g_shape)
    if size < small or not size:
        return None
    g_shape = tuple(g_shape)
    cut = _cut_slices(shape, index)
    positions = flat_positions(shape, index if cut is None else cut)
    if positions.ndim != len(g_shape):
        return None
    sliced = {a for a, (d, n) in enumerate(zip(positions.shape, g_shape)) if d != n}
    if any(positions.shape[a] != 2 for a in sliced):
        return None
    whole = _affine(positions, g_shape)
    if whole is not None:
        return (None, [whole])
    order = sorted((d, a) for a, d in enumerate(g_shape)
                   if 1 < d <= MAX_PIECES and a not in sliced)
    for _, axis in order:
        pieces, rest = [], g_shape[:axis] + g_shape[axis + 1:]
        for i in range(g_shape[axis]):
            piece = _affine(positions[(slice(None),) * axis + (i,)], rest)
            if piece is None:
                break
            pieces.append(piece)
        else:
            return (axis, pieces)
    return None


def _cut_slices(shape, index):
    """``index`` with each slice of more than two entries cut to its first two (None
    when there is none to cut, or the index has parts this does not handle)."""
    if not isinstance(index, tuple):
        index = (index,)
    parts = [p for p in index if p is not None and p is not Ellipsis]
    if any(isinstance(p, np.ndarray) and p.dtype == bool for p in parts) or \
            sum(p is Ellipsis for p in index) > 1 or len(parts) > len(shape):
        return None
    expanded = []
    for part in index:
        expanded += [slice(None)] * (len(shape) - len(parts)) if part is Ellipsis else [part]
    out, axis, changed = [], 0, False
    for part in expanded:
        if isinstance(part, slice):
            start, stop, step = part.indices(shape[axis])
            if len(range(start, stop, step)) > 2:
                part, changed = slice(start, start + 2 * step, step), True
        if part is not None:
            axis += 1
        out.append(part)
    return tuple(out) if changed else None


def _affine(p, full_shape=None):
    """(offset, strides) with p[i] == offset + strides . i for every multi-index i and
    no position twice over ``full_shape`` (p's own shape by default; larger along
    axes where p holds the first two entries of an affine run); None otherwise."""
    if p.size == 0:
        return None
    full_shape = p.shape if full_shape is None else full_shape
    offset = int(p.flat[0])
    strides = []
    for axis, n in enumerate(p.shape):
        step = 0
        if n > 1:
            at = [0] * p.ndim
            at[axis] = 1
            step = int(p[tuple(at)]) - offset
        strides.append(step)
    expected = offset
    for axis, (n, step) in enumerate(zip(p.shape, strides)):
        shape = [1] * p.ndim
        shape[axis] = n
        expected = expected + (np.arange(n, dtype=np.int64) * step).reshape(shape)
    if not np.array_equal(p, np.broadcast_to(expected, p.shape)) or \
            not _one_to_one(full_shape, strides):
        return None
    return offset, tuple(strides)


def _one_to_one(shape, strides):
    """Whether offset + strides . i takes distinct values over the box ``shape``
    (sufficient test: each stride, by size, exceeds the span of the smaller ones)."""
    span = 0
    for step, n in sorted((abs(s), n) for s, n in zip(strides, shape) if n > 1):
        if step <= span:
            return False
        span += step * (n - 1)
    return True


def apply_plan(g, shape, found):
    """The scatter-add of ``g`` into zeros of ``shape`` by a :func:`plan`."""
    out = np.zeros(math.prod(shape), dtype=g.dtype)
    axis, pieces = found
    item = out.itemsize
    for i, (offset, strides) in enumerate(pieces):
        src = g if axis is None else g[(slice(None),) * axis + (i,)]
        view = as_strided(out[offset:], shape=src.shape,
                          strides=tuple(s * item for s in strides), writeable=True)
        view += src
    return out.reshape(shape)


def add_at(g, shape, index):
    """zeros(shape) with ``g`` added at ``index``: ``np.add.at``'s result, by a plan when
    one applies (looked for once per index and shape, :func:`cached_plan`)."""
    g = np.asarray(g)
    found = cached_plan(tuple(shape), index, g.shape) if g.dtype.kind in NUMERIC else None
    if found is None:
        out = np.zeros(shape, dtype=g.dtype)
        np.add.at(out, index, g)
        return out
    return apply_plan(g, shape, found)


# (shape, g's shape, the index's parts by value) -> plan.  An index is a node's attribute,
# but runs at sizes known only from values rebuild it at every call: keyed by value,
# its plan is still looked for once (index tables are small: a window's offsets)
_PLANS: dict = {}
MAX_PLANS = 256


def cached_plan(shape, index, g_shape):
    """:func:`plan`, made once per index and sizes."""
    if math.prod(g_shape) < SMALL:
        return None
    key = (shape, tuple(g_shape), tuple(_part_key(part) for part in index))
    found = _PLANS.get(key, False)
    if found is False:
        if len(_PLANS) >= MAX_PLANS:
            _PLANS.clear()
        found = _PLANS[key] = plan(shape, index, g_shape)
    return found


def _part_key(part):
    if isinstance(part, np.ndarray):
        return ("array", part.dtype.str, part.shape, part.tobytes())
    if isinstance(part, slice):
        return ("slice", part.start, part.stop, part.step)
    return ("other", repr(part))
