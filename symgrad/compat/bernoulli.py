"""``tf.distributions.Bernoulli``, and its pair for ``tf.distributions.kl_divergence``
(``compat.distributions``), with TF's formulas in the logits, so
gradients flow through the parameters as in TF and the edges come out as TF's (probs
of exactly 0 or 1 give infinite logits, and NaN entropies and KLs, as in TF).

- ``Bernoulli(logits=...)`` or ``(probs=...)``: ``probs = sigmoid(logits)``, ``logits =
  log(p) - log1p(-p)``; ``log_prob(k) = -sigmoid_cross_entropy(labels=k, logits)``,
  (k and the logits broadcast); ``entropy``, ``mean`` (the probs), ``variance``,
  ``stddev``, ``mode`` (1 where probs > 1/2), ``sample`` (of ``dtype``, int32 by
  default: 1 where a uniform number drawn at each run is below probs).
- ``kl_divergence(a, b)`` of two Bernoullis: ``sigmoid(l_a) (softplus(-l_b) -
  softplus(-l_a)) + sigmoid(-l_a) (softplus(l_b) - softplus(l_a))``.

Sits in ``compat``; imports numpy, the tracing layer and ``compat.distributions`` (whose
``KL`` table it adds the Bernoulli pair to).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     b = tf.distributions.Bernoulli(probs=[0.2, 0.9])
...     print(tf.Session().run(b.log_prob([1, 0])))
[-1.609438 -2.302585]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from . import distributions as _d


class Bernoulli:
    """``tf.distributions.Bernoulli(logits=None, probs=None, dtype=tf.int32)`` (module
    docstring)."""

    def __init__(self, logits=None, probs=None, dtype=np.int32, validate_args=False,
                 allow_nan_stats=True, name="Bernoulli"):
        if (logits is None) == (probs is None):
            raise ArgumentError("Must pass probs or logits, but not both.")
        if logits is not None:
            self.logits = _d._tensor(logits)
            self.probs = _t.sigmoid(self.logits)
        else:
            self.probs = _d._tensor(probs)
            self.logits = _t.log(self.probs) - _t.log1p(-self.probs)
        self.dtype, self.name = np.dtype(dtype), name

    def log_prob(self, value, name="log_prob"):
        """log P(value): ``value`` (0s and 1s, any numeric dtype) broadcasts with logits."""
        k = _t.cast(_d._tensor(value), self.logits.dtype)
        # -(k softplus(-l) + (1 - k) softplus(l)): TF's sigmoid cross entropy, written
        # without softplus(l) - l, which loses float32 digits for large l
        return -(k * _t.softplus(-self.logits) + (1.0 - k) * _t.softplus(self.logits))

    def prob(self, value, name="prob"):
        return _t.exp(self.log_prob(value))

    def entropy(self, name="entropy"):
        """``p softplus(-l) + (1 - p) softplus(l)``: -p log p - (1 - p) log(1 - p)."""
        return (self.probs * _t.softplus(-self.logits)
                + _t.sigmoid(-self.logits) * _t.softplus(self.logits))

    def mean(self, name="mean"):
        return _t.identity(self.probs)

    def variance(self, name="variance"):
        return self.probs * (1.0 - self.probs)

    def stddev(self, name="stddev"):
        return _t.sqrt(self.variance())

    def mode(self, name="mode"):
        return _t.cast(_t.greater(self.probs, np.asarray(0.5, self.probs.dtype)), self.dtype)

    def sample(self, sample_shape=(), seed=None, name="sample"):
        """0s and 1s of ``sample_shape + batch shape``, drawn at each run."""
        shape = tuple(int(d) for d in np.reshape(sample_shape, -1))
        u = _t.cast(_d.drawn(shape + tuple(self.probs.shape), "uniform", seed),
                    self.probs.dtype)
        return _t.cast(_t.less(u, self.probs), self.dtype)


def _kl_bernoulli(a, b):
    to_zero = _t.softplus(-b.logits) - _t.softplus(-a.logits)
    to_one = _t.softplus(b.logits) - _t.softplus(a.logits)
    return _t.sigmoid(a.logits) * to_zero + _t.sigmoid(-a.logits) * to_one


_d.KL[(Bernoulli, Bernoulli)] = _kl_bernoulli   # (tf.distributions.kl_divergence)
