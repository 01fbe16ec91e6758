"""``tf.contrib.seq2seq``'s decoding loop: helpers, ``BasicDecoder``, ``dynamic_decode``.

TF 1.15's semantics (the NMT tutorial's decoders):

- ``TrainingHelper(inputs, sequence_length, time_major=False)``: step t reads
  ``inputs[:, t]``; a row is finished once ``t + 1 >= sequence_length``; when every
  row is, the next input is zeros.  Samples are ``argmax(outputs)`` (int32).
- ``GreedyEmbeddingHelper(embedding, start_tokens, end_token)``: starts from the
  embedded start tokens, feeds back the embedded argmax; a row is finished when it
  emits ``end_token``; when every row is, the next input is the start inputs.
- ``BasicDecoder(cell, helper, initial_state, output_layer=None)``: one step runs the
  cell, then ``output_layer``, samples, and asks the helper for the next inputs;
  outputs are ``BasicDecoderOutput(rnn_output, sample_id)``.
- ``dynamic_decode(decoder, output_time_major=False, impute_finished=False,
  maximum_iterations=None)``: steps until every row is finished (or
  ``maximum_iterations``), under the variable scope "decoder"; returns (outputs
  stacked over the steps run, final state, lengths).  A row's length counts the steps
  up to and including the one that finished it.  With ``impute_finished`` finished
  rows emit zeros and keep their state.

The loop is a ``tf.while_loop`` whose outputs go to TensorArrays of a size known when
the loop is made: the inputs' number of steps for ``TrainingHelper``, else
``maximum_iterations`` (a number or a size read from a shape), which greedy decoding
therefore needs here (TF can loop without one).  The decoder's variables are made by
one step taken before the loop.

Imports the tracing layer and compat's layers, scopes, control flow and arrays.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     cell = tf.nn.rnn_cell.BasicRNNCell(2)
...     helper = TrainingHelper(tf.ones([1, 3, 2]), tf.constant([2]))
...     out, state, lengths = dynamic_decode(
...         BasicDecoder(cell, helper, cell.zero_state(1, tf.float32)))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(sess.run([tf.shape(out.rnn_output), lengths]))
[array([1, 2, 2], dtype=int32), array([2], dtype=int32)]
"""
from __future__ import annotations

import collections

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from ..ops.sizes import sizes_of
from ..tracing import arrays as _arrays
from ..tracing.functions import _one_size as one_size
from .control import while_loop
from .rnn import _map_state
from .scopes import variable_scope
from .tensor import as_tf1
from .tensor_array import TensorArray

BasicDecoderOutput = collections.namedtuple("BasicDecoderOutput", ("rnn_output", "sample_id"))


def _argmax_ids(outputs):
    return _t.argmax(outputs, axis=-1, output_type=np.int32)


class TrainingHelper:
    """``TrainingHelper(inputs, sequence_length, time_major=False)``: teacher forcing."""

    def __init__(self, inputs, sequence_length, time_major=False, name=None):
        inputs = _t.as_tensor(inputs)
        self._inputs = inputs if time_major else _t.transpose(
            inputs, [1, 0] + list(range(2, inputs.ndim)))
        self._lengths = _t.cast(_t.as_tensor(sequence_length), np.int32)
        self._zeros = _t.zeros_like(self._inputs[0])
        self.steps = _arrays.shape(self._inputs)[0] if not isinstance(
            self._inputs.shape[0], int) else self._inputs.shape[0]

    @property
    def batch_size(self):
        return _arrays.size(self._lengths)

    def _read(self, t, finished):
        last = _t.cast(_arrays.shape(self._inputs)[0] - 1, np.int32)
        step = _arrays.gather(self._inputs, _t.minimum(t, last))
        return _t.where(_t.reduce_all(finished), self._zeros, step)

    def initialize(self):
        finished = _t.greater_equal(0, self._lengths)
        return finished, self._read(_t.constant(np.int32(0)), finished)

    def sample(self, time, outputs, state):
        return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, state, sample_ids):
        finished = _t.greater_equal(time + 1, self._lengths)
        return finished, self._read(time + 1, finished), state


class GreedyEmbeddingHelper:
    """``GreedyEmbeddingHelper(embedding, start_tokens, end_token)``: feeds back the argmax."""

    steps = None

    def __init__(self, embedding, start_tokens, end_token):
        self._embed = embedding if callable(embedding) else (
            lambda ids: _arrays.gather(embedding, ids))
        self._start_tokens = _t.cast(_t.as_tensor(start_tokens), np.int32)
        self._end_token = _t.cast(_t.as_tensor(end_token), np.int32)
        if self._start_tokens.ndim != 1 or self._end_token.ndim != 0:
            raise ArgumentError("GreedyEmbeddingHelper: start_tokens must be a vector and "
                                "end_token a scalar")
        self._start_inputs = self._embed(self._start_tokens)

    @property
    def batch_size(self):
        return _arrays.size(self._start_tokens)

    def initialize(self):
        return _t.zeros_like(self._start_tokens, dtype=np.bool_), self._start_inputs

    def sample(self, time, outputs, state):
        return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, state, sample_ids):
        finished = _t.equal(sample_ids, self._end_token)
        fed = _t.where(_t.reduce_all(finished), self._start_inputs, self._embed(sample_ids))
        return finished, fed, state


