"""SymPy scalar expressions -> a tiny SSA instruction list (and back to text).

A *body* is a tuple of instructions; instruction ``k`` is a tuple
``(opcode, *operands)`` whose integer operands name earlier instructions, and the
last instruction is the result.  Every value is a double (booleans are 0.0/1.0),
so the LLVM emitter needs one type only.  Opcodes:

``arg k`` (the k-th source), ``const hex`` (``float.hex``), ``add sub mul div``,
``neg``, ``call name a...`` (a function of Python's ``math`` module, lowered by
Numba's own context), ``max min`` (numpy's: NaN propagates), ``lt le gt ge eq ne``
(numpy's comparisons, NaN compares false except ``ne``), ``select c a b``,
``and or not``, ``id a`` (a copy: the result must be the last instruction),
``strong g v`` (0 where g == 0, else v: the strong-zero product's guard).

Translation memoises sub-expressions, so a body is CSE'd for free.  Functions
that Python's ``math`` lacks (sign, Heaviside, sigmoid, softplus, relu, Max,
Piecewise...) are expanded into these opcodes with numpy's values at the edges
(``np.sign(nan)`` is nan, ``np.heaviside(0, h0)`` is h0, Piecewise without a
true branch is nan), except that Heaviside of nan is 0: a mask, as TF's rules make
it.  This module dispatches on SymPy *function classes* (the language of the
rules), never on op names.

Imports sympy, ``symgrad.errors``, ``symgrad.ops.functions`` and ``lower.gamma`` (the
polygamma functions' expansion).

>>> import sympy
>>> x = sympy.Symbol("_x0", real=True)
>>> body = translate(sympy.sin(x) * x, 1)
>>> render(body, ["a"])
['v1 = math.sin(a)', 'v2 = a * v1']
"""
from __future__ import annotations

import functools
import math

import sympy

from ..errors import CompileError
from ..ops.bitwise import bitwise_and, bitwise_or, bitwise_xor
from ..ops.functions import relu, rint, sigmoid, softplus, trunc
from .gamma import emit_polygamma

MATH_FUNCS = {
    sympy.sin: "sin", sympy.cos: "cos", sympy.tan: "tan", sympy.asin: "asin",
    sympy.acos: "acos", sympy.atan: "atan", sympy.sinh: "sinh", sympy.cosh: "cosh",
    sympy.tanh: "tanh", sympy.asinh: "asinh", sympy.acosh: "acosh", sympy.atanh: "atanh",
    sympy.exp: "exp", sympy.erf: "erf", sympy.erfc: "erfc", sympy.floor: "floor",
    sympy.ceiling: "ceil", sympy.Abs: "fabs", trunc: "trunc", sympy.gamma: "gamma",
    sympy.loggamma: "lgamma", sympy.atan2: "atan2", rint: "rint",
    # (not in ``math``: llvm_scalar and plan give them as integer instructions)
    bitwise_and: "bitwise_and", bitwise_or: "bitwise_or", bitwise_xor: "bitwise_xor",
}
try:  # the functions' SymPy classes, as the rules use them
    from sympy.codegen.cfunctions import expm1, log1p
    MATH_FUNCS.update({expm1: "expm1", log1p: "log1p"})
except ImportError:  # pragma: no cover
    pass
RELATIONS = {sympy.StrictLessThan: "lt", sympy.LessThan: "le", sympy.StrictGreaterThan: "gt",
             sympy.GreaterThan: "ge", sympy.Equality: "eq", sympy.Unequality: "ne"}
BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


@functools.lru_cache(maxsize=8192)
def translate(expr, nargs, strong=None):
    """The body computing ``expr`` over the canonical argument symbols ``_x0..``/``_c0..``.

    Args:
        expr: a SymPy expression (or boolean) in the symbols of ``ops.arg_symbols``.
        nargs: number of arguments.
        strong: index of a strong-zero argument: where it is exactly 0 the result is 0.
    Returns:
        a tuple of instructions.
    Raises:
        CompileError: a SymPy construct without a lowering.
    """
    t = _Translator(nargs)
    out = t.value(sympy.sympify(expr))
    if strong is not None:  # one instruction: 0 where the cotangent is exactly 0
        out = t.emit("strong", t.arg(strong), out)
    t.emit_result(out)
    return tuple(t.body)


