"""TF1 tensors: named ``"op_name:0"``, shapes with ``as_list()``, no silent dtype mixing.

Leaves made by ``compat.v1`` (``tf.constant``, ``tf.placeholder``, ``tf.Variable``,
``tf.get_variable``) are :class:`TF1Tensor` objects, and so is every tensor
computed from one (``Node.derived_class``), gradients included.  Three things
change with respect to plain symgrad tensors, all as in TF1:

- ``t.name`` is ``"op_name:0"`` (``t.op_name`` is the name without ``:0``; closed
  forms and explanations of symbols use it);
- an elementwise op or a matmul between tensors of different numeric dtypes
  (float32 with float64, int32 with float32) raises TF's ``TypeError``; Python
  numbers still adapt to the tensor's dtype (``x * 2`` keeps float32);
- ``/`` (and ``tf.truediv``) of integers divides in TF's float type (:func:`truediv`).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, shape=[2, 3], name="x")
...     y = tf.reduce_sum(x * 2, name="y")
...     print(x.name, y.name, x.get_shape().as_list(), x.shape.as_list())
x:0 y:0 [2, 3] [2, 3]
"""
from __future__ import annotations

import functools
import inspect
import types

import numpy as np

from .. import tracing as _t
from ..graph import Dim, Node, same_up_to_unknown, size_symbol_name
from .state import DEFAULT_SESSIONS, state_of
from .tensor_shape import Dimension, TensorShape, UnknownShape, converted_shape_check  # noqa: F401,E501


_TF_NAMES = {"float": np.float32, "double": np.float64, "half": np.float16}
# TF's DataType enum numbers (``tf.constant(a, dtype=1)`` is float32, as TF's PDE example
# writes it); the others (string, complex, quantized) have no symgrad dtype
_TF_ENUM = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8,
            9: np.int64, 10: np.bool_, 17: np.uint16, 19: np.float16, 22: np.uint32,
            23: np.uint64}


def tf_dtype_arg(dtype):
    """A dtype argument with TF's string names (``"float"`` is float32 in TF) and its
    DataType enum numbers (1 is float32)."""
    if isinstance(dtype, str):
        return _TF_NAMES.get(dtype, dtype)
    if _is_enum_number(dtype):
        return _TF_ENUM.get(int(dtype), dtype)
    return dtype


def _is_enum_number(dtype):
    return isinstance(dtype, (int, np.integer)) and not isinstance(dtype, (bool, np.bool_))


def as_dtype(type_value):
    """``tf.as_dtype``: the numpy dtype for ``tf.float32``, ``np.float32``, ``"float32"``
    (or TF's ``"float"``/``"double"``); symgrad's dtypes are numpy's."""
    return _t.as_dtype(tf_dtype_arg(type_value), "tf.as_dtype(type_value)")


# tf.float32 and the rest, also as tf.dtypes.float32: numpy dtypes, not numpy's scalar
# types, since a tensor's dtype is a numpy dtype and the type hashes apart from it
# (baselines' ``x.dtype in {tf.uint8, tf.int32, tf.int64}``)
dtypes = types.SimpleNamespace(as_dtype=as_dtype, half=np.dtype("float16"),
                               double=np.dtype("float64"), **{name: np.dtype(name) for name in (
    "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
    "uint32", "uint64", "bool")})


# TF's type names that are not the CamelCase of symgrad's op names (identity: Identity)
_TF_TYPES = {"div": "RealDiv", "matmul": "MatMul", "reduce_sum": "Sum", "reduce_mean": "Mean",
             "reduce_max": "Max", "reduce_min": "Min", "reduce_prod": "Prod", "add": "AddV2",
             "variable": "VariableV2"}


def type_of(name):
    """TF's op type name of symgrad's op ``name`` (``Identity`` for identity)."""
    return _TF_TYPES.get(name) or "".join(p.capitalize() for p in name.split("_"))


def tf_type(node):
    """TF's op type name of ``node`` (``Identity`` for identity, ``RealDiv`` for div)."""
    return type_of(node.opdef.name)


