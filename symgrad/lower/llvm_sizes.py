"""The emitter's sizes: ints, or values read from the input arrays at call time.

A mixin of ``lower.llvm``'s emitter.  Each size symbol of the Program is read from
an input array's shape (``program.sizes``); every size expression the Program
uses is computed once, at the kernel's entry, so the values dominate every loop
and LLVM hoists them.  Expressions are sums and products of symbols and ints
(``lower.sized.check_sizes``).

Imports llvmlite, numba and graph.

>>> SizeValues.iv.__doc__.split(":")[0]
'An i64 LLVM value for a size'
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils

from ..graph import Dim

I64 = ir.IntType(64)


class SizeValues:
    """Mixin: ``iv(size)`` for ints and Dims, after ``read_sizes`` at the entry."""

    def read_sizes(self, sig, args):
        """Read each size symbol from its input array's shape, then compute every size
        expression the program uses once, here at the entry (they dominate all loops)."""
        self.size_of = {}
        for name, k, axis in self.p.sizes:
            ary = self.context.make_array(sig.args[k])(self.context, self.b, args[k])
            shape = cgutils.unpack_tuple(self.b, ary.shape, sig.args[k].ndim)
            self.size_of[name] = shape[axis]
        self.sizes = {}
        for expr in self.p.size_exprs():
            self.sizes[expr] = self.size_expr(expr)

    def size_expr(self, expr):
        if expr.is_Integer:
            return ir.Constant(I64, int(expr))
        if expr.is_Symbol:
            return self.size_of[expr.name]
        if expr.is_Add or expr.is_Mul:
            parts = [self.size_expr(a) for a in expr.args]
            acc = parts[0]
            for p in parts[1:]:
                acc = self.b.add(acc, p) if expr.is_Add else self.b.mul(acc, p)
            return acc
        if expr.is_Pow and expr.exp.is_Integer and expr.exp > 0:
            base = self.size_expr(expr.base)
            acc = base
            for _ in range(int(expr.exp) - 1):
                acc = self.b.mul(acc, base)
            return acc
        raise NotImplementedError(f"size expression {expr} (lowering keeps sizes polynomial)")

    def iv(self, v):
        """An i64 LLVM value for a size: a constant, or one computed at the entry."""
        return self.sizes[v.expr] if isinstance(v, Dim) else ir.Constant(I64, v)

    def block_boundary(self):
        """End the current basic block with a branch LLVM cannot fold away.

        Instruction selection and the schedulers work per basic block and grow
        faster than linearly with its size; cutting long straight-line code into
        blocks of ~BLOCK_SIZE instructions keeps compile time linear.  The branch
        costs one register read and a predictable branch at run time.
        """
        # An empty inline-asm "call" yields a value LLVM cannot know, and the cold
        # block's empty asm has a side effect, so the diamond survives optimisation.
        # Either path does nothing; the asm text is empty, so it suits every target.
        value = self.b.asm(ir.FunctionType(I64, []), "", "=r", [], True)  # a 64-bit register
        cold = self.b.append_basic_block("chunk.cold")
        after = self.b.append_basic_block("chunk.next")
        self.b.cbranch(self.b.icmp_unsigned("!=", value, ir.Constant(I64, 0)), cold, after)
        self.b.position_at_end(cold)
        self.b.asm(ir.FunctionType(ir.VoidType(), []), "", "", [], True)
        self.b.branch(after)
        self.b.position_at_end(after)