class _Translator:
    """Builds one body; ``memo`` maps SymPy sub-expressions to instruction indices."""

    def __init__(self, nargs):
        self.body, self.memo, self.nargs = [], {}, nargs

    def emit(self, *instr):
        key = ("i",) + instr
        if key not in self.memo:
            self.body.append(instr)
            self.memo[key] = len(self.body) - 1
        return self.memo[key]

    def emit_result(self, index):
        if index != len(self.body) - 1:  # the result must be the last instruction
            self.body.append(("id", index))

    def arg(self, k):
        return self.emit("arg", k)

    def const(self, value):
        return self.emit("const", float(value).hex())

    def value(self, e):
        if e in self.memo:
            return self.memo[e]
        out = self._value(e)
        self.memo[e] = out
        return out

    def _value(self, e):
        if isinstance(e, sympy.Symbol):
            return self._symbol(e)
        if e is sympy.true or e is sympy.false:
            return self.const(1.0 if e is sympy.true else 0.0)
        if e.is_Number or e.is_NumberSymbol or e in (sympy.zoo, sympy.nan):
            return self.const(_number(e))
        if isinstance(e, sympy.Add):
            return self._add(e)
        if isinstance(e, sympy.Mul):
            return self._mul(e)
        if isinstance(e, sympy.Pow):
            return self._pow(e.base, e.exp)
        for cls, method in _HANDLERS:
            if isinstance(e, cls):
                return method(self, e)
        if type(e) in MATH_FUNCS or e.func in MATH_FUNCS:
            return self.emit("call", MATH_FUNCS[e.func], *[self.value(a) for a in e.args])
        raise CompileError(f"cannot compile the SymPy expression {str(e)[:80]!r} "
                           f"({type(e).__name__}); no lowering for it")

    def _symbol(self, e):
        name = e.name
        if name[:2] in ("_x", "_c") and name[2:].isdigit() and int(name[2:]) < self.nargs:
            return self.arg(int(name[2:]))
        raise CompileError(f"free symbol {name!r} in a compiled expression; only the "
                           "op's argument symbols may appear")

    def _add(self, e):
        pos, neg = [], []
        for term in e.as_ordered_terms():
            coeff, rest = term.as_coeff_Mul()
            (neg if coeff.is_negative else pos).append(-term if coeff.is_negative else term)
        acc = self.value(pos[0]) if pos else None
        for term in pos[1:]:
            acc = self.emit("add", acc, self.value(term))
        for term in neg:
            acc = self.emit("neg", self.value(term)) if acc is None else \
                self.emit("sub", acc, self.value(term))
        return acc

    def _mul(self, e):
        coeff, rest = e.as_coeff_Mul()
        if coeff == -1:
            return self.emit("neg", self.value(rest))
        num, den = [], []
        for f in e.args:
            b, x = f.as_base_exp()
            if x.is_Float and float(x) == -0.5:
                num.append(self._pow(b, x))  # numpy's power, not 1/sqrt, at -0.0
            elif x.is_number and x.is_negative and not f.is_Number:
                den.append(self._pow(b, -x))
            else:
                num.append(self.value(f))
        acc = num[0] if num else self.const(1.0)
        for v in num[1:]:
            acc = self.emit("mul", acc, v)
        for v in den:
            acc = self.emit("div", acc, v)
        return acc

    def _pow(self, base, exp):
        if exp.is_number and float(exp) == 0.5:  # numpy's power(x, 0.5) is sqrt(x) too
            return self.emit("call", "sqrt", self.value(base))
        if exp.is_number and float(exp) == -0.5:
            return self._reciprocal_sqrt(self.value(base), exp.is_Float)
        if exp.is_Integer and abs(int(exp)) <= 16:
            n = int(exp)
            if n == 0:
                return self.const(1.0)  # numpy: x**0 is 1 even for nan and inf
            out = self._power_by_squaring(self.value(base), abs(n))
            return self.emit("div", self.const(1.0), out) if n < 0 else out
        if base is sympy.E:
            return self.emit("call", "exp", self.value(exp))
        return self.emit("call", "pow", self.value(base), self.value(exp))

    def _reciprocal_sqrt(self, v, as_power):
        # x**-0.5 as numpy evaluates it: SymPy's 1/sqrt(x) of a rule as 1/np.sqrt(x)
        # (the printer's choice: -inf at -0.0), a folded float exponent as
        # np.power(x, -0.5): +inf at -0.0 (x + 0.0 turns -0.0 into +0.0) and 0 at -inf.
        if not as_power:
            return self.emit("div", self.const(1.0), self.emit("call", "sqrt", v))
        root = self.emit("call", "sqrt", self.emit("add", v, self.const(0.0)))
        return self.emit("select", self.emit("eq", v, self.const(-math.inf)), self.const(0.0),
                         self.emit("div", self.const(1.0), root))

    def _power_by_squaring(self, v, n):
        result, square = None, v
        while n:
            if n & 1:
                result = square if result is None else self.emit("mul", result, square)
            n >>= 1
            if n:
                square = self.emit("mul", square, square)
        return result

    def _log(self, e):
        v = self.emit("call", "log", self.value(e.args[0]))
        if len(e.args) == 2:
            v = self.emit("div", v, self.emit("call", "log", self.value(e.args[1])))
        return v

    def _sign(self, e):
        # np.sign: -1, 0, 1, and nan for nan.
        x, zero = self.value(e.args[0]), self.const(0.0)
        inner = self.emit("select", self.emit("eq", x, zero), zero, x)
        neg = self.emit("select", self.emit("lt", x, zero), self.const(-1.0), inner)
        return self.emit("select", self.emit("gt", x, zero), self.const(1.0), neg)

    def _heaviside(self, e):
        # 0 below, h0 at 0, 1 above, and 0 for nan: a mask "where x > 0" (TF's rules
        # for relu and its kin compare; np.heaviside would give nan)
        x, zero = self.value(e.args[0]), self.const(0.0)
        h0 = self.value(e.args[1]) if len(e.args) > 1 else self.const(0.5)
        at_zero = self.emit("select", self.emit("eq", x, zero), h0, zero)
        return self.emit("select", self.emit("gt", x, zero), self.const(1.0), at_zero)

    def _sigmoid(self, e):
        # 1/(1 + exp(-x)) without overflow: e = exp(-|x|) (as the reference evaluator).
        x, one = self.value(e.args[0]), self.const(1.0)
        ex = self.emit("call", "exp", self.emit("neg", self.emit("call", "fabs", x)))
        den = self.emit("add", one, ex)
        return self.emit("select", self.emit("ge", x, self.const(0.0)),
                         self.emit("div", one, den), self.emit("div", ex, den))

    def _softplus(self, e):
        # np.logaddexp(0, x): log 2 at 0, x + log1p(exp(-x)) above, log1p(exp(x)) below.
        x, zero = self.value(e.args[0]), self.const(0.0)
        up = self.emit("add", x, self.emit("call", "log1p", self.emit(
            "call", "exp", self.emit("neg", x))))
        down = self.emit("call", "log1p", self.emit("call", "exp", x))
        rest = self.emit("select", self.emit("gt", x, zero), up,
                         self.emit("select", self.emit("le", x, zero), down, x))
        return self.emit("select", self.emit("eq", x, zero), self.const(math.log(2.0)), rest)

    def _relu(self, e):
        return self.emit("max", self.value(e.args[0]), self.const(0.0))

    def _fold(self, name, exprs):
        """``name`` applied left to right over the values of ``exprs``."""
        args = [self.value(a) for a in exprs]
        acc = args[0]
        for v in args[1:]:
            acc = self.emit(name, acc, v)
        return acc

    def _extreme(self, e):
        return self._fold("max" if isinstance(e, sympy.Max) else "min", e.args)

    def _piecewise(self, e):
        pieces = list(e.args)
        acc = self.const(math.nan)  # SymPy: no condition true -> undefined
        for expr, cond in reversed(pieces):
            if cond is sympy.true:
                acc = self.value(expr)
            else:
                acc = self.emit("select", self.value(cond), self.value(expr), acc)
        return acc

    def _relation(self, e):
        return self.emit(RELATIONS[type(e)], self.value(e.lhs), self.value(e.rhs))

    def _logic(self, e):
        if isinstance(e, sympy.Not):
            return self.emit("not", self.value(e.args[0]))
        return self._fold("and" if isinstance(e, sympy.And) else "or", e.args)

    def _polygamma(self, e):
        n = e.args[0]
        if not (n.is_Integer and n >= 0):
            raise CompileError(f"polygamma(n, x) compiles for a non-negative integer n, got "
                               f"{n}")
        return emit_polygamma(self, int(n), self.value(e.args[1]))

    def _zero(self, e):
        # d/dx of a step is 0 away from the kink, and TF says 0 there too.
        return self.const(0.0)


