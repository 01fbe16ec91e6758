"""Which output structures the machine code builds itself (see ``lower.boxing``).

A structure is the tree of ``compiler.flatten_outputs``: ``("leaf",)``,
``("none",)``, ``("list"|"tuple", subtrees)``, ``("dict", keys, list tree)`` or
``("wrap", layout)``.  Imports nothing.

>>> boxable(("list", (("leaf",), ("none",)))), boxable(("dict", (1,), ("list", (("leaf",),))))
(True, False)
>>> flatten(("list", (("leaf",), ("none",), ("tuple", (("leaf",),)))), [1.0, None, (2.0,)])
(1.0, 2.0)
"""
from __future__ import annotations


def boxable(tree):
    """Whether the machine code can build ``tree`` (see ``compiler.flatten_outputs``)."""
    kind = tree[0]
    if kind in ("leaf", "none"):
        return True
    if kind == "dict":
        return all(isinstance(k, str) for k in tree[1]) and boxable(tree[2])
    if kind in ("list", "tuple"):
        return all(boxable(t) for t in tree[1])
    return False


def native(tree):
    """Whether ``tree`` is a flat tuple of outputs: the kernel's own tuple, as it is."""
    return tree[0] == "tuple" and all(t == ("leaf",) for t in tree[1])


def flatten(tree, value):
    """The non-None leaves of ``value`` (built in the structure ``tree``), as a tuple."""
    kind = tree[0]
    if kind == "leaf":
        return (value,)
    if kind == "none":
        return ()
    if kind == "dict":
        return flatten(tree[2], list(value.values()))
    return tuple(x for t, v in zip(tree[1], value) for x in flatten(t, v))


def flattener(tree):
    """A fast ``lambda value: flatten(tree, value)`` for the common structures."""
    if tree == ("leaf",):
        return lambda value: (value,)
    if tree[0] in ("list", "tuple") and all(t == ("leaf",) for t in tree[1]):
        return tuple
    return lambda value: flatten(tree, value)