class TensorOp:
    """TF1's ``t.op``: the operation that computes tensor ``t`` (here, its one output).

    ``name`` is the name without ``:0`` (``v.op.name`` is ``"w1"`` for a variable named
    w1, as summaries and ``Saver({v.op.name: v})`` use it), ``type`` TF's type name,
    ``inputs`` and ``outputs`` lists of tensors; ``run()`` runs it and gives None."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor):
        self._tensor = tensor

    name = property(lambda self: getattr(self._tensor, "op_name", self._tensor.name))
    type = property(lambda self: tf_type(self._tensor))
    inputs = property(lambda self: [as_tf1(x) for x in self._tensor.inputs])
    outputs = property(lambda self: [self._tensor])
    graph = property(lambda self: self._tensor.graph)
    device = ""
    control_inputs = ()

    def values(self):
        return (self._tensor,)

    def get_attr(self, name):
        return self._tensor.attrs[name]

    def run(self, feed_dict=None, session=None):
        """TF1's ``op.run()``: run this operation in ``session`` (default: the default one)."""
        self._tensor.eval(feed_dict, session)

    def __eq__(self, other):
        return isinstance(other, TensorOp) and other._tensor is self._tensor

    def __hash__(self):
        return hash(id(self._tensor))

    def __repr__(self):
        return f"<tf.Operation {self.name!r} type={self.type}>"


def narrow_any_shape(node, dims):
    """Give a shapeless TF1 placeholder the shape ``dims`` (``None``: a size known when
    fed, a size symbol of its own), as ``set_shape`` does before the placeholder is used."""
    graph = node.graph
    if getattr(node.opdef, "runs_python", False):   # a tf.py_func result (ops.python)
        from ..ops.python import narrow
        return narrow(node, dims)
    if not node.attrs.get("any_shape") or any(i is node for n in graph.nodes for i in n.inputs):
        raise ValueError(
            f"set_shape({TensorShape(dims)}): {node.name!r} has an unknown shape and is "
            f"already used (or is not a placeholder); symgrad fixes a shape only on a "
            f"placeholder not yet used: call set_shape right after tf.placeholder, or give "
            f"the shape there (tf.placeholder(dtype, {dims}))")
    unknown = [a for a, d in enumerate(dims) if d is None]
    node.shape = tuple(
        Dim.fresh(graph._size_name(size_symbol_name(node.name, a, len(unknown))))
        if d is None else d for a, d in enumerate(dims))
    node.attrs = dict({k: v for k, v in node.attrs.items() if k != "any_shape"},
                      shape=node.shape)


