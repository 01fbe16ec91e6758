"""TF1's own gradients: ``tf.custom_gradient``, ``tf.RegisterGradient`` and
``graph.gradient_override_map``.

``@tf.custom_gradient`` wraps ``f(*xs) -> (y, grad_fn)``: the result has y's value
and the gradient ``grad_fn(dy)`` (one per x); a ``grad_fn`` with a ``variables``
keyword also gets the variables f read and returns ``(dxs, dvariables)``, as TF's.
``RegisterGradient("Name")`` records ``fn(op, grad)``; inside
``with graph.gradient_override_map({"Identity": "Name"}):`` the results of ``tf.*``
functions of that TF op type (``tf.identity``, ``tf.sign``, ``tf.round`` ...) take that
gradient (``op.inputs``, ``op.outputs``, ``op.type``, ``op.name`` are TF's).  Operators
(``x * y``) are not overridden here.  Both build on the registry op
``custom_gradient`` (``ops.custom``).

Sits in ``compat``; imports the tracing layer and ``compat.state``.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
from typing import Any, Iterator

from .. import tracing as _t
from ..graph import Node, ancestors
from ..ops import REGISTRY, apply
from ..ops.deferred import deferrable
from . import tensor as _tensor
from .state import state_of
from .tensor import TensorOp, as_tf1, tf_type, type_of as _type_of
from .variables import tf_dtype

_REGISTERED = {}
_ALIASES = {"Add": "AddV2", "Div": "RealDiv"}


def _builtin(name, node):
    """The gradient TF registers for op type ``name`` (``{"Sign": "Identity"}`` passes
    the gradient straight through), taken at ``node``'s inputs; None if unknown."""
    op = next((o for o in REGISTRY.values() if _type_of(o.name) in (name, _ALIASES.get(name))
               and o.grad is not None and o.kind in ("elementwise", "special")), None)
    if op is None or getattr(op, "nargs", -1) not in (-1, len(node.inputs)):
        return None
    inputs = list(node.inputs)
    return lambda g: op.grad(apply(op, inputs), g)


def with_gradient(xs, y, grad):
    """y's value with gradient ``grad(dy) -> [dx, ...]`` for the tensors ``xs``."""
    return as_tf1(_custom_gradient(list(xs) + [y], grad))


@deferrable()
def _custom_gradient(inputs, grad):
    # (recorded while y has an unknown rank: a tf.py_func's result, ops.python)
    return apply("custom_gradient", inputs, grad=grad)


def custom_gradient(f):
    """``tf.custom_gradient``: ``f(*xs)`` returns ``(y, grad_fn)``."""
    @functools.wraps(f)
    def call(*args, **kwargs):
        xs = [a if isinstance(a, Node) else as_tf1(_t.constant(a, dtype=tf_dtype(a, None)))
              for a in args]
        y, grad_fn = f(*xs, **kwargs)
        if isinstance(y, (list, tuple)):
            raise ValueError("tf.custom_gradient: one result tensor is supported here; "
                             "return one tensor (stack several into one)")
        y = _t.as_tensor(y)
        takes_variables = "variables" in inspect.signature(grad_fn).parameters
        used = _variables_read(y, xs) if takes_variables else []

        def grad(dy):
            if not takes_variables:
                return _listed(grad_fn(dy))
            dxs, dvars = grad_fn(dy, variables=used)
            return _listed(dxs) + _listed(dvars)
        return with_gradient(xs + used, y, grad)
    return call


def _listed(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _variables_read(y, xs):
    from .variables import Variable
    return [n for n in ancestors([y]) if isinstance(n, Variable) and n not in xs]


class RegisterGradient:
    """``@tf.RegisterGradient("Name")`` on ``fn(op, grad)``: the gradient an override
    map can give an op type."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("RegisterGradient: op_type must be a string")
        self._type = op_type

    def __call__(self, fn):
        if self._type in _REGISTERED:
            raise KeyError(f"Registering two gradient with name '{self._type}'!")
        _REGISTERED[self._type] = fn
        return fn


@contextlib.contextmanager
def gradient_override_map(self: Any, op_type_map: dict[str, str]) -> Iterator[None]:
    """``graph.gradient_override_map({"Identity": "Name"})``: inside, ``tf.*`` results of
    those op types take the registered gradients."""
    state = state_of(self)
    saved = dict(state.overrides)
    state.overrides.update(op_type_map)
    try:
        yield
    finally:
        state.overrides.clear()
        state.overrides.update(saved)


def overridden(out):
    """``out`` (a tf.* function's result) with the gradient an active override map gives
    its op type, or unchanged."""
    if not isinstance(out, Node) or out.opdef.kind == "leaf":
        return out
    overrides = state_of(out.graph).overrides
    if not overrides:
        return out
    name = overrides.get(tf_type(out)) or overrides.get(_ALIASES.get(tf_type(out), ""))
    if name is None:
        return out
    if name in _REGISTERED:
        fn, view = _REGISTERED[name], TensorOp(out)
        return with_gradient(list(out.inputs), out, lambda g: fn(view, g))
    builtin = _builtin(name, out)
    if builtin is None:
        raise LookupError(f"No gradient defined for operation '{name}' (op type: "
                          f"{tf_type(out)}); register it with @tf.RegisterGradient({name!r})")
    return with_gradient(list(out.inputs), out, builtin)


_t.Graph.gradient_override_map = gradient_override_map   # (a tf.Graph method in TF1)
_tensor.RESULT_HOOKS.append(overridden)                  # tf.* results meet the override map
