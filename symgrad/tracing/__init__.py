"""Tracing: Tensor, Graph, leaves and the op functions users call.

``nn`` (``sg.nn``), ``linalg`` (``sg.linalg``) and ``math`` (``sg.math``) are the
namespaces TF has; their functions that TF also has at the top level are here too.

>>> with Graph().as_default():
...     a = constant(0.0, name="a")
...     (2 * a).name
'mul'
"""
import types as _types
from typing import TYPE_CHECKING

from . import numpy_interop  # noqa: F401  (serves numpy's protocols on Tensor)
from . import arrays, conv, linalg, math_ops, nn, pads, selection  # noqa: F401
from .arguments import check_module
from .arrays import *  # noqa: F401,F403
from .arrays import __all__ as _arrays
from .functions import *  # noqa: F401,F403
from .functions import __all__ as _functions
from .linalg import TOP_LEVEL as _linalg_top
from .linalg import diag_part, matrix_transpose  # noqa: F401
from .math_ops import *  # noqa: F401,F403
from .math_ops import __all__ as _math_ops
from .pads import pad  # noqa: F401
from .selection import *  # noqa: F401,F403
from .selection import __all__ as _selection
from .tensor import (Graph, Tensor, Variable, as_dtype, as_tensor, constant,  # noqa: F401
                     get_default_graph, placeholder, reset_default_graph)

# Arity and kinds checked as in functions.py, also for what was imported above.
_CHECKED = {}
for _module in (arrays, conv, linalg, math_ops, nn, pads, selection):
    _CHECKED.update(check_module(_module))
globals().update({k: _CHECKED[v] for k, v in list(globals().items())
                  if _types.FunctionType is type(v) and v in _CHECKED})

TENSOR_FUNCTIONS = (list(_functions) + list(_math_ops) + list(_arrays) + list(_linalg_top)
                    + list(_selection) + ["pad"])
math = _types.SimpleNamespace(**{n: globals()[n] for n in list(_functions) + list(_math_ops)
                                 + ["top_k", "in_top_k", "unsorted_segment_sum", "segment_sum"]},
                              log_softmax=nn.log_softmax)

if not TYPE_CHECKING:   # type checkers see every public name (mypy cannot add lists up)
    __all__ = TENSOR_FUNCTIONS + ["Graph", "Tensor", "Variable", "as_dtype", "as_tensor",
                                  "constant", "get_default_graph", "placeholder",
                                  "reset_default_graph", "nn", "linalg", "math"]
