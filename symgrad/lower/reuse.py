"""Cross-node CSE for array bodies: reuse a value another node already computed.

Derivative rules restate forward values: the gradient of ``tanh(x)`` is
``g * (1 - tanh(x)**2)``, a separate node whose loop would call ``tanh`` again.
Scalar (0-d) code needs nothing here (LLVM's CSE sees one straight-line body),
but every array op is its own loop.  So each float64 array node's rule is kept
in terms of its input *refs*; when a later node's rule contains an equal
sub-expression over the same refs and shape, that sub-expression becomes one more
input: a load of the earlier node's buffer.

Only nodes without broadcasting take part (an element of every input is the
element at the same index); strong-zero nodes may read values but are never
offered (their value is not their rule where the cotangent is 0).

Imports sympy, numpy, the op registry's argument symbols, ``lower.ir`` and
``lower.scalar``.

>>> ref_symbol(("buf", 3))
_ref_('buf', 3)
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy

from ..forms.symbolic import to_number
from ..graph import shape_size
from ..ops import arg_symbols
from .ir import broadcast_addr, broadcast_axes
from .scalar import translate


@functools.lru_cache(maxsize=65536)
def ref_symbol(ref, shape=None):
    """The SymPy symbol standing for the value of ``ref`` (element by element), read
    as an array of ``shape`` broadcast against the node's shape (None: the same)."""
    return sympy.Symbol(f"_ref_{ref!r}" + ("" if shape is None else f"@{shape}"), real=True)


