"""TF1 names: ``"op_name:0"`` strings for tensors, plain names for operations.

``find(graph, "layer1/W:0")`` gives the tensor, ``find(graph, "train")`` the
operation (or the tensor of that op name); a missing name raises TF's KeyError.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default() as g:
...     w = tf.constant(1.0, name="w")
...     find(g, "w:0") is w, g.get_tensor_by_name("w:0") is w
(True, True)
"""
from __future__ import annotations

from .state import state_of


def split_name(name):
    """``"a/b:0"`` -> (``"a/b"``, 0); a name without ``:N`` is an operation name."""
    base, colon, index = name.rpartition(":")
    if not colon or not index.isdigit():
        return name, None
    return base, int(index)


def find(graph, name):
    """The tensor (``"x:0"``) or operation (``"train"``) named ``name`` in ``graph``."""
    base, index = split_name(name)
    operation = state_of(graph).operations.get(base)
    if index is None and operation is not None:
        return operation
    if index not in (None, 0):
        raise ValueError(f"The name {name!r} refers to a Tensor which does not exist: symgrad's "
                         f"operations have one output, {base}:0")
    if index == 0 and operation is not None and operation.value is None:
        raise ValueError(f"The name {name!r} refers to a Tensor which does not exist. The "
                         f"operation {base!r} has no outputs: fetch it as {base!r}")
    return graph.get_tensor_by_name(name)


def fetch_by_name(graph, name):
    """``sess.run("x:0")``: TF's ValueError when nothing has that name."""
    try:
        return find(graph, name)
    except (KeyError, ValueError) as exc:
        raise ValueError(f"Fetch argument {name!r} cannot be interpreted as a Tensor. "
                         f"({exc.args[0]})") from None


def feed_by_name(graph, name):
    """A feed_dict key given as a name: TF's TypeError when nothing has that name."""
    try:
        return find(graph, name)
    except (KeyError, ValueError) as exc:
        raise TypeError(f"Cannot interpret feed_dict key as Tensor: {exc.args[0]}") from None
