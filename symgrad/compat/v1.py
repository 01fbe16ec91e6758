"""TF1 graph mode on symgrad: ``import symgrad.compat.v1 as tf`` and run the snippet.

Covers what TF1 questions about gradients use: ``tf.constant``, ``tf.Variable``,
``tf.placeholder``, ``tf.gradients``, ``tf.hessians``, ``tf.stop_gradient``,
``tf.reduce_sum`` and friends, ``tf.matmul``, ``tf.random_normal`` /
``tf.random.normal``, ``tf.global_variables_initializer``,
``tf.train.GradientDescentOptimizer`` and ``tf.Session``.

Choices (documented differences from TF):

- dtypes follow TF: Python floats give float32 tensors, Python ints int32 (plain
  ``symgrad`` uses float64/int64).  The classic answers are exact in float32.
- ``tf.placeholder(dtype)`` with ``shape=None`` is a *scalar* (symgrad compiles
  static shapes); feeding it an array raises a FeedError saying which shape
  to declare.  Dimensions of ``None`` are refused at the call.
- ``tf.random_normal`` (and ``random_uniform``, ``truncated_normal``) are
  sampled *once, when created*: the tensor is a constant holding the sample
  (TF draws anew at every ``run``).  ``seed=`` and ``tf.set_random_seed`` make
  the sample reproducible.
- Variables keep their values on the graph; every session sees them and running
  an initializer resets them to their initial values.
- ``sess.run`` returns numpy values; the lists it returns print like TF1-era
  numpy (``[3.0, 1.0]``).

Sits on top of the pipeline; nothing below imports it.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a = tf.constant(0.)
...     b = 2 * a
...     g = tf.gradients(a + b, [a, b], stop_gradients=[a, b])
...     with tf.Session() as sess:
...         print(sess.run(g))
[1.0, 1.0]
"""
from __future__ import annotations

import contextlib
import types

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients as _gradients
from ..seeds import hessians as _hessians
from ..graph import Node
from ..tracing import functions as _f
from .session import GradientList, Operation, Session, remember_none

from ..tracing.functions import *  # noqa: F401,F403  (tf.sin, tf.reduce_sum, ...)

float16, float32, float64 = np.float16, np.float32, np.float64
int32, int64, uint8 = np.int32, np.int64, np.uint8
bool = np.bool_  # noqa: A001  (tf.bool)
Graph, Tensor = _t.Graph, _t.Tensor
get_default_graph, reset_default_graph = _t.get_default_graph, _t.reset_default_graph
InteractiveSession = Session
newaxis = None
div, truediv = _f.div, _f.div
_RNG = [np.random.default_rng()]


class UnconnectedGradients:
    """``tf.UnconnectedGradients.NONE`` / ``.ZERO``."""
    NONE, ZERO = "none", "zero"


def _tf_dtype(value, dtype):
    """TF's defaults: Python floats become float32, Python ints int32; numpy values keep
    their dtype."""
    if dtype is not None or isinstance(value, (Node, np.ndarray, np.generic)):
        return dtype
    kind = np.asarray(value).dtype.kind
    return np.float32 if kind == "f" else np.int32 if kind in "iu" else None


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """``tf.constant``: float32 for Python floats, int32 for Python ints."""
    return _t.constant(value, dtype=_tf_dtype(value, dtype), shape=shape, name=name)


class Variable(_t.Variable):
    """``tf.Variable``: float32 for Python floats; an initializer resets it."""

    def __new__(cls, initial_value=None, trainable=True, name=None, dtype=None, **kwargs):
        node = super().__new__(cls, initial_value, name=name,
                               dtype=_tf_dtype(initial_value, dtype), trainable=trainable)
        node.initial = np.array(node.value)
        return node

    def initializer_run(self):
        self.value = np.array(self.initial)

    @property
    def initializer(self):
        """``sess.run(v.initializer)``: reset this variable to its initial value."""
        return Operation(f"{self.name}/Assign", lambda feed: self.initializer_run())


def placeholder(dtype, shape=None, name=None):
    """``tf.placeholder``; ``shape=None`` is a scalar here (see the module docstring)."""
    node = _t.placeholder(dtype, shape, name=name)
    node.tf_shape_none = shape is None
    return node


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients="none"):
    """``tf.gradients``: a list with one tensor (or None) per x; see ``sg.gradients``."""
    grads = _gradients(ys, xs, grad_ys, name, gate_gradients, aggregation_method,
                       stop_gradients, unconnected_gradients, colocate_gradients_with_ops)

    def why(i):
        from ..teach import why_none
        return why_none(ys, xs, i, grad_ys=grad_ys, stop_gradients=stop_gradients)
    result = GradientList(grads, why)
    if grads:
        remember_none(grads[0].graph if grads[0] is not None else _graph_of(xs), result)
    return result


