"""``Evaluator.jit``: the compiled kernel, callable from Python and from a user's
``@njit`` code, with a clear ``TypeError`` when an argument has the wrong kind.

The kernel (the module's ``jit``) has one fixed signature: 0-d inputs as scalars,
the others as writable C-contiguous arrays of the input's dtype.  Numba's own error
for anything else is a long ``TypingError`` that never says this; the entry point
checks the argument types while Numba types the user's code (an ``overload``) and
raises a ``TypeError`` naming the input, what it wants and how to convert.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np


def describe(numba_type: Any) -> str:
    """A Numba argument type in words (``list of int64``, ``float64 array (1-d, A)``)."""
    from numba import types
    if isinstance(numba_type, types.Array):
        layout = {"C": "C-contiguous", "F": "Fortran-ordered"}.get(numba_type.layout,
                                                                   "non-contiguous")
        ro = "read-only " if not numba_type.mutable else ""
        return f"{ro}{layout} {numba_type.dtype} array with {numba_type.ndim} dimension(s)"
    if isinstance(numba_type, (types.List, types.ListType)):
        return f"a list of {getattr(numba_type, 'dtype', '?')}"
    return str(numba_type)


def mismatch(arg_types: Sequence[Any], inputs: Sequence[tuple], names: Sequence[str]) -> str:
    """'' if ``arg_types`` (Numba types) fit the kernel's inputs, else what is wrong."""
    from numba import types
    from numba.np import numpy_support
    if len(arg_types) != len(inputs):
        return (f"f.jit takes {len(inputs)} argument(s) ({', '.join(names)}), got "
                f"{len(arg_types)}")
    for k, (ty, (_, dtype, shape), name) in enumerate(zip(arg_types, inputs, names)):
        dtype = np.dtype(dtype)
        if not shape:
            if not isinstance(ty, (types.Number, types.Boolean)):
                return (f"f.jit argument {k} ({name!r}) is 0-d: pass a scalar "
                        f"({dtype.name}), got {describe(ty)}")
            continue
        want = numpy_support.from_dtype(dtype)
        fits = (isinstance(ty, types.Array) and ty.dtype == want and ty.ndim == len(shape)
                and ty.layout == "C" and ty.mutable)
        if not fits:
            return (f"f.jit argument {k} ({name!r}) must be a writable C-contiguous "
                    f"{dtype.name} array of shape {tuple(shape)}, got {describe(ty)}; "
                    f"convert it with np.ascontiguousarray(value, dtype=np.{dtype.name}) "
                    "(outside @njit code, or call the evaluator itself, which converts)")
    return ""


def checked_jit(kernel: Any, inputs: Sequence[tuple], names: Sequence[str],
                tree: Any = None) -> Callable:
    """The kernel behind an argument check, for Python callers and ``@njit`` code alike.

    ``tree``: the structure the kernel boxes its result into (``lower.boxing``), or
    None for a kernel that returns the tuple; ``jit`` returns the tuple either way.
    """
    from numba import typeof
    from numba.extending import overload

    from .boxing import as_tuple
    from .structure import flattener

    as_flat = (lambda value: value) if tree is None else flattener(tree)

    def jit(*args):
        try:
            result = kernel(*args)
        except TypeError:
            problem = mismatch([typeof(a) for a in args], inputs, names)
            if problem:
                raise TypeError(problem) from None
            raise
        return as_flat(result)

    @overload(jit)
    def _typed(*args):
        problem = mismatch(args, inputs, names)
        if problem:
            raise TypeError(problem)
        return lambda *args: as_tuple(kernel(*args))

    setattr(jit, "kernel", kernel)   # the Numba dispatcher itself (``stats``, signatures)
    jit.__doc__ = (f"The compiled kernel of inputs ({', '.join(names)}): callable from "
                   "Python and from @njit code; returns a tuple of the non-None outputs.")
    return jit
