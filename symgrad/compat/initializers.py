"""TF1's variable initializers (``tf.zeros_initializer()``, ``tf.glorot_uniform_initializer()``, ...).

An initializer is called with a shape (and dtype) and gives a value; ``get_variable``
and ``layers.dense`` use them.  Random ones draw from numpy's generator when the
variable is made.  With ``seed=`` they are TF's own numbers (``ops.philox``: the
seeds fix TF's stream); without one, TF's numbers depend on how many ops the graph
holds, so symgrad draws from numpy's generator (``tf.set_random_seed`` makes that
reproducible) numbers of TF's distribution (limits, truncation, fan rules of
``init_ops.py``).

>>> import numpy as np
>>> init = glorot_uniform_initializer(seed=1)
>>> w = init.array((30, 20), np.float32)
>>> bool(np.abs(w).max() <= np.sqrt(6 / 50))
True
"""
from __future__ import annotations

import contextvars

import numpy as np

from ..ops import philox
from ..ops.draws import truncated_standard_normal

_RNG = [np.random.default_rng()]
# which initialisation of a variable in a session is being drawn (0: the first;
# ``compat.redraws`` asks for the k-th, TF's op counter moved on k executions)
_EXECUTION = contextvars.ContextVar("symgrad_initializer_execution", default=0)


def set_random_seed(seed):
    """``tf.set_random_seed``: later random values are reproducible; the default graph
    keeps the seed, half of the seeds TF gives its random ops."""
    _RNG[0] = np.random.default_rng(seed)
    _root_graph().__dict__["tf_random_seed"] = None if seed is None else int(seed)


def _root_graph():
    """The default graph, or the one a cond branch or loop body being built is in."""
    from ..tracing import get_default_graph
    graph = get_default_graph()
    while getattr(graph, "outer", None) is not None:
        graph = graph.outer
    return graph


def rng(seed=None):
    """A generator for ``seed`` (a fresh one per call; its k-th redraw's own), else the
    graph-level stream."""
    if seed is None:
        return _RNG[0]
    k = _EXECUTION.get()
    return np.random.default_rng(seed if not k else [int(seed) % 2**32, k])


def tf_seeds(seed):
    """The ``(seed, seed2)`` TF gives an op made now with ``seed=seed``; None where TF's
    numbers are not fixed by the seeds alone (no op seed: TF takes the graph's op
    count)."""
    return philox.tf_seeds(getattr(_root_graph(), "tf_random_seed", None), seed)


def tf_numbers(kind, shape, dtype, seed, low_or_mean, high_or_stddev):
    """TF's own numbers for an op with ``seed=seed`` (its first run), as TF computes them
    in ``dtype``: ``kind`` "uniform" gives ``low + u * (high - low)``, "normal" and
    "truncated_normal" ``mean + z * stddev``; None where the seeds do not fix them (then
    symgrad draws numbers of the same distribution from its own generator)."""
    seeds = tf_seeds(seed)
    if seeds is None or np.dtype(dtype) not in (np.float32, np.float64):
        return None
    t = np.dtype(dtype).type
    shape = tuple(int(d) for d in shape)
    start = _EXECUTION.get() * philox.reserved(shape)
    z = getattr(philox, kind)(shape, np.dtype(dtype), seeds, start)
    if kind == "uniform":
        return z * (t(high_or_stddev) - t(low_or_mean)) + t(low_or_mean)
    return z * t(high_or_stddev) + t(low_or_mean)


class Initializer:
    """Base class: ``init(shape, dtype)`` gives a constant tensor, ``init.array`` numbers."""

    dtype = np.float32

    def __call__(self, shape, dtype=None, partition_info=None):
        from .tensor import constant
        dt, shape = np.dtype(dtype or self.dtype), shape_tuple(shape)
        return drawn_again(constant(self.array(shape, dt), dtype=dt), self, shape, dt)

    def array(self, shape, dtype):
        raise NotImplementedError

    def part(self, shape, dtype, full_shape):
        """The numbers of one part (``shape``) of a partitioned variable of
        ``full_shape``, or None: the part is sliced from the whole (constants)."""
        return None


