"""A value whose gradient the user gives: TF's ``tf.custom_gradient`` and gradient
overrides (``RegisterGradient`` with ``gradient_override_map``).

``custom_gradient(*xs, y, grad=fn)`` has y's value.  Its derivative rule is the
user's ``fn(g)``: one cotangent (a tensor, a number, or None) per x; y itself gets
none, so a gradient reaches the xs only through what ``fn`` builds -- the forward
computation of y from the xs is not differentiated.  ``fn`` builds ordinary graph, so
second derivatives, forward mode and compiled gradients follow from it.

Imports numpy, the graph and ``ops.base``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from ..graph import Node, same_up_to_unknown
from .base import REGISTRY, Example, F, Op, as_node, register


def _rule(node, g):
    xs = node.inputs[:-1]
    given = node.attrs["grad"](g)
    if not isinstance(given, (list, tuple)):
        given = [given]
    given = list(given)
    if len(given) != len(xs):
        raise ShapeError(f"custom gradient: the gradient function returned {len(given)} "
                         f"value(s) for {len(xs)} input(s); return one per input (None for "
                         "an input without a gradient)")
    out = []
    for x, d in zip(xs, given):
        if d is None:
            out.append(None)
            continue
        d = d if isinstance(d, Node) else as_node(d, x.graph, x)
        if d.shape != x.shape and same_up_to_unknown(d.shape, x.shape):
            d = F.reshape(d, shape=x.shape)   # unknown sizes that agree when values arrive
        elif d.shape != x.shape:
            raise ShapeError(f"custom gradient: the gradient for input {x.name!r} has shape "
                             f"{d.shape}; the input has shape {x.shape}")
        out.append(d)
    return out + [None]


def _no_gradient(g):
    """The example's gradient function: zeros for x (its y does not depend on x)."""
    return [g * 0.0]


register(Op("custom_gradient", kind="special",
            shape=lambda in_shapes, grad: tuple(in_shapes[-1]),
            impl=lambda *args, grad: np.asarray(args[-1]),
            symbolic=lambda node, *arrays: arrays[-1],
            dtype=lambda dtypes, grad: dtypes[-1], grad=_rule,
            examples=[Example((3,), (3,), grad=_no_gradient)],
            doc="y's value with the gradient a user's function gives (tf.custom_gradient)"))
REGISTRY["custom_gradient"].decompose = lambda *holders, grad: holders[-1]
