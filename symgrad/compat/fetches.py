"""What ``Session.run`` fetches and feeds, and the structures it returns.

- Fetches: tensors, operations, name strings (``fetch_by_name``), ``IndexedSlices``,
  composites (a ``tf.SparseTensor``) and nested lists/tuples/dicts of them
  (:func:`_resolve`, :func:`_collect`); the values come back in the same structure
  (:func:`_rebuild`; an operation gives ``None``).  Fetching ``None`` (an unconnected
  gradient) raises TF's TypeError with why that gradient is ``None``
  (:class:`GradientList`, :func:`remember_none`).
- Lists, tuples and dicts that ``run`` returns print their numpy scalars as TF1-era
  numpy did (``[3.0, 1.0]``; numpy 2 would show ``[np.float32(3.0), ...]``).
- Feeds: a composite key fed as its parts, a tuple key (an RNN's state) part by part.

Sits in ``compat`` under ``session``; imports the graph, ``compat.names``,
``compat.slices``, ``compat.state`` and ``compat.tensor``.

>>> _tf1_structure([np.float32(3.0), (np.int64(1),)])
[3.0, (1,)]
"""
from __future__ import annotations

import weakref

import numpy as np

from ..graph import Node
from .names import fetch_by_name
from .slices import IndexedSlices, IndexedSlicesValue
from .state import Operation, OperationView, origin_of
from .tensor import TensorOp


class GradientList(list):
    """What ``tf.gradients`` returns: a plain list, which also knows why entries are None."""

    def __init__(self, values, why):
        super().__init__(values)
        self.why = why          # why(i) -> prose for entry i, computed on demand


# graph -> (GradientList, index) of the latest None result, for the error message only
_RECENT_NONE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def remember_none(graph, grads):
    """Record the latest gradient call's None entries, for bare ``sess.run(g[i])``."""
    for i, g in enumerate(grads):
        if g is None:
            _RECENT_NONE[graph] = (grads, i)
            return


class _Printed:
    """Mixin: repr numpy scalars as TF1-era numpy did."""

    def __repr__(self):
        return _tf1_repr(self)


class FetchList(_Printed, list):
    pass


class FetchTuple(_Printed, tuple):
    pass


class FetchDict(_Printed, dict):
    pass


def _tf1_repr(value):
    if isinstance(value, np.generic):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_tf1_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_tf1_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_tf1_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _tf1_structure(value):
    if isinstance(value, dict):
        return FetchDict({k: _tf1_structure(v) for k, v in value.items()})
    if isinstance(value, list):
        return FetchList(_tf1_structure(v) for v in value)
    if isinstance(value, tuple) and type(value) is tuple:
        return FetchTuple(_tf1_structure(v) for v in value)
    return value


def none_fetch_error(context):
    """TF's TypeError for a None fetch, plus why the gradient is None when known."""
    message = "Fetch argument None has invalid type <class 'NoneType'>"
    if context is not None:
        grads, i = context
        message += ("\n\nWhy it is None: tf.gradients returned None for xs[%d].  %s" %
                    (i, grads.why(i)))
    else:
        message += ("\n\nA None fetch is usually an unconnected gradient: tf.gradients gives "
                    "None for an x that no y depends on (or every path is stopped); pass "
                    "unconnected_gradients='zero' for zeros, or see sg.explain(ys, xs).")
    return TypeError(message)


def _invalid_fetch(fetch):
    return TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a "
                     "string or Tensor. (Can not convert a "
                     f"{type(fetch).__name__} into a Tensor or Operation.)")


def _export(value):
    value = np.array(value)
    return value[()] if value.ndim == 0 else value


def _resolve(fetch, graph):
    """Fetches with name strings replaced by the tensors or operations they name."""
    if isinstance(fetch, str):
        found = fetch_by_name(graph, fetch)
        # a tensor's operation name ("y", not "y:0") runs it and gives None, as in TF
        return TensorOp(found) if isinstance(found, Node) and ":" not in fetch else found
    if isinstance(fetch, IndexedSlices) and fetch.dense_shape is not None:
        # fetched as TF's IndexedSlicesValue: its three parts, each an array
        return IndexedSlicesValue(fetch.values, fetch.indices, fetch.dense_shape_tensor())
    if isinstance(fetch, dict):
        return {k: _resolve(v, graph) for k, v in fetch.items()}
    if isinstance(fetch, GradientList):   # (kept: it knows why an entry is None)
        if any(isinstance(v, IndexedSlices) for v in fetch):
            return GradientList([_resolve(v, graph) for v in fetch], fetch.why)
        return fetch
    if isinstance(fetch, (list, tuple)):
        return _like(fetch, [_resolve(v, graph) for v in fetch])
    return fetch