def _drawn_per_part(initializer, shape, dtype, full_shape):
    """A random initializer's ``part``: TF draws each part of a partitioned variable by
    its own op with the initializer's seed (so seeded parts start alike)."""
    return initializer.array(shape, dtype)


def shape_tuple(shape):
    """A variable's ``shape`` as a tuple of ints: TF takes one int for a vector's length
    (the NTM's ``tf.get_variable('init_state', rnn_size, ...)``) and ``Dimension``s."""
    dims = (shape,) if np.ndim(shape) == 0 and not hasattr(shape, "__len__") else shape
    out = tuple(None if d is None or getattr(d, "value", 0) is None else int(d) for d in dims)
    if any(d is not None and d < 0 for d in out):
        raise ValueError(f"Dimension {min(d for d in out if d is not None)} must be >= 0 "
                         f"(shape {list(out)})")
    return out


def drawn_again(node, initializer, shape, dtype):
    """``node`` (the constant ``initializer`` drew) with ``node.drawn_again(k)``: its
    numbers at the k-th execution after the first (``compat.redraws``)."""
    def again(k):
        token = _EXECUTION.set(int(k))
        try:
            return initializer.array(shape, dtype)
        finally:
            _EXECUTION.reset(token)
    node.drawn_again = again
    return node


class Constant(Initializer):
    """Every element ``value``; a shorter list is padded with its last element (TF1)."""

    def __init__(self, value=0, dtype=np.float32, verify_shape=False):
        self.value, self.dtype = value, dtype

    def array(self, shape, dtype):
        flat = np.asarray(self.value, dtype=dtype).ravel()
        size = int(np.prod(shape, dtype=np.int64))
        if flat.size == 1:
            return np.full(shape, flat[0], dtype=dtype)
        if flat.size > size:
            raise ValueError(f"constant_initializer: {flat.size} values do not fit shape {shape}")
        return np.concatenate([flat, np.full(size - flat.size, flat[-1], dtype)]).reshape(shape)


class Zeros(Constant):
    def __init__(self, dtype=np.float32):
        super().__init__(0, dtype)


class Ones(Constant):
    def __init__(self, dtype=np.float32):
        super().__init__(1, dtype)


class RandomUniform(Initializer):
    """Uniform in [minval, maxval); maxval None means 1 (TF1)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=np.float32):
        self.minval, self.maxval, self.seed, self.dtype = minval, maxval, seed, dtype

    part = _drawn_per_part

    def array(self, shape, dtype):
        top = 1.0 if self.maxval is None else self.maxval
        tf = tf_numbers("uniform", shape, dtype, self.seed, self.minval, top)
        return tf if tf is not None else \
            rng(self.seed).uniform(self.minval, top, size=shape).astype(dtype)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=np.float32):
        self.mean, self.stddev, self.seed, self.dtype = mean, stddev, seed, dtype

    part = _drawn_per_part

    def array(self, shape, dtype):
        tf = tf_numbers("normal", shape, dtype, self.seed, self.mean, self.stddev)
        return tf if tf is not None else \
            rng(self.seed).normal(self.mean, self.stddev, size=shape).astype(dtype)


class TruncatedNormal(RandomNormal):
    """Normal samples redrawn beyond two standard deviations."""

    def array(self, shape, dtype):
        tf = tf_numbers("truncated_normal", shape, dtype, self.seed, self.mean, self.stddev)
        if tf is not None:
            return tf
        z = truncated_standard_normal(rng(self.seed), shape)
        return (self.mean + self.stddev * z).astype(dtype)


def compute_fans(shape):
    """TF's fan_in, fan_out: a kernel's receptive field multiplies both."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2], dtype=np.int64))
    return shape[-2] * receptive, shape[-1] * receptive


