"""Sampled losses for large output vocabularies: ``tf.nn.nce_loss`` and
``tf.nn.sampled_softmax_loss``, and the candidate samplers they draw classes with
(``tf.nn.log_uniform_candidate_sampler``, ``uniform_candidate_sampler``,
``fixed_unigram_candidate_sampler``), with TF's documented semantics.

A sampler returns ``(sampled_candidates [num_sampled] int64, true_expected_count
[batch, num_true] float32, sampled_expected_count [num_sampled] float32)``, drawn anew
at each ``Session.run`` like TF1's other random ops.  Class k has probability p(k)
(log-uniform: ``log((k+2)/(k+1)) / log(range_max+1)``).  Without ``unique`` the
candidates are independent draws and a class's expected count is ``p * num_sampled``;
with ``unique`` TF draws until ``num_sampled`` distinct classes come up, counting the
tries n, and the expected count is ``1 - (1-p)^n`` (``p * num_sampled`` when no draw
was repeated).  symgrad runs that process on ``2 num_sampled + 16`` draws at once
(the first ``num_sampled`` first appearances, and the position of the last of them is
the tries); in the rare run where those draws hold fewer distinct classes, it goes on
from the classes met: the next ones in order by the Gumbel-top-k rule over the others
(sampling without replacement, which is what rejecting repeats amounts to), and the
repeats before each as the geometric number they are, failure probability the mass
already taken.  The distribution is TF's; the numbers are not TF's stream (``seed=``
and ``tf.set_random_seed`` make them reproducible).

The losses follow TF's ``_compute_sampled_logits``: true and sampled logits from rows
of ``weights`` and ``biases`` (``partition_strategy`` for sharded weights), accidental
hits (a sampled class equal to one of the row's true classes) pushed to -FLT_MAX when
``remove_accidental_hits``, log expected counts subtracted, then per-row sigmoid
(NCE) or softmax cross entropy.  ``sampled_values=`` fixes the classes, which makes
the loss deterministic (and comparable with TF's number for number).

Imports the tracing functions and ``compat.distributions`` (the per-run draws).

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w, b = tf.constant(np.eye(4, 2, dtype=np.float32)), tf.zeros([4])
...     sv = (tf.constant([2, 3], tf.int64), tf.constant([[0.5]]), tf.constant([0.5, 0.5]))
...     loss = tf.nn.nce_loss(w, b, [[0]], [[1.0, 0.0]], 2, 4, sampled_values=sv)
...     print(np.round(tf.Session().run(loss), 5))
[2.36607]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..control.api import cond
from ..errors import ArgumentError
from ..tracing import nn as _nn
from . import rows as _rows
from .distributions import drawn, multinomial

_FLOAT_MAX = float(np.finfo(np.float32).max)
_AT_ONCE_MAX = 256   # num_sampled up to this: (2 n + 16)^2 comparisons, 280,000 at most


# -- samplers ------------------------------------------------------------------------

def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """``tf.nn.log_uniform_candidate_sampler``: Zipf-like, small ids most often."""
    k = np.arange(int(range_max), dtype=np.float64)
    p = (np.log(k + 2.0) - np.log(k + 1.0)) / np.log(range_max + 1.0)
    return _sample(true_classes, num_true, num_sampled, unique, p, seed, "log_uniform")


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                              seed=None, name=None):
    """``tf.nn.uniform_candidate_sampler``: every class equally likely."""
    p = np.full(int(range_max), 1.0 / int(range_max))
    return _sample(true_classes, num_true, num_sampled, unique, p, seed, "uniform")


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """``tf.nn.fixed_unigram_candidate_sampler`` from ``unigrams`` (counts or weights of
    the classes after ``num_reserved_ids`` reserved ones, which are never drawn),
    each raised to ``distortion``."""
    if vocab_file or num_shards != 1 or shard != 0:
        raise ArgumentError("fixed_unigram_candidate_sampler: vocab_file and sharding are "
                            "not supported; read the counts yourself and pass unigrams=")
    weights = np.concatenate([np.zeros(int(num_reserved_ids)),
                              np.asarray(unigrams, np.float64) ** float(distortion)])
    if weights.size != int(range_max) or (weights < 0).any() or weights.sum() <= 0:
        raise ArgumentError(f"fixed_unigram_candidate_sampler: num_reserved_ids + "
                            f"len(unigrams) = {weights.size} non-negative weights are needed "
                            f"for range_max={range_max}, not all zero")
    return _sample(true_classes, num_true, num_sampled, unique, weights / weights.sum(), seed,
                   "fixed_unigram")


def _sample(true_classes, num_true, num_sampled, unique, p, seed, kind):
    """The sampler's three tensors for class probabilities ``p`` (module docstring)."""
    n = int(num_sampled)
    if n < 1 or (unique and n > np.count_nonzero(p)):
        raise ArgumentError(f"{kind}_candidate_sampler: num_sampled={num_sampled} must be "
                            f"between 1 and the {np.count_nonzero(p)} classes that can be "
                            "drawn (unique=True draws each at most once)")
    labels = _t.cast(_t.as_tensor(true_classes), np.int64)
    if labels.ndim != 2 or labels.shape[1] != int(num_true):
        raise ArgumentError(f"{kind}_candidate_sampler: true_classes of shape {labels.shape}; "
                            f"give [batch_size, num_true={num_true}]")
    sampled, tries = (_distinct if unique else _independent)(p, n, seed, kind)
    probs = _t.constant(p.astype(np.float32))
    return (_t.stop_gradient(sampled),
            _t.stop_gradient(_expected(_t.gather(probs, labels), tries, n)),
            _t.stop_gradient(_expected(_t.gather(probs, sampled), tries, n)))