def _like(fetch, items):
    """``items`` in a list or tuple as ``fetch`` is; a namedtuple (an LSTMStateTuple)
    keeps its class, as TF's results do."""
    if isinstance(fetch, list):
        return items
    return type(fetch)(*items) if hasattr(fetch, "_fields") else tuple(items)


def _check_graph(tensors, graph):
    """TF's ValueError for a fetched tensor of another graph (a session runs its own)."""
    for t in tensors:
        if isinstance(t, Node) and t.graph is not graph:
            raise ValueError(f"Fetch argument {t.name!r} cannot be interpreted as a Tensor. "
                             f"(Tensor {t.name!r} is not an element of this graph.)")


def _expand_feeds(feed_dict):
    """A composite key (a ``tf.SparseTensor``: ``_feed_parts``) fed as its tensors; a
    tuple key (an RNN's ``LSTMStateTuple`` state, nested for a ``MultiRNNCell``) fed
    part by part from a value of the same structure, as TF's ``nest`` pairs them."""
    if not any(hasattr(k, "_feed_parts") or isinstance(k, tuple) for k in feed_dict):
        return feed_dict
    out = {}
    for k, v in feed_dict.items():
        if isinstance(k, tuple):
            out.update(_expand_feeds(dict(_tuple_feed_pairs(k, v))))
        else:
            out.update(k._feed_parts(v) if hasattr(k, "_feed_parts") else {k: v})
    return out


def _tuple_feed_pairs(key, value):
    """(part, value) pairs of the tuple ``key`` fed ``value`` (a sequence as long)."""
    if not isinstance(value, (tuple, list)) or len(value) != len(key):
        raise ValueError(
            f"feed_dict: the key {type(key).__name__} of {len(key)} tensors must be fed a "
            f"tuple or list of {len(key)} values of the same structure (what sess.run of "
            f"that key gives), got {type(value).__name__}"
            + (f" of length {len(value)}" if isinstance(value, (tuple, list)) else ""))
    return zip(key, value)


def _collect(fetch, ops, tensors, parent, graph):
    if fetch is None:
        context = None
        if isinstance(parent, GradientList):
            context = (parent, next(i for i, g in enumerate(parent) if g is None))
        raise none_fetch_error(context or _RECENT_NONE.get(graph))
    if isinstance(fetch, Operation):
        ops.append(origin_of(fetch))   # (an assign's .op runs the assign, gives None)
    elif isinstance(fetch, TensorOp):   # sess.run(t.op): runs t, gives None (TF's)
        tensors.append(fetch.outputs[0])
    elif isinstance(fetch, Node):
        tensors.append(fetch)
    elif hasattr(fetch, "_fetch_parts"):   # a composite (tf.SparseTensor): its tensors
        tensors.extend(fetch._fetch_parts())
    elif isinstance(fetch, dict):
        for v in fetch.values():
            _collect(v, ops, tensors, fetch, graph)
    elif isinstance(fetch, (list, tuple)):
        for v in fetch:
            _collect(v, ops, tensors, fetch, graph)
    else:
        raise _invalid_fetch(fetch)


def _rebuild(fetch, found):
    if isinstance(fetch, OperationView):
        return None
    if isinstance(fetch, Operation):
        return found.get(id(fetch))
    if isinstance(fetch, TensorOp):
        return None
    if isinstance(fetch, Node):
        return found[id(fetch)]
    if hasattr(fetch, "_fetch_parts"):
        return fetch._fetched([found[id(t)] for t in fetch._fetch_parts()])
    if isinstance(fetch, dict):
        return {k: _rebuild(v, found) for k, v in fetch.items()}
    return _like(fetch, [_rebuild(v, found) for v in fetch])
