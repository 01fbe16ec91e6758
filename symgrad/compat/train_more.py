"""More of ``tf.train``: proximal optimizers, the noisy decay, checkpoint files and
``write_graph``.

- ``ProximalGradientDescentOptimizer(lr, l1, l2)``: ``v = var - lr g``, then
  ``var = sign(v) max(|v| - lr l1, 0) / (1 + lr l2)`` (TF's ApplyProximalGradientDescent).
- ``ProximalAdagradOptimizer(lr, initial_accumulator_value=0.1, l1, l2)``: ``accum +=
  g²``, the step ``lr / sqrt(accum)`` in place of lr in the proximal update above.
- ``noisy_linear_cosine_decay``: ``linear_cosine_decay`` with ``eps`` added to the
  linear part, eps normal with variance ``initial_variance / (1 + step) **
  variance_decay``, drawn anew at each run (TF's numbers cannot be matched; seeds
  make it reproducible).  ``piecewise_constant_decay``: ``piecewise_constant``.
- ``remove_checkpoint(prefix)`` deletes what ``Saver.save`` wrote for it;
  ``get_checkpoint_mtimes(prefixes)`` their modification times.
- ``write_graph(graph, logdir, name, as_text=True)``: a readable text listing of the
  graph (one line per tensor: name, op, inputs, shape, dtype); symgrad has no GraphDef
  protobuf, so ``as_text=False`` raises.

Sits in ``compat``; imports ``tracing``, ``train``, ``schedules``, ``distributions``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable([1.0, -0.05])
...     step = tf.train.ProximalGradientDescentOptimizer(
...         0.1, l1_regularization_strength=0.2).minimize(tf.reduce_sum(w * w))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         sess.run(step)
...         print(sess.run(w).round(4))
[ 0.78 -0.02]
"""
from __future__ import annotations

import glob
import os

import numpy as np

from .. import tracing as _t
from .distributions import drawn
from .errors import NotFoundError
from .schedules import piecewise_constant
from .train import Optimizer, _slot_set

__all__ = ["ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer",
           "noisy_linear_cosine_decay", "piecewise_constant_decay", "remove_checkpoint",
           "get_checkpoint_mtimes", "write_graph"]


def _proximal(v, step, l1, l2):
    """``sign(v) max(|v| - step l1, 0) / (1 + step l2)``: the l1/l2 proximal map."""
    shrunk = np.sign(v) * np.maximum(np.abs(v) - step * l1, 0.0) if l1 > 0 else v
    return shrunk / (1.0 + step * l2)


class ProximalGradientDescentOptimizer(Optimizer):
    """Gradient descent followed by the l1/l2 proximal map (module docstring)."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False,
                 name="ProximalGradientDescent"):
        _non_negative(l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "l1": l1_regularization_strength,
                       "l2": l2_regularization_strength}

    def update(self, var, g, slots, h):
        return _proximal(var - h["lr"] * g, h["lr"], h["l1"], h["l2"])


class ProximalAdagradOptimizer(Optimizer):
    """Adagrad's step ``lr / sqrt(accum)`` in the proximal update (module docstring)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("ProximalAdagradOptimizer: initial_accumulator_value must be "
                             f"positive, got {initial_accumulator_value}")
        _non_negative(l1_regularization_strength, l2_regularization_strength)
        super().__init__(use_locking, name)
        self._hyper = {"lr": learning_rate, "l1": l1_regularization_strength,
                       "l2": l2_regularization_strength}
        self.SLOTS = (("accumulator", initial_accumulator_value),)

    def update(self, var, g, slots, h):
        accum = _slot_set(slots["accumulator"], slots["accumulator"].value + g * g)
        step = h["lr"] / np.sqrt(accum)
        return _proximal(var - step * g, step, h["l1"], h["l2"])


def _non_negative(l1, l2):
    for what, value in (("l1_regularization_strength", l1),
                        ("l2_regularization_strength", l2)):
        if isinstance(value, (int, float)) and value < 0:
            raise ValueError(f"proximal optimizer: {what} must be >= 0, got {value}")


def noisy_linear_cosine_decay(learning_rate, global_step, decay_steps, initial_variance=1.0,
                              variance_decay=0.55, num_periods=0.5, alpha=0.0, beta=0.001,
                              name=None):
    """``linear_cosine_decay`` with Gaussian noise in the linear part (module docstring)."""
    if global_step is None:
        raise ValueError("global_step is required for noisy_linear_cosine_decay.")
    lr = _t.cast(_t.as_tensor(learning_rate), np.float32)
    step = _t.minimum(_t.cast(_t.as_tensor(global_step), np.float32), float(decay_steps))
    std = _t.sqrt(initial_variance / (1.0 + step) ** variance_decay)
    eps = _t.cast(drawn([], "normal", None), np.float32) * std
    linear = (float(decay_steps) - step) / float(decay_steps) + eps
    cosine = 0.5 * (1.0 + _t.cos(np.pi * 2.0 * num_periods * step / float(decay_steps)))
    return _t.identity(lr * ((alpha + linear) * cosine + beta),
                       name=name or "NoisyLinearCosineDecay")


piecewise_constant_decay = piecewise_constant


def _files_of(prefix):
    prefix = str(prefix)
    return sorted(set(glob.glob(glob.escape(prefix) + ".*")) | (
        {prefix} if os.path.isfile(prefix) else set()))


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=None, meta_graph_suffix="meta"):
    """Delete the files ``Saver.save`` wrote for ``checkpoint_prefix``."""
    for path in _files_of(checkpoint_prefix):
        os.remove(path)


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification time of each checkpoint (its newest file).

    Raises:
        NotFoundError: a prefix has no checkpoint files.
    """
    times = []
    for prefix in checkpoint_prefixes:
        files = _files_of(prefix)
        if not files:
            raise NotFoundError(None, None, f"Unable to find checkpoint file(s) for prefix "
                                            f"{prefix!r}: save it with tf.train.Saver first")
        times.append(max(os.path.getmtime(f) for f in files))
    return times


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write a text listing of the graph to ``logdir/name``; returns the path."""
    if not as_text:
        raise ValueError("tf.train.write_graph(as_text=False): symgrad has no GraphDef "
                         "protobuf to write; use as_text=True for a readable listing")
    graph = getattr(graph_or_graph_def, "graph", graph_or_graph_def)
    nodes = getattr(graph, "nodes", None)
    if nodes is None:
        raise TypeError("tf.train.write_graph: graph_or_graph_def must be a tf.Graph (or "
                        f"graph.as_graph_def()), got {type(graph_or_graph_def).__name__}")
    os.makedirs(str(logdir), exist_ok=True)
    path = os.path.join(str(logdir), name)
    with open(path, "w") as f:
        for node in nodes:
            inputs = ", ".join(i.name for i in node.inputs)
            f.write(f"{node.name} = {node.opdef.name}({inputs})  shape={node.shape} "
                    f"dtype={node.dtype}\n")
    return path
