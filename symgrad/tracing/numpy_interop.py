"""numpy on tensors: ``np.sin(x)``, ``np.sum(x)``, ``W_numpy @ x`` trace into the graph.

Ufuncs map to registry ops by name; a handful of array functions map to the
public functions.  Anything else raises a TypeError naming the numpy function.

>>> import numpy as np
>>> from symgrad.tracing import constant
>>> with Graph().as_default():
...     x = constant(0.0, name="x")
...     float(np.cos(x).numpy())
1.0
"""
from __future__ import annotations

import numpy as np

from . import functions as fn
from .tensor import NUMPY_PROTOCOL, Graph  # noqa: F401  (Graph: doctest)

_UFUNCS = {
    "add": "add", "subtract": "sub", "multiply": "mul", "true_divide": "div",
    "divide": "div", "power": "pow", "negative": "neg", "absolute": "abs",
    "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "exp": "exp",
    "expm1": "expm1", "log": "log", "log1p": "log1p", "sqrt": "sqrt", "square": "square",
    "reciprocal": "reciprocal", "sign": "sign", "maximum": "maximum", "minimum": "minimum",
    "less": "less", "less_equal": "less_equal", "greater": "greater",
    "greater_equal": "greater_equal", "equal": "equal", "not_equal": "not_equal",
    "logical_and": "logical_and", "logical_or": "logical_or", "logical_not": "logical_not",
}


def dispatch_ufunc(ufunc, method, inputs, kwargs):
    """Apply a numpy ufunc to tensor inputs as a graph op."""
    if method != "__call__" or kwargs.get("out") is not None:
        return NotImplemented
    if ufunc.__name__ == "matmul":
        return fn.matmul(*inputs)
    if ufunc.__name__ == "positive":
        return inputs[0]
    name = _UFUNCS.get(ufunc.__name__)
    if name is None:
        raise TypeError(f"numpy.{ufunc.__name__} has no symgrad op; use the sg.* functions "
                        "(sg.ops.REGISTRY lists the primitives)")
    return getattr(fn, name)(*inputs)


def _sum(a, axis=None, keepdims=False, **_):
    return fn.reduce_sum(a, axis, keepdims)


_FUNCTIONS = {
    np.sum: _sum,
    np.mean: lambda a, axis=None, keepdims=False, **_: fn.reduce_mean(a, axis, keepdims),
    np.prod: lambda a, axis=None, keepdims=False, **_: fn.reduce_prod(a, axis, keepdims),
    np.max: lambda a, axis=None, keepdims=False, **_: fn.reduce_max(a, axis, keepdims),
    np.min: lambda a, axis=None, keepdims=False, **_: fn.reduce_min(a, axis, keepdims),
    np.transpose: lambda a, axes=None: fn.transpose(a, axes),
    np.reshape: lambda a, shape=None, **kw: fn.reshape(a, shape if shape is not None
                                                       else kw["newshape"]),
    np.concatenate: lambda arrays, axis=0, **_: fn.concat(arrays, axis),
    np.stack: lambda arrays, axis=0, **_: fn.stack(arrays, axis),
    np.where: lambda c, x, y: fn.where(c, x, y),
    np.dot: lambda a, b, **_: fn.matmul(a, b) if np.ndim(a) and np.ndim(b) else a * b,
    np.tensordot: lambda a, b, axes=2: fn.tensordot(a, b, axes),
    np.einsum: lambda subscripts, *ops, **_: fn.einsum(subscripts, *ops),
    np.broadcast_to: lambda a, shape, **_: fn.broadcast_to(a, shape),
    np.expand_dims: lambda a, axis: fn.expand_dims(a, axis),
    np.squeeze: lambda a, axis=None: fn.squeeze(a, axis),
    np.trace: lambda a, **_: fn.trace(a),
    np.linalg.norm: lambda x, ord=None, axis=None, keepdims=False: fn.norm(x, ord or 2, axis,
                                                                           keepdims),
    np.zeros_like: lambda a, dtype=None, **_: fn.zeros_like(a, dtype),
    np.ones_like: lambda a, dtype=None, **_: fn.ones_like(a, dtype),
}


def dispatch_function(func, args, kwargs):
    """Apply a numpy array function (np.sum, np.stack, ...) to tensors."""
    impl = _FUNCTIONS.get(func)
    if impl is None:
        raise TypeError(f"numpy.{func.__name__} is not supported on symgrad tensors; "
                        "use the sg.* functions")
    return impl(*args, **kwargs)


NUMPY_PROTOCOL.update(ufunc=dispatch_ufunc, function=dispatch_function)
