"""``tf.scatter_update`` and friends: operations that change some rows of a variable
when a session runs them (TF1's ``scatter_*`` and ``scatter_nd_*`` state ops), and the
variable methods that take an ``IndexedSlices`` (``v.scatter_sub(rows)``); and
``tf.count_up_to``.

Each is an operation whose value is the variable after the change, like ``tf.assign``.
The updates are read when the operation runs; rows named twice are applied one after
the other (``scatter_add`` adds both; ``scatter_update`` keeps the last, where TF leaves
the order unspecified).

Imports the compat variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     v = tf.Variable([1.0, 2.0, 3.0])
...     step = tf.scatter_add(v, [0, 0, 2], [10.0, 10.0, 5.0])
...     with tf.Session() as sess:
...         sess.run(v.initializer)
...         print(sess.run(step))
[21.  2.  8.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from .state import Operation
from .errors import InvalidArgumentError
from .kernel_checks import out_of_range, outside
from .variables import Variable, require_initialized

_ROW_UPDATES = {
    "update": lambda out, at, u: out.__setitem__(at, u),
    "add": np.add.at, "sub": np.subtract.at, "mul": np.multiply.at,
    "div": np.divide.at, "max": np.maximum.at, "min": np.minimum.at,
}


def _as_node(value, dtype, graph):
    if hasattr(value, "as_graph_tensor") and not isinstance(value, Node):
        value = value.as_graph_tensor()
    if isinstance(value, Node):
        return value
    arr = np.asarray(value)
    if dtype is None and arr.dtype == np.int64:   # (Python ints: int32, as TF makes them)
        arr = arr.astype(np.int32)
    with graph.as_default():
        return _t.constant(arr if dtype is None else arr.astype(dtype))


def _scatter(kind, nd, ref, indices, updates, name):
    what = f"tf.scatter_{'nd_' if nd else ''}{kind}"
    if not isinstance(ref, Variable):
        raise TypeError(f"{what}: ref must be a tf.Variable, got {type(ref).__name__}")
    ids = _as_node(indices, None, ref.graph)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{what}: indices must be integers, got {ids.dtype.name}")
    rows = _as_node(updates, ref.dtype, ref.graph)
    if rows.dtype != ref.dtype:
        raise TypeError(f"{what}: updates have dtype {rows.dtype.name} but the variable "
                        f"{ref.name!r} is {ref.dtype.name}; cast them")
    combine = _ROW_UPDATES[kind]
    label = name or "Scatter" + ("Nd" if nd else "") + kind.capitalize()

    def effect(values, session):
        require_initialized(ref, session, what)
        at, upd = np.asarray(values[0]), np.asarray(values[1], dtype=ref.dtype)
        # TF's kernel refuses an index outside the variable (numpy would wrap -1)
        refused = outside(at, ref.shape) if nd else out_of_range(at, ref.shape[0])
        if refused is not None:
            raise InvalidArgumentError(None, None, f"{refused}\n\t [[{{{{node {label}}}}}]]")
        where = tuple(np.moveaxis(at, -1, 0)) if nd else at
        want = np.shape(np.empty(ref.shape)[where])
        if upd.shape != want:
            upd = np.broadcast_to(upd, want) if upd.ndim == 0 else upd
        if upd.shape != want:
            raise ValueError(f"{what}: updates of shape {upd.shape} do not fit indices "
                             f"of shape {at.shape} into {ref.name!r} {ref.shape}: they must "
                             f"have shape {want}")
        out = np.array(ref.value, copy=True)
        combine(out, where, upd)
        ref.value = out
        session.mark_initialized(ref)
    kind_name = "Scatter" + ("Nd" if nd else "") + kind.capitalize()
    return Operation(name or kind_name, inputs=[ids, rows], effect=effect, value=ref,
                     graph=ref.graph, type=kind_name)


def _op(kind, nd=False):
    def scatter(ref, indices, updates, use_locking=None, name=None):
        return _scatter(kind, nd, ref, indices, updates, name)
    scatter.__name__ = f"scatter_{'nd_' if nd else ''}{kind}"
    scatter.__doc__ = f"``tf.{scatter.__name__}(ref, indices, updates)`` (module docstring)."
    return scatter


scatter_update, scatter_add, scatter_sub = _op("update"), _op("add"), _op("sub")
scatter_mul, scatter_div = _op("mul"), _op("div")
scatter_max, scatter_min = _op("max"), _op("min")
scatter_nd_update, scatter_nd_add = _op("update", True), _op("add", True)
scatter_nd_sub = _op("sub", True)


def _method(kind):
    def method(self, sparse_delta, use_locking=False, name=None):
        return _scatter(kind, False, self, sparse_delta.indices, sparse_delta.values, name)
    method.__name__ = f"scatter_{kind}"
    method.__doc__ = f"``v.scatter_{kind}(IndexedSlices)``: ``tf.scatter_{kind}`` of its rows."
    return method


for _kind in ("update", "add", "sub", "mul", "div", "max", "min"):
    setattr(Variable, f"scatter_{_kind}", _method(_kind))


def count_up_to(ref, limit, name=None):
    """``tf.count_up_to(ref, limit)``: running it gives ``ref``'s value, then adds 1; at
    ``limit`` it raises ``OutOfRangeError`` instead (TF1's epoch counters)."""
    from .errors import OutOfRangeError
    if not isinstance(ref, Variable) or ref.dtype.kind not in "iu":
        raise TypeError(f"count_up_to: ref must be an integer Variable, got {ref!r}")

    def effect(values, session):
        require_initialized(ref, session, "CountUpTo")
        if values[0] >= limit:
            raise OutOfRangeError(None, None, f"Reached limit of {limit}")
        ref.value = np.array(values[0] + 1, dtype=ref.dtype)
        session.mark_initialized(ref)
    return Operation(name or "CountUpTo", inputs=[ref], effect=effect, graph=ref.graph,
                     result=lambda values: ref.dtype.type(values[0]),
                     type="CountUpTo")

__all__ = ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div",
           "scatter_max", "scatter_min", "scatter_nd_update", "scatter_nd_add",
           "scatter_nd_sub", "count_up_to"]
