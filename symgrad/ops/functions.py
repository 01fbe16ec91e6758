"""SymPy functions SymPy lacks, and the numpy table that evaluates all of them.

``sigmoid``, ``softplus``, ``relu`` and ``trunc`` are SymPy ``Function``s with
TF's derivatives, so closed forms read ``sigmoid(x)*(1 - sigmoid(x))`` rather than
a tower of exponentials.  ``NUMPY_FUNCS`` maps every function name that can appear
in a rule to its numpy implementation (used by ``numeric``).

>>> import sympy
>>> x = sympy.Symbol("x", real=True)
>>> sympy.diff(softplus(x), x)
sigmoid(x)
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy
from sympy.codegen.cfunctions import expm1, log1p
from sympy.logic.boolalg import ITE, simplify_logic
from sympy.printing.numpy import NumPyPrinter

from . import gamma, select


class sigmoid(sympy.Function):
    """The logistic function 1 / (1 + exp(-x))."""

    is_real = True

    @classmethod
    def eval(cls, x):
        # Literal values only: x.is_zero on a sum asks SymPy's assumptions, which took
        # 150 ms per call on a 20-term sum (half the expansion of a logistic gradient).
        if x.is_Number and x.is_zero:
            return sympy.Rational(1, 2)
        if x is sympy.oo:
            return sympy.S.One
        if x is sympy.S.NegativeInfinity:
            return sympy.S.Zero

    def fdiff(self, argindex=1):
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _eval_rewrite_as_exp(self, x, **kwargs):
        return 1 / (1 + sympy.exp(-x))

    def _eval_evalf(self, prec):
        return (1 / (1 + sympy.exp(-self.args[0])))._eval_evalf(prec)


class softplus(sympy.Function):
    """log(1 + exp(x)), whose derivative is the sigmoid."""

    is_real = True

    @classmethod
    def eval(cls, x):
        if x.is_Number and x.is_zero:   # literal only, as sigmoid's
            return sympy.log(2)

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _eval_rewrite_as_log(self, x, **kwargs):
        return sympy.log(1 + sympy.exp(x))

    def _eval_evalf(self, prec):
        return sympy.log(1 + sympy.exp(self.args[0]))._eval_evalf(prec)


class relu(sympy.Function):
    """max(x, 0) with TF's derivative: 1 where x > 0, 0 elsewhere (0 at the kink)."""

    is_real = True

    @classmethod
    def eval(cls, x):
        if x.is_number and x.is_real:
            return sympy.Max(x, 0)

    def fdiff(self, argindex=1):
        return sympy.Heaviside(self.args[0], 0)

    def _eval_rewrite_as_Max(self, x, **kwargs):
        return sympy.Max(x, 0)


class trunc(sympy.Function):
    """Conversion to an integer by truncation toward zero (numpy's astype(int))."""

    @classmethod
    def eval(cls, x):
        if x.is_number and x.is_real:
            return sympy.Integer(int(x))

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class rint(sympy.Function):
    """Rounding to the nearest integer, ties to even (numpy's rint, TF's round)."""

    is_real = True

    @classmethod
    def eval(cls, x):
        if x.is_Number and x.is_finite:
            return sympy.Integer(round(x))  # Python's round: ties to even

    def fdiff(self, argindex=1):
        return sympy.S.Zero


def _np_sigmoid(x):
    # 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below: neither overflows
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.result_type(x, np.float64))
    e = np.exp(-np.abs(x))
    d = 1 + e
    if x.ndim == 0:
        return 1 / d if x >= 0 else e / d
    out = np.divide(1, d)
    np.divide(e, d, out=out, where=~(x >= 0))   # (nan stays nan: e / d is nan)
    return out


def _np_heaviside(x, h0=0.5):
    # 0 for nan (np.heaviside gives nan): the derivative of relu is "1 where x > 0", a
    # mask, as in TF's ReluGrad.  Made from comparisons: np.heaviside and a where over
    # a random mask cost ~25x as much (10 ms for a conv layer's 1.25 million values)
    x = np.asarray(x)
    if x.dtype.kind != "f" or np.ndim(h0) != 0:
        return np.heaviside(np.where(x != x, -1, x), h0)
    out = np.array(x > 0, dtype=np.heaviside(np.zeros((), x.dtype), h0).dtype)
    if h0 != 0:
        out[x == 0] = h0
    return out


_vec_erf = np.vectorize(math.erf, otypes=[float])


def _np_erf(x):
    return _vec_erf(np.asarray(x, dtype=float))


def _np_zero(*args):
    return np.zeros(np.broadcast(*[np.asarray(a) for a in args]).shape)


NUMPY_FUNCS = {
    "where": select.where,   # (a Piecewise is printed as nested where's)
    "sigmoid": _np_sigmoid,
    "softplus": lambda x: np.logaddexp(0, x),
    "relu": lambda x: np.maximum(x, 0),
    "trunc": lambda x: np.trunc(x),
    "rint": np.rint,
    "erf": _np_erf,
    "erfc": gamma.erfc,
    "loggamma": gamma.lgamma,
    "polygamma": gamma.polygamma,
    "expm1": np.expm1,
    "log1p": np.log1p,
    "Heaviside": _np_heaviside,
    "DiracDelta": _np_zero,  # d/dx of a step is 0 away from the kink, and TF says 0 there too
}


class _NumpyText(NumPyPrinter):
    """lambdify's numpy text, a Piecewise as nested ``where``s: the first piece whose
    condition holds, as ``select`` gives it, in a tenth of the time (``select`` of one
    condition over a (32, 16) array took ~30 us, most of an LSTM cell's backward step)."""

    def _print_Piecewise(self, expr):
        where = self._module_format(self._module + ".where")
        *pieces, (value, cond) = expr.args
        text = self._print(value)
        if cond is not sympy.true:   # no piece holds: nan, as select's default
            text = f"{where}({self._condition(cond)}, {text}, {self._print(sympy.nan)})"
        for value, cond in reversed(pieces):
            text = f"{where}({self._condition(cond)}, {self._print(value)}, {text})"
        return text

    def _condition(self, cond):
        # (NumPyPrinter's rule: an if-then-else inside a condition is simplified first)
        return self._print(simplify_logic(cond) if cond.has(ITE) else cond)


@functools.lru_cache(maxsize=4096)
def numeric(expr, symbols):
    """A numpy function of ``symbols`` computing ``expr`` (cached per expression)."""
    printer = _NumpyText({"fully_qualified_modules": False, "inline": True,
                          "allow_unknown_functions": True,
                          "user_functions": {name: name for name in NUMPY_FUNCS}})
    return sympy.lambdify(symbols, expr, modules=[NUMPY_FUNCS, "numpy"], printer=printer)


__all__ = ["sigmoid", "softplus", "relu", "trunc", "rint", "expm1", "log1p", "NUMPY_FUNCS", "numeric"]
