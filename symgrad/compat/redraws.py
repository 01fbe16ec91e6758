"""Random initial values drawn anew each time an initializer runs again in a session.

TF runs a variable's initializer ops at every ``sess.run(init)``, so a random initial
value (``tf.Variable(tf.truncated_normal(...))``, ``get_variable`` and ``tf.layers``
with a random initializer, ``tf.Variable(tf.random_normal(...))``) is a new draw each
time: Hvass-Labs' ensemble re-runs ``tf.global_variables_initializer()`` in one session
to start each network afresh.  A variable keeps its first draw (``v.initial``, what a
session's first initialisation sets); its ``redraw(k)``, made here, gives the values of
the k-th initialisation after it in the same session: TF's own numbers where an op
seed fixes them (the op's counter moved on ``k`` executions), else numbers of the same
distribution from symgrad's generators.  A random value combined with other ops before
it becomes the initial value (``tf.truncated_normal(...) * 0.1``) is redrawn when it
is built on ``tf.random_normal``/``random_uniform``; a truncated normal so combined
keeps its first draw.

Sits in ``compat``; imports ``evaluate``, ``graph`` and ``ops.draws``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     w = tf.Variable(tf.random_normal([2], seed=1))
...     init = tf.global_variables_initializer()
...     with tf.Session() as sess:
...         first = sess.run(init) or sess.run(w)
...         again = sess.run(init) or sess.run(w)
...     bool((first != again).all())
True
"""
from __future__ import annotations

import weakref

import numpy as np

from ..evaluate import evaluate
from ..graph import Node, ancestors
from ..ops.draws import Executions, run_number

# session -> {variable: how many times an initializer has set it in that session}
_RUNS = weakref.WeakKeyDictionary()


def redraw_of(initial_value):
    """``redraw(k)`` for a variable made from ``initial_value``, or None when its value
    is not random (then every initialisation sets the same value)."""
    if not isinstance(initial_value, Node) or initial_value.opdef.name == "variable":
        return None
    again = getattr(initial_value, "drawn_again", None)
    if again is not None:   # (a constant an initializer drew: initializers.drawn_again)
        return again
    if any(getattr(n.opdef, "fresh", None) is not None for n in ancestors([initial_value])):
        return lambda k: _evaluated_at(initial_value, k)
    return None


class _After(Executions):
    """A session's record as it stands after ``k`` executions of every draw."""

    def __init__(self, k):
        super().__init__()
        self.k = k

    def start(self, key, run, amount, steps=()):
        return self.k * amount


def _evaluated_at(node, k):
    """``node``'s value with its draws at their k-th execution."""
    with run_number(k, _After(k)):
        return np.array(evaluate(node))


def start_value(v, session, first):
    """What an initializer sets ``v`` to in ``session``: ``first`` at its first
    initialisation there, then ``v.redraw(k)`` at the k-th after it."""
    runs = _RUNS.setdefault(session, {})
    k = runs.get(v, 0)
    runs[v] = k + 1
    redraw = getattr(v, "redraw", None)
    return first if k == 0 or redraw is None else redraw(k)

