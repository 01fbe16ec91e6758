"""``f.batched``'s arguments as the batch loop takes them: checked, converted, flat.

:func:`prepare` turns the arrays of a batch (any batch axes, broadcasting, inputs
shared by every point) into the loop's flat arguments and output arrays, or the
caller's ``out=`` arrays (:func:`checked_out`, with the error that names what is
wrong); :class:`FastPath` takes arrays that need no conversion with the fewest
tests.  ``lower.batches`` runs the loop on them.

Imports numpy and errors.

>>> count, args, outs, batch = prepare([np.zeros((4, 2))], [("x", "<f8", (2,))],
...                                    [("<f8", (), None)])
>>> count, args[0], args[1].shape, outs[0].shape, batch
(4, 1, (4, 2), (4,), (4,))
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ArgumentError, ShapeError


def prepare(arrays, inputs, outputs, out=None):
    """The flat arguments of a module's ``_loop``: ``(count, args, outs, batch)``.

    ``arrays`` have batch axes in front of the core shapes of ``inputs`` (concrete);
    each becomes ``(m, flat)``: ``flat`` with one batch axis, writable and
    C-contiguous (0-d inputs in the kernel's scalar type), ``m`` 0 for an input
    every point shares.  ``outs`` have one batch axis of ``count`` points; reshape
    them to ``batch`` + core shape after the loop.  ``out``: the caller's arrays
    (``checked_out``) to write into, instead of new ones (``outs`` are views of them).
    """
    leads = [a.shape[:a.ndim - len(s)] for a, (_, _, s) in zip(arrays, inputs)]
    try:
        batch = leads[0] if len(set(leads)) == 1 else np.broadcast_shapes(*leads)
    except ValueError:
        axes = ", ".join(f"{lead} for input {k} ({name!r})"
                         for k, (lead, (name, _, _)) in enumerate(zip(leads, inputs)))
        raise ShapeError(f"batched: the batch axes (in front of each input's shape) must "
                         f"broadcast together, got {axes}") from None
    count = math.prod(batch)
    args = []
    for a, lead, (_, dtype, core) in zip(arrays, leads, inputs):
        core = tuple(core)
        if lead == batch:
            flat, m = a.reshape((count,) + core), 1
        elif all(n == 1 for n in lead):    # the same value for every point
            flat, m = a.reshape((1,) + core), 0
        else:   # (a partly broadcast input is copied out in full)
            flat, m = np.broadcast_to(a, batch + core).reshape((count,) + core), 1
        want = np.dtype(dtype if core else _scalar_dtype(dtype))
        if not (flat.dtype == want and flat.flags.c_contiguous and flat.flags.writeable):
            flat = np.require(flat, want, ["C", "W"])
        args += [m, flat]
    named = ((n, a) for (n, _, _), a in zip(inputs, args[1::2]))   # (read with out= only)
    return count, args, _outs(out, outputs, batch, count, named), batch


def prepare_fast(values, inputs, outputs, out=None):
    """``prepare``'s result for values the loop takes as they are (numpy arrays of the
    kernel's dtypes, C-contiguous and writeable, ending in the static core shapes of
    ``inputs``, all with the same batch axes); None for anything else, which
    ``prepare`` converts after the full checks.  An evaluator keeps its
    :class:`FastPath` instead of calling this."""
    return FastPath(inputs, outputs).prepare(values, out)


class FastPath:
    """:func:`prepare_fast` for one evaluator's static ``inputs`` and ``outputs``,
    with the shapes and dtypes it compares against made once.  (The full checks took
    ~10 µs of a 100-point batch's ~25.  Measured on rosen2, 100 points, interleaved
    in one process: :func:`prepare_fast` 8.5 µs, this 5.2, the batch loop itself
    2.8; ``f.batched`` 12.6-14.0 -> 8.8-9.1 µs, least of 15 rounds, processes
    alternating with the tree before.)"""

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.want = [(tuple(core), len(core),
                      np.dtype(dtype if core else _scalar_dtype(dtype)))
                     for _, dtype, core in inputs]
        self.made = [(tuple(core), np.dtype(dtype)) for dtype, core, _ in outputs]

    def prepare(self, values, out=None):
        batch, arrays = None, []
        for v, (core, ncore, dtype) in zip(values, self.want):
            if type(v) is not np.ndarray:
                return None
            flags, shape = v.flags, v.shape
            lead = len(shape) - ncore
            if not (flags.c_contiguous and flags.writeable) or lead < 0 or \
                    shape[lead:] != core or v.dtype != dtype:
                return None
            if batch is None:
                batch = shape[:lead]
            elif shape[:lead] != batch:
                return None
            arrays.append(v)
        if batch is None:   # no inputs
            return None
        count = math.prod(batch)
        args = []
        for v, (core, _, _) in zip(arrays, self.want):   # one batch axis: v as it is
            args += (1, v if len(batch) == 1 else v.reshape((count,) + core))
        if out is None:
            outs = [np.empty((count,) + core, dtype) for core, dtype in self.made]
        else:
            outs = self.taken(out, batch, count, [(v, v.flags.owndata) for v in arrays])
            if outs is None:   # the full checks convert the values, or say what is wrong
                return None
        return count, args, outs, batch

    def taken(self, out, batch, count, arrays):
        """The caller's ``out=`` as the loop's outputs (one batch axis each), when every
        array passes :func:`checked_out`'s tests; None for anything else, which the full
        checks then refuse with the error that names it.  The same tests, with the
        shapes and dtypes made once, no messages built, and ``np.may_share_memory``
        (0.25 µs a pair) only where an array does not own its memory: two arrays that
        own theirs overlap only if they are one array.  Through ``checked_out``,
        ``f.batched(X, out=...)`` of 100 Rosenbrock-10 points took longer than
        allocating new outputs (9.9 against 6.4 µs, medians of 15 rounds in one
        process); now 7.7 µs."""
        if type(out) is np.ndarray:
            out = (out,)
        elif type(out) is not tuple and type(out) is not list:
            return None
        if len(out) != len(self.made):
            return None
        flat = []
        for k, (o, (core, dtype)) in enumerate(zip(out, self.made)):
            if type(o) is not np.ndarray or o.dtype != dtype or o.shape != batch + core:
                return None
            flags = o.flags
            if not (flags.c_contiguous and flags.writeable):
                return None
            owns = flags.owndata   # two arrays that own their memory share none of it
            for other in out[:k]:
                if other is o or not (owns and other.flags.owndata) and \
                        np.may_share_memory(o, other):
                    return None
            for a, a_owns in arrays:
                if a is o or not (owns and a_owns) and np.may_share_memory(o, a):
                    return None
            flat.append(o if len(batch) == 1 else o.reshape((count,) + core))
        return flat


def _outs(out, outputs, batch, count, inputs):
    """The loop's output arrays, one batch axis of ``count`` points each: new ones, or
    views of the caller's ``out`` (``checked_out`` against ``inputs``: (name, array))."""
    if out is None:
        return [np.empty((count,) + tuple(core), dtype) for dtype, core, _ in outputs]
    out = checked_out(out, outputs, batch, inputs)
    return [o.reshape((count,) + tuple(core)) for o, (_, core, _) in zip(out, outputs)]


