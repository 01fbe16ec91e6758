"""Activation functions of ``tf.nn`` that are piecewise: relu6, elu, selu, leaky_relu.

Each is an elementwise rule whose derivative at the kink is TF's (its kernels
decide by a strict comparison, noted per op); the rest is ``sympy.diff``.

SEMANTICS (TF's gradient kernels at the kinks):

- relu6: 1 where 0 < x < 6, else 0 (0 at x = 0 and at x = 6).
- elu: 1 where x >= 0 (EluGrad tests ``y < 0``), exp(x) below.
- selu: scale where x >= 0 (SeluGrad tests ``y < 0``), scale*alpha*exp(x) below.
- leaky_relu: 1 where x > 0, alpha where x <= 0 (LeakyReluGrad tests ``x > 0``).

>>> import sympy
>>> x = sympy.Symbol("x", real=True)
>>> REGISTRY["relu6"].rule(x)
Min(6, Max(0, x))
"""
from __future__ import annotations

import sympy

from .base import REGISTRY, Example, promote, register
from .elementwise import ElementwiseOp

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_WIDE = [Example((7,), domain=(-3.0, 8.0)), Example((2, 3))]


def _relu6_partials(x):
    return [sympy.Piecewise((1, sympy.And(x > 0, x < 6)), (0, True))]


def _elu(x):
    return sympy.Piecewise((x, x >= 0), (sympy.exp(x) - 1, True))


def _selu(x):
    a, s = sympy.Float(SELU_ALPHA, 30), sympy.Float(SELU_SCALE, 30)
    return sympy.Piecewise((s * x, x >= 0), (s * a * (sympy.exp(x) - 1), True))


def _leaky(x, alpha):
    return sympy.Piecewise((x, x > 0), (sympy.Float(alpha) * x, True))


register(ElementwiseOp("relu6", lambda x: sympy.Min(sympy.Max(x, 0), 6), nargs=1,
                       partials=_relu6_partials, dtype=promote, examples=_WIDE,
                       doc="min(max(x, 0), 6); gradient 1 where 0 < x < 6 (TF), else 0"))
register(ElementwiseOp("elu", _elu, nargs=1, examples=_WIDE,
                       doc="x where x >= 0, exp(x) - 1 below; gradient 1 at 0 (TF)"))
register(ElementwiseOp("selu", _selu, nargs=1, examples=_WIDE,
                       doc="scale * elu with alpha (self-normalising); gradient scale at 0 (TF)"))
register(ElementwiseOp("leaky_relu", _leaky, nargs=1,
                       examples=[Example((7,), alpha=0.2), Example((2, 3), alpha=0.01)],
                       doc="x where x > 0, alpha * x elsewhere; gradient alpha at 0 (TF)"))

__all__ = ["REGISTRY", "SELU_ALPHA", "SELU_SCALE"]
