"""Sampling from logits and ``tf.distributions``: what policy-gradient and sampling code uses.

- ``tf.multinomial(logits, n)`` / ``tf.random.categorical``: n class indices per row,
  by the Gumbel-max rule (``argmax(logits + g)``, g = -log(-log u) for uniform u), the
  numbers drawn anew at each ``Session.run`` like TF1's other random ops (``ops.draws``);
  with an op seed, TF's own samples (its kernel's rule over ``ops.philox``'s doubles).
- ``tf.distributions.Normal(loc, scale)``: ``log_prob``, ``prob``, ``cdf``,
  ``entropy``, ``mean``, ``stddev``, ``variance``, ``sample``; and ``Categorical(logits=
  or probs=)``: ``log_prob``, ``prob``, ``entropy``, ``mode``, ``sample``, ``probs``,
  ``event_size``; both with TF's ``batch_shape``/``event_shape``
  (``distribution_shapes``).  Their formulas are graph ops, so gradients flow through
  ``loc``, ``scale`` and the logits.
- ``tf.distributions.kl_divergence(a, b)`` (and ``a.kl_divergence(b)``,
  ``a.cross_entropy(b)``) in closed form for Normal–Normal and Categorical–Categorical,
  TF's formulas; another pair is TF's NotImplementedError.

Imports the tracing functions, ``ops.draws`` and the compat initializers (the seed).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     d = tf.distributions.Normal(loc=0.0, scale=2.0)
...     print(round(float(tf.Session().run(d.log_prob(0.0))), 6))
-1.612086
"""
from __future__ import annotations

import contextlib
import contextvars
import math

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from ..graph import Node
from ..ops import broadcast_shapes
from ..ops.draws import draw_like, new_key, positions, tf_dist, tf_iteration, tf_key
from ..tracing import functions as _f
from ..tracing import nn as _nn
from . import initializers as _init
from .distribution_shapes import BatchShapes
from .distribution_tails import NormalTails
from .tensor import as_tf1, constant
from .variables import tf_dtype


def _tensor(value):
    """A tensor for a parameter: TF's dtypes for Python numbers (float32)."""
    return value if isinstance(value, Node) else constant(value, tf_dtype(value, None))


def same_dtype(value, first, dist, what, first_name):
    """A parameter that must have the dtype of the distribution's first one: TF makes a
    Python number float32 and refuses a float32 parameter next to a float64 one."""
    out = _tensor(value)
    if out.dtype != first.dtype:
        raise ValueError(f"{dist}/{what}: dtype {out.dtype.name} must be of the same type "
                         f"({first.dtype.name}) as {dist}/{first_name} (a Python number is "
                         f"float32, as in TF: give tf.constant(..., tf.{first.dtype.name}))")
    return out


def drawn(shape, dist, seed):
    """Standard numbers (``dist``: "uniform" or "normal") of ``shape`` (sizes known
    at run time allowed), drawn at each ``Session.run`` from a key TF's seeds fix
    (``ops.draws``): every random op of compat.v1 starts here."""
    return draw_like(_f.zeros(shape, np.float64), new_key(_init.rng(seed)), dist)


def scaled_draw(shape, kind, seed, dtype, a, b, name=None):
    """``a + u * (b - a)`` (``kind`` "uniform") or ``a + z * b`` ("normal") of ``shape``
    (sizes read at run time allowed, such as ``tf.shape(mu)``), made when the sizes are
    known, anew at each ``Session.run`` as in TF1: TF's own numbers where ``seed`` fixes
    them (:func:`tf_drawn`), else standard numbers from a key drawn now (``ops.draws``)."""
    tf = tf_drawn(shape, kind, seed, dtype, a, b, name)
    if tf is not None:
        return tf
    if np.dtype(dtype).kind == "f":   # in the result's dtype (xavier_init's float32 stddev)
        return _scaled(_t.cast(drawn(shape, kind, seed), np.dtype(dtype)), kind, dtype, a, b, name)
    # integers: floor(minval + u (maxval - minval)), the bounds tensors too (tf.shape(x)[0])
    lo, hi = (_t.cast(v, np.float64) for v in _parameters(kind, dtype, a, b))
    return as_tf1(_f.cast(_t.floor(drawn(shape, kind, seed) * (hi - lo) + lo), dtype, name=name))


