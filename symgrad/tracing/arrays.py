"""Array functions of TF: gather, one_hot, tile, split, unstack, shape, range, ... (pad:
``tracing.pads``; gather's ``batch_dims``: ``tracing.batch_gather``)

All are composed from registry primitives.  Indices known when tracing (Python
lists, numpy arrays) become the ``index`` primitive: a static gather whose
gradient is a scatter-add.  Indices held in tensors (ids fed through an integer
placeholder, as TF1 programs do) select by a one-hot contraction: the gradient of
the parameters is then the same scatter-add, computed densely by the compiled path
(work grows with the number of rows of the parameters); the reference evaluator
computes both from the indices (``ops.onehot``).

SEMANTICS (TF's behaviour at the edges):

- gather/gather_nd/embedding_lookup with tensor indices: an index outside
  ``[0, n)`` selects nothing (zeros) where TF's CPU kernel raises
  InvalidArgumentError; indices have no gradient (integers).
- one_hot: an index outside ``[0, depth)`` gives a row of ``off_value`` (TF).
- shape/size/rank/range/linspace/eye are constants: shapes are static here.
- boolean_mask with a mask known when tracing picks fixed entries; with a computed
  mask (and slices with computed bounds, dynamic_partition, one-argument where) the
  result's length is known when the values are (``ops.valued``).

>>> with Graph().as_default():
...     p = constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
...     gather(p, [2, 0]).numpy().tolist()
[[5.0, 6.0], [1.0, 2.0]]
"""
from __future__ import annotations

import builtins

import numpy as np

from ..errors import ShapeError
from ..graph import Dim, Node, dim_expr, is_static, make_dim, shape_size
from ..ops import apply, literal, normalize_axis
from ..ops.base import filled
from ..ops.deferred import scalar_by_contract, tensors_in
from ..ops.onehot import mark as mark_one_hot
from ..ops.draws import band_mask, iota_of  # noqa: F401  (band_mask: tracing.linalg)
from ..ops.shape import equal_pieces
from ..ops.sizes import sizes_of
from ..ops.valued import size_from_values, sized_by_values
from .arguments import publish
from .batch_gather import gather_batched, gather_nd_batched
from .functions import (_dims, _lift, _one_size, cast, concat, equal, expand_dims,
                        greater_equal, less, logical_and, maximum, reshape, transpose, where)
from .kernel_notes import note
from .math_ops import named
from .tensor import Graph, Tensor, as_dtype, constant, get_default_graph  # noqa: F401

__all__ = ["one_hot", "gather", "gather_nd", "tile", "split", "unstack", "slice",
           "reverse",
           "boolean_mask", "shape", "size", "rank", "range", "linspace", "eye", "sequence_mask",
           "dynamic_partition"]


def known_now(value):
    """Whether ``value`` is known when tracing (what :func:`static_value` takes): not a
    computed, fed or variable tensor."""
    return not isinstance(value, Node) or (not value.inputs and value.opdef.name == "const")


def static_value(value, what):
    """A value known when tracing: numbers, lists, arrays, or a constant leaf's value."""
    if isinstance(value, Node):
        sizes = None if known_now(value) or value.dtype.kind not in "iu" else sizes_of(value)
        if sizes is not None and all(isinstance(v, int) for v in sizes):
            # integers computed from constants and known shapes (ids.dense_shape[0],
            # tf.shape(x)[0] + 1): the numbers they are
            return np.asarray(sizes, dtype=value.dtype).reshape(value.shape)
        if not known_now(value):
            raise ShapeError(f"{what} must be known when the graph is built (a Python list, "
                             f"numpy array or constant), not the computed tensor "
                             f"{value.name!r}: symgrad shapes are static")
        return np.asarray(value.value)
    return np.asarray(value)


