"""A user's Python function run inside the graph: ``py_func`` and ``eager_py_func``.

TF1's ``tf.py_func`` / ``tf.numpy_function`` (op type ``PyFunc``) and
``tf.py_function`` (``EagerPyFunc``) call a Python function on the values of
their inputs every time they run.  One call gives every output: the call is a
:class:`PythonCall` and each output a node ``py_func(*inputs, call=, index=,
declared=)`` reading entry ``index`` of it (a run that needs several outputs
calls the function once).  What the function returns must have the declared
dtypes (``PythonCall.convert`` says how strictly), as many values as declared,
and the declared shape where one is known.

- **Shape.**  ``declared`` is None (unknown rank, TF's ``<unknown>``) until the
  program fixes it (``narrow``, TF's ``set_shape``): ops built on an output of
  unknown rank are recorded (``ops.deferred``), and ``resolve`` calls the
  function when values arrive, as it reads a fed placeholder's shape.  A declared
  ``None`` size is a Dim bound from the value (``binds_sizes``).
- **Gradient.**  None for every input, as TF gives ``PyFunc`` (the function is
  opaque), unless the program gives one (``PythonCall.gradient``: TF's
  ``gradient_override_map``); ``tf.custom_gradient`` around the call works as for
  any op.
- **Closed forms** show an opaque call ``f(x)[i]`` per entry; ``sg.compile``
  refuses graphs holding it (:func:`python_call_in`).

Imports numpy, SymPy, the graph and ``ops.base``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.constant([1.0, 2.0])
...     y, = python_call(lambda a: a * 10, [x], [np.float64], declared=[(2,)])
...     sg.evaluate(y).tolist()
[10.0, 20.0]
"""
from __future__ import annotations

import numpy as np
import sympy

from ..errors import PythonCallError
from ..graph import Dim, size_symbol_name
from .base import REGISTRY, Op, apply, register


class PythonCall:
    """One Python function of the graph and what it promises.

    Args:
        func: the user's function, called with one value per input.
        dtypes: the declared dtype of each output (numpy dtypes).
        label: what messages call it (the op's name, ``PyFunc_2``).
        strict: True (py_func, numpy_function): a value of another dtype is an
            error, as TF's ``PyFunc`` kernel says; False (py_function): values are
            converted to the declared dtype, as TF converts them.
        wrap: ``wrap(array)``, what the function receives for each input value
            (the array itself by default; eager-tensor views for py_function).
    """

    def __init__(self, func, dtypes, label, strict=True, wrap=None):
        self.func, self.dtypes, self.label = func, [np.dtype(d) for d in dtypes], label
        self.strict, self.wrap = strict, wrap
        self.gradient = None    # gradient(node, g) -> [input cotangents]; None: TF's none
        self.nodes = []         # the output nodes, in order
        self._last = None       # (input values, results, indices served) of the last call

    def __call__(self, arrays):
        """The outputs of one call of the function on ``arrays``, checked and converted."""
        values = [self.wrap(a) for a in arrays] if self.wrap is not None else list(arrays)
        out = self.func(*values)
        if len(self.dtypes) == 1 and not isinstance(out, (list, tuple)):
            out = [out]
        out = [] if out is None and not self.dtypes else out
        if not isinstance(out, (list, tuple)) or len(out) != len(self.dtypes):
            count = len(out) if isinstance(out, (list, tuple)) else 1
            raise PythonCallError(f"{self.label}: {self.func_name} returns {count} values, but "
                                  f"expects to see {len(self.dtypes)} values.")
        return [self.convert(k, v) for k, v in enumerate(out)]

    def convert(self, k, value):
        """Output ``k`` as an array of its declared dtype (or the error TF gives)."""
        want = self.dtypes[k]
        value = value.numpy() if hasattr(value, "numpy") else value
        arr = np.asarray(value)
        if arr.dtype == want:
            return arr
        if self.strict or arr.dtype.kind not in "biuf":
            raise PythonCallError(
                f"{self.label}: {k}-th value returned by {self.func_name} is "
                f"{_tf_name(arr.dtype)}, but expects {_tf_name(want)}; return "
                f"np.asarray(value, dtype=np.{want.name}) (or declare Tout={want.name!r} "
                f"as {arr.dtype.name})")
        return arr.astype(want)

    def output(self, index, arrays):
        """Entry ``index`` of the call on ``arrays``: one call serves each output once
        (a run reading several outputs calls the function once); a second read of
        the same output is a new run, which calls it again (TF's stateful calls)."""
        last = self._last
        if last is None or index in last[2] or len(last[0]) != len(arrays) or \
                any(a is not b for a, b in zip(last[0], arrays)):
            last = self._last = (list(arrays), self(arrays), set())
        last[2].add(index)
        return last[1][index]

    @property
    def func_name(self):
        """The function's name for messages and closed forms (``square``, ``<lambda>``)."""
        return getattr(self.func, "__name__", type(self.func).__name__)

    def __repr__(self):
        return f"<python call {self.func_name} of {self.label}>"


_TF_NAMES = {"float32": "float", "float64": "double", "bool": "bool"}


def _tf_name(dtype):
    """TF's name of a dtype in kernel messages (``float``, ``double``, ``int64``)."""
    return _TF_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)


