"""TF1's exception classes (``tf.errors.*``), each also a subclass of a symgrad error.

``tf.errors.InvalidArgumentError`` is also an ``sg.ArgumentError`` (a ValueError),
``FailedPreconditionError`` an ``sg.StateError``, ``NotFoundError`` a LookupError,
and so on, so code catching either family keeps working.  Like TF's, every class
takes ``(node_def, op, message)`` and keeps ``.message``, ``.op`` and ``.node_def``;
a single argument is taken as the message.

>>> from symgrad.compat import errors
>>> issubclass(errors.InvalidArgumentError, errors.OpError)
True
>>> str(errors.FailedPreconditionError(None, None, "uninitialized"))
'uninitialized'
"""
from __future__ import annotations

from ..errors import (ArgumentError, CompileError, FeedError, GraphError, MatrixError, StateError,
                      SymgradError, ShapeError)


class OpError(SymgradError):
    """``tf.errors.OpError``: the base class of the errors a session raises."""

    def __init__(self, node_def=None, op=None, message=None, *args):
        if message is None and op is None:
            node_def, message = None, node_def
        super().__init__(message)
        self.node_def, self.op, self.message = node_def, op, message

    def __str__(self):
        return "" if self.message is None else str(self.message)


def _subclass(name, *bases, doc):
    return type(name, (OpError,) + bases, {"__doc__": doc, "__module__": __name__})


CancelledError = _subclass("CancelledError", doc="an operation was cancelled")
UnknownError = _subclass("UnknownError", doc="an unknown error")
InvalidArgumentError = _subclass("InvalidArgumentError", ArgumentError,
                                 doc="an op got an invalid argument (an unfed placeholder, "
                                     "mismatched shapes at run time)")
DeadlineExceededError = _subclass("DeadlineExceededError", doc="a deadline expired")
NotFoundError = _subclass("NotFoundError", LookupError, doc="a requested entity was not found")
AlreadyExistsError = _subclass("AlreadyExistsError", GraphError,
                               doc="an entity that we attempted to create already exists")
PermissionDeniedError = _subclass("PermissionDeniedError", doc="permission denied")
UnauthenticatedError = _subclass("UnauthenticatedError", doc="no valid credentials")
ResourceExhaustedError = _subclass("ResourceExhaustedError", doc="a resource was exhausted")
FailedPreconditionError = _subclass("FailedPreconditionError", StateError,
                                    doc="the system is not in a state to run the operation "
                                        "(reading an uninitialised variable)")
AbortedError = _subclass("AbortedError", doc="an operation was aborted")
OutOfRangeError = _subclass("OutOfRangeError", IndexError, doc="iterated past the valid range")
UnimplementedError = _subclass("UnimplementedError", CompileError,
                               doc="an operation is not implemented")
InternalError = _subclass("InternalError", doc="an internal invariant was broken")
UnavailableError = _subclass("UnavailableError", doc="a service is unavailable")
DataLossError = _subclass("DataLossError", doc="unrecoverable data loss")


class UnfedPlaceholderError(InvalidArgumentError, FeedError):
    """TF's InvalidArgumentError for an unfed placeholder; also symgrad's FeedError."""


class MatrixRunError(InvalidArgumentError, MatrixError):
    """TF's InvalidArgumentError for a singular matrix given to an inverse or a solve
    ("Input is not invertible."); also symgrad's MatrixError."""


class RunShapeError(InvalidArgumentError, ShapeError):
    """TF's InvalidArgumentError for shapes that do not fit once values arrive (a
    reshape of a fed batch); also symgrad's ShapeError."""


OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = range(6)
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = range(6, 10)
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = range(10, 16)
UNAUTHENTICATED = 16
