"""TF1's ``tf.constant("Hello, TensorFlow!")``: a constant of text that a session fetches
as bytes, as TF does (``sess.run(hello)`` is ``b'Hello, TensorFlow!'``).

symgrad's tensors hold real numbers, so a text constant is not a graph tensor: it is an
operation whose fetch gives the bytes (a list gives a numpy array of bytes objects),
printed as TF prints the tensor.  Ops that compute on strings are not supported (see
``tf.strings``' message); the constant serves the hello-world programs that open most
TF1 tutorials and fetch or print it.

Sits in ``compat``; imports ``compat.state`` and ``compat.iterators`` (``tf.string``).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     hello = tf.constant("Hello, TensorFlow!")
...     print(hello)
...     print(tf.Session().run(hello))
Tensor("Const:0", shape=(), dtype=string)
b'Hello, TensorFlow!'
"""
from __future__ import annotations

import numpy as np

from ..tracing import get_default_graph
from .iterators import STRING
from .state import Operation
from .tensor_shape import TensorShape


def is_text(value):
    """True for a str or bytes, or a non-empty (nested) list or array of them."""
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "USO" and value.size > 0 and is_text(value.flat[0])
    if isinstance(value, (list, tuple)) and value:
        return is_text(value[0])
    return False


def _as_bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


class StringConstant(Operation):
    """A text constant: fetching it gives its bytes (module docstring)."""

    def __init__(self, value, name="Const"):
        graph = get_default_graph()
        array = np.asarray(value, dtype=object)
        self._value = _as_bytes(array.item()) if array.ndim == 0 else \
            np.vectorize(_as_bytes, otypes=[object])(array)
        super().__init__(graph.unique_name(name or "Const"), graph=graph,
                         result=lambda values: self._value, type="Const")
        self._shape = array.shape

    @property
    def dtype(self):
        return STRING

    @property
    def shape(self):
        return TensorShape(self._shape)

    def get_shape(self):
        return self.shape

    def as_graph_tensor(self):
        raise TypeError(f"{self.name!r} is a tf.string constant: a session fetches it, but "
                        "symgrad tensors hold real numbers, so no op computes on text; map "
                        "text to numbers in Python and feed those")

    def __str__(self):
        return f'Tensor("{self.name}:0", shape={self.shape}, dtype=string)'

    def __repr__(self):
        return f"<tf.Tensor '{self.name}:0' shape={self.shape} dtype=string>"


def string_constant(value, dtype=None, shape=None, name="Const"):
    """``tf.constant`` of text (``dtype`` None or ``tf.string``; ``shape`` as the
    value's)."""
    if dtype is not None and dtype is not STRING and dtype != "string":
        raise TypeError(f"tf.constant: the text {value!r} cannot be made a "
                        f"{np.dtype(dtype).name} tensor; symgrad tensors hold real numbers "
                        "(only tf.string constants hold text)")
    if shape is not None and tuple(shape) != np.asarray(value, dtype=object).shape:
        raise ValueError(f"tf.constant: a text constant keeps its value's shape "
                         f"{np.asarray(value, dtype=object).shape}, got shape={list(shape)}")
    return StringConstant(value, name)
