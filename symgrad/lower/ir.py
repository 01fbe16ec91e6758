"""The loop IR: :class:`Program` and :class:`Loop`, addresses and node keys.

See ``lower.program`` for how graphs become Programs.  Everything here is plain
data (tuples, ints, strings), so a Program round-trips through ``repr`` and
``ast.literal_eval`` into a generated module.

Imports numpy and ``lower.cache`` (for the code version); SymPy only where sizes are
symbols, so compiling a generated module of known sizes (an unpickled evaluator's
batch loop) needs no SymPy.

>>> affine_fit(np.arange(6).reshape(2, 3).T)
('aff', 0, (1, 3))
"""
from __future__ import annotations

import base64
import functools
import hashlib
import sys

import numpy as np

from ..graph import Dim
from .cache import code_version


class Loop:
    """One loop statement (see the module docstring); fields are plain literals."""

    __slots__ = ("dims", "nout", "dst", "dst_addr", "srcs", "body", "reduce", "round32")

    def __init__(self, dims, nout, dst, dst_addr, srcs, body, reduce=None, round32=False):
        self.dims, self.nout, self.dst, self.dst_addr = tuple(dims), nout, dst, dst_addr
        self.srcs, self.body, self.reduce, self.round32 = tuple(srcs), body, reduce, round32

    def as_tuple(self):
        return tuple(getattr(self, f) for f in self.__slots__)


class Program:
    """Inputs, outputs, temporaries, constant tables and loop statements of one kernel.

    Sizes (loop bounds, strides, offsets, buffer and array sizes) are ints, or
    :class:`~symgrad.graph.Dim` for sizes known when the kernel is called: each
    size symbol is read from an input array's shape (``sizes``: name, input,
    axis), and ``checks`` lists sizes that must be equal (``(a, b, message)``).
    One kernel then serves every size.
    """

    def __init__(self, inputs=(), outputs=(), buffers=(), consts=(), stmts=(), nssa=0,
                 sizes=(), checks=()):
        self.inputs = list(inputs)      # (name, dtype str, shape)
        self.outputs = list(outputs)    # (dtype str, shape, ref)
        self.buffers = list(buffers)    # sizes of double temporaries
        self.consts = list(consts)      # (kind 'f8'/'i8', shape, base64 bytes)
        self.stmts = list(stmts)
        self.nssa = nssa
        self.sizes = list(sizes)        # (symbol name, input k, axis)
        self.checks = list(checks)      # (Dim or int, Dim or int, message)
        self.fusion_plan = None   # (statement ids, plan): loopfuse.remember, not saved

    def to_literal(self):
        """A ``repr``-able structure of builtins (``ast.literal_eval`` reads it back)."""
        data = {"inputs": self.inputs, "outputs": self.outputs, "buffers": self.buffers,
                "consts": self.consts, "stmts": [s.as_tuple() for s in self.stmts],
                "nssa": self.nssa, "sizes": self.sizes, "checks": self.checks}
        return encode_sizes(data) if self.size_exprs() else data

    @classmethod
    def from_literal(cls, data):
        data = decode_sizes(data, [name for name, _, _ in data.get("sizes", ())])
        stmts = [Loop(*s) for s in data["stmts"]]
        return cls(data["inputs"], data["outputs"], data["buffers"], data["consts"], stmts,
                   data["nssa"], data.get("sizes", ()), data.get("checks", ()))

    def size_exprs(self):
        """Every distinct size expression (SymPy) the program uses, in first-use order."""
        found = {}

        def add(values):
            for v in values:
                if isinstance(v, Dim):
                    found.setdefault(v.expr, None)

        for _, _, shape in self.inputs:
            add(shape)
        for _, shape, _ in self.outputs:
            add(shape)
        add(self.buffers)
        for st in self.stmts:  # (one pass over the fields that can hold sizes: it is
            add(st.dims)       # called on programs of 10^5 statements)
            for addr in (st.dst_addr,) + tuple(a for _, a in st.srcs):
                if addr is not None and addr[0] == "aff":
                    add((addr[1],))
                    add(addr[2])
            add(op[1] for op in st.body if op[0] == "dim")
        add(c for check in self.checks for c in check[:2])
        return list(found)

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