def index_by_tensors(x, index):
    """``x[index]`` where ``index`` holds tensors (TF's strided slices with tensor
    bounds): constants and sizes read as the numbers they are; a computed scalar
    integer tensor (a loop counter) picks along its axis as ``gather`` does.  Bounds
    of a slice must be known now (the result's size would depend on values)."""
    items = list(index) if isinstance(index, tuple) else [index]
    static, picks = [], []
    computed = []
    for item in items:
        if isinstance(item, builtins.slice) and any(
                isinstance(b, Node) and not known_now(b) for b in (item.start, item.stop)):
            computed.append((len(static), item))   # bounds computed in the graph: a mask
            static.append(builtins.slice(None))
        elif isinstance(item, builtins.slice):
            static.append(builtins.slice(*(_known_int(b, "a slice bound") for b in
                                  (item.start, item.stop, item.step))))
        elif isinstance(item, Node) and not known_now(item):
            if item.dtype.kind in "iu":
                # TF1's placeholder(tf.int32, None) as an index: a scalar by contract
                # (TF's strided slice reads it as one), so the result keeps its shape
                item = scalar_by_contract(item)
            if item.ndim != 0 or item.dtype.kind not in "iu":
                raise ShapeError(f"index {item.name!r}: a computed index must be a scalar "
                                 f"integer tensor (got shape {item.shape}, {item.dtype}); "
                                 "use tf.gather or tf.gather_nd for arrays of indices")
            picks.append((len(static), item))
            static.append(builtins.slice(None))
        else:
            static.append(_known_int(item, "an index") if isinstance(item, Node) else item)
    out = x[tuple(static)]
    # the axis each pick lands on: ints before it remove an axis, None adds one
    at, axes = 0, {}
    for k, item in enumerate(static):
        if item is Ellipsis:
            at += x.ndim - sum(1 for i in static if i is not None and i is not Ellipsis)
            continue
        axes[k] = at
        at += 0 if isinstance(item, (int, np.integer)) else 1
    for k, item in computed:
        out = _computed_bounds(out, axes[k], item)
    for k, i in reversed(picks):
        # a negative index counts from the end, as x[-1] does (TF's strided slice)
        n = out.shape[axes[k]]
        size = cast(apply("dim_size", [out], axis=(axes[k],)), i.dtype) \
            if isinstance(n, Dim) else literal(out.graph, np.array(n, i.dtype))
        i = where(less(i, literal(out.graph, np.array(0, i.dtype))), i + size, i)
        out = _gather(out, i, axes[k], None, f"slice:{k}")
    return out


Tensor._index_by_tensors = index_by_tensors


def _computed_bounds(out, axis, item):
    """``out[..., start:stop]`` along ``axis`` with bounds computed in the graph (step 1,
    Python's clamping and negative bounds): the rows a mask of positions keeps."""
    if item.step not in (None, 1):
        raise ShapeError("a slice with computed bounds takes step 1 only")
    n = out.shape[axis]
    length = literal(out.graph, np.array(n, np.int64)) if not isinstance(n, Dim) else \
        cast(apply("dim_size", [out], axis=(axis,)), np.int64)
    at = iota_of(out.graph, n, np.int64)
    keep = None
    for bound, test in ((item.start, greater_equal), (item.stop, less)):
        if bound is None:
            continue
        (b,) = _lift([bound])
        b = cast(b, np.int64)
        b = where(less(b, literal(b.graph, np.array(0, np.int64))), b + length, b)
        part = test(at, b)
        keep = part if keep is None else logical_and(keep, part)
    return out if keep is None else boolean_mask(out, keep, axis=axis)


def _known_int(value, what):
    if value is None or not isinstance(value, Node):
        return value
    if not known_now(value) or value.ndim != 0:
        raise ShapeError(f"{what} must be known when the graph is built, "
                         f"not the computed tensor {value.name!r} (the result's shape would "
                         "depend on values); pick single entries with a scalar index tensor "
                         "or tf.gather, or slice with numbers")
    return int(value.value)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """A new axis of length ``depth`` holding ``on_value`` at each index, ``off_value``
    elsewhere (1 and 0 by default; float32 like TF unless the values say otherwise).

    >>> with Graph().as_default():
    ...     one_hot(constant([0, 2, -1]), 3).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    (ids,) = _lift([indices])
    if ids.dtype.kind not in "iu":
        raise ShapeError(f"one_hot(indices): needs an integer tensor, got {ids.dtype}")
    known = sizes_of(depth) if isinstance(depth, (Node, Dim)) else None
    if known and len(known) == 1 and isinstance(known[0], (Dim, int, np.integer)):
        depth = known[0] if isinstance(known[0], Dim) else int(known[0])   # tf.shape(x)[1]
    else:
        depth = int(static_value(depth, "one_hot(depth)"))
    if not isinstance(depth, Dim) and depth < 0:
        raise ShapeError(f"one_hot: Dimension size, given by scalar input depth, must be "
                         f"non-negative but is {depth}")
    axis = ids.ndim if axis is None or axis == -1 else int(axis)
    dt = as_dtype(dtype) or (np.asarray(on_value).dtype if on_value is not None and
                             not isinstance(on_value, Node) else np.dtype(np.float32))
    shape = [1] * (ids.ndim + 1)
    shape[axis] = depth
    iota = reshape(iota_of(ids.graph, depth, ids.dtype), tuple(shape))
    hit = equal(expand_dims(ids, axis), iota)
    on = _value_of(on_value, 1, dt, ids.graph)
    off = _value_of(off_value, 0, dt, ids.graph)
    out = where(hit, on, off, name=name)
    if on_value is None and off_value is None and axis == ids.ndim and isinstance(depth, int):
        mark_one_hot(out, ids, depth)   # (gathers by it need not make it: ops.onehot)
    return out


def _value_of(value, default, dtype, graph):
    if isinstance(value, Node):
        return value
    return literal(graph, np.asarray(default if value is None else value, dtype=dtype))


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` (0) at ``indices``: shape
    ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``.

    Static indices gather in place; tensor indices select by a one-hot contraction.
    """
    if batch_dims:
        return gather_batched(params, _packed(indices), axis, int(batch_dims), name, gather)
    return _gather(params, indices, axis, name, "gather")


