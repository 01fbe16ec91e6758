"""Structural ops: they move, copy or select elements without arithmetic.

Each implementation is written once, generically over the array dtype, so the
same code computes numbers and SymPy closed forms (numpy object arrays).

>>> import numpy as np
>>> REGISTRY["transpose"].impl(np.arange(6).reshape(2, 3), perm=(1, 0)).shape
(3, 2)
"""
from __future__ import annotations

import math

import numpy as np
import sympy

from ..errors import ShapeError
from ..graph import Dim, dim_expr, is_static, make_dim, shape_size
from . import strided_scatter
from .scatter_merge import merge_scatters
from .base import (REGISTRY, Example, F, Op, broadcast_shapes, derived_node, literal,
                   normalize_axis, register, unbroadcast)


def _size(shape):
    return math.prod(map(int, shape))


def _reshape_shape(in_shapes, shape):
    (x,) = in_shapes
    a, b = shape_size(x), shape_size(shape)
    # with unknown sizes the check is static only where it can fail for every value
    # (3*n vs 3*n + 1); otherwise the evaluators check when values arrive
    if (dim_expr(a) - dim_expr(b)).is_nonzero if not is_static(x + tuple(shape)) else a != b:
        raise ShapeError(f"reshape: cannot reshape a tensor of shape {x} (size {a}) "
                         f"into shape {tuple(shape)} (size {b})")
    return tuple(shape)


register(Op("reshape", kind="structural", selects=True, shape=_reshape_shape,
            impl=lambda x, shape: np.reshape(x, shape),
            grad=lambda node, g: [F.reshape(g, shape=node.inputs[0].shape)],
            doc="the same elements in a new shape (row-major)",
            examples=[Example((2, 3), shape=(3, 2)), Example((4,), shape=(2, 1, 2))]))


def _transpose_shape(in_shapes, perm):
    (x,) = in_shapes
    if sorted(perm) != list(range(len(x))):
        raise ShapeError(f"transpose: perm {tuple(perm)} is not a permutation of the "
                         f"{len(x)} axes of a tensor of shape {x}")
    return tuple(x[p] for p in perm)


register(Op("transpose", kind="structural", selects=True, shape=_transpose_shape,
            impl=lambda x, perm: np.transpose(x, perm),
            grad=lambda node, g: [F.transpose(g, perm=tuple(np.argsort(node.attrs["perm"])))],
            doc="axes permuted; the gradient is permuted back",
            examples=[Example((2, 3), perm=(1, 0)), Example((2, 3, 4), perm=(2, 0, 1))]))


def _broadcast_shape(in_shapes, shape):
    (x,) = in_shapes
    try:
        out = broadcast_shapes(tuple(shape), x)  # an unknown size of the target wins
    except ShapeError:
        out = None
    if out != tuple(shape):
        raise ShapeError(f"broadcast_to: a tensor of shape {x} cannot be broadcast to {tuple(shape)}")
    return out


register(Op("broadcast_to", kind="structural", selects=True, shape=_broadcast_shape,
            impl=lambda x, shape: np.array(np.broadcast_to(x, shape)),
            grad=lambda node, g: [unbroadcast(g, node.inputs[0].shape)],
            doc="copies along new or size-1 axes; the gradient sums the copies",
            examples=[Example((3,), shape=(2, 3)), Example((2, 1), shape=(2, 4))]))


def _concat_shape(in_shapes, axis):
    first = in_shapes[0]
    for s in in_shapes[1:]:
        if len(s) != len(first) or any(
                a != b and not isinstance(a, Dim) and not isinstance(b, Dim)
                for i, (a, b) in enumerate(zip(s, first)) if i != axis):
            raise ShapeError(f"concat: shapes {', '.join(map(str, in_shapes))} differ "
                             f"outside axis {axis}")
    # outside the axis, a known size wins over an unknown one (checked at evaluation)
    rest = [next((s[i] for s in in_shapes if not isinstance(s[i], Dim)), first[i])
            for i in range(len(first))]
    total = sum((s[axis] for s in in_shapes[1:]), in_shapes[0][axis])
    return tuple(rest[:axis]) + (total,) + tuple(rest[axis + 1:])


