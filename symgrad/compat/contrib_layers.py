"""``tf.contrib.layers``: the regularizers, initializers and layers TF1 code takes from it.

- ``l2_regularizer(scale)``: ``w -> scale * tf.nn.l2_loss(w)`` (``sum(w**2) / 2``);
  ``l1_regularizer(scale)``: ``w -> scale * sum(|w|)``; a scale of 0 gives no loss;
- ``xavier_initializer(uniform=True)`` and ``variance_scaling_initializer(factor=2.0,
  mode="FAN_IN", uniform=False)`` with contrib's formulas (uniform in
  ±sqrt(3 factor / n); else a normal truncated at two deviations of deviation
  sqrt(1.3 factor / n));
- ``fully_connected`` (``weights`` and ``biases`` variables, ReLU by default) and
  ``flatten``.

Imports the tracing functions and the compat initializers, scopes and layers.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     reg = tf.contrib.layers.l2_regularizer(0.5)
...     tf.Session().run(reg(tf.constant([1.0, 2.0]))).item()
1.25
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from . import initializers as _init
from . import layers as _layers
from .scopes import get_variable, variable_scope


def l2_regularizer(scale, scope=None):
    """``w -> scale * sum(w**2) / 2`` (None for a scale of 0, as TF)."""
    if float(scale) < 0:
        raise ArgumentError(f"l2_regularizer: scale {scale} must be >= 0")
    return (lambda w: None) if float(scale) == 0 else \
        (lambda w: _t.multiply(_t.nn.l2_loss(w), np.asarray(scale, w.dtype)))


def l1_regularizer(scale, scope=None):
    """``w -> scale * sum(|w|)`` (None for a scale of 0, as TF)."""
    if float(scale) < 0:
        raise ArgumentError(f"l1_regularizer: scale {scale} must be >= 0")
    return (lambda w: None) if float(scale) == 0 else \
        (lambda w: _t.multiply(_t.reduce_sum(_t.abs(w)), np.asarray(scale, w.dtype)))


class ContribVarianceScaling(_init.Initializer):
    """contrib's variance scaling: uniform in ±sqrt(3 factor / n), or a truncated normal
    of deviation sqrt(1.3 factor / n); n the fan in, out or their mean."""

    def __init__(self, factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=np.float32):
        if mode not in ("FAN_IN", "FAN_OUT", "FAN_AVG"):
            raise ArgumentError(f"variance_scaling_initializer: mode={mode!r}; use 'FAN_IN', "
                                "'FAN_OUT' or 'FAN_AVG'")
        self.factor, self.mode, self.uniform = float(factor), mode, bool(uniform)
        self.seed, self.dtype = seed, dtype

    def array(self, shape, dtype):
        fan_in, fan_out = _init.compute_fans(shape)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2}[self.mode]
        generator = _init.rng(self.seed)
        if self.uniform:
            limit = math.sqrt(3.0 * self.factor / n)
            tf = _init.tf_numbers("uniform", shape, dtype, self.seed, -limit, limit)
            return tf if tf is not None else \
                generator.uniform(-limit, limit, size=shape).astype(dtype)
        deviation = math.sqrt(1.3 * self.factor / n)
        tf = _init.tf_numbers("truncated_normal", shape, dtype, self.seed, 0.0, deviation)
        if tf is not None:
            return tf
        z = _init.truncated_standard_normal(generator, shape)
        return (deviation * z).astype(dtype)


def variance_scaling_initializer(factor=2.0, mode="FAN_IN", uniform=False, seed=None,
                                 dtype=np.float32):
    return ContribVarianceScaling(factor, mode, uniform, seed, dtype)


def xavier_initializer(uniform=True, seed=None, dtype=np.float32):
    """Glorot's initializer as contrib has it (``variance_scaling`` of factor 1 over the
    mean fan)."""
    return ContribVarianceScaling(1.0, "FAN_AVG", uniform, seed, dtype)


def fully_connected(inputs, num_outputs, activation_fn=_t.nn.relu, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=None,
                    weights_regularizer=None, biases_initializer=_init.Zeros(),
                    biases_regularizer=None, reuse=None, variables_collections=None,
                    outputs_collections=None, trainable=True, scope=None):
    """``activation_fn(inputs @ weights + biases)`` over the last axis."""
    if normalizer_fn is not None:
        raise ArgumentError("fully_connected(normalizer_fn=...) is not supported; apply "
                            "tf.layers.batch_normalization to the result")
    x = _t.as_tensor(inputs)
    with variable_scope(scope, default_name="fully_connected", reuse=reuse):
        weights = get_variable("weights", (x.shape[-1], int(num_outputs)), dtype=x.dtype,
                               initializer=weights_initializer or xavier_initializer(),
                               regularizer=weights_regularizer, trainable=trainable)
        out = _t.tensordot(x, weights, [[x.ndim - 1], [0]])
        if biases_initializer is not None:
            out = out + get_variable("biases", (int(num_outputs),), dtype=x.dtype,
                                     initializer=biases_initializer,
                                     regularizer=biases_regularizer, trainable=trainable)
        return activation_fn(out) if activation_fn is not None else out


flatten = _layers.flatten
