"""Sines and cosines of one value side by side, so that LLVM computes both in one call.

The reverse sweep of ``sin(x)`` needs ``cos(x)``: the forward sweep takes the sine
early, the reverse sweep the cosine late.  The emitter takes both where ``x`` is
defined (``peephole.trig_pairs``), and LLVM makes one ``sincos`` call of them (about
the cost of one of the two).  In a kernel split into several functions (``lower.llvm``'s
chunks, above ``SPLIT_ABOVE`` instructions) the statement that uses the cosine is in
another function, which cannot use the value taken there, and calls ``cos`` again.
Measured on a sine chain of 200 steps (``python -m benchmarks.run``'s ``chain200``)
split into chunks: 416 calls of ``sin``/``cos`` instead of 200 of ``sincos``, 1.3x the
time of one function; the 1,000-step chain, which is always split, took 1.5x the
hand-written ``@njit`` loop.

:func:`paired` moves every 0-d statement that takes the cosine (sine) of a value right
after the statement that takes that value's sine (cosine), when everything it reads is
already defined there and the value it defines is written by it alone.  Nothing else
moves, and each statement computes what it did: results are bit for bit the same.

The ``sincos`` call itself is made by the emitter (``lower.llvm_scalar``).  The move,
measured on the 1,000-step chain (one process per build, fresh caches, this tree
against the one before, twice in one run): latency against hand ``@njit`` 1.49 / 1.52x
-> 1.17 / 1.30x; batch 0.56 / 0.58x -> 0.77 / 0.96x of hand's points per second; build
unchanged.  ``SYMGRAD_PAIR_TRIG=0`` turns the move off.

Imports nothing from symgrad.
"""
from __future__ import annotations

import os
from collections import Counter

ENABLED = os.environ.get("SYMGRAD_PAIR_TRIG", "1") != "0"
PARTNER = {"sin": "cos", "cos": "sin"}


def trig_calls(st):
    """``(function, ref)`` for each sine or cosine ``st`` takes of a 0-d input."""
    out = []
    for op in st.body:
        if op[0] == "call" and op[1] in PARTNER and len(op) == 3:
            arg = st.body[op[2]]
            if arg[0] == "arg" and st.srcs[arg[1]][1] is None:
                out.append((op[1], st.srcs[arg[1]][0]))
    return out


def paired(stmts):
    """``stmts`` reordered so that sines and cosines of one value are adjacent."""
    if not ENABLED:
        return list(stmts)
    writes = Counter(st.dst for st in stmts)
    defined_at = {st.dst: k for k, st in enumerate(stmts)}
    first = {}          # (function, ref) -> index of the first statement computing it
    after = {}          # index -> statements moved to just after it
    moved = set()
    for k, st in enumerate(stmts):
        calls = trig_calls(st) if st.dims == () and st.reduce is None else []
        target = None
        for fn, ref in calls:
            i = first.get((PARTNER[fn], ref))
            if i is not None and _movable(st, i, writes, defined_at):
                target = i if target is None else min(target, i)
        if target is not None:
            after.setdefault(target, []).append(st)
            moved.add(k)
            calls_at = target
        else:
            calls_at = k
        for fn, ref in calls:
            first.setdefault((fn, ref), calls_at)
    if not moved:
        return list(stmts)
    out = []
    for k, st in enumerate(stmts):
        if k not in moved:
            out.append(st)
        out.extend(after.get(k, ()))
    return out


def _movable(st, i, writes, defined_at):
    """Whether ``st`` may run right after statement ``i``: it alone writes its 0-d
    result, and each of its inputs is written once, at or before ``i`` (or never)."""
    if st.dst[0] != "ssa" or st.dst_addr is not None or writes[st.dst] != 1:
        return False
    for ref, _ in st.srcs:
        if writes[ref] > 1 or writes[ref] == 1 and defined_at[ref] > i:
            return False
    return True
