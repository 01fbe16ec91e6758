"""``tf.contrib.seq2seq``'s attention: ``BahdanauAttention``, ``LuongAttention`` and
``AttentionWrapper`` (TF 1.15's formulas, the NMT tutorial's attention models).

- A mechanism holds the memory [batch, time, depth] (zeroed past
  ``memory_sequence_length``) as ``values`` and ``keys = memory_layer(values)`` (a
  Dense layer without bias, "memory_layer", made with the mechanism).  Called with a
  query [batch, units] it scores every memory step -- Bahdanau: ``sum(v *
  tanh(keys + query_layer(query)))`` (v "attention_v"; ``normalize=True`` uses the
  weight-normalised ``g * v / |v|`` and a bias "attention_b"); Luong: ``query .
  keys`` (times a scalar "attention_g" with ``scale=True``) -- masks the steps past
  the length with ``-inf`` and returns ``softmax`` (or ``probability_fn``) of the
  scores as the alignments (also the next attention state).
- ``AttentionWrapper(cell, mechanism, attention_layer_size=None, ...)`` feeds the cell
  ``concat([inputs, previous attention])``, scores the memory with the cell's output,
  takes the context ``alignments @ values`` and, with ``attention_layer_size``, the
  attention ``attention_layer(concat([cell_output, context]))`` ("attention_layer",
  no bias), else the context.  It outputs the attention (``output_attention=True``)
  or the cell's output; its state is an ``AttentionWrapperState``, whose ``clone``
  sets fields (``zero_state(...).clone(cell_state=encoder_state)``).

Layers and variables are made at the first call and kept (TF's layers do the same).
Several mechanisms (a list) concatenate their attentions; ``alignment_history`` is
not kept (refused).

Imports the tracing layer and compat's layers, scopes and rnn.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     memory = tf.ones([2, 3, 4])
...     attention = LuongAttention(4, memory, memory_sequence_length=[3, 1])
...     cell = AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), attention, attention_layer_size=5)
...     out, state = cell(tf.zeros([2, 1]), cell.zero_state(2, tf.float32))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(out.shape, sess.run(state.alignments)[1])
(2, 5) [1. 0. 0.]
"""
from __future__ import annotations

import collections

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from ..tracing import arrays as _arrays
from ..tracing import nn as _nn
from . import initializers as _init
from .layers import Dense
from .rnn import RNNCell
from .scopes import get_variable, variable_scope
from .tensor import tf_dtype_arg

_STATE_FIELDS = ("cell_state", "attention", "time", "alignments", "alignment_history",
                 "attention_state")


class AttentionWrapperState(collections.namedtuple("AttentionWrapperState", _STATE_FIELDS)):
    """The wrapper's state; ``clone(**fields)`` replaces fields."""

    def clone(self, **kwargs):
        return self._replace(**kwargs)


class _Mechanism:
    """The memory, its keys, and scoring (module docstring)."""

    default_scope = "attention"

    def __init__(self, num_units, memory, memory_sequence_length, probability_fn,
                 score_mask_value, name):
        self._units = int(num_units)
        memory = _t.as_tensor(memory)
        if memory.ndim != 3:
            raise ArgumentError(f"{type(self).__name__}: memory must be [batch, time, depth], "
                                f"got shape {memory.shape}")
        self._lengths = None if memory_sequence_length is None else \
            _t.as_tensor(memory_sequence_length)
        self.values = _t.multiply(memory, self._step_mask(memory, memory.dtype)[:, :, None]) \
            if self._lengths is not None else memory
        # (TF makes it under a name scope only: its variable is "memory_layer/kernel")
        self.keys = Dense(self._units, use_bias=False, name="memory_layer")(self.values)
        self._probability_fn = probability_fn or _nn.softmax
        self._mask_value = -np.inf if score_mask_value is None else score_mask_value
        self._made = {}

    def _step_mask(self, like, dtype):
        steps = _arrays.shape(like)[1]
        return _arrays.sequence_mask(self._lengths, steps, dtype=dtype)

    @property
    def alignments_size(self):
        return self.keys.shape[1]

    def initial_alignments(self, batch_size, dtype):
        return _t.zeros([batch_size, self.keys.shape[1]], dtype)

    initial_state = initial_alignments

    def _variable(self, name, *args, **kwargs):
        if name not in self._made:
            self._made[name] = get_variable(name, *args, **kwargs)
        return self._made[name]

    def __call__(self, query, state):
        with variable_scope(None, default_name=self.default_scope):
            score = self._score(_t.as_tensor(query))
        if self._lengths is not None:   # steps past a row's memory length: -inf
            keep = self._step_mask(score[:, :, None], np.bool_)
            score = _t.where(keep, score, _t.zeros_like(score) + score.dtype.type(
                self._mask_value))
        alignments = self._probability_fn(score)
        return alignments, alignments


