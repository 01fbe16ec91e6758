"""TF's ``IndexedSlices`` gradients: a table read only through ``tf.gather`` /
``tf.nn.embedding_lookup`` gets the rows looked up, not a dense gradient.

``tf.gather(params, ids)`` (axis 0) and ``tf.nn.embedding_lookup`` record which table
they read and at which ids.  ``tf.gradients`` (and ``compute_gradients``) then follow
TensorFlow 2.21's rule for each x:

- the lookups of x (through ``tf.identity``) each give an ``IndexedSlices`` whose
  ``values`` are the gradient of the looked-up rows (one row per id, duplicates kept,
  ids flattened) and whose ``indices`` are the ids; several lookups are concatenated
  (in the order they were made; TF's order follows its backward sweep and can differ);
- if x also receives a gradient any other way (``tf.matmul(h, x)``, ``x * 2``, a
  gather along another axis, ``gather_nd``), the result is the dense sum, as TF's
  ``add_n`` of a tensor and slices;
- a :class:`~symgrad.compat.partitioned.PartitionedVariable` (or a list of shards)
  gives each part the rows looked up in it: with the default ``partition_strategy="mod"``
  id ``i`` is row ``i // k`` of part ``i % k``; with ``"div"`` the parts hold
  consecutive ids.

Lookups made inside a ``tf.cond`` branch or a ``tf.while_loop`` / ``tf.map_fn`` body,
and gradients of ys of unknown rank (made when values are fed), are dense (TF gives
slices there too; the sums agree).

The values are what the dense gradient would sum: ``tf.convert_to_tensor(g)`` equals
symgrad's dense gradient.  What differs is what TF does with slices: norms count each
looked-up row apart (``tf.clip_by_global_norm``), and optimizers update only the rows
looked up where TF's sparse kernels do (``compat.train``).  ``sg.gradients`` itself
stays dense.

Imports the tracing layer and ``compat.slices``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     table = tf.Variable([[1.0], [2.0], [3.0]])
...     (g,) = tf.gradients(tf.reduce_sum(tf.gather(table, [2, 0, 2])), table)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(sess.run(g).indices, sess.run(tf.convert_to_tensor(g)).ravel())
[2 0 2] [1. 0. 2.]
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..tracing import arrays as _arrays
from ..tracing import nn as _nn
from .slices import IndexedSlices
from .tensor import as_tf1


class Lookup(NamedTuple):
    """Rows of ``table`` read at ``ids`` into ``out``; when ``table`` is one part of a
    table split in k, ``part`` = ("mod", p, k) (ids with ``id % k == p`` read its row
    ``id // k``) or ("div", start, stop) (ids in [start, stop) read row ``id - start``)."""
    out: Node
    table: Node
    ids: object
    part: tuple | None = None


def _record(out, table, ids, part=None):
    if isinstance(out, Node) and isinstance(table, Node) and table.is_float:
        out.graph.__dict__.setdefault("_row_lookups", []).append(Lookup(out, table, ids, part))


def at_run_time(params, indices, axis=0, nd=False):
    """``indices``, as a constant tensor when they are numbers outside ``params``' range:
    TF's kernel raises InvalidArgumentError for them when the graph runs (the check of
    ``compat.kernel_checks``), where a static gather would fail now with numpy's
    IndexError."""
    if isinstance(indices, Node) or not isinstance(params, Node) or params.shape is None:
        return indices
    try:
        ids = np.asarray(indices)
    except (TypeError, ValueError):
        return indices
    if ids.dtype.kind not in "iu" or ids.size == 0 or not -params.ndim <= (axis or 0) < \
            params.ndim:   # (an axis out of range: gather's own error says so)
        return indices
    sizes = params.shape[:ids.shape[-1]] if nd and ids.ndim else (params.shape[axis or 0],)
    if nd and ids.ndim and ids.shape[-1] > len(sizes):   # (gather_nd says what is wrong)
        return indices
    if not all(isinstance(d, (int, np.integer)) for d in sizes):
        return indices
    tuples = ids.reshape(-1, len(sizes))
    if ((tuples < 0) | (tuples >= np.asarray(sizes))).any():
        return _t.constant(ids)
    return indices


def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """``tf.gather`` (TF1's argument order: ``name`` before ``axis``)."""
    if isinstance(params, Node):
        indices = at_run_time(params, indices, axis)
    out = _arrays.gather(params, indices, validate_indices=validate_indices, axis=axis,
                         batch_dims=batch_dims, name=name)
    if axis in (None, 0) and not batch_dims:
        _record(out, params, indices)
    return out


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """``tf.nn.embedding_lookup``: rows of ``params`` (a tensor, a list of shards or a
    partitioned variable) at ``ids``."""
    if isinstance(params, Node):
        ids = at_run_time(params, ids)
    # (the rows are recorded before max_norm clips them: the slices' values are the
    # gradient of the looked-up rows, through the clipping)
    out = _nn.embedding_lookup(params, ids, partition_strategy,
                               name if max_norm is None else None, validate_indices)
    shards = _nn.table_shards(params)
    if len(shards) == 1:
        _record(out, shards[0], ids)
    elif partition_strategy == "mod":
        for p, shard in enumerate(shards):
            _record(out, shard, ids, ("mod", p, len(shards)))
    else:
        starts = np.cumsum([0] + [int(s.shape[0]) for s in shards])
        for shard, start, stop in zip(shards, starts, starts[1:]):
            _record(out, shard, ids, ("div", int(start), int(stop)))
    return out if max_norm is None else _nn.clip_rows(out, out.ndim - _t.as_tensor(ids).ndim,
                                                     max_norm, name)


def gradients(core, ys, xs, grad_ys, name, gate_gradients, aggregation_method,
              stop_gradients, unconnected_gradients, colocate):
    """``core``'s gradients (``differentiate.gradients``), with ``IndexedSlices`` for xs
    read only through recorded lookups (module docstring)."""
    args = (name, gate_gradients, aggregation_method)
    xs_list = _as_list(xs)
    stops = _as_list(stop_gradients)
    # (a y of unknown rank defers the whole call until values are fed: dense gradients)
    found = [] if any(isinstance(y, Node) and y.shape is None for y in _as_list(ys)) else \
        _lookups_of(xs_list, stops)
    if not found:
        return core(ys, xs, grad_ys, *args, stop_gradients, unconnected_gradients, colocate)
    outs = list({id(lk.out): lk.out for _, lk in found}.values())
    got = core(ys, xs_list + outs, grad_ys, *args, stops + outs, "none", colocate)
    dense, cotangent = got[:len(xs_list)], {id(o): g for o, g in zip(outs, got[len(xs_list):])}
    result = []
    for i, x in enumerate(xs_list):
        pieces = [_slices(lk, cotangent[id(lk.out)]) for j, lk in found
                  if j == i and cotangent[id(lk.out)] is not None]
        g = dense[i]
        if pieces:
            rows = pieces[0] if len(pieces) == 1 else _concat(pieces)
            g = rows if g is None else g + rows.as_graph_tensor()   # TF: add_n, dense
        elif g is None and unconnected_gradients == "zero":
            g = _t.zeros_like(x)
        result.append(g)
    return result


def _as_list(values):
    if values is None:
        return []
    return list(values) if isinstance(values, (list, tuple)) else [values]


def _lookups_of(xs, stops):
    """(index of x, lookup) for every recorded lookup whose table is an x (through
    identities, none of them stopped), in the order the lookups were made."""
    stopped = {id(s) for s in stops}
    where = {}
    for i, x in enumerate(xs):   # (an x listed twice gets its gradient twice, as in TF)
        if isinstance(x, Node):
            where.setdefault(id(x), []).append(i)
    found = []
    graphs = {id(x.graph): x.graph for x in xs if isinstance(x, Node)}
    for graph in graphs.values():
        for lk in graph.__dict__.get("_row_lookups", ()):
            if id(lk.out) in stopped or lk.out.shape is None:
                continue
            node = lk.table
            while id(node) not in where and id(node) not in stopped and \
                    node.opdef.name == "identity" and node.inputs:
                node = node.inputs[0]
            if id(node) in where and id(node) not in stopped:
                found.extend((i, lk) for i in where[id(node)])
    return found


def _slices(lk, cotangent):
    table = lk.table
    rows = tuple(table.shape[1:])
    values = _t.reshape(cotangent, (-1,) + rows)
    ids = lk.ids if isinstance(lk.ids, Node) else _t.constant(np.asarray(lk.ids, np.int32))
    ids = _t.reshape(ids, (-1,))
    if lk.part is not None:
        kind, a, b = lk.part
        mine = _t.equal(_t.floormod(ids, b), a) if kind == "mod" else \
            _t.logical_and(_t.greater_equal(ids, a), _t.less(ids, b))
        # the positions of this part's ids, so values and ids share one (unknown) length
        at = _arrays.boolean_mask(_arrays.range(_arrays.shape(ids)[0]), mine)
        values, ids = _arrays.gather(values, at), _arrays.gather(ids, at)
        ids = _t.floordiv(ids, b) if kind == "mod" else ids - a
    if all(isinstance(d, int) for d in table.shape):
        shape = as_tf1(_t.constant(np.asarray(table.shape, np.int32)))
    else:
        shape = _arrays.shape(table)
    return IndexedSlices(as_tf1(values), as_tf1(ids), shape)


def _concat(pieces):
    ids = [s.indices for s in pieces]
    if len({i.dtype for i in ids}) > 1:   # TF: int32 and int64 indices join as int64
        ids = [_t.cast(i, np.int64) for i in ids]
    return IndexedSlices(as_tf1(_t.concat([s.values for s in pieces], 0)),
                         as_tf1(_t.concat(ids, 0)), pieces[0].dense_shape)


__all__ = ["gather", "embedding_lookup", "gradients"]
