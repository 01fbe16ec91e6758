"""The op registry: one entry per primitive (see ``base.Op``).

Importing this package registers every op.  Stages loop over ``REGISTRY``;
nothing outside ``ops/`` branches on an op's name.

>>> "matmul" in REGISTRY and "sin" in REGISTRY
True
"""
from . import (activations, bitwise, custom, draws, eigen, elementwise, factor,  # noqa: F401
               leaves, linalg, linalg_ops, python, reduce, shape, valued)  # (registration)
from . import batching, links, sizes  # noqa: F401,E402  (batching, dependence and size rules)
from .base import (REGISTRY, Example, F, Op, apply, as_node, broadcast_shapes, cast_value,
                   check_value, common_graph, literal, normalize_axis, unbroadcast)
from .elementwise import ElementwiseOp, arg_symbols
from .shape import normalize_index

__all__ = ["REGISTRY", "Example", "F", "Op", "ElementwiseOp", "apply", "as_node", "arg_symbols",
           "broadcast_shapes", "cast_value", "check_value", "common_graph", "literal",
           "normalize_axis", "normalize_index", "unbroadcast"]
