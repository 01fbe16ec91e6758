"""Numbers drawn when sizes are known: ``uniform_draw``, dropout's mask over unknown sizes.

``uniform_draw(x, key)`` is a tensor of x's shape holding uniform numbers in [0, 1)
from numpy's generator seeded with ``key`` (``default_rng(key)``), in C order.  The
key is chosen when the op is made, so the numbers are fixed like a drawn constant,
but they are made when x's size is known: for ``x`` of shape ``(None, d)`` a batch
of n rows reads the first ``n * d`` numbers of that stream, so row i has the same
numbers in every batch that reaches it, and a shape known when the graph is built
gets exactly :func:`uniform_numbers` of it.  The value does not depend on x's
values: there is no derivative to pass (TF gives its random ops none), and the
compiler bakes the numbers of each size it meets (``decompose``; unknown sizes are
compiled once per size).

Imports numpy, the graph and ``ops.base`` (SymPy for the closed forms).

>>> uniform_numbers((2, 3), 7)[1].round(3).tolist() == uniform_numbers((4, 3), 7)[1].round(3).tolist()
True
"""
from __future__ import annotations

import numpy as np

from ..graph import is_static
from .base import REGISTRY, Example, Op, apply, literal, register


def uniform_numbers(shape, key):
    """The numbers ``uniform_draw`` of ``shape`` holds for ``key``."""
    return np.random.default_rng(int(key)).uniform(size=tuple(int(d) for d in shape))


def _symbolic(node, x):
    import sympy
    values = uniform_numbers(x.shape, node.attrs["key"])
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = sympy.Float(float(values[idx]))
    return out


def _decompose(x, key):
    # the numbers of this size, baked; a size known only at call time has none yet
    # (TypeError: the compiler then builds once per size met)
    if not is_static(x.shape):
        raise TypeError("uniform_draw needs its size")
    return literal(x.graph, uniform_numbers(x.shape, key))


def draw_like(x, key, name=None):
    """A ``uniform_draw`` node of x's shape (see the module docstring)."""
    return apply("uniform_draw", [x], key=int(key), name=name)


register(Op("uniform_draw", kind="special", shape=lambda in_shapes, key: tuple(in_shapes[0]),
            impl=lambda x, key: uniform_numbers(np.shape(x), key), symbolic=_symbolic,
            grad=lambda node, g: [None], dtype=lambda dtypes, key: np.dtype(np.float64),
            examples=[Example((2, 3), key=5), Example((4,), key=2**62 + 1)],
            doc="uniform numbers in [0, 1) of x's shape, from a key fixed when made "
                "(dropout's mask where sizes are known only at run time)"))
REGISTRY["uniform_draw"].decompose = _decompose

__all__ = ["uniform_numbers", "draw_like"]
