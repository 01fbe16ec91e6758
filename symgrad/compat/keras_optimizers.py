"""``tf.keras.optimizers`` as TF1 graph-mode Keras has them (the "legacy" OptimizerV2
classes): ``SGD``, ``Adam``, ``RMSprop``, ``Adagrad``, with Keras's defaults and update
formulas, which differ from ``tf.train``'s:

- ``SGD(learning_rate=0.01, momentum=0.0, nesterov=False)``: ``accum = momentum *
  accum - lr * g; var += accum`` (Nesterov: ``var += momentum * accum - lr * g``);
- ``Adam(0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False)``: ``tf.train``'s
  Adam with ``t = iterations + 1`` (amsgrad: the running maximum of v divides);
- ``RMSprop(0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False)``: the mean
  square starts at 0 (``tf.train``: 1) and ``var -= lr * g / (sqrt(rms) + epsilon)``;
  with momentum, TF's ApplyRMSProp (epsilon inside the square root);
- ``Adagrad(0.001, initial_accumulator_value=0.1, epsilon=1e-7)``:
  ``var -= lr * g / (sqrt(accum) + epsilon)``.

An ``IndexedSlices`` gradient (an ``Embedding``'s) updates as keras's sparse paths do:
``Adam`` decays every row's m and v and moves every row, ``RMSprop`` without momentum
(and ``Nadam``) decay every row's moments and move the rows looked up, the others touch
only those rows (TF's sparse kernels).

``lr=`` is the old name of ``learning_rate``; the rate is a variable
(``K.set_value(optimizer.lr, 0.01)``); ``decay`` divides it by ``1 + decay *
iterations``.  They are ``tf.train.Optimizer`` objects (``minimize`` works) with an
``iterations`` variable, used by ``Model.compile`` (``compat.keras_training``).

Sits in ``compat``; imports ``compat.train``, ``compat.in_place``, ``compat.variables``
and the keras backend.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(1.0)
...     step = tf.keras.optimizers.SGD(0.1, momentum=0.9).minimize(w * w)
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print([round(float(sess.run([step, w])[1]), 6) for _ in range(2)])
[0.8, 0.46]
"""
from __future__ import annotations

import numpy as np

from ..graph import Node
from ..tracing import get_default_graph
from . import keras_backend as K
from .in_place import writable as _writable
from .row_scatter import rows_at
from .train import Optimizer, _deduplicate, _set, _slot_set
from .variables import Variable

__all__ = ["SGD", "Adam", "RMSprop", "Adagrad", "get"]


class KerasOptimizer(Optimizer):
    """The shared part: hyperparameters by Keras's names, ``lr``, ``decay``, ``iterations``."""

    DEFAULTS = {}

    def __init__(self, name, learning_rate=None, **kwargs):
        lr = kwargs.pop("lr", None)
        decay = float(kwargs.pop("decay", 0.0))
        for refused in ("clipnorm", "clipvalue", "global_clipnorm"):
            if kwargs.pop(refused, None) is not None:
                raise ValueError(f"tf.keras.optimizers.{name}({refused}=...) is not supported; "
                                 "clip with tf.clip_by_norm / tf.clip_by_value in a "
                                 "compute_gradients / apply_gradients loop")
        unknown = set(kwargs) - set(self.DEFAULTS)
        if unknown:
            raise TypeError(f"tf.keras.optimizers.{name}: unexpected arguments {sorted(unknown)}")
        super().__init__(False, name)
        rate = learning_rate if learning_rate is not None else lr
        if "epsilon" in kwargs:   # (keras: `epsilon or backend.epsilon()`: 0 and None too)
            kwargs["epsilon"] = kwargs["epsilon"] or K.epsilon()
        self._hyper = dict(self.DEFAULTS, **kwargs)
        if "epsilon" in self._hyper:
            self.epsilon = self._hyper["epsilon"]
        self._hyper["lr"] = rate if rate is not None else self.DEFAULT_LR
        self._decay, self.iterations = decay, None

    def _create_non_slots(self, var):
        self._rate_variable(var.graph)
        if self.iterations is None:
            self.iterations = Variable(np.int64(0), trainable=False, name="iterations",
                                       dtype=np.int64)

    def _rate(self, h):
        """The learning rate at this step (legacy ``decay``: lr / (1 + decay * t))."""
        if not self._decay:
            return h["lr"]
        return h["lr"] / (1.0 + np.asarray(self._decay * self.iterations.value, h["lr"].dtype))

    def finish(self, h):
        self.iterations.value = np.int64(self.iterations.value + 1)

    def variables(self):
        return ([self.iterations] if self.iterations is not None else []) + super()._own_variables()

    def _rate_variable(self, graph):
        """The learning rate as a variable, as graph-mode Keras keeps it (so that
        ``K.set_value(model.optimizer.lr, 0.01)`` and schedules change it); made in
        ``graph`` on first use, initialised by ``K.get_session()``."""
        if not isinstance(self._hyper["lr"], Node):
            with graph.as_default():
                rate = Variable(np.float32(self._hyper["lr"]), trainable=False,
                                name="learning_rate")
            K.track_variable(rate)
            self._hyper["lr"] = rate
        return self._hyper["lr"]

    @property
    def learning_rate(self):
        return self._rate_variable(get_default_graph())

    lr = learning_rate

    def get_config(self):
        """The hyperparameters by Keras's names (the rate's current value)."""
        rate = self._hyper["lr"]
        rate = float(K.get_value(rate)) if isinstance(rate, Node) else float(rate)
        return dict({k: v for k, v in self._hyper.items() if k != "lr"}, name=self._name,
                    learning_rate=rate, decay=self._decay)


