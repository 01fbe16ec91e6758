"""Loop fusion in the emitter: adjacent loop statements that share their outer loops
run in one loop nest.

A kernel is a list of loop statements, each its own loop nest (``lower.program``).
Small loops over temporaries then cost their loop overhead each, and a reduction's
dependent chain of adds runs alone: nothing else of the kernel overlaps it.  Here
consecutive statements whose loop nests start with the same loops (``depth`` of them)
are grouped; the emitter runs the group's members one after the other *inside* one
nest over those loops (each member's remaining loops nested inside).  A value
written in one iteration and read in the same iteration then stays in registers
(LLVM forwards the store), and independent work overlaps the reduction.

The same instructions run on the same values in the same order per element:
results are bit for bit those of the statements one after the other.  Fusion is
legal when no element is touched by an earlier member in a *later* outer iteration
than a later member touches it (read after write, write after read, write after
write: a scatter-add's order of sums is kept too); this is checked per element on
the actual addresses (affine or index tables).  A member may be a map, a
scatter-add, a reduction whose reduced loops are all inside the shared ones, or a
reduction of everything to one value (its sum carried across the nest; no later
member may read it).  A statement that cannot join but touches nothing the group
touches is moved before the group (zero-fills, constants), so the group goes on.

A sum carried across a nest keeps LLVM from vectorising it (its adds stay in order:
no reassociation without fast-math).  Where the statements over that outer loop
divide (or take square roots), which cost several times more one element at a time
than in a vector, and call no function LLVM cannot vectorise
(``peephole.vector_divisions``), such a sum is kept out of the nest and runs after it,
in a loop of its own (``_kept_apart``).

Only nests of sizes known at compile time and at most ``MAX_POINTS`` iterations per
member are analysed; statements emitted unrolled (``peephole.unrolled``) keep their
own nest (their table entries become constants).

Imports numpy and ``lower.peephole``.

>>> from symgrad.lower.ir import Loop, Program
>>> a = Loop((4,), 1, ("buf", 0), ("aff", 0, (1,)), [(("in", 0), ("aff", 0, (1,)))],
...          (("arg", 0), ("neg", 0)))
>>> b = Loop((4,), 0, ("ssa", 0), None, [(("buf", 0), ("aff", 0, (1,)))], (("arg", 0),),
...          reduce=((("arg", 0), ("arg", 1), ("add", 0, 1)), "0x0.0p+0", True))
>>> [(d, len(g)) for d, g in plan(Program(stmts=[a, b]), [a, b])]
[(1, 2)]
>>> c = Loop((4,), 1, ("buf", 0), ("aff", 3, (-1,)), [(("in", 0), ("aff", 0, (1,)))],
...          (("arg", 0),))   # reversed: b would read buf[0] before c writes it
>>> [(d, len(g)) for d, g in plan(Program(stmts=[c, b]), [c, b])]
[(0, 1), (0, 1)]
"""
from __future__ import annotations

import math
import os

import numpy as np

from .peephole import unrolled, vector_divisions

MAX_POINTS = 1 << 15   # iterations of one member's nest, at most (the check is per element)
MAX_MEMBERS = 64       # statements per group, at most
LOOKAHEAD = 8          # statements looked at for one that would join a group (_later_joins)
MIN_SHARED = 4         # shared iterations, at least, for a nest that keeps loops of its own
ENABLED = os.environ.get("SYMGRAD_FUSE_LOOPS", "1") != "0"


def plan(program, stmts):
    """``[(depth, statements)]``: ``stmts`` in emission order, grouped; a group of
    depth d > 0 shares its first d loops; depth 0 is one statement on its own."""
    return _plan(program, stmts)


