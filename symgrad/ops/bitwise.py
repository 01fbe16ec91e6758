"""Bitwise ops on integer tensors (TF's ``tf.bitwise``): and, or, xor, invert, shifts.

Integers only (the front ends check; ``compat.bitwise`` raises TF's TypeError), and no
gradient: an integer carries none.  The rules keep TF's results in the dtype:

- ``bitwise_and``/``or``/``xor`` are SymPy functions of this module (the value of two
  integers; unevaluated on symbols), lowered as integer instructions.
- ``invert(x)`` is ``-x - 1`` for signed integers and ``2**bits - 1 - x`` for unsigned.
- ``right_shift(x, y)`` is ``floor(x / 2**s)`` (arithmetic for signed x) and
  ``left_shift(x, y)`` is ``x * 2**s`` wrapped to the dtype's range (two's complement:
  ``int8`` 1 << 7 is -128), where ``s`` is y clamped to ``[0, bits - 1]``, as TF's
  kernels clamp the shift (``int8`` 1 << 9 is 1 << 7; a negative shift is 0).

Attributes ``bits`` (the dtype's width) and ``signed`` say which integers they are.

Imports numpy, SymPy and ``ops.base`` / ``ops.elementwise``.

>>> import numpy as np
>>> from symgrad.ops import REGISTRY
>>> REGISTRY["left_shift"].impl(np.int8([1, 3]), np.int8([7, 1]), bits=8, signed=True)
array([-128,    6], dtype=int8)
"""
from __future__ import annotations

import operator

import numpy as np
import sympy

from .base import Example, promote, register
from .elementwise import ElementwiseOp


class _Bitwise(sympy.Function):
    """A bitwise function of two integers: its value where both are integer numbers."""

    python = None   # the operator on Python ints

    @classmethod
    def eval(cls, x, y):
        # (a Float holding an integer counts: closed forms are evaluated at float values)
        if all(v.is_Number and v.is_finite and float(v).is_integer() for v in (x, y)):
            return sympy.Integer(cls.python(int(x), int(y)))

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class bitwise_and(_Bitwise):
    """x & y, bit by bit (two's complement)."""

    python = operator.and_


class bitwise_or(_Bitwise):
    """x | y, bit by bit (two's complement)."""

    python = operator.or_


class bitwise_xor(_Bitwise):
    """x ^ y, bit by bit (two's complement)."""

    python = operator.xor


def _clamped(y, bits):
    # TF's shift kernels clamp the shift to [0, bits - 1]
    return sympy.Min(sympy.Max(y, 0), bits - 1)


def _left_shift(x, y, bits, signed):
    v = x * 2 ** _clamped(y, bits)
    low = 2 ** (bits - 1) if signed else 0   # wrapped into [-low, 2**bits - low)
    return v - 2 ** bits * sympy.floor((v + low) / 2 ** bits)


def _right_shift(x, y, bits, signed):
    return sympy.floor(x / 2 ** _clamped(y, bits))


def _invert(x, bits, signed):
    return -x - 1 if signed else 2 ** bits - 1 - x


def _np_shift(shift):
    def run(x, y, bits, signed):
        return shift(x, np.clip(y, 0, bits - 1).astype(y.dtype))
    return run


def _np_invert(x, bits, signed):
    return np.invert(x)


_PAIRS = [Example(np.int32([-5, 3, 12, 100]), np.int32([1, 5, 10, 7])),
          Example(np.int64([[6], [-9]]), np.int64([3, 12, -1]))]
_SHIFTS = [Example(np.int8([1, -5, 100, 127, 1]), np.int8([7, 1, 6, 9, -1]), bits=8, signed=True),
           Example(np.int32([3, -100, 3]), np.int32([31, 3, 30]), bits=32, signed=True)]

for _fn, _np in [(bitwise_and, np.bitwise_and), (bitwise_or, np.bitwise_or),
                 (bitwise_xor, np.bitwise_xor)]:
    register(ElementwiseOp(_fn.__name__, _fn, nargs=2, numpy=_np, dtype=promote,
                           partials=lambda x, y: [None, None], examples=_PAIRS,
                           doc=f"{_fn.__doc__} Integers only; no gradient"))
register(ElementwiseOp("invert", _invert, nargs=1, numpy=_np_invert, dtype=promote,
                       partials=lambda x, bits, signed: [None],
                       examples=[Example(np.int16([0, 7, -128]), bits=16, signed=True)],
                       doc="~x: -x - 1 (signed), 2**bits - 1 - x (unsigned); no gradient"))
register(ElementwiseOp("left_shift", _left_shift, nargs=2, numpy=_np_shift(np.left_shift),
                       dtype=promote, partials=lambda x, y, bits, signed: [None, None],
                       examples=_SHIFTS,
                       doc="x << y wrapped to the dtype, y clamped to [0, bits - 1] (TF)"))
register(ElementwiseOp("right_shift", _right_shift, nargs=2, numpy=_np_shift(np.right_shift),
                       dtype=promote, partials=lambda x, y, bits, signed: [None, None],
                       examples=_SHIFTS,
                       doc="x >> y (arithmetic for signed x), y clamped to [0, bits - 1] (TF)"))