class SGD(KerasOptimizer):
    """``tf.keras.optimizers.SGD(learning_rate=0.01, momentum=0.0, nesterov=False)``."""

    DEFAULT_LR, DEFAULTS = 0.01, {"momentum": 0.0}

    def __init__(self, learning_rate=None, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, learning_rate, momentum=momentum, **kwargs)
        self._nesterov = nesterov
        self.SLOTS = (("momentum", 0.0),) if momentum else ()

    def update(self, var, g, slots, h):
        lr = self._rate(h)
        if not self.SLOTS:
            return var - lr * g
        # ResourceApplyKerasMomentum: accum = m * accum - lr * g
        accum = _slot_set(slots["momentum"], slots["momentum"].value * h["momentum"] - lr * g)
        if self._nesterov:
            return var + accum * h["momentum"] - lr * g
        return var + accum


class Moments(KerasOptimizer):
    """The Adam family's defaults and slots (``Adam`` here, ``Adamax`` and ``Nadam`` in
    ``keras_optimizers_more``): the first moment m and the second v of the gradient."""

    DEFAULT_LR = 0.001
    DEFAULTS = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    SLOTS = (("m", 0.0), ("v", 0.0))


class Adam(Moments):
    """``tf.keras.optimizers.Adam(learning_rate=0.001, beta_1=0.9, beta_2=0.999,
    epsilon=1e-7)``."""

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        super().__init__(name, learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, **kwargs)
        if amsgrad:   # (the largest v so far divides: "vhat")
            self.SLOTS = Adam.SLOTS + (("vhat", 0.0),)

    def update(self, var, g, slots, h):
        t = np.asarray(self.iterations.value + 1, var.dtype)
        b1, b2 = h["beta_1"], h["beta_2"]
        lr_t = self._rate(h) * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = _slot_set(slots["m"], slots["m"].value + (g - slots["m"].value) * (1 - b1))
        v = _slot_set(slots["v"], slots["v"].value + (g * g - slots["v"].value) * (1 - b2))
        if "vhat" in slots:
            v = _slot_set(slots["vhat"], np.maximum(slots["vhat"].value, v))
        return var - lr_t * m / (np.sqrt(v) + h["epsilon"])

    def update_rows(self, var, values, indices, slots, h):
        # keras's _resource_apply_sparse: every row's m and v decay, the rows looked up
        # add their gradient, and every row of the variable moves
        rows, g = _deduplicate(values, indices)
        t = np.asarray(self.iterations.value + 1, var.dtype)
        b1, b2 = h["beta_1"], h["beta_2"]
        lr_t = self._rate(h) * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        m = decay_then_add(slots["m"], b1, rows, g * (1 - b1))
        v = decay_then_add(slots["v"], b2, rows, g * g * (1 - b2))
        if "vhat" in slots:
            v = _slot_set(slots["vhat"], np.maximum(slots["vhat"].value, v))
        _set(var, var.value - lr_t * m / (np.sqrt(v) + h["epsilon"]))


