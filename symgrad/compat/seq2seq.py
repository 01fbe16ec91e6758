"""``tf.contrib.seq2seq.sequence_loss`` and ``tf.contrib.legacy_seq2seq``'s losses.

The losses of TF1's RNN tutorials (the PTB language model, char-RNNs, seq2seq):
softmax cross entropy per time step, weighted (a mask for padding), averaged the way
TF 1.15's functions average:

- ``sequence_loss(logits [B, T, C], targets [B, T], weights [B, T])``: summed and
  divided by the summed weights over time and/or batch (``average_across_*``), or by
  the number of nonzero weights (``sum_over_*``); a division by 0 gives 0
  (``div_no_nan``).  Rank 0, 1 or 2 as TF.
- ``legacy_seq2seq.sequence_loss_by_example(logits, targets, weights)``: lists of
  time steps ([B, C], [B], [B]); per example, divided by the summed weights plus
  1e-12 with ``average_across_timesteps``; ``legacy_seq2seq.sequence_loss`` sums that
  and divides by the batch size.

Imports tracing and the TF1 metrics' ``div_no_nan``.
"""
from __future__ import annotations

from .. import tracing as _t
from ..tracing import nn as _nn
from .metrics import div_no_nan
from .tensor import added


def _rank(t):
    shape = getattr(t, "shape", None)
    return None if shape is None else len(shape)


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, sum_over_timesteps=False, sum_over_batch=False,
                  softmax_loss_function=None, name=None):
    """``tf.contrib.seq2seq.sequence_loss`` (TF 1.15's)."""
    logits, targets, weights = (_t.convert_to_tensor(v) for v in (logits, targets, weights))
    for value, rank, what in ((logits, 3, "Logits must be a [batch_size x sequence_length x "
                                          "logits] tensor"),
                              (targets, 2, "Targets must be a [batch_size x sequence_length] "
                                           "tensor"),
                              (weights, 2, "Weights must be a [batch_size x sequence_length] "
                                           "tensor")):
        if _rank(value) != rank:
            raise ValueError(what)
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    flat_logits = _t.reshape(logits, (-1, logits.shape[2]))
    flat_targets = _t.reshape(targets, (-1,))
    if softmax_loss_function is None:
        crossent = _nn.sparse_softmax_cross_entropy_with_logits(labels=flat_targets,
                                                                logits=flat_logits)
    else:
        crossent = softmax_loss_function(labels=flat_targets, logits=flat_logits)
    crossent = crossent * _t.reshape(weights, (-1,))
    if average_across_timesteps and average_across_batch:
        return div_no_nan(_t.reduce_sum(crossent), _t.reduce_sum(weights), name=name)
    if sum_over_timesteps and sum_over_batch:
        count = _t.cast(_t.count_nonzero(weights), crossent.dtype)
        return div_no_nan(_t.reduce_sum(crossent), count, name=name)
    crossent = _t.reshape(crossent, tuple(logits.shape[:2]))
    if average_across_timesteps or average_across_batch:
        axis = 0 if average_across_batch else 1
        return div_no_nan(_t.reduce_sum(crossent, axis=axis),
                          _t.reduce_sum(weights, axis=axis), name=name)
    if sum_over_timesteps or sum_over_batch:
        axis = 0 if sum_over_batch else 1
        count = _t.cast(_t.count_nonzero(weights, axis=axis), crossent.dtype)
        return div_no_nan(_t.reduce_sum(crossent, axis=axis), count, name=name)
    return crossent if name is None else _t.identity(crossent, name=name)


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """``tf.contrib.legacy_seq2seq.sequence_loss_by_example``: lists of time steps."""
    if not (len(targets) == len(logits) == len(weights)):
        raise ValueError("Lengths of logits, weights, and targets must be the same "
                         f"{len(logits)}, {len(weights)}, {len(targets)}.")
    terms = []
    for logit, target, weight in zip(logits, targets, weights):
        if softmax_loss_function is None:
            crossent = _nn.sparse_softmax_cross_entropy_with_logits(
                labels=_t.reshape(target, (-1,)), logits=logit)
        else:
            crossent = softmax_loss_function(labels=target, logits=logit)
        terms.append(crossent * weight)
    total = added(terms, "sequence_loss_by_example")   # (TF's add_n)
    if average_across_timesteps:
        total = total / (added([_t.convert_to_tensor(w) for w in weights],
                               "sequence_loss_by_example") + 1e-12)
    return total if name is None else _t.identity(total, name=name)


def legacy_sequence_loss(logits, targets, weights, average_across_timesteps=True,
                         average_across_batch=True, softmax_loss_function=None, name=None):
    """``tf.contrib.legacy_seq2seq.sequence_loss``: the summed per-example losses, divided
    by the batch size with ``average_across_batch``."""
    cost = _t.reduce_sum(sequence_loss_by_example(
        logits, targets, weights, average_across_timesteps, softmax_loss_function))
    if average_across_batch:
        batch = _t.shape(_t.convert_to_tensor(targets[0]))[0]
        cost = cost / _t.cast(batch, cost.dtype)
    return cost if name is None else _t.identity(cost, name=name)

