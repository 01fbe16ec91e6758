"""The whole public API, imported at once: what ``symgrad/__init__.py`` resolves its
names from on first use (the order is the order of the old eager ``__init__``:
later imports win).  ``import symgrad`` alone does not import this module.
"""
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


def names():
    """The public names defined above (and ``__version__``)."""
    return {k: v for k, v in globals().items()
            if (not k.startswith("_") or k == "__version__") and k != "names"}