class RMSprop(KerasOptimizer):
    """``tf.keras.optimizers.RMSprop(learning_rate=0.001, rho=0.9, momentum=0.0,
    epsilon=1e-7, centered=False)``."""

    DEFAULT_LR = 0.001
    DEFAULTS = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7}

    def __init__(self, learning_rate=None, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, name="RMSprop", **kwargs):
        super().__init__(name, learning_rate, rho=rho, momentum=momentum,
                         epsilon=epsilon, **kwargs)
        self._centered = centered
        self.SLOTS = (("rms", 0.0),) + ((("mg", 0.0),) if centered else ()) + (
            (("momentum", 0.0),) if momentum else ())

    def update(self, var, g, slots, h):
        rho, eps, lr = h["rho"], h["epsilon"], self._rate(h)
        rms = _slot_set(slots["rms"], rho * slots["rms"].value + (1 - rho) * g * g)
        denominator = rms
        if self._centered:
            mg = _slot_set(slots["mg"], rho * slots["mg"].value + (1 - rho) * g)
            denominator = rms - mg * mg
        if "momentum" in slots:   # ApplyRMSProp: epsilon inside the square root
            mom = _slot_set(slots["momentum"], slots["momentum"].value * h["momentum"]
                            + lr * g / np.sqrt(denominator + eps))
            return var - mom
        return var - lr * g / (np.sqrt(denominator) + eps)

    def update_rows(self, var, values, indices, slots, h):
        if "momentum" in slots:   # (keras: TF's ResourceSparseApplyRMSProp, rows only)
            return super().update_rows(var, values, indices, slots, h)
        # keras's: every row's mean square decays, the rows looked up add g² and move
        rows, g = _deduplicate(values, indices)
        rho, eps, lr = h["rho"], h["epsilon"], self._rate(h)
        denominator = decay_then_add(slots["rms"], rho, rows, g * g * (1 - rho))[rows]
        if self._centered:
            mg = decay_then_add(slots["mg"], rho, rows, g * (1 - rho))[rows]
            denominator = denominator - mg * mg
        rows_at(np.add, _writable(var), rows, (-lr * g / (np.sqrt(denominator) + eps))
                  .astype(var.dtype))


class Adagrad(KerasOptimizer):
    """``tf.keras.optimizers.Adagrad(learning_rate=0.001, initial_accumulator_value=0.1,
    epsilon=1e-7)``."""

    DEFAULT_LR, DEFAULTS = 0.001, {"epsilon": 1e-7}

    def __init__(self, learning_rate=None, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        super().__init__(name, learning_rate, epsilon=epsilon,
                         **kwargs)
        self.SLOTS = (("accumulator", float(initial_accumulator_value)),)

    def update(self, var, g, slots, h):
        accum = _slot_set(slots["accumulator"], slots["accumulator"].value + g * g)
        return var - self._rate(h) * g / (np.sqrt(accum) + h["epsilon"])


def decay_then_add(slot, rate, rows, added):
    """``slot = slot * rate``, then ``added`` put onto ``rows`` (keras's sparse updates:
    an assign, then a scatter_add); the new value."""
    value = _slot_set(slot, slot.value * rate)
    rows_at(np.add, value, rows, added.astype(value.dtype))
    return value


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad}


def register(classes):
    """Make ``get("adadelta")`` know the optimizers of ``keras_optimizers_more``."""
    _BY_NAME.update((cls.__name__.lower(), cls) for cls in classes)


def get(identifier):
    """``tf.keras.optimizers.get``: an optimizer object, or a new one by name ("adam")."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer: {identifier!r}; use one of {sorted(_BY_NAME)} or an "
                     "optimizer object (tf.keras.optimizers.Adam(...), tf.train.AdamOptimizer)")
