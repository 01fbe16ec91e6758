"""Program -> LLVM IR, emitted inside one Numba ``@intrinsic``.

Numba's front end is the bottleneck for large generated functions (DESIGN.md:
~10 s for 1,000 Python statements); building the same body as LLVM IR here keeps
compile time linear.  This module lays out the kernel (arguments, temporaries,
functions of chunks); ``lower.llvm_loops`` emits memory and loop statements,
``lower.llvm_scalar`` the scalar instructions, ``lower.llvm_sizes`` the sizes.

The kernel takes the inputs (0-d as scalars, others as arrays), then the output
arrays, and returns a tuple of doubles: the 0-d outputs.  Everything inside is a
double; loads and stores convert from/to the arrays' dtypes.  Arrays of layout
``C`` are used in place; others (a gufunc's slices) are copied through a
contiguous temporary with their runtime strides; every array's loads and stores
carry its alias scope (``lower.alias``: arrays never overlap).  No instruction can
trap: division, log, sqrt follow IEEE (numpy's error model); fast-math flags only
on request.

Imports numba, llvmlite and ``lower.ir``.

>>> from symgrad.lower.ir import Program
>>> kernel_return_type(Program()).count
1
"""
from __future__ import annotations

import os

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.core.typing import signature

from .. import progress
from ..graph import Dim
from . import alias, loopfuse
from .collapse import collapsed
from .llvm_loops import LoopEmitter, _Mem
from .llvm_scalar import F64, InstructionEmitter
from .llvm_sizes import I64, SizeValues
from .sincos import paired

BLOCK_SIZE = 200  # scalar instructions per basic block (see block_boundary)
# Compile time by size (measured on chains, CPU seconds, see benchmarks/second_order.py):
# LLVM's code generator is superlinear in the size of one function (register allocation,
# scheduling), so kernels above SPLIT_ABOVE scalar instructions become functions of
# ~CHUNK_SIZE each; above FAST_ABOVE the optimiser's own cost dominates and the chunks
# are compiled without optimisation (``optnone``): ~3x faster to build, ~1.3x slower to
# run.  Environment variables override them for measurements.
SPLIT_ABOVE = int(os.environ.get("SYMGRAD_SPLIT_ABOVE", 6000))
CHUNK_SIZE = int(os.environ.get("SYMGRAD_CHUNK_SIZE", 2000))
FAST_ABOVE = int(os.environ.get("SYMGRAD_FAST_ABOVE", 20000))
# Many loops in one function are superlinear too (loop and alias analyses; measured on the
# registry ops' graph over unknown sizes: 220 loops, 870 instructions): kernels of more
# than SPLIT_LOOPS loops become functions of CHUNK_LOOPS loops.
SPLIT_LOOPS = int(os.environ.get("SYMGRAD_SPLIT_LOOPS", 64))
CHUNK_LOOPS = int(os.environ.get("SYMGRAD_CHUNK_LOOPS", 32))
STACK_LIMIT = 8192  # doubles; larger temporaries (and gufunc copies) go on the heap


def _refs(stmts):
    """Every ref the statements read or write, constant tables of addresses included."""
    out = {}
    for st in stmts:
        out[st.dst] = None
        for addr in (st.dst_addr,) + tuple(a for _, a in st.srcs):
            if addr is not None and addr[0] == "tab":
                out[("const", addr[1])] = None
        for ref, _ in st.srcs:
            out[ref] = None
    return list(out)


def _size(st):
    return len(st.body) + (len(st.reduce[0]) if st.reduce is not None else 0)


def _is_loop(st):
    return any(d != 1 for d in st.dims)


def program_size(stmts):
    """Scalar instructions of the statements (a loop body counts once)."""
    return sum(_size(st) for st in stmts)


def split_statements(stmts, size, loops=None):
    """Consecutive runs of statements with about ``size`` scalar instructions (and at
    most ``loops`` loop statements, default CHUNK_LOOPS) each."""
    loops = CHUNK_LOOPS if loops is None else loops
    chunks, current, count, nloops = [], [], 0, 0
    for st in stmts:
        current.append(st)
        count += _size(st)
        nloops += _is_loop(st)
        if count >= size or nloops >= loops:
            chunks.append(current)
            current, count, nloops = [], 0, 0
    if current or not chunks:
        chunks.append(current)
    return chunks


def kernel_return_type(program):
    """A tuple of doubles: one per 0-d output (at least one slot)."""
    return types.UniTuple(types.float64, max(1, len(program.scalar_outputs)))


def kernel_signature(program, argtypes):
    """The intrinsic's typing: check the argument count, return the signature."""
    n_expected = len(program.inputs) + len(program.array_outputs)
    if len(argtypes) != n_expected:
        raise TypeError(f"kernel expects {n_expected} arguments, got {len(argtypes)}")
    return signature(kernel_return_type(program), *argtypes)


