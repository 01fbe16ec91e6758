"""TF1's recurrent cells and ``tf.nn.dynamic_rnn``, ``static_rnn``, ``bidirectional_dynamic_rnn``.

Cells (``tf.nn.rnn_cell.BasicRNNCell``, ``BasicLSTMCell``, ``LSTMCell``, ``GRUCell``,
``MultiRNNCell``, ``DropoutWrapper``; also under ``tf.contrib.rnn``) make their
variables on their first call, in the variable scope open then, named as TF names
them (``rnn/basic_lstm_cell/kernel``, ``.../bias``; a GRU's ``gates`` and
``candidate``), with TF's formulas:

- RNN: ``h' = act([x, h] W + b)``;
- LSTM: ``i, j, f, o = split([x, h] W + b)``, ``c' = c sigmoid(f + forget_bias) +
  sigmoid(i) act(j)``, ``h' = act(c') sigmoid(o)`` (state ``LSTMStateTuple(c, h)``);
- GRU: ``r, u = sigmoid([x, h] Wg + bg)`` (bg starts at 1), ``c = act([x, r h] Wc +
  bc)``, ``h' = u h + (1 - u) c``.

``dynamic_rnn`` unrolls the cell over a time axis of known length (the batch may be
``None``), and runs it in a ``tf.scan`` over a time axis known at run time
(``[None, None, d]``); with ``sequence_length`` a row's outputs are zero past its
length and its state stops there, as in TF.  ``LSTMCell`` adds TF's peepholes,
projection and clipping.

Imports the tracing functions and the compat scopes and initializers.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 5, 3])
...     out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(4), x, dtype=tf.float32)
...     out.shape.as_list(), state.h.shape.as_list(), [v.name for v in tf.global_variables()]
([None, 5, 4], [None, 4], ['rnn/basic_lstm_cell/kernel:0', 'rnn/basic_lstm_cell/bias:0'])
"""
from __future__ import annotations

import collections
import contextlib
import hashlib

import numpy as np

from .. import tracing as _t
from ..tracing.kernel_notes import note
from ..errors import ArgumentError, ShapeError
from ..graph import Dim
from ..tracing import nn as _nn
from . import initializers as _init
from .control import scan
from .distributions import seeded_dropout, unrolled_iteration
from .scopes import get_variable, loop_name_scope, variable_scope
from .tensor import tf_dtype_arg

LSTMStateTuple = collections.namedtuple("LSTMStateTuple", ["c", "h"])


