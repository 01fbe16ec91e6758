"""The emitter's scalar instructions: one loop-IR instruction -> LLVM IR on doubles.

A mixin of ``lower.llvm``'s emitter (``lower.scalar`` makes the instructions).  Math
functions are lowered through Numba's own context (``context.get_function(math.sin,
...)``), so values match ``@njit`` code exactly; no instruction can trap (IEEE, numpy's
error model); fast-math flags only on request (``self.flags``).

Imports numba and llvmlite.

>>> sorted(_CMP)
['eq', 'ge', 'gt', 'le', 'lt']
"""
from __future__ import annotations

import functools
import math
import sys

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.typing import signature

F64 = ir.DoubleType()
_LLVM_UNARY = {"fabs": "llvm.fabs", "trunc": "llvm.trunc", "floor": "llvm.floor",
               "ceil": "llvm.ceil", "sqrt": "llvm.sqrt", "rint": "llvm.rint"}
SINCOS = sys.platform.startswith("linux")   # the C library has sincos (glibc, musl)
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "=="}
# bitwise calls on integers held in doubles: as 64-bit integers (exact below 2**53)
_BITWISE = {"bitwise_and": "and_", "bitwise_or": "or_", "bitwise_xor": "xor"}
I64 = ir.IntType(64)


class InstructionEmitter:
    """Mixin: ``run_body``/``instr`` over ``self.b`` (builder), ``self.flags``,
    ``self.flags_of`` (i1 flags behind 0.0/1.0 values), ``self.funcs`` (math calls)
    and ``self.iv`` (sizes, from ``SizeValues``)."""

    @functools.cached_property
    def calls(self):
        """Math calls made ahead (``(name, id(arg))`` -> ``(arg, result)``): the sine and
        cosine of a 0-d value, taken side by side where it is defined."""
        return {}

    def run_body(self, body, arg):
        vals = []
        for instr in body:
            vals.append(self.instr(instr, vals, arg))
        return vals[-1]

    def instr(self, instr, vals, arg):
        op, ops = instr[0], instr[1:]
        b, fl = self.b, self.flags
        if op == "arg":
            return arg(ops[0])
        if op == "const":
            return ir.Constant(F64, float.fromhex(ops[0]))
        if op == "dim":  # a size read at call time, as a double
            return b.sitofp(self.iv(ops[0]), F64)
        if op == "call":
            args = [vals[i] for i in ops[1:]]
            done = self.calls.get((ops[0], id(args[0])))
            if done is not None and done[0] is args[0]:   # (the same LLVM value)
                return done[1]
            return self.call(ops[0], args)
        v = [vals[i] for i in ops]
        if op == "add":
            return b.fadd(v[0], v[1], flags=fl)
        if op == "sub":
            return b.fsub(v[0], v[1], flags=fl)
        if op == "mul":
            return b.fmul(v[0], v[1], flags=fl)
        if op == "div":
            return b.fdiv(v[0], v[1], flags=fl)
        if op == "neg":
            return b.fneg(v[0], flags=fl)
        if op == "id":
            return v[0]
        if op in _CMP:
            return self.as_double(b.fcmp_ordered(_CMP[op], v[0], v[1]))
        if op == "ne":
            return self.as_double(b.fcmp_unordered("!=", v[0], v[1]))
        if op == "select":
            return b.select(self.truth(v[0]), v[1], v[2])
        if op == "strong":  # strong zero: where g is exactly 0 the result is 0 (even inf*0)
            zero = ir.Constant(F64, 0.0)
            return b.select(b.fcmp_ordered("==", v[0], zero), zero, v[1])
        if op in ("max", "min"):
            pick = b.fcmp_ordered(">=" if op == "max" else "<=", v[0], v[1])
            r = b.select(pick, v[0], v[1])
            return b.select(b.fcmp_unordered("uno", v[0], v[0]), v[0], r)  # NaN propagates
        if op in ("and", "or"):
            f = b.and_ if op == "and" else b.or_
            return self.as_double(f(self.truth(v[0]), self.truth(v[1])))
        if op == "not":
            return self.as_double(b.not_(self.truth(v[0])))
        raise ValueError(f"unknown instruction {instr!r}")

    def as_double(self, flag):
        """A boolean as 0.0/1.0, remembering the i1 so conditions use it directly."""
        v = self.b.uitofp(flag, F64)
        self.flags_of[id(v)] = (v, flag)
        return v

    def truth(self, v):
        known = self.flags_of.get(id(v))
        if known is not None and known[0] is v:
            return known[1]
        return self.b.fcmp_unordered("!=", v, ir.Constant(F64, 0.0))  # bool(nan) is True

    def sin_cos(self, v):
        """``sin(v)`` and ``cos(v)`` by one call of the C library's ``sincos`` (glibc,
        the one LLVM itself calls: it returns exactly ``sin`` and ``cos``), writing
        into one pair of stack slots per function.  Given ``sin`` and ``cos``, LLVM
        makes the same call but gives each call its own pair of slots and stores a
        zero into one first: the 1,000-step chain's frame was 7 KB of such slots (its
        forward sweep: 20 instructions a step, now 17; hand @njit's loop 12)."""
        if not SINCOS:
            return self.call("sin", [v]), self.call("cos", [v])
        ptr = F64.as_pointer()
        fn = cgutils.get_or_insert_function(
            self.b.module, ir.FunctionType(ir.VoidType(), [F64, ptr, ptr]), "sincos")
        slots = self.sincos_slots.get(self.b.function)
        if slots is None:   # (allocas go in the entry block: they dominate every use)
            slots = self.sincos_slots[self.b.function] = (
                cgutils.alloca_once(self.b, F64), cgutils.alloca_once(self.b, F64))
        self.b.call(fn, [v, *slots])
        return self.b.load(slots[0]), self.b.load(slots[1])

    @functools.cached_property
    def sincos_slots(self):
        """The ``sincos`` outputs of each function: (sine's slot, cosine's slot)."""
        return {}

    def call(self, name, args):
        if name in _BITWISE:
            ints = [self.b.fptosi(a, I64) for a in args]
            return self.b.sitofp(getattr(self.b, _BITWISE[name])(*ints), F64)
        if name in _LLVM_UNARY:
            fn = self.b.module.declare_intrinsic(_LLVM_UNARY[name], [F64])
            return self.b.call(fn, args)
        key = (name, len(args))
        if key not in self.funcs:
            sig = signature(types.float64, *([types.float64] * len(args)))
            self.funcs[key] = self.context.get_function(getattr(math, name), sig)
        return self.funcs[key](self.b, args)
