"""Arguments of a compiled evaluator: the checks and conversions of the Python path.

Values become what the kernel takes (0-d: a Python scalar; others: a writable
C-contiguous array of the input's dtype) or a clear error naming the argument.
Only arguments the machine code does not take as they are come here
(``lower.fastcall``).

Imports numpy, ``errors`` and ``values``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentCountError, ArgumentError, ShapeError
from ..values import cast_value, fits


def check_count(values, names, what):
    """Refuse a call with other than one value per input (``names``)."""
    if len(values) != len(names):
        raise ArgumentCountError(f"{what} takes {len(names)} inputs ({', '.join(names)}), "
                                 f"got {len(values)}")


def coerce(args, inputs, names):
    """The arguments as the kernel takes them, or a clear error naming the argument."""
    check_count(args, names, "the compiled function")
    out = []
    # names from this compile (a cached module keeps the names of the first one)
    for k, (value, (_, dtype, shape), name) in enumerate(zip(args, inputs, names)):
        arr = real_array(value, f"input {k} ({name!r})")
        if not fits(arr.shape, shape):
            raise ShapeError(f"input {k} ({name!r}) must have shape {tuple(shape)}, got "
                             f"{arr.shape}")
        arr = cast_value(arr, dtype, f"input {k} ({name!r})", ArgumentError)
        out.append(arr.item() if not shape else np.require(arr, requirements=["C", "W"]))
    return out


def call_checked(kernel, inputs, names, args):
    """The call path for arguments the kernel does not take as they are."""
    return kernel(*coerce(args, inputs, names))


def real_array(value, what):
    """``value`` as an array of real numbers; complex, strings and objects are errors."""
    try:
        arr = np.asarray(value)
    except ValueError as exc:  # ragged lists
        raise ArgumentError(f"{what} is not an array of numbers: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise ArgumentError(f"{what} must be real numbers, got dtype {arr.dtype}; pass "
                            "floats (np.real(z) for the real part of complex values)")
    return arr


class SizesDisagree(ShapeError):
    """Sizes the graph needs equal that the inputs give differently (raised by the
    compiled entry, and by ``batched`` before its loop runs)."""

    def __init__(self, message, *sizes):
        if sizes:  # (name, value) of the one size and the other (name "": a number)
            here = " and ".join(f"{name} = {value}" if name else str(value)
                                for name, value in zip(sizes[0::2], sizes[1::2]))
            message = f"symgrad: {message}, here {here}; pass arrays whose sizes agree"
        super().__init__(message)   # one argument: the message (so that it pickles)
