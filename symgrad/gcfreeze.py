"""Full collections that skip what existed before a build or a large sweep, while it runs.

A build allocates hundreds of thousands of objects that live until it ends (the
loop IR, llvmlite's instructions, Numba's typing state).  Python's collector counts
them as survivors, and every so often its full collection walks *every* object of
the process, most of which existed before the build and outlive it (SymPy, Numba,
the graph: ~190,000 objects before the 1,000-step chain's build, ~330,000 after).
That build ran four full collections, 0.37-0.48 s of CPU (builds of 2.7-3.9 s).
:func:`frozen` moves the objects that exist when a build starts into the
collector's permanent generation (``gc.freeze``) and back into the oldest one when
it ends (``gc.unfreeze``).  The collector keeps running, on what is made
meanwhile (llvmlite's instructions are cycles: the young collections free them);
a cycle among older objects that becomes garbage during the build is freed by the
first full collection after it.  The chain's four full collections now take
0.14-0.16 s, all its collections 0.21-0.25 s instead of 0.44-0.59 s (``gc.callbacks``;
3 processes with, 6 without); the 200-step chain's and the MLP's builds run no full
collection either way and are unchanged.  (Turning the collector off instead let
the build's cycles pile up for one collection at the end: 0.075 s of collections
for the 200-step chain, against 0.015 s.)

Builds are covered (``compiler._machine_code``, the batch loop and gufuncs of
``evaluator``), and so are large sweeps (:func:`frozen_for`: the reverse and tangent
sweeps of ``differentiate`` and ``forward``, the numpy tier's plan) over at least
:data:`LARGE` nodes.  Without that, a process that derived the 1,000-step chain
twice ran a full collection (~0.08 s, walking SymPy's and Numba's objects) inside
the second ``gradients``, which took 0.106 s instead of 0.033 s; four builds of it
in a row, derived, compiled and called, took 0.65 s instead of 0.30 s.  Small sweeps
are left alone: each freeze promotes the young objects to the oldest generation.

Nested and concurrent blocks freeze once, at the first, and unfreeze once, after
the last.  A process that froze objects itself (``gc.get_freeze_count()`` not 0: a
server before forking) is left alone; so is everything with ``SYMGRAD_GC_FREEZE=0``.

Imports contextlib, gc, os and threading only.

>>> import gc
>>> with frozen():
...     gc.get_freeze_count() > 0
True
>>> gc.get_freeze_count()
0
"""
from __future__ import annotations

import contextlib
import gc
import os
import threading

_LOCK = threading.Lock()
# Sweeps over at least this many nodes freeze (a full collection costs more than
# smaller ones allocate).
LARGE = 1000
_STATE = {"depth": 0, "froze": False}


@contextlib.contextmanager
def frozen():
    """Run the block with the objects that exist now out of the collector's walks (see
    the module doc)."""
    if os.environ.get("SYMGRAD_GC_FREEZE", "1") == "0":
        yield
        return
    with _LOCK:
        if _STATE["depth"] == 0:   # (someone else's frozen objects: left as they are)
            _STATE["froze"] = gc.get_freeze_count() == 0
            if _STATE["froze"]:
                gc.freeze()
        _STATE["depth"] += 1
    try:
        yield
    finally:
        with _LOCK:
            _STATE["depth"] -= 1
            if _STATE["depth"] == 0 and _STATE["froze"]:
                gc.unfreeze()


def frozen_for(nodes: int):
    """:func:`frozen` for work over at least :data:`LARGE` ``nodes``, else a block that
    changes nothing."""
    return frozen() if nodes >= LARGE else contextlib.nullcontext()
