"""Which output structures the machine code builds itself (see ``lower.boxing``).

A structure is the tree of ``compiler.flatten_outputs``: ``("leaf",)``,
``("none",)``, ``("list"|"tuple", subtrees)``, ``("dict", keys, list tree)`` or
``("wrap", layout)``.  In a generated module (``machine_tree``) a sparse result is
``("csr", shape, digest)``: its values, boxed into a ``scipy.sparse.csr_matrix``
with copies of the index arrays ``TABLES[digest]`` (``digest``: the layout's
``SparseLayout.digest``).  Imports base64.

>>> boxable(("list", (("leaf",), ("none",)))), boxable(("dict", (1,), ("list", (("leaf",),))))
(True, False)
>>> flatten(("list", (("leaf",), ("none",), ("tuple", (("leaf",),)))), [1.0, None, (2.0,)])
(1.0, 2.0)
"""
from __future__ import annotations

import base64


def boxable(tree):
    """Whether the machine code can build ``tree`` (see ``compiler.flatten_outputs``)."""
    kind = tree[0]
    if kind in ("leaf", "none", "csr"):
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
    if kind == "csr":
        return (value.data,)
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


def machine_tree(tree):
    """``(tree, tables)``: ``tree`` with each sparse layout as ``("csr", shape, digest)``
    and ``tables`` ``{digest: (indptr, indices)}`` (the layouts' index arrays)."""
    tables = {}

    def convert(t):
        kind = t[0]
        if kind == "wrap":
            lay = t[1]
            tables[lay.digest] = (lay.indptr, lay.indices)
            return ("csr", tuple(int(d) for d in lay.shape), lay.digest)
        if kind == "dict":
            return ("dict", t[1], convert(t[2]))
        if kind in ("list", "tuple"):
            return (kind, tuple(convert(s) for s in t[1]))
        return t
    return convert(tree), tables


def encode_tables(tables):
    """``tables`` as a literal for a module's text (see ``decode_tables``)."""
    return {k: tuple((a.dtype.str, base64.b64encode(a.tobytes()).decode("ascii"))
                     for a in arrays) for k, arrays in tables.items()}


def decode_tables(literal, frombuffer):
    """The inverse of ``encode_tables`` (``frombuffer``: ``numpy.frombuffer``)."""
    return {k: tuple(frombuffer(base64.b64decode(text), dtype=dtype) for dtype, text in pair)
            for k, pair in literal.items()}
