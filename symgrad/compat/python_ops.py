"""TF1's Python functions in the graph: ``tf.py_func``, ``tf.numpy_function`` and
``tf.py_function``.

Each builds one Python call (``ops.python``): the user's function runs on the
values of ``inp`` every time the graph runs -- in ``Session.run``, ``sg.evaluate``,
per element in ``Dataset.map``, per iteration in a ``while_loop`` body.

- ``py_func`` / ``numpy_function`` (op type ``PyFunc``): the function gets numpy
  values (a numpy scalar for a 0-d input, as TF gives) and must return values of
  exactly the declared dtypes, else TF's InvalidArgumentError ("0-th value returned
  by ... is double, but expects float").
- ``py_function`` (``EagerPyFunc``): the function gets :class:`EagerValue` views
  (``.numpy()``, ``.shape``, ``.dtype``, arithmetic; TF gives EagerTensors even in a
  TF1 graph); what it returns is converted to the declared dtypes.  ``tf.*`` ops it
  calls are built in a scratch graph and evaluated when it returns.
- ``Tout`` a dtype gives one tensor; a list gives a list (of one for ``[dtype]``;
  ``[]`` gives an operation, run for its effect).  The results' shapes are unknown
  (``<unknown>``) until ``set_shape``.
- Gradients: None to every input of ``py_func``/``numpy_function`` (TF registers
  PyFunc as not differentiable), unless ``gradient_override_map({"PyFunc": name})``
  names a ``tf.RegisterGradient`` function (TF's numpy-op-with-gradient idiom), or
  ``tf.custom_gradient`` wraps the call.  ``py_function`` is differentiated through
  the ``tf.*`` ops its function calls, as TF's tape does (``compat.python_grads``).

Sits in ``compat``; imports ``ops.python``, the tracing layer and ``compat.state``.
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..ops import as_node
from ..ops.python import python_call
from . import custom as _custom
from .python_grads import taped
from .state import Operation, state_of
from .tensor import TensorShape, as_tf1, tf_dtype_arg
from .variables import tf_dtype


def py_func(func, inp, Tout, stateful=True, name=None):  # noqa: N803  (TF's names)
    """``tf.py_func(func, inp, Tout)``: ``func`` of numpy values, every time it runs.

    Args:
        func: a Python function taking one numpy value per entry of ``inp``.
        inp: a list of tensors (numbers and arrays become constants).
        Tout: a dtype (one result) or a list of dtypes (a list of results).
        stateful: accepted; symgrad runs the function at every run either way.
        name: the op's name (``PyFunc`` by default).
    Returns:
        a tensor of unknown shape, or a list of them, or an operation for ``Tout=[]``.
    """
    return _build(func, inp, Tout, name or "PyFunc", "PyFunc", strict=True, wrap=_numpy_arg)


def numpy_function(func, inp, Tout, stateful=True, name=None):  # noqa: N803
    """``tf.numpy_function``: ``tf.py_func`` under its TF2 name (the same op)."""
    return _build(func, inp, Tout, name or "PyFunc", "PyFunc", strict=True, wrap=_numpy_arg)


def py_function(func, inp, Tout, name=None):  # noqa: N803
    """``tf.py_function``: ``func`` of eager tensors (:class:`EagerValue` here); its
    results are converted to ``Tout``."""
    outs = _build(_scratch(func), inp, Tout, name or "EagerPyFunc", "EagerPyFunc",
                  strict=False, wrap=EagerValue)
    first = outs[0] if isinstance(outs, list) and outs else outs
    if isinstance(first, Node) and first.attrs["call"].gradient is None:
        first.attrs["call"].gradient = taped(func)   # (TF's tape over the call)
    return outs


for _fn in (py_func, numpy_function, py_function):
    _fn.tf1_results = True   # (built as TF1 tensors here; overrides are read here too)


def _build(func, inp, Tout, name, op_type, strict, wrap):
    if not callable(func):
        raise TypeError(f"tf.{_PUBLIC[op_type]}: func must be callable, got {func!r}")
    listed, dtypes = _dtypes(Tout, op_type)
    inputs = _inputs(inp)
    graph = _graph_of(inputs)
    if not dtypes:   # an operation run for its effect (a debugging print)
        return _effect_op(func, inputs, name, op_type, strict, wrap, graph)
    outs = [as_tf1(o) for o in python_call(func, inputs, dtypes, strict=strict, wrap=wrap,
                                           eager=op_type == "EagerPyFunc",
                                           names=[name] * len(dtypes), graph=graph)]
    outs[0].attrs["call"].label = outs[0].op_name   # (what its messages call it)
    _override(outs, op_type)
    return outs if listed else outs[0]


_PUBLIC = {"PyFunc": "py_func", "EagerPyFunc": "py_function"}


def _dtypes(Tout, op_type):  # noqa: N803
    """(whether Tout is a list, the numpy dtypes) of ``Tout``."""
    listed = isinstance(Tout, (list, tuple))
    items = list(Tout) if listed else [Tout]
    out = []
    for k, t in enumerate(items):
        try:
            out.append(np.dtype(getattr(t, "as_numpy_dtype", tf_dtype_arg(t))))
        except TypeError:
            raise TypeError(f"tf.{_PUBLIC[op_type]}: Tout{f'[{k}]' if listed else ''} must "
                            f"be a dtype (tf.float32, ...), got {t!r}") from None
    return listed, out


def _inputs(inp):
    """``inp`` as tensors: numbers and arrays become constants (float32 for Python
    floats, as TF converts them)."""
    items = list(inp) if isinstance(inp, (list, tuple)) else [inp]
    out = []
    for v in items:
        if isinstance(v, Node) or hasattr(v, "as_graph_tensor"):
            out.append(_t.as_tensor(v))
        else:
            out.append(as_tf1(_t.constant(v, dtype=tf_dtype(v, None))))
    return out


def _graph_of(inputs):
    return inputs[0].graph if inputs else _t.get_default_graph()


def _numpy_arg(array):
    """What py_func's function gets: a copy it may change (a numpy scalar for 0-d)."""
    array = np.asarray(array)
    return array[()] if array.ndim == 0 else np.array(array)


