"""More of ``tf.keras.optimizers`` as TF1 graph-mode Keras has them (the "legacy"
OptimizerV2 classes): ``Adadelta``, ``Adamax``, ``Nadam``.  Keras 2.2's examples
train with them (``mnist_cnn.py``: ``keras.optimizers.Adadelta()``).  TF's defaults
and formulas (``t = iterations + 1``; ``lr`` decayed by ``decay`` as in
``keras_optimizers``):

- ``Adadelta(0.001, rho=0.95, epsilon=1e-7)``: ``accum = rho * accum + (1 - rho) * g²;
  u = sqrt(accum_var + eps) / sqrt(accum + eps) * g; accum_var = rho * accum_var +
  (1 - rho) * u²; var -= lr * u`` (TF's ApplyAdadelta; Keras 2.2's default rate was 1.0);
- ``Adamax(0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7)``: ``m = b1 m + (1 - b1) g;
  v = max(b2 v, |g|); var -= lr / (1 - b1^t) * m / (v + eps)`` (ApplyAdaMax);
- ``Nadam(0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, schedule_decay=0.004)``:
  Dozat's momentum schedule ``mu_t = b1 (1 - 0.5 * 0.96^(0.004 t))`` whose running
  product (``momentum_cache``, a non-slot variable) corrects the first moment; the rate
  is not decayed (TF puts schedule_decay where ``decay`` goes).

Sits in ``compat``; imports ``compat.keras_optimizers``, ``compat.train`` and
``compat.variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(1.0)
...     step = tf.keras.optimizers.Adamax(0.1).minimize(w * w)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print(round(float(sess.run([step, w])[1]), 6))
0.9
"""
from __future__ import annotations

import numpy as np

from .in_place import writable as _writable
from .keras_optimizers import KerasOptimizer, Moments, decay_then_add
from .row_scatter import rows_at
from .train import _deduplicate, _slot_set
from .variables import Variable

__all__ = ["Adadelta", "Adamax", "Nadam"]


class Adadelta(KerasOptimizer):
    """``tf.keras.optimizers.Adadelta(learning_rate=0.001, rho=0.95, epsilon=1e-7)``."""

    DEFAULT_LR, DEFAULTS = 0.001, {"rho": 0.95, "epsilon": 1e-7}
    SLOTS = (("accum_grad", 0.0), ("accum_var", 0.0))

    def __init__(self, learning_rate=None, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, learning_rate, rho=rho, epsilon=epsilon, **kwargs)

    def update(self, var, g, slots, h):
        rho, eps = h["rho"], h["epsilon"]
        accum = _slot_set(slots["accum_grad"],
                          slots["accum_grad"].value * rho + g * g * (1 - rho))
        step = np.sqrt(slots["accum_var"].value + eps) / np.sqrt(accum + eps) * g
        _slot_set(slots["accum_var"], slots["accum_var"].value * rho + step * step * (1 - rho))
        return var - self._rate(h) * step


class Adamax(Moments):
    """``tf.keras.optimizers.Adamax(learning_rate=0.001, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7)``."""

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adamax", **kwargs):
        super().__init__(name, learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, **kwargs)

    def update(self, var, g, slots, h):
        t = np.asarray(self.iterations.value + 1, var.dtype)
        b1, b2 = h["beta_1"], h["beta_2"]
        m = _slot_set(slots["m"], slots["m"].value + (g - slots["m"].value) * (1 - b1))
        v = _slot_set(slots["v"], np.maximum(b2 * slots["v"].value, np.abs(g)))
        return var - self._rate(h) / (1 - b1 ** t) * (m / (v + h["epsilon"]))


class Nadam(Moments):
    """``tf.keras.optimizers.Nadam(learning_rate=0.001, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7, schedule_decay=0.004)``."""

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs):
        self._schedule_decay = float(kwargs.pop("schedule_decay", 0.004))
        kwargs.pop("decay", None)   # (TF replaces decay by schedule_decay)
        super().__init__(name, learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, **kwargs)
        self._cache = None

    def _create_non_slots(self, var):
        super()._create_non_slots(var)
        if self._cache is None:
            with var.graph.as_default():
                self._cache = Variable(np.float32(1.0), trainable=False, name="momentum_cache")

    def _momenta(self, dtype):
        """mu_t, mu_(t+1) and the cache times mu_t (read before this step's update)."""
        t = np.asarray(self.iterations.value + 1, dtype)
        b1 = np.asarray(self._hyper["beta_1"], dtype)
        decay, base = np.asarray(self._schedule_decay, dtype), np.asarray(0.96, dtype)
        mu, mu_next = (b1 * (1 - np.asarray(0.5, dtype) * base ** (decay * s))
                       for s in (t, t + 1))
        return mu, mu_next, np.asarray(self._cache.value, dtype) * mu

    def update(self, var, g, slots, h):
        mu, mu_next, schedule = self._momenta(var.dtype)
        b1, b2 = h["beta_1"], h["beta_2"]
        t = np.asarray(self.iterations.value + 1, var.dtype)
        m = _slot_set(slots["m"], b1 * slots["m"].value + (1 - b1) * g)
        v = _slot_set(slots["v"], b2 * slots["v"].value + (1 - b2) * g * g)
        m_bar = (1 - mu) * (g / (1 - schedule)) + mu_next * (m / (1 - schedule * mu_next))
        v_prime = v / (1 - b2 ** t)
        return var - h["lr"] * m_bar / (np.sqrt(v_prime) + h["epsilon"])

    def update_rows(self, var, values, indices, slots, h):
        # keras's _resource_apply_sparse: every row's m and v decay, the rows looked up
        # add their gradient and move (reading their rows of m and v)
        rows, g = _deduplicate(values, indices)
        mu, mu_next, schedule = self._momenta(var.dtype)
        b1, b2 = h["beta_1"], h["beta_2"]
        t = np.asarray(self.iterations.value + 1, var.dtype)
        m = decay_then_add(slots["m"], b1, rows, g * (1 - b1))[rows]
        v = decay_then_add(slots["v"], b2, rows, g * g * (1 - b2))[rows]
        m_bar = (1 - mu) * (g / (1 - schedule)) + mu_next * (m / (1 - schedule * mu_next))
        step = -h["lr"] * m_bar / (np.sqrt(v / (1 - b2 ** t)) + h["epsilon"])
        rows_at(np.add, _writable(var), rows, step.astype(var.dtype))

    def finish(self, h):
        self._cache.value = np.float32(self._momenta(np.float32)[2])
        super().finish(h)

    def variables(self):
        return super().variables() + ([self._cache] if self._cache is not None else [])
