"""Variable updates made inside a ``tf.cond`` branch: TF1's batch norm by hand
(Udacity's batch-normalization lesson) assigns the population statistics in the
training branch, under ``tf.control_dependencies``, and returns the normalised layer.

symgrad traces a branch as a function of its inputs, so an assign made in it would
never run.  Such a branch is traced again returning, besides its outputs, the new value
of every variable either branch assigns (the other branch gives the variable's value,
unchanged); outside the cond each variable is assigned that value, and the cond's
outputs wait for those assigns -- TF's order: the branch's updates run before its
outputs are read, and only when the cond is run.  ``tf.assign``, ``assign_add`` and
``assign_sub`` (and groups of them) are lifted; another operation that changes state
in a branch, or a branch whose outputs read a variable it updates (TF reads it after the
update), is still refused (``compat.control``).

Imports the graph, the tracing functions and the compat variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     v = tf.Variable(0.0)
...     p = tf.placeholder(tf.bool, [])
...     def bump():
...         with tf.control_dependencies([tf.assign_add(v, 1.0)]):
...             return tf.constant(1.0)
...     out = tf.cond(p, bump, lambda: tf.constant(0.0))
...     with tf.Session() as sess:
...         sess.run(tf.global_variables_initializer())
...         print([float(sess.run(out, {p: k})) for k in (True, False, True)], sess.run(v))
[1.0, 0.0, 1.0] 2.0
"""
from __future__ import annotations

from .. import tracing as _t
from ..graph import ancestors
from ..ops.deferred import tensors_in
from ..tracing import functions as _f
from ..tracing import get_default_graph
from .variables import Variable, assign, control_dependencies

# how each lifted update makes the variable's new value from its value and the operand
_COMBINE = {"Assign": lambda value, delta: delta,
            "AssignAdd": lambda value, delta: value + delta,
            "AssignSub": lambda value, delta: value - delta}


def liftable(op):
    """Whether ``op`` is an update this module lifts out of a branch."""
    return (op.type in _COMBINE and isinstance(op.value, Variable) and len(op.inputs) == 1
            and op.effect is not None)


def reads_updated(out, made):
    """Whether the branch's outputs ``out`` read a variable it updates: TF reads it after
    the update where the read waits for it, which lifting cannot give (still refused)."""
    branch = get_default_graph()
    outer_of = {arg: outer for outer, arg in getattr(branch, "captures", {}).items()}
    read = {outer_of[n] for n in ancestors(tensors_in(out)) if n in outer_of}
    return any(op.value in read for op in made)


class Recorder:
    """The updates a branch made while traced, in order (filled by ``compat.control``)."""

    def __init__(self):
        self.ops = []

    def variables(self):
        return list(dict.fromkeys(op.value for op in self.ops))


def with_new_values(traced, variables):
    """A branch returning ``(outputs, [new value of each variable])``: ``traced`` is the
    branch wrapped to record its updates (``Recorder``) and returns ``(out, recorder)``."""
    def branch(*args, **kwargs):
        out, recorder = traced(*args, **kwargs)
        news = []
        for v in variables:
            value = _t.identity(v)
            for op in recorder.ops:
                if op.value is v:
                    value = _COMBINE[op.type](value, op.inputs[0])
            news.append(value if value.shape == v.shape else _f.broadcast_to(value, v.shape))
        return out, news
    return branch


def assign_then(outputs, variables, news):
    """Assign each variable its new value; ``outputs`` (nested) made to wait for that."""
    updates = [assign(v, new) for v, new in zip(variables, news)]
    with control_dependencies(updates):
        return _waiting(outputs)


def _waiting(value):
    if isinstance(value, dict):
        return type(value)((k, _waiting(v)) for k, v in value.items())
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_waiting(v) for v in value)
    if isinstance(value, tuple):   # (a namedtuple)
        return type(value)(*(_waiting(v) for v in value))
    return _t.identity(value) if isinstance(value, _t.Tensor) else value