class ReuseValues:
    """Mixin for the lowering: ``computed`` maps (rule over refs, shape) -> ref."""

    def eligible(self, node):
        # Distinct refs only: substituting one symbol for two would let SymPy simplify
        # x - x to 0, which is wrong for inf and NaN.  Inputs may broadcast (a forward
        # value read by every seed of a batched sweep): their symbols carry the shape.
        refs = [self.env[x] for x in node.inputs]
        return (node.dtype == np.float64 and bool(node.shape) and len(set(refs)) == len(refs)
                and all(r[0] != "fused" for r in refs)
                and all(x.dtype.kind == "f" and _leading(x.shape, node.shape)
                        for x in node.inputs))

    def symbol_of(self, x, node):
        return ref_symbol(self.env[x], None if x.shape == node.shape else x.shape)

    def over_refs(self, node, expr, syms):
        return expr.xreplace({s: self.symbol_of(x, node) for s, x in zip(syms, node.inputs)})

    def reuse(self, node, full, strong=None):
        """Rewrite ``full`` (the rule over refs) to read values computed before.

        Returns None if nothing is reused, else ``(expr, reads)``: the rule over the
        canonical argument symbols and what they stand for: ``(ref, shape)`` (shape
        None: the node's own), all float64.  Input ``strong`` (the strong-zero input)
        stays an argument.
        """
        keep = None if strong is None else self.symbol_of(node.inputs[strong], node)
        homes = {self.symbol_of(x, node): (self.env[x], x.shape) for x in node.inputs}
        found = {}
        walk = sympy.preorder_traversal(full)
        for sub in walk:
            if sub.is_Symbol or sub.is_Number or (keep is not None and sub.has(keep)):
                continue
            shape = _home_shape(sub, homes)
            ref = None if shape is None else self.computed.get(
                (sub if shape == node.shape else _relative(sub, homes, shape), shape))
            if ref is not None:
                found[sub] = (ref, None if shape == node.shape else shape)
                walk.skip()
        if not found:
            return None
        reduced = full.xreplace({sub: ref_symbol(*r) for sub, r in found.items()})
        by_symbol = {self.symbol_of(x, node): (self.env[x], None if x.shape == node.shape
                                               else x.shape) for x in node.inputs}
        by_symbol.update({ref_symbol(*r): r for r in found.values()})
        reads = [by_symbol[s] for s in sorted(reduced.free_symbols, key=lambda s: s.name)]
        syms = arg_symbols([np.float64] * len(reads))
        return reduced.xreplace({ref_symbol(*r): s for r, s in zip(reads, syms)}), reads

    def hoist(self, node, expr, syms):
        """Compute sub-expressions of ``expr`` (over the argument symbols ``syms``) that
        call math functions and read only inputs of a smaller shape (forward values read
        by every seed of a batched sweep) once, at that shape, into a buffer of their
        own; ``reuse`` then reads it.  ``exp(-z)`` inside a Hessian's tangent runs once
        per data point, not once per data point and seed.
        """
        if all(x.shape in ((), node.shape) for x in node.inputs):
            return {}  # nothing is read at a smaller shape
        strong = node.attrs.get("strong")
        keep = None if strong is None else syms[strong]
        # (only float inputs broadcast along leading axes; a sub reading any other is kept)
        homes = {s: (self.env[x], x.shape) for s, x in zip(syms, node.inputs)
                 if x.dtype.kind == "f" and _leading(x.shape, node.shape)}
        inputs = dict(zip(syms, node.inputs))
        walk, hoisted = sympy.preorder_traversal(expr), {}
        for sub in walk:
            if sub.is_Symbol or sub.is_Number or (keep is not None and sub.has(keep)):
                continue
            shape = _home_shape(sub, homes)
            if shape is None or shape == node.shape or not sub.free_symbols <= homes.keys() \
                    or not _expensive(sub):
                continue
            walk.skip()
            known = self.known_sub(node, sub, inputs)
            if known is not None:   # no loop: an input itself, or a constant
                hoisted[sub] = known
                continue
            key = _relative(sub, homes, shape)
            refs = [homes[s][0] for s in sub.free_symbols]
            if len(set(refs)) != len(refs):
                continue
            if (key, shape) not in self.computed:
                self.computed[(key, shape)] = self.compute_at(node, sub, shape, inputs)
            hoisted[sub] = (self.computed[(key, shape)], shape)
        return hoisted

    def known_sub(self, node, sub, inputs):
        """``(ref, shape)`` holding ``sub`` where, with the 0-d constants among its
        inputs substituted, it is one of them or a number: ``x**(s - 1)`` and
        ``x**(s - 2)`` of ``x**2``'s rules (``s`` = 2) are ``x`` and 1, exactly what
        ``pow`` gives for every x; else None (hoisted as computed)."""
        values = {s: self.known[self.env[x]] for s, x in inputs.items()
                  if s in sub.free_symbols and self.env[x] in self.known}
        values = {s: v for s, v in values.items() if math.isfinite(v) and v != 0}
        if not values:
            return None
        folded = sub.xreplace({s: to_number(v) for s, v in values.items()})
        if folded.is_Symbol and folded in inputs:
            x = inputs[folded]
            return self.env[x], None if x.shape == node.shape else x.shape
        if folded.is_Number and math.isfinite(float(folded)):
            ref = self.emit(node, (), [], (("const", float(folded).hex()),), dst=self.new_ssa())
            self.known[ref] = float(folded)
            return ref, ()
        return None

    def with_hoisted(self, node, expr, hoisted):
        """``(expr, values)`` as ``reuse`` gives them: ``expr`` reading each hoisted
        sub-expression as one more argument after the node's inputs."""
        n = len(node.inputs)
        extra = arg_symbols([np.float64] * (n + len(hoisted)))[n:]
        expr = expr.xreplace(dict(zip(hoisted, extra)))
        values = [(self.env[x], None if x.shape == node.shape else x.shape)
                  for x in node.inputs] + list(hoisted.values())
        return expr, values

    def reused_reads(self, node, reused, reads, strong):
        """The reads of ``reused``'s values (inputs as read before, computed values
        broadcast from their shape), the new position of the strong input, dtypes."""
        home = [(self.env[x], None if x.shape == node.shape else x.shape)
                for x in node.inputs]
        read_of = dict(zip(home, reads))
        expr, values = reused
        if strong is not None:
            strong = values.index(home[strong])
        reads = [read_of.get(v, (v[0], broadcast_addr(v[1] or node.shape, node.shape)))
                 for v in values]
        kinds = {h: x.dtype.str for h, x in zip(home, node.inputs) if x.dtype.kind == "b"}
        return expr, reads, strong, tuple(kinds.get(v, "<f8") for v in values)

    def compute_at(self, node, sub, shape, inputs):
        """A new buffer of ``shape`` holding ``sub`` (over the symbols of ``inputs``)."""
        syms = sorted(sub.free_symbols, key=lambda s: s.name)
        args = arg_symbols([np.float64] * len(syms))
        body = translate(sub.xreplace(dict(zip(syms, args))), len(syms))
        srcs = [self.read(inputs[s], broadcast_axes(inputs[s].shape, shape)) for s in syms]
        self.program.buffers.append(shape_size(shape))
        dst = ("buf", len(self.program.buffers) - 1)
        return self.emit(node, shape, srcs, body, dst=dst)

    def remember(self, node, full, ref):
        # A strong-zero node's value is not its rule where g == 0: never offered.
        if "strong" not in node.attrs and isinstance(full, sympy.Expr) \
                and not (full.is_Symbol or full.is_Number):
            self.computed[(full, node.shape)] = ref

    def drop_computed(self, ref):
        """``ref``'s buffer is about to change: stop offering it."""
        for key in [k for k, r in self.computed.items() if r == ref]:
            del self.computed[key]


def _leading(shape, out):
    """Whether ``shape`` is ``out`` or a suffix of it (broadcast along leading axes), or 0-d."""
    return shape == () or tuple(shape) == tuple(out[len(out) - len(shape):])


def _expensive(expr):
    """Whether ``expr`` calls a math function (or a power that is not a small integer)."""
    for a in sympy.preorder_traversal(expr):
        if isinstance(a, sympy.Function) or a.is_Pow and not (a.exp.is_Integer
                                                              and abs(a.exp) <= 4):
            return True
    return False


def _home_shape(sub, homes):
    """The largest shape among the inputs ``sub`` reads (where it can be computed
    element by element); None for expressions of 0-d values only."""
    shapes = [homes[s][1] for s in sub.free_symbols if s in homes and homes[s][1] != ()]
    return max(shapes, key=len) if shapes else None


def _relative(sub, homes, home):
    """``sub`` over the symbols of its inputs read at shape ``home``: an expression over
    forward values only, in a batched sweep, is found where it was computed without
    the seed axis."""
    return sub.xreplace({s: ref_symbol(ref, None if shape == home else shape)
                         for s, (ref, shape) in homes.items()})
