"""``tf.contrib.layers``: the regularizers, initializers and layers TF1 code takes from it.

- ``l2_regularizer(scale)``: ``w -> scale * tf.nn.l2_loss(w)`` (``sum(w**2) / 2``);
  ``l1_regularizer(scale)``: ``w -> scale * sum(|w|)``; a scale of 0 gives no loss;
- ``xavier_initializer(uniform=True)`` and ``variance_scaling_initializer(factor=2.0,
  mode="FAN_IN", uniform=False)`` with contrib's formulas (uniform in
  ±sqrt(3 factor / n); else a normal truncated at two deviations of deviation
  sqrt(1.3 factor / n));
- ``l1_l2_regularizer``, ``sum_regularizer`` and ``apply_regularization(regularizer,
  weights_list)`` (their sum, added to ``tf.GraphKeys.REGULARIZATION_LOSSES``).

The layer functions (``fully_connected``, ``conv2d``, ...) are in ``compat.slim_layers``.

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
from .variables import GraphKeys, add_to_collection, get_collection
from .tensor import added as _added


def l2_regularizer(scale, scope=None):
    """``w -> scale * sum(w**2) / 2`` (None for a scale of 0, as TF)."""
    if float(scale) < 0:
        raise ArgumentError(f"l2_regularizer: scale {scale} must be >= 0")
    return (lambda w: None) if float(scale) == 0 else \
        (lambda w: _t.multiply(np.asarray(scale, w.dtype), _t.nn.l2_loss(w),
                               name=scope or "l2_regularizer"))


def l1_regularizer(scale, scope=None):
    """``w -> scale * sum(|w|)`` (None for a scale of 0, as TF)."""
    if float(scale) < 0:
        raise ArgumentError(f"l1_regularizer: scale {scale} must be >= 0")
    return (lambda w: None) if float(scale) == 0 else \
        (lambda w: _t.multiply(np.asarray(scale, w.dtype), _t.reduce_sum(_t.abs(w)),
                               name=scope or "l1_regularizer"))


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


def sum_regularizer(regularizer_list, scope=None):
    """``w -> sum of the regularizers' losses`` (those that give one)."""
    def regularize(w):
        losses = [loss for loss in (r(w) for r in regularizer_list) if loss is not None]
        return _add_n(losses, name=scope or "sum_regularizer") if losses else None
    return regularize


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None):
    """``w -> scale_l1 * sum(|w|) + scale_l2 * sum(w**2) / 2``."""
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)],
                           scope=scope or "l1_l2_regularizer")


def apply_regularization(regularizer, weights_list=None):
    """The sum of ``regularizer(w)`` over ``weights_list`` (the ``tf.GraphKeys.WEIGHTS``
    collection by default), added to the regularization losses."""
    weights_list = get_collection(GraphKeys.WEIGHTS) if weights_list is None \
        else list(weights_list)
    if not weights_list:
        raise ValueError("apply_regularization: no weights to regularize (pass weights_list, "
                         "or add the weights to tf.GraphKeys.WEIGHTS)")
    with _t.get_default_graph().name_scope("get_regularization_penalty") as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else _t.constant(np.float32(0.0)) for p in penalties]
        summed = _add_n(penalties, name=scope.split("/")[-1])
    add_to_collection(GraphKeys.REGULARIZATION_LOSSES, summed)
    return summed


def _add_n(tensors, name):
    """``tf.add_n``: the sum, named ``name``."""
    return _t.identity(_added(list(tensors), "add_n"), name=name)