def equal_pieces(x, axis, k, size):
    """``k`` pieces of ``size`` (an int or a Dim) along ``axis`` of ``x``, whose length
    is k * size: the axis read as a new one of k, each piece one index of it (no slice
    bound need be known)."""
    grouped = F.reshape(x, shape=x.shape[:axis] + (k, size) + x.shape[axis + 1:])
    return [F.index(grouped, index=(slice(None),) * axis + (i,)) for i in range(k)]


def _concat_grad(node, g):
    # Each input gets back its slice of g.  One input may have an unknown size along the
    # axis: the slices after it are counted from the end (known sizes), so every bound
    # is an integer, as the slices of a forward x[1:] or x[:-1].
    axis = node.attrs["axis"]
    sizes = [x.shape[axis] for x in node.inputs]
    unknown = [i for i, d in enumerate(sizes) if isinstance(d, Dim)]
    if len(unknown) > 1 and all(d == sizes[0] for d in sizes):
        # pieces of one size (a Transformer's heads stacked on the batch axis)
        return equal_pieces(g, axis, len(sizes), sizes[0])
    if len(unknown) > 1:   # bounds known at run time (a GAN's real and fake logits)
        grads, start = [], 0
        for i, size in enumerate(sizes):
            stop = start + size if i < len(sizes) - 1 else None
            grads.append(F.index(g, index=(slice(None),) * axis + (slice(start, stop),)))
            start = stop
        return grads
    grads, start = [], 0
    for i, x in enumerate(node.inputs):
        if unknown and i >= unknown[0]:
            after = sum(sizes[i + 1:])        # known: only sizes[unknown[0]] is not
            begin = start if i == unknown[0] else -(after + sizes[i])
            part = slice(begin, -after if after else None)
        else:
            part = slice(start, start + sizes[i])
            start += sizes[i]
        grads.append(F.index(g, index=(slice(None),) * axis + (part,)))
    return grads


register(Op("concat", kind="structural", selects=True, shape=_concat_shape,
            impl=lambda *xs, axis: np.concatenate(xs, axis=axis), grad=_concat_grad,
            doc="tensors joined along an axis; each gets back its slice of the gradient",
            examples=[Example((2, 3), (1, 3), axis=0), Example((2,), (3,), (1,), axis=0)]))


def normalize_index(index, shape):
    """``index`` as a tuple numpy accepts: ints, slices, None and integer arrays.

    Raises ShapeError for boolean masks (their result shape depends on values)
    and out-of-range integers.
    """
    if type(index) is int and shape and type(shape[0]) is int and -shape[0] <= index < shape[0]:
        return (index,)   # x[k]: the common case, nothing to check
    if not isinstance(index, tuple):
        index = (index,)
    out = []
    for item in index:
        if isinstance(item, (list, np.ndarray)):
            arr = np.asarray(item)
            if arr.dtype.kind == "b":
                raise ShapeError("indexing with a boolean mask gives a value-dependent shape; "
                                 "use sg.where(mask, x, 0) instead")
            if arr.dtype.kind not in "iu":
                raise ShapeError(f"index arrays must hold integers, not {arr.dtype}")
            out.append(arr.astype(np.int64))
        elif item is None or item is Ellipsis or isinstance(item, slice):
            out.append(item)
        elif isinstance(item, (int, np.integer)):
            out.append(int(item))
        else:
            raise ShapeError(f"unsupported index {item!r}: use ints, slices, None, ... "
                             "or integer arrays")
    try:
        _index_shape([shape], tuple(out))
    except IndexError as exc:
        raise ShapeError(f"index {index!r} does not fit a tensor of shape {shape}: {exc}") from None
    return tuple(out)