# (k, count, keys made in iteration 0, draws made so far in this iteration) while a
# dynamic_rnn is unrolled (compat.rnn): its seeded draws are iterations of one op
_ITERATION = contextvars.ContextVar("symgrad_tf_iteration", default=None)


@contextlib.contextmanager
def unrolled_iteration(k, count, keys):
    """Inside, TF-seeded draws are iteration ``k`` of ``count`` of the ops made in
    iteration 0 (``keys``, filled then): TF runs a ``while_loop`` body's random op once
    per iteration, its counter moving on, so each time step of ``dynamic_rnn`` gets its
    own dropout mask, as in TF (``static_rnn`` makes an op per step: the same mask)."""
    token = _ITERATION.set([k, count, keys, 0])
    try:
        yield
    finally:
        _ITERATION.reset(token)


def _tf_draw(shape, seeds, dist):
    """A draw of TF's stream with ``seeds``: a new op's, or (in an unrolled iteration)
    the next of iteration 0's ops, drawn as this iteration."""
    where = _ITERATION.get()
    if where is None:
        return draw_like(_f.zeros(shape, np.float64), tf_key(seeds), dist)
    k, count, keys, made = where
    where[3] += 1
    if k == 0:
        keys.append(tf_key(seeds))
    if made >= len(keys):
        raise ArgumentError("an unrolled dynamic_rnn step made more seeded random ops than "
                            "its first step; its cell must make the same ops every step")
    return draw_like(_f.zeros(shape, np.float64), keys[made], tf_iteration(dist, k, count))


def tf_drawn(shape, kind, seed, dtype, a, b, name):
    """TF's own numbers where the seeds fix them (``ops.philox``), drawn at each run as
    TF's kernel draws them: ``a + u * (b - a)`` for ``kind`` "uniform", ``a + z * b``
    for "normal", computed in ``dtype`` as TF computes them; None for other dtypes or
    without an op seed."""
    seeds = _init.tf_seeds(seed)
    if seeds is None:
        return None
    if np.dtype(dtype) in (np.int32, np.int64) and kind == "uniform":
        return _tf_integers(shape, seeds, dtype, a, b, name)
    if np.dtype(dtype) not in (np.float32, np.float64):
        return None
    numbers = _tf_draw(shape, seeds, tf_dist(kind, dtype))
    return _scaled(_t.cast(numbers, np.dtype(dtype)), kind, dtype, a, b, name)


def _scaled(z, kind, dtype, a, b, name):
    """``a + z * (b - a)`` (``kind`` "uniform") or ``a + z * b`` ("normal") in ``dtype``,
    the parameters numbers or tensors (``stddev=1 / tf.sqrt(n)``)."""
    a, b = _parameters(kind, dtype, a, b)
    scale = _t.subtract(b, a) if kind == "uniform" else b
    return as_tf1(_t.add(_t.multiply(z, scale), a, name=name))


def _parameters(kind, dtype, a, b):
    names = ("minval", "maxval") if kind == "uniform" else ("mean", "stddev")
    return tuple(_parameter(v, dtype, what) for v, what in zip((a, b), names))


def _parameter(value, dtype, what):
    """A mean, stddev or bound in ``dtype``: a tensor as it is (TF converts it to the
    draw's dtype and refuses another, a ValueError), a number as a constant."""
    if isinstance(value, Node):
        if value.dtype != np.dtype(dtype):
            raise ValueError(f"{what}: Tensor conversion requested dtype {np.dtype(dtype)} "
                             f"for Tensor with dtype {value.dtype}: {value.name!r} "
                             f"(cast it with tf.cast)")
        return value
    if np.dtype(dtype).kind in "iu" and isinstance(value, float):
        raise TypeError(f"Expected {np.dtype(dtype)}, but got {value!r} of type "
                        f"'{type(value).__name__}' ({what} of an integer draw)")
    return constant(np.dtype(dtype).type(value))


