"""``tf.keras.layers.RNN(cell)`` and the cells it runs: ``SimpleRNNCell``,
``LSTMCell``, ``GRUCell`` (TF1 keras's, the steps of ``SimpleRNN``, ``LSTM`` and
``GRU``), ``StackedRNNCells`` (also made from a list of cells) and cells users write:
a layer with ``state_size`` and ``call(inputs, states) -> (output, new_states)``.

The RNN builds its cell in its own name scope under the cell's name
(``rnn/lstm_cell/kernel:0``; stacked: ``rnn/stacked_rnn_cells/lstm_cell/kernel:0``),
starts from zero states (or ``initial_state=``) and runs keras's loop
(``keras_backend_rnn.rnn``: masks, ``go_backwards``).  With ``return_state`` the
output is followed by the final states, nested as the cell's ``state_size`` (a stack
of an LSTM cell gives ``[h, c]`` for it); ``constants=`` go to a cell whose ``call``
takes them (an attention decoder's).  The cells' ``dropout`` masks are drawn once
per sequence, as keras's; ``stateful=True`` as ``keras_stateful`` says.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.RNN(tf.keras.layers.LSTMCell(2), return_sequences=True)
...     y = layer(tf.placeholder(tf.float32, [None, 4, 3]))
...     print(y.shape, [w.name for w in layer.weights][:1])
(?, 4, 2) ['rnn/lstm_cell/kernel:0']
"""
from __future__ import annotations

import functools

import numpy as np

from .. import tracing as _t
from . import keras_backend as K
from . import rnn as _rnn
from .keras_backend_rnn import rnn as keras_loop
from .keras_layers import Layer, known_size, takes_argument, unbuilt_copy
from .keras_rnn import Gated, GRUStep, LSTMStep, SimpleStep
from .keras_stateful import RecurrentBase

__all__ = ["RNN", "SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"]


class InitialState:
    """Keras's zero states of a cell (``get_initial_state``), which TF's RNN functions
    (``tf.nn.dynamic_rnn``) also ask for as ``zero_state``."""

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            batch_size, dtype = _t.shape(inputs)[0], inputs.dtype
        return _zeros(self.state_size, batch_size, np.dtype(dtype or K.floatx()))

    def zero_state(self, batch_size, dtype):
        return self.get_initial_state(batch_size=batch_size, dtype=dtype)


class BuiltinCell(InitialState, Gated):
    """A keras cell: ``call(inputs, states) -> (output, new states)`` for one step."""

    @property
    def state_size(self):
        return [self.units, self.units] if self.gates == 4 else self.units

    output_size = property(lambda self: self.units)

    def build(self, input_shape):
        self.make_weights(known_size(input_shape, -1, f"{self.name!r}", "feature"))

    def call(self, inputs, states, training=None):
        listed = isinstance(states, (list, tuple))   # (keras: a tensor gives a tensor)
        states = list(states) if listed else [states]
        if self.gates == 4:
            out, (h, c) = self.step(inputs, tuple(states))
            return out, [h, c]
        out, h = self.step(inputs, states[0])
        return out, [h] if listed else h


class SimpleRNNCell(BuiltinCell, SimpleStep):
    pass


class LSTMCell(BuiltinCell, LSTMStep):
    pass


class GRUCell(BuiltinCell, GRUStep):
    pass


class StackedRNNCells(InitialState, Layer):
    """Cells run one after the other at each step: each reads the output of the one
    before; the states are the cells' states in order."""

    def __init__(self, cells, **kwargs):
        for cell in cells:
            _check_cell(cell)
        super().__init__(**kwargs)
        self.cells = list(cells)

    state_size = property(lambda self: tuple(c.state_size for c in self.cells))
    output_size = property(lambda self: _output_size(self.cells[-1]))

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            _build(cell, shape)
            shape = shape[:-1] + (_output_size(cell),)

    def call(self, inputs, states, constants=None, training=None):
        nested = _pack(self.state_size, _flat(states))
        new = []
        for cell, state in zip(self.cells, nested):
            inputs, state = _step(cell, inputs, state, training, constants)
            new.append(state)
        return inputs, _pack(self.state_size, _flat(new))

    def _sublayers(self):
        return list(self.cells)


