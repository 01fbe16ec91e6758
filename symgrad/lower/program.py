"""Graph -> Program: the loop IR the compiled kernel is emitted from.

A :class:`Program` is a list of *loop statements* over static shapes.  Every op
lowers to one form, so the emitters (LLVM IR, readable Python) know one thing::

    for the multi-index i over dims:                 # nested loops, constant bounds
        dst[dst_addr(i)] = body(src_k[src_addr_k(i)])   # body: scalar SSA (lower.scalar)

with an optional reduction (the last ``len(dims) - nout`` loops accumulate with a
combine body, from an identity or into memory).  Addresses are affine
(``base + sum(stride_d * i_d)``) or a constant index table.  Values are refs:
``("in", k)`` inputs, ``("out", k)`` output arrays, ``("buf", k)`` temporaries,
``("const", k)`` baked arrays, ``("ssa", k)`` scalars (0-d nodes are straight-line
SSA, never memory).  Code size grows with the number of ops, never the number of
elements; per-element data lives in tables.

Ops lower by *kind*, never by name: ``elementwise`` through ``op.expr``;
``structural`` by applying the op's numpy impl to ``arange`` (a gather table,
affine when possible, an alias when it is the identity) or, for ops with
``scatter_positions``, a scatter-add; ``reduce`` by combining two elements with
``op.symbolic`` and starting from ``op.impl`` of an empty array; ``contract`` from
``op.subscripts``; ``special`` ops through their ``decompose`` graph.

Imports graph, ops, evaluate, ``lower.scalar`` and the lowering mixins (``lower.indexed``:
gathers and scatters; ``lower.contraction``: matmul and einsum; ``lower.sized``,
``lower.fuse``, ``lower.inplace``, ``lower.reuse``).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(3,), name="x")
...     p = lower_graph([sg.reduce_sum(x * x), sg.reduce_sum(sg.sin(x))], [x])
>>> [s.dims for s in p.stmts]  # x * x runs inside its sum's loop; sin keeps a buffer
[(3,), (3,), (3,)]
"""
from __future__ import annotations

import base64
import functools
import math

import numpy as np
import sympy

from ..errors import CompileError, FeedError
from ..evaluate import needed
from ..graph import Dim, Graph, is_static
from ..ops import REGISTRY, arg_symbols
from ..forms.symbolic import to_number
from . import guarded
from .constfold import folded_constants
from .contraction import ContractionLowering
from .fuse import FuseLoops
from .indexed import IndexedLowering
from .inplace import InPlaceSums
from .liveness import share_buffers
from .preaccumulate import preaccumulated
from .relayout import Relayout
from .reuse import ReuseValues
from .sized import NeedsStaticSizes, SizedLowering, check_sizes
from .ir import COPY, Loop, Program, broadcast_axes, c_strides, node_key
from .scalar import translate


class _Attrs:
    """A stand-in node carrying only attrs (for ``op.symbolic`` on two elements)."""

    def __init__(self, **attrs):
        self.attrs = attrs


def lower_graph(outputs, inputs):
    """Lower the graph below ``outputs`` (nodes) to a :class:`Program`.

    Args:
        outputs: list of nodes (no None).
        inputs: list of nodes whose values are arguments; every other leaf is baked
            in at its current value.
    Returns:
        the Program; ``program.outputs[i]`` holds output i's ref.
    Raises:
        FeedError: a placeholder the outputs need is not among ``inputs``.
        CompileError: an op without a lowering.
    """
    outputs = preaccumulated(outputs, inputs)
    low = _Lowering()
    for k, x in enumerate(inputs):
        low.program.inputs.append((x.name, x.dtype.str, x.shape))
        low.env[x] = ("in", k)
        low.read_sizes_from(k, x)
    nodes = needed(outputs, set(inputs))
    folded = folded_constants(outputs, inputs, nodes)  # (lower.constfold)
    if folded:
        for node, value in folded.items():
            low.env[node] = low.baked(node, value)
        nodes = needed(outputs, set(inputs) | set(folded))
    low.count_uses(nodes, outputs)
    low.lower_nodes(nodes)
    low.finish_outputs(outputs)
    check_sizes(low.program)
    guarded.specialize(low.program)   # (seed tables under strong-zero guards)
    share_buffers(low.program)
    return low.program


