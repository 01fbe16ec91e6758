"""``tf.layers.dense``: a fully connected layer with variables ``dense/kernel`` and ``dense/bias``.

The layer opens a variable scope named ``name`` (default ``dense``, ``dense_1``,
... as TF counts them), makes its kernel with ``kernel_initializer`` (Glorot
uniform by default) and its bias with ``bias_initializer`` (zeros), and returns
``activation(inputs @ kernel + bias)``.  ``reuse=True`` with the same ``name``
shares the variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([[1.0, 2.0]])
...     y = tf.layers.dense(x, 3)
...     print(y.shape, [v.name for v in tf.trainable_variables()])
(1, 3) ['dense/kernel:0', 'dense/bias:0']
"""
from __future__ import annotations

from .. import tracing as _t
from . import initializers as _init
from .scopes import get_variable, variable_scope


class Dense:
    """``tf.layers.Dense(units, ...)``: a callable layer keeping its variables."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer=None,
                 bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
                 trainable=True, name=None, **kwargs):
        if int(units) <= 0:
            raise ValueError(f"dense: units must be a positive integer, got {units!r}")
        self.units, self.activation, self.use_bias = int(units), activation, use_bias
        self.kernel_initializer = kernel_initializer or _init.glorot_uniform_initializer()
        self.bias_initializer = bias_initializer or _init.Zeros()
        self.kernel_regularizer, self.bias_regularizer = kernel_regularizer, bias_regularizer
        self.trainable, self.name = trainable, name
        self.kernel = self.bias = None
        self._scope = None

    def __call__(self, inputs, reuse=None):
        inputs = _t.as_tensor(inputs)
        if inputs.ndim < 2:
            raise ValueError(f"dense: inputs {inputs.name!r} have shape {inputs.shape}; the "
                             "layer needs a batch axis and a feature axis (rank >= 2)")
        scope = self._scope or self.name
        with variable_scope(scope, default_name="dense", reuse=reuse) as vs:
            self._scope = self._scope or vs
            self.kernel = get_variable("kernel", (inputs.shape[-1], self.units),
                                       dtype=inputs.dtype, initializer=self.kernel_initializer,
                                       regularizer=self.kernel_regularizer,
                                       trainable=self.trainable)
            out = _t.tensordot(inputs, self.kernel, axes=1) if inputs.ndim > 2 else \
                _t.matmul(inputs, self.kernel)
            if self.use_bias:
                self.bias = get_variable("bias", (self.units,), dtype=inputs.dtype,
                                         initializer=self.bias_initializer,
                                         regularizer=self.bias_regularizer,
                                         trainable=self.trainable)
                out = out + self.bias
            return self.activation(out) if self.activation is not None else out

    @property
    def trainable_variables(self):
        return [v for v in (self.kernel, self.bias) if v is not None]


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None,
          bias_initializer=None, kernel_regularizer=None, bias_regularizer=None,
          activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
          trainable=True, name=None, reuse=None):
    """``tf.layers.dense``: ``activation(inputs @ kernel + bias)`` with new (or reused) variables."""
    layer = Dense(units, activation, use_bias, kernel_initializer, bias_initializer,
                  kernel_regularizer, bias_regularizer, trainable, name)
    return layer(inputs, reuse=reuse)