def _effect_op(func, inputs, name, op_type, strict, wrap, graph):
    from ..ops.python import PythonCall
    call = PythonCall(func, [], name, strict=strict, wrap=wrap)
    op = Operation(name, inputs=inputs, effect=lambda values, session: call(values),
                   graph=graph)
    op.type = op_type
    return op


def _override(outs, op_type):
    """The gradient an active ``gradient_override_map`` gives ``op_type``, if any."""
    overrides = state_of(outs[0].graph).overrides
    name = overrides.get(op_type) if overrides else None
    if name is None:
        return
    fn = _custom._REGISTERED.get(name)
    if fn is None:   # TF registers no gradient for PyFunc that a map could name
        raise LookupError(f"No gradient defined for operation '{name}' (op type: {op_type}); "
                          f"register it with @tf.RegisterGradient({name!r})")
    outs[0].attrs["call"].gradient = lambda node, g: _overridden(fn, op_type, node, g)


def _overridden(fn, op_type, node, g):
    """The registered ``fn(op, *grads)`` at ``node`` (zeros for the call's other outputs,
    as TF fills them), one cotangent per input."""
    call, index = node.attrs["call"], node.attrs["index"]
    outputs = [node if k == index else as_tf1(o) for k, o in enumerate(call.nodes)]
    grads = [g if k == index else _t.zeros_like(o) for k, o in enumerate(outputs)]
    given = fn(CallOp(node, outputs, op_type), *grads)
    given = list(given) if isinstance(given, (list, tuple)) else [given]
    if len(given) != len(node.inputs):
        raise ValueError(f"the gradient registered for {op_type} returned {len(given)} "
                         f"value(s) for {len(node.inputs)} input(s); return one per input "
                         "(None for an input without a gradient)")
    return [d if d is None or isinstance(d, Node) else as_node(d, x.graph, x)
            for x, d in zip(node.inputs, given)]