def _gather(params, indices, axis, name, label):
    """``gather``; ``label`` says which TF kernel's range check is noted (kernel_notes)."""
    (p,) = _lift([params])
    axis = normalize_axis(0 if axis is None else axis, p.ndim, "gather")[0]
    indices = _packed(indices)
    if not isinstance(indices, Node):
        idx = np.asarray(indices, dtype=np.int64)
        return apply("index", [p], index=(builtins.slice(None),) * axis + (idx,), name=name)
    ids = indices
    # other dtypes select in float64 (exact up to 2**53) and are cast back
    q = p if p.is_float else cast(p, np.float64)
    hot = one_hot(ids, p.shape[axis], dtype=q.dtype)
    letters = "abcdefghijklmnopqrstuvwxy"
    ps = letters[:p.ndim]
    hs = letters[p.ndim:p.ndim + ids.ndim] + ps[axis]
    out = ps[:axis] + hs[:-1] + ps[axis + 1:]
    picked = apply("einsum", [q, hot], subscripts=f"{ps},{hs}->{out}",
                   name=name if q is p else None)
    result = picked if q is p else cast(picked, p.dtype, name=name)
    # TF's kernel refuses an id outside [0, n); the one-hot row of zeros would not
    # (label None: the caller checks the ids itself, as compat's run-time tf.slice does)
    for node in (hot, result) if label else ():   # (hot: read by the gradient too)
        note(node, "index", [ids, p], named=result, axis=axis, label=label)
    return result


def _packed(indices):
    """``indices``, or the tensor they pack into when a list holds tensors (``[i, j]``
    in a loop body), as TF packs it."""
    if isinstance(indices, (list, tuple)) and tensors_in(indices):
        (indices,) = _lift([indices])
    return indices


def gather_nd(params, indices, batch_dims=0, name=None):
    """Elements (or slices) of ``params`` at the index tuples in the last axis of
    ``indices``: shape ``indices.shape[:-1] + params.shape[m:]``.

    >>> with Graph().as_default():
    ...     gather_nd(constant([[1.0, 2.0], [3.0, 4.0]]), [[0, 1], [1, 0]]).numpy().tolist()
    [2.0, 3.0]
    """
    if batch_dims:
        return gather_nd_batched(params, _packed(indices), int(batch_dims), name, gather_nd)
    (p,) = _lift([params])
    indices = _packed(indices)
    depth = (indices.shape if isinstance(indices, Node) else np.shape(indices))[-1:]
    if depth and isinstance(depth[0], int) and depth[0] > p.ndim:
        raise ShapeError(f"gather_nd: index tuples of length {depth[0]} (the last axis of "
                         f"indices) address at most the {p.ndim} axes of params {p.shape}")
    if not isinstance(indices, Node):
        idx = np.asarray(indices, dtype=np.int64)
        index = tuple(idx[..., k] for k in builtins.range(idx.shape[-1]))
        return apply("index", [p], index=index, name=name)
    (ids,) = _lift([indices])
    m = ids.shape[-1]
    strides = np.cumprod((p.shape[1:m] + (1,))[::-1])[::-1].astype(ids.dtype)
    flat_index = apply("einsum", [ids, literal(p.graph, strides)], subscripts=_last_axis(ids.ndim))
    note(flat_index, "nd", [ids, p], named=None)   # (named: the gather below, see there)
    if not is_static(p.shape[1:m]):
        raise ShapeError(f"gather_nd: params of shape {p.shape} need known sizes on the "
                         f"axes 1..{m - 1} that the index tuples address")
    rows = reshape(p, (shape_size(p.shape[:m]),) + p.shape[m:])
    out = gather(rows, flat_index, name=name)
    flat_index.kernel_notes[-1] = flat_index.kernel_notes[-1]._replace(named=out)
    return out