class RNN(RecurrentBase, Layer):
    """``tf.keras.layers.RNN(cell)``: the cell (or a list of cells, stacked) run over
    the time axis of [batch, time, features]."""

    def __init__(self, cell, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, time_major=False,
                 **kwargs):
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        _check_cell(cell)
        super().__init__(**kwargs)
        self.stateful = bool(stateful)
        self.cell, self.time_major = cell, time_major
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards = go_backwards

    def build(self, input_shape):
        if len(input_shape) != 3:
            raise ValueError(f"RNN {self.name!r}: the input has shape {tuple(input_shape)}; "
                             "give [batch, time, features]")
        batch = input_shape[1 if self.time_major else 0]
        _build(self.cell, (batch,) + tuple(input_shape[2:]))
        self.make_states(batch, np.dtype(self.dtype or K.floatx()))

    def state_sizes(self):
        return _flat(self.cell.state_size)

    def call(self, inputs, initial_state=None, constants=None, training=None, mask=None):
        x = inputs if not self.time_major else _t.transpose(inputs, [1, 0, 2])
        sizes = _flat(self.cell.state_size)
        states = self.start_states(None if initial_state is None else _flat(initial_state))
        if states is None:
            states = [_t.zeros_like(x[:, 0, :1]) + _t.zeros([n], x.dtype) for n in sizes]
        if len(states) != len(sizes):
            raise ValueError(f"RNN {self.name!r}: initial_state has {len(states)} tensors; "
                             f"the cell has {len(sizes)} states ({self.cell.state_size})")
        _draw_masks(self.cell, x[:, 0, :], training)
        if mask is not None and self.time_major:   # (the mask of time-major inputs)
            mask = _t.transpose(mask, [1, 0])
        last, outputs, states = keras_loop(
            functools.partial(self._flat_step, training, constants), x, states,
            go_backwards=self.go_backwards, mask=mask,
            zero_output_for_mask=self.zero_output_for_mask)
        self.keep_states(states)
        out = last
        if self.return_sequences:
            out = outputs if not self.time_major else _t.transpose(outputs, [1, 0, 2])
        if not self.return_state:
            return out
        nested = _pack(self.cell.state_size, states)
        return [out] + (list(nested) if isinstance(nested, (list, tuple)) else [nested])

    def _flat_step(self, training, constants, x_t, flat_states):
        """The cell's step with its states flat, as ``K.rnn`` hands them."""
        out, new = _step(self.cell, x_t, _pack(self.cell.state_size, flat_states), training,
                         constants)
        return out, _flat(new)

    def _sublayers(self):
        return [self.cell]


def fresh_cell(cell):
    """A copy of ``cell`` (of a stack: of each cell) with the same name and settings
    and no weights: ``Bidirectional``'s backward twin."""
    twin = unbuilt_copy(cell, cell.name)
    if isinstance(cell, StackedRNNCells):
        twin.cells = [fresh_cell(one) for one in cell.cells]
    return twin


def _check_cell(cell):
    if isinstance(cell, _rnn.RNNCell):
        raise TypeError(f"tf.keras.layers.RNN: {type(cell).__name__} of tf.nn.rnn_cell is "
                        "not supported inside keras's RNN; run it with "
                        "tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32), or use "
                        "tf.keras.layers.LSTMCell, GRUCell or SimpleRNNCell")
    if not callable(getattr(cell, "call", None)):
        raise ValueError(f"Argument `cell` should have a `call` method. The RNN was "
                         f"passed: cell={cell!r}")
    if not hasattr(cell, "state_size"):
        raise ValueError("The RNN cell should have a `state_size` attribute (an integer, "
                         f"or one per state). Received: cell={cell!r}")


def _build(cell, step_shape):
    """Build ``cell`` for steps of ``step_shape`` in a name scope of its name (keras:
    ``rnn/lstm_cell/kernel:0``)."""
    if getattr(cell, "built", True):
        return
    with _t.get_default_graph().name_scope(cell.name):
        cell.build(step_shape)
    cell.built = True


def _step(cell, x, states, training, constants=None):
    """One step of ``cell`` (its states a list, as keras hands them; ``constants``, a
    list, to a cell whose call takes them: keras's attention cells)."""
    states = list(states) if isinstance(states, (list, tuple)) else [states]
    kwargs = {"training": training} if takes_argument(cell.call, "training") else {}
    if constants is not None and takes_argument(cell.call, "constants"):
        kwargs["constants"] = list(constants) if isinstance(constants, (list, tuple)) \
            else [constants]
    with _t.get_default_graph().name_scope(cell.name):
        out, new = cell.call(x, states, **kwargs)
    return out, new


def _draw_masks(cell, x, training):
    """Each built-in cell's dropout masks for this sequence (``x``: like a step of the
    cell's input); returns a step like the cell's output."""
    if isinstance(cell, StackedRNNCells):
        for one in cell.cells:
            x = _draw_masks(one, x, training)
        return x
    if isinstance(cell, Gated):
        cell.draw_masks(x, training)
    return _t.zeros_like(x[:, :1]) + _t.zeros([_output_size(cell)], x.dtype)


def _zeros(size, batch, dtype):
    """Zeros [batch, n] for each size of ``size``, nested as it is (keras's states)."""
    if isinstance(size, (list, tuple)):
        return type(size)(_zeros(part, batch, dtype) for part in size)
    return _t.zeros([batch, size], dtype)


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    return _flat(cell.state_size)[0]


def _flat(structure):
    """The tensors (or sizes) of a nested list/tuple, in order."""
    if isinstance(structure, (list, tuple)):
        return [y for x in structure for y in _flat(x)]
    return [structure]


def _pack(structure, flat):
    """``flat`` nested as ``structure`` (a cell's ``state_size``)."""
    return _take(structure, iter(flat))


def _take(structure, items):
    if isinstance(structure, (list, tuple)):
        return type(structure)(_take(part, items) for part in structure)
    return next(items)