def encode_sizes(value):
    """``value`` with every Dim as ``("size", "3*n_X")`` (literal_eval-able)."""
    if isinstance(value, Dim):
        return ("size", str(value.expr))
    if isinstance(value, tuple):
        return tuple(encode_sizes(v) for v in value)
    if isinstance(value, list):
        return [encode_sizes(v) for v in value]
    if isinstance(value, dict):
        return {k: encode_sizes(v) for k, v in value.items()}
    return value


def decode_sizes(value, names):
    """The inverse of :func:`encode_sizes`, over the size symbols ``names``."""
    symbols = {}

    def walk(v):
        if isinstance(v, tuple):
            if len(v) == 2 and v[0] == "size" and isinstance(v[1], str):
                return Dim(_parse_size(v[1], names, symbols))
            return tuple(walk(u) for u in v)
        if isinstance(v, list):
            return [walk(u) for u in v]
        if isinstance(v, dict):
            return {k: walk(u) for k, u in v.items()}
        return v
    return walk(value)


def shape_key(shape):
    """A shape for hashing into keys: unknown sizes by their expression."""
    return tuple(("dim", str(d.expr)) if isinstance(d, Dim) else d for d in shape)


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
    # the last entry first: most tables that are not affine miss it, and the full
    # check below costs milliseconds on the 10^6 gaps of a dense Hessian's scatter
    if int(table.flat[-1]) != base + sum(s * (n - 1) for s, n in zip(strides, table.shape)):
        return None
    grid = np.full(table.shape, base, dtype=np.int64)
    for d, s in enumerate(strides):
        if s:
            shape = [1] * table.ndim
            shape[d] = table.shape[d]
            grid = grid + s * np.arange(table.shape[d], dtype=np.int64).reshape(shape)
    return ("aff", base, tuple(strides)) if np.array_equal(grid, table) else None


def split_table(table):
    """``(strides, rest)``: ``table`` as an affine function of its leading axes plus
    ``rest``, a table over the other axes (as many leading axes as possible), so that
    ``table[i] == sum(strides[j] * i[j]) + rest[i[len(strides):]]``; ``((), table)``
    if there is no such split.  A batched sweep's gathers and scatters repeat the same
    positions for every seed, shifted by the seed's offset: their table is one seed's.

    >>> strides, rest = split_table(np.array([[2, 0, 1], [5, 3, 4]]))
    >>> strides, rest.tolist()
    ((3,), [2, 0, 1])
    """
    for lead in range(table.ndim - 1, 0, -1):
        rest = table[(0,) * lead]
        head = table[(slice(None),) * lead + (0,) * (table.ndim - lead)] - rest.flat[0]
        fit = affine_fit(head)
        if fit is not None and fit[1] == 0 and np.array_equal(
                table, head.reshape(head.shape + (1,) * rest.ndim) + rest):
            return fit[2], rest
    return (), table


@functools.lru_cache(maxsize=4096)
def broadcast_axes(in_shape, out_shape):
    """For each axis of ``out_shape``, the axis of ``in_shape`` it indexes (None: copies)."""
    lead = len(out_shape) - len(in_shape)
    return tuple(None if j < lead or in_shape[j - lead] == 1 and o != 1 else j - lead
                 for j, o in enumerate(out_shape))


@functools.lru_cache(maxsize=4096)
def broadcast_addr(in_shape, out_shape):
    """Affine address of an input broadcast against ``out_shape`` (stride 0 on copies)."""
    lead = len(out_shape) - len(in_shape)
    own = c_strides(in_shape)
    strides = [0] * lead + [0 if d == 1 and o != 1 else s
                            for d, o, s in zip(in_shape, out_shape[lead:], own)]
    return ("aff", 0, tuple(strides))


