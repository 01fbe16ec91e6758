"""Loop collapsing: adjacent loops of one statement that walk memory as one loop do.

A batched sweep's statements are nests like ``for s in range(81): for p in
range(351): for c in range(3): t[1053*s + 3*p + c] = ...``: every address steps by
the inner loop's stride times its trip count when the outer of two loops steps.
Such a pair is one loop of ``351 * 3`` iterations.  Merged, LLVM sees fewer, longer
loops: it no longer unrolls the loop of 3 inside a loop it may not vectorize, and
the loop strength reduction, induction-variable and vectorizer passes have fewer
loops to work through.

Loops of one iteration go first (their index is always 0).  Then two adjacent
loops ``j, j + 1`` merge when, for every address of the statement:

- affine: ``stride[j] == stride[j + 1] * dims[j + 1]`` (broadcasts: both 0);
- an index table over the statement's loops (``("tab", k)``): always (the table is
  read at the C-order flat index of its loops, which merging keeps);
- a table after affine leading loops (``("tab", k, lead)``): both loops among the
  leading ones (and affine there as above) or both among the table's;

and both loops are output loops or both reduced loops of a reduction.  Sizes known
only at call time are left as they are.  The same elements are visited in the same
order: results are bit for bit those of the nest.

The LLVM emitter applies it to each statement as it emits it (``lower.llvm``; inside a
fused nest, ``lower.llvm_loops.fused``, to the loops after the shared ones), after loop
fusion has grouped the statements as lowered; the readable source (``f.source``) shows
the nests as lowered.  Measured (one process per build, medians of 3, one run, with the
fixed-width rows of ``lower.llvm_hints``): [f, g, H] builds of LJ-27 0.503 -> 0.467 s,
the MLP 0.655 -> 0.602 s; latencies unchanged.  ``SYMGRAD_COLLAPSE=0`` turns it off.

Imports only the loop IR.

>>> from symgrad.lower.ir import Loop
>>> st = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
...           [(("in", 0), ("tab", 0)), (("in", 1), ("aff", 0, (0, 1, 0)))], (("arg", 0),))
>>> collapsed(st).dims      # the broadcast over the last loop keeps it apart
(4, 5, 3)
>>> st = Loop((4, 5, 3), 3, ("buf", 0), ("aff", 0, (15, 3, 1)),
...           [(("in", 0), ("tab", 0, (9,))), (("in", 1), ("aff", 2, (0, 0, 0)))],
...           (("arg", 0),))
>>> c = collapsed(st)
>>> c.dims, c.dst_addr, c.srcs[0][1]
((4, 15), ('aff', 0, (15, 1)), ('tab', 0, (9,)))
"""
from __future__ import annotations

import os

from .ir import Loop

ENABLED = os.environ.get("SYMGRAD_COLLAPSE", "1") != "0"


def collapsed(st, keep=0):
    """``st`` with every mergeable pair of adjacent loops after the first ``keep``
    merged (``st`` itself when none is)."""
    dims = list(st.dims)
    if not ENABLED or len(dims) - keep < 2 or not all(type(d) is int for d in dims):
        return st
    addrs = [st.dst_addr] + [a for _, a in st.srcs]
    nout, changed = st.nout, False
    for j in range(len(dims) - 1, keep - 1, -1):   # loops of one iteration: none
        if dims[j] == 1 and len(dims) > 1:
            addrs = [_without(a, j) for a in addrs]
            del dims[j]
            nout -= j < nout
            changed = True
    j = len(dims) - 2
    while j >= keep:
        if (j + 1 < nout or j >= nout) and all(_mergeable(a, j, dims) for a in addrs):
            addrs = [_without(a, j) for a in addrs]
            dims[j:j + 2] = [dims[j] * dims[j + 1]]
            nout -= j < nout
            changed = True
        j -= 1
    if not changed:
        return st
    return Loop(dims, nout, st.dst, addrs[0], [(ref, a) for (ref, _), a in
                                                 zip(st.srcs, addrs[1:])],
                st.body, st.reduce, st.round32)


def _without(addr, j):
    """``addr`` without loop j: a loop of one iteration (its index is always 0), or one
    merged into loop j + 1 (which keeps its stride: :func:`_mergeable` checked it)."""
    if addr is None:
        return None
    if addr[0] == "aff":
        return ("aff", addr[1], _drop(addr[2], j))
    lead = addr[2] if len(addr) > 2 else ()
    if j >= len(lead):
        return addr
    lead = _drop(lead, j)
    return ("tab", addr[1], lead) if lead else ("tab", addr[1])


def _mergeable(addr, j, dims):
    if addr is None:
        return True
    if addr[0] == "aff":
        return _affine_pair(addr[2], j, dims)
    lead = addr[2] if len(addr) > 2 else ()
    if j + 1 < len(lead):
        return _affine_pair(lead, j, dims)
    return j >= len(lead)


def _affine_pair(strides, j, dims):
    a, b = strides[j], strides[j + 1]
    return type(a) is int and type(b) is int and a == b * dims[j + 1]


def _drop(strides, j):
    """The strides without loop j's."""
    return tuple(strides[:j]) + tuple(strides[j + 1:])
