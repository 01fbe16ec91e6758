"""Leaf ops: constants, variables and placeholders (no inputs, no rule).

Their values live on the node (``node.value``) or come from the feed at
evaluation; the evaluators and the closed forms treat them specially.

>>> from symgrad.ops.base import REGISTRY
>>> REGISTRY["placeholder"].kind
'leaf'
"""
from .base import Op, register


def _leaf_shape(in_shapes, **attrs):
    return tuple(attrs["shape"])


def _no_impl(*arrays, **attrs):
    raise RuntimeError("leaf values come from the node or the feed, not from an impl")


def _leaf(name, doc):
    return register(Op(name, kind="leaf", shape=_leaf_shape, impl=_no_impl,
                       grad=lambda node, g: [], doc=doc))


_leaf("const", "a constant value")
_leaf("variable", "a variable: a value that can be re-assigned")
_leaf("placeholder", "a value fed at evaluation time")
