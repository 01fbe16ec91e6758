"""Choices the LLVM emitter makes per statement, from the loop IR alone.

- :func:`trig_pairs`: 0-d values whose sine *and* cosine the kernel takes.  The
  emitter computes both where the value is defined, side by side in one basic
  block, so LLVM makes one ``sincos`` call of them (glibc's ``sincos`` returns
  exactly ``sin`` and ``cos``).  A reverse sweep otherwise takes ``sin(f)`` in the
  forward pass and ``cos(f)`` far later, in another block: two calls.  Every such
  value is paired.  (Until the reverse sweep was preaccumulated, ``lower.preaccumulate``,
  a one-point kernel paired at most 64: its reverse pass was one long chain of
  guarded products, which the cosines' calls overlapped; a 200-step sin chain, one
  point, vs hand @njit: 1.22 unpaired, 1.02-1.05 paired now.)  A kernel of several
  points side by side (``lower.lanes``): the points' chains overlap each other, and
  the calls saved are time saved (the 200-step chain per point, vs hand @njit: 1.02
  unpaired, 0.87 paired; build of the batch loop unchanged, 1.0 s).
- :func:`unrolled`: small loops that read or write through a constant index table
  (gathers and scatters: ``x[i]`` with ``i`` a table) are emitted unrolled, so
  every table entry becomes a constant address and the table loads disappear.
  Loops over plain strides stay loops: LLVM vectorises those (unrolled, a
  Rosenbrock-100 gradient ran 2.9x slower).
- :func:`unrolled_inner`: in a fused nest (``lower.loopfuse``) that is to vectorise
  (below), the inner loops of at most ``INNER_POINTS`` iterations of its statements (a
  pair's 3 coordinates) are emitted unrolled.  As loops, LLVM unswitched them on their
  strong-zero guards (a guard on a pair's cotangent, invariant over its coordinates,
  became two copies of the loop and a branch), and the nest around them no longer
  vectorised.  (In a nest that stays scalar, unrolled, they cost Lennard-Jones 27's
  gradient 1.2x its time.)
- :func:`vector_divisions`: the outer loops whose statements divide (or take square
  roots), call nothing LLVM cannot vectorise and read no index table inside the loop
  (a pair loop whose gathers are unrolled before it).  Such nests pay most for running 8
  elements a vector (AVX-512): their sums are kept out of them (``lower.loopfuse``)
  and they are not unrolled whole.  With both, Lennard-Jones 8's gradient kernel
  takes 0.8x the time of hand-written @njit code, one point or a batch (it took
  1.55x one point at a time, 1.2x unrolled whole in a batch).
- :func:`unrolled_whole`: the batch loop's kernel of a small program that goes
  through index tables is emitted with *every* loop unrolled (``unrolled(st,
  whole=True)``, no loop fusion): its temporaries then have constant addresses
  only, LLVM keeps them in registers, and the gathered differences and scattered
  gradients no longer pass through memory (LJ-8's batch per point vs hand @njit:
  1.60 -> 1.26).  Not for a call of one point: there it took longer (LJ-8 latency
  vs hand 1.15 -> 1.29, with fewer instructions: presumably the larger code is
  cold after each Python call; not measured).  Since its pair loop vectorises
  (``vector_divisions``), LJ-8 itself no longer takes it: 0.8x hand as loops.

Imports the graph's Dim and ``lower.sincos``.

>>> from symgrad.lower.ir import Loop
>>> st = Loop((3,), 1, ("buf", 0), ("aff", 0, (1,)), [(("in", 0), ("tab", 0))], (("arg", 0),))
>>> unrolled(st)
True
"""
from __future__ import annotations

import math

from ..graph import Dim
from .sincos import trig_calls

INNER_POINTS = 4             # iterations of a fused member's inner loops unrolled, at most
UNROLL_POINTS = 128          # iterations of a table loop emitted one by one, at most
UNROLL_INSTRUCTIONS = 1024   # and scalar instructions, over all of them
UNROLLED_BLOCK = 200         # unrolled instructions per basic block (see llvm.BLOCK_SIZE)
WHOLE_INSTRUCTIONS = 8192    # instructions of a program unrolled whole, at most


def trig_pairs(stmts):
    """The refs of 0-d values whose ``sin`` and ``cos`` are both called (by any
    statement), to be paired (see the module doc)."""
    seen: dict = {}
    for st in stmts:
        for name, ref in trig_calls(st):
            seen.setdefault(ref, set()).add(name)
    return {ref for ref, names in seen.items() if len(names) == 2}


def unrolled(st, whole=False):
    """Whether to emit the loop nest of statement ``st`` unrolled (see the module doc);
    ``whole``: in a program unrolled whole (:func:`unrolled_whole`)."""
    if any(isinstance(d, Dim) for d in st.dims):
        return False
    points = math.prod(st.dims)
    if points > UNROLL_POINTS or not whole and \
            points * (len(st.body) + 1) > UNROLL_INSTRUCTIONS:
        return False
    return whole or indexed(st)


def unrolled_inner(inner):
    """Whether the inner loops ``inner`` of a member of a fused nest are emitted
    unrolled (see the module doc)."""
    return all(isinstance(d, int) for d in inner) and math.prod(inner) <= INNER_POINTS


VECTOR_CALLS = frozenset({"sqrt", "fabs", "floor", "ceil", "trunc", "rint"})   # (LLVM's)


def vector_divisions(stmts):
    """The sizes of the outer loops (``dims[0]``) whose loop statements of known sizes
    divide or take square roots, make no other calls, and go through index tables only
    where they are unrolled (see the module doc).  A loop gathering or scattering
    through a table stays scalar (Lennard-Jones 27's 351 pairs: its energy sum apart,
    the gradient took 1.15x as long)."""
    over = {}
    for st in stmts:
        if st.dims and all(isinstance(d, int) for d in st.dims) and st.dims[0] > 1:
            over.setdefault(st.dims[0], []).append(st)
    found = set()
    for size, members in over.items():
        calls = {ins[1] for st in members for ins in st.body if ins[0] == "call"}
        tables = any(indexed(st) and not unrolled(st) for st in members)
        if not tables and calls <= VECTOR_CALLS and \
                any(ins[0] == "div" or ins[0] == "call" and ins[1] == "sqrt"
                    for st in members for ins in st.body):
            found.add(size)
    return found


def unrolled_whole(program):
    """Whether the batch loop's kernel of ``program`` is emitted with every loop
    unrolled: it reads or writes through an index table, and every loop is small
    (``UNROLL_POINTS``), of sizes known now, ``WHOLE_INSTRUCTIONS`` in all; not where
    a nest divides (``vector_divisions``: as loops, those vectorise)."""
    if vector_divisions(program.stmts):
        return False
    total = 0
    for st in program.stmts:
        if any(isinstance(d, Dim) for d in st.dims) or math.prod(st.dims) > UNROLL_POINTS:
            return False
        total += math.prod(st.dims) * (len(st.body) + 1 + len((st.reduce or ((),))[0]))
    return total <= WHOLE_INSTRUCTIONS and any(map(indexed, program.stmts))


def indexed(st):
    """Whether statement ``st`` reads or writes through an index table."""
    addrs = (st.dst_addr,) + tuple(a for _, a in st.srcs)
    return any(a is not None and a[0] == "tab" for a in addrs)
