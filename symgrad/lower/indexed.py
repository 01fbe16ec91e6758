"""Gathers and scatters of the loop IR: ``_Lowering``'s ops that move elements by
position (index tables, affine views, periodic tables, scatter-adds).

A mixin of ``lower.program._Lowering``: it uses the lowering's ``env``, ``emit``,
``new_value``, ``add_const`` and, for sizes known at call time, ``gather_sized`` /
``scatter_sized`` (``lower.sized``).  Imports ``lower.ir`` and ``lower.fuse``.
"""
from __future__ import annotations

import numpy as np

from ..graph import is_static
from .fuse import splice
from .ir import ADD, COPY, PLUS_ZERO, ZERO, affine_fit, c_strides, split_table


class IndexedLowering:
    """Lowering of structural ops: gathers (tables, views) and scatter-adds."""

    def gather(self, node):
        if not is_static(node.shape) or not all(is_static(x.shape) for x in node.inputs):
            return self.gather_sized(node)
        same = self.same_memory(node)
        if same is not None:
            return same
        ids, offset = [], 0
        for x in node.inputs:
            ids.append(np.arange(x.size, dtype=np.int64).reshape(x.shape) + offset)
            offset += x.size
        table = np.asarray(node.opdef.impl(*ids, **node.attrs), dtype=np.int64).reshape(node.shape)
        if len(node.inputs) == 1:
            return self.gather_one(node, table)
        dst = self.new_value(node)
        flat, start = table.ravel(), 0
        for x in node.inputs:
            hit = np.nonzero((flat >= start) & (flat < start + x.size))[0]
            if hit.size:
                src, pos = self.to_source(x, flat[hit] - start)
                self.emit(node, (hit.size,), [(src, self.table_addr(pos))],
                          COPY, dst=dst, dst_addr=self.table_addr(hit))
            start += x.size
        return dst

    def same_memory(self, node):
        """A reshape's input ref, as ``gather_one`` finds it from the table (the identity)
        but without building one (two ``arange`` of a dense Hessian's 10^6 entries per
        reshape); None where it would not."""
        view = getattr(node.opdef, "view", None)
        if len(node.inputs) != 1 or view is None or node.size != node.inputs[0].size:
            return None
        (x,) = node.inputs
        ref = self.env[x]
        if view(x.shape, node.shape, **node.attrs) != "flat" or ref[0] == "view":
            return None
        scalar = self.is_scalar(ref)
        return ref if scalar or (not node.shape) == scalar else None

    def gather_one(self, node, table):
        (x,) = node.inputs
        ref = self.env[x]
        if self.is_scalar(ref):
            return ref  # every element is that one value (a 0-d input, or uniform)
        if ref[0] != "view" and node.size == x.size \
                and np.array_equal(table.ravel(), np.arange(node.size)) \
                and (not node.shape) == self.is_scalar(ref):
            return ref  # a reshape: the same memory (or the same SSA value)
        src, pos = self.to_source(x, table)
        fit = affine_fit(pos)
        if node.shape and fit is not None and not self.is_scalar(src):
            return ("view", src, fit[1], fit[2])  # read in place by every consumer
        pieces = periodic_pieces(pos) if fit is None and not self.is_scalar(src) else None
        if pieces is None:
            read = (src, fit or self.table_addr(pos))
            if src[0] in ("in", "const") and (read[1][0] == "aff" or len(read[1]) == 2) \
                    and self.fusible(node) \
                    and next(iter(self.users[node])).opdef.kind == "elementwise":
                self.fused.append(([read], COPY))  # its user reads the source itself
                return ("fused", len(self.fused) - 1)
            return self.emit(node, node.shape, [read], COPY)
        dst = self.new_value(node)
        for start, rows, period in pieces:   # (rows, period) nests: a small table + strides
            part = pos.reshape(-1)[start:start + rows * period].reshape(rows, period)
            self.emit(node, part.shape, [(src, self.table_addr(part))], COPY, dst=dst,
                      dst_addr=("aff", start, (period, 1)))
        return dst

    def to_source(self, x, positions):
        """``x``'s flat positions as positions in the memory of the ref that holds them."""
        ref = self.env[x]
        if ref[0] != "view":
            return ref, np.asarray(positions, dtype=np.int64)
        _, src, base, strides = ref
        idx = np.unravel_index(np.asarray(positions, dtype=np.int64), x.shape)
        return src, base + sum(s * i for s, i in zip(strides, idx)) + np.zeros_like(positions)

    def read(self, x, axes):
        """``(ref, addr)`` reading ``x`` in a loop nest where loop j runs over x's axis
        ``axes[j]`` (None: x does not vary along loop j).  Views resolve to their memory."""
        ref = self.env[x]
        if ref[0] == "view":
            _, src, base, strides = ref
        else:
            src, base, strides = ref, 0, c_strides(x.shape)
        return src, ("aff", base, tuple(0 if a is None else strides[a] for a in axes))

    def read_body(self, x, axes):
        """``(srcs, body)`` giving ``x``'s value in a loop nest over its axes in the order
        ``axes``: a plain read, or the body of an elementwise producer fused into it."""
        if self.env[x][0] == "fused":
            return self.fused_reads(self.env[x], axes)
        return [self.read(x, axes)], COPY

    def table_addr(self, table):
        """The address of positions ``table`` (shaped like the loop nest reading them):
        affine, or a constant table over the trailing axes plus an affine part over the
        leading ones (``("tab", k, strides)``; one seed's table in a batched sweep)."""
        table = np.asarray(table, dtype=np.int64)
        fit = affine_fit(table)
        if fit is not None:
            return fit
        strides, rest = split_table(table)
        k = self.add_const(np.ascontiguousarray(rest), "i8")
        return ("tab", k, strides) if strides else ("tab", k)

    def scatter(self, node):
        if not node.shape:  # everything lands on one scalar: a plain sum
            (g,) = node.inputs
            src, body = self.read_body(g, range(g.ndim))
            return self.emit(node, g.shape, src, body, reduce=(ADD, 0.0.hex(), True), nout=0)
        stored = self.scatter_stored(node)
        if stored is not None:
            return stored
        dst = self.emit(node, node.shape, [], ZERO)
        self.scatter_into(node, dst, node)
        return dst

    def scatter_stored(self, node):
        """A scatter into zeros at distinct positions, in one pass: the loop stores
        ``g + 0.0`` (what ``0 + g`` gives: +0.0 for -0.0) and only the positions it
        misses are zero-filled (all of it first, where they are not evenly spaced);
        None where positions repeat or sizes are unknown."""
        (g,) = node.inputs
        if not is_static(node.shape) or not is_static(g.shape):
            return None
        pos = np.broadcast_to(np.asarray(node.opdef.scatter_positions(**node.attrs),
                                         dtype=np.int64), g.shape)
        hits = np.bincount(pos.ravel(), minlength=node.size)
        if hits.size != node.size or hits.max(initial=0) > 1:
            return None   # (np.unique takes ~0.4 s on 3e5 positions)
        missed = node.size - pos.size
        fill = gaps_fit(hits, missed) if missed else None
        if missed and fill is None:  # scattered gaps: one contiguous fill is faster
            dst = self.emit(node, node.shape, [], ZERO)
        else:
            dst = self.new_value(node)
            if missed:
                self.emit(node, (missed,), [], ZERO, dst=dst, dst_addr=fill)
        src, body = self.read_body(g, range(g.ndim))
        self.emit(node, g.shape, src, splice(PLUS_ZERO, 0, body, 0), dst=dst,
                  dst_addr=self.table_addr(pos))
        return dst

    def scatter_into(self, node, dst, owner):
        """Add the scatter ``node``'s g into the buffer ``dst`` (statement of ``owner``)."""
        (g,) = node.inputs
        if not is_static(node.shape) or not is_static(g.shape):
            return self.scatter_sized(node, dst, owner)
        pos = np.asarray(node.opdef.scatter_positions(**node.attrs), dtype=np.int64)
        pos = np.broadcast_to(pos, g.shape)
        src, body = self.read_body(g, range(g.ndim))
        self.emit(owner, g.shape, src, body, reduce=(ADD, 0.0.hex(), False), dst=dst,
                  dst_addr=self.table_addr(pos))


