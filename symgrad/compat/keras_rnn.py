"""``tf.keras.layers.SimpleRNN``, ``LSTM`` and ``GRU`` as TF1 keras has them
(``tf.compat.v1.keras``), run by ``tf.nn.dynamic_rnn``'s loop (``compat.rnn``).

Weights ``lstm/lstm_cell/kernel:0`` (input x units·gates), ``recurrent_kernel``
(units x units·gates, orthogonal) and ``bias`` (the LSTM's forget part starts at 1,
``unit_forget_bias``), gates in keras's order, with TF1 keras's defaults: the
recurrent activation is ``hard_sigmoid`` and the GRU resets before the matrix
product (``reset_after=False``).

- SimpleRNN: ``h' = tanh(x K + h R + b)``;
- LSTM: ``i, f, c~, o = split(x K + h R + b)``, ``c' = f c + i tanh(c~)``,
  ``h' = o tanh(c')`` with ``i, f, o`` through the recurrent activation;
- GRU: ``z, r`` from ``x K + h R + b``, ``h~ = tanh(x K_h + (r h) R_h + b_h)``,
  ``h' = z h + (1 - z) h~`` (with ``reset_after``: ``r (h R_h + b'_h)``).

The output is the last step's (all steps with ``return_sequences``), followed by the
final states with ``return_state``; ``stateful=True`` keeps them for the next batch
(``keras_stateful``).  ``dropout`` and ``recurrent_dropout`` are keras's
(implementation 1): in the training phase each gate's input (and state) is multiplied
by its own mask, drawn once per sequence and kept over the time steps.  A keras mask
(``Masking``, ``Embedding(mask_zero=True)``) runs keras's loop (``K.rnn``): a masked
step keeps the states.

Sits in ``compat``; imports ``tracing`` and ``compat``'s rnn and keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.LSTM(2)
...     y = layer(tf.placeholder(tf.float32, [None, 4, 3]))
...     print(y.shape, [w.name for w in layer.weights][:2])
(?, 2) ['lstm/lstm_cell/kernel:0', 'lstm/lstm_cell/recurrent_kernel:0']
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import keras_backend as K
from . import keras_objects as _objects
from . import layers as _layers
from . import rnn as _rnn
from .keras_backend_rnn import backwards, rnn as keras_loop
from .keras_layers import Layer, known_size
from .keras_stateful import RecurrentBase

__all__ = ["SimpleRNN", "LSTM", "GRU"]   # (tf.keras.layers.*)


class _Cell:
    """What ``dynamic_rnn`` calls: ``cell(x, state) -> (output, state)`` on the layer's
    weights (already made)."""

    def __init__(self, layer):
        self.layer = layer

    @property
    def state_size(self):
        u = self.layer.units
        return (u, u) if self.layer.gates == 4 else u

    output_size = property(lambda self: self.layer.units)
    name = property(lambda self: self.layer.cell_name)
    kernel = property(lambda self: self.layer.kernel)
    recurrent_kernel = property(lambda self: self.layer.recurrent_kernel)
    bias = property(lambda self: self.layer.bias)

    def zero_state(self, batch_size, dtype):
        zeros = _t.zeros([batch_size, self.layer.units], np.dtype(dtype))
        return (zeros, zeros) if self.layer.gates == 4 else zeros

    def __call__(self, x, state, scope=None):
        return self.layer.step(x, state)


class Gated(Layer):
    """What a keras recurrent layer and its cell (``LSTMCell``...) share: the settings,
    the weights and the dropout masks of a sequence."""
    gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="hard_sigmoid",
                 use_bias=True, kernel_initializer="glorot_uniform",
                 recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0,
                 reset_after=False, implementation=1, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = _objects.get_activation(activation)
        self.recurrent_activation = _objects.get_activation(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self._inits = [_objects.get_initializer(i) for i in (
            kernel_initializer, recurrent_initializer, bias_initializer)]
        self._regularizers = (kernel_regularizer, recurrent_regularizer, bias_regularizer)
        self._constraints = (kernel_constraint, recurrent_constraint, bias_constraint)
        self.reset_after = bool(reset_after) and self.gates == 3
        # (keras clips both rates to [0, 1]; a rate of 0 draws no mask)
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self._masks = self._recurrent_masks = None

    def make_weights(self, depth):
        """``kernel`` (depth x units·gates), ``recurrent_kernel`` and ``bias``, in the
        name scope open."""
        width = self.units * self.gates
        kernel_init, recurrent_init, bias_init = self._inits
        regularizers, constraints = self._regularizers, self._constraints
        self.kernel = self.add_weight("kernel", (depth, width), initializer=kernel_init,
                                      regularizer=regularizers[0], constraint=constraints[0])
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", (self.units, width), initializer=recurrent_init,
            regularizer=regularizers[1], constraint=constraints[1])
        self.bias = None
        if self.use_bias:
            shape = (2, width) if self.reset_after else (width,)
            self.bias = self.add_weight("bias", shape, initializer=self._bias_init(
                bias_init), regularizer=regularizers[2], constraint=constraints[2])

    def draw_masks(self, x, training):
        """Keras's dropout masks for a sequence whose steps are like ``x`` [batch,
        depth], kept for every step of it."""
        self._masks = _gate_masks(x, self.dropout, self.gates, training)
        self._recurrent_masks = _gate_masks(
            _t.zeros_like(x[:, :1]) + _t.zeros([self.units], x.dtype),
            self.recurrent_dropout, self.gates, training)

    def _bias_init(self, initializer):
        if not (self.gates == 4 and self.unit_forget_bias):
            return initializer
        u = self.units

        def forget_ones(shape, dtype=None):   # keras: [init(u), ones(u), init(2u)]
            parts = [_objects.initial_value(initializer, (n,), dtype, self.name)
                     for n in (u, 2 * u)]
            return np.concatenate([parts[0], np.ones(u, dtype), parts[1]])
        return forget_ones


class Recurrent(RecurrentBase, Gated):
    """``SimpleRNN``, ``LSTM``, ``GRU``: a ``Gated`` cell run over the time axis."""
    cell = property(lambda self: _Cell(self))   # (layer.cell.kernel, as keras has it)

    def __init__(self, units, *args, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, time_major=False,
                 **kwargs):
        super().__init__(units, *args, **kwargs)
        self.stateful = bool(stateful)
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.time_major = go_backwards, time_major
        self.cell_name = K.snake_case(type(self).__name__) + "_cell"   # (TF1: not unique)

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"{type(self).__name__} {self.name!r}: the input has shape "
                             f"{tuple(input_shape)}; give [batch, time, features]")
        depth = known_size(input_shape, -1, f"{self.name!r}", "feature")
        with _t.get_default_graph().name_scope(self.cell_name):
            self.make_weights(depth)
        self.make_states(input_shape[1 if self.time_major else 0],
                         np.dtype(self.dtype or K.floatx()))

    def state_sizes(self):
        return [self.units] * (2 if self.gates == 4 else 1)

    def call(self, inputs, initial_state=None, training=None, mask=None):
        x = inputs if not self.time_major else _t.transpose(inputs, [1, 0, 2])
        if self.go_backwards and mask is None:
            x = backwards(x)
        state = _as_state(self.start_states(initial_state), self.gates)
        self.draw_masks(x[:, 0, :], training)
        if mask is None:
            outputs, state = _rnn.dynamic_rnn(_Cell(self), x, initial_state=state,
                                              dtype=x.dtype)
            last = state[0] if isinstance(state, tuple) else state
        else:
            last, outputs, state = self._masked(x, state, mask)
        self.keep_states(list(state) if isinstance(state, tuple) else [state])
        if self.return_sequences:
            out = outputs if not self.time_major else _t.transpose(outputs, [1, 0, 2])
        else:
            out = last
        if not self.return_state:
            return out
        if not self.return_sequences:   # (keras: the output and h are two tensors)
            out = _t.identity(out)
        return [out] + (list(state) if isinstance(state, tuple) else [state])

    def _masked(self, x, state, mask):
        """Keras's loop with a mask (``K.rnn``): a masked step keeps the states and
        repeats the output before; (last output, outputs, final state)."""
        if state is None:
            zeros = _t.zeros_like(x[:, 0, :1]) + _t.zeros([self.units], x.dtype)
            state = (zeros, zeros) if self.gates == 4 else zeros
        if self.time_major:
            mask = _t.transpose(mask, [1, 0])
        last, outputs, states = keras_loop(
            self._listed_step, x, list(state) if isinstance(state, tuple) else [state],
            go_backwards=self.go_backwards, mask=mask,
            zero_output_for_mask=self.zero_output_for_mask)
        return last, outputs, tuple(states) if self.gates == 4 else states[0]

    def _listed_step(self, x_t, states):
        """``step`` with the states as a list, as ``K.rnn`` hands them."""
        out, new = self.step(x_t, tuple(states) if self.gates == 4 else states[0])
        return out, list(new) if isinstance(new, tuple) else [new]


def _gate_masks(like, rate, gates, training):
    """Keras's dropout masks of a cell: one per gate, shaped like ``like`` [batch,
    features], ones scaled by 1 / (1 - rate) or zeroed in the training phase (ones
    otherwise); None without dropout.  Made once, outside the time loop, so every
    step of a sequence uses the same masks."""
    if not 0.0 < rate < 1.0:
        return None
    ones = _t.ones_like(like)
    training = K.training_value(training)
    return [_layers.dropout(ones, rate, training=training) for _ in range(gates)]


def _gates(x, kernel, masks, gates):
    """``x @ kernel`` with ``kernel``'s ``gates`` column blocks; with masks, block k
    takes ``x * masks[k]`` (keras's implementation 1)."""
    if masks is None:
        return _t.matmul(x, kernel)
    u = int(kernel.shape[1]) // gates
    return _t.concat([_t.matmul(x * masks[k], kernel[:, k * u:(k + 1) * u])
                      for k in range(gates)], axis=1)


def _as_state(initial_state, gates):
    if initial_state is None:
        return None
    states = list(initial_state) if isinstance(initial_state, (list, tuple)) else \
        [initial_state]
    want = 2 if gates == 4 else 1
    if len(states) != want:
        raise ValueError(f"initial_state: {want} tensors expected ([h, c] for an LSTM), "
                         f"got {len(states)}")
    return tuple(states) if want == 2 else states[0]


class SimpleStep(Gated):
    """The step of ``SimpleRNN`` and ``SimpleRNNCell``."""
    gates = 1

    def step(self, x, h):
        z = _gates(x, self.kernel, self._masks, 1) + \
            _gates(h, self.recurrent_kernel, self._recurrent_masks, 1)
        out = self.activation(z + self.bias if self.bias is not None else z)
        return out, out


class LSTMStep(Gated):
    """The step of ``LSTM`` and ``LSTMCell``."""
    gates = 4

    def step(self, x, state):
        h, c = state
        z = _gates(x, self.kernel, self._masks, 4) + \
            _gates(h, self.recurrent_kernel, self._recurrent_masks, 4)
        if self.bias is not None:
            z = z + self.bias
        u, act, rec = self.units, self.activation, self.recurrent_activation
        i, f, g, o = (z[:, k * u:(k + 1) * u] for k in range(4))
        c = rec(f) * c + rec(i) * act(g)
        h = rec(o) * act(c)
        return h, (h, c)


class GRUStep(Gated):
    """The step of ``GRU`` and ``GRUCell``."""
    gates = 3

    def step(self, x, h):
        u, act, rec = self.units, self.activation, self.recurrent_activation
        xz = _gates(x, self.kernel, self._masks, 3)
        rk, masks = self.recurrent_kernel, self._recurrent_masks
        if self.reset_after:
            hz = _gates(h, rk, masks, 3)
            if self.bias is not None:
                xz, hz = xz + self.bias[0], hz + self.bias[1]
        else:
            if self.bias is not None:
                xz = xz + self.bias
            hz = _gates(h, rk[:, :2 * u], masks and masks[:2], 2)
        z = rec(xz[:, :u] + hz[:, :u])
        r = rec(xz[:, u:2 * u] + hz[:, u:2 * u])
        if self.reset_after:
            candidate = act(xz[:, 2 * u:] + r * hz[:, 2 * u:])
        else:
            held = h if masks is None else h * masks[2]
            candidate = act(xz[:, 2 * u:] + _t.matmul(r * held, rk[:, 2 * u:]))
        h = z * h + (1.0 - z) * candidate
        return h, h


class SimpleRNN(Recurrent, SimpleStep):
    pass


class LSTM(Recurrent, LSTMStep):
    pass


class GRU(Recurrent, GRUStep):
    pass
