"""``f(x)`` with no Python code between the caller and the machine code.

Calling an evaluator runs a Numba dispatcher directly: each evaluator gets its
own class whose ``__call__`` is a *second* dispatcher over the module's compiled
``jit`` (the same machine code, no new compile).  Numba's C dispatch types the
arguments; when they fit the compiled signature exactly (C-contiguous writable
arrays of the input's dtype, scalars for 0-d inputs) the machine code runs and
boxes the outputs into their structure (``lower.boxing``).  Anything else -- lists,
other dtypes or layouts, a float fed to an integer input, a missing argument --
does not match, and Numba asks the dispatcher to compile; this one answers with
the evaluator's Python path instead (checks, conversions, clear errors), so no
machine code is ever built for odd arguments.

Departure: more positional arguments than inputs, or an unknown keyword, is
Numba's ``TypeError`` (``too many arguments: expected 1, got 2``, ``some keyword
arguments unexpected``), raised before any Python code runs.  The Python path's
count error (and the numpy tier's, before the machine code is in) is an
``ArgumentCountError``, a ``TypeError`` too: ``except TypeError`` catches either.

Imports numba (only when an evaluator is built).
"""
from __future__ import annotations

from typing import Any, Callable


class _Missing:
    """The default of every parameter of the entry: a missing argument."""

    def __repr__(self):
        return "<missing>"


MISSING = _Missing()


def entry_dispatcher(jit: Any, count: int, slow: Callable) -> Any:
    """A dispatcher over ``jit``'s machine code that hands unmatched calls to ``slow``.

    Args:
        jit: the module's ``@njit`` dispatcher (explicit signature, compiled).
        count: how many inputs it takes.
        slow: ``slow(args)`` evaluates with Python-side checks and conversions;
            ``args`` are the caller's positional arguments (missing ones dropped).
    """
    from numba.core.dispatcher import OmittedArg
    from numba.core.registry import CPUDispatcher

    namespace = {"MISSING": MISSING}
    params = ", ".join(f"a{k}=MISSING" for k in range(count))
    exec(f"def entry({params}):\n    pass\n", namespace)  # only its signature is used
    entry = CPUDispatcher(namespace["entry"], targetoptions=dict(jit.targetoptions))
    # Registered with the C dispatch only: not in ``entry.overloads``, whose entries a
    # collected dispatcher unregisters from Numba's target context (``jit`` still needs
    # them there for @njit callers).
    entry._symgrad_kernels = list(jit.overloads.values())   # keeps the entry points alive
    for result in entry._symgrad_kernels:
        entry._insert([a._code for a in result.signature.args], result.entry_point,
                      result.objectmode)

    def unmatched(*args):   # Numba has folded keywords and defaults into args
        return slow([a for a in args if not isinstance(a, OmittedArg)])

    # Numba calls this (and then what it returns) for arguments no signature fits.
    entry._compile_for_args = lambda *args, **kwargs: unmatched
    return entry


def with_call(obj: Any, call: Any) -> None:
    """Give ``obj`` a class of its own whose ``__call__`` is ``call`` (a C-level callable).

    Python looks ``__call__`` up on the type, so this is the one way to make
    ``obj(...)`` run ``call`` with no Python frame in between.
    """
    base = getattr(type(obj), "_fast_base", type(obj))
    obj.__class__ = type(base.__name__, (base,), {
        "__call__": staticmethod(call), "__module__": base.__module__,
        "__qualname__": base.__qualname__, "__doc__": base.__doc__, "_fast_base": base})
