"""Loop metadata that keeps LLVM from multiplying a kernel's code before compiling it.

Measured on the Hessians of ``benchmarks/second_order.py`` (LLVM pass timings, CPU):
most of a kernel's compile time went to code LLVM *made*, not to the code emitted.
Loops of a constant trip count were unrolled in full (28 copies of a row's body), the
enclosing seed loop was then vectorized across seeds with strided gathers (one basic
block of 900 instructions), and vectorized loops of ~100 iterations were unrolled in
full again; the instruction selector is superlinear in the size of a basic block.
So each loop gets a hint (``llvm.loop`` metadata on its back edge):

- a loop enclosing other loops: neither unrolled nor vectorized (its inner loops are);
- an innermost loop of a map or scatter-add with a known trip count of at least
  ``UNROLL_BELOW``: not unrolled (still vectorized);
- such a loop of ``ROLL_FROM`` to ``ROLL_BELOW`` - 1 iterations inside another loop
  (the rows of a batched Hessian's seeds: the MLP's loops of 8 and 16): not unrolled
  either, unless it reads or writes through an index table (unrolled, the table's
  entries become constant addresses: sparse Rosenbrock-1000's gathers of 12, 5.0 ->
  5.9 us rolled).  Unrolled in full inside a rolled loop they cost LLVM time and
  ran slower: the MLP's Hessian built in 0.20 s and ran in 18.3 us, rolled (the loop
  vectorizer still takes them) 0.18 s and 10.5 us; LJ-8's build 0.185 -> 0.148 s at
  5.3 -> 5.1 us (one process, interleaved, load 0.4-1); logistic regression's loops
  of 50 lost 9 % rolled, so the window ends at 32.  These rows are vectorized
  ``ROW_WIDTH`` (8) doubles wide, or the widest power of two dividing the trip count
  (odd trip counts: as LLVM decides), without interleaving: LLVM's cost model then has
  nothing to choose, and no remainder loop is made (the MLP's Hessian: build 0.331 ->
  0.313 s, 21.0 -> 19.0 us, one process each, medians of 3 builds and of 15 timing
  rounds);
- the loops of a reduction, short loops and loops of sizes known at call time: as
  LLVM decides.  Unrolling a short reduction lets LLVM vectorize across the outputs
  (logistic regression's Hessian: 2.5x slower without).

Steady-state latency of the Hessians stayed within noise; builds: see the closing note
of issue 12.  ``SYMGRAD_LOOP_HINTS=0`` turns the hints off (for measurements).

Numba optimises every function at O3 when it is added to a library, then the linked
module at O3 again.  For a generated kernel the first round is redundant (the module
round starts from the same IR and runs the same pipeline): :func:`optimise_once`
drops it for the library being built, about a tenth to a quarter of a build's LLVM
time at equal latency (figures: the closing note of issue 12, helper ``opt``).
``SYMGRAD_FUNCTION_PASSES=1`` keeps Numba's two rounds (for measurements).

Imports llvmlite, the graph's Dim and ``lower.alias`` (its self-referring metadata nodes).

>>> from llvmlite import ir
>>> module = ir.Module()
>>> seeds = hint(module, (7, 3), reduction=False)   # encloses a loop
>>> seeds.operands[0] is seeds, len(seeds.operands)
(True, 3)
>>> hint(module, (7,), reduction=False) is None       # short and innermost
True
>>> hint(module, (8,), False, enclosed=True) is not None   # rows inside a seed loop
True
"""
from __future__ import annotations

import os

from llvmlite import ir

from ..graph import Dim
from .alias import distinct

UNROLL_BELOW = int(os.environ.get("SYMGRAD_UNROLL_BELOW", 64))
ROLL_FROM = int(os.environ.get("SYMGRAD_ROLL_FROM", 8))
ROLL_BELOW = int(os.environ.get("SYMGRAD_ROLL_BELOW", 32))
ROW_WIDTH = int(os.environ.get("SYMGRAD_ROW_WIDTH", 8))   # 0: LLVM's choice


def hint(module, dims, reduction, enclosed=False, indexed=False):
    """The loop ID for the loop over ``dims[0]`` (``dims[1:]``: the loops inside it;
    ``enclosed``: it runs inside another loop; ``indexed``: its statement goes through
    an index table), or None to leave the loop to LLVM."""
    if reduction or os.environ.get("SYMGRAD_LOOP_HINTS") == "0":
        return None
    if any(d != 1 for d in dims[1:]):
        return _loop_id(module, ("llvm.loop.unroll.disable",),
                        (("llvm.loop.vectorize.enable", False),))
    if isinstance(dims[0], Dim):
        return None
    row = enclosed and not indexed and ROLL_FROM <= dims[0] < ROLL_BELOW
    width = row_width(dims[0]) if row else 0
    if width:
        return _loop_id(module, ("llvm.loop.unroll.disable",),
                        (("llvm.loop.vectorize.width", width, 32),
                         ("llvm.loop.interleave.count", 1, 32)))
    if dims[0] >= UNROLL_BELOW or row:
        return _loop_id(module, ("llvm.loop.unroll.disable",), ())
    return None


def row_width(trip):
    """The vector width for a row of ``trip`` iterations: ``ROW_WIDTH`` or the widest
    power of two below it dividing ``trip``; 0 (LLVM's choice) when that is under 2."""
    width = ROW_WIDTH
    while width > 1 and trip % width:
        width //= 2
    return width if width >= 2 else 0


def optimise_once(context):
    """Skip Numba's per-function O3 round for the library ``context`` is lowering (its
    module round still runs in full).  Only that library (one generated entry, gufunc
    core or batch loop): other code Numba compiles keeps its pipeline.  A Numba without
    the hook (``_optimize_functions``) is left as it is."""
    if os.environ.get("SYMGRAD_FUNCTION_PASSES") == "1":
        return
    library = getattr(context, "active_code_library", None)
    if library is not None and hasattr(library, "_optimize_functions"):
        library._optimize_functions = _no_function_passes


def _no_function_passes(ll_module):
    """The function round of one library: nothing (the module round optimises it)."""


def attach(index, loop_id):
    """Put ``loop_id`` on the back edge of the loop whose index phi is ``index`` (made
    by ``cgutils.for_range``: the latch is the phi's last incoming block)."""
    index.incomings[-1][1].terminator.set_metadata("llvm.loop", loop_id)


def _loop_id(module, flags, settings):
    """A distinct, self-referencing loop ID node (one per kind and module)."""
    cache = module.__dict__.setdefault("_symgrad_loop_ids", {})
    key = (flags, settings)
    if key not in cache:
        props = [module.add_metadata([ir.MetaDataString(module, f)]) for f in flags]
        props += [module.add_metadata([ir.MetaDataString(module, name),
                                       ir.Constant(ir.IntType(bits[0] if bits else 1),
                                                   int(value))])
                  for name, value, *bits in settings]
        cache[key] = distinct(module, props)   # LLVM's loop IDs refer to themselves
    return cache[key]
