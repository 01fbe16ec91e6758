"""TF1 graph-API names programs call in passing: switches, scopes, checks and small
wrappers, with what each means in symgrad's graph mode.

- Switches: ``disable_control_flow_v2``, ``disable_resource_variables``,
  ``disable_tensor_equality``, ``disable_v2_tensorshape`` (symgrad already behaves so)
  and ``enable_control_flow_v2``, ``enable_resource_variables``,
  ``enable_v2_tensorshape`` (no value changes: symgrad's loops give the same numbers,
  its variables read and assign the same, and its shapes' entries are ints already)
  are accepted; ``executing_eagerly_outside_functions``, ``control_flow_v2_enabled``,
  ``resource_variables_enabled`` are False.
- ``init_scope``, ``colocate_with``, ``container``: blocks that change nothing here
  (one graph, one device); ``op_scope``/``variable_op_scope``: TF1's old argument order
  of ``name_scope``/``variable_scope``.
- ``is_symbolic_tensor``, ``assert_same_float_dtype`` (the common float dtype, else
  ValueError), ``assert_variables_initialized`` (an operation that reads the variables:
  FailedPreconditionError when run before their initializer), ``no_regularizer``.
- ``uniform_unit_scaling_initializer(factor)``: uniform in ±factor·sqrt(3 / fan_in),
  fan_in the product of all dimensions but the last.
- ``grad_pass_through(f)``: f's value, the gradient passed straight to f's input;
  ``recompute_grad(f)``: f (TF only saves memory); ``sparse_matmul``: ``matmul``.
- ``tensor_scatter_add``/``sub`` (TF 1.15's names), ``tensor_scatter_nd_max``/``min``:
  the larger (smaller) of the entry and the updates at each index; the gradient is
  shared equally among the entry and the updates that attain it, as TF's.

Sits in ``compat``; imports ``tracing``, ``custom``, ``scopes``, ``variables`` and
``initializers``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.tensor_scatter_nd_max([1.0, 5.0, 2.0], [[0], [2]], [3.0, 1.0])
...     print(tf.Session().run(y))
[3. 5. 2.]
"""
from __future__ import annotations

import contextlib

import numpy as np

from .. import tracing as _t
from ..graph import Node
from .array_updates import tensor_scatter_nd_add, tensor_scatter_nd_sub
from .custom import with_gradient
from .initializers import Initializer, rng, tf_numbers
from .scopes import variable_scope
from .segments import unsorted_segment_max, unsorted_segment_min
from .variables import group

__all__ = ["disable_control_flow_v2", "disable_resource_variables", "disable_tensor_equality",
           "disable_v2_tensorshape", "enable_control_flow_v2", "enable_resource_variables",
           "enable_v2_tensorshape", "executing_eagerly_outside_functions",
           "control_flow_v2_enabled", "resource_variables_enabled", "init_scope",
           "colocate_with", "container", "op_scope", "variable_op_scope", "is_symbolic_tensor",
           "assert_same_float_dtype", "assert_variables_initialized", "no_regularizer",
           "uniform_unit_scaling_initializer", "grad_pass_through", "recompute_grad",
           "sparse_matmul", "tensor_scatter_add", "tensor_scatter_sub",
           "tensor_scatter_nd_max", "tensor_scatter_nd_min"]


def _accepted():
    """A switch that changes nothing in symgrad (module docstring)."""


disable_control_flow_v2 = disable_resource_variables = disable_tensor_equality = _accepted
disable_v2_tensorshape = enable_control_flow_v2 = enable_resource_variables = _accepted
enable_v2_tensorshape = _accepted


def _false():
    return False


executing_eagerly_outside_functions = control_flow_v2_enabled = _false
resource_variables_enabled = _false


@contextlib.contextmanager
def init_scope():
    """A block that changes nothing: symgrad has one graph and no functions to lift out of."""
    yield


@contextlib.contextmanager
def colocate_with(op, ignore_existing=False):
    """A block that changes nothing: symgrad places nothing on devices."""
    yield


@contextlib.contextmanager
def container(container_name):
    """A block that changes nothing: symgrad's variables live on their graph."""
    yield


@contextlib.contextmanager
def op_scope(values, name, default_name=None):
    """TF1's old ``name_scope(name, default_name, values)``."""
    with _t.get_default_graph().name_scope(name or default_name) as scope:
        yield scope


@contextlib.contextmanager
def variable_op_scope(values, name_or_scope, default_name=None, initializer=None,
                      regularizer=None, caching_device=None, partitioner=None,
                      custom_getter=None, reuse=None, dtype=None, use_resource=None,
                      constraint=None):
    """TF1's old ``variable_scope(name_or_scope, default_name, values, ...)``."""
    with variable_scope(name_or_scope, default_name=default_name, values=values,
                        initializer=initializer, regularizer=regularizer, reuse=reuse,
                        dtype=dtype, custom_getter=custom_getter) as scope:
        yield scope


