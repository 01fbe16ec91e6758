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

Imports graph, ops, evaluate and ``lower.scalar``.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(3,), name="x")
...     p = lower_graph([sg.reduce_sum(sg.sin(x))], [x])
>>> [s.dims for s in p.stmts]
[(3,), (3,)]
"""
from __future__ import annotations

import base64

import numpy as np
import sympy

from ..errors import CompileError, FeedError
from ..evaluate import needed
from ..graph import Graph
from ..ops import REGISTRY, arg_symbols
from ..symbolic import to_number
from .scalar import translate


class Loop:
    """One loop statement (see the module docstring); fields are plain literals."""

    __slots__ = ("dims", "nout", "dst", "dst_addr", "srcs", "body", "reduce", "round32")

    def __init__(self, dims, nout, dst, dst_addr, srcs, body, reduce=None, round32=False):
        self.dims, self.nout, self.dst, self.dst_addr = tuple(dims), nout, dst, dst_addr
        self.srcs, self.body, self.reduce, self.round32 = tuple(srcs), body, reduce, round32

    def as_tuple(self):
        return tuple(getattr(self, f) for f in self.__slots__)


class Program:
    """Inputs, outputs, temporaries, constant tables and loop statements of one kernel."""

    def __init__(self, inputs=(), outputs=(), buffers=(), consts=(), stmts=(), nssa=0):
        self.inputs = list(inputs)      # (name, dtype str, shape)
        self.outputs = list(outputs)    # (dtype str, shape, ref)
        self.buffers = list(buffers)    # sizes of double temporaries
        self.consts = list(consts)      # (kind 'f8'/'i8', shape, base64 bytes)
        self.stmts = list(stmts)
        self.nssa = nssa

    def to_literal(self):
        """A ``repr``-able structure of builtins (``ast.literal_eval`` reads it back)."""
        return {"inputs": self.inputs, "outputs": self.outputs, "buffers": self.buffers,
                "consts": self.consts, "stmts": [s.as_tuple() for s in self.stmts],
                "nssa": self.nssa}

    @classmethod
    def from_literal(cls, data):
        stmts = [Loop(*s) for s in data["stmts"]]
        return cls(data["inputs"], data["outputs"], data["buffers"], data["consts"], stmts,
                   data["nssa"])

    def const_array(self, k):
        kind, shape, text = self.consts[k]
        return np.frombuffer(base64.b64decode(text), dtype=np.float64 if kind == "f8"
                             else np.int64).reshape(shape)

    @property
    def array_outputs(self):
        return [k for k, (_, shape, _) in enumerate(self.outputs) if shape]

    @property
    def scalar_outputs(self):
        return [k for k, (_, shape, _) in enumerate(self.outputs) if not shape]


def c_strides(shape):
    """Row-major element strides of ``shape``."""
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return tuple(reversed(strides))


def affine_fit(table):
    """``("aff", base, strides)`` if ``table`` is affine in its multi-index, else None."""
    if table.size == 0:
        return ("aff", 0, (0,) * table.ndim)
    base = int(table.flat[0])
    strides = []
    for d in range(table.ndim):
        unit = [0] * table.ndim
        if table.shape[d] > 1:
            unit[d] = 1
        strides.append(int(table[tuple(unit)]) - base if table.shape[d] > 1 else 0)
    grid = np.full(table.shape, base, dtype=np.int64)
    for d, s in enumerate(strides):
        if s:
            shape = [1] * table.ndim
            shape[d] = table.shape[d]
            grid = grid + s * np.arange(table.shape[d], dtype=np.int64).reshape(shape)
    return ("aff", base, tuple(strides)) if np.array_equal(grid, table) else None


def broadcast_addr(in_shape, out_shape):
    """Affine address of an input broadcast against ``out_shape`` (stride 0 on copies)."""
    lead = len(out_shape) - len(in_shape)
    own = c_strides(in_shape)
    strides = [0] * lead + [0 if d == 1 and o != 1 else s
                            for d, o, s in zip(in_shape, out_shape[lead:], own)]
    return ("aff", 0, tuple(strides))


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
    low = _Lowering()
    for k, x in enumerate(inputs):
        low.program.inputs.append((x.name, x.dtype.str, x.shape))
        low.env[x] = ("in", k)
    low.lower_nodes(needed(outputs, set(inputs)))
    low.finish_outputs(outputs)
    return low.program


class _Lowering:
    """Walks nodes in topological order; ``env`` maps node -> ref; equal nodes share one."""

    def __init__(self):
        self.program = Program()
        self.env, self.seen = {}, {}
        self.known = {}  # ref -> value of 0-d constants (folded into the bodies using them)

    def lower_nodes(self, nodes):
        for node in nodes:
            if node in self.env:
                continue
            key = node_key(node, self.env)
            if key in self.seen:  # common subexpression: an equal node was lowered
                self.env[node] = self.seen[key]
                continue
            self.env[node] = self.lower_node(node)
            self.seen[key] = self.env[node]

    def lower_node(self, node):
        kind = node.op.kind
        if kind == "leaf":
            return self.leaf(node)
        if kind == "elementwise":
            return self.elementwise(node)
        if kind == "structural":
            if getattr(node.op, "scatter_positions", None) is not None:
                return self.scatter(node)
            return self.gather(node)
        if kind == "reduce":
            return self.reduction(node)
        if kind == "contract" and getattr(node.op, "subscripts", None) is not None:
            return self.contraction(node)
        if getattr(node.op, "decompose", None) is not None:
            return self.decomposed(node)
        raise CompileError(f"op {node.op.name!r} (node {node.name!r}) has no lowering: give "
                           "its registry entry a 'decompose' rule")

    # -- values ------------------------------------------------------------------
    def new_value(self, node):
        """A fresh ref for ``node``'s value: SSA for 0-d, else a temporary buffer."""
        if not node.shape:
            self.program.nssa += 1
            return ("ssa", self.program.nssa - 1)
        self.program.buffers.append(node.size)
        return ("buf", len(self.program.buffers) - 1)

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
        value = np.asarray(node.value, dtype=np.float64)
        if not node.shape:
            ref = self.emit(node, (), [], (("const", float(value).hex()),))
            self.known[ref] = float(value)
            return ref
        return ("const", self.add_const(value, "f8"))

    def elementwise(self, node):
        expr, syms = node.op.expr([x.dtype for x in node.inputs], **node.attrs)
        strong = node.attrs.get("strong")
        fold, kept = {}, []
        for i, x in enumerate(node.inputs):
            if self.env[x] in self.known and i != strong:  # a 0-d constant: fold it in
                fold[syms[i]] = _sympy_number(self.known[self.env[x]], x.dtype)
            else:
                kept.append(i)
        if fold:
            new = arg_symbols([node.inputs[i].dtype for i in kept])
            expr = sympy.sympify(expr).xreplace(fold).xreplace(
                {syms[i]: new[k] for k, i in enumerate(kept)})
            strong = None if strong is None else kept.index(strong)
        body = translate(expr, len(kept), strong)
        srcs = [(self.env[node.inputs[i]], broadcast_addr(node.inputs[i].shape, node.shape))
                for i in kept]
        ref = self.emit(node, node.shape, srcs, body)
        if not kept and not node.shape and len(body) == 1 and body[0][0] == "const":
            self.known[ref] = float.fromhex(body[0][1])
        return ref

    def gather(self, node):
        ids, offset = [], 0
        for x in node.inputs:
            ids.append(np.arange(x.size, dtype=np.int64).reshape(x.shape) + offset)
            offset += x.size
        table = np.asarray(node.op.impl(*ids, **node.attrs), dtype=np.int64).reshape(node.shape)
        if len(node.inputs) == 1:
            return self.gather_one(node, table)
        dst = self.new_value(node)
        flat, start = table.ravel(), 0
        for x in node.inputs:
            hit = np.nonzero((flat >= start) & (flat < start + x.size))[0]
            if hit.size:
                self.emit(node, (hit.size,), [(self.env[x], self.table_addr(flat[hit] - start))],
                          _COPY, dst=dst, dst_addr=self.table_addr(hit))
            start += x.size
        return dst

    def gather_one(self, node, table):
        (x,) = node.inputs
        src = self.env[x]
        identity = np.array_equal(table.ravel(), np.arange(node.size))
        if identity and (not node.shape) == self.is_scalar(src):
            return src  # a reshape: the same memory (or the same SSA value)
        return self.emit(node, node.shape, [(src, self.table_addr(table))], _COPY)

    def table_addr(self, table):
        table = np.asarray(table, dtype=np.int64)
        return affine_fit(table) or ("tab", self.add_const(table, "i8"))

    def scatter(self, node):
        (g,) = node.inputs
        pos = np.asarray(node.op.scatter_positions(**node.attrs), dtype=np.int64)
        pos = np.broadcast_to(pos, g.shape)
        reduce = (_ADD, 0.0.hex(), not node.shape)
        src = [(self.env[g], ("aff", 0, c_strides(g.shape)))]
        if not node.shape:  # everything lands on one scalar: a plain sum
            return self.emit(node, g.shape, src, _COPY, reduce=reduce, nout=0)
        dst = self.emit(node, node.shape, [], _ZERO)
        self.emit(node, g.shape, src, _COPY, reduce=reduce, dst=dst, dst_addr=self.table_addr(pos))
        return dst

    def reduction(self, node):
        (x,) = node.inputs
        axis = node.attrs["axis"]
        keep = [i for i in range(x.ndim) if i not in axis]
        order = keep + list(axis)
        a, b = sympy.symbols("_x0 _x1", real=True)
        pair = np.empty(2, dtype=object)
        pair[0], pair[1] = a, b
        combined = np.asarray(node.op.symbolic(_Attrs(axis=(0,), keepdims=False), pair)).item()
        identity = float(np.asarray(node.op.impl(np.empty(0), axis=(0,), keepdims=False)))
        dims = tuple(x.shape[i] for i in order)
        strides = c_strides(x.shape)
        src = [(self.env[x], ("aff", 0, tuple(strides[i] for i in order)))]
        return self.emit(node, dims, src, _COPY, nout=len(keep),
                         reduce=(translate(combined, 2), identity.hex(), True))

    def contraction(self, node):
        specs, out = node.op.subscripts([x.shape for x in node.inputs], **node.attrs)
        sizes = dict(zip(out, node.shape))
        summed = []
        for spec, x in zip(specs, node.inputs):
            for c, d in zip(spec, x.shape):
                if c is not None and c not in sizes:
                    sizes[c] = d
                    summed.append(c)
        letters = list(out) + summed
        srcs = []
        for spec, x in zip(specs, node.inputs):
            own = dict((c, s) for c, s in zip(spec, c_strides(x.shape)) if c is not None)
            srcs.append((self.env[x], ("aff", 0, tuple(own.get(c, 0) for c in letters))))
        syms = arg_symbols([np.float64] * len(node.inputs))
        body = translate(sympy.Mul(*syms), len(syms))
        return self.emit(node, tuple(sizes[c] for c in letters), srcs, body, nout=len(out),
                         reduce=(_ADD, 0.0.hex(), True))

    def decomposed(self, node):
        scratch = Graph()
        holders = [scratch.add_node(REGISTRY["placeholder"], (), {"shape": x.shape}, x.shape,
                                    x.dtype, name=f"arg{i}") for i, x in enumerate(node.inputs)]
        out = node.op.decompose(*holders, **node.attrs)
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
            if ref[0] == "buf" and ref not in claimed and node.dtype == np.float64:
                self.rename(ref, out)  # compute straight into the output array
                claimed.add(ref)
            else:
                self.emit(node, node.shape, [(ref, ("aff", 0, c_strides(node.shape)))], _COPY,
                          dst=out)
            self.program.outputs.append((node.dtype.str, node.shape, out))

    def rename(self, old, new):
        for s in self.program.stmts:
            if s.dst == old:
                s.dst = new
            s.srcs = tuple((new if r == old else r, a) for r, a in s.srcs)
        for node, ref in self.env.items():
            if ref == old:
                self.env[node] = new


def node_key(node, env):
    """A hashable key equal for nodes computing the same value (op, input refs, attrs)."""
    if not node.inputs:
        if node.value is None:
            return ("leaf", id(node))
        value = np.asarray(node.value)
        return ("leaf", value.dtype.str, value.shape, value.tobytes())
    attrs = tuple((k, _canonical(v)) for k, v in sorted(node.attrs.items()) if k != "label")
    return (node.op.name, tuple(env[x] for x in node.inputs), attrs, node.shape,
            node.dtype.str)


def _canonical(v):
    if isinstance(v, np.ndarray):
        return ("arr", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_canonical(u) for u in v)
    if isinstance(v, slice):
        return ("slice", v.start, v.stop, v.step)
    if isinstance(v, sympy.Basic):
        return ("sympy", sympy.srepr(v))
    if isinstance(v, np.dtype) or isinstance(v, type):
        return ("dtype", np.dtype(v).str)
    return v


def _sympy_number(value, dtype):
    if np.dtype(dtype).kind == "b":
        return sympy.true if value else sympy.false
    return to_number(value)


_COPY = (("arg", 0),)
_ZERO = (("const", 0.0.hex()),)
_ADD = (("arg", 0), ("arg", 1), ("add", 0, 1))
