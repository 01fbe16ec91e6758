"""``tf.train.ExponentialMovingAverage``: shadow variables and the operation updating them.

``apply(var_list)`` makes one shadow variable per variable or tensor (named
``<op name>/ExponentialMovingAverage`` inside the current variable scope as TF names
it, an error under ``reuse=True`` as TF's ``get_variable``; a variable's shadow starts at
its ``initialized_value()`` when the shadow's initializer runs: its value then if the
session has initialised it, else its initial value; a tensor's at zeros) and returns an operation that, when a
session runs it, sets every ``shadow -= (1 - decay) * (shadow - value)``, the values
read in one snapshot.  With ``num_updates`` the decay is
``min(decay, (1 + num_updates) / (10 + num_updates))``, as in TF.  ``average(v)``
is the shadow variable.  ``zero_debias`` is not supported.

Imports the compat variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(1.0, name="w")
...     ema = tf.train.ExponentialMovingAverage(0.9)
...     update = ema.apply([w])
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         _ = sess.run(tf.assign(w, 3.0))
...         sess.run(update)
...         print(ema.average(w).name, round(float(sess.run(ema.average(w))), 6))
w/ExponentialMovingAverage:0 1.2
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError
from ..graph import is_static
from .scopes import get_variable_scope, missing_variable
from .variables import (GraphKeys, Variable, add_to_collection, assign_sub, get_collection,
                        global_variables, group, trainable_variables)


class ExponentialMovingAverage:
    """``tf.train.ExponentialMovingAverage(decay, num_updates=None)`` (module docstring)."""

    def __init__(self, decay, num_updates=None, zero_debias=False,
                 name="ExponentialMovingAverage"):
        if zero_debias:
            raise ArgumentError("ExponentialMovingAverage(zero_debias=True) is not supported")
        self._decay, self._num_updates, self.name = decay, num_updates, name
        self._shadows = {}   # id(variable or tensor) -> (it, its shadow)

    def apply(self, var_list=None):
        """The operation updating the averages of ``var_list`` (default: the trainable
        variables); makes their shadow variables on first use."""
        items = trainable_variables() if var_list is None else list(var_list)
        updates = []
        for v in items:
            shadow = self._shadow(v)
            keep = self._decay_for(v)
            updates.append(assign_sub(shadow, (shadow - v) * (1 - keep)))
        return group(*updates, name=self.name)

    def _shadow(self, v):
        found = self._shadows.get(id(v))
        if found is not None:
            return found[1]
        if v.dtype.kind != "f":
            raise ArgumentError(f"ExponentialMovingAverage.apply: {v.name!r} has dtype "
                                f"{v.dtype.name}; averages need float tensors")
        if isinstance(v, Variable):
            start = np.array(v.initial, dtype=v.dtype)
        elif is_static(v.shape):
            start = np.zeros(v.shape, dtype=v.dtype)
        else:
            raise ArgumentError(f"ExponentialMovingAverage.apply: {v.name!r} has shape "
                                f"{v.shape}; the average of a tensor needs a known shape")
        # TF makes the shadow as a slot, with get_variable inside the current variable
        # scope: prefixed by its name, and missing (an error) where that scope reuses
        scope = get_variable_scope()
        if scope.reuse is True:
            # (TF's message names the slot's scope: a trailing "/")
            raise missing_variable("/".join(filter(None, [scope.name, self.average_name(v)]))
                                   + "/")
        with v.graph.absolute_scope(scope.name):
            shadow = Variable(start, trainable=False, name=self.average_name(v),
                              collections=[GraphKeys.GLOBAL_VARIABLES])
        if isinstance(v, Variable):   # (TF's collection lists the averaged variables)
            add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, v)
            shadow.initial_from = v   # (TF starts it at v.initialized_value())
        self._shadows[id(v)] = (v, shadow)
        return shadow

    def _decay_for(self, v):
        if self._num_updates is None:
            return np.asarray(self._decay, dtype=v.dtype)
        n = _t.cast(self._num_updates, v.dtype) if isinstance(self._num_updates, _t.Tensor) \
            else np.asarray(self._num_updates, dtype=v.dtype)
        return _t.minimum(np.asarray(self._decay, dtype=v.dtype), (1 + n) / (10 + n))

    def average(self, var):
        """The shadow variable of ``var`` (None if ``apply`` never saw it)."""
        found = self._shadows.get(id(var))
        return None if found is None else found[1]

    def average_name(self, var):
        """The shadow's name once ``apply`` made it (TF), else ``<op name>/<self.name>``."""
        made = self.average(var)
        if made is not None:
            return made.op_name
        return f"{getattr(var, 'op_name', var.name)}/{self.name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """``{name: variable}`` for a ``Saver`` that loads the averages into the
        variables, as TF's: each of ``moving_avg_variables`` (default: the trainable
        variables and those any average was applied to, in this graph) under its
        shadow's name, whether or not this object made the shadow (an evaluation
        graph restores a training run's averages); every other global variable under
        its own name."""
        if moving_avg_variables is None:
            moving_avg_variables = (trainable_variables()
                                    + get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES))
        averaged = list(dict.fromkeys(moving_avg_variables))
        out = {self.average_name(v): v for v in averaged}
        names = {v.name for v in averaged}
        for v in global_variables():
            if v.name not in names and v.op_name not in out:
                out[v.op_name] = v
        return out
