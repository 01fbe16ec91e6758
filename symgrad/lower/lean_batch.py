"""``f.batched(X)`` for the common arguments, with the least Python in front of the loop.

A small batch is mostly call overhead: 100 Rosenbrock-2 points take the batch loop
~0.5 µs, and the general path (``batches.FastPath``, ``batches.run``: checks written
for every kind of argument, the work array, timing each run for the parallel choice)
spent ~3 µs around it, where a hand-written ``@njit`` loop called from Python spends
~1.5.  :class:`Lean` takes the arguments most calls pass -- one numpy array per input,
each C-contiguous, writeable, of the input's dtype, with one batch axis in front of
the input's own (static) shape, the same number of points in each -- and no ``out=``;
it runs the loop serially on new outputs, as the general path would for a batch that
small or with ``parallel=False`` (and times the run as that path does, when it has
``PROBE_POINTS`` points or more: the parallel choice rests on serial runs).  Anything
else, and a kernel's first batch (which may compile the loop), returns None and the
general path answers (its checks, conversions and errors unchanged).

Imports numpy and ``lower.batches``.
"""
from __future__ import annotations

import time

import numpy as np

from .batches import PROBE_POINTS, _scalar_dtype


class Lean:
    """The lean batched call of one evaluator with static shapes.

    ``inputs``/``outputs``: the module's ``INPUTS`` (name, dtype, core shape) and
    ``OUTPUTS`` (dtype, core shape, _); ``loop()``: the compiled batch loop;
    ``cost()``: the evaluator's ``batches.Cost`` for its static shapes.
    """

    def __init__(self, inputs, outputs, loop, cost):
        # per input: (ndim with the batch axis, core shape, dtype the loop takes)
        self.want = [(len(core) + 1, tuple(core),
                      np.dtype(dtype if core else _scalar_dtype(dtype)))
                     for _, dtype, core in inputs]
        self.made = [(tuple(core), np.dtype(dtype)) for dtype, core, _ in outputs]
        self.loop, self.cost = loop, cost

    def __call__(self, values, parallel):
        """The flat outputs for ``values``, or None: the general path answers."""
        if len(values) != len(self.want):
            return None
        count, args = None, []
        for v, (ndim, core, dtype) in zip(values, self.want):
            if type(v) is not np.ndarray or v.dtype is not dtype or v.ndim != ndim:
                return None
            shape = v.shape
            if shape[1:] != core or (count is not None and shape[0] != count):
                return None
            flags = v.flags
            if not (flags.c_contiguous and flags.writeable):
                return None
            count = shape[0]
            args += (1, v)
        cost = self.cost()
        if count is None or not cost.warm or parallel and count >= cost.fewest:
            return None   # no inputs, the first run (it may compile the loop), or
                          # threads may pay: the general path
        outs = [np.empty((count,) + core, dtype) for core, dtype in self.made]
        work = np.zeros(4, np.int64)   # batches.work(0, count): [next, stop, size, done]
        work[1] = count
        work[2] = count or 1
        if count < PROBE_POINTS:   # too short to time (call overhead)
            self.loop()(work, *args, *outs)
        else:   # timed as every serial run is: the parallel choice rests on them
            t0 = time.perf_counter()
            self.loop()(work, *args, *outs)
            cost.observe(time.perf_counter() - t0, count)
        return tuple(outs)