def seeded_dropout(x, rate, noise_shape, seed, name):
    """TF's dropout with TF's own mask where ``seed`` fixes its numbers: ``x / (1 -
    rate)`` where a uniform number of the run is at least ``rate`` (a number or a
    scalar tensor), else 0, in x's dtype as TF computes it; None elsewhere (a dtype or
    rank TF's stream does not cover here, a rate of 0, or a rate outside [0, 1), which
    the general dropout refuses)."""
    x = _t.as_tensor(x)
    dtype = x.dtype
    if x.shape is None or dtype not in (np.float32, np.float64) or _init.tf_seeds(seed) is None:
        return None
    if not isinstance(rate, Node) and not 0.0 < float(rate) < 1.0:
        return None
    shape = x.shape if noise_shape is None else _nn.mask_shape(x, noise_shape)
    u = tf_drawn(shape, "uniform", seed, dtype, 0.0, 1.0, None)
    if isinstance(rate, Node):
        rate = _t.cast(rate, dtype)
        kept = _t.divide(x, _t.subtract(constant(dtype.type(1)), rate))
    else:
        kept = _t.multiply(x, constant(dtype.type(1 / (1 - rate))))
        rate = constant(dtype.type(rate))
    return as_tf1(_t.where(_t.greater_equal(u, rate), kept, constant(dtype.type(0)),
                           name=name))


def _tf_integers(shape, seeds, dtype, low, high, name):
    """TF's ``RandomUniformInt`` numbers in [low, high) (held exactly: the draw's float64
    holds integers below 2**53, the range a draw of these is refused beyond)."""
    if not (isinstance(low, (int, np.integer)) and isinstance(high, (int, np.integer))) \
            or not low < high or max(abs(int(low)), abs(int(high))) >= 2**53:
        return None
    numbers = _tf_draw(shape, seeds, tf_dist("uniform", dtype, low, high))
    return as_tf1(_t.cast(numbers, np.dtype(dtype), name=name))


def shuffled(value, seed, name):
    """``tf.random_shuffle``: the rows of ``value`` in an order drawn at each run: TF's
    own order where the seeds fix it, else one from a key drawn now (``ops.draws``)."""
    x = _t.as_tensor(value)
    if x.shape is None or x.ndim == 0:
        raise ArgumentError(f"random_shuffle: {x.name!r} needs a known rank of 1 or more "
                            "(its rows are shuffled)")
    seeds = _init.tf_seeds(seed)
    key, dist = (tf_key(seeds), tf_dist("perm", np.int64)) if seeds is not None else (
        new_key(_init.rng(seed)), "perm")
    order = draw_like(_f.zeros((x.shape[0],), np.float64), key, dist)
    # TF registers no gradient for RandomShuffle: none flows back to value
    return as_tf1(_t.stop_gradient(_t.gather(x, _t.cast(order, np.int64)), name=name))


def _uniform(shape, seed):
    """Uniform numbers in (0, 1) of ``shape``, drawn at each run."""
    return _t.maximum(drawn(shape, "uniform", seed), np.finfo(np.float64).tiny)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=np.int64):
    """``tf.multinomial``: ``num_samples`` class indices for each row of ``logits``
    [batch, classes] (unnormalised log-probabilities), shape [batch, num_samples]."""
    x = _t.as_tensor(logits)
    if x.ndim != 2:
        raise ArgumentError(f"multinomial: logits of shape {x.shape}; give [batch, classes]")
    n = int(num_samples)
    tf = _tf_samples(x, n, seed, np.dtype(output_dtype))
    if tf is not None:
        return as_tf1(_t.identity(tf, name=name or "multinomial"))
    gumbel = -_t.log(-_t.log(_uniform((x.shape[0], n, x.shape[1]), seed)))
    scores = _t.expand_dims(_t.cast(x, np.float64), 1) + gumbel
    return as_tf1(_t.argmax(scores, axis=-1, output_type=np.dtype(output_dtype),
                            name=name or "multinomial"))


