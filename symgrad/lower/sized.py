"""Lowering over sizes known only when the kernel is called (unknown dimensions).

A mixin of the lowering (``lower.program``).  Sizes are :class:`~symgrad.graph.Dim`
objects in the Program (loop bounds, strides, offsets, buffer sizes); the emitters
compute them from the input arrays' shapes at call time, so one kernel serves
every size.  Without index tables, structural ops lower as *views* from the ops'
``view`` rules (transpose, broadcast_to, basic indexing; reshape reads the same
memory), ``concat`` as copies placed by its ``placement`` rule, ``index_add`` as
an accumulation at the addresses its ``scatter_view`` gives.  Sizes the graph
assumes equal (broadcasting, contractions, reshape) become ``program.checks``,
tested by the generated ``jit`` before the kernel runs.  Anything else raises
:class:`NeedsStaticSizes`; the compiler then builds once per size met.

Imports errors, graph and ``lower.ir``.

>>> hint(3), NeedsStaticSizes.__mro__[1].__name__
(3, 'CompileError')
"""
from __future__ import annotations

from ..errors import CompileError
from ..graph import Dim, shape_text
from .ir import ADD, COPY, c_strides


class NeedsStaticSizes(CompileError):
    """A graph with unknown sizes that the size-generic lowering does not cover
    (index arrays, concat along an unknown axis, ...): compile it per size."""


def check_sizes(program):
    """Raise NeedsStaticSizes unless every size is read from an input and is computed
    with integer adds and multiplies."""
    bound = {n for n, _, _ in program.sizes}
    exprs = program.size_exprs()   # (one walk of every statement)
    unbound = {s.name for e in exprs for s in e.free_symbols} - bound
    if unbound:
        raise NeedsStaticSizes(f"sizes {sorted(unbound)} are not read from any input")
    odd = [e for e in exprs if not _polynomial(e)]
    if odd:
        raise NeedsStaticSizes(f"size expressions {odd} are not sums of products")


def _polynomial(expr):
    """True for sizes the kernel computes with integer adds and multiplies."""
    if expr.is_Integer or expr.is_Symbol:
        return True
    if expr.is_Add or expr.is_Mul:
        return all(_polynomial(a) for a in expr.args)
    return bool(expr.is_Pow and expr.exp.is_Integer and expr.exp > 0 and _polynomial(expr.base))


def hint(size):
    """A size for heuristics: an unknown one is taken as large (1024 per symbol)."""
    if not isinstance(size, Dim):
        return size
    return int(size.expr.xreplace({s: 1024 for s in size.expr.free_symbols}))

def _affine(axes, strides, ndim):
    """Base and strides over ``ndim`` loops from per-axis (loop, step, start) rules and
    the axes' memory strides."""
    base, out = 0, [0] * ndim
    for (o, step, start), s in zip(axes, strides):
        base = base + start * s
        if o is not None:
            out[o] = out[o] + step * s
    return base, tuple(out)


class SizedLowering:
    """Mixin of the lowering: the parts that differ when sizes are known at call time."""

    def read_sizes_from(self, k, x):
        """Each size symbol first met in input ``k``'s shape is read from that axis."""
        for axis, d in enumerate(x.shape):
            if isinstance(d, Dim) and d.expr.is_Symbol and \
                    all(d.expr.name != n for n, _, _ in self.program.sizes):
                self.program.sizes.append((d.expr.name, k, axis))

    def size_value(self, node):
        """A 0-d value read from the sizes (``dim_size``): a constant, or read at call time."""
        n = node.opdef.size_of(node.inputs[0].shape, **node.attrs)
        if isinstance(n, Dim):
            return self.emit(node, (), [], (("dim", n),), dst=self.new_ssa())
        ref = self.emit(node, (), [], (("const", float(n).hex()),), dst=self.new_ssa())
        self.known[ref] = float(n)
        return ref

    def agree(self, a, b, node):
        """Record that sizes ``a`` and ``b`` must be equal when the kernel is called."""
        if a != b and (isinstance(a, Dim) or isinstance(b, Dim)) and \
                all((a, b) != c[:2] for c in self.program.checks):
            shapes = ", ".join(shape_text(x.shape) for x in node.inputs)
            self.program.checks.append((a, b, f"{node.opdef.name} of shapes {shapes} "
                                              f"({node.name!r}): sizes must agree"))

    def gather_sized(self, node):
        """A structural op over sizes known at call time: a view (no index table)."""
        view = getattr(node.opdef, "view", None)
        if getattr(node.opdef, "placement", None) is not None:
            return self.place_sized(node)
        if len(node.inputs) != 1 or view is None:
            raise NeedsStaticSizes(f"{node.opdef.name} over unknown sizes")
        (x,) = node.inputs
        axes = view(x.shape, node.shape, **node.attrs)
        ref = self.env[x]
        if axes is None:
            raise NeedsStaticSizes(f"{node.opdef.name} with index arrays over unknown sizes")
        if self.is_scalar(ref):
            return ref
        if axes == "flat":  # reshape: the same memory, read densely
            self.agree(x.size, node.size, node)
            return self.copy_of(x, x) if ref[0] in ("view", "fused") else ref
        if "shape" in node.attrs:  # broadcast_to: an unknown size must be the target's
            for (o, _, _), d in zip(axes, x.shape):
                if o is not None:
                    self.agree(d, node.shape[o], node)
        src, base, strides = ref[1:] if ref[0] == "view" else (ref, 0, c_strides(x.shape))
        offset, out = _affine(axes, strides, node.ndim)
        return ("view", src, base + offset, out)

    def place_sized(self, node):
        """Inputs copied into regions of the output (concat) over call-time sizes."""
        dst = self.new_value(node)
        own = c_strides(node.shape)
        for x, axes in zip(node.inputs, node.opdef.placement([x.shape for x in node.inputs],
                                                          **node.attrs)):
            base, strides = 0, [0] * x.ndim
            for a, (o, step, start) in enumerate(axes):
                base = base + start * own[o]
                strides[a] = step * own[o]
                if a != node.attrs.get("axis"):
                    self.agree(x.shape[a], node.shape[o], node)
            self.emit(node, x.shape, [self.read(x, range(x.ndim))], COPY, dst=dst,
                      dst_addr=("aff", base, tuple(strides)))
        return dst

    def scatter_sized(self, node, dst, owner):
        """Add index_add's g into ``dst`` at the addresses of its index (no table)."""
        (g,) = node.inputs
        axes = node.opdef.scatter_view(node.shape, g.shape, **node.attrs)
        if axes is None:
            raise NeedsStaticSizes(f"{node.opdef.name} with index arrays over unknown sizes")
        base, strides = _affine(axes, c_strides(node.shape), g.ndim)
        srcs, body = self.read_body(g, range(g.ndim))
        self.emit(owner, g.shape, srcs, body,
                  reduce=(ADD, 0.0.hex(), False), dst=dst, dst_addr=("aff", base, strides))
