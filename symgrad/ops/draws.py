"""Numbers made when sizes are known: ``random_draw`` (dropout's mask and TF1's random
ops over sizes known only at run time) and ``positions`` (``tf.range`` of such a size).

``random_draw(x, key, dist)`` is a tensor of x's shape holding uniform numbers in
[0, 1) (``dist="uniform"``), standard normal ones (``"normal"``) or those within
two of 0 (``"truncated_normal"``, the others drawn again) from numpy's
generator seeded with ``key`` (``default_rng(key)``), in C order.  The
key is chosen when the op is made, so the numbers are fixed like a drawn constant,
but they are made when x's size is known: for ``x`` of shape ``(None, d)`` a batch
of n rows reads the first ``n * d`` numbers of that stream, so row i has the same
numbers in every batch that reaches it, and a shape known when the graph is built
gets exactly :func:`drawn_numbers` of it.  The value does not depend on x's
values: there is no derivative to pass (TF gives its random ops none), and the
compiler bakes the numbers of each size it meets (``decompose``; unknown sizes are
compiled once per size).

``positions(x)`` is ``0, 1, ..., n-1`` for x of shape (n,) (x's values are not read):
``tf.range(tf.shape(x)[0])`` and the row counter of ``map_fn`` over a batch of
unknown size.

Imports numpy, the graph and ``ops.base`` (SymPy for the closed forms).

>>> np.array_equal(drawn_numbers((2, 3), 7)[1], drawn_numbers((4, 3), 7)[1])
True
"""
from __future__ import annotations

import contextlib
import contextvars
import itertools

import numpy as np

from ..graph import Dim, is_static
from .base import REGISTRY, Example, F, Op, apply, filled, literal, register


_RUN = contextvars.ContextVar("symgrad_draw_run", default=None)   # None: not a session run
_EXECUTIONS = contextvars.ContextVar("symgrad_draw_executions", default=None)


@contextlib.contextmanager
def run_number(n, executions=None):
    """Inside the block, ``random_draw`` makes the numbers of run ``n`` (TF1's
    ``Session.run`` counts its runs, so each draws anew; run 0, the default, is what
    ``sg.evaluate``, ``sg.compile`` and closed forms use).  ``executions``: the
    session's :class:`Executions`, which counts the runs each draw with TF's seeds
    took part in."""
    token = _RUN.set(int(n))
    counted = _EXECUTIONS.set(executions)
    try:
        yield
    finally:
        _RUN.reset(token)
        _EXECUTIONS.reset(counted)


class Executions:
    """A session's record of where each random op with TF's seeds is in its stream: TF's
    op reserves a new stretch of its counter at each execution (``philox.reserved``),
    so the k-th run that computes it (not the session's k-th run) reads on from where
    the (k-1)-th stopped."""

    def __init__(self):
        self._next, self._at = {}, {}

    def start(self, key, run, amount, steps=()):
        """Where the draw ``key`` starts in session run ``run`` at loop iteration ``steps``
        (the same for every read of that execution: a gradient's sweep back over a loop
        reads the forward's numbers); each new execution -- a run, or an iteration of
        the loop around the op -- moves the counter ``amount`` on, in the order they
        run, as TF's op executes once per iteration of its ``while_loop``."""
        seen = self._at.get(key)
        if seen is None or seen[0] != run:
            seen = self._at[key] = (run, {})
        if steps in seen[1]:
            return seen[1][steps]
        start = seen[1][steps] = self._next.get(key, 0)
        self._next[key] = start + amount
        return start


# the iteration of each loop under way (outermost first), while a body runs in a session
_STEP = contextvars.ContextVar("symgrad_draw_step", default=())


@contextlib.contextmanager
def loop_step(k):
    """Inside the block, a session's draws are those of iteration ``k`` of the innermost
    loop running (TF draws anew at every iteration of a ``while_loop`` body: dropout in
    a ``dynamic_rnn`` cell gets a new mask per time step; an op with TF's seeds reads
    on in TF's stream, one execution per iteration, :class:`Executions`).  Outside a session run
    (``sg.evaluate``, ``sg.compile``) every step keeps the op's one draw, which is
    what a compiled loop bakes."""
    token = _STEP.set(_STEP.get() + (int(k),))
    try:
        yield
    finally:
        _STEP.reset(token)


def truncated_standard_normal(generator, shape):
    """Standard normal numbers, those at 2 or beyond drawn again (TF keeps |z| < 2)."""
    z = generator.standard_normal(size=tuple(shape))
    while np.any(bad := np.abs(z) >= 2):
        z[bad] = generator.standard_normal(size=int(bad.sum()))
    return z