class RNNCell:
    """The base of TF1's cells: ``cell(inputs, state) -> (output, new_state)``."""

    scope_name = "rnn_cell"

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None):
        self._units, self._activation = int(num_units), activation or _t.tanh
        self._name, self._weights = name, None

    @property
    def output_size(self):
        return self._units

    @property
    def state_size(self):
        return self._units

    def zero_state(self, batch_size, dtype):
        """Zeros of the state's structure for ``batch_size`` rows (a number or a size
        read at run time, ``tf.shape(x)[0]``)."""
        return _zeros_like_size(self.state_size, batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        inputs = _t.as_tensor(inputs)
        if self._weights is None:
            with variable_scope(scope or self._name, default_name=self.scope_name):
                self._weights = self._build(inputs.shape[-1], inputs.dtype)
        return self._step(inputs, state)

    def _kernel(self, name, rows, cols, dtype, bias=0.0, initializer=None,
                bias_initializer=None):
        kernel = get_variable(f"{name}kernel", (rows, cols), dtype=dtype,
                              initializer=initializer)
        b = get_variable(f"{name}bias", (cols,), dtype=dtype,
                         initializer=bias_initializer or _init.Constant(bias))
        return kernel, b


def _zeros_like_size(size, batch, dtype):
    if isinstance(size, tuple):
        parts = [_zeros_like_size(s, batch, dtype) for s in size]
        return type(size)(*parts) if hasattr(size, "_fields") else tuple(parts)
    return _t.zeros([batch, size], np.dtype(tf_dtype_arg(dtype)))


def _affine(parts, weights):
    kernel, bias = weights
    return _t.matmul(_t.concat(list(parts), axis=1), kernel) + bias


class BasicRNNCell(RNNCell):
    """``tf.nn.rnn_cell.BasicRNNCell(num_units, activation=tanh)``."""

    scope_name = "basic_rnn_cell"

    def _build(self, depth, dtype):
        return self._kernel("", depth + self._units, self._units, dtype)

    def _step(self, x, h):
        out = self._activation(_affine([x, h], self._weights))
        return out, out


class BasicLSTMCell(RNNCell):
    """``tf.nn.rnn_cell.BasicLSTMCell(num_units, forget_bias=1.0)`` (state a tuple)."""

    scope_name = "basic_lstm_cell"

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None, dtype=None, **unsupported):
        bad = {k: v for k, v in unsupported.items() if v not in (None, False)}
        if bad or not state_is_tuple:
            raise ArgumentError(f"{type(self).__name__}: {sorted(bad) or 'state_is_tuple=False'}"
                                " is not supported (TF1 deprecated it); leave it out")
        super().__init__(num_units, activation, reuse, name, dtype)
        self._forget_bias = float(forget_bias)

    @property
    def state_size(self):
        return LSTMStateTuple(self._units, self._units)

    def _build(self, depth, dtype):
        return self._kernel("", depth + self._units, 4 * self._units, dtype)

    def _step(self, x, state):
        c, h = state
        i, j, f, o = _t.split(_affine([x, h], self._weights), 4, axis=1)
        new_c = c * _t.sigmoid(f + self._forget_bias) + _t.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * _t.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class LSTMCell(BasicLSTMCell):
    """``tf.nn.rnn_cell.LSTMCell``: the basic cell's gates, and TF's options: peepholes
    (``w_f_diag``, ``w_i_diag``, ``w_o_diag``: ``f + w_f c``, ``i + w_i c`` and ``o + w_o
    c'`` inside the sigmoids), ``cell_clip`` on c', a projection ``h' = m P`` to
    ``num_proj`` units (``projection/kernel``) clipped by ``proj_clip``; the state is
    ``LSTMStateTuple(c, h)`` with h of ``num_proj`` units."""

    scope_name = "lstm_cell"

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None,
                 name=None, dtype=None):
        super().__init__(num_units, forget_bias, state_is_tuple, activation, reuse, name,
                         dtype, num_unit_shards=num_unit_shards,
                         num_proj_shards=num_proj_shards)
        self._peepholes, self._initializer = bool(use_peepholes), initializer
        self._proj = None if num_proj is None else int(num_proj)
        self._cell_clip, self._proj_clip = cell_clip, proj_clip

    @property
    def output_size(self):
        return self._proj or self._units

    @property
    def state_size(self):
        return LSTMStateTuple(self._units, self._proj or self._units)

    def _build(self, depth, dtype):
        init = self._initializer
        weights = self._kernel("", depth + self.output_size, 4 * self._units, dtype,
                               initializer=init)
        diag = [get_variable(f"w_{g}_diag", (self._units,), dtype=dtype, initializer=init)
                for g in "fio"] if self._peepholes else None
        proj = None
        if self._proj is not None:
            with variable_scope("projection"):
                proj = get_variable("kernel", (self._units, self._proj), dtype=dtype,
                                    initializer=init)
        return weights, diag, proj

    def _step(self, x, state):
        c, h = state
        weights, diag, proj = self._weights
        i, j, f, o = _t.split(_affine([x, h], weights), 4, axis=1)
        if diag is not None:
            w_f, w_i, w_o = diag
            f, i = f + w_f * c, i + w_i * c
        new_c = _t.sigmoid(f + self._forget_bias) * c + _t.sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            new_c = _t.clip_by_value(new_c, -self._cell_clip, self._cell_clip)
        if diag is not None:
            o = o + diag[2] * new_c
        m = _t.sigmoid(o) * self._activation(new_c)
        if proj is not None:
            m = _t.matmul(m, proj)
            if self._proj_clip is not None:
                m = _t.clip_by_value(m, -self._proj_clip, self._proj_clip)
        return m, LSTMStateTuple(new_c, m)


