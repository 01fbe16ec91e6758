"""``tf.train.exponential_decay`` and the other TF1 learning-rate schedules.

Each is a tensor computed from ``global_step`` (TF's formulas), so an optimizer
given it as learning rate reads the current value at every step.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     step = tf.Variable(250, trainable=False)
...     lr = tf.train.exponential_decay(0.1, step, 100, 0.5, staircase=True)
...     print(round(float(lr.numpy()), 6))
0.025
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from .tensor import constant


def _as_float(value, dtype=np.float32):
    if hasattr(value, "graph"):
        return value if value.dtype.kind == "f" else _t.cast(value, dtype)
    return constant(np.asarray(value, dtype=dtype))


def _floor(p):
    # global steps are >= 0, where truncation toward zero is the floor
    return _t.cast(_t.cast(p, np.int64), p.dtype)


def _progress(learning_rate, global_step, decay_steps, staircase, what):
    if global_step is None:
        raise ValueError(f"global_step is required for {what}.")
    lr = _as_float(learning_rate)
    p = _as_float(global_step, lr.dtype) / _as_float(decay_steps, lr.dtype)
    return lr, (_floor(p) if staircase else p)


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """lr * decay_rate ** (global_step / decay_steps), the exponent floored if staircase."""
    lr, p = _progress(learning_rate, global_step, decay_steps, staircase, "exponential_decay")
    return _t.identity(lr * _t.pow(_as_float(decay_rate, lr.dtype), p),
                       name=name or "ExponentialDecay")


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                       name=None):
    """lr / (1 + decay_rate * global_step / decay_steps)."""
    lr, p = _progress(learning_rate, global_step, decay_steps, staircase, "inverse_time_decay")
    return _t.identity(lr / (1 + decay_rate * p), name=name or "InverseTimeDecay")


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False,
                      name=None):
    """lr * exp(-decay_rate * global_step / decay_steps)."""
    lr, p = _progress(learning_rate, global_step, decay_steps, staircase, "natural_exp_decay")
    return _t.identity(lr * _t.exp(-decay_rate * p), name=name or "NaturalExpDecay")


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001,
                     power=1.0, cycle=False, name=None):
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end."""
    if cycle:
        raise NotImplementedError("polynomial_decay(cycle=True) is not supported by symgrad; "
                                  "use cycle=False")
    lr = _as_float(learning_rate)
    step = _t.minimum(_as_float(global_step, lr.dtype), float(decay_steps))
    frac = 1 - step / float(decay_steps)
    return _t.identity((lr - end_learning_rate) * frac ** power + end_learning_rate,
                       name=name or "PolynomialDecay")


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""
    lr = _as_float(learning_rate)
    step = _t.minimum(_as_float(global_step, lr.dtype), float(decay_steps))
    cosine = 0.5 * (1 + _t.cos(math.pi * step / float(decay_steps)))
    return _t.identity(lr * ((1 - alpha) * cosine + alpha), name=name or "CosineDecay")


def piecewise_constant(x, boundaries, values, name=None):
    """values[0] while x <= boundaries[0], values[1] while x <= boundaries[1], ..."""
    if len(values) != len(boundaries) + 1:
        raise ValueError("piecewise_constant: values must have one more element than "
                         f"boundaries ({len(values)} values, {len(boundaries)} boundaries)")
    x = _t.as_tensor(x)
    dtype = np.asarray(values).dtype
    dtype = np.float32 if dtype.kind == "f" else dtype
    out = constant(np.asarray(values[-1], dtype=dtype))
    for bound, value in reversed(list(zip(boundaries, values[:-1]))):
        out = _t.where(x <= bound, np.asarray(value, dtype=dtype), out)
    return _t.identity(out, name=name or "PiecewiseConstant")