def is_symbolic_tensor(tensor):
    """Whether ``tensor`` is a tensor of a graph (every symgrad tensor is)."""
    return isinstance(tensor, Node)


def assert_same_float_dtype(tensors=None, dtype=None):
    """The float dtype ``tensors`` (and ``dtype``) share; float32 when there are none.

    Raises:
        ValueError: two dtypes differ, or the common one is not a float type.
    """
    found = [np.dtype(dtype)] if dtype is not None else []
    found += [np.dtype(t.dtype) for t in tensors or []]
    if any(d != found[0] for d in found):
        raise ValueError(f"assert_same_float_dtype: expected one dtype, got "
                         f"{sorted({d.name for d in found})}")
    if found and found[0].kind != "f":
        raise ValueError(f"assert_same_float_dtype: {found[0]} is not a floating type")
    return found[0] if found else np.dtype(np.float32)


def assert_variables_initialized(var_list=None):
    """An operation reading ``var_list`` (all global and local variables by default):
    running it before their initializer raises FailedPreconditionError."""
    from .variables import global_variables, local_variables
    variables = list(var_list) if var_list is not None else \
        global_variables() + local_variables()
    return group(*[_t.identity(v) for v in variables], name="assert_variables_initialized")


def no_regularizer(_):
    """The regularizer that adds nothing: ``get_variable(regularizer=tf.no_regularizer)``."""
    return None


class uniform_unit_scaling_initializer(Initializer):  # noqa: N801  (TF's name)
    """Uniform in ±factor·sqrt(3 / fan_in), fan_in the product of all dims but the last."""

    def __init__(self, factor=1.0, seed=None, dtype=np.float32):
        self.factor, self.seed, self.dtype = factor, seed, dtype

    def array(self, shape, dtype):
        fan_in = max(float(np.prod(shape[:-1])) if len(shape) > 1 else 1.0, 1.0)
        limit = np.sqrt(3.0 / fan_in) * self.factor
        tf = tf_numbers("uniform", shape, dtype, self.seed, -limit, limit)   # (with a seed)
        if tf is not None:
            return tf
        return rng(self.seed).uniform(-limit, limit, size=shape).astype(dtype)


def grad_pass_through(f):
    """``f`` whose result passes the gradient unchanged to f's (one) input."""
    def call(x):
        x = _t.functions._lift([x])[0]
        return with_gradient([x], f(x), lambda g: [g])
    return call


def recompute_grad(f):
    """``f`` itself: recomputing in the backward pass only saves memory in TF."""
    return f


def sparse_matmul(a, b, transpose_a=False, transpose_b=False, a_is_sparse=False,
                  b_is_sparse=False, name=None):
    """``matmul`` (the sparsity hints only choose TF's kernel)."""
    return _t.matmul(a, b, transpose_a=transpose_a, transpose_b=transpose_b, name=name)


tensor_scatter_add, tensor_scatter_sub = tensor_scatter_nd_add, tensor_scatter_nd_sub


def _scatter_extreme(tensor, indices, updates, reduce, pick, what, name):
    """The entry or the updates at each index, whichever ``pick`` prefers, the gradient
    shared equally among those attaining it."""
    x = _t.functions._lift([tensor])[0]
    idx = _t.cast(_t.functions._lift([indices])[0], np.int64)
    u = _t.cast(_t.functions._lift([updates])[0], x.dtype)
    depth = int(idx.shape[-1])
    lead, rest = [int(d) for d in x.shape[:depth]], [int(d) for d in x.shape[depth:]]
    if not lead or depth > x.ndim:
        raise ValueError(f"tf.{what}: indices' last axis ({depth}) must index 1..{x.ndim} "
                         "axes of the tensor")
    strides = np.cumprod([1] + lead[::-1])[:-1][::-1].astype(np.int64)
    ids = _t.reshape(_t.reduce_sum(idx * strides, -1), [-1])
    n = int(np.prod(lead))
    flat_x, flat_u = _t.reshape(x, [n] + rest), _t.reshape(u, [-1] + rest)
    best = pick(flat_x, reduce(flat_u, ids, n))
    x_on = _t.cast(_t.equal(flat_x, _t.stop_gradient(best)), x.dtype)
    u_on = _t.cast(_t.equal(flat_u, _t.gather(_t.stop_gradient(best), ids)), x.dtype)
    count = x_on + _t.unsorted_segment_sum(u_on, ids, n)
    out = (flat_x * x_on + _t.unsorted_segment_sum(flat_u * u_on, ids, n)) / count
    return _t.reshape(out, list(x.shape), name=name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """``tensor`` with each indexed entry raised to the largest of its updates."""
    return _scatter_extreme(tensor, indices, updates, unsorted_segment_max, _t.maximum,
                            "tensor_scatter_nd_max", name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """``tensor`` with each indexed entry lowered to the smallest of its updates."""
    return _scatter_extreme(tensor, indices, updates, unsorted_segment_min, _t.minimum,
                            "tensor_scatter_nd_min", name)