class VarianceScaling(Initializer):
    """TF1's variance scaling: variance ``scale / fan``; the truncated normal is rescaled
    by 0.8796 so that its standard deviation is the target one."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=np.float32):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"variance_scaling_initializer: mode={mode!r}; use 'fan_in', "
                             "'fan_out' or 'fan_avg'")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.seed, self.dtype = seed, dtype

    def array(self, shape, dtype):
        return self.part(shape, dtype, shape)

    def part(self, shape, dtype, full_shape):
        """Drawn per part, scaled by the whole variable's fans (TF's partition_info)."""
        fan_in, fan_out = compute_fans(full_shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}
        scale = self.scale / max(1.0, fan[self.mode])
        tf = self._tf_numbers(shape, dtype, scale)
        if tf is not None:
            return tf
        generator = rng(self.seed)
        if self.distribution in ("normal", "truncated_normal"):
            z = truncated_standard_normal(generator, shape)
            return (np.sqrt(scale) / 0.87962566103423978 * z).astype(dtype)
        if self.distribution == "untruncated_normal":
            return (np.sqrt(scale) * generator.standard_normal(size=shape)).astype(dtype)
        if self.distribution == "uniform":
            limit = np.sqrt(3.0 * scale)
            return generator.uniform(-limit, limit, size=shape).astype(dtype)
        raise ValueError(f"variance_scaling_initializer: distribution={self.distribution!r}; "
                         "use 'truncated_normal', 'untruncated_normal' or 'uniform'")

    def _tf_numbers(self, shape, dtype, scale):
        # TF's init_ops: the same three draws, with the same (Python float) parameters
        if self.distribution in ("normal", "truncated_normal"):
            return tf_numbers("truncated_normal", shape, dtype, self.seed, 0.0,
                              np.sqrt(scale) / 0.87962566103423978)
        if self.distribution == "untruncated_normal":
            return tf_numbers("normal", shape, dtype, self.seed, 0.0, np.sqrt(scale))
        if self.distribution == "uniform":
            limit = np.sqrt(3.0 * scale)
            return tf_numbers("uniform", shape, dtype, self.seed, -limit, limit)
        return None


class Orthogonal(Initializer):
    """An orthogonal matrix (rows or columns) from the QR factors of a normal sample."""

    def __init__(self, gain=1.0, seed=None, dtype=np.float32):
        self.gain, self.seed, self.dtype = gain, seed, dtype

    part = _drawn_per_part

    def array(self, shape, dtype):
        rows = int(np.prod(shape[:-1], dtype=np.int64))
        cols = shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        # TF's numbers with a seed: its random_normal of this shape, then the same QR
        a = tf_numbers("normal", flat, dtype, self.seed, 0.0, 1.0)
        if a is None:
            a = rng(self.seed).standard_normal(flat)
        q, r = np.linalg.qr(np.asarray(a, np.float64))
        q = q * np.sign(np.diag(r))        # a unique, uniformly distributed factor
        q = q.T if rows < cols else q
        return (self.gain * q).reshape(shape).astype(dtype)


class Identity(Initializer):
    def __init__(self, gain=1.0, dtype=np.float32):
        self.gain, self.dtype = gain, dtype

    def array(self, shape, dtype):
        if len(shape) != 2:
            raise ValueError(f"identity_initializer needs a 2-d shape, got {shape}")
        return (self.gain * np.eye(*shape)).astype(dtype)


def glorot_uniform_initializer(seed=None, dtype=np.float32):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): get_variable's default in TF1."""
    return VarianceScaling(1.0, "fan_avg", "uniform", seed, dtype)


def glorot_normal_initializer(seed=None, dtype=np.float32):
    return VarianceScaling(1.0, "fan_avg", "truncated_normal", seed, dtype)


def he_normal(seed=None):
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None):
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None):
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None):
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


TABLE = {
    "constant_initializer": Constant, "zeros_initializer": Zeros, "ones_initializer": Ones,
    "random_uniform_initializer": RandomUniform, "random_normal_initializer": RandomNormal,
    "truncated_normal_initializer": TruncatedNormal,
    "variance_scaling_initializer": VarianceScaling, "orthogonal_initializer": Orthogonal,
    "glorot_uniform_initializer": glorot_uniform_initializer,
    "glorot_normal_initializer": glorot_normal_initializer,
}
SHORT = {"constant": Constant, "zeros": Zeros, "ones": Ones, "random_uniform": RandomUniform,
         "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
         "variance_scaling": VarianceScaling, "orthogonal": Orthogonal, "identity": Identity,
         "glorot_uniform": glorot_uniform_initializer, "glorot_normal": glorot_normal_initializer,
         "he_normal": he_normal, "he_uniform": he_uniform, "lecun_normal": lecun_normal,
         "lecun_uniform": lecun_uniform}