def _index_shape(in_shapes, index):
    (shape,) = in_shapes
    if len(index) <= len(shape) and is_static(shape) and all(
            type(i) is int and -d <= i < d for i, d in zip(index, shape)):
        return tuple(shape[len(index):])  # x[i, j]: numpy's answer without an array
    if is_static(shape):
        return np.broadcast_to(np.empty(()), shape)[index].shape
    return _index_dims(shape, index)


def _index_dims(shape, index):
    # numpy's basic and advanced indexing, over unknown sizes: integers and index arrays
    # are checked when values arrive on unknown axes
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for a tensor of rank {len(shape)}")
    k = next((j for j, i in enumerate(index) if i is Ellipsis), len(index))
    index = index[:k] + (slice(None),) * (len(shape) - used) + index[k + 1:]
    out, arrays, axis, where = [], [], 0, []
    for item in index:
        if item is None:
            out.append(1)
            continue
        d = shape[axis]
        axis += 1
        if isinstance(item, slice):
            out.append(_slice_len(d, item))
        elif isinstance(item, np.ndarray):
            arrays.append(item)
            where.append(len(out))
        elif not isinstance(d, Dim) and not -d <= item < d:
            raise IndexError(f"index {item} is out of bounds for an axis of size {d}")
    if arrays:
        lead = tuple(np.broadcast_shapes(*[a.shape for a in arrays]))
        spots = [j for j, item in enumerate(index) if isinstance(item, np.ndarray)]
        at = where[0] if spots == list(range(spots[0], spots[-1] + 1)) else 0
        out = out[:at] + list(lead) + out[at:]
    return tuple(out)


def _slice_len(d, item):
    start, stop, step = item.start, item.stop, item.step or 1
    if isinstance(start, Dim) or isinstance(stop, Dim):
        # bounds known only at run time (the parts of a packed control-flow value):
        # counted from the axis's start, within it
        if step != 1 or any(isinstance(b, int) and b < 0 for b in (start, stop)):
            raise IndexError(f"slice {item}: bounds of unknown size take step 1 and count "
                             "from the start")
        return make_dim(dim_expr(d if stop is None else stop) - dim_expr(start or 0))
    if not isinstance(d, Dim):
        return len(range(*item.indices(d)))
    if step < 0 and start is None and stop is None:   # x[::-1]: tf.reverse, scan(reverse=True)
        return make_dim(dim_expr(d) if step == -1 else sympy.ceiling(dim_expr(d) / -step))
    if step < 0 or (start is not None and start < 0 and stop is not None and stop >= 0):
        raise IndexError(f"slice {item} of an axis of unknown size (None) is not supported; "
                         "use a forward slice such as x[1:] or x[:-1]")
    n = dim_expr(d)
    lo = 0 if start is None else start if start >= 0 else n + start
    hi = n if stop is None else stop if stop >= 0 else n + stop
    length = hi - lo
    return make_dim(length if step == 1 else sympy.ceiling(length / step))

def _scattered(g, shape, index):
    # the cotangent of x[index]: g added into zeros of x's shape (the rule's shape and
    # dtype, without asking them: index_add's are the given shape and g's dtype)
    shape = tuple(shape)
    return derived_node(REGISTRY["index_add"], [g], {"shape": shape, "index": index}, shape,
                        g.dtype)


def _index_impl(x, index):
    return np.array(x[index])


register(Op("index", kind="structural", selects=True, shape=_index_shape, impl=_index_impl,
            grad=lambda node, g: [_scattered(g, node.inputs[0].shape, node.attrs["index"])],
            doc="x[index]; the gradient scatters back into zeros of x's shape",
            examples=[Example((4,), index=(slice(1, 3),)), Example((3, 4), index=(1, slice(None, None, 2))),
                      Example((5,), index=(np.array([0, 2, 2]),)), Example((2, 3), index=(None, Ellipsis, 0))]))


def _index_add_impl(g, shape, index):
    return strided_scatter.add_at(g, shape, index)