def drawn_numbers(shape, key, dist="uniform"):
    """The numbers ``random_draw`` of ``shape`` holds for ``key`` (in the current run,
    :func:`run_number`, and loop iteration, :func:`loop_step`).  A ``dist`` of TF's
    stream (:func:`tf_dist`) gives TF's numbers for the seeds in ``key``."""
    run = _RUN.get()
    steps = _STEP.get() if run is not None else ()   # (per-step draws: sessions only)
    size = tuple(int(d) for d in shape)
    if dist.startswith("tf-"):
        dist, _, iteration = dist.partition("@")
        kind, dtype = dist[3:].rsplit("-", 1)
        return _tf_numbers(size, key, kind, dtype, run, iteration, steps)
    rng = np.random.default_rng([int(key), run, *steps] if run or steps else int(key))
    if dist == "normal":
        return rng.standard_normal(size=size)
    if dist == "truncated_normal":
        return truncated_standard_normal(rng, size)
    if dist == "perm":   # (an order of the first axis: tf.random_shuffle)
        return rng.permutation(size[0]).astype(np.float64)
    if dist != "uniform":
        raise ValueError(f"random_draw(dist={dist!r}): use 'uniform', 'normal' or "
                         f"'truncated_normal'")
    return rng.uniform(size=size)


def tf_dist(kind, dtype, low=None, high=None):
    """The ``dist`` of a draw of TF's own stream: ``kind`` "uniform" or "normal" made in
    ``dtype`` (float32 or float64) as TF's kernel makes them, "uniform" integers of
    ``dtype`` (int32, int64) in [low, high), or "perm": an order of the first axis as
    ``RandomShuffle`` draws it."""
    if kind == "perm":
        return "tf-perm-int64"
    if np.dtype(dtype).kind in "iu":
        kind = f"int:{int(low)}:{int(high)}"
    return f"tf-{kind}-{np.dtype(dtype).name}"


def _int_range(kind):
    """``(low, high)`` of an integer draw's kind ``int:low:high`` (:func:`tf_dist`)."""
    return tuple(int(v) for v in kind.split(":")[1:])


_TF_OPS = itertools.count(1)


def tf_key(seeds):
    """The ``key`` of a new draw of TF's stream with TF's ``(seed, seed2)``: the seeds
    and a number of its own (two ops of one seed each start their own stream, as TF's
    kernels do, and a session counts their executions apart)."""
    return next(_TF_OPS) * 2**62 + int(seeds[0]) * 2**31 + int(seeds[1])


def tf_iteration(dist, k, count):
    """``dist`` of TF's stream (:func:`tf_dist`) drawn as iteration ``k`` of ``count``
    executions of one op in each run (TF's ``while_loop`` runs its body's random op once
    per iteration: ``dynamic_rnn`` unrolled here keeps that, its draws sharing a key)."""
    return f"{dist}@{int(k)}/{int(count)}"


def _tf_numbers(size, key, kind, dtype, run, iteration="", steps=()):
    from . import philox
    executions = _EXECUTIONS.get()
    amount = philox.shuffle_reserved(size) if kind == "perm" else philox.reserved(size)
    k, count = (int(v) for v in iteration.split("/")) if iteration else (0, 1)
    start = executions.start(key, run, amount * count, steps) if executions is not None \
        and run is not None else 0
    start += k * amount
    seeds = divmod(int(key) % 2**62, 2**31)
    if kind == "perm":
        return philox.permutation(size[0], seeds, start).astype(np.float64)
    if kind.startswith("int:"):
        return philox.uniform_int(size, np.dtype(dtype), seeds, *_int_range(kind), start)
    return getattr(philox, kind)(size, np.dtype(dtype), seeds, start)


def new_key(rng):
    """A key for ``random_draw``, taken from the numpy Generator ``rng`` (so a seed, or
    TF1's graph-level seed, fixes it)."""
    return int(rng.integers(2**63))


def _symbolic(node, x):
    import sympy
    values = drawn_numbers(x.shape, node.attrs["key"], node.attrs["dist"])
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = sympy.Float(float(values[idx]))
    return out


def _decompose(x, key, dist):
    # the numbers of this size, baked; a size known only at call time has none yet
    # (TypeError: the compiler then builds once per size met)
    if not is_static(x.shape):
        raise TypeError("random_draw needs its size")
    return literal(x.graph, drawn_numbers(x.shape, key, dist))