class TF1Tensor(_t.Tensor):
    """A tensor of a TF1 program (see the module docstring)."""

    def __truediv__(self, other):
        return truediv(self, other)

    def __rtruediv__(self, other):
        return truediv(other, self)

    @property
    def name(self):
        return f"{self._op_name}:0"

    @name.setter
    def name(self, value):
        self._op_name = value

    @property
    def op_name(self):
        return self._op_name

    @property
    def op(self):
        """TF1's operation of this tensor (:class:`TensorOp`); ``opdef`` is symgrad's op."""
        return TensorOp(self)

    device = ""        # (placement is not modelled: TF's empty string, no device set)
    value_index = 0    # (each operation here has one output, this tensor)

    def consumers(self):
        """TF1's ``t.consumers()``: the operations that take this tensor as an input, in
        the order they were made (the tensors' ops, then the other operations)."""
        ops = [TensorOp(n) for n in self.graph.nodes if any(x is self for x in n.inputs)]
        others = state_of(self.graph).operations.values()
        return ops + [op for op in others if any(x is self for x in op.inputs)]

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, value):  # (None: unknown rank, a placeholder without shape)
        self._shape = None if value is None else TensorShape(value)

    def get_shape(self):
        return TensorShape(self.shape)

    def set_shape(self, shape):
        """TF1's ``t.set_shape(shape)``: a placeholder made without a shape takes it
        (before anything is built on it; ``None`` sizes are known when fed); on a tensor
        of known rank it checks that the shapes agree, as TF does.

        Raises:
            ValueError: the shapes are incompatible (TF's message), or a shapeless
                placeholder is already used.
        """
        # (an unknown size may come as None or as a Dim, whose .value is None: pix2pix
        # passes list(image.get_shape()) back with the last size replaced)
        dims = None if shape is None else [
            None if getattr(d, "value", d) is None else int(getattr(d, "value", d)) for d in (
                shape.as_list() if isinstance(shape, TensorShape) else list(shape))]
        if dims is None:
            return
        if self.shape is None:
            narrow_any_shape(self, dims)
        elif len(dims) != len(self.shape) or any(
                d is not None and isinstance(k, int) and d != k for d, k in zip(dims, self.shape)):
            raise ValueError(f"Shapes {TensorShape(self.shape)} and "
                             f"{TensorShape(dims)} are incompatible")

    def eval(self, feed_dict=None, session=None):
        """TF1's ``t.eval()``: run in ``session`` or the default one (plain evaluation
        outside every session)."""
        if session is None:
            found = [s for s in DEFAULT_SESSIONS if s.graph is self.graph]
            session = found[-1] if found else None
        return session.run(self, feed_dict) if session is not None else \
            super().eval(feed_dict)

    @staticmethod
    def check_inputs(op, nodes):
        """TF's TypeError when an arithmetic op mixes numeric dtypes of two tensors."""
        if op.kind not in ("elementwise", "contract"):
            return
        typed = [n for n in nodes if n.dtype.kind in "iuf" and not n.attrs.get("literal")]
        for n in typed[1:]:
            if n.dtype != typed[0].dtype:
                raise TypeError(
                    f"Input {n.name!r} of {op.name!r} Op has type {n.dtype.name} that does "
                    f"not match type {typed[0].dtype.name} of argument {typed[0].name!r}: "
                    f"TF does not convert between tensor dtypes; use tf.cast(x, "
                    f"tf.{typed[0].dtype.name})")

    def __repr__(self):
        return f"<tf.Tensor {self.name!r} shape={self.shape} dtype={self.dtype.name}>"

    def __str__(self):
        # a computed tensor: its closed form where there is one to show; else what TF
        # prints (a [None, d] batch: print(pred) in a tutorial shows the tensor, not why
        # there is no formula; sg.closed_form(t) gives that).  A placeholder, variable or
        # constant: what TF prints (its closed form is only its own name)
        if self.is_leaf:
            return self.tf_text()
        text = super().__str__()
        return self.tf_text() if text.startswith("<closed form of ") else text

    def tf_text(self):
        """TF1's ``str`` of this tensor: ``Tensor("x:0", shape=(?, 3), dtype=float32)``
        (no shape when its rank is unknown)."""
        shape = "" if self.shape is None else f", shape={self.get_shape()}"
        return f'Tensor("{self.name}"{shape}, dtype={self.dtype.name})'


TF1Tensor.derived_class = TF1Tensor


def as_tf1(node):
    """Make a leaf just built by ``tracing`` a TF1 tensor (same layout, TF1 behaviour)."""
    if type(node) is _t.Tensor:
        name, shape = node.__dict__.pop("name"), node.__dict__.pop("shape")
        node.__class__ = TF1Tensor
        node.name, node.shape = name, shape
    return node


def tf1_results(fn):
    """``fn`` whose tensor results are TF1 tensors: a result made from Python values
    alone (``tf.range(3)``, ``tf.fill([2], 1.0)``) would otherwise be a plain one,
    without ``:0`` in its name, ``shape.as_list()`` or TF's dtype checks."""
    if not isinstance(fn, types.FunctionType) or getattr(fn, "tf1_results", False):
        return fn
    try:   # (through the wrappers' __wrapped__)
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    at = names.index("dtype") if "dtype" in names else None
    # (a result whose dtype an argument sets, argmax's int64 output_type, keeps it)
    typed = any(n in names for n in ("output_type", "out_type", "out_idx"))
    fn = converted_shape_check(fn, names)

    @functools.wraps(fn)
    def call(*args, **kwargs):
        # TF's names of dtypes: tf.cast(x, "float") is float32 (numpy's "float" is float64)
        if at is not None and len(args) > at and (isinstance(args[at], str) or
                                                  _is_enum_number(args[at])):
            args = args[:at] + (tf_dtype_arg(args[at]),) + args[at + 1:]
        elif isinstance(kwargs.get("dtype"), str) or _is_enum_number(kwargs.get("dtype")):
            kwargs = dict(kwargs, dtype=tf_dtype_arg(kwargs["dtype"]))
        out = fn(*args, **kwargs)
        if not typed and _python_numbers_only(args, kwargs):   # tf.sqrt(2.0): float32
            out = _tf_default_dtype(out)
        for hook in RESULT_HOOKS:
            out = hook(out)
        _mark(out)
        return out
    call.tf1_results = True
    return call