class BahdanauAttention(_Mechanism):
    """``BahdanauAttention(num_units, memory, memory_sequence_length=None, normalize=False)``."""

    default_scope = "bahdanau_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, normalize=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="BahdanauAttention"):
        super().__init__(num_units, memory, memory_sequence_length, probability_fn,
                         score_mask_value, name)
        self._normalize = normalize
        self._query_layer = Dense(self._units, use_bias=False, name="query_layer")

    def _score(self, query):
        processed = _t.expand_dims(self._query_layer(query), 1)
        v = self._variable("attention_v", [self._units], dtype=self.keys.dtype)
        if self._normalize:   # weight normalisation: g * v / |v|, plus a bias
            g = self._variable("attention_g", (), dtype=self.keys.dtype,
                               initializer=_init.Constant(np.sqrt(1.0 / self._units)))
            b = self._variable("attention_b", [self._units], dtype=self.keys.dtype,
                               initializer=_init.Zeros())
            v = g * v * _t.rsqrt(_t.reduce_sum(_t.square(v)))
            return _t.reduce_sum(v * _t.tanh(self.keys + processed + b), [2])
        return _t.reduce_sum(v * _t.tanh(self.keys + processed), [2])


class LuongAttention(_Mechanism):
    """``LuongAttention(num_units, memory, memory_sequence_length=None, scale=False)``."""

    default_scope = "luong_attention"

    def __init__(self, num_units, memory, memory_sequence_length=None, scale=False,
                 probability_fn=None, score_mask_value=None, dtype=None,
                 custom_key_value_fn=None, name="LuongAttention"):
        super().__init__(num_units, memory, memory_sequence_length, probability_fn,
                         score_mask_value, name)
        self._scale = scale

    def _score(self, query):
        if query.shape[-1] != self._units:
            raise ValueError(f"LuongAttention: the query's depth {query.shape[-1]} must equal "
                             f"num_units {self._units} (the keys' depth)")
        score = _t.squeeze(_t.matmul(_t.expand_dims(query, 1), self.keys, transpose_b=True), [1])
        if self._scale:
            g = self._variable("attention_g", (), dtype=score.dtype,
                               initializer=_init.Constant(1.0))
            score = g * score
        return score


class AttentionWrapper(RNNCell):
    """``AttentionWrapper(cell, attention_mechanism, attention_layer_size=None, ...)``."""

    scope_name = "attention_wrapper"

    def __init__(self, cell, attention_mechanism, attention_layer_size=None,
                 alignment_history=False, cell_input_fn=None, output_attention=True,
                 initial_cell_state=None, name=None, attention_layer=None):
        if alignment_history:
            raise ArgumentError("AttentionWrapper(alignment_history=True) is not supported "
                                "by symgrad; fetch state.alignments at each step instead")
        self._cell = cell
        self._single = not isinstance(attention_mechanism, (list, tuple))
        self._mechanisms = [attention_mechanism] if self._single else list(attention_mechanism)
        sizes = None if attention_layer_size is None else (
            [attention_layer_size] if self._single else list(attention_layer_size))
        self._layers = None if sizes is None else [
            Dense(int(n), use_bias=False, name="attention_layer") for n in sizes]
        self._attention_size = sum(sizes) if sizes is not None else sum(
            int(m.values.shape[-1]) for m in self._mechanisms)
        self._input_fn = cell_input_fn or (lambda x, a: _t.concat([x, a], -1))
        self._output_attention = output_attention
        self._initial_cell_state = initial_cell_state
        self._name, self._weights = name, None

    @property
    def output_size(self):
        return self._attention_size if self._output_attention else self._cell.output_size

    def zero_state(self, batch_size, dtype):
        cell_state = self._initial_cell_state if self._initial_cell_state is not None else \
            self._cell.zero_state(batch_size, dtype)
        dtype = np.dtype(tf_dtype_arg(dtype))
        alignments = [m.initial_alignments(batch_size, dtype) for m in self._mechanisms]
        pick = alignments[0] if self._single else tuple(alignments)
        return AttentionWrapperState(
            cell_state=cell_state, attention=_t.zeros([batch_size, self._attention_size], dtype),
            time=_t.constant(np.int32(0)), alignments=pick, alignment_history=(),
            attention_state=pick)

    def __call__(self, inputs, state, scope=None):
        with variable_scope(scope or self._name, default_name=self.scope_name):
            return self._step(_t.as_tensor(inputs), state)

    def _step(self, inputs, state):
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("AttentionWrapper: the state must be an AttentionWrapperState "
                            "(make it with zero_state(...), and .clone(cell_state=...))")
        output, cell_state = self._cell(self._input_fn(inputs, state.attention),
                                        state.cell_state)
        previous = [state.attention_state] if self._single else list(state.attention_state)
        attentions, alignments = [], []
        for k, mechanism in enumerate(self._mechanisms):
            aligned, _ = mechanism(output, previous[k])
            context = _t.squeeze(_t.matmul(_t.expand_dims(aligned, 1), mechanism.values), [1])
            attentions.append(context if self._layers is None else
                              self._layers[k](_t.concat([output, context], 1)))
            alignments.append(aligned)
        attention = attentions[0] if len(attentions) == 1 else _t.concat(attentions, 1)
        pick = alignments[0] if self._single else tuple(alignments)
        new = AttentionWrapperState(cell_state=cell_state, attention=attention,
                                    time=state.time + 1, alignments=pick,
                                    alignment_history=(), attention_state=pick)
        return (attention if self._output_attention else output), new


__all__ = ["AttentionWrapper", "AttentionWrapperState", "BahdanauAttention", "LuongAttention"]
