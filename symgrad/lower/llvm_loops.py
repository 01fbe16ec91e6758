"""The emitter's memory and loops: arrays in and out, loads, stores, loop nests and
statements (maps, reductions, scatter-adds) of the loop IR.

A mixin of ``lower.llvm``'s emitter.  Arrays of layout ``C`` are used in place;
others (a gufunc's slices) are copied through a contiguous temporary with their
runtime strides.  Everything is a double inside; loads and stores convert from/to
the arrays' dtypes.

Imports numpy, numba, llvmlite, ``lower.ir`` and ``lower.llvm_hints``.

>>> _Mem(None, "f4").dtype
dtype('float32')
"""
from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba.core import cgutils, types

from ..graph import Dim
from . import alias, llvm_hints
from .collapse import collapsed
from .ir import c_strides
from .llvm_scalar import F64
from .llvm_sizes import I64
from .peephole import UNROLLED_BLOCK, indexed, trig_pairs, unrolled, unrolled_inner, \
    vector_divisions


def narrowest(arr):
    """``arr`` (a baked table) in the narrowest signed integer dtype holding it exactly:
    index tables and 0/1 seed tables are most of a compressed Hessian's constants, and
    LLVM parses, optimises and the cache stores every byte of them (LJ-27's [f, g, H]:
    275 kB of tables as 8-byte elements).  Floats stay floats unless every entry is a
    whole number in -127..127 other than -0.0; loads widen them again (``load``,
    ``load_index``).

    >>> narrowest(np.array([0.0, 1.0, 0.0])).dtype, narrowest(np.array([0.5])).dtype
    (dtype('int8'), dtype('float64'))
    >>> narrowest(np.array([-0.0])).dtype, narrowest(np.arange(40000)).dtype
    (dtype('float64'), dtype('int32'))
    """
    arr = np.ascontiguousarray(arr)
    if not arr.size:
        return arr
    if arr.dtype == np.float64:
        whole = np.isfinite(arr).all() and (arr == np.round(arr)).all() and \
            not np.signbit(arr[arr == 0]).any()
        if not whole or np.abs(arr).max() > 127:
            return arr
    low, high = arr.min(), arr.max()
    for dtype in (np.int8, np.int16, np.int32):
        info = np.iinfo(dtype)
        if info.min <= low and high <= info.max:
            return arr.astype(dtype)
    return arr.astype(np.int64)


def _in_loop(prefix):
    """Whether the indices ``prefix`` include a loop's (the nest is not unrolled there):
    a block boundary inside a loop body would keep LLVM from vectorising it."""
    return any(not isinstance(i, ir.Constant) for i in prefix)


class _Mem:
    """A pointer to elements of one numpy dtype, loaded/stored as doubles; ``scope``:
    its alias scopes (``lower.alias``), or None."""

    def __init__(self, ptr, dtype, scope=None):
        self.ptr, self.dtype, self.scope = ptr, np.dtype(dtype), scope


