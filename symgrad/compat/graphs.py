"""TF1's ``tf.Graph`` introspection: ``get_operation_by_name``, ``get_operations``,
``finalize`` and ``finalized``, ``control_dependencies``, the collection methods
(``get_collection``, ``add_to_collection``, ``get_collection_ref``, ``clear_collection``,
``get_all_collection_keys``), ``get_name_scope``, ``device`` and ``colocate_with``
(blocks that place nothing, as ``tf.device``) and ``seed`` (the graph-level seed
``tf.set_random_seed`` gave, else None): methods of every graph once ``compat.v1`` is
imported, as ``gradient_override_map`` is, ``compat.custom``.

- ``get_operation_by_name("layer/W")``: the operation of that name: an assign, group
  or initializer (``compat.state.Operation``), else the op of the tensor of that name
  (``t.op``, ``compat.tensor.TensorOp``: name, type, inputs, outputs).  TF's errors: a
  TypeError for a name that is not a string, a ValueError for a tensor name
  (``"y:0"``), a KeyError for a name no operation has.
- ``get_operations()``: the ops of every tensor, in the order they were made, then
  the operations without a tensor (assigns, groups, initializers) in the order they
  were made (TF interleaves the two; symgrad keeps them apart).
- ``finalize()``: afterwards, making a tensor or an operation in the graph raises
  TF's ``RuntimeError("Graph is finalized and cannot be modified.")``.  What a session
  makes while it runs (the ops of a shape-less placeholder at the shape fed,
  ``ops.deferred``) is not the user's and is still allowed.
- ``as_graph_def`` is not there: symgrad graphs are not TF GraphDef protocol buffers
  (the attribute error says what to use instead).

Sits in ``compat``; imports the tracing layer, ``ops.deferred`` and ``compat.session``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default() as g:
...     w = tf.Variable([1.0, 2.0], name="w")
...     y = tf.reduce_sum(w * 2.0, name="y")
...     g.finalize()
...     print(g.get_operation_by_name("y").type, g.finalized)
Sum True
"""
from __future__ import annotations

import contextlib
import sys
from typing import Any, NoReturn

from .. import tracing as _t
from ..ops import deferred as _deferred
from . import session as _session
from .state import state_of
from .tensor import TensorOp

_FINALIZED = "Graph is finalized and cannot be modified."
# code run by sessions that makes nodes of the user's graph (shapes known when fed)
_RUN_TIME = {_session.Session.run.__code__, _deferred.resolve.__code__}


def get_operation_by_name(self, name: str) -> Any:
    """``graph.get_operation_by_name(name)``: the operation named ``name`` (module
    docstring)."""
    if not isinstance(name, str):
        raise TypeError(f"Operation names are strings (or similar), not "
                        f"{type(name).__name__}.")
    if ":" in name:
        raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a Operation.")
    operation = state_of(self).operations.get(name)
    if operation is not None:
        return operation
    try:
        return TensorOp(self.get_tensor_by_name(name))
    except KeyError:
        raise KeyError(f"The name {name!r} refers to an Operation not in the graph.") \
            from None


def get_operations(self) -> list:
    """``graph.get_operations()``: the ops of the tensors, then the other operations."""
    return [TensorOp(n) for n in self.nodes] + list(state_of(self).operations.values())


def _made_by_a_session():
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code in _RUN_TIME:
            return True
        frame = frame.f_back
    return False


def _refusing(base):
    """The class of a finalized graph of class ``base``: ``add_node`` refuses."""
    def add_node(self, *args, **kwargs):
        if not _made_by_a_session():
            raise RuntimeError(_FINALIZED)
        return base.add_node(self, *args, **kwargs)
    return type(f"Finalized{base.__name__}", (base,), {
        "add_node": add_node, "finalized": True, "__module__": base.__module__})


class _OperationTable(dict):
    """A finalized graph's operations: a new one is TF's RuntimeError."""

    def __setitem__(self, key, value):
        if not _made_by_a_session():
            raise RuntimeError(_FINALIZED)
        super().__setitem__(key, value)


_CLASSES = {}


def finalize(self) -> None:
    """``graph.finalize()``: no tensor or operation may be added afterwards (TF's
    RuntimeError); a finalized graph still runs."""
    if self.finalized:
        return
    base = type(self)
    if base not in _CLASSES:
        _CLASSES[base] = _refusing(base)
    self.__class__ = _CLASSES[base]
    state = state_of(self)
    state.operations = _OperationTable(state.operations)


def _no_graph_def(self) -> NoReturn:
    raise AttributeError(
        "Graph.as_graph_def: symgrad graphs are not TensorFlow GraphDef protocol buffers, "
        "so they cannot be written with tf.train.write_graph or imported into TF; list "
        "the operations with graph.get_operations() (name, type, inputs) or save the "
        "variables with tf.train.Saver")


def control_dependencies(self, control_inputs: Any) -> Any:
    """``with g.control_dependencies(ops):`` as ``tf.control_dependencies`` in ``g``."""
    return state_of(self).control_dependencies(control_inputs)


def get_collection(self, key: str, scope: str | None = None) -> list:
    """``g.get_collection(key, scope=None)``: as ``tf.get_collection`` in ``g``."""
    with self.as_default():
        from .variables import get_collection as _get
        return _get(key, scope)


def _collection_methods():
    """``g.add_to_collection``, ``add_to_collections``, ``get_collection_ref``,
    ``clear_collection``, ``get_all_collection_keys`` on the graph's state."""
    def add(self, name: str, value: Any) -> None:
        state_of(self).add_to_collection(name, value)

    def add_many(self, names: Any, value: Any) -> None:
        for name in [names] if isinstance(names, str) else names:
            state_of(self).add_to_collection(name, value)

    def ref(self, key: str) -> list:
        return state_of(self).collections.setdefault(key, [])

    def clear(self, key: str) -> None:
        state_of(self).collections.pop(key, None)

    def keys(self) -> list:
        return [k for k, v in state_of(self).collections.items() if v]
    return dict(add_to_collection=add, add_to_collections=add_many, get_collection_ref=ref,
                clear_collection=clear, get_all_collection_keys=keys)


def get_name_scope(self) -> str:
    """``g.get_name_scope()``: the open name scopes (``"outer/inner"``)."""
    return self.scoped("").rstrip("/")


def device(self, device_name_or_function: Any) -> Any:
    """``graph.device("/cpu:0")``: placement only (neural-style's ``with g.as_default(),
    g.device('/cpu:0'), tf.Session() as sess``); the values are the same."""
    return contextlib.nullcontext()


def colocate_with(self, op: Any, ignore_existing: bool = False) -> Any:
    """``graph.colocate_with(op)``: placement only, a block that changes nothing."""
    return contextlib.nullcontext()


def seed(self) -> int | None:
    """``graph.seed``: the graph-level seed ``tf.set_random_seed`` set, else None."""
    return self.__dict__.get("tf_random_seed")


_t.Graph.device = device
_t.Graph.colocate_with = colocate_with
_t.Graph.seed = property(seed)
_t.Graph.control_dependencies = control_dependencies
_t.Graph.get_collection = get_collection
for _name, _method in _collection_methods().items():
    setattr(_t.Graph, _name, _method)
_t.Graph.get_name_scope = get_name_scope
_t.Graph.get_operation_by_name = get_operation_by_name   # (tf.Graph methods in TF1)
_t.Graph.get_operations = get_operations
_t.Graph.finalize = finalize
_t.Graph.finalized = False
_t.Graph.as_graph_def = property(_no_graph_def)