def draw_like(x, key, dist="uniform", name=None):
    """A ``random_draw`` node of x's shape (see the module docstring)."""
    return apply("random_draw", [x], key=int(key), dist=dist, name=name)


register(Op("random_draw", kind="special",
            shape=lambda in_shapes, key, dist: tuple(in_shapes[0]),
            impl=lambda x, key, dist: drawn_numbers(np.shape(x), key, dist), symbolic=_symbolic,
            grad=lambda node, g: [None], dtype=lambda dtypes, key, dist: np.dtype(np.float64),
            examples=[Example((2, 3), key=5, dist="uniform"),
                      Example((4,), key=2**62 + 1, dist="normal")],
            doc="uniform or normal numbers of x's shape, from a key fixed when made "
                "(dropout's mask and TF1's random ops where sizes are known at run time)"))
REGISTRY["random_draw"].decompose = _decompose



def _positions_symbolic(node, x):
    import sympy
    out = np.empty(np.shape(x), dtype=object)
    out[...] = [sympy.Integer(i) for i in range(np.shape(x)[0])] if out.size else []
    return out


def _positions_decompose(x, dtype):
    if not is_static(x.shape):
        raise TypeError("positions needs its size")
    return literal(x.graph, np.arange(x.shape[0], dtype=dtype))


register(Op("positions", kind="special", shape=lambda in_shapes, dtype: tuple(in_shapes[0]),
            impl=lambda x, dtype: np.arange(np.shape(x)[0], dtype=dtype),
            symbolic=_positions_symbolic, grad=lambda node, g: [None],
            dtype=lambda dtypes, dtype: np.dtype(dtype),
            examples=[Example((4,), dtype="float64"), Example((3,), dtype="int64")],
            doc="0, 1, ..., n-1 for x of shape (n,), made when n is known (tf.range of a "
                "size known at run time)"))
REGISTRY["positions"].decompose = _positions_decompose


def positions(x, dtype=np.int64):
    """``arange(n)`` of ``dtype`` for the (n,)-shaped ``x`` (its values are not read)."""
    return apply("positions", [x], dtype=np.dtype(dtype).name)


def iota_of(graph, n, dtype):
    """``arange(n)`` of ``dtype`` as a tensor: a constant, or made when the size ``n``
    (a Dim) is known (``positions``)."""
    if not isinstance(n, Dim):
        return literal(graph, np.arange(n, dtype=dtype))
    return positions(filled(graph, 0, (n,), np.float64), dtype)


def band_mask(graph, rows, cols, lower, upper, dtype):
    """The (rows, cols) matrix of ones where ``i - j <= lower`` and ``j - i <= upper``
    (negative: no bound): a constant, or made from positions when a size is a Dim
    (``tf.eye`` and ``matrix_band_part`` of run-time sizes, Cholesky's gradient)."""
    if is_static((rows, cols)):
        i, j = np.indices((rows, cols))
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        return literal(graph, keep.astype(dtype))
    i, j = (F.reshape(iota_of(graph, n, np.int64), shape=shape)
            for n, shape in ((rows, (rows, 1)), (cols, (1, cols))))
    keep = None
    for bound, a, b in ((lower, i, j), (upper, j, i)):
        if bound >= 0:
            part = F.less(F.sub(a, b), literal(graph, np.int64(bound + 1)))
            keep = part if keep is None else F.logical_and(keep, part)
    if keep is None:
        return filled(graph, 1, (rows, cols), dtype)
    return F.cast(keep, dtype=np.dtype(dtype).name)


def half_lower(graph, n, dtype):
    """The (n, n) lower triangle of ones with 0.5 on the diagonal: times ``G + Gᵀ`` it
    gives the gradient of a function reading only the lower triangle of a symmetric
    argument (TF's Cholesky and eigh gradients)."""
    if is_static((n,)):
        return literal(graph, (np.tril(np.ones((n, n))) - 0.5 * np.eye(n)).astype(dtype))
    return F.sub(band_mask(graph, n, n, -1, 0, dtype),
                 F.mul(band_mask(graph, n, n, 0, 0, dtype), literal(graph, np.asarray(0.5, dtype))))


__all__ = ["drawn_numbers", "new_key", "draw_like", "positions", "run_number", "loop_step",
           "Executions", "tf_dist", "tf_key",
           "iota_of",
           "band_mask", "half_lower", "truncated_standard_normal"]
