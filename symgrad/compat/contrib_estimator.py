"""``tf.contrib.estimator.clip_gradients_by_norm``: the optimizer Google's Machine
Learning Crash Course hands its estimators (``tf.estimator.LinearRegressor(...,
optimizer=clip_gradients_by_norm(GradientDescentOptimizer(lr), 5.0))``).

TF's semantics: an optimizer that asks ``optimizer`` for the gradients, rescales them
together by ``tf.clip_by_global_norm(gradients, clip_norm)`` and lets ``optimizer``
apply them (its slots, its updates); its name is ``"ClipByNorm" + optimizer's``.

Imports the compat optimizers and clipping.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.Variable([3.0, 4.0])
...     sgd = tf.train.GradientDescentOptimizer(1.0)
...     step = tf.contrib.estimator.clip_gradients_by_norm(sgd, 1.0).minimize(tf.reduce_sum(x * x))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         sess.run(step)
...         print(sess.run(x))   # the gradient [6, 8] scaled to norm 1
[2.4 3.2]
"""
from __future__ import annotations

from .train import Optimizer
from .slices import clip_by_global_norm


class TransformGradients(Optimizer):
    """An optimizer applying ``optimizer``'s steps to ``transform(grads_and_vars)``."""

    def __init__(self, optimizer, transform, name):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"clip_gradients_by_norm(optimizer): expected a tf.train "
                            f"optimizer, got {optimizer!r}")
        super().__init__(False, name)
        self._optimizer, self._transform = optimizer, transform

    def compute_gradients(self, *args, **kwargs):
        return self._transform(self._optimizer.compute_gradients(*args, **kwargs))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        return self._optimizer.apply_gradients(grads_and_vars, global_step, name)

    def get_slot(self, var, name):
        return self._optimizer.get_slot(var, name)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def variables(self):
        return self._optimizer.variables()


def clip_gradients_by_norm(optimizer, clip_norm):
    """``optimizer`` with its gradients clipped by their global norm (module docstring)."""
    def clip(grads_and_vars):
        gradients, variables = zip(*grads_and_vars)
        clipped, _ = clip_by_global_norm(list(gradients), clip_norm)
        return list(zip(clipped, variables))
    return TransformGradients(optimizer, clip, "ClipByNorm" + optimizer.get_name())
