"""What keras's recurrent layers (``SimpleRNN``, ``LSTM``, ``GRU``, ``RNN``) share:
the masks of their outputs and ``stateful=True``, where the last states of a batch
are the first states of the next.

The output keeps the input's mask with ``return_sequences`` (none otherwise); the
states returned with ``return_state`` have none.

As TF1 keras keeps them: one variable per state, [batch, units] of zeros, made when
the layer is built (``lstm/Variable:0``, ``lstm/Variable_1:0``; not among the layer's
weights), read as the initial states of each call and assigned its final states by
an update the model runs with every batch it trains, evaluates or predicts
(``Model.state_updates``).  ``reset_states()`` sets them to zeros again (or to the
arrays given).  The batch size must be known: ``batch_input_shape=`` (Sequential) or
``Input(batch_shape=)``.

Sits in ``compat``; imports numpy and ``compat``'s keras_backend and variables.

>>> import numpy as np
>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.SimpleRNN(2, stateful=True)
...     y = layer(tf.placeholder(tf.float32, [3, 4, 1]))
...     print([v.name for v in layer.states], [v.shape.as_list() for v in layer.states])
['simple_rnn/Variable:0'] [[3, 2]]
"""
from __future__ import annotations

import numpy as np

from . import keras_backend as K
from .variables import assign

__all__ = ["RecurrentBase"]


class RecurrentBase:
    """The output masks, and for ``stateful=True`` the state variables, read at the
    start of a call and assigned at its end.  The layer gives ``state_sizes()``,
    ``stateful``, ``return_sequences`` and ``return_state``."""

    supports_masking, zero_output_for_mask = True, False   # (Bidirectional: zeros)
    stateful = False
    _state_variables = None

    def compute_mask(self, inputs, mask=None):
        mask = mask[0] if isinstance(mask, (list, tuple)) else mask
        out = mask if self.return_sequences else None
        if not self.return_state:
            return out
        return [out] + [None] * len(self.state_sizes())

    def make_states(self, batch, dtype):
        """The zero state variables for batches of ``batch`` rows (stateful only)."""
        if not self.stateful:
            return
        if not isinstance(batch, int):
            raise ValueError(
                f"{type(self).__name__} {self.name!r}: a stateful RNN needs to know its batch "
                "size; give it with batch_input_shape=(batch, time, features) on the first "
                "layer of a Sequential, or tf.keras.Input(batch_shape=...)")
        self._state_variables = [K.variable(np.zeros((batch, n)), dtype)
                                 for n in self.state_sizes()]

    @property
    def states(self):
        if self._state_variables is None:
            return [None] * len(self.state_sizes())
        return list(self._state_variables)

    def reset_states(self, states=None):
        """Zeros (or the arrays ``states``) into the state variables."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if self._state_variables is None:
            raise ValueError(f"{self.name!r}: reset_states() before the layer is built")
        values = [np.zeros(v.shape, v.dtype) for v in self._state_variables] \
            if states is None else [np.asarray(s) for s in
                                    (states if isinstance(states, (list, tuple)) else [states])]
        if len(values) != len(self._state_variables):
            raise ValueError(f"reset_states: {len(values)} arrays for the "
                             f"{len(self._state_variables)} states of {self.name!r}")
        K.batch_set_value(list(zip(self._state_variables, values)))

    def start_states(self, given):
        """The initial states of a call: ``given``, else (stateful) the variables."""
        if given is not None or self._state_variables is None:
            return given
        return list(self._state_variables)

    def keep_states(self, final):
        """Assign the final states (a flat list) to the variables, as an update."""
        if self._state_variables is not None:
            self.add_update([assign(v, s) for v, s in zip(self._state_variables, final)])