class _Lowering(IndexedLowering, ContractionLowering, InPlaceSums, ReuseValues, FuseLoops,
                SizedLowering, Relayout):
    """Walks nodes in topological order; ``env`` maps node -> ref; equal nodes share one."""

    def __init__(self):
        self.program = Program()
        self.env, self.seen, self.keys = {}, {}, {}
        self.known = {}  # ref -> value of 0-d constants (folded into the bodies using them)
        self.uses, self.users, self.deferred, self.owner, self.shared = {}, {}, {}, {}, set()
        self.computed = {}  # (rule over refs, shape) -> ref: see lower.reuse
        self.fused = []  # (srcs, body) of producers computed inside their user's loop

    def lower_nodes(self, nodes):
        for node in nodes:
            if node in self.env:
                continue
            if self.defer(node):
                self.env[node] = ("deferred", self.deferred[node])
                continue
            key = node_key(node, self.env)
            if key in self.seen:  # common subexpression: an equal node was lowered
                self.env[node] = self.seen[key]
            else:
                self.env[node] = self.lower_node(node)
                if self.env[node][0] != "fused":  # a fused value exists only in its user
                    self.seen[key], self.keys[node] = self.env[node], key
            self.claim(node, self.env[node])

    def forget(self, group):
        """Drop the CSE entries of ``group`` (their buffer is about to be modified)."""
        for n in group:
            self.seen.pop(self.keys.pop(n, None), None)
            self.drop_computed(self.env[n])

    def copy_of(self, node, base):
        return self.emit(node, node.shape, [self.read(base, range(base.ndim))], COPY)

    def lower_node(self, node):
        summed = self.accumulate(node)
        if summed is not None:
            return summed
        kind = node.opdef.kind
        if getattr(node.opdef, "size_of", None) is not None:
            return self.size_value(node)
        if kind == "leaf":
            return self.leaf(node)
        if kind == "elementwise":
            return self.elementwise(node)
        if kind == "structural":
            if getattr(node.opdef, "scatter_positions", None) is not None:
                return self.scatter(node)
            return self.gather(node)
        if kind == "reduce":
            return self.reduction(node)
        if kind == "contract" and getattr(node.opdef, "subscripts", None) is not None:
            return self.contraction(node)
        if kind == "control":  # sg.compile splits graphs at these (lower.control)
            raise CompileError(f"node {node.name!r} is control flow ({node.opdef.name}): "
                               "compile it with sg.compile, which joins kernels by drivers")
        if getattr(node.opdef, "decompose", None) is not None:
            return self.decomposed(node)
        raise CompileError(f"op {node.opdef.name!r} (node {node.name!r}) has no lowering: give "
                           "its registry entry a 'decompose' rule")

    # -- values ------------------------------------------------------------------
    def new_value(self, node):
        """A fresh ref for ``node``'s value: SSA for 0-d, else a temporary buffer."""
        if not node.shape:
            return self.new_ssa()
        self.program.buffers.append(node.size)
        return ("buf", len(self.program.buffers) - 1)

    def new_ssa(self):
        self.program.nssa += 1
        return ("ssa", self.program.nssa - 1)

    def add_const(self, values, kind):
        arr = np.ascontiguousarray(values, dtype=np.float64 if kind == "f8" else np.int64)
        text = base64.b64encode(arr.tobytes()).decode("ascii")
        self.program.consts.append((kind, arr.shape, text))
        return len(self.program.consts) - 1

    def addr_of(self, ref, addr):
        return None if ref[0] in ("ssa", "in") and self.is_scalar(ref) else addr

    def is_scalar(self, ref):
        if ref[0] == "ssa":
            return True
        if ref[0] == "in":
            return not self.program.inputs[ref[1]][2]
        return False

    def emit(self, node, dims, srcs, body, reduce=None, nout=None, dst=None, dst_addr=None):
        dst = dst or self.new_value(node)
        nout = len(dims) if nout is None else nout
        if dst_addr is None and dst[0] != "ssa":
            dst_addr = ("aff", 0, c_strides(dims[:nout]) + (0,) * (len(dims) - nout))
        srcs = [(ref, self.addr_of(ref, addr)) for ref, addr in srcs]
        self.program.stmts.append(Loop(dims, nout, dst, None if dst[0] == "ssa" else dst_addr,
                                       srcs, body, reduce, node.dtype == np.float32))
        return dst

    # -- kinds -------------------------------------------------------------------
    def leaf(self, node):
        if node.value is None:
            raise FeedError(f"placeholder {node.name!r} (shape {node.shape}) is needed by the "
                            "outputs but is not among the compiled function's inputs; add it "
                            "to inputs=[...]")
        return self.baked(node, node.value)

    def baked(self, node, value):
        """A ref holding ``value`` (``node``'s, known when compiling): SSA when 0-d."""
        value = np.asarray(value, dtype=np.float64)
        if not node.shape:
            ref = self.emit(node, (), [], (("const", float(value).hex()),))
            self.known[ref] = float(value)
            return ref
        return ("const", self.add_const(value, "f8"))

    def elementwise(self, node):
        expr, syms = node.opdef.expr([x.dtype for x in node.inputs], **node.attrs)
        expr, strong = sympy.sympify(expr), node.attrs.get("strong")
        reads = [self.read(x, broadcast_axes(x.shape, node.shape)) for x in node.inputs]
        refs, addrs = [r for r, _ in reads], [a for _, a in reads]
        dtypes = tuple(x.dtype.str for x in node.inputs)
        for x in node.inputs:  # an unknown input size must be the result's (no stretching)
            for d, o in zip(x.shape[::-1], node.shape[::-1]):
                if isinstance(d, Dim):
                    self.agree(d, o, node)
        full = self.over_refs(node, expr, syms) if self.eligible(node) else None
        hoisted = self.hoist(node, expr, syms) if node.dtype == np.float64 and node.shape \
            else {}
        reused = None if full is None else self.reuse(node, full, node.attrs.get("strong"))
        if reused is None and hoisted:  # read the hoisted values as extra arguments
            reused = self.with_hoisted(node, expr, hoisted)
        if reused is not None:  # read values other nodes computed (cross-node CSE)
            expr, reads, strong, dtypes = self.reused_reads(node, reused, reads, strong)
            refs, addrs = [r for r, _ in reads], [a for _, a in reads]
        # Fold finite nonzero 0-d constants into the expression (x**2 becomes x*x).  Never
        # 0, inf or NaN: SymPy would simplify 0*x to 0 where IEEE gives NaN for x = inf.
        # A folded strong-zero input is a nonzero constant, so its guard goes too.
        fold = tuple((i, self.known[r]) for i, r in enumerate(refs)
                     if r in self.known and math.isfinite(self.known[r]) and self.known[r] != 0)
        body, kept = _folded_body(expr, dtypes, fold, strong)
        srcs, body = self.fuse_inputs([(refs[i], addrs[i]) for i in kept], body)
        alias = self.alias_of(node, srcs, body)
        if alias is not None:  # x * 1 (a unit cotangent): the same memory, no copy
            return alias
        uniform = all(self.is_scalar(r) for r, _ in srcs)
        if uniform and node.shape:  # every element is the same: one SSA value stands for all
            ref = self.emit(node, (), srcs, body, dst=self.new_ssa())
        elif self.fusible(node, body):  # computed inside its single user's loop (lower.fuse)
            self.fused.append((srcs, body))
            return ("fused", len(self.fused) - 1)
        else:
            ref = self.emit(node, node.shape, srcs, body)
        if uniform and len(body) == 1 and body[0][0] == "const":
            self.known[ref] = float.fromhex(body[0][1])
        if full is not None:
            self.remember(node, full, ref)
        return ref

    def alias_of(self, node, srcs, body):
        """The ref (or view) holding ``node``'s value when its body only copies one
        float64 array in memory (``x * 1`` after folding); else None."""
        if body != COPY or len(srcs) != 1 or node.dtype != np.float64 or not node.shape:
            return None
        (ref, addr), = srcs
        if ref[0] not in ("buf", "in", "const", "out") or self.is_scalar(ref) or addr is None \
                or addr[0] != "aff" or (ref[0] == "in" and self.program.inputs[ref[1]][1] != "<f8"):
            return None
        if addr[1] == 0 and tuple(addr[2]) == c_strides(node.shape):
            return ref
        return ("view", ref, addr[1], tuple(addr[2]))

    def reduction(self, node):
        (x,) = node.inputs
        axis = node.attrs["axis"]
        keep = [i for i in range(x.ndim) if i not in axis]
        order = keep + list(axis)
        a, b = sympy.symbols("_x0 _x1", real=True)
        pair = np.empty(2, dtype=object)
        pair[0], pair[1] = a, b
        combined = np.asarray(node.opdef.symbolic(_Attrs(axis=(0,), keepdims=False), pair)).item()
        identity = float(np.asarray(node.opdef.impl(np.empty(0), axis=(0,), keepdims=False)))
        dims = tuple(x.shape[i] for i in order)
        src, body = self.read_body(x, order)
        return self.emit(node, dims, src, body, nout=len(keep),
                         reduce=(translate(combined, 2), identity.hex(), True))

    def decomposed(self, node):
        scratch = Graph()
        holders = [scratch.add_node(REGISTRY["placeholder"], (), {"shape": x.shape}, x.shape,
                                    x.dtype, name=f"arg{i}") for i, x in enumerate(node.inputs)]
        try:
            out = node.opdef.decompose(*holders, **node.attrs)
        except TypeError:  # a decomposition unrolled over a size known only at call time
            if all(is_static(x.shape) for x in node.inputs):
                raise
            raise NeedsStaticSizes(f"{node.opdef.name}'s decomposition needs its sizes") from None
        for h, x in zip(holders, node.inputs):
            self.env[h] = self.env[x]
        self.lower_nodes(needed([out], set(holders)))
        return self.env[out]

    # -- outputs -----------------------------------------------------------------
    def finish_outputs(self, outputs):
        claimed = set()
        for k, node in enumerate(outputs):
            ref = self.env[node]
            if not node.shape:
                self.program.outputs.append((node.dtype.str, (), ref))
                continue
            out = ("out", k)
            # a prefix of a larger buffer (x[0] of a stack aliases it) is copied, not renamed
            if ref[0] == "buf" and ref not in claimed and node.dtype == np.float64 \
                    and self.program.buffers[ref[1]] == node.size:
                self.rename(ref, out)  # compute straight into the output array
                claimed.add(ref)
            else:
                self.emit(node, node.shape, [self.read(node, range(node.ndim))], COPY, dst=out)
            self.program.outputs.append((node.dtype.str, node.shape, out))

    def rename(self, old, new):
        for s in self.program.stmts:
            if s.dst == old:
                s.dst = new
            s.srcs = tuple((new if r == old else r, a) for r, a in s.srcs)
        for node, ref in self.env.items():
            if ref == old:
                self.env[node] = new


@functools.lru_cache(maxsize=8192)
def _folded_body(expr, dtypes, fold, strong):
    """The body of ``expr`` with the arguments in ``fold`` replaced by their values."""
    syms = arg_symbols([np.dtype(d) for d in dtypes])
    done = dict(fold)
    kept = [i for i in range(len(dtypes)) if i not in done]
    if fold:
        new = arg_symbols([np.dtype(dtypes[i]) for i in kept])
        expr = expr.xreplace({syms[i]: _sympy_number(v, dtypes[i]) for i, v in fold})
        expr = expr.xreplace({syms[i]: new[k] for k, i in enumerate(kept)})
        strong = None if strong is None or strong in done else kept.index(strong)
    return translate(expr, len(kept), strong), kept


def _sympy_number(value, dtype):
    if np.dtype(dtype).kind == "b":
        return sympy.true if value else sympy.false
    number = to_number(value)
    # A fraction stays a Float: folded 0.5 - 1 must read as numpy's power(x, -0.5)
    # (+inf at -0.0), not as SymPy's 1/sqrt(x) of a rule (-inf there, as np.sqrt).
    return sympy.Float(float(value)) if isinstance(number, sympy.Rational) and \
        not number.is_Integer else number
