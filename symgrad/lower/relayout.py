"""Contractions streamed along an output axis, over constants laid out for it.

A contraction lowers in register order by default: each output element sums its
terms in a register, the summed axis innermost.  Those sums are chains of dependent
additions, one add's latency per term, and LLVM may not reorder them (no fastmath),
so a long sum runs at a few cycles per term: logistic regression's Hessian
``Xᵀ diag(w) X`` (50 x 50 outputs, 200 terms each) spent most of its time there.
Streamed, the last output axis goes innermost and every output row accumulates in
memory, one term per pass (``out[j] += a[j, k] * b[k]``): the inner loop is
independent across j and vectorises.  Each element still adds the same terms in
the same order from the same 0.0, so results are equal bit for bit.

That needs every operand to be read with stride 0 or 1 along that output axis.  A
baked constant read with another stride (``Xᵀ``, read across X's rows) is read from
a copy laid out in the loop order instead (:meth:`Relayout.relaid`); other operands
keep the register order.  Only sums of at least :data:`STREAM_MIN_SUM` terms into
rows of at least :data:`STREAM_MIN_ROW` elements (one AVX-512 vector) are streamed.

Imports numpy and graph only (a mixin of ``lower.program``'s lowering, which owns
``add_const`` and the program's constants).
"""
from __future__ import annotations

import numpy as np

from ..graph import is_static
from .ir import c_strides

STREAM_MIN_ROW = 8
STREAM_MIN_SUM = 16
RELAYOUT_MAX = 1 << 20  # elements of one laid-out copy of a constant

_F8 = np.dtype(np.float64)


class Relayout:
    """Mixin of the lowering: reads its ``program.consts``, adds with ``add_const``."""

    def streamed_row(self, node, srcs, dims, nout):
        """The output loop to stream the contraction of ``node`` along (read by ``srcs``
        in register order over loops ``dims``, outputs first), or None: the last output
        loop longer than 1 (trailing axes of size 1 are no row)."""
        if node.dtype != _F8 or nout == 0 or nout == len(dims) or not is_static(dims):
            return None
        row = max((j for j in range(nout) if dims[j] > 1), default=None)
        if row is None or dims[row] < STREAM_MIN_ROW or \
                int(np.prod(dims[nout:])) < STREAM_MIN_SUM:
            return None
        if all(addr[2][row] in (0, 1) or self._relayable(ref, addr, dims) for ref, addr in srcs):
            return row
        return None

    def _relayable(self, ref, addr, dims):
        return ref[0] == "const" and self.program.consts[ref[1]][0] == "f8" and \
            addr[0] == "aff" and \
            int(np.prod([d for d, s in zip(dims, addr[2]) if s], dtype=np.int64)) <= RELAYOUT_MAX

    def relaid(self, srcs, dims):
        """``srcs`` of a loop nest over ``dims``, constants read with a stride other than
        0 or 1 by the innermost loop replaced by copies laid out in the loop order."""
        out = []
        for ref, addr in srcs:
            if addr[2][-1] not in (0, 1) and self._relayable(ref, addr, dims):
                ref, addr = self._laid_out(ref, addr, dims)
            out.append((ref, addr))
        return out

    def _laid_out(self, ref, addr, dims):
        _, base, strides = addr
        axes = [d for d, s in enumerate(strides) if s]
        grid = np.full((), base, dtype=np.int64)
        for d in axes:  # the element read at each point of the loops that move the read
            grid = grid[..., None] + strides[d] * np.arange(dims[d], dtype=np.int64)
        values = self.program.const_array(ref[1]).reshape(-1)[grid]
        own = dict(zip(axes, c_strides(tuple(dims[d] for d in axes))))
        k = self.add_const(values, "f8")
        return ("const", k), ("aff", 0, tuple(own.get(d, 0) for d in range(len(dims))))