def _expected(p, tries, n):
    # TF's ExpectedCountHelper: p * n when no try was repeated, else 1 - (1 - p)^tries
    repeated = _t.cast(tries, np.float32)
    return _t.where(_t.equal(tries, n), p * float(n), -_t.expm1(repeated * _t.log1p(-p)))


def _independent(p, n, seed, kind):
    """n draws with replacement; no try is repeated."""
    if kind == "fixed_unigram":
        sampled = _t.reshape(multinomial(np.log(p)[None, :], n, seed), (n,))
    else:   # inverse transform: floor(exp(u log(range_max + 1))) - 1, or floor(u range_max)
        u = drawn((n,), "uniform", seed)
        k = (_t.floor(_t.exp(u * np.log(p.size + 1.0))) - 1.0 if kind == "log_uniform"
             else _t.floor(u * float(p.size)))
        sampled = _t.cast(_t.minimum(k, float(p.size - 1)), np.int64)
    return sampled, _t.constant(np.int64(n))


def _distinct(p, n, seed, kind):
    """n distinct classes in the order rejection sampling meets them, and its tries:
    TF's process itself, run on ``2 n + 16`` draws at once (the first n first
    appearances; :func:`_race` goes on from them in the rare run where the draws hold
    fewer distinct classes).  Draws by inverse transform cost O(n), where a race over
    every class cost O(range_max) in each run (word2vec's 50,000).  The fixed unigram
    draws (a search over the classes' cumulative weights), and more than
    ``_AT_ONCE_MAX`` classes (the first appearances compare every pair of draws), run
    the race from the start."""
    if kind == "fixed_unigram" or n > _AT_ONCE_MAX:
        return _race(p, n, seed, None)
    m = 2 * n + 16
    d, _ = _independent(p, m, seed, kind)   # the first m tries
    earlier = _t.constant(np.tri(m, k=-1, dtype=bool))   # [i, j]: j before i
    first = _t.logical_not(_t.reduce_any(
        _t.logical_and(_t.equal(_t.expand_dims(d, 1), _t.expand_dims(d, 0)), earlier), axis=1))
    position = _t.constant(np.arange(m, dtype=np.float64))
    # first appearances by position, ahead of every repeat: top_k keeps the first n
    _, at = _t.top_k(_t.where(first, -position, -position - float(m)), n)
    found = _t.reduce_sum(_t.cast(first, np.int32))
    drawn_so_far = (d, first, position, found, m)
    return cond(found >= n,
                lambda: (_t.gather(d, at), _t.cast(at[n - 1], np.int64) + np.int64(1)),
                lambda: _race(p, n, seed, drawn_so_far))


def _race(p, n, seed, so_far):
    """The rest of the rejection process after the draws ``so_far`` (None: from the
    start): the classes not met yet in the order a Gumbel-top-k race over them gives
    (sampling without replacement, which is what rejecting repeats amounts to), and the
    repeats before each new class as the geometric number they are, failure
    probability the mass already taken."""
    u = _t.maximum(drawn((p.size,), "uniform", seed), np.finfo(np.float64).tiny)
    with np.errstate(divide="ignore"):
        keys = _t.constant(np.log(p)) - _t.log(-_t.log(u))   # log p + Gumbel noise
    if so_far is not None:   # the classes met come first, in the order they were met
        d, first, position, found, m = so_far
        met = _t.unsorted_segment_sum(_t.where(first, 1e6 + m - position, 0.0 * position),
                                      d, p.size)
        keys = _t.where(met > 0.0, met, keys)
    _, order = _t.top_k(keys, n)
    sampled = _t.cast(order, np.int64)
    taken = _t.cumsum(_t.gather(_t.constant(p), sampled), exclusive=True)   # mass before k
    v = _t.maximum(drawn((n,), "uniform", seed), np.finfo(np.float64).tiny)
    # repeats before the k-th new class: geometric, P(>= m) = taken^m (0 when none taken)
    repeats = _t.floor(_t.log(v) / _t.log(_t.minimum(taken, 1.0 - 1e-16)))
    if so_far is not None:   # the m draws are tries; each class met after them is one more
        repeats = _t.where(_t.range(n) >= found, repeats + 1.0, 0.0 * repeats)
        return sampled, _t.cast(_t.reduce_sum(repeats), np.int64) + np.int64(m)
    return sampled, _t.cast(_t.reduce_sum(repeats), np.int64) + np.int64(n)