def gaps_fit(hits, missed):
    """``affine_fit`` of the ``missed`` positions where ``hits`` (0/1) is 0, found
    without listing them: a dense Hessian scattered from a few seeds misses 10^6 of
    them, and listing them cost milliseconds per seed.

    >>> gaps_fit(np.array([1, 0, 1, 0, 1, 0]), 3), gaps_fit(np.array([0, 0, 1, 0]), 3)
    (('aff', 1, (2,)), None)
    >>> gaps_fit(np.array([1, 1, 0]), 1)
    ('aff', 2, (0,))
    """
    first = int(np.argmin(hits))
    if missed == 1:
        return ("aff", first, (0,))
    step = int(np.argmin(hits[first + 1:])) + 1
    last = first + step * (missed - 1)
    if last >= hits.size or hits[first:last + 1:step].any():
        return None
    return ("aff", first, (step,))   # ``missed`` zeros there: the only ones


def periodic_pieces(pos, periods=32, least=256, window=4096):
    """A long 1-d gather table as pieces ``(start, rows, period)`` whose positions
    repeat with a shift every ``period`` entries, so each reads as a small table plus
    strides (a compressed sweep's entries in CSR order, band by band); None if the
    table is short, 0-d or has no such run over most of it.  The period is the one
    that fits a window in the middle best (the search costs O(window) per period)."""
    flat = np.asarray(pos, dtype=np.int64)
    if flat.ndim != 1 or flat.size < least:
        return None
    mid = flat[max(0, (flat.size - window) // 2):][:window]
    fits = {p: int(np.count_nonzero(np.diff(mid[p:] - mid[:-p]) == 0))
            for p in range(2, min(periods, mid.size // 4) + 1)}
    p = max(fits, key=fits.get)   # (the smallest of equal fits: not a multiple of it)
    same = np.diff(flat[p:] - flat[:-p]) == 0   # the same shift as the entry before
    edges = np.flatnonzero(np.diff(np.concatenate([[0], same.astype(np.int8), [0]])))
    if not edges.size:
        return None
    runs = edges.reshape(-1, 2)
    k = int(np.argmax(runs[:, 1] - runs[:, 0]))
    a = int(runs[k, 0])
    rows = (int(runs[k, 1]) + 1 + p - a) // p   # entries a .. a + rows*p - 1 repeat
    if rows < 4 or rows * p < flat.size // 2:
        return None
    end = a + rows * p
    return ([(0, 1, a)] if a else []) + [(a, rows, p)] + \
        ([(end, 1, flat.size - end)] if end < flat.size else [])
