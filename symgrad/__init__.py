"""symgrad: trace TF-style programs, differentiate them like tf.gradients, print the
closed form and run it fast.

Public API only: re-exports, nothing else lives here.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(0.0, name="a")
...     b = 2 * a
...     [str(g) for g in sg.gradients(a + b, [a, b])]
['3', '1']
"""
import numpy as _np

from . import ops  # noqa: F401
from .compiler import Evaluator, compile  # noqa: F401,A004
from .differentiate import Sweep, gradients  # noqa: F401
from .forward import hvp, jvp  # noqa: F401
from .patterns import sparsity  # noqa: F401
from .sparse import SparseTensor, hessians, jacobian  # noqa: F401
from .control import cond, map_fn, scan, while_loop  # noqa: F401
from .errors import (ArgumentError, ArgumentTypeError, DtypeError, FeedError,  # noqa: F401
                     GraphError, NoGradientError, NotATensorError, ParseError, ShapeError,
                     StateError, SymgradError)
from .evaluate import evaluate  # noqa: F401
from .graph import format_graph  # noqa: F401
from .display import GradientList  # noqa: F401
from .forms import closed_form, latex, mathml, matrix_form, pprint, pretty, text  # noqa: F401
from .optimize import ScipyObjective, to_scipy  # noqa: F401
from .tracing import *  # noqa: F401,F403
from .parse import parse  # noqa: F401  (the top layers: parse, teach)
from .teach import descent_path, draw, explain, gradient_field  # noqa: F401
from .version import __version__  # noqa: F401


float16, float32, float64 = _np.float16, _np.float32, _np.float64
int32, int64, bool_ = _np.int32, _np.int64, _np.bool_
