"""``tf.contrib.legacy_seq2seq``'s decoders over lists of time steps (char-rnn's model).

- ``rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None)``:
  the cell applied step by step from ``initial_state`` under the variable scope
  ``scope`` (default "rnn_decoder"), reusing its variables after the first step; with
  ``loop_function`` each step after the first takes ``loop_function(prev_output, i)``
  (made under the scope "loop_function" with reuse) instead of its input, as sampling
  feeds the previous prediction back.  Returns (list of outputs, final state).
- ``basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell)``: ``static_rnn`` over the
  encoder inputs with a copy of ``cell``, then ``rnn_decoder`` from its final state,
  under the scope "basic_rnn_seq2seq".

Imports ``compat.rnn`` and ``compat.scopes``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     cell = tf.nn.rnn_cell.BasicRNNCell(2)
...     steps = [tf.ones([1, 3]), tf.zeros([1, 3])]
...     outputs, state = rnn_decoder(steps, cell.zero_state(1, tf.float32), cell)
...     len(outputs), state.shape, [v.name for v in tf.trainable_variables()]
(2, (1, 2), ['rnn_decoder/basic_rnn_cell/kernel:0', 'rnn_decoder/basic_rnn_cell/bias:0'])
"""
from __future__ import annotations

import copy

from .rnn import static_rnn
from .scopes import get_variable_scope, variable_scope


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """The cell over ``decoder_inputs`` from ``initial_state``: (outputs, final state)."""
    with variable_scope(scope or "rnn_decoder"):
        state, outputs, prev = initial_state, [], None
        for i, step in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    step = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(step, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=None, scope=None):
    """Encode with a copy of ``cell`` (``static_rnn``), decode from its final state."""
    with variable_scope(scope or "basic_rnn_seq2seq"):
        _, encoded = static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, encoded, cell)
