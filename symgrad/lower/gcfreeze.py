"""Full collections that skip what existed before a build, while it runs.

A build allocates hundreds of thousands of objects that live until it ends (the
loop IR, llvmlite's instructions, Numba's typing state).  Python's collector counts
them as survivors, and every so often its full collection walks *every* object of
the process: the 1,000-step chain's cold build ran four, 0.43-0.46 s of its 3.1-3.3 s
CPU, walking mostly SymPy's caches and the graph, which the build does not free.
:func:`frozen` moves the objects that exist when a build starts into the
collector's permanent generation (``gc.freeze``) and back into the oldest one when
it ends (``gc.unfreeze``).  The collector keeps running, on what is made
meanwhile (llvmlite's instructions are cycles: the young collections free them);
a cycle among older objects that becomes garbage during the build is freed by the
first full collection after it.  (Turning the collector off instead let the build's
cycles pile up for one collection at the end: 0.075 s of collections for the
200-step chain, against 0.015 s.)  The chain's four full collections take 0.14 s
now, 0.23 s against 0.53 s in all; small builds are unchanged.

Only builds are covered (``compiler._machine_code``, the batch loop and gufuncs of
``evaluator``), not tracing or ``gradients``.  Nested and concurrent builds freeze
once, at the first, and unfreeze once, after the last.  A process that froze objects
itself (``gc.get_freeze_count()`` not 0: a server before forking) is left alone;
so is every build with ``SYMGRAD_GC_FREEZE=0``.

Imports gc, os and threading only.

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
