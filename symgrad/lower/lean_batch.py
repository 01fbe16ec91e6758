"""``f.batched(X)`` for the common arguments: one call of machine code.

A small batch is mostly call overhead: 100 Rosenbrock-2 points take the batch loop
~0.6 µs, and the general path (``batch_args.FastPath``, ``batches.run``: checks written
for every kind of argument, the work array, new outputs, timing each run for the
parallel choice) spent ~4.5 µs around it, where a hand-written ``@njit`` loop called
from Python spends ~1.5.  ``batched`` (``batch_calls``) hands the arguments most calls
pass -- one numpy array per input, C-contiguous and writeable, of the input's dtype,
with one batch axis (one input is tested without a loop) -- through
:meth:`Lean.serial` to the module's ``_batch`` (``lower.module._batch_text``), which
checks the shapes, makes the outputs and runs the points serially, as the general path
would for a small batch or with ``parallel=False``. With ``out=`` arrays (one numpy
array per output), :meth:`Lean.serial` calls ``_batch_into``, whose signature takes
the arrays of the outputs' dtypes and layout and whose code checks their shapes and
that none overlaps an input or another output (100 Rosenbrock-10 points with ``out=``
reused cost 4x hand's call on the general path). Other arguments take the general
path, with its checks, conversions and errors unchanged; it hands what it converted to
``_batch`` too, unless an input is shared by every point, ``out=`` is given or the
batch is big enough for threads under ``parallel=True``: those run the batch loop,
which is compiled only then.

Serial runs of ``PROBE_POINTS`` points or more are timed, as the general path times
them: the parallel choice rests on them.

Imports numpy, ``lower.batch_args`` and ``lower.batches``.

>>> row_sums = lambda x: (x.sum(axis=1),)       # (a stand-in for a module's _batch)
>>> lean = Lean([("x", "<f8", (2,))], lambda: row_sums, lambda: None, ValueError)
>>> lean.serial([np.ones((3, 2))], 3, parallel=False)
(array([2., 2., 2.]),)
"""
from __future__ import annotations

import time

import numpy as np

from .batch_args import _scalar_dtype
from .batches import PROBE_POINTS


class Lean:
    """The lean batched call of one evaluator with static shapes.

    ``inputs``: the module's ``INPUTS`` (name, dtype, core shape); ``entry()``: the
    module's compiled ``_batch``; ``cost()``: the evaluator's ``batches.Cost``;
    ``refused``: the exception ``_batch`` raises for shapes it does not take.
    ``want`` holds, per input, the dtype and number of axes of the array ``_batch``
    takes (it must also be C-contiguous and writeable): ``batched`` tests them inline,
    where a call per input was a tenth of a small batch.
    """

    def __init__(self, inputs, entry, cost, refused, outputs=0, into=None):
        # per input: (the dtype _batch takes, its number of axes with the batch axis)
        self.want = [(np.dtype(dtype if core else _scalar_dtype(dtype)), len(core) + 1)
                     for _, dtype, core in inputs]
        self.one = self.want[0] if len(self.want) == 1 else None   # (one input: inline)
        self.build, self.cost, self.refused = entry, cost, (TypeError, refused)
        self.entry = None   # _batch, once built
        # out= (``outputs`` arrays): _batch_into, if the module has it (its signature
        # and code check the arrays: ``batched`` only counts them)
        self.outputs, self.build_into, self.entry_into = outputs, into, None

    def serial(self, args, count, parallel, into=False):
        """Run ``_batch`` on ``args`` (arrays of ``count`` points each) and give its
        outputs, or ``_batch_into`` (``args``: the arrays, then the ``out=`` arrays)
        and give the number of points; None when they are not in the form it takes
        (signature, shapes, overlapping memory) or the batch is one for threads (the
        batch loop)."""
        entry = (self.entry_into or self._built_into()) if into else \
            (self.entry or self._built())
        try:
            if parallel and count >= self.cost().fewest:   # threads may pay
                return None
            if count < PROBE_POINTS:   # too short to time (call overhead)
                return entry(*args)
            cost = self.cost()
            t0 = time.perf_counter()
            outs = entry(*args)
            cost.observe(time.perf_counter() - t0, count)
            return outs
        except self.refused:   # no matching signature, or arguments it does not take
            return None

    def _built(self):
        self.entry = self.build()
        return self.entry

    def _built_into(self):
        self.entry_into = self.build_into()
        return self.entry_into
