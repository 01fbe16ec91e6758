"""The exception hierarchy of symgrad.

Every error subclasses :class:`SymgradError` and the builtin exception a caller
would naturally catch, so ``except ValueError`` keeps working.  Imports nothing
from symgrad.

>>> issubclass(ShapeError, ValueError)
True
"""


class SymgradError(Exception):
    """Base class of every error raised by symgrad."""


class ShapeError(SymgradError, ValueError):
    """Shapes that do not fit together (broadcasting, reshape, matmul, grad_ys)."""


class PythonCallError(ShapeError):
    """A Python function run in the graph (``tf.py_func``) returned values that do not
    fit what it declared: their count, dtypes or the shape set on an output."""


class GraphError(SymgradError, ValueError):
    """Tensors from different graphs, or a structurally invalid graph."""


class NotATensorError(SymgradError, TypeError):
    """A numpy array or Python number where a tensor of the graph is required."""


class ArgumentTypeError(SymgradError, TypeError):
    """An op function called with the wrong number or kind of arguments (axis=True)."""


class DtypeError(SymgradError, TypeError):
    """A value of a dtype symgrad does not support (complex, object, string)."""


class BranchDtypeError(DtypeError, ValueError):
    """``cond``'s branches returning different dtypes: a ValueError too, as TF's
    ``tf.cond`` raises it."""


class FeedError(SymgradError, ValueError):
    """A placeholder was not fed, or fed a value of the wrong shape."""


class MatrixError(SymgradError, ValueError):
    """A matrix a linear-algebra op cannot take at run time: a singular matrix given to
    an inverse or a solve (TF's InvalidArgumentError "Input is not invertible.")."""


class NoGradientError(SymgradError, LookupError):
    """An op on a path from xs to ys has no derivative rule."""


class GradientNotImplementedError(NoGradientError, NotImplementedError):
    """A derivative rule TF leaves unimplemented for some arguments (TF's
    NotImplementedError: the gradient of a full-size SVD with |m - n| > 1)."""


class ArgumentError(SymgradError, ValueError):
    """An argument with an invalid value (unknown option, wrong length)."""


class ArgumentCountError(ArgumentError, TypeError):
    """A compiled function called with the wrong number of arguments: a TypeError too,
    as Python's own calls and Numba's dispatch raise it."""


class NoClosedFormError(SymgradError, ValueError):
    """A value with no finite closed form (a loop whose trip count depends on symbols).

    The message is the loop's recurrence, with its body's closed form.
    """


class FormTooLargeError(SymgradError, ValueError):
    """A closed form beyond the bounds of its call (entries to expand, nesting depth).

    The message gives the size and what to do (``expand_limit=None``, matrix notation).
    """


class CompileError(SymgradError, NotImplementedError):
    """A graph or expression the compiler cannot lower to machine code."""


class ParseError(SymgradError, ValueError):
    """Text given to ``sg.parse`` or the CLI that is outside the expression grammar."""


class StateError(SymgradError, RuntimeError):
    """A variable read in a session before it was initialised (TF1's FailedPrecondition)."""


class SavedFileError(SymgradError, ValueError):
    """A file given to ``sg.load`` that is not a saved evaluator this symgrad can load
    (foreign, damaged, or written by another version)."""