def _tf_samples(x, n, seed, dtype):
    """TF's own samples where ``seed`` fixes them (None otherwise), as its CPU kernel
    draws them in one shard: row b's j-th sample takes the (b * n + j)-th float64
    uniform u of the execution's stream (an execution reserves 2 * ceil4(n) numbers a
    row) and is the first class whose running sum of ``exp(logit - max)`` (finite
    logits only, in float64) exceeds u times the row's total."""
    seeds = _init.tf_seeds(seed)
    if seeds is None or n < 1:
        return None
    width = (n + 3) // 4 * 8
    rows_like = _t.zeros_like(_t.cast(x[:, :1], np.float64)) + np.zeros((1, width))
    stream = _t.reshape(draw_like(rows_like, tf_key(seeds), tf_dist("uniform", np.float64)),
                        [-1])
    start = _t.expand_dims(positions(x[:, 0]) * n, 1) + np.arange(n, dtype=np.int64)
    u = _t.gather(stream, start)                                   # [batch, n]
    logits = _t.cast(x, np.float64)
    finite = _t.is_finite(logits)
    top = _t.reduce_max(_t.where(finite, logits, constant(-np.inf)), axis=1, keepdims=True)
    cdf = _t.cumsum(_t.where(finite, _t.exp(logits - top), constant(0.0)), axis=1)
    to_find = u * cdf[:, -1:]
    passed = _t.less_equal(_t.expand_dims(cdf, 1), _t.expand_dims(to_find, 2))
    return _t.reduce_sum(_t.cast(passed, dtype), axis=2)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """``tf.random.categorical`` (TF's newer name of ``multinomial``)."""
    return multinomial(logits, num_samples, seed, name, dtype or np.int64)


class Normal(NormalTails):
    """``tf.distributions.Normal(loc, scale)`` (module docstring)."""

    def __init__(self, loc, scale, validate_args=False, allow_nan_stats=True, name="Normal"):
        self.loc = _tensor(loc)
        self.scale = same_dtype(scale, self.loc, name, "scale", "loc")
        self.dtype = self.loc.dtype

    def _z(self, value):
        return (value - self.loc) / self.scale

    def log_prob(self, value, name="log_prob"):
        z = self._z(value)
        return -0.5 * z * z - _t.log(self.scale) - 0.5 * math.log(2 * math.pi)

    def prob(self, value, name="prob"):
        return _t.exp(self.log_prob(value))

    def entropy(self, name="entropy"):
        return 0.5 * math.log(2 * math.pi * math.e) + _t.log(self.scale) + 0.0 * self.loc

    def mean(self, name="mean"):
        return self.loc + 0.0 * self.scale

    def stddev(self, name="stddev"):
        return self.scale + 0.0 * self.loc

    def variance(self, name="variance"):
        return self.stddev() ** 2

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """``loc + scale * z`` for standard normal z of ``sample_shape + batch shape``,
        drawn at each run (gradients flow to loc and scale: the reparameterisation)."""
        batch = broadcast_shapes(self.loc.shape, self.scale.shape)
        shape = tuple(int(d) for d in np.reshape(sample_shape, -1))
        tf = tf_drawn(shape + batch, "normal", seed, self.dtype, 0.0, 1.0, None)
        z = tf if tf is not None else _t.cast(drawn(shape + batch, "normal", seed), self.dtype)
        return self.loc + self.scale * z   # (TF's own z where the seeds fix them)

    def kl_divergence(self, other, name="kl_divergence"):
        return kl_divergence(self, other)

    def cross_entropy(self, other, name="cross_entropy"):
        return self.entropy() + kl_divergence(self, other)