def _graph_of(xs):
    return (xs[0] if isinstance(xs, (list, tuple)) else xs).graph


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False,
             gate_gradients=False, aggregation_method=None):
    """``tf.hessians`` (zeros where TF would raise on a structurally zero block)."""
    return _hessians(ys, xs, name, gate_gradients, aggregation_method)


def add_n(inputs, name=None):
    """The sum of a list of tensors."""
    total = inputs[0]
    for t in inputs[1:]:
        total = total + t
    return _f.identity(total, name=name) if name else total


def ones(shape, dtype=np.float32, name=None):
    return _f.ones(shape, dtype, name)


def zeros(shape, dtype=np.float32, name=None):
    return _f.zeros(shape, dtype, name)


def set_random_seed(seed):
    """``tf.set_random_seed``: makes later random tensors reproducible."""
    _RNG[0] = np.random.default_rng(seed)


def _rng(seed):
    return np.random.default_rng(seed) if seed is not None else _RNG[0]


def random_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """Normal samples, drawn once when this is called (TF draws at every run)."""
    value = _rng(seed).normal(mean, stddev, size=tuple(shape))
    return _t.constant(value, dtype=dtype, name=name or "random_normal")


def random_uniform(shape, minval=0, maxval=None, dtype=np.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval) (maxval 1 by default), drawn once."""
    value = _rng(seed).uniform(minval, 1.0 if maxval is None else maxval, size=tuple(shape))
    return _t.constant(value, dtype=dtype, name=name or "random_uniform")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=np.float32, seed=None, name=None):
    """Normal samples redrawn beyond two standard deviations, drawn once."""
    rng = _rng(seed)
    z = rng.standard_normal(size=tuple(shape))
    while np.any(bad := np.abs(z) > 2):
        z[bad] = rng.standard_normal(size=int(bad.sum()))
    return _t.constant(mean + stddev * z, dtype=dtype, name=name or "truncated_normal")


random = types.SimpleNamespace(normal=random_normal, uniform=random_uniform,
                               truncated_normal=truncated_normal, set_random_seed=set_random_seed)


def _variables(graph):
    return [n for n in graph.nodes if isinstance(n, Variable)]


def variables_initializer(var_list, name="init"):
    """An operation that resets ``var_list`` to their initial values."""
    var_list = list(var_list)
    return Operation(name, lambda feed: [v.initializer_run() for v in var_list])


def global_variables_initializer():
    """An operation initializing every variable of the default graph made so far."""
    return variables_initializer(_variables(get_default_graph()))


initialize_all_variables = global_variables_initializer


def trainable_variables():
    return [v for v in _variables(get_default_graph()) if v.attrs.get("trainable", True)]


def global_variables():
    return _variables(get_default_graph())


class GradientDescentOptimizer:
    """``tf.train.GradientDescentOptimizer(lr).minimize(loss)``: x <- x - lr * gradient."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        self.learning_rate = learning_rate

    def minimize(self, loss, var_list=None, name=None):
        var_list = list(var_list) if var_list is not None else trainable_variables()
        grads = _gradients(loss, var_list)
        pairs = [(v, g) for v, g in zip(var_list, grads) if g is not None]
        if not pairs:
            raise ValueError("No gradients provided for any variable: the loss does not "
                             "depend on any trainable variable")
        return Operation(name or "GradientDescent", lambda feed: self._step(pairs, feed))

    def _step(self, pairs, feed):
        from ..evaluate import evaluate
        values = evaluate([g for _, g in pairs], feed)
        for (v, _), g in zip(pairs, values):
            v.assign(v.value - self.learning_rate * np.asarray(g))


train = types.SimpleNamespace(GradientDescentOptimizer=GradientDescentOptimizer)


@contextlib.contextmanager
def name_scope(name, default_name=None, values=None):
    """``tf.name_scope``: prefix the names of tensors made inside the block."""
    with get_default_graph().name_scope(name or default_name) as scope:
        yield scope + "/"


matmul = _t.matmul


# -- the op breadth: tf.nn, tf.linalg, tf.math and TF1's old top-level names (v1_ops) --
from .v1_ops import *  # noqa: E402,F401,F403
from .v1_ops import RNG_SOURCE as _RNG_SOURCE  # noqa: E402
from .v1_ops import linalg, math, nn  # noqa: E402,F401

_RNG_SOURCE[0] = _rng  # tf.nn.dropout draws from the generator tf.set_random_seed sets