RESULT_HOOKS = []   # functions of a tf.* result (compat.custom: gradient overrides)
_PYTHON_DEFAULTS = {np.dtype(np.float64): np.float32, np.dtype(np.int64): np.int32}


def _python_numbers_only(args, kwargs):
    """True when the arguments are Python numbers and lists of them alone (no tensor,
    numpy value, dtype or string but a ``name``)."""
    def plain(v):
        if isinstance(v, (list, tuple)):
            return all(plain(u) for u in v)
        return v is None or (isinstance(v, (bool, int, float)) and
                             not isinstance(v, np.generic))
    return all(plain(v) for v in args) and all(
        plain(v) for k, v in kwargs.items() if k != "name")


def _tf_default_dtype(out):
    """A plain tensor computed from Python numbers in float64 (int64) as float32
    (int32); anything else unchanged."""
    if type(out) in (_t.Tensor, TF1Tensor) and out.dtype in _PYTHON_DEFAULTS:
        return _t.cast(out, _PYTHON_DEFAULTS[out.dtype])
    if isinstance(out, list):
        return [_tf_default_dtype(v) for v in out]
    return out


def _mark(out):
    if type(out) is _t.Tensor:
        as_tf1(out)
    elif isinstance(out, (list, tuple)):
        for item in out:
            _mark(item)


def as_tensor_keeping_dtype(value):
    """``value`` as a tensor whose dtype is the numpy value's own, unsigned ones too
    (the core widens uint8 to int64; TF keeps a uint8 image uint8)."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind == "u":
        return _t.constant(value, dtype=value.dtype)
    return _t.as_tensor(value)


def check_same_shapes(tensors, what):
    """TF's ValueError when ``tf.add_n``'s inputs differ in shape: AddN does not
    broadcast (sizes unknown until run time agree with any size)."""
    first = tensors[0]
    for i, t in enumerate(tensors[1:], 1):
        if first.shape is not None and t.shape is not None and \
                not same_up_to_unknown(first.shape, t.shape):
            raise ValueError(
                f"{what}: inputs must all have the same shape (AddN does not broadcast); "
                f"inputs[0] {first.name!r} has shape {TensorShape(first.shape)} and "
                f"inputs[{i}] {t.name!r} has shape {TensorShape(t.shape)}; reshape or "
                f"reduce them first (tf.reduce_sum, tf.reshape)")


def added(tensors, what):
    """The sum of the non-empty list ``tensors`` as TF's AddN takes it: one shape
    (``check_same_shapes``), added in order."""
    check_same_shapes(tensors, what)
    total = tensors[0]
    for t in tensors[1:]:
        total = total + t
    return total


def constant(value, dtype=None, shape=None, name=None):
    """A constant TF1 tensor (``tracing.constant``, TF1 behaviour)."""
    return as_tf1(_t.constant(value, dtype=dtype, shape=shape, name=name))


# TF's truediv table: the float type each integer type divides in
_TRUEDIV = {np.dtype(t): np.dtype(np.float32 if np.dtype(t).itemsize < 4 else np.float64)
            for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                      np.uint64)}


def truediv(x, y, name=None):
    """``x / y`` (``tf.truediv``, ``tf.divide``, ``/``): integers of one type divide in
    TF's float type for it (float32 below 32 bits, else float64; Python ints are int32,
    so ``tf.truediv(7, 2)`` is float64), other tensors as they are."""
    if not any(isinstance(v, Node) or hasattr(v, "as_graph_tensor") for v in (x, y)):
        x, y = (constant(np.asarray(v).astype(_PYTHON_DEFAULTS.get(np.asarray(v).dtype,
                                                                   np.asarray(v).dtype)))
                for v in (x, y))
    a, b = _t.functions._lift([x, y])
    to = _TRUEDIV.get(a.dtype) if a.dtype == b.dtype else None
    if to is not None:
        a, b = _t.cast(a, to), _t.cast(b, to)
    return _t.div(a, b, name=name or "truediv")   # (TF's op name for /)


# (tf1_results would make the float64 of two Python ints float32, its rule for results
# of Python numbers alone; these are TF1 tensors already)
truediv.tf1_results = True
