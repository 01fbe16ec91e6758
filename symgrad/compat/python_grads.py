"""The gradient of ``tf.py_function``: TF records the eager call on a tape and
differentiates what the tape saw; here the function runs again, when the gradient
is computed, on the input values as tensors of a scratch graph, whose ``tf.*`` ops
``sg.gradients`` then differentiates with the incoming cotangent.

What the function computes outside ``tf.*`` ops (numpy on ``.numpy()`` values) is not
seen, as TF's tape does not see it: that part contributes no gradient.  Integer inputs
get none (``tf.gradients`` gives None for them).  ``tf.py_func`` and
``tf.numpy_function`` stay without a gradient, as in TF.

Sits in ``compat``; imports ``ops.python``, the tracing layer and the differentiation.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([1.0, 2.0])
...     y = tf.py_function(lambda a: a * a, [x], tf.float32)
...     tf.Session().run(tf.gradients(tf.reduce_sum(y), x)[0]).tolist()
[2.0, 4.0]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients as _gradients
from ..graph import Node
from ..ops.python import python_call


def taped(func):
    """A ``PythonCall.gradient`` for ``tf.py_function(func, ...)``: one Python call
    giving the cotangent of each float input."""
    def gradient(node, g):
        xs = list(node.inputs)
        floats = [k for k, x in enumerate(xs) if x.dtype.kind == "f"]
        if not floats:
            return [None] * len(xs)
        vjp = _vjp(func, node.attrs["index"], node.attrs["call"].dtypes, floats)
        shapes = [None if xs[k].shape is None else
                  [d if isinstance(d, int) else None for d in xs[k].shape] for k in floats]
        outs = python_call(vjp, xs + [g], [xs[k].dtype for k in floats],
                           label="EagerPyFuncGrad", strict=False, declared=shapes)
        found = dict(zip(floats, outs))
        return [found.get(k) for k in range(len(xs))]
    return gradient


def _vjp(func, index, dtypes, floats):
    """The numpy function: (input values..., cotangent) -> cotangent of each float input."""
    def vjp(*values):
        *inputs, dy = values
        with _t.Graph().as_default():
            leaves = [_t.constant(np.asarray(v)) for v in inputs]
            out = func(*leaves)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            y = outs[index]
            wanted = [leaves[k] for k in floats]
            if not isinstance(y, Node) or y.dtype.kind != "f":
                return [np.zeros_like(np.asarray(inputs[k])) for k in floats]
            y = _t.cast(y, dtypes[index]) if y.dtype != dtypes[index] else y
            grads = _gradients(y, wanted, grad_ys=_t.constant(np.asarray(dy, y.dtype)),
                               unconnected_gradients="zero")
            return [np.asarray(g.numpy()).astype(np.asarray(inputs[k]).dtype)
                    for g, k in zip(grads, floats)]
    vjp.__name__ = getattr(func, "__name__", "py_function") + "_grad"
    return vjp
