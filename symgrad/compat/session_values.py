"""Which session's values a compat variable's ``value`` means: each TF1 session holds
its own variable values.

In TF1 a second ``tf.Session()`` on the same graph starts with every variable
uninitialised, and what one session assigns is not seen by another; closing a
session drops its values.  A compat variable's ``value`` attribute
(``variable_value.ValueSlot``) therefore reads and writes the store of one session,
the *holder* (:func:`holder`):

1. the session running now in this thread (``Session.run`` acts inside
   :func:`acting`; so do ``Variable.load`` and ``Saver.restore``);
2. else the innermost default session of the variable's graph (``with sess:``,
   ``sess.as_default()``, ``tf.InteractiveSession``);
3. else the open session that last wrote the variable (a program with one session
   reads its values from plain Python, as before);
4. else none: the value the variable was made with (the graph's own).

Imports the standard library and ``compat.state``.

>>> class FakeSession:
...     graph, _closed = "g", False
>>> class FakeVariable:
...     graph = "g"
>>> s = FakeSession()
>>> holder(FakeVariable()) is None
True
>>> with acting(s):
...     holder(FakeVariable()) is s
True
"""
from __future__ import annotations

import contextlib
import threading
import weakref

from .state import DEFAULT_SESSIONS

_LOCAL = threading.local()


def _stack():
    stack = getattr(_LOCAL, "stack", None)
    if stack is None:
        stack = _LOCAL.stack = []
    return stack


@contextlib.contextmanager
def acting(session):
    """Inside the block, variables of ``session``'s graph read and write its values."""
    stack = _stack()
    stack.append(session)
    try:
        yield session
    finally:
        stack.pop()


def holder(variable):
    """The session whose values ``variable.value`` means now (see the module doc), or
    None for the graph's own value."""
    graph = variable.graph
    for s in reversed(_stack()):
        if s.graph is graph:
            return s
    for s in reversed(DEFAULT_SESSIONS):
        if s.graph is graph and not s._closed:
            return s
    return _writer(variable)


def _writer(variable):
    """The open session that last wrote ``variable``, or None."""
    ref = getattr(variable, "__dict__", {}).get("_writer")
    s = ref() if ref is not None else None
    return s if s is not None and not s._closed else None


def read(variable):
    """``variable``'s value in its holder's store, else the graph's own value."""
    stack = getattr(_LOCAL, "stack", None)
    s = stack[-1] if stack else None   # (the running session: most reads, at once)
    if s is None or s.graph is not variable.graph:
        s = holder(variable)
    found = None if s is None else s._values.get(variable)
    return variable.__dict__.get("_held_value") if found is None else found


def write(variable, array):
    """Store ``array`` in the holder's values; False when there is no holder (the
    caller keeps it as the graph's value)."""
    s = holder(variable)
    if s is None:
        return False
    s._values[variable] = array
    variable.__dict__["_writer"] = weakref.ref(s)
    return True


def held_elsewhere(variable, session):
    """``variable``'s value where it was last set (an open session other than
    ``session``), else the graph's own value."""
    s = _writer(variable)
    if s is not None and s is not session:
        found = s._values.get(variable)
        if found is not None:
            return found
    return variable.__dict__.get("_held_value")