class CallOp:
    """TF's ``op`` a registered gradient function gets for a Python call: ``inputs``,
    ``outputs``, ``type``, ``name``."""

    def __init__(self, node, outputs, op_type):
        self.inputs = [as_tf1(x) for x in node.inputs]
        self.outputs, self.type = outputs, op_type
        self.name = getattr(node, "op_name", node.name)
        self.graph = node.graph

    def __repr__(self):
        return f"<tf.Operation {self.name!r} type={self.type}>"


def _scratch(func):
    """``func`` run with a scratch default graph: ``tf.*`` ops it calls on its eager
    values are built there, and tensors it returns are evaluated."""
    def call(*values):
        with _t.Graph().as_default():
            out = func(*values)
            if isinstance(out, (list, tuple)):
                return type(out)(_value_of(v) for v in out)
            return _value_of(out)
    call.__name__ = getattr(func, "__name__", type(func).__name__)
    return call


def _value_of(value):
    if isinstance(value, Node):
        from ..evaluate import evaluate
        return evaluate(value)
    return value


class EagerValue:
    """What ``tf.py_function``'s function gets for an input: TF's EagerTensor, as far
    as a value allows (``numpy()``, ``shape``, ``dtype``, arithmetic, indexing,
    ``float()``); ``tf.*`` ops take it as a constant."""

    __array_priority__ = 100   # (numpy operands defer to its operators)

    def __init__(self, value):
        self._value = np.asarray(value)

    def numpy(self):
        return self._value[()] if self._value.ndim == 0 else self._value.copy()

    shape = property(lambda self: TensorShape(self._value.shape))
    dtype = property(lambda self: self._value.dtype)
    ndim = property(lambda self: self._value.ndim)

    def __array__(self, dtype=None, copy=None):
        return self._value if dtype is None else self._value.astype(dtype)

    def __len__(self):
        return len(self._value)

    def __iter__(self):
        return (EagerValue(v) for v in self._value)

    def __getitem__(self, index):
        return EagerValue(self._value[_plain(index)])

    def __float__(self):
        return float(self._value)

    def __int__(self):
        return int(self._value)

    def __index__(self):
        return int(self._value)

    def __bool__(self):
        return bool(self._value)

    def __repr__(self):
        return (f"<tf.Tensor: shape={self._value.shape}, dtype={self._value.dtype.name}, "
                f"numpy={self.numpy()!r}>")

    __str__ = lambda self: str(self._value)  # noqa: E731


def _plain(value):
    return value._value if isinstance(value, EagerValue) else value


def _binary(ufunc, reverse=False):
    def method(self, other):
        if isinstance(other, Node):
            return NotImplemented   # (a graph tensor's operator builds the op)
        a, b = (_plain(other), self._value) if reverse else (self._value, _plain(other))
        return EagerValue(ufunc(a, b))
    return method


for _op, _ufunc in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                    ("truediv", np.true_divide), ("floordiv", np.floor_divide),
                    ("mod", np.mod), ("pow", np.power), ("matmul", np.matmul)):
    setattr(EagerValue, f"__{_op}__", _binary(_ufunc))
    setattr(EagerValue, f"__r{_op}__", _binary(_ufunc, reverse=True))
for _op, _ufunc in (("lt", np.less), ("le", np.less_equal), ("gt", np.greater),
                    ("ge", np.greater_equal), ("and", np.logical_and),
                    ("or", np.logical_or)):
    setattr(EagerValue, f"__{_op}__", _binary(_ufunc))
EagerValue.__neg__ = lambda self: EagerValue(-self._value)
EagerValue.__abs__ = lambda self: EagerValue(np.abs(self._value))
EagerValue.__invert__ = lambda self: EagerValue(~self._value)

__all__ = ["py_func", "numpy_function", "py_function", "EagerValue", "CallOp"]
