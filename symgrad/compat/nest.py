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


# -- tf.nest: TF's names over the walkers above ---------------------------------------

def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``tf.nest.pack_sequence_as``: ``structure`` holding ``flat_sequence``'s items."""
    return pack(structure, list(flat_sequence))


def map_structures(func, *structures, **kwargs):
    """``tf.nest.map_structure``: ``func`` of the leaves at each place of ``structures``
    (which must nest alike), in the first one's structure."""
    unknown = set(kwargs) - {"check_types", "expand_composites"}
    if unknown:
        raise ValueError(f"tf.nest.map_structure: unexpected arguments {sorted(unknown)}")
    if not structures:
        raise ValueError("tf.nest.map_structure: give at least one structure")
    for other in structures[1:]:
        assert_same_structure(structures[0], other)
    columns = zip(*(flatten(s) for s in structures))
    return pack(structures[0], [func(*leaves) for leaves in columns])


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """``tf.nest.assert_same_structure``: ValueError unless both nest alike; with
    ``check_types`` a TypeError where one holds a list and the other a tuple (TF's)."""
    problem = structure_mismatch(nest1, nest2, check_types)
    if problem is not None:
        kind, detail = problem
        raise kind("The two structures don't have the same nested structure.\n\n"
                   f"First structure: {nest1!r}\n\nSecond structure: {nest2!r}\n\n"
                   f"More specifically: {detail}")


def structure_mismatch(a, b, check_types=True):
    """The first place, depth first, where ``a`` and ``b`` nest differently, as
    (exception class, what differs), or None: TF's order -- one a sequence and the
    other not, or lengths or dict keys that differ, are ValueErrors; with
    ``check_types``, a list against a tuple (or namedtuples of other names or fields)
    is a TypeError.

    >>> structure_mismatch((1, 2), [3, 4])[0].__name__
    'TypeError'
    >>> structure_mismatch((1, 2), (3, (4, 5)))[0].__name__
    'ValueError'
    """
    seq_a, seq_b = is_nested(a), is_nested(b)
    if seq_a != seq_b:
        return ValueError, (f"Substructure {a!r} is a sequence, while substructure "
                            f"{b!r} is not" if seq_a else f"Substructure {b!r} is a "
                            f"sequence, while substructure {a!r} is not")
    if not seq_a:
        return None
    if check_types and _sequence_type(a) != _sequence_type(b):
        return TypeError, (f"{a!r} has type {type(a).__name__}, while {b!r} has type "
                           f"{type(b).__name__}")
    if isinstance(a, dict) != isinstance(b, dict) or len(a) != len(b) or (
            isinstance(a, dict) and sorted(a) != sorted(b)):
        return ValueError, f"{a!r} and {b!r} have different lengths or keys"
    pairs = [(a[k], b[k]) for k in sorted(a)] if isinstance(a, dict) else zip(a, b)
    for x, y in pairs:
        problem = structure_mismatch(x, y, check_types)
        if problem is not None:
            return problem
    return None


def _sequence_type(seq):
    """What TF's type check compares: dict, list, tuple, or a namedtuple's name and
    fields (two namedtuple classes alike in both count as one type)."""
    if isinstance(seq, dict):
        return dict
    if hasattr(seq, "_fields"):
        return (type(seq).__name__, tuple(seq._fields))
    return list if isinstance(seq, list) else tuple


def is_nested(seq):
    """``tf.nest.is_nested``: True for a list, tuple (namedtuple) or dict."""
    return isinstance(seq, (list, tuple, dict))
