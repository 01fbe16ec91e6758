"""``tf.keras.backend.rnn``: keras's loop over time, which its recurrent layers run
when they are given a mask (``Masking``, ``Embedding(mask_zero=True)``).

``rnn(step_function, inputs, initial_states, go_backwards=False, mask=None)`` calls
``step_function(x_t, states) -> (output, new_states)`` for each step of ``inputs``
[batch, time, ...] and returns ``(last_output, outputs, new_states)``, as keras's.
Where the mask [batch, time] is False, a row keeps its states and repeats its output
of the step before (zeros before the first kept step), or gives zeros with
``zero_output_for_mask``; ``go_backwards`` reads the steps (and the mask) from the
end, the outputs staying in that order.  The loop is ``tf.nn.dynamic_rnn``'s
(``compat.rnn``): unrolled over a number of steps known when the graph is built, a
scan otherwise.

Sits in ``compat``; imports ``tracing`` and ``compat.rnn``.

>>> import numpy as np
>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant(np.ones((1, 3, 1), np.float32))
...     mask = tf.constant([[True, False, True]])
...     last, seq, states = tf.keras.backend.rnn(
...         lambda x_t, s: (s[0] + x_t, [s[0] + x_t]), x, [tf.zeros([1, 1])], mask=mask)
...     tf.Session().run(seq)[0, :, 0].tolist()
[1.0, 1.0, 2.0]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from . import rnn as _rnn

__all__ = ["rnn", "backwards"]


class _StepCell:
    """``step_function`` as a cell ``dynamic_rnn`` runs.  With a mask, the mask is the
    input's last column and the output of the step before is carried in the state."""

    def __init__(self, step_function, constants, masked, zero_output):
        self.step_function, self.constants = step_function, list(constants)
        self.masked, self.zero_output = masked, zero_output

    def __call__(self, x, state, scope=None):
        if not self.masked:
            out, new = self.step_function(x, list(state) + self.constants)
            return out, tuple(new)
        states, before = state
        keep = _t.cast(x[:, -1:], np.bool_)
        out, new = self.step_function(x[:, :-1], list(states) + self.constants)
        out = _t.where(_t.broadcast_to(keep, _t.shape(out)), out,
                       _t.zeros_like(out) if self.zero_output else before)
        new = tuple(_t.where(_t.broadcast_to(keep, _t.shape(s)), s, old)
                    for s, old in zip(new, states))
        return out, (new, out)


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None,
        constants=None, unroll=False, input_length=None, time_major=False,
        zero_output_for_mask=False, return_all_outputs=True):
    """``K.rnn``: ``(last_output, outputs, new_states)`` of ``step_function`` run over
    the time axis of ``inputs``; the module docstring says how masks count.

    Raises:
        ArgumentError: ``inputs`` is not [batch, time, features] or the mask's shape
            is not the inputs' first two axes.
    """
    x = _t.as_tensor(inputs)
    if x.ndim != 3:
        raise ArgumentError(f"K.rnn(inputs): shape {x.shape}; give [batch, time, features]"
                            " (nested or higher-rank inputs are not supported)")
    if time_major:
        x = _t.transpose(x, [1, 0, 2])
    states = tuple(initial_states)
    if mask is not None:
        mask = _t.as_tensor(mask)
        if mask.ndim == 3:   # (keras also takes [batch, time, 1])
            mask = mask[:, :, 0]
        if mask.ndim != 2:
            raise ArgumentError(f"K.rnn(mask): shape {mask.shape}; give [batch, time]")
        if time_major:
            mask = _t.transpose(mask, [1, 0])
        x = _t.concat([x, _t.expand_dims(_t.cast(mask, x.dtype), -1)], axis=2)
    if go_backwards:
        x = backwards(x)
    cell = _StepCell(step_function, constants or [], mask is not None, zero_output_for_mask)
    start = states
    if mask is not None:   # (keras: the output "before" the first step is zeros)
        first, _ = step_function(x[:, 0, :-1], list(states) + cell.constants)
        start = (states, _t.zeros_like(first))
    outputs, state = _rnn.dynamic_rnn(cell, x, initial_state=start, dtype=x.dtype)
    new_states = list(state[0] if mask is not None else state)
    last = outputs[:, -1]
    if time_major:
        outputs = _t.transpose(outputs, [1, 0, 2])
    return last, (outputs if return_all_outputs else _t.expand_dims(last, 1)), new_states


def backwards(x):
    """``x`` [batch, time, ...] (any rank) with its time axis reversed (of a length known
    or not)."""
    if isinstance(x.shape[1], int):
        return _t.reverse(x, [1])
    first = x[(slice(None), slice(None)) + (0,) * (x.ndim - 2)]   # [batch, time]
    steps = _t.cast(_t.reduce_sum(_t.ones_like(first), axis=1), np.int64)   # [batch]
    return _rnn.reverse_sequence(x, steps, seq_axis=1, batch_axis=0)
