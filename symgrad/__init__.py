"""symgrad: trace TF-style programs, differentiate them like tf.gradients, print the
closed form and run it fast.

Public API only: re-exports, nothing else lives here.  They are resolved on first
use (PEP 562): ``import symgrad`` itself imports numpy only, so a process that only
loads a saved evaluator (``sg.load``) or unpickles one never imports SymPy.  The
first use of any other public name imports the whole API, as before.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(0.0, name="a")
...     b = 2 * a
...     [str(g) for g in sg.gradients(a + b, [a, b])]
['3', '1']
"""
import sys as _sys
import types as _types
import typing as _typing

import numpy as _np

if _typing.TYPE_CHECKING:  # what type checkers (and readers) see: the whole public API
    from . import ops  # noqa: F401
    from .compiler import Evaluator, compile  # noqa: F401,A004
    from .differentiate import Sweep, gradients  # noqa: F401
    from .forward import hvp, jvp  # noqa: F401
    from .patterns import sparsity  # noqa: F401
    from .sparse import SparseTensor, hessians, jacobian  # noqa: F401
    from .control import cond, map_fn, scan, while_loop  # noqa: F401
    from .errors import (ArgumentError, ArgumentTypeError, DtypeError, FeedError,  # noqa: F401
                         FormTooLargeError,
                         GraphError, MatrixError, NoGradientError, NotATensorError, ParseError,
                         SavedFileError, ShapeError, StateError, SymgradError)
    from .evaluate import evaluate  # noqa: F401
    from .graph import format_graph  # noqa: F401
    from .display import GradientList  # noqa: F401
    from .forms import closed_form, latex, mathml, matrix_form, pprint, pretty, text  # noqa: F401
    from .optimize import ScipyObjective, to_scipy  # noqa: F401
    from .tracing import *  # noqa: F401,F403
    from .parse import parse  # noqa: F401  (the top layers: parse, teach)
    from .teach import descent_path, draw, explain, gradient_field  # noqa: F401
    from .shipping import load  # noqa: F401
    from .version import __version__  # noqa: F401

float16, float32, float64 = _np.float16, _np.float32, _np.float64
int32, int64, bool_ = _np.int32, _np.int64, _np.bool_

# Names that resolve without importing the rest (no SymPy): loading saved evaluators.
_LIGHT = {"load": "shipping", "__version__": "version"}
# Public functions named like a submodule: ``sg.evaluate`` is the function, as it was
# when this module imported eagerly (the import system's binding of the submodule is
# not kept; ``tests/test_lazy_import.py`` checks this list is complete).
_SHADOWED = frozenset({"evaluate", "parse"})


class _Package(_types.ModuleType):
    def __setattr__(self, name: str, value: _typing.Any) -> None:
        if name in _SHADOWED and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package


def _import_all() -> None:
    """Import the whole public API into this module (what ``import symgrad`` did
    eagerly before): SymPy, the op registry, tracing, forms, teaching."""
    import importlib
    globals().update(importlib.import_module(f"{__name__}._api").names())


def __getattr__(name: str) -> _typing.Any:
    if name in _LIGHT:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LIGHT[name]}"), name)
        globals()[name] = value
        return value
    if _is_submodule(name) and name not in _SHADOWED:   # ``sg.ops``, and ``from . import progress`` inside symgrad
        import importlib
        return importlib.import_module(f"{__name__}.{name}")
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _import_all()
    try:
        return globals()[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def _is_submodule(name: str) -> bool:
    import os
    here = os.path.dirname(__file__)
    return name.isidentifier() and (os.path.isfile(os.path.join(here, name + ".py")) or
                                    os.path.isfile(os.path.join(here, name, "__init__.py")))


def __dir__() -> list:
    _import_all()
    return sorted(globals())
