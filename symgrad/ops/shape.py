"""Structural ops: they move, copy or select elements without arithmetic.

Each implementation is written once, generically over the array dtype, so the
same code computes numbers and SymPy closed forms (numpy object arrays).

>>> import numpy as np
>>> REGISTRY["transpose"].impl(np.arange(6).reshape(2, 3), perm=(1, 0)).shape
(3, 2)
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .base import REGISTRY, Example, F, Op, literal, normalize_axis, register, unbroadcast


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _reshape_shape(in_shapes, shape):
    (x,) = in_shapes
    if _size(x) != _size(shape):
        raise ShapeError(f"reshape: cannot reshape a tensor of shape {x} (size {_size(x)}) "
                         f"into shape {tuple(shape)} (size {_size(shape)})")
    return tuple(shape)


register(Op("reshape", kind="structural", shape=_reshape_shape,
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


register(Op("transpose", kind="structural", shape=_transpose_shape,
            impl=lambda x, perm: np.transpose(x, perm),
            grad=lambda node, g: [F.transpose(g, perm=tuple(np.argsort(node.attrs["perm"])))],
            doc="axes permuted; the gradient is permuted back",
            examples=[Example((2, 3), perm=(1, 0)), Example((2, 3, 4), perm=(2, 0, 1))]))


def _broadcast_shape(in_shapes, shape):
    (x,) = in_shapes
    try:
        out = tuple(np.broadcast_shapes(x, tuple(shape)))
    except ValueError:
        out = None
    if out != tuple(shape):
        raise ShapeError(f"broadcast_to: a tensor of shape {x} cannot be broadcast to {tuple(shape)}")
    return out


register(Op("broadcast_to", kind="structural", shape=_broadcast_shape,
            impl=lambda x, shape: np.array(np.broadcast_to(x, shape)),
            grad=lambda node, g: [unbroadcast(g, node.inputs[0].shape)],
            doc="copies along new or size-1 axes; the gradient sums the copies",
            examples=[Example((3,), shape=(2, 3)), Example((2, 1), shape=(2, 4))]))


def _concat_shape(in_shapes, axis):
    first = in_shapes[0]
    for s in in_shapes[1:]:
        if len(s) != len(first) or any(a != b for i, (a, b) in enumerate(zip(s, first))
                                        if i != axis):
            raise ShapeError(f"concat: shapes {', '.join(map(str, in_shapes))} differ "
                             f"outside axis {axis}")
    return first[:axis] + (sum(s[axis] for s in in_shapes),) + first[axis + 1:]


def _concat_grad(node, g):
    axis, start, grads = node.attrs["axis"], 0, []
    for x in node.inputs:
        index = (slice(None),) * axis + (slice(start, start + x.shape[axis]),)
        grads.append(F.index(g, index=index))
        start += x.shape[axis]
    return grads


register(Op("concat", kind="structural", shape=_concat_shape,
            impl=lambda *xs, axis: np.concatenate(xs, axis=axis), grad=_concat_grad,
            doc="tensors joined along an axis; each gets back its slice of the gradient",
            examples=[Example((2, 3), (1, 3), axis=0), Example((2,), (3,), (1,), axis=0)]))


def normalize_index(index, shape):
    """``index`` as a tuple numpy accepts: ints, slices, None and integer arrays.

    Raises ShapeError for boolean masks (their result shape depends on values)
    and out-of-range integers.
    """
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
        np.broadcast_to(np.empty(()), shape)[tuple(out)]
    except IndexError as exc:
        raise ShapeError(f"index {index!r} does not fit a tensor of shape {shape}: {exc}") from None
    return tuple(out)


def _index_shape(in_shapes, index):
    return np.broadcast_to(np.empty(()), in_shapes[0])[index].shape


def _index_impl(x, index):
    return np.array(x[index])


register(Op("index", kind="structural", shape=_index_shape, impl=_index_impl,
            grad=lambda node, g: [F.index_add(g, shape=node.inputs[0].shape,
                                              index=node.attrs["index"])],
            doc="x[index]; the gradient scatters back into zeros of x's shape",
            examples=[Example((4,), index=(slice(1, 3),)), Example((3, 4), index=(1, slice(None, None, 2))),
                      Example((5,), index=(np.array([0, 2, 2]),)), Example((2, 3), index=(None, Ellipsis, 0))]))


def _index_add_impl(g, shape, index):
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


register(Op("index_add", kind="structural", shape=lambda in_shapes, shape, index: tuple(shape),
            impl=_index_add_impl,
            grad=lambda node, g: [F.index(g, index=node.attrs["index"])],
            doc="zeros of a shape with g added at an index (the adjoint of index)",
            examples=[Example((2,), shape=(4,), index=(slice(1, 3),)),
                      Example((3,), shape=(5,), index=(np.array([0, 2, 2]),))]))

__all__ = ["normalize_index", "normalize_axis", "literal", "REGISTRY"]


def _index_add_positions(shape, index):
    # For the compiler: element j of g lands at flat position positions[j] of the output.
    return np.arange(_size(shape), dtype=np.int64).reshape(shape)[index]


REGISTRY["index_add"].scatter_positions = _index_add_positions
