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
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps) ** power + end; with
    ``cycle`` the period grows to the next multiple of decay_steps past step (TF's)."""
    lr = _as_float(learning_rate)
    step = _as_float(global_step, lr.dtype)
    if cycle:
        periods = _t.where(_t.equal(step, 0.0), _t.ones_like(step), _t.ceil(step / decay_steps))
        frac = 1 - step / (float(decay_steps) * periods)
    else:
        frac = 1 - _t.minimum(step, float(decay_steps)) / float(decay_steps)
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


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0,
                          m_mul=1.0, alpha=0.0, name=None):
    """SGDR: cosine decay over periods ``first_decay_steps * t_mul**i``, the i-th
    restarting at ``lr * m_mul**i`` (TF's formula)."""
    if global_step is None:
        raise ValueError("global_step is required for cosine_decay_restarts.")
    lr = _as_float(learning_rate)
    done = _as_float(global_step, lr.dtype) / float(first_decay_steps)
    if t_mul == 1.0:
        i = _t.floor(done)
        done = done - i
    else:
        i = _t.floor(_t.log(1.0 - done * (1.0 - t_mul)) / math.log(t_mul))
        total = (1.0 - _t.pow(np.asarray(t_mul, lr.dtype), i)) / (1.0 - t_mul)
        done = (done - total) / _t.pow(np.asarray(t_mul, lr.dtype), i)
    cosine = 0.5 * _t.pow(np.asarray(m_mul, lr.dtype), i) * (1.0 + _t.cos(math.pi * done))
    return _t.identity(lr * ((1.0 - alpha) * cosine + alpha), name=name or "SGDRDecay")


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0,
                        beta=0.001, name=None):
    """``lr * ((alpha + (decay_steps - step) / decay_steps) * 0.5 * (1 + cos(2 pi
    num_periods step / decay_steps)) + beta)``, step capped at decay_steps (TF's)."""
    if global_step is None:
        raise ValueError("global_step is required for linear_cosine_decay.")
    lr = _as_float(learning_rate)
    step = _t.minimum(_as_float(global_step, lr.dtype), float(decay_steps))
    linear = (float(decay_steps) - step) / float(decay_steps)
    cosine = 0.5 * (1.0 + _t.cos(math.pi * 2.0 * num_periods * step / float(decay_steps)))
    return _t.identity(lr * ((alpha + linear) * cosine + beta),
                       name=name or "LinearCosineDecay")