_HANDLERS = [(sympy.log, _Translator._log), (sympy.sign, _Translator._sign),
             (sympy.Heaviside, _Translator._heaviside), (sigmoid, _Translator._sigmoid),
             (softplus, _Translator._softplus), (relu, _Translator._relu),
             (sympy.Max, _Translator._extreme), (sympy.Min, _Translator._extreme),
             (sympy.Piecewise, _Translator._piecewise),
             (sympy.core.relational.Relational, _Translator._relation),
             (sympy.And, _Translator._logic), (sympy.Or, _Translator._logic),
             (sympy.Not, _Translator._logic), (sympy.DiracDelta, _Translator._zero),
             (sympy.polygamma, _Translator._polygamma)]


def _number(e):
    if e is sympy.zoo or e is sympy.nan:
        return math.nan
    if e is sympy.oo:
        return math.inf
    if e is sympy.S.NegativeInfinity:
        return -math.inf
    return float(e)


def render(body, args, prefix="v"):
    """Readable Python lines for ``body`` over source names ``args`` (last line: result)."""
    names, lines = [], []
    for k, (op, *ops) in enumerate(body):
        if op == "arg":
            names.append(args[ops[0]])
            continue
        if op == "const":
            names.append(repr(float.fromhex(ops[0])))
            continue
        if op == "dim":  # a size known at call time
            names.append(f"float({ops[0]})")
            continue
        v = [names[i] for i in ops if isinstance(i, int)]
        if op in BINARY:
            text = f"{v[0]} {BINARY[op]} {v[1]}"
        elif op in COMPARE:
            text = f"float({v[0]} {COMPARE[op]} {v[1]})"
        elif op == "call":
            text = f"math.{ops[0]}({', '.join(v)})"
        elif op == "select":
            text = f"{v[1]} if {v[0]} else {v[2]}"
        elif op == "strong":
            text = f"0.0 if {v[0]} == 0.0 else {v[1]}"
        elif op == "id":
            text = v[0]
        elif op == "neg":
            text = f"-{v[0]}"
        elif op == "not":
            text = f"float(not {v[0]})"
        else:  # max, min, and, or
            text = f"np_{op}({', '.join(v)})"
        names.append(f"{prefix}{k}")
        lines.append(f"{prefix}{k} = {text}")
    if body[-1][0] in ("arg", "const", "dim"):
        lines.append(f"{prefix}{len(body) - 1} = {names[-1]}")
    return lines