# -- losses --------------------------------------------------------------------------

def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
             sampled_values=None, remove_accidental_hits=False, partition_strategy="mod",
             name="nce_loss"):
    """``tf.nn.nce_loss``: per row [batch], the logistic losses of the true classes
    (labels 1/num_true) and the sampled ones (labels 0), log expected counts subtracted."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values,
                                      remove_accidental_hits, partition_strategy, None)
    losses = _nn.sigmoid_cross_entropy_with_logits(labels=targets, logits=logits)
    return _t.reduce_sum(losses, axis=1, name=name)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes,
                         num_true=1, sampled_values=None, remove_accidental_hits=True,
                         partition_strategy="mod", name="sampled_softmax_loss", seed=None):
    """``tf.nn.sampled_softmax_loss``: per row [batch], the softmax cross entropy over
    the true and the sampled classes (accidental hits removed by default)."""
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled,
                                      num_classes, num_true, sampled_values,
                                      remove_accidental_hits, partition_strategy, seed)
    return _nn.softmax_cross_entropy_with_logits(_t.stop_gradient(targets), logits, axis=-1,
                                                 name=name)


def _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                    sampled_values, remove_accidental_hits, partition_strategy, seed):
    """``[batch, num_true + num_sampled]`` logits and their targets (module docstring)."""
    x = _t.as_tensor(inputs)
    if x.ndim != 2:
        raise ArgumentError(f"sampled loss: inputs of shape {x.shape}; give [batch_size, dim]")
    labels = _t.cast(_t.as_tensor(labels), np.int64)
    if sampled_values is None and labels.ndim != 2:   # (TF's candidate sampler's check)
        raise ArgumentError(f"sampled loss: Shape must be rank 2 but is rank {labels.ndim} "
                            f"for labels of shape {labels.shape}; the sampler takes "
                            f"[batch_size, num_true] labels: tf.expand_dims(labels, -1)")
    labels = _t.reshape(labels, (-1, int(num_true)))
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed)
    sampled, true_q, sampled_q = _checked(sampled_values, num_sampled)
    shards = list(weights) if isinstance(weights, (list, tuple)) else weights

    def rows(table, ids):
        # (recorded: the weights and biases get TF's IndexedSlices gradients)
        return _t.cast(_rows.embedding_lookup(table, ids, partition_strategy), x.dtype)
    true_w = _t.reshape(rows(shards, _t.reshape(labels, (-1,))), (-1, int(num_true), x.shape[1]))
    true_logits = (_t.reduce_sum(_t.expand_dims(x, 1) * true_w, axis=-1)
                   + _t.reshape(rows(biases, _t.reshape(labels, (-1,))), (-1, int(num_true))))
    sampled_logits = (_t.matmul(x, rows(shards, sampled), transpose_b=True)
                      + rows(biases, sampled))
    if remove_accidental_hits:   # a sampled class that is one of the row's true classes
        hits = _t.reduce_any(_t.equal(_t.expand_dims(labels, 2), _t.reshape(sampled, (1, 1, -1))),
                             axis=1)
        sampled_logits = sampled_logits + _t.cast(hits, x.dtype) * -_FLOAT_MAX
    true_logits = true_logits - _t.log(_t.cast(true_q, x.dtype))
    sampled_logits = sampled_logits - _t.log(_t.cast(sampled_q, x.dtype))
    targets = _t.concat([_t.ones_like(true_logits) / float(num_true),
                         _t.zeros_like(sampled_logits)], axis=1)
    return _t.concat([true_logits, sampled_logits], axis=1), targets


def _checked(sampled_values, num_sampled):
    """The three tensors of ``sampled_values``, constants (no gradient) of TF's dtypes."""
    if not isinstance(sampled_values, (list, tuple)) or len(sampled_values) != 3:
        raise ArgumentError("sampled_values: give the sampler's three results "
                            "(sampled_candidates, true_expected_count, sampled_expected_count)")
    sampled, true_q, sampled_q = (_t.stop_gradient(_t.as_tensor(v)) for v in sampled_values)
    if sampled.ndim != 1 or sampled.shape[0] not in (int(num_sampled), None) \
            and isinstance(sampled.shape[0], int):
        raise ArgumentError(f"sampled_values[0]: sampled_candidates of shape {sampled.shape}; "
                            f"give [num_sampled={num_sampled}] class ids")
    return _t.cast(sampled, np.int64), true_q, sampled_q