def _last_axis(ndim):
    letters = "abcdefghijklmnopqrstuvwxy"[:ndim]
    return f"{letters},{letters[-1]}->{letters[:-1]}"


def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[d]`` times along each axis d."""
    (x,) = _lift([input])
    # (entries read off shapes, [1, tf.shape(q)[1], 1], are sizes: ints or Dims)
    reps = sizes_of(multiples) if _sized(multiples) else None
    if reps is None and isinstance(multiples, (list, tuple)) and _sized(multiples):
        # a count computed from values ((2*N) // M of two batches): a size bound then
        reps = [_one_size(m, "tile(multiples)") for m in multiples]
    if reps is None:
        reps = [int(m) for m in static_value(multiples, "tile(multiples)").reshape(-1)]
    if len(reps) != x.ndim or any(isinstance(m, int) and m < 0 for m in reps):
        raise ShapeError(f"tile: multiples {list(reps)} must have one entry >= 0 per axis "
                         f"of {x.shape}")
    out = x
    for d, (n, m) in enumerate(zip(x.shape, reps)):   # one axis at a time
        if m == 1:
            continue
        if isinstance(n, Dim) or isinstance(m, Dim):
            # a size known at run time: m copies on a new axis, merged
            lead, rest = out.shape[:d], out.shape[d:]
            spread = apply("broadcast_to", [reshape(out, lead + (1,) + rest)],
                           shape=lead + (m,) + rest)
            out = reshape(spread, lead + (m * n,) + rest[1:])
        else:
            out = _along(out, d, np.tile(np.arange(n), m))
    return named(out, name) if out is not x else apply("identity", [x], name=name)


def _sized(value):
    """Whether ``value`` holds tensors (a list with ``tf.shape(x)[0]`` in it, or one)."""
    if isinstance(value, Node):
        return not known_now(value)
    return isinstance(value, (list, tuple)) and any(isinstance(v, Node) for v in value)


def _along(x, axis, table):
    """``x`` gathered at ``table`` along ``axis`` (the other axes whole)."""
    return apply("index", [x], index=(builtins.slice(None),) * axis + (table,))


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Pieces of ``value`` along ``axis``: ``n`` equal ones, or of the given sizes (one
    size may be -1)."""
    (x,) = _lift([value])
    axis = normalize_axis(axis, x.ndim, "split")[0]
    n = x.shape[axis]
    spec = static_value(num_or_size_splits, "split(num_or_size_splits)")
    if spec.ndim == 0 and isinstance(n, Dim):
        return _split_unknown(x, axis, n, int(spec))
    if spec.ndim == 0:
        k = int(spec)
        if k <= 0 or n % k:
            raise ShapeError(f"split: axis {axis} of length {n} does not split into {k} "
                             "equal pieces")
        sizes = [n // k] * k
    else:
        sizes = [int(s) for s in spec]
        if sizes.count(-1) == 1:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise ShapeError(f"split: sizes {sizes} do not add up to {n} along axis {axis}")
    out, start = [], 0
    for s in sizes:
        index = (builtins.slice(None),) * axis + (builtins.slice(start, start + s),)
        out.append(apply("index", [x], index=index))
        start += s
    return out


def _split_unknown(x, axis, n, k):
    """``k`` equal pieces of an axis whose length ``n`` is known at run time (``h * n_x``
    after a Transformer's heads are stacked on the batch axis; BEGAN's
    ``tf.split(D(tf.concat([G, x], 0)), 2)``, ``n_G + n_x``), read as a new axis of k,
    each piece one index of it; a length k does not divide fails when values arrive
    (TF's InvalidArgumentError, from the reshape to (k, n / k))."""
    if k <= 0:
        raise ShapeError(f"split: axis {axis} cannot be split into {k} pieces: give a "
                         "positive number of pieces")
    return equal_pieces(x, axis, k, make_dim(dim_expr(n) / k))


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of ``value`` along ``axis``, each without that axis."""
    (x,) = _lift([value])
    axis = normalize_axis(axis, x.ndim, "unstack")[0]
    if num is not None and isinstance(x.shape[axis], int) and int(num) != x.shape[axis]:
        raise ShapeError(f"unstack: num={num} does not match axis {axis} of length "
                         f"{x.shape[axis]} in shape {x.shape}; leave num out")
    return [apply("index", [x], index=(builtins.slice(None),) * axis + (i,))
            for i in builtins.range(x.shape[axis])]


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of ``tensor`` where ``mask`` is True, flattened over the mask's axes
    (starting at ``axis``).  A mask known when tracing picks fixed entries; a computed or
    fed one gives a result whose length is known when the mask's values are
    (``ops.valued``), with TF's gradient: zeros where the mask is False."""
    (x,) = _lift([tensor])
    axis = 0 if axis is None else int(axis) % max(x.ndim, 1)
    if not known_now(mask):
        (m,) = _lift([mask])
        if m.dtype.kind != "b":
            raise ShapeError(f"boolean_mask(mask): needs a boolean tensor, got {m.dtype}; "
                             "compare first, e.g. tf.boolean_mask(x, x > 0)")
        if m.ndim == 0 or axis + m.ndim > x.ndim:
            raise ShapeError(f"boolean_mask: a mask of shape {m.shape} does not fit axes "
                             f"{axis}.. of shape {x.shape}")
        if axis == 0:
            return sized_by_values("mask_rows", [x, m], name=_given(name, "boolean_mask"))
        span = builtins.range(axis, axis + m.ndim)
        order = list(span) + [a for a in builtins.range(x.ndim) if a not in span]
        picked = sized_by_values("mask_rows", [transpose(x, order), m])
        back = list(builtins.range(1, axis + 1)) + [0] + list(
            builtins.range(axis + 1, picked.ndim))
        return transpose(picked, back, name=_given(name, "boolean_mask"))
    m = static_value(mask, "boolean_mask(mask)").astype(bool)
    if x.shape[axis:axis + m.ndim] != m.shape:
        raise ShapeError(f"boolean_mask: mask of shape {m.shape} does not match axes "
                         f"{axis}.. of shape {x.shape}")
    index = (builtins.slice(None),) * axis + tuple(np.nonzero(m))
    return apply("index", [x], index=index, name=_given(name, "boolean_mask"))


def _given(name, default):
    return name if name != default else None


def nonzero(condition, name=None):
    """The positions where ``condition`` is True, shape ``(k, condition.ndim)`` int64
    (TF's one-argument ``tf.where``); k is known when the values are."""
    (c,) = _lift([condition])
    if c.dtype.kind != "b":
        c = apply("not_equal", [c, literal(c.graph, np.zeros((), c.dtype))])
    return sized_by_values("nonzero", [c], name=name)


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``tf.dynamic_partition``: the rows of ``data`` whose partition is 0, 1, ...
    ``num_partitions - 1`` (a list; each one's length known when the values are)."""
    (p,) = _lift([partitions])
    masks = [equal(p, literal(p.graph, np.array(k, p.dtype)))
             for k in builtins.range(int(num_partitions))]
    for m in masks:   # TF refuses a partition outside [0, num_partitions)
        note(m, "partitions", [p], num=int(num_partitions))
    return [boolean_mask(data, m) for m in masks]


def shape(input, name=None, out_type=np.int32):
    """The shape as an integer constant; sizes known only at run time are read then
    (``dim_size``), and ``tf.reshape``/``tf.zeros``/random ops take them back as the
    sizes they stand for (``ops.sizes``)."""
    (x,) = _lift([input])
    dtype = as_dtype(out_type)
    graph = get_default_graph()   # (not x's: inside a cond branch the constant is the branch's)
    if is_static(x.shape):
        return named(literal(graph, np.array(x.shape, dtype=dtype)), name)
    parts = [literal(graph, np.array([d], dtype=dtype)) if not isinstance(d, Dim) else
             reshape(cast(apply("dim_size", [x], axis=(a,)), dtype), (1,))
             for a, d in enumerate(x.shape)]
    return concat(parts, 0, name=name)


def size(input, name=None, out_type=np.int32):
    """The number of elements: an integer constant, or (sizes known at run time) the
    product of ``shape(x)``'s entries."""
    (x,) = _lift([input])
    if not is_static(x.shape):
        return named(apply("reduce_prod", [shape(x, out_type=out_type)], axis=(0,),
                           keepdims=False), name)
    return named(literal(get_default_graph(), np.array(x.size, dtype=as_dtype(out_type))), name)


def rank(input, name=None):
    """The number of axes as an int32 constant."""
    (x,) = _lift([input])
    return named(literal(get_default_graph(), np.array(x.ndim, dtype=np.int32)), name)


def sequence_mask(lengths, maxlen=None, dtype=np.bool_, name=None):
    """``mask[..., j] = j < lengths[...]`` for j below ``maxlen`` (by default the largest
    length, which must then be known when the graph is built).

    >>> with Graph().as_default():
    ...     sequence_mask([1, 3], 4).numpy().astype(int).tolist()
    [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    (n,) = _lift([lengths])
    if maxlen is None and known_now(lengths):
        known = static_value(lengths, "sequence_mask(lengths)")
        maxlen = int(np.max(known)) if known.size else 0
    elif maxlen is None:   # the largest length, read when the values are
        maxlen = apply("reduce_max", [cast(n, np.int64)], axis=tuple(builtins.range(n.ndim)),
                       keepdims=False) if n.ndim else cast(n, np.int64)
    shape = maxlen.shape if isinstance(maxlen, (Node, Dim)) else np.shape(maxlen)
    if shape:
        raise ShapeError(f"sequence_mask: maxlen must be a scalar, got shape {tuple(shape)}")
    (size,) = _dims(maxlen, "sequence_mask(maxlen)")
    steps = iota_of(n.graph, size, np.int64)
    mask = less(steps, expand_dims(cast(n, np.int64), -1))
    dtype = as_dtype(dtype)
    return named(mask if dtype == np.bool_ else cast(mask, dtype), name)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``numpy.arange(start, limit, delta)`` as a constant (dtype from the arguments)."""
    if limit is None:
        start, limit = 0, start
    name = None if name == "range" else name
    start, limit, delta = (_known_size(v) for v in (start, limit, delta))
    run_time = _run_time_range(start, limit, delta, dtype)
    if run_time is not None:
        return named(run_time, name)
    if not all(known_now(v) for v in (start, limit, delta)):
        return named(_computed_range(start, limit, delta, dtype), name)
    values = [static_value(v, "range") for v in (start, limit, delta)]
    return named(literal(get_default_graph(), _arange(*values, dtype)), name)


def _arange(start, limit, delta, dtype):
    """TF's Range kernel: ``start + i * delta`` and the count ceil((limit - start) /
    delta), both in the result's dtype (numpy's arange of floats steps otherwise:
    ``range(1, 2, 0.3)`` in float32 ended 1.5999999, 1.8999999 where TF has 1.6, 1.9)."""
    out = np.arange(start, limit, delta, dtype=as_dtype(dtype))
    if out.dtype.kind != "f":
        return out
    lo, hi, step = (np.asarray(v, out.dtype) for v in (start, limit, delta))
    with np.errstate(all="ignore"):
        count = np.ceil((hi - lo) / step)
    if not np.isfinite(count) or count <= 0:
        return out   # (numpy's empty result: a zero or wrong-signed step, or none to take)
    return lo + np.arange(int(count), dtype=out.dtype) * step


def _known_size(value):
    """A 0-d tensor read off a known size (``tf.shape(x)[1]`` for x of known shape) as
    that int; anything else as it is."""
    if isinstance(value, Node) and not known_now(value) and value.shape == ():
        found = sizes_of(value)
        if found and len(found) == 1 and not isinstance(found[0], Dim):
            return np.asarray(found[0], dtype=value.dtype)
    return value


def _run_time_range(start, limit, delta, dtype):
    """``range`` up to a size known only at run time (``tf.range(tf.shape(x)[0])``),
    or None when every bound is known now."""
    if not isinstance(limit, Node) or not isinstance((sizes_of(limit) or (0,))[0], Dim):
        return None
    (n,) = sizes_of(limit)
    lo, step = (int(static_value(v, "range")) for v in (start, delta))
    if step <= 0:
        raise ShapeError(f"range(delta={delta}): up to a size known only at run time, the "
                         "step must be a positive integer")
    if step == 1:
        count = n - lo
    else:
        import sympy
        count = make_dim(sympy.ceiling((dim_expr(n) - lo) / step))
    dtype = as_dtype(dtype) if dtype is not None else limit.dtype
    out = iota_of(limit.graph, count, dtype)
    if step != 1:
        out = out * np.array(step, dtype)
    return out + np.array(lo, dtype) if lo else out


def _computed_range(start, limit, delta, dtype):
    """``range`` with bounds computed in the graph: ``start + delta * arange(count)``,
    count = max(0, ceil((limit - start) / delta)) read when the values are."""
    lo, hi, step = _lift([start, limit, delta])
    dtype = as_dtype(dtype) if dtype is not None else np.result_type(
        lo.dtype, hi.dtype, step.dtype)
    span = cast(hi, np.float64) - cast(lo, np.float64)
    count = maximum(cast(apply("ceil", [span / cast(step, np.float64)]), np.int64), 0)
    note(count, "range", [lo, hi, step])   # (TF refuses bounds the step walks away from)
    at = iota_of(count.graph, size_from_values(count), np.int64)
    return cast(lo, dtype) + cast(step, dtype) * cast(at, dtype)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included)."""
    lo, hi = static_value(start, "linspace"), static_value(stop, "linspace")
    out = np.linspace(lo, hi, int(static_value(num, "linspace(num)")), axis=axis)
    dt = np.result_type(lo.dtype, hi.dtype) if lo.dtype.kind == "f" else np.float64
    return named(literal(get_default_graph(), out.astype(dt)), name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=np.float64, name=None):
    """The identity matrix (a constant), optionally repeated over ``batch_shape``."""
    rows = sizes_of(num_rows) if isinstance(num_rows, (Node, Dim)) else None
    if rows and isinstance(rows[0], Dim) and num_columns is None and batch_shape is None:
        # a size read at run time (tf.eye(tf.shape(X)[0])): positions compared
        return named(band_mask(get_default_graph(), rows[0], rows[0], 0, 0, as_dtype(dtype)),
                     name)
    m = np.eye(int(static_value(num_rows, "eye(num_rows)")),
               None if num_columns is None else int(static_value(num_columns, "eye")),
               dtype=as_dtype(dtype))
    if batch_shape is not None:
        m = np.broadcast_to(m, tuple(int(b) for b in batch_shape) + m.shape).copy()
    return named(literal(get_default_graph(), m), name)


def slice(input_, begin, size, name=None):  # noqa: A001
    """``input_[begin[d]:begin[d] + size[d]]`` on every axis (size -1: to the end)."""
    (x,) = _lift([input_])
    begin = [int(b) for b in static_value(begin, "slice(begin)").reshape(-1)]
    # (sizes read off shapes, [tf.shape(x)[0], 2], are ints or Dims)
    sized = sizes_of(size) if _sized(size) else None
    size = list(sized) if sized is not None else [
        int(s) for s in static_value(size, "slice(size)").reshape(-1)]
    if len(begin) != x.ndim or len(size) != x.ndim:
        raise ShapeError(f"slice: begin {begin} and size {size} need one entry per axis of "
                         f"{x.shape}")
    index = tuple(builtins.slice(b, None if isinstance(s, int) and s == -1 else b + s)
                  for b, s in zip(begin, size))
    return apply("index", [x], index=index, name=name)


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of the entries along each axis in ``axis`` reversed."""
    (x,) = _lift([tensor])
    axes = normalize_axis(axis, x.ndim, "reverse")
    index = tuple(builtins.slice(None, None, -1) if d in axes else builtins.slice(None)
                  for d in builtins.range(x.ndim))
    return apply("index", [x], index=index, name=name)


# every public function checks its arity and argument kinds and records calls meeting a
# tensor of unknown rank (tracing.arguments)
def _pieces(value, num_or_size_splits, axis=0, num=None, name=None):
    """How many tensors ``split`` gives, from its arguments alone (unknown rank)."""
    spec = static_value(num_or_size_splits, "split(num_or_size_splits)")
    return int(spec) if spec.ndim == 0 else len(spec)


def _slices(value, num=None, axis=0, name=None):
    """How many tensors ``unstack`` gives when ``value``'s rank is unknown: ``num``."""
    if num is None:
        raise ShapeError("unstack: the rank of value is unknown (a tf.placeholder without a "
                         "shape), so the number of slices is too; pass num=, or give the "
                         "placeholder a shape")
    return int(num)


publish(globals(), counts={"split": _pieces, "unstack": _slices})