class LoopEmitter:
    """Mixin: memory (``self.mem``: ref -> ``_Mem``), scalars and statements over
    ``self.b``; needs ``temp`` (scratch memory) and ``run_body`` from the emitter."""

    unrolled_size = 0   # instructions of unrolled code since the last block boundary
    whole = False       # every loop unrolled (``peephole.unrolled_whole``)
    lane_state = None   # [(mem, scalars)] per point when several are evaluated at once
    spilled, passed_on, spill = (), (), None   # while emitting chunks (_Emitter.chunked)

    @functools.cached_property
    def paired(self):
        """The 0-d values whose sine and cosine are taken (``peephole.trig_pairs``), all
        paired whatever the number of points."""
        return trig_pairs(self.p.stmts)

    @functools.cached_property
    def vector_sizes(self):
        """The outer loop sizes whose nests are to vectorise
        (``peephole.vector_divisions``): their members' small inner loops are unrolled."""
        return vector_divisions(self.p.stmts)

    @functools.cached_property
    def tables(self):
        """Index tables read while emitting unrolled loops: constant -> flat array."""
        return {}

    def _array_memory(self, ty, val, shape):
        """The array's struct, its data as memory, and a float64 scratch buffer of its
        size (None for C-contiguous arrays, which are used in place)."""
        ary = self.context.make_array(ty)(self.context, self.b, val)
        mem = _Mem(ary.data, ty.dtype.name if ty.dtype != types.boolean else np.bool_)
        if ty.layout == "C":
            return ary, mem, None
        size = 1
        for d in shape:
            size = size * d
        return ary, mem, _Mem(self.temp(size), np.float64)

    def array_in(self, ty, val, shape, dtype):
        ary, mem, tmp = self._array_memory(ty, val, shape)
        if tmp is None:
            return mem
        if mem.dtype != np.float64:
            self.strided_copy(tmp, mem, ary, shape, to_array=False)
            return tmp
        dense = self.is_dense(ary, shape)  # a gufunc's slices usually are: use them in place
        with self.b.if_then(self.b.not_(dense)):
            self.strided_copy(tmp, mem, ary, shape, to_array=False)
        return _Mem(self.b.select(dense, mem.ptr, tmp.ptr), np.float64)

    def array_out(self, ty, val, shape):
        ary, mem, tmp = self._array_memory(ty, val, shape)
        if tmp is None:
            return mem
        if mem.dtype != np.float64:
            self.copy_out.append((tmp, mem, ary, shape, None))
            return tmp
        dense = self.is_dense(ary, shape)
        self.copy_out.append((tmp, mem, ary, shape, dense))
        return _Mem(self.b.select(dense, mem.ptr, tmp.ptr), np.float64)

    def is_dense(self, ary, shape):
        """i1: the array's runtime strides are those of a C-contiguous array of ``shape``."""
        strides = cgutils.unpack_tuple(self.b, ary.strides, len(shape))
        ok = ir.Constant(ir.IntType(1), 1)
        for d, (size, step) in enumerate(zip(shape, c_strides(shape))):
            if isinstance(size, Dim) or size > 1:  # (an unknown size of 1 is checked too)
                bytes_ = self.b.mul(self.iv(step), ir.Constant(I64, 8))
                same = self.b.icmp_signed("==", strides[d], bytes_)
                ok = self.b.and_(ok, same)
        return ok

    def scalar_in(self, ty, val, dtype):
        v = self.context.cast(self.b, val, ty, types.float64)
        return self.round32(v) if np.dtype(dtype) == np.float32 else v

    def strided_copy(self, contiguous, strided, ary, shape, to_array):
        """Copy between a C-ordered temporary and an array with runtime byte strides."""
        strides = cgutils.unpack_tuple(self.b, ary.strides, len(shape))
        cstr = c_strides(shape)
        base = self.b.ptrtoint(strided.ptr, I64)

        def body(idx):
            flat = self.affine(0, cstr, idx)
            off = ir.Constant(I64, 0)
            for i, s in zip(idx, strides):
                off = self.b.add(off, self.b.mul(i, s))
            ptr_ty = strided.ptr.type
            elem = _Mem(self.b.inttoptr(self.b.add(base, off), ptr_ty), strided.dtype)
            if to_array:
                self.store(elem, ir.Constant(I64, 0), self.load(contiguous, flat))
            else:
                self.store(contiguous, flat, self.load(elem, ir.Constant(I64, 0)))
        self.nest(shape, body)

    def global_array(self, k):
        arr = narrowest(self.p.const_array(k))
        data = bytearray(arr.tobytes()) or bytearray(8)
        init = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
        name = f"symgrad.const.{id(self)}.{k}"
        gv = cgutils.global_constant(self.b.module, name, init)
        gv.align = 16
        elem = F64 if arr.dtype == np.float64 else ir.IntType(8 * arr.dtype.itemsize)
        return _Mem(self.b.bitcast(gv, elem.as_pointer()), arr.dtype)

    # -- memory ------------------------------------------------------------------
    def load(self, mem, idx):
        v = self.b.load(self.b.gep(mem.ptr, [idx]))
        alias.tag(v, mem)
        kind = mem.dtype.kind
        if mem.dtype == np.float64:
            return v
        if kind == "f":
            return self.b.fpext(v, F64)
        if kind == "b":
            return self.b.uitofp(v, F64)
        if kind == "u":
            return self.b.uitofp(v, F64)
        return self.b.sitofp(v, F64)

    def store(self, mem, idx, v):
        kind, ptr = mem.dtype.kind, self.b.gep(mem.ptr, [idx])
        if mem.dtype == np.float64:
            pass
        elif kind == "f":
            v = self.b.fptrunc(v, ptr.type.pointee)
        elif kind == "b":
            v = self.b.zext(self.b.fcmp_unordered("!=", v, ir.Constant(F64, 0.0)),
                            ptr.type.pointee)
        elif kind == "u":
            v = self.b.fptoui(v, ptr.type.pointee)
        else:
            v = self.b.fptosi(v, ptr.type.pointee)
        alias.tag(self.b.store(v, ptr), mem)

    def scalar(self, ref):
        v = self.scalars.get(ref)
        return self.reload(ref) if v is None else v

    def reload(self, ref):
        """A 0-d value an earlier chunk stored (``_Emitter.chunked``), loaded in the
        basic block that reads it: a load per block keeps each live range short."""
        if ref not in self.spilled:
            raise KeyError(ref)
        block = self.b.block
        got = self.loaded.get(ref)
        if got is None or got[0] is not block:
            got = self.loaded[ref] = (block, self.b.load(self.spill_slot(self.spill, ref)))
        return got[1]

    def round32(self, v):
        return self.b.fpext(self.b.fptrunc(v, ir.FloatType()), F64)

    # -- loops -------------------------------------------------------------------
    def nest(self, dims, fn, prefix=(), unroll=0, reduction=False, indexed=False):
        """``fn(index)`` over the nest ``dims``: loops, or every index in turn when
        ``unroll`` (the instructions per index, counted towards block boundaries).
        Each loop gets its hint for LLVM (``lower.llvm_hints``; ``reduction``: the
        loops of a reduction; ``indexed``: the statement reads or writes through an
        index table)."""
        if not dims:
            return fn(prefix)
        if dims[0] == 1 or unroll:
            for i in range(dims[0]):
                self.nest(dims[1:], fn, prefix + (ir.Constant(I64, i),), unroll, reduction,
                          indexed)
                if unroll and len(dims) == 1 and not _in_loop(prefix):
                    self.unrolled_size += unroll
                    if self.unrolled_size > UNROLLED_BLOCK:
                        self.block_boundary()
                        self.unrolled_size = 0
            return None
        if dims[0] == 0:
            return None
        with cgutils.for_range(self.b, self.iv(dims[0])) as loop:
            self.nest(dims[1:], fn, prefix + (loop.index,), unroll, reduction, indexed)
        enclosed = any(not isinstance(i, ir.Constant) for i in prefix)
        loop_id = llvm_hints.hint(self.b.module, dims, reduction, enclosed, indexed)
        if loop_id is not None:
            llvm_hints.attach(loop.index, loop_id)

    def affine(self, base, strides, idx):
        if all(isinstance(i, ir.Constant) for i in idx) and not isinstance(base, Dim) and \
                not any(isinstance(s, Dim) for s in strides):   # an unrolled index
            return ir.Constant(I64, int(base) + sum(int(s) * i.constant
                                                    for s, i in zip(strides, idx)))
        acc = self.iv(base)
        for s, i in zip(strides, idx):
            if isinstance(s, Dim) or s:
                acc = self.b.add(acc, self.b.mul(i, self.iv(s)))
        return acc

    def address(self, addr, idx, dims):
        if addr[0] == "aff":
            return self.affine(addr[1], addr[2], idx)
        lead = addr[2] if len(addr) > 2 else ()   # ("tab", k, strides): affine + a table
        flat = self.affine(0, c_strides(dims[len(lead):]), idx[len(lead):])
        if isinstance(flat, ir.Constant):   # unrolled: the table's entry itself
            if addr[1] not in self.tables:
                self.tables[addr[1]] = self.p.const_array(addr[1]).reshape(-1)
            pos = ir.Constant(I64, int(self.tables[addr[1]][flat.constant]))
        else:
            pos = self.load_index(self.mem[("const", addr[1])], flat)
        if not lead:
            return pos
        head = self.affine(0, lead, idx[:len(lead)])
        if isinstance(head, ir.Constant) and isinstance(pos, ir.Constant):
            return ir.Constant(I64, head.constant + pos.constant)
        return self.b.add(head, pos)

    def load_index(self, mem, flat):
        v = self.b.load(self.b.gep(mem.ptr, [flat]))
        return v if mem.dtype.itemsize == 8 else self.b.sext(v, I64)

    def lanes(self):
        """The (memory, 0-d values) of each point the kernel evaluates side by side
        (``lower.lanes``): statements are emitted once per point, in the same loops."""
        return self.lane_state or [(self.mem, self.scalars)]

    def each_lane(self, fn, lanes):
        def run(idx):
            for self.mem, self.scalars in lanes:
                fn(idx)
        return run

    def statement(self, st, prefix=()):
        """Emit ``st``; inside a fused nest (``lower.loopfuse``), ``prefix`` indexes
        its first loops, which the nest runs."""
        dims, nout, lanes = st.dims, st.nout, self.lanes()
        inner = dims[len(prefix):]
        small = unrolled(st, self.whole) if not prefix else \
            dims[0] in self.vector_sizes and unrolled_inner(inner)
        unroll = (len(st.body) + 2) * len(lanes) if small else 0
        tabled = indexed(st)
        if st.reduce is None:
            def value(idx):
                self.put(st, idx, self.body(st, idx))
            self.nest(inner, self.each_lane(value, lanes), prefix, unroll=unroll,
                      indexed=tabled)
            return
        combine, identity, init = st.reduce
        if not init:  # accumulate into memory (scatter-add)
            def accumulate(idx):
                mem, a = self.mem[st.dst], self.address(st.dst_addr, idx, dims)
                self.store(mem, a, self.combine(st, combine, self.load(mem, a), self.body(st, idx)))
            self.nest(inner, self.each_lane(accumulate, lanes), prefix, unroll=unroll,
                      indexed=tabled)
            return

        def outer(oidx):
            accs = self.accumulators(identity, lanes)
            self.reduce_into(st, accs, oidx, unroll)
            zeros = tuple(ir.Constant(I64, 0) for _ in dims[nout:])
            for (self.mem, self.scalars), acc in zip(lanes, accs):
                self.put(st, oidx + zeros, self.b.load(acc))
        self.nest(dims[len(prefix):nout], outer, prefix, unroll=unroll)

    def accumulators(self, identity, lanes):
        accs = [cgutils.alloca_once(self.b, F64) for _ in lanes]
        for acc in accs:
            self.b.store(ir.Constant(F64, float.fromhex(identity)), acc)
        return accs

    def reduce_into(self, st, accs, oidx, unroll=0):
        """Combine ``st``'s body over its loops after ``oidx`` into ``accs`` (per lane)."""
        def inner(ridx):
            for (self.mem, self.scalars), acc in zip(self.lanes(), accs):
                v = self.body(st, oidx + ridx)
                self.b.store(self.combine(st, st.reduce[0], self.b.load(acc), v), acc)
        self.nest(st.dims[len(oidx):], inner, unroll=unroll, reduction=True)

    def fused(self, depth, group):
        """The statements ``group`` in one nest over their first ``depth`` loops
        (``lower.loopfuse``); a reduction of everything carries its sum across it."""
        lanes, whole = self.lanes(), {}
        for st in group:
            if st.reduce is not None and st.reduce[2] and st.nout == 0:
                whole[id(st)] = self.accumulators(st.reduce[1], lanes)

        def step(prefix):
            for st in group:
                if id(st) in whole:
                    self.reduce_into(st, whole[id(st)], prefix)
                else:
                    self.statement(collapsed(st, depth), prefix)
        self.nest(group[0].dims[:depth], step, reduction=bool(whole))
        for st in group:
            for (self.mem, self.scalars), acc in zip(lanes, whole.get(id(st), ())):
                self.put(st, (), self.b.load(acc))

    def put(self, st, idx, v):
        if st.round32:
            v = self.round32(v)
        if st.dst[0] == "ssa":
            self.scalars[st.dst] = v
            if st.dst in self.paired:   # both here, in one block: one sincos call
                for name, value in zip(("sin", "cos"), self.sin_cos(v)):
                    self.calls[(name, id(v))] = (v, value)
            if self.defined is not None:
                self.defined.append(st.dst)
                if st.dst in self.passed_on:    # a later chunk reads it
                    self.b.store(v, self.spill_slot(self.spill, st.dst))
        else:
            self.store(self.mem[st.dst], self.address(st.dst_addr, idx, st.dims), v)

    def combine(self, st, body, acc, v):
        out = self.run_body(body, lambda k: (acc, v)[k])
        return self.round32(out) if st.round32 else out

    def body(self, st, idx):
        cache = {}

        def arg(k):
            if k not in cache:
                ref, addr = st.srcs[k]
                if addr is None:
                    cache[k] = self.scalar(ref)
                else:
                    cache[k] = self.load(self.mem[ref], self.address(addr, idx, st.dims))
            return cache[k]
        return self.run_body(st.body, arg)