def _plan(program, stmts):
    out, group, moved, after = [], [], [], []
    nest = None   # the group's accesses so far (_Nest)
    apart = _kept_apart(stmts) if ENABLED else set()

    def flush():
        # the moved statements run before the group, in their order: planned the same
        # way, they fuse among themselves too (a colour sweep's maps moved before a
        # gradient's group); the sums kept apart run after it
        out.extend(_plan(program, moved) if len(moved) > 1 else ((0, [st]) for st in moved))
        if group:
            out.append((nest.depth if len(group) > 1 else 0, list(group)))
        out.extend((0, [st]) for st in after)
        moved.clear()
        group.clear()
        after.clear()

    for k, st in enumerate(stmts):
        if after and _conflicts(st, after):
            flush()   # st reads a sum kept apart, or writes what one reads
        if id(st) in apart:
            if group and nest.depth:
                after.append(st)   # after the group: it reads only what ran before it
            else:
                flush()
                out.append((0, [st]))
            continue
        if group and ENABLED and nest.depth:
            joined = _join(program, nest, group, st)
            if joined is not None:
                group.append(st)
                nest = joined
                continue
            if (not _fusible(st) or _short(group, nest.depth, st)
                    or _later_joins(nest, group, stmts[k + 1:k + 1 + LOOKAHEAD])) \
                    and len(moved) < MAX_MEMBERS and not _conflicts(st, group):
                moved.append(st)
                continue
        flush()
        group.append(st)
        nest = _Nest(program, _max_depth(st) if _fusible(st) else 0)
        if nest.depth:
            nest.add(st)
    flush()
    return out


def remember(program, planned):
    """Keep ``planned`` (the plan of ``program.stmts`` in their order) for the emitter.

    ``liveness.share_buffers`` plans before it renames buffers, and the plan stays
    legal after: buffers touched by one group are alive over all of it, so no two of
    them are merged, and buffers are shared only from one group to a later one.
    Planning again cost the emitter as much as the first time (LJ-27's Hessian: ~5 ms)."""
    program.fusion_plan = (tuple(map(id, program.stmts)), planned)


def planned_for(program, stmts):
    """``plan(program, stmts)``: the remembered plan when ``stmts`` are the statements
    it was made for (in the same order), else planned now."""
    known = program.fusion_plan
    if known is not None and known[0] == tuple(map(id, stmts)):
        return known[1]
    return plan(program, stmts)


def _join(program, nest, group, st):
    """The nest with ``st`` added, or None if ``st`` cannot join the group."""
    depth = _joint_depth(group, nest.depth, st)
    if not depth or len(group) >= MAX_MEMBERS:
        return None
    if depth < nest.depth:   # fewer shared loops: check the whole group again
        nest = _Nest(program, depth)
        for member in group:
            if not nest.admits(member):
                return None
            nest.add(member)
    if not nest.admits(st):
        return None
    nest.add(st)
    return nest


def _later_joins(nest, group, following):
    """Whether a loop statement after st (the next fusible one, past 0-d values and
    short fills) would join the group: then st, touching nothing the group touches, is
    moved before it rather than ending it (LJ-27's Hessian: a seed sweep's reduction,
    then a map over the pairs alone, then the sweep's next maps over seeds and pairs).
    Otherwise st ends the group and starts its own, which the loops after it may join
    (Rosenbrock-1000's sparse Hessian: moved before the gradient's group, each of its
    colour sweep's maps ran alone)."""
    for nxt in following:
        if not _fusible(nxt) or _short(group, nest.depth, nxt):
            continue
        return _joint_depth(group, nest.depth, nxt) == nest.depth and nest.admits(nxt)
    return False


def _kept_apart(stmts):
    """The ids of the whole sums to run after their nest rather than in it (see the
    module doc): reductions of everything to one value over an outer loop whose
    statements divide or take square roots and make no other calls."""
    sizes = vector_divisions(stmts)
    return {id(st) for st in stmts if _whole_sum(st) and _fusible(st) and st.dims[0] in sizes}


def _whole_sum(st):
    return st.reduce is not None and st.reduce[2] and st.nout == 0


def _fusible(st):
    dims = st.dims
    return (bool(dims) and all(isinstance(d, int) for d in dims) and dims[0] > 1
            and math.prod(dims) <= MAX_POINTS and not unrolled(st))


def _max_depth(st):
    """How many of ``st``'s outer loops it can share (a reduction's reduced loops can
    be shared only when they are all of its loops)."""
    if st.reduce is not None and st.reduce[2] and st.nout > 0:
        return st.nout
    return len(st.dims)


def _joint_depth(group, depth, st):
    if not depth or not _fusible(st):
        return 0
    return 0 if _short(group, depth, st) else _shared(group, depth, st)


def _shared(group, depth, st):
    d, shared = min(depth, _max_depth(st)), 0
    while shared < d and st.dims[shared] == group[0].dims[shared]:
        shared += 1
    return shared