def checked_out(out, outputs, batch, inputs=()):
    """``out=`` of ``f.batched`` as a list of arrays, one per output (``outputs``:
    ``(dtype, core shape, _)``), each checked to take the results in place: a numpy
    array of the output's dtype and of shape ``batch`` + core shape, C-contiguous,
    writeable, sharing no memory with another output or an input (``inputs``:
    ``(name, array)``).  A lone array stands for a tuple of one."""
    arrays, inputs = ((out,) if isinstance(out, np.ndarray) else out), list(inputs)
    if not isinstance(arrays, (tuple, list)) or len(arrays) != len(outputs):
        got = f"{len(arrays)} array(s)" if isinstance(arrays, (tuple, list)) else \
            type(out).__name__
        raise ArgumentError(f"batched: out= takes {len(outputs)} array(s), one per output "
                            f"in order (a tuple or list), got {got}")
    batch, inputs = tuple(batch), list(inputs)
    for k, (o, (dtype, core, _)) in enumerate(zip(arrays, outputs)):
        if not (isinstance(o, np.ndarray) and o.dtype == dtype and
                o.shape == batch + tuple(core) and o.flags.c_contiguous and
                o.flags.writeable):   # (one test for the arrays that pass: a fast path)
            _bad_out(k, o, dtype, batch + tuple(core))
        for j in range(k):
            if np.may_share_memory(o, arrays[j]):
                raise ArgumentError(f"batched: out[{k}] shares memory with out[{j}]")
        for name, a in inputs:
            if np.may_share_memory(o, a):
                raise ArgumentError(f"batched: out[{k}] shares memory with input {name!r}; "
                                    "results cannot overwrite the points being read")
    return list(arrays)


def _bad_out(k, o, dtype, want):
    """Raise the error that says what is wrong with ``out[k]``."""
    if not isinstance(o, np.ndarray):
        raise ArgumentError(f"batched: out[{k}] must be a numpy array, got "
                            f"{type(o).__name__}")
    if o.dtype != np.dtype(dtype):
        raise ArgumentError(f"batched: out[{k}] must have dtype {np.dtype(dtype)} "
                            f"(the output's), got {o.dtype}")
    if o.shape != want:
        raise ShapeError(f"batched: out[{k}] must have shape {want} (the batch axes, "
                         f"then the output's shape), got {o.shape}")
    raise ArgumentError(f"batched: out[{k}] must be a writeable C-contiguous array "
                        "(np.empty gives one)")


def _scalar_dtype(dtype):
    """The numpy dtype of the kernel's 0-d arguments (``runtime.scalar_type``)."""
    kind = np.dtype(dtype).kind
    return np.float64 if kind == "f" else np.bool_ if kind == "b" else np.int64