register(Op("index_add", kind="structural", shape=lambda in_shapes, shape, index: tuple(shape),
            impl=_index_add_impl, merge=merge_scatters,
            grad=lambda node, g: [F.index(g, index=node.attrs["index"])],
            doc="zeros of a shape with g added at an index (the adjoint of index)",
            examples=[Example((2,), shape=(4,), index=(slice(1, 3),)),
                      Example((3,), shape=(5,), index=(np.array([0, 2, 2]),))]))



def _dim_size_symbolic(node, x):
    out = np.empty((), dtype=object)
    out[()] = sympy.Mul(*[dim_expr(node.inputs[0].shape[a]) for a in node.attrs["axis"]])
    return out


register(Op("dim_size", kind="special", shape=lambda in_shapes, axis: (),
            impl=lambda x, axis: np.asarray(float(np.prod([x.shape[a] for a in axis]))),
            symbolic=_dim_size_symbolic, grad=lambda node, g: [None],
            dtype=lambda dtypes, axis: np.dtype(np.float64),
            examples=[Example((2, 3), axis=(0,)), Example((2, 3), axis=(0, 1))],
            doc="the number of elements along axes, read when values arrive (tf.size)"))
REGISTRY["dim_size"].size_of = lambda shape, axis: shape_size([shape[a] for a in axis])

__all__ = ["normalize_index", "normalize_axis", "literal", "REGISTRY"]


def _index_add_positions(shape, index):
    # For the compiler: element j of g lands at flat position positions[j] of the output.
    return np.arange(_size(shape), dtype=np.int64).reshape(shape)[index]


REGISTRY["index_add"].scatter_positions = _index_add_positions


# For the compiler, over sizes known only at call time (no index tables): how each axis
# of the input is read.  ``view(in_shape, out_shape, **attrs)`` gives, per input axis,
# ``(out_axis or None, step, start)``: input index = start + step * out_index[out_axis].
# None: not expressible that way (index arrays); "flat": the same elements in order.

def _transpose_view(in_shape, out_shape, perm):
    out = [None] * len(in_shape)
    for k, p in enumerate(perm):
        out[p] = (k, 1, 0)
    return out


def _broadcast_view(in_shape, out_shape, shape):
    lead = len(out_shape) - len(in_shape)
    return [(None, 1, 0) if d == 1 and out_shape[lead + j] != 1 else (lead + j, 1, 0)
            for j, d in enumerate(in_shape)]


def _index_view(in_shape, out_shape, index):
    if any(isinstance(i, np.ndarray) for i in index):
        return None
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    k = next((j for j, i in enumerate(index) if i is Ellipsis), len(index))
    index = index[:k] + (slice(None),) * (len(in_shape) - used) + index[k + 1:]
    out, axis = [], 0
    for item in index:
        if item is None:
            axis += 1
            continue
        d = in_shape[len(out)]
        if isinstance(item, slice):
            if isinstance(d, Dim):  # forward slices only (see _slice_len)
                step, start = item.step or 1, _from_end(item.start or 0, d)
            else:
                start, _, step = item.indices(d)
            out.append((axis, step, start))
            axis += 1
        else:
            out.append((None, 1, _from_end(item, d)))
    return out


def _from_end(i, d):
    return i if isinstance(i, Dim) or i >= 0 else d + i


REGISTRY["transpose"].view = _transpose_view
REGISTRY["broadcast_to"].view = _broadcast_view
REGISTRY["index"].view = _index_view
REGISTRY["reshape"].view = lambda in_shape, out_shape, shape: "flat"


def _concat_placement(in_shapes, axis):
    # where each input lands in the output: input axis a -> (a, 1, offset on the axis)
    out, offset = [], 0
    for shape in in_shapes:
        out.append([(a, 1, offset if a == axis else 0) for a in range(len(shape))])
        offset = offset + shape[axis]
    return out


REGISTRY["concat"].placement = _concat_placement
# index_add adds g at the positions the same index reads: its view is index's, from the
# output (of index_add's shape) to g
REGISTRY["index_add"].scatter_view = lambda out_shape, g_shape, shape, index: _index_view(
    tuple(shape), g_shape, index)