class Categorical(BatchShapes):
    """``tf.distributions.Categorical(logits=...)`` or ``(probs=...)`` over the last
    axis (module docstring); the other of ``logits``/``probs`` is derived from the one
    given, as TF's ``get_logits_and_probs`` (softmax, or log)."""

    def __init__(self, logits=None, probs=None, dtype=np.int32, validate_args=False,
                 allow_nan_stats=True, name="Categorical"):
        if (logits is None) == (probs is None):
            raise ArgumentError("Categorical: give exactly one of logits= and probs=")
        self.logits = _tensor(logits) if logits is not None else _t.log(_tensor(probs))
        self.dtype = np.dtype(dtype)
        self.probs = _tensor(probs) if probs is not None else _t.softmax(self.logits, -1)

    def _parameters(self):
        return [self.logits]

    def _split(self, shape):
        return tuple(shape[:-1]), ()   # the classes axis is neither batch nor event

    @property
    def event_size(self):
        """The number of classes, an int32 scalar (read at run time when unknown)."""
        n = self.logits.shape[-1]
        return _t.constant(np.int32(n)) if isinstance(n, int) else _t.shape(self.logits)[-1]

    def mode(self, name="mode"):
        """The most likely class of each row (the first of ties), in ``dtype``."""
        return _t.cast(_t.argmax(self.logits, axis=-1), self.dtype)

    def _log_probs(self):
        return _nn.log_softmax(self.logits)

    def log_prob(self, value, name="log_prob"):
        """The log-probability of each class index in ``value`` (the batch's shape)."""
        value = _tensor(value)
        depth = self.logits.shape[-1]
        hot = _t.one_hot(value, depth, dtype=self.logits.dtype)
        return _t.reduce_sum(hot * self._log_probs(), axis=-1)

    def prob(self, value, name="prob"):
        return _t.exp(self.log_prob(value))

    def entropy(self, name="entropy"):
        logp = self._log_probs()
        return -_t.reduce_sum(_t.exp(logp) * logp, axis=-1)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """One class index per row, drawn at each run (``sample_shape`` () or (n,):
        then [n] + batch shape)."""
        shape = tuple(int(d) for d in np.reshape(sample_shape, -1))
        n = int(np.prod(shape)) if shape else 1
        flat = _t.reshape(self.logits, (-1, self.logits.shape[-1]))
        draws = _t.cast(multinomial(flat, n, seed), self.dtype)        # [rows, n]
        out = _t.transpose(draws, (1, 0))
        return _t.reshape(out, shape + tuple(self.logits.shape[:-1]))

    def kl_divergence(self, other, name="kl_divergence"):
        return kl_divergence(self, other)

    def cross_entropy(self, other, name="cross_entropy"):
        return self.entropy() + kl_divergence(self, other)


def _kl_normal_normal(a, b):
    # KL(N(m_a, s_a) || N(m_b, s_b)) = (m_a - m_b)^2 / (2 s_b^2) + (r - 1 - log r) / 2,
    # r = s_a^2 / s_b^2 (TF's arrangement, so float32 rounds alike)
    ratio = _t.square(a.scale) / _t.square(b.scale)
    return (_t.square(a.loc - b.loc) / (2.0 * _t.square(b.scale))
            + 0.5 * (ratio - 1.0 - _t.log(ratio)))


def _kl_categorical_categorical(a, b):
    # sum_k p_a(k) (log p_a(k) - log p_b(k)) over the last axis
    return _t.reduce_sum(_t.softmax(a.logits, -1) * (a._log_probs() - b._log_probs()), axis=-1)


KL = {(Normal, Normal): _kl_normal_normal,
       (Categorical, Categorical): _kl_categorical_categorical}


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """``tf.distributions.kl_divergence``: KL(a || b), batchwise, in closed form.

    Raises:
        NotImplementedError: no closed form for this pair of types (TF's message).
    """
    rule = KL.get((type(distribution_a), type(distribution_b)))
    if rule is None:
        raise NotImplementedError(
            f"No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}")
    return rule(distribution_a, distribution_b)