class GRUCell(RNNCell):
    """``tf.nn.rnn_cell.GRUCell(num_units)``."""

    scope_name = "gru_cell"

    def __init__(self, num_units, activation=None, reuse=None, kernel_initializer=None,
                 bias_initializer=None, name=None, dtype=None):
        super().__init__(num_units, activation, reuse, name, dtype)
        self._inits = kernel_initializer, bias_initializer

    def _build(self, depth, dtype):
        kernel, bias = self._inits   # (no bias_initializer: gates 1.0, candidate 0.0, TF's)
        with variable_scope("gates"):
            gates = self._kernel("", depth + self._units, 2 * self._units, dtype, 1.0,
                                 kernel, bias)
        with variable_scope("candidate"):
            candidate = self._kernel("", depth + self._units, self._units, dtype, 0.0,
                                     kernel, bias)
        return gates, candidate

    def _step(self, x, h):
        gates, candidate = self._weights
        r, u = _t.split(_t.sigmoid(_affine([x, h], gates)), 2, axis=1)
        c = self._activation(_affine([x, r * h], candidate))
        new_h = u * h + (1.0 - u) * c
        return new_h, new_h


class MultiRNNCell(RNNCell):
    """``tf.nn.rnn_cell.MultiRNNCell(cells)``: each cell's output feeds the next; the
    state is the tuple of the cells' states."""

    scope_name = "multi_rnn_cell"

    def __init__(self, cells, state_is_tuple=True):
        if not state_is_tuple:
            raise ArgumentError("MultiRNNCell(state_is_tuple=False) is not supported")
        self._cells, self._name, self._weights = list(cells), None, None

    @property
    def output_size(self):
        return self._cells[-1].output_size

    @property
    def state_size(self):
        return tuple(c.state_size for c in self._cells)

    def __call__(self, inputs, state, scope=None):
        out, states = inputs, []
        with variable_scope(scope, default_name=self.scope_name):
            for k, (cell, s) in enumerate(zip(self._cells, state)):
                with variable_scope(f"cell_{k}"):
                    out, s = cell(out, s)
                states.append(s)
        return out, tuple(states)


class CellWrapper(RNNCell):
    """A cell around ``self._cell``: its output size, state size and zero state are the
    wrapped cell's unless the wrapper says otherwise."""

    @property
    def output_size(self):
        return self._cell.output_size

    @property
    def state_size(self):
        return self._cell.state_size

    def zero_state(self, batch_size, dtype):
        return self._cell.zero_state(batch_size, dtype)


class DropoutWrapper(CellWrapper):
    """``tf.nn.rnn_cell.DropoutWrapper(cell, input_keep_prob, output_keep_prob)``: dropout
    on the cell's inputs and outputs (masks drawn at each run; the keep probabilities
    may be fed)."""

    def __init__(self, cell, input_keep_prob=1.0, output_keep_prob=1.0, state_keep_prob=1.0,
                 variational_recurrent=False, input_size=None, dtype=None, seed=None):
        if variational_recurrent or not (isinstance(state_keep_prob, float) and
                                         state_keep_prob == 1.0):
            raise ArgumentError("DropoutWrapper: state dropout and variational_recurrent are "
                                "not supported")
        self._cell, self._keep = cell, (input_keep_prob, output_keep_prob)
        self._seed, self._name, self._weights = seed, None, None

    def _drop(self, x, keep, role):
        if isinstance(keep, (int, float)) and keep == 1.0:
            return x
        if self._seed is not None:   # TF's own masks: its dropout with the wrapper's seeds
            rate = 1.0 - keep if isinstance(keep, (int, float)) else _t.subtract(1.0, keep)
            seeded = seeded_dropout(x, rate, None, self._op_seed(role), None)
            if seeded is not None:
                return seeded
        return _nn.dropout(x, keep_prob=keep, rng=_init.rng(self._seed), per_run=True)

    def _op_seed(self, role):
        """TF's seed for the dropout of ``role`` ("input", "output") of one tensor: the
        first 8 hex digits of the MD5 of the wrapper's seed and "role_0", 31 bits."""
        digest = hashlib.md5(f"{self._seed}{role}_0".encode("utf-8")).hexdigest()
        return int(digest[:8], 16) & 0x7FFFFFFF

    def __call__(self, inputs, state, scope=None):
        out, state = self._cell(self._drop(_t.as_tensor(inputs), self._keep[0], "input"),
                                state, scope)
        return self._drop(out, self._keep[1], "output"), state