class BasicDecoder:
    """``BasicDecoder(cell, helper, initial_state, output_layer=None)``."""

    def __init__(self, cell, helper, initial_state, output_layer=None):
        self.cell, self.helper, self.initial_state = cell, helper, initial_state
        self.output_layer = output_layer

    @property
    def batch_size(self):
        return self.helper.batch_size

    def initialize(self, name=None):
        finished, inputs = self.helper.initialize()
        return finished, inputs, self.initial_state

    def step(self, time, inputs, state, name=None):
        outputs, cell_state = self.cell(inputs, state)
        if self.output_layer is not None:
            outputs = self.output_layer(outputs)
        ids = self.helper.sample(time, outputs, cell_state)
        finished, next_inputs, next_state = self.helper.next_inputs(time, outputs, cell_state,
                                                                    ids)
        return BasicDecoderOutput(outputs, ids), next_state, next_inputs, finished


def dynamic_decode(decoder, output_time_major=False, impute_finished=False,
                   maximum_iterations=None, parallel_iterations=32, swap_memory=False,
                   scope=None):
    """Run ``decoder`` until every row is finished: (outputs, final state, lengths)."""
    with variable_scope(scope, default_name="decoder"):
        finished, inputs, state = decoder.initialize()
        size = _loop_size(decoder, maximum_iterations)
        if maximum_iterations is not None:
            finished = _t.logical_or(finished, _t.greater_equal(0, maximum_iterations))
        probe, *_ = decoder.step(_t.constant(np.int32(0)), inputs, state)   # the variables
        zeros = [_t.zeros_like(p) for p in probe]
        arrays = tuple(TensorArray(p.dtype, size=size) for p in probe)
        lengths = _t.zeros_like(finished, dtype=np.int32)

        def body(time, arrays, state, inputs, finished, lengths):
            outputs, new_state, next_inputs, done = decoder.step(time, inputs, state)
            done = _t.logical_or(done, finished)
            lengths = _t.where(finished, lengths, _t.zeros_like(lengths) + (time + 1))
            if impute_finished:   # finished rows emit zeros and keep their state
                outputs = [_rows_where(finished, z, o) for z, o in zip(zeros, outputs)]
                new_state = _map_state(lambda old, new: _rows_where(finished, old, new),
                                       state, new_state)
            arrays = tuple(a.write(time, o) for a, o in zip(arrays, outputs))
            if maximum_iterations is not None:
                done = _t.logical_or(done, _t.greater_equal(time + 1, maximum_iterations))
            return time + 1, arrays, new_state, next_inputs, done, lengths

        time, arrays, state, _, _, lengths = while_loop(
            lambda time, arrays, state, inputs, finished, lengths:
            _t.logical_not(_t.reduce_all(finished)),
            body, (_t.constant(np.int32(0)), arrays, state, inputs, finished, lengths),
            parallel_iterations=parallel_iterations, swap_memory=swap_memory)
        outputs = [_steps_run(a.stack(), time, output_time_major) for a in arrays]
    return BasicDecoderOutput(*outputs), state, as_tf1(lengths)


def _loop_size(decoder, maximum_iterations):
    if maximum_iterations is not None:
        if sizes_of([maximum_iterations]) is None:   # computed (the NMT tutorial's
            # round(max source length * 2)): a size bound when its value is known
            return one_size(maximum_iterations, "dynamic_decode(maximum_iterations)")
        return maximum_iterations
    steps = getattr(decoder.helper, "steps", None)
    if steps is None:
        raise ArgumentError(
            "dynamic_decode: give maximum_iterations (a number, or a size such as "
            "tf.shape(source)[1] * 2): symgrad sizes the decoder's outputs before the loop "
            "runs, and this helper's decoding has no length of its own")
    return steps


def _rows_where(finished, a, b):
    """Rows of ``a`` where ``finished``, else of ``b`` (finished is [batch])."""
    mask = finished
    for _ in range(a.ndim - 1):
        mask = _t.expand_dims(mask, -1)
    return _t.where(_t.logical_and(mask, _t.ones_like(a, dtype=np.bool_)), a, b)


def _steps_run(stacked, time, time_major):
    """The first ``time`` steps of a stacked [steps, batch, ...] output, batch-major
    unless ``time_major``."""
    out = stacked[:time]
    if not time_major:
        out = _t.transpose(out, [1, 0] + list(range(2, out.ndim)))
    return as_tf1(out)


__all__ = ["BasicDecoder", "BasicDecoderOutput", "GreedyEmbeddingHelper", "TrainingHelper",
           "dynamic_decode"]