def _shape(in_shapes, call, index, declared):
    return None if declared is None else tuple(declared)


def _impl(*arrays, call, index, declared):
    out = call.output(index, arrays)
    if declared is not None and (out.ndim != len(declared) or any(
            d is not None and d != n for d, n in zip(declared, out.shape))):
        raise PythonCallError(f"{call.label}: output {index} of {call.func_name} has shape "
                              f"{out.shape}, but its shape was set to {tuple(declared)} "
                              "(set_shape); return values of that shape or set another one")
    return out


def _symbolic(node, *arrays):
    """An opaque call per entry: ``f[i, j](inputs...)`` (the function has no formula); a
    0-d input appears as its expression, a larger one by its tensor's name."""
    call, index = node.attrs["call"], node.attrs["index"]
    args = [a[()] if np.ndim(a) == 0 else sympy.Symbol(getattr(x, "op_name", x.name))
            for x, a in zip(node.inputs, arrays)]
    head = call.func_name + ("" if len(call.dtypes) == 1 else f"_{index}")
    out = np.empty(node.shape, dtype=object)
    for pos in np.ndindex(*node.shape):
        label = head + (f"[{', '.join(map(str, pos))}]" if pos else "")
        out[pos] = sympy.Function(label)(*args)
    return out


def _grad(node, g):
    call = node.attrs["call"]
    if call.gradient is None:   # TF registers PyFunc and numpy_function as not differentiable
        return [None] * len(node.inputs)
    return call.gradient(node, g)


def _dtype(dtypes, call, index, declared):
    return call.dtypes[index]


for _name, _doc in (("py_func", "a Python function of numpy values (tf.py_func, "
                                "tf.numpy_function)"),
                    ("eager_py_func", "a Python function of eager tensors (tf.py_function)")):
    register(Op(_name, kind="special", shape=_shape, impl=_impl, symbolic=_symbolic,
                grad=_grad, dtype=_dtype, doc=_doc,
                blocks=lambda node: node.attrs["call"].gradient is None))
    REGISTRY[_name].binds_sizes = True     # a None size set_shape leaves: bound from the value
    REGISTRY[_name].runs_python = True     # sg.compile refuses it; resolve() calls it


def python_call(func, inputs, dtypes, label="PyFunc", strict=True, wrap=None, eager=False,
                declared=None, names=None, graph=None):
    """The output nodes of ``func`` applied to the tensors ``inputs`` (one per dtype).

    Args:
        declared: per output, a shape (None sizes known from the value) or None for an
            unknown rank; all unknown by default.
        names: per output, the node's name; the op's name by default.
        graph: where a call without inputs goes (else the inputs' graph).
    Returns:
        the list of output nodes; ``call.nodes`` holds it too.
    """
    call = PythonCall(func, dtypes, label, strict=strict, wrap=wrap)
    op = "eager_py_func" if eager else "py_func"
    declared = declared or [None] * len(dtypes)
    names = names or [None] * len(dtypes)
    call.nodes = []
    for k in range(len(dtypes)):
        attrs = dict(call=call, index=k,
                     declared=None if declared[k] is None else tuple(declared[k]))
        if inputs:
            call.nodes.append(apply(op, list(inputs), name=names[k], **attrs))
        else:   # (apply needs a tensor to find the graph)
            call.nodes.append(graph.add_node(REGISTRY[op], (), attrs, _shape((), **attrs),
                                             call.dtypes[k], name=names[k]))
    return call.nodes


def runs_python(node):
    """True when ``node`` is an output of a Python call."""
    return getattr(node.opdef, "runs_python", False)


def narrow(node, dims):
    """Give a Python call's output of unknown rank the shape ``dims`` (TF's
    ``set_shape``; a None size becomes a Dim bound when the function runs)."""
    unknown = [a for a, d in enumerate(dims) if d is None]
    node.shape = tuple(
        Dim.fresh(node.graph._size_name(size_symbol_name(node.name, a, len(unknown))))
        if d is None else int(d) for a, d in enumerate(dims))
    node.attrs = dict(node.attrs, declared=tuple(None if d is None else int(d) for d in dims))
    node.graph.__dict__.pop("_size_binders", None)   # (read again with the new sizes)


def call_outputs(node, arrays):
    """Every output value of the call ``node`` belongs to, from its input values
    ``arrays`` (one call; ``resolve`` reads their shapes)."""
    call = node.attrs["call"]
    return [call.output(k, arrays) for k in range(len(call.dtypes))]


def python_call_in(nodes, seen=None):
    """The first output of a Python call among ``nodes`` or inside the sub-graphs
    (cond branches, loop bodies) of control nodes among them; None if there is none."""
    seen = set() if seen is None else seen
    for node in nodes:
        if runs_python(node):
            return node
        for value in node.attrs.values() if node.opdef.kind == "control" else ():
            for fn in value if isinstance(value, tuple) else (value,):
                graph = getattr(fn, "graph", None)
                if graph is not None and id(graph) not in seen:
                    seen.add(id(graph))
                    found = python_call_in(graph.nodes, seen)
                    if found is not None:
                        return found
    return None


__all__ = ["PythonCall", "python_call", "runs_python", "narrow", "call_outputs",
           "python_call_in"]
