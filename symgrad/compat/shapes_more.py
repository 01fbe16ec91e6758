"""TF1's shape helpers and graph-level odds and ends that programs call.

- ``Dimension(value)`` (``value`` None for an unknown size), ``dimension_value``,
  ``dimension_at_index``; ``broadcast_static_shape`` (TensorShapes) and
  ``broadcast_dynamic_shape`` (shape tensors).
- ``ensure_shape(x, shape)``: x, after checking its shape: now where sizes are known,
  when run (InvalidArgumentError) where they are not.
- ``get_static_value(t)``: t's value if it is computable when the graph is built (from
  constants only), else None.
- ``get_local_variable`` (a ``get_variable`` in LOCAL_VARIABLES, not trainable),
  ``initialize_local_variables``; ``tables_initializer``/``initialize_all_tables``: a
  no-op group, since symgrad has no lookup tables to fill.
- ``NoGradient``/``NotDifferentiable``/``no_gradient(op_type)``: accepted and ignored —
  symgrad's ops carry their own derivative rules, and a custom op without one raises a
  LookupError naming it when differentiated.
- ``convert_to_tensor_or_indexed_slices``: ``convert_to_tensor`` (symgrad's gradients
  are dense).

Sits in ``compat``; imports ``tracing``, ``graph`` and the compat modules below ``v1``.

>>> import symgrad.compat.v1 as tf
>>> print(tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])))
(2, 3)
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..evaluate import evaluate
from ..graph import Node, ancestors
from .scopes import get_variable
from .tensor import Dimension as _KnownDimension
from .tensor import TensorShape
from .variables import GraphKeys, control_dependencies, group, local_variables_initializer

__all__ = ["Dimension", "dimension_value", "dimension_at_index", "broadcast_static_shape",
           "broadcast_dynamic_shape", "ensure_shape", "get_static_value", "get_local_variable",
           "initialize_local_variables", "tables_initializer", "initialize_all_tables",
           "NoGradient", "NotDifferentiable", "no_gradient",
           "convert_to_tensor_or_indexed_slices"]


class UnknownDimension:
    """TF1's ``Dimension(None)``: a size not known; ``value`` is None."""
    value = None

    def __eq__(self, other):
        return None if other is not None else True

    def __hash__(self):
        return hash(None)

    def __repr__(self):
        return "Dimension(None)"

    def _unknown(self, other):
        """Arithmetic with an unknown size is unknown (TF1's Dimension)."""
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _unknown
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _unknown


def Dimension(value):  # noqa: N802  (TF's class name)
    """``tf.Dimension(value)``: an int with ``.value``, or the unknown size for None."""
    if value is None or getattr(value, "value", 0) is None:
        return UnknownDimension()
    return _KnownDimension(int(value))


def dimension_value(dimension):
    """The size as an int, None when unknown (``Dimension``, int or None)."""
    if dimension is None:
        return None
    value = getattr(dimension, "value", dimension)
    return None if value is None else int(value)


def dimension_at_index(shape, index):
    """``Dimension`` of ``shape[index]`` (the unknown size for an unknown rank)."""
    if shape is None:
        return UnknownDimension()
    return Dimension(dimension_value(TensorShape(shape)[index]))


def _broadcast(a, b, what):
    a, b = [dimension_value(d) for d in a], [dimension_value(d) for d in b]
    given = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y and 1 not in (x, y):
            raise ValueError(f"{what}: Incompatible shapes for broadcasting. Received: "
                             f"{given[0]} and {given[1]} (TF's message)")
        out.append(y if x == 1 else x if y == 1 else (x if x is not None else y))
    return out


def broadcast_static_shape(shape_x, shape_y):
    """The shape ``shape_x`` and ``shape_y`` broadcast to (numpy's rules)."""
    return TensorShape(_broadcast(TensorShape(shape_x), TensorShape(shape_y),
                                  "broadcast_static_shape"))


def broadcast_dynamic_shape(shape_x, shape_y):
    """The broadcast shape of two shape tensors (1-D integer), as a tensor."""
    x, y = _t.convert_to_tensor(shape_x), _t.convert_to_tensor(shape_y)
    nx, ny = int(x.shape[0]), int(y.shape[0])
    n = max(nx, ny)
    ones = np.ones([], x.dtype)
    if nx < n:
        x = _t.concat([_t.fill([n - nx], ones), x], 0)
    if ny < n:
        y = _t.concat([_t.fill([n - ny], _t.cast(ones, y.dtype)), y], 0)
    y = _t.cast(y, x.dtype)
    return _t.where(_t.equal(x, 1), y, x)


def ensure_shape(x, shape, name=None):
    """``x`` once its shape is known to match ``shape`` (None sizes match any).

    Raises:
        ValueError: the shapes disagree where both are known when the graph is built.
    """
    x = _t.convert_to_tensor(x)
    want = None if shape is None else [dimension_value(d) for d in TensorShape(shape)]
    if want is None:
        return _t.identity(x, name=name)
    have = [dimension_value(d) for d in TensorShape(x.shape)]
    if len(have) != len(want) or any(h is not None and w is not None and h != w
                                     for h, w in zip(have, want)):
        raise ValueError(f"Shape {tuple(have)} of tensor {x.name!r} is incompatible with the "
                         f"shape {tuple(want)} given to tf.ensure_shape")
    unknown = [i for i, (h, w) in enumerate(zip(have, want)) if h is None and w is not None]
    if not unknown:
        return _t.identity(x, name=name)
    from .debugging import assert_equal
    sizes = _t.gather(_t.shape(x), np.array(unknown, np.int32))
    check = assert_equal(sizes, np.array([want[i] for i in unknown], np.int32),
                         message=f"tf.ensure_shape: shape of {x.name} does not match {want}")
    with control_dependencies([check]):
        return _t.identity(x, name=name)


def get_static_value(tensor, partial=False):
    """The value of ``tensor`` when it depends on constants only, else None."""
    if not isinstance(tensor, Node):
        return np.asarray(tensor)
    leaves = [n for n in ancestors([tensor]) if not n.inputs]
    if any(n.opdef.name != "const" for n in leaves):
        return None
    try:
        return np.asarray(evaluate(tensor))
    except Exception:   # an op that needs a session (a draw, a read): not static
        return None


def get_local_variable(name, shape=None, dtype=None, initializer=None, regularizer=None,
                       trainable=False, collections=None, **kwargs):
    """``get_variable`` in the LOCAL_VARIABLES collection (not trainable), as metrics'
    counters are."""
    collections = list(collections or []) + [GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        **kwargs)


initialize_local_variables = local_variables_initializer


def tables_initializer(name="init_all_tables"):
    """A no-op group: symgrad has no lookup tables to initialise."""
    return group(name=name)


def initialize_all_tables(name="init_all_tables"):
    """TF1's deprecated name of :func:`tables_initializer`."""
    return tables_initializer(name)


def no_gradient(op_type):
    """Accepted and ignored: symgrad's ops carry their own derivative rules."""
    if not isinstance(op_type, str):
        raise TypeError(f"no_gradient(op_type): op_type must be a string, got {op_type!r}")


NotDifferentiable = NoGradient = no_gradient


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    """``convert_to_tensor``: symgrad's values are dense tensors."""
    return _t.convert_to_tensor(value, dtype=dtype, name=name)
