"""``tf.contrib.layers.optimize_loss``: a training op from a loss, an optimizer's name and a rate.

``optimize_loss(loss, global_step, learning_rate, optimizer)``: ``optimizer`` is a name
("SGD", "Adam", "Adagrad", "Momentum" (momentum 0.9), "RMSProp", "Ftrl"), an Optimizer
class or instance, or a function of the rate; a float rate becomes the non-trainable
variable ``OptimizeLoss/learning_rate`` (``learning_rate_decay_fn(lr, global_step)``
may decay it); the update ops run first; gradients may be multiplied
(``gradient_multipliers``) and clipped (a float: by their global norm, or a function of
the (gradient, variable) pairs); the scalar summaries "loss", "learning_rate" and
"global_gradient_norm" are written by default.  The result is a tensor whose value is
the loss before the step (TF's ``with_dependencies([step], loss)``).  symgrad refuses
``gradient_noise_scale`` (random gradient noise).

Imports the compat train, summary, variables, scopes and slim_learning.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(2.0)
...     op = optimize_loss(tf.square(w), tf.train.get_or_create_global_step(), 0.25, "SGD")
...     with tf.Session() as sess:
...         _ = sess.run(tf.global_variables_initializer())
...         print(sess.run(op), sess.run(w))
4.0 1.0
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from . import initializers as _init
from . import summary as _summary
from . import train as _train
from . import variables as _v
from .scopes import get_variable, variable_scope
from .slim_learning import loss_before

OPTIMIZER_CLS_NAMES = {
    "Adagrad": _train.AdagradOptimizer,
    "Adam": _train.AdamOptimizer,
    "Ftrl": _train.FtrlOptimizer,
    "Momentum": lambda learning_rate: _train.MomentumOptimizer(learning_rate, momentum=0.9),
    "RMSProp": _train.RMSPropOptimizer,
    "SGD": _train.GradientDescentOptimizer,
}
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _rate(learning_rate):
    if learning_rate is None or isinstance(learning_rate, _t.Tensor) and \
            learning_rate.ndim == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate {learning_rate}.")
        return get_variable("learning_rate", [], dtype=np.float32, trainable=False,
                            initializer=_init.Constant(learning_rate))
    raise ValueError("optimize_loss: learning_rate should be a 0-d tensor or a float, got "
                     f"{learning_rate!r} of type {type(learning_rate).__name__}")


def _optimizer(optimizer, lr):
    if isinstance(optimizer, str):
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(f"Optimizer name should be one of "
                             f"[{', '.join(OPTIMIZER_CLS_NAMES)}], you provided {optimizer}.")
        if lr is None:
            raise ValueError(f"optimize_loss: give learning_rate with optimizer {optimizer!r}")
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
    if isinstance(optimizer, type) and issubclass(optimizer, _train.Optimizer):
        if lr is None:
            raise ValueError("optimize_loss: give learning_rate with an optimizer class")
        return optimizer(learning_rate=lr)
    if isinstance(optimizer, _train.Optimizer):
        return optimizer
    if callable(optimizer):
        made = optimizer(lr) if lr is not None else optimizer()
        if isinstance(made, _train.Optimizer):
            return made
    raise ValueError("Unrecognized optimizer: give a name (" + ", ".join(OPTIMIZER_CLS_NAMES)
                     + "), an Optimizer class or instance, or a function of the rate "
                     f"returning one; got {optimizer!r}")


def _multiply(grads, gradient_multipliers):
    """Gradients of the variables named in ``gradient_multipliers`` (by the variable or
    its full name ``"w:0"``, as this contrib function looks them up) times the factor."""
    out = []
    for g, v in grads:
        key = next((k for k in gradient_multipliers if k is v or k == v.name), None)
        if g is not None and key is not None:
            g = g * _t.cast(gradient_multipliers[key], g.dtype)
        out.append((g, v))
    return out


def _clip(grads, clip_gradients):
    if isinstance(clip_gradients, float):
        kept = [(g, v) for g, v in grads if g is not None]
        clipped, _ = _t.clip_by_global_norm([g for g, _ in kept], clip_gradients)
        return list(zip(clipped, [v for _, v in kept]))
    if callable(clip_gradients):
        return clip_gradients(grads)
    raise ValueError(f"Unknown type {type(clip_gradients).__name__} for clip_gradients")


def _norm_summary(name, grads):
    _summary.scalar(name, _t.global_norm([g for g, _ in grads if g is not None]))


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """The loss tensor whose run makes one step (module docstring)."""
    if gradient_noise_scale is not None:
        raise ValueError("optimize_loss: gradient_noise_scale is not supported by symgrad; "
                         "leave it out")
    summaries = ["loss", "learning_rate", "global_gradient_norm"] if summaries is None \
        else list(summaries)
    unknown = [s for s in summaries if s not in OPTIMIZER_SUMMARIES]
    if unknown:
        raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}], "
                         f"you provided {unknown[0]}.")
    loss = _t.as_tensor(loss)
    global_step = global_step if global_step is not None else _v.get_global_step()
    with variable_scope(name, default_name="OptimizeLoss"):
        update_ops = _v.get_collection(_v.GraphKeys.UPDATE_OPS) if update_ops is None \
            else list(update_ops)
        if update_ops:
            with _v.control_dependencies(update_ops):
                loss = _t.identity(loss)
        lr = _rate(learning_rate)
        if lr is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                _summary.scalar("learning_rate", lr)
        opt = _optimizer(optimizer, lr)
        variables = _v.trainable_variables() if variables is None else list(variables)
        grads = _gradients(opt.compute_gradients(loss, variables), gradient_multipliers,
                           clip_gradients, summaries)
        if "loss" in summaries:
            _summary.scalar("loss", loss)
        step = opt.apply_gradients(grads, name="train",
                                   global_step=global_step if increment_global_step else None)
        return loss_before(step, loss)


def _gradients(grads, gradient_multipliers, clip_gradients, summaries):
    """The gradients multiplied, then clipped, with their norms' summaries."""
    norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
    if gradient_multipliers is not None:
        grads = _multiply(grads, gradient_multipliers)
    if norms:
        _norm_summary("global_norm/gradient_norm", grads)
    if clip_gradients is not None:
        grads = _clip(grads, clip_gradients)
        if norms:
            _norm_summary("global_norm/clipped_gradient_norm", grads)
    return grads
