"""Tracing: Tensor, Graph, leaves and the op functions users call.

>>> with Graph().as_default():
...     a = constant(0.0, name="a")
...     (2 * a).name
'mul'
"""
from . import numpy_interop  # noqa: F401  (serves numpy's protocols on Tensor)
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions
from .tensor import (Graph, Tensor, Variable, as_dtype, as_tensor, constant,  # noqa: F401
                     get_default_graph, placeholder, reset_default_graph)

__all__ = list(_functions) + ["Graph", "Tensor", "Variable", "as_dtype", "as_tensor", "constant",
                              "get_default_graph", "placeholder", "reset_default_graph"]
