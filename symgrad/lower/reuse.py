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

Imports sympy, numpy and the op registry's argument symbols.

>>> ref_symbol(("buf", 3))
_ref_('buf', 3)
"""
from __future__ import annotations

import functools

import numpy as np
import sympy

from ..ops import arg_symbols


@functools.lru_cache(maxsize=65536)
def ref_symbol(ref):
    """The SymPy symbol standing for the value of ``ref`` (element by element)."""
    return sympy.Symbol(f"_ref_{ref!r}", real=True)


class ReuseValues:
    """Mixin for the lowering: ``computed`` maps (rule over refs, shape) -> ref."""

    def eligible(self, node):
        # Distinct refs only: substituting one symbol for two would let SymPy simplify
        # x - x to 0, which is wrong for inf and NaN.
        refs = [self.env[x] for x in node.inputs]
        return (node.dtype == np.float64 and bool(node.shape) and len(set(refs)) == len(refs)
                and all(r[0] != "fused" for r in refs)
                and all(x.shape in (node.shape, ()) and x.dtype.kind == "f"
                        for x in node.inputs))

    def over_refs(self, node, expr, syms):
        return expr.xreplace({s: ref_symbol(self.env[x]) for s, x in zip(syms, node.inputs)})

    def reuse(self, node, full, keep=None):
        """Rewrite ``full`` (the rule over refs) to read values computed before.

        Returns None if nothing is reused, else ``(expr, refs)``: the rule over the
        canonical argument symbols and the refs they stand for (all float64).
        ``keep`` is a ref whose symbol must stay an argument (the strong-zero input).
        """
        keep = None if keep is None else ref_symbol(keep)
        found = {}
        walk = sympy.preorder_traversal(full)
        for sub in walk:
            ref = self.computed.get((sub, node.shape))
            if ref is not None and not (sub.is_Symbol or sub.is_Number) \
                    and (keep is None or not sub.has(keep)):
                found[sub] = ref
                walk.skip()
        if not found:
            return None
        reduced = full.xreplace({sub: ref_symbol(ref) for sub, ref in found.items()})
        by_symbol = {ref_symbol(self.env[x]): self.env[x] for x in node.inputs}
        by_symbol.update({ref_symbol(r): r for r in found.values()})
        refs = [by_symbol[s] for s in sorted(reduced.free_symbols, key=lambda s: s.name)]
        syms = arg_symbols([np.float64] * len(refs))
        return reduced.xreplace({ref_symbol(r): s for r, s in zip(refs, syms)}), refs

    def remember(self, node, full, ref):
        # A strong-zero node's value is not its rule where g == 0: never offered.
        if "strong" not in node.attrs and isinstance(full, sympy.Expr) \
                and not (full.is_Symbol or full.is_Number):
            self.computed[(full, node.shape)] = ref

    def drop_computed(self, ref):
        """``ref``'s buffer is about to change: stop offering it."""
        for key in [k for k, r in self.computed.items() if r == ref]:
            del self.computed[key]
