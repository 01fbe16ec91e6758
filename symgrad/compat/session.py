"""TF1's ``Session``, operations (initializers, train steps) and fetch handling.

``Session.run(fetches, feed_dict)`` accepts tensors, operations and nested
lists/tuples/dicts of them, like TF1, and returns numpy values in the same
structure (operations give ``None``).  Fetching ``None`` (an unconnected
gradient) raises TF's TypeError, followed by the explanation of why that
gradient is ``None``.

Lists, tuples and dicts that ``run`` returns print their numpy scalars as
TF1-era numpy did (``[3.0, 1.0]``; numpy 2 would show ``[np.float32(3.0), ...]``);
they are ordinary ``list``/``tuple``/``dict`` subclasses otherwise.

Sits on top of the pipeline with ``teach``; nothing below imports it.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(2.0, name="a")
...     with Session() as sess:
...         print(sess.run([a, a * a]))
[2.0, 4.0]
"""
from __future__ import annotations

import weakref

import numpy as np

from ..errors import FeedError
from ..evaluate import evaluate
from ..graph import Node
from ..tracing import get_default_graph


class Operation:
    """A graph operation without an output value: ``run`` does something, fetches give None.

    Args:
        name: the op's name.
        action: ``action(feed_dict)`` run by ``Session.run``.
    """

    def __init__(self, name, action):
        self.name = name
        self._action = action

    def run(self, feed_dict=None, session=None):
        self._action(feed_dict or {})

    def __repr__(self):
        return f"<tf.Operation {self.name!r}>"


class GradientList(list):
    """What ``tf.gradients`` returns: a plain list, which also knows why entries are None."""

    def __init__(self, values, why):
        super().__init__(values)
        self.why = why          # why(i) -> prose for entry i, computed on demand


# graph -> (GradientList, index) of the latest None result, for the error message only
_RECENT_NONE = weakref.WeakKeyDictionary()


def remember_none(graph, grads):
    """Record the latest gradient call's None entries, for bare ``sess.run(g[i])``."""
    for i, g in enumerate(grads):
        if g is None:
            _RECENT_NONE[graph] = (grads, i)
            return


class _Printed:
    """Mixin: repr numpy scalars as TF1-era numpy did."""

    def __repr__(self):
        return _tf1_repr(self)


class FetchList(_Printed, list):
    pass


class FetchTuple(_Printed, tuple):
    pass


class FetchDict(_Printed, dict):
    pass


def _tf1_repr(value):
    if isinstance(value, np.generic):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_tf1_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_tf1_repr(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(_tf1_repr(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return repr(value)


def _tf1_structure(value):
    if isinstance(value, dict):
        return FetchDict({k: _tf1_structure(v) for k, v in value.items()})
    if isinstance(value, list):
        return FetchList(_tf1_structure(v) for v in value)
    if isinstance(value, tuple) and type(value) is tuple:
        return FetchTuple(_tf1_structure(v) for v in value)
    return value


def none_fetch_error(context):
    """TF's TypeError for a None fetch, plus why the gradient is None when known."""
    message = "Fetch argument None has invalid type <class 'NoneType'>"
    if context is not None:
        grads, i = context
        message += ("\n\nWhy it is None: tf.gradients returned None for xs[%d].  %s" %
                    (i, grads.why(i)))
    else:
        message += ("\n\nA None fetch is usually an unconnected gradient: tf.gradients gives "
                    "None for an x that no y depends on (or every path is stopped); pass "
                    "unconnected_gradients='zero' for zeros, or see sg.explain(ys, xs).")
    return TypeError(message)


def _invalid_fetch(fetch):
    return TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a "
                     "string or Tensor. (Can not convert a "
                     f"{type(fetch).__name__} into a Tensor or Operation.)")


class Session:
    """TF1's ``tf.Session``: a context manager that runs fetches with a feed_dict.

    Variables hold their values on the graph, so sessions share them; running an
    initializer resets variables to their initial values.
    """

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph or get_default_graph()
        self._closed = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._closed = True

    def as_default(self):
        return self

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Evaluate ``fetches`` (tensors, operations, nested lists/tuples/dicts).

        Raises:
            TypeError: a None fetch (TF's message, plus why that gradient is None).
            FeedError: an unfed placeholder, or a value of the wrong shape.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_dict = dict(feed_dict or {})
        _check_unknown_shape_feeds(feed_dict)
        ops, tensors = [], []
        _collect(fetches, ops, tensors, None, self.graph)
        for op in ops:
            op.run(feed_dict, self)
        values = evaluate(tensors, feed_dict) if tensors else []
        found = dict(zip(map(id, tensors), values))
        return _tf1_structure(_rebuild(fetches, found))


def _collect(fetch, ops, tensors, parent, graph):
    if fetch is None:
        context = None
        if isinstance(parent, GradientList):
            context = (parent, next(i for i, g in enumerate(parent) if g is None))
        raise none_fetch_error(context or _RECENT_NONE.get(graph))
    if isinstance(fetch, Operation):
        ops.append(fetch)
    elif isinstance(fetch, Node):
        tensors.append(fetch)
    elif isinstance(fetch, dict):
        for v in fetch.values():
            _collect(v, ops, tensors, fetch, graph)
    elif isinstance(fetch, (list, tuple)):
        for v in fetch:
            _collect(v, ops, tensors, fetch, graph)
    else:
        raise _invalid_fetch(fetch)


def _rebuild(fetch, found):
    if isinstance(fetch, Operation):
        return None
    if isinstance(fetch, Node):
        return found[id(fetch)]
    if isinstance(fetch, dict):
        return {k: _rebuild(v, found) for k, v in fetch.items()}
    items = [_rebuild(v, found) for v in fetch]
    return items if isinstance(fetch, list) else tuple(items)


def _check_unknown_shape_feeds(feed_dict):
    for key, value in feed_dict.items():
        shape = np.shape(value)
        if getattr(key, "tf_shape_none", False) and shape != ():
            raise FeedError(
                f"placeholder {key.name!r} was declared with shape=None, which symgrad takes "
                f"as a scalar (it compiles static shapes), but it was fed a value of shape "
                f"{shape}; declare the shape: tf.placeholder(tf.float32, shape={shape})")