def _short(group, depth, st):
    """Whether st and the group share only an outer loop of a few iterations (3
    colours) while st or the group keeps inner loops of its own.  Such sharing saves
    nothing and would hold the group (or the statements after st) to that depth: a
    zero fill over (3,) would keep a sweep over (3, 999) from sharing both loops with
    the next sweep.  st is moved before the group instead (when it touches nothing
    the group touches)."""
    shared = _shared(group, depth, st) if _fusible(st) else 0
    return 0 < shared < max(_max_depth(st), depth) and \
        math.prod(st.dims[:shared]) < MIN_SHARED


def _conflicts(st, group):
    """Whether ``st`` and the group touch a common ref that one of them writes."""
    writes = {m.dst for m in group}
    reads = {r for m in group for r, _ in m.srcs} | {m.dst for m in group if _accumulates(m)}
    own = {r for r, _ in st.srcs}
    return st.dst in writes or st.dst in reads or bool(own & writes)


def _accumulates(st):
    return st.reduce is not None and not st.reduce[2]


class _Nest:
    """The accesses of a group's members so far, over their first ``depth`` loops: per
    ref, per element, the last outer iteration that wrote it and that read it."""

    def __init__(self, program, depth):
        self.program, self.depth, self.writes, self.reads = program, depth, {}, {}

    def admits(self, st):
        """Whether ``st`` may run after the members in the same nest: no element it
        touches was touched in a later outer iteration where either touch writes; it
        reads no whole-nest reduction of a member."""
        outer = _outer_index(st.dims, self.depth)
        for ref, addr in st.srcs:
            if addr is None:
                if ref in self.writes:   # a 0-d value written in the nest: a reduction
                    return False
            elif not _after(self.writes, ref, self.where(addr, st), outer):
                return False
        if st.dst[0] == "ssa":
            return st.dst not in self.writes
        where = self.where(st.dst_addr, st)
        return _after(self.writes, st.dst, where, outer) and \
            _after(self.reads, st.dst, where, outer)

    def add(self, st):
        outer = _outer_index(st.dims, self.depth)
        for ref, addr in st.srcs:
            if addr is not None:
                _mark(self.reads, ref, self.where(addr, st), outer)
        if st.dst[0] == "ssa":
            self.writes[st.dst] = None
        else:
            _mark(self.writes, st.dst, self.where(st.dst_addr, st), outer)

    def where(self, addr, st):
        return _addresses(self.program, addr, st.dims)


def _outer_index(dims, depth):
    """The flat index over the first ``depth`` loops, for every iteration of ``dims``."""
    head = np.arange(math.prod(dims[:depth]), dtype=np.int64).reshape(dims[:depth])
    return np.broadcast_to(head.reshape(dims[:depth] + (1,) * (len(dims) - depth)), dims)


def _addresses(program, addr, dims):
    """The flat element positions ``addr`` touches, shaped like the nest ``dims``."""
    if addr[0] == "aff":
        pos = np.full(dims, int(addr[1]), dtype=np.int64)
        for d, s in enumerate(addr[2]):
            if s:
                shape = [1] * len(dims)
                shape[d] = dims[d]
                pos = pos + int(s) * np.arange(dims[d], dtype=np.int64).reshape(shape)
        return pos
    lead = addr[2] if len(addr) > 2 else ()
    table = program.const_array(addr[1]).reshape(dims[len(lead):])
    return _addresses(program, ("aff", 0, tuple(lead) + (0,) * (len(dims) - len(lead))),
                      dims) + table


def _after(seen, ref, where, outer):
    """No element of ``where`` was touched (in ``seen``) in a later outer iteration."""
    last = seen.get(ref)
    if last is None:
        return True
    inside = where < last.size
    return bool(np.all(last[where[inside]] <= outer[inside]))


def _mark(seen, ref, where, outer):
    size = int(where.max()) + 1 if where.size else 0
    last = seen.get(ref)
    if last is None or last.size < size:
        grown = np.full(max(size, 0 if last is None else last.size), -1, dtype=np.int64)
        if last is not None:
            grown[:last.size] = last
        seen[ref] = last = grown
    np.maximum.at(last, where.ravel(), np.broadcast_to(outer, where.shape).ravel())