def emit_kernel(program, context, builder, sig, args, fastmath=False, whole=False):
    """Emit the body of ``program``; returns the LLVM value of the result tuple.
    ``whole``: every loop unrolled (``peephole.unrolled_whole``)."""
    e = _Emitter(program, context, builder, fastmath)
    e.whole = whole
    return e.run(sig, args)

class _Emitter(LoopEmitter, InstructionEmitter, SizeValues):
    def __init__(self, program, context, builder, fastmath):
        self.p, self.context, self.b = program, context, builder
        self.flags = ("fast",) if fastmath else ()
        self.mem, self.scalars, self.funcs, self.copy_out, self.heap = {}, {}, {}, [], []
        self.flags_of = {}
        self.defined = None  # the 0-d values a chunk defines, while emitting chunks

    # -- setup -------------------------------------------------------------------
    def run(self, sig, args):
        nin = len(self.p.inputs)
        self.read_sizes(sig, args)
        for k, ((_, dtype, shape), ty, val) in enumerate(zip(self.p.inputs, sig.args, args)):
            if shape:
                self.mem[("in", k)] = self.array_in(ty, val, shape, dtype)
            else:
                self.scalars[("in", k)] = self.scalar_in(ty, val, dtype)
        for k, ty, val in zip(self.p.array_outputs, sig.args[nin:], args[nin:]):
            self.mem[("out", k)] = self.array_out(ty, val, self.p.outputs[k][1])
        used = {st.dst for st in self.p.stmts} | {r for st in self.p.stmts for r, _ in st.srcs}
        heap = self.heap
        self.temporaries([k for k in range(len(self.p.buffers)) if ("buf", k) in used])
        for k in range(len(self.p.consts)):
            self.mem[("const", k)] = self.global_array(k)
        alias.mark(self.b.module, self.mem)
        total = program_size(self.p.stmts)
        if total <= SPLIT_ABOVE and sum(map(_is_loop, self.p.stmts)) <= SPLIT_LOOPS:
            self.statements(self.p.stmts)
        else:
            self.chunked(split_statements(paired(self.p.stmts), CHUNK_SIZE),
                         total > FAST_ABOVE)
        for src, dst, ary, shape, dense in self.copy_out:
            if dense is None:
                self.strided_copy(src, dst, ary, shape, to_array=True)
                continue
            with self.b.if_then(self.b.not_(dense)):
                self.strided_copy(src, dst, ary, shape, to_array=True)
        for ptr in heap:
            self.context.nrt.free(self.b, self.b.bitcast(ptr, ir.IntType(8).as_pointer()))
        values = [self.scalar(ref) for _, shape, ref in self.p.outputs if not shape]
        ret = sig.return_type
        values = values or [ir.Constant(F64, 0.0)]
        progress.stage("LLVM: optimising the kernel and making machine code")   # (Numba's)
        return self.context.make_tuple(self.b, ret, values)

    def statements(self, stmts):
        size = 0
        groups = [(0, [st]) for st in stmts] if self.whole else \
            loopfuse.planned_for(self.p, stmts)
        for depth, group in groups:
            if depth:
                self.fused(depth, group)
            else:
                self.statement(collapsed(group[0]))
            size += sum(len(st.body) for st in group)
            if size > BLOCK_SIZE:
                self.block_boundary()
                size = 0

    def chunked(self, chunks, fast):
        """Each chunk of statements in a function of its own, called in order.

        LLVM's optimiser and code generator grow faster than linearly with the size
        of a function; functions of ~CHUNK_SIZE instructions keep the compile time
        per instruction flat.  A chunk receives the memory it touches as ``noalias``
        pointers (buffers, inputs and outputs never overlap), the sizes read at call
        time as integers, and a spill array through which 0-d values pass from chunk
        to chunk: each chunk stores the ones later chunks need where it defines them,
        and loads the ones it reads in each basic block that reads them
        (``LoopEmitter.scalar``).  Loaded all at the chunk's entry and stored all at
        its end, as they once were, every such value lived across the whole chunk
        and the register allocator copied it to the chunk's own stack and back: the
        1,000-step chain's kernel had 38,900 instructions, 18,200 of them on the
        stack (28,900 and 7,300 without those copies; its code generation took half
        the time, and a 9,000-step chain compiled in 27 s instead of 31 and ran in
        0.79x the time: ``python -m benchmarks.compile_scaling``).  The calling
        function stays a short list of calls (loading the values there and passing
        them as arguments made it as long as the number of values crossing, and
        LLVM's memory analyses are quadratic on such a function).
        """
        used = [_refs(chunk) for chunk in chunks]
        later, needed = [], {ref for _, shape, ref in self.p.outputs if not shape}
        for refs in reversed(used):
            later.append(frozenset(needed))
            needed.update(refs)
        later.reverse()
        spill = cgutils.alloca_once(self.b, F64, size=ir.Constant(
            I64, max(1, len(self.p.inputs) + self.p.nssa)))
        main, mem, sizes = self.b, self.mem, self.sizes
        for ref, value in self.scalars.items():  # the 0-d inputs
            main.store(value, self.spill_slot(spill, ref))
        known = set(self.scalars)
        for n, (chunk, refs, after) in enumerate(zip(chunks, used, later)):
            progress.stage(f"emitting LLVM IR, function {n + 1} of {len(chunks)}")
            keys = [r for r in refs if r in mem]
            fn = self.chunk_function([mem[k].ptr.type for k in keys], len(sizes), fast)
            main.call(fn, [mem[k].ptr for k in keys] + list(sizes.values()) + [spill])
            self.b = ir.IRBuilder(fn.append_basic_block("entry"))
            self.mem = {k: _Mem(a, mem[k].dtype, mem[k].scope)
                        for k, a in zip(keys, fn.args)}
            self.sizes = dict(zip(sizes, fn.args[len(keys):-1]))
            self.scalars, self.loaded = {}, {}
            self.spilled = {r for r in refs if r not in mem and r in known}
            self.spill, self.passed_on = fn.args[-1], after
            self.flags_of, self.defined = {}, []
            self.statements(chunk)
            known.update(ref for ref in self.defined if ref in after)
            self.b.ret_void()
        self.b, self.mem, self.flags_of, self.defined = main, mem, {}, None
        self.spilled, self.spill, self.passed_on = (), None, ()
        self.sizes = sizes
        self.scalars = {r: main.load(self.spill_slot(spill, r)) for r in known
                        if r in later[-1]}

    def chunk_function(self, pointer_types, nsizes, fast):
        """A new internal function taking ``pointer_types``, ``nsizes`` i64 and the spill."""
        fnty = ir.FunctionType(ir.VoidType(), list(pointer_types) + [I64] * nsizes +
                               [F64.as_pointer()])
        fn = ir.Function(self.b.module, fnty, self.b.module.get_unique_name("symgrad.chunk"))
        fn.linkage = "internal"
        fn.attributes.add("noinline")  # inlined back, it would be one huge function again
        if fast:
            fn.attributes.add("optnone")
        for arg in fn.args[:len(pointer_types)] + (fn.args[-1],):
            arg.add_attribute("noalias")
        return fn

    def spill_slot(self, spill, ref):
        slot = ref[1] if ref[0] == "in" else len(self.p.inputs) + ref[1]
        return self.b.gep(spill, [ir.Constant(I64, slot)])

    def temporaries(self, keys):
        """Memory for the buffers ``keys``: small ones on the stack, the others in ONE
        heap block (one allocation per call: the C allocator then keeps reusing the
        same pages instead of mapping fresh, zeroed ones for each temporary)."""
        large = [k for k in keys if isinstance(self.p.buffers[k], Dim)
                 or self.p.buffers[k] > STACK_LIMIT]
        for k in keys:
            if k not in large:
                self.mem[("buf", k)] = _Mem(self.alloca(self.p.buffers[k]), np.float64)
        if not large:
            return
        offsets, total = [], ir.Constant(I64, 0)
        for k in large:  # each block starts on a 64-byte boundary (8 doubles)
            offsets.append(total)
            padded = self.b.add(self.iv(self.p.buffers[k]), ir.Constant(I64, 7))
            total = self.b.add(total, self.b.and_(padded, ir.Constant(I64, -8)))
        block = self.heap_alloc(total)
        self.heap.append(block)
        for k, offset in zip(large, offsets):
            self.mem[("buf", k)] = _Mem(self.b.gep(block, [offset]), np.float64)

    def temp(self, size):
        """Scratch doubles: on the stack when small and known, else on the heap."""
        if not isinstance(size, Dim) and size <= STACK_LIMIT:
            return self.alloca(size)
        ptr = self.heap_alloc(size)
        self.heap.append(ptr)
        return ptr

    def heap_alloc(self, size):
        """A temporary too large for the stack, from Numba's allocator (freed on exit)."""
        count = size if isinstance(size, ir.Value) else self.iv(size)
        nbytes = self.b.mul(count, ir.Constant(I64, 8))
        raw = self.context.nrt.allocate(self.b, nbytes)
        return self.b.bitcast(raw, F64.as_pointer())

    def alloca(self, size):
        return cgutils.alloca_once(self.b, F64, size=ir.Constant(I64, max(1, size)))