def _map_state(fn, *states):
    if isinstance(states[0], (tuple, list)):   # (a keras cell's states are a list)
        parts = [_map_state(fn, *group) for group in zip(*states)]
        return type(states[0])(*parts) if hasattr(states[0], "_fields") else \
            type(states[0])(parts)
    return fn(*states)


def _steps(cell, inputs, state, sequence_length, scope, default, one_op=False):
    """The cell run over the list ``inputs`` (one [batch, depth] tensor per step); with
    ``one_op`` (dynamic_rnn: TF's while_loop) seeded random ops are one op run at each
    step, their numbers moving on (``compat.distributions.unrolled_iteration``)."""
    outputs, keys = [], []
    with variable_scope(scope or default), loop_name_scope(one_op):   # TF: `scope or "rnn"`
        for t, x in enumerate(inputs):
            with unrolled_iteration(t, len(inputs), keys) if one_op else \
                    contextlib.nullcontext():
                out, new = cell(x, state)
            if sequence_length is not None:   # past a row's length: zeros, state kept
                alive = _t.expand_dims(_t.less(t, _t.cast(sequence_length, np.int64)), 1)
                out = _t.where(alive, out, _t.zeros_like(out))
                new = _map_state(lambda a, b: _t.where(alive, a, b), new, state)
            outputs.append(out)
            state = new
    return outputs, state


def _scanned(cell, x, state, sequence_length, scope, default):
    """The cell over the time-major ``x`` whose number of steps is known at run time,
    as a ``tf.scan``: (stacked outputs [time, batch, units], final state)."""
    with variable_scope(scope or default), loop_name_scope(True):   # TF: `scope or "rnn"`
        first, _ = cell(x[0], state)   # makes the cell's variables here, not in the loop
        times = _t.cast(_t.range(_t.shape(x)[0]), np.int64)

        def step(carried, row):
            (_, before), (x_t, t) = carried, row
            out, new = cell(x_t, before)
            if sequence_length is not None:   # past a row's length: zeros, state kept
                alive = _t.expand_dims(_t.less(t, _t.cast(sequence_length, np.int64)), 1)
                out = _t.where(alive, out, _t.zeros_like(out))
                new = _map_state(lambda a, b: _t.where(alive, a, b), new, before)
            return out, new
        outputs, states = scan(step, (x, times), initializer=(_t.zeros_like(first), state))
    return outputs, _map_state(lambda s: s[-1], states)


