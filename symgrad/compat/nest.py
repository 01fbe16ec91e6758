"""Nested structures of tensors or values, as TF's ``nest`` walks them: tuples
(namedtuples too), lists and dicts (by sorted key) hold leaves; anything else is a
leaf.

Sits in ``compat``; imports nothing of symgrad.

>>> flatten(({"b": 2, "a": 1}, 3))
[1, 2, 3]
>>> pack(({"b": None, "a": None}, None), [1, 2, 3])
({'b': 2, 'a': 1}, 3)
"""
from __future__ import annotations


def flatten(structure):
    """The leaves of ``structure``, depth first (dicts in sorted key order)."""
    if isinstance(structure, dict):
        return [leaf for key in sorted(structure) for leaf in flatten(structure[key])]
    if isinstance(structure, (tuple, list)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    it = iter(leaves)
    out = _pack(structure, it)
    if next(it, _END) is not _END:
        raise ValueError("nest.pack: more values than the structure has leaves")
    return out


_END = object()


def _pack(structure, it):
    if isinstance(structure, dict):
        found = {key: _pack(structure[key], it) for key in sorted(structure)}
        return {key: found[key] for key in structure}   # (the structure's own order)
    if isinstance(structure, (tuple, list)):
        items = [_pack(item, it) for item in structure]
        if hasattr(structure, "_fields"):     # a namedtuple
            return type(structure)(*items)
        return type(structure)(items) if isinstance(structure, tuple) else items
    try:
        return next(it)
    except StopIteration:
        raise ValueError("nest.pack: fewer values than the structure has leaves") from None


def flatten_up_to(shallow, deep):
    """The parts of ``deep`` at the leaves of ``shallow`` (a generator's ``(3, [1, 2])``
    against the types ``(int64, int64)``: ``[3, [1, 2]]``)."""
    if isinstance(shallow, dict):
        return [leaf for key in sorted(shallow) for leaf in flatten_up_to(shallow[key],
                                                                           deep[key])]
    if isinstance(shallow, (tuple, list)):
        if not isinstance(deep, (tuple, list)) or len(deep) != len(shallow):
            raise ValueError(f"{deep!r} does not have the structure of {shallow!r}")
        return [leaf for a, b in zip(shallow, deep) for leaf in flatten_up_to(a, b)]
    return [deep]


def map_structure(fn, structure):
    """``structure`` with ``fn`` applied to each leaf."""
    return pack(structure, [fn(leaf) for leaf in flatten(structure)])


def same_structure(a, b):
    """True when ``a`` and ``b`` nest the same way (leaves may differ)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (isinstance(a, (tuple, list)) and isinstance(b, (tuple, list))
                and len(a) == len(b) and all(map(same_structure, a, b)))
    return True