def node_key(node, env):
    """A hashable key equal for nodes computing the same value (op, input refs, attrs)."""
    if not node.inputs:
        if node.value is None:
            return ("leaf", id(node))
        value = np.asarray(node.value)
        return ("leaf", value.dtype.str, value.shape, value.tobytes())
    attrs = tuple((k, _canonical(v)) for k, v in sorted(node.attrs.items()) if k != "label")
    # Input shapes matter: a reshape shares its input's ref, so one ref may be read
    # with two shapes ((1, 2) vs (2, 1) broadcast differently).
    return (node.opdef.name, tuple((env[x], x.shape) for x in node.inputs), attrs, node.shape,
            node.dtype.str)  # (Dims hash and compare by their expressions)


def _parse_size(text, names, symbols):
    # SymPy is imported only for programs with sizes known at call time, so a module
    # of known sizes compiles (an unpickled evaluator's batch loop) without it
    import sympy
    if not symbols:
        symbols.update((n, sympy.Symbol(n, integer=True, nonnegative=True)) for n in names)
    return sympy.parse_expr(text, local_dict=symbols)


@functools.lru_cache(maxsize=65536)
def _srepr(expr):
    import sympy
    return sympy.srepr(expr)


def _canonical(v):
    if isinstance(v, np.ndarray):
        return ("arr", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, (list, tuple)):
        return (type(v).__name__,) + tuple(_canonical(u) for u in v)
    if isinstance(v, slice):
        return ("slice", _canonical(v.start), _canonical(v.stop), v.step)
    if isinstance(v, Dim):
        return ("dim", str(v.expr))
    sympy = sys.modules.get("sympy")   # without SymPy imported, nothing is SymPy's
    if sympy is not None and isinstance(v, sympy.Basic):
        return ("sympy", _srepr(v))
    if isinstance(v, np.dtype) or isinstance(v, type):
        return ("dtype", np.dtype(v).str)
    return v


def graph_key(outputs, inputs, fastmath):
    """A hash of everything the generated code depends on: the graph below ``outputs``
    (ops, attrs, shapes, dtypes, baked leaf values), which nodes are inputs, and flags.

    Equal keys lower to the same module, so the cache can skip lowering.
    """
    position = {x: ("in", k, x.dtype.str, shape_key(x.shape)) for k, x in enumerate(inputs)}
    # every input's dtype and shape, used or not: they fix the compiled signature
    parts = [repr(bool(fastmath)), code_version(),
             repr([position[x] for x in inputs])]
    stack, order, seen = list(outputs), [], set(inputs)
    while stack:  # the nodes needed, stopping at inputs
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            order.append(node)
            stack.extend(node.inputs)
    for n, node in enumerate(sorted(order, key=lambda m: m.id)):
        position[node] = n
        parts.append(repr(_graph_entry(node, position)))
    parts.append(repr([position[x] for x in outputs]))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _graph_entry(node, position):
    if not node.inputs:
        value = None if node.value is None else np.asarray(node.value)
        data = None if value is None else hashlib.sha256(value.tobytes()).hexdigest()
        return ("leaf", node.opdef.name, node.dtype.str, shape_key(node.shape), data, id(node) if
                value is None else None)
    attrs = tuple((k, _canonical(v)) for k, v in sorted(node.attrs.items()) if k != "label")
    return (node.opdef.name, tuple(position[x] for x in node.inputs), attrs,
            shape_key(node.shape), node.dtype.str)


# Bodies (``lower.scalar``'s SSA form) shared by the lowerings: a copy, a zero, the sum
# of two arguments, and ``g + 0.0`` (what ``0 + g`` gives: +0.0 for -0.0).
COPY = (("arg", 0),)
ZERO = (("const", 0.0.hex()),)
ADD = (("arg", 0), ("arg", 1), ("add", 0, 1))
PLUS_ZERO = (("arg", 0), ("const", 0.0.hex()), ("add", 0, 1))