def _start(cell, initial_state, batch, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ArgumentError("dynamic_rnn: give initial_state or dtype (as TF requires)")
    return cell.zero_state(batch, dtype)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """``tf.nn.dynamic_rnn``: (outputs [batch, time, units], final state); the module
    docstring says what is computed."""
    x = _t.as_tensor(inputs)
    if x.ndim < 3:
        raise ShapeError(f"dynamic_rnn: inputs of shape {x.shape}; give [batch, time, depth]")
    steps = x.shape[0] if time_major else x.shape[1]
    state = _start(cell, initial_state, x.shape[1] if time_major else x.shape[0],
                   dtype or x.dtype)
    if isinstance(steps, Dim):   # a number of steps known at run time: a scan over time
        swap = [1, 0] + list(range(2, x.ndim))
        outputs, state = _scanned(cell, x if time_major else _t.transpose(x, swap), state,
                                  sequence_length, scope, "rnn")
        return (outputs if time_major else _t.transpose(outputs, swap)), state
    per_step = _t.unstack(x, axis=0 if time_major else 1)
    outputs, state = _steps(cell, per_step, state, sequence_length, scope, "rnn", True)
    return _t.stack(outputs, axis=0 if time_major else 1), state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """``tf.nn.static_rnn``: the cell over a list of [batch, depth] inputs; (list of
    outputs, final state)."""
    inputs = [_t.as_tensor(v) for v in inputs]
    state = _start(cell, initial_state, inputs[0].shape[0], dtype or inputs[0].dtype)
    return _steps(cell, inputs, state, sequence_length, scope, "rnn")


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """``tf.nn.static_bidirectional_rnn``: ``static_rnn`` forwards and over the inputs
    reversed (each row's first ``sequence_length`` steps), the backward outputs
    reversed back and concatenated to the forward ones step by step; (outputs, forward
    state, backward state), as TF returns them."""
    inputs = [_t.as_tensor(v) for v in inputs]

    def backwards(steps):
        if sequence_length is None:
            return steps[::-1]
        stacked = reverse_sequence(_t.stack(steps), sequence_length, seq_axis=0, batch_axis=1)
        return _t.unstack(stacked, num=len(steps))
    with variable_scope(scope or "bidirectional_rnn"):
        out_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                      sequence_length, scope="fw")
        out_bw, state_bw = static_rnn(cell_bw, backwards(inputs), initial_state_bw, dtype,
                                      sequence_length, scope="bw")
    outputs = [_t.concat([f, b], 1) for f, b in zip(out_fw, backwards(out_bw))]
    return outputs, state_fw, state_bw


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """``tf.nn.bidirectional_dynamic_rnn``: the backward cell reads each row's first
    ``sequence_length`` steps reversed (the whole time axis without lengths), its
    outputs reversed back, as TF does."""
    time, batch = (0, 1) if time_major else (1, 0)

    def backwards(x):
        if sequence_length is None:
            return _t.reverse(x, [time])
        return reverse_sequence(x, sequence_length, seq_axis=time, batch_axis=batch)
    with variable_scope(scope or "bidirectional_rnn"):
        out_fw, state_fw = dynamic_rnn(cell_fw, inputs, sequence_length, initial_state_fw,
                                       dtype, time_major=time_major, scope="fw")
        out_bw, state_bw = dynamic_rnn(cell_bw, backwards(_t.as_tensor(inputs)),
                                       sequence_length, initial_state_bw, dtype,
                                       time_major=time_major, scope="bw")
    return (out_fw, backwards(out_bw)), (state_fw, state_bw)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None,  # noqa: A002
                     seq_dim=None, batch_dim=None):
    """``tf.reverse_sequence``: in each row b (along ``batch_axis``) the first
    ``seq_lengths[b]`` entries along ``seq_axis`` reversed, the rest kept."""
    x = _t.as_tensor(input)
    seq = seq_axis if seq_axis is not None else seq_dim
    batch = batch_axis if batch_axis is not None else (batch_dim or 0)
    if seq is None:
        raise ArgumentError("reverse_sequence: give seq_axis")
    seq, batch = seq % x.ndim, batch % x.ndim
    order = [batch, seq] + [a for a in range(x.ndim) if a not in (batch, seq)]
    moved = _t.transpose(x, order)
    size = _t.shape(moved)
    rows = moved if x.ndim == 3 else _t.reshape(moved, _t.stack([size[0], size[1], -1]))
    steps = _t.cast(_t.range(size[1]), np.int64)[None, :]                      # [1, T]
    lengths = _t.as_tensor(seq_lengths)
    length = _t.cast(lengths, np.int64)[:, None]                               # [B, 1]
    source = _t.where(steps < length, length - 1 - steps, steps + 0 * length)  # [B, T]
    picked = _t.matmul(_t.one_hot(source, size[1], dtype=x.dtype), rows)       # [B, T, rest]
    back = _t.reshape(picked, size) if x.ndim != 3 else picked
    out = _t.transpose(back, list(np.argsort(order)), name=name)
    # TF's kernel refuses a length past the sequence axis (here its rows would be zeros)
    note(source, "seq_lens", [lengths, x], named=out, seq=seq)
    return out
