"""TF1's ``Variable.value()`` beside symgrad's ``Variable.value`` array.

symgrad keeps a leaf's numbers in the attribute ``value`` (a numpy array that the
evaluators read); TF1 programs call ``v.value()`` for the variable as a tensor
(awjuliani's target-network updates: ``t.assign(e.value() * tau + ...)``).  A
compat variable's stored array is therefore a :class:`CallableValue`: the same
numbers, and calling it gives the variable.  Numpy results computed from it are
plain arrays, so the subclass does not spread.

The numbers themselves belong to a session (``session_values``: each TF1 session
holds its own); the first value set, when the variable is made, is the graph's own,
read when no session holds one.

Imports numpy and ``compat.session_values``.

>>> a = stored(np.array([1.0, 2.0]), "v")
>>> a(), type(a * 2).__name__, repr(a)
('v', 'ndarray', 'array([1., 2.])')
"""
from __future__ import annotations

import numpy as np

from . import session_values


class CallableValue(np.ndarray):
    """A variable's numbers; ``value()`` gives the variable (TF1's ``Variable.value``)."""

    def __call__(self):
        variable = getattr(self, "_variable", None)
        if variable is None:
            raise TypeError("this array is a copy of a variable's value: call value() on "
                            "the variable itself")
        return variable

    def __array_wrap__(self, obj, context=None, return_scalar=False):
        out = np.asarray(obj).view(np.ndarray)
        return out[()] if return_scalar else out

    def __reduce__(self):   # pickles and copies as the plain array it holds
        return np.asarray(self).view(np.ndarray).copy().__reduce__()

    def __repr__(self):
        return repr(self.view(np.ndarray))

    def __str__(self):
        return str(self.view(np.ndarray))


def stored(array, variable):
    """``array`` as the value held by ``variable`` (None stays None)."""
    if array is None:
        return None
    held = np.asarray(array).view(CallableValue)
    held._variable = variable
    return held


class ValueSlot:
    """The ``value`` attribute of a compat variable: stores a :class:`CallableValue`."""

    def __get__(self, variable, owner=None):
        if variable is None:
            return self
        return session_values.read(variable)

    def __set__(self, variable, array):
        held = stored(array, variable)
        if "_held_value" not in variable.__dict__ or not session_values.write(variable, held):
            variable.__dict__["_held_value"] = held   # (made, or set outside any session)
