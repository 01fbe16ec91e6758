"""Contractions (matmul, einsum) lowered to one loop nest: a mixin of the lowering.

A contraction is one statement whose loops run over the output's axes and the summed
ones, multiplying the inputs' elements and adding into the output element.  The loop
order (:meth:`ContractionLowering.contraction_order`) keeps each element's sum in one
order (same rounding) while choosing which axis runs innermost by the strides it
reads; a long contraction over constants may stream along an output row instead
(``lower.relayout``: ``streamed_row``, ``relaid``).

Imports graph, ops, ``lower.ir``, ``lower.scalar`` and ``lower.sized`` (``hint``).

>>> import symgrad as sg
>>> from symgrad.lower.program import lower_graph
>>> with sg.Graph().as_default():
...     a = sg.placeholder(shape=(2, 3), name="a")
...     p = lower_graph([a @ sg.constant([[1.0], [2.0], [3.0]])], [a])
>>> [s.dims for s in p.stmts]
[(2, 1, 3)]
"""
from __future__ import annotations

import numpy as np
import sympy

from ..graph import Dim, shape_size
from ..ops import arg_symbols
from .ir import ADD, ZERO, c_strides
from .scalar import translate
from .sized import hint


class ContractionLowering:
    """``contraction`` and its loop order, for :class:`lower.program._Lowering`."""

    def contraction(self, node):
        specs, out = node.opdef.subscripts([x.shape for x in node.inputs], **node.attrs)
        sizes = dict(zip(out, node.shape))
        summed = []
        for spec, x in zip(specs, node.inputs):
            for c, d in zip(spec, x.shape):
                if c is not None and c not in sizes:
                    sizes[c] = d
                    summed.append(c)
                elif c is not None and isinstance(sizes[c], Dim) and not isinstance(d, Dim):
                    sizes[c] = d  # a known size makes the faster loop
        for spec, x in zip(specs, node.inputs):
            for c, d in zip(spec, x.shape):
                if c is not None:
                    self.agree(d, sizes[c], node)
        letters = self.contraction_order(node, specs, list(out), summed)
        srcs = self.contraction_reads(node, specs, letters)
        streamed = letters[-1] in out if summed and out else False
        syms = arg_symbols([np.float64] * len(node.inputs))
        body = translate(sympy.Mul(*syms), len(syms))
        dims = tuple(sizes[c] for c in letters)
        row = self.streamed_row(node, srcs, dims, len(out)) if not streamed else None
        if row is not None:  # (lower.relayout)
            letters = [c for c in out if c != out[row]] + summed + [out[row]]
            srcs, dims, streamed = self.contraction_reads(node, specs, letters), \
                tuple(sizes[c] for c in letters), True
        if not streamed:
            return self.emit(node, dims, srcs, body, nout=len(out),
                             reduce=(ADD, 0.0.hex(), True))
        srcs = self.relaid(srcs, dims)
        dst = self.emit(node, node.shape, [], ZERO)
        own = dict(zip(out, c_strides(node.shape)))
        addr = ("aff", 0, tuple(own.get(c, 0) for c in letters))
        self.emit(node, dims, srcs, body, reduce=(ADD, 0.0.hex(), False), dst=dst, dst_addr=addr)
        return dst

    def contraction_order(self, node, specs, out, summed):
        """The loop order of a contraction: output axes, then summed axes (each element
        summed in a register), unless the innermost summed axis reads memory with a
        stride (a column, a transposed view read in place):

        - a small output (it stays in cache) goes innermost, the summed axes outermost:
          ``Xᵀg`` reads X row by row, once, instead of once per output element;
        - else, long strides (>= _STREAM_STRIDE) move the last output axis innermost if
          it reads memory more densely.  Measured: 2.5-3.5x faster at 64x64, but 2x
          slower at 32x32 (all in L1), hence the threshold.

        Either way each element still sums in the same order (same rounding)."""
        letters = out + summed
        if not (summed and out):
            return letters
        srcs = self.contraction_reads(node, specs, letters)
        inner_k = max(abs(hint(a[2][len(letters) - 1])) for _, a in srcs)
        inner_j = max([1] + [abs(hint(a[2][len(out) - 1])) for _, a in srcs])
        if inner_j < inner_k and hint(shape_size(node.shape)) <= _SMALL_OUTPUT:
            return summed + out
        if hint(node.shape[-1]) > 1 and inner_k >= _STREAM_STRIDE and inner_j < inner_k:
            return out[:-1] + summed + [out[-1]]
        return letters

    def contraction_reads(self, node, specs, letters):
        reads = []
        for spec, x in zip(specs, node.inputs):
            axis_of = {c: a for a, c in enumerate(spec) if c is not None}
            reads.append(self.read(x, [axis_of.get(c) for c in letters]))
        return reads


_STREAM_STRIDE = 64  # elements; see _Lowering.contraction_order
_SMALL_OUTPUT = 4096  # doubles (32 kB): an output that stays in the L1 cache
