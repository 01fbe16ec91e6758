"""TF1's cell wrappers beyond dropout: ``OutputProjectionWrapper`` (``tf.contrib.rnn``,
Hands-On ML's time-series RNN), ``ResidualWrapper`` and ``DeviceWrapper``.

``OutputProjectionWrapper(cell, output_size, activation=None)`` runs the cell and
maps its output through a dense layer; its variables live in the wrapper's scope,
named as TF names them: ``rnn/output_projection_wrapper/basic_rnn_cell/kernel`` (the
cell's) then ``rnn/output_projection_wrapper/kernel`` and ``.../bias`` (bias starts at
0).  ``ResidualWrapper`` adds the cell's input to its output; ``DeviceWrapper`` only
runs the cell (symgrad has no devices).

Imports the tracing functions and ``compat.rnn``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.placeholder(tf.float32, [None, 4, 1])
...     cell = tf.contrib.rnn.OutputProjectionWrapper(tf.contrib.rnn.BasicRNNCell(3), 1)
...     out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
...     out.shape.as_list(), [v.op.name for v in tf.global_variables()][2:]
([None, 4, 1], ['rnn/output_projection_wrapper/kernel', 'rnn/output_projection_wrapper/bias'])
"""
from __future__ import annotations

from .. import tracing as _t
from .rnn import CellWrapper, _affine
from .scopes import variable_scope


class OutputProjectionWrapper(CellWrapper):
    """``tf.contrib.rnn.OutputProjectionWrapper(cell, output_size, activation=None)``:
    ``activation(cell_output W + b)``; the state is the cell's."""

    scope_name = "output_projection_wrapper"

    def __init__(self, cell, output_size, activation=None, reuse=None):
        if int(output_size) < 1:
            raise ValueError(f"OutputProjectionWrapper: output_size must be a positive "
                             f"integer, got {output_size!r}")
        self._cell, self._units, self._activation = cell, int(output_size), activation
        self._name, self._weights = None, None

    @property
    def output_size(self):
        return self._units   # (the projection's, not the cell's)

    def __call__(self, inputs, state, scope=None):
        if self._weights is None:   # first call: the cell's variables inside the wrapper's
            with variable_scope(scope, default_name=self.scope_name):
                out, state = self._cell(inputs, state)
                self._weights = self._kernel("", out.shape[-1], self._units, out.dtype)
        else:
            out, state = self._cell(inputs, state)
        projected = _affine([out], self._weights)
        return (self._activation(projected) if self._activation else projected), state


class ResidualWrapper(CellWrapper):
    """``tf.nn.rnn_cell.ResidualWrapper(cell)``: the cell's output plus its input (their
    sizes must agree), or ``residual_fn(inputs, outputs)``."""

    def __init__(self, cell, residual_fn=None):
        self._cell, self._fn = cell, residual_fn or (lambda x, out: x + out)
        self._name, self._weights = None, None

    def __call__(self, inputs, state, scope=None):
        inputs = _t.as_tensor(inputs)
        out, state = self._cell(inputs, state, scope)
        if inputs.shape[-1] != out.shape[-1]:
            raise ValueError(f"ResidualWrapper: the cell's input size {inputs.shape[-1]} and "
                             f"output size {out.shape[-1]} differ; a residual connection "
                             "needs them equal (or pass residual_fn)")
        return self._fn(inputs, out), state


class DeviceWrapper(ResidualWrapper):
    """``tf.nn.rnn_cell.DeviceWrapper(cell, device)``: the cell itself (no devices)."""

    def __init__(self, cell, device=None):
        super().__init__(cell, residual_fn=lambda x, out: out)

    def __call__(self, inputs, state, scope=None):
        return self._cell(inputs, state, scope)


__all__ = ["OutputProjectionWrapper", "ResidualWrapper", "DeviceWrapper"]
