"""Results in the structure the outputs were given, built by the compiled entry itself.

The kernel entry (a generated module's ``jit``) computes a tuple of the non-None
outputs.  Called from Python, Numba *boxes* that tuple into Python objects; a
:class:`Structured` result is the same tuple in machine code (same data model),
but boxes straight into the caller's structure -- a bare value, nested lists and
tuples, ``None`` for unconnected gradients, dicts with string keys -- so that
``f(x)`` needs no Python code between the caller and the kernel.  Inside
``@njit`` code (``f.jit``) :func:`as_tuple` turns it back into the plain tuple.

Trees that hold Python objects (sparse results, dicts with other keys) are not
*boxable*: their entry returns the tuple and the evaluator rebuilds in Python.

Also :class:`InputShapeError`, which the entry raises for an array of the wrong shape.

Imports numba and ``errors``.
"""
from __future__ import annotations

from numba import types
from numba.core.extending import box, intrinsic, register_model

from ..errors import ShapeError
from .structure import boxable, flatten  # noqa: F401  (re-exported)


class Structured(types.Type):
    """A tuple of outputs that boxes into the structure ``tree``."""

    def __init__(self, tree, tuple_type):
        self.tree, self.tuple_type = tree, tuple_type
        super().__init__(name=f"Structured({tree!r}, {tuple_type})")

    @property
    def key(self):
        return self.tree, self.tuple_type


def _same_model(dmm, fe_type):
    return dmm.lookup(fe_type.tuple_type)


register_model(Structured)(_same_model)


@box(Structured)
def _box_structured(typ, val, c):
    members = iter(range(len(typ.tuple_type)))
    return _box_tree(typ.tree, typ.tuple_type, val, members, c)


def _box_tree(tree, tuple_type, val, members, c):
    kind = tree[0]
    if kind == "leaf":
        k = next(members)
        return c.box(tuple_type[k], c.builder.extract_value(val, k))
    if kind == "none":
        return c.pyapi.make_none()
    if kind == "dict":
        result = c.pyapi.dict_new(len(tree[1]))
        for key, sub in zip(tree[1], tree[2][1]):
            item = _box_tree(sub, tuple_type, val, members, c)
            c.pyapi.dict_setitem_string(result, key, item)
            c.pyapi.decref(item)
        return result
    items = [_box_tree(sub, tuple_type, val, members, c) for sub in tree[1]]
    if kind == "tuple":
        result = c.pyapi.tuple_new(len(items))
        for k, item in enumerate(items):
            c.pyapi.tuple_setitem(result, k, item)   # steals the reference
        return result
    result = c.pyapi.list_new(c.context.get_constant(types.intp, len(items)))
    for k, item in enumerate(items):
        c.pyapi.list_setitem(result, c.context.get_constant(types.intp, k), item)  # steals
    return result


def final_typing(tree, tuple_type):
    """``(signature, codegen)`` of a module's ``_final``: the outputs tuple as returned."""
    result = Structured(tree, tuple_type) if tree is not None else tuple_type

    def codegen(context, builder, signature, args):
        context.nrt.incref(builder, tuple_type, args[0])
        return args[0]
    return result(tuple_type), codegen


@intrinsic
def as_tuple(typingctx, value):
    """A Structured result as the plain tuple (anything else as it is), in @njit code."""
    result = value.tuple_type if isinstance(value, Structured) else value

    def codegen(context, builder, signature, args):
        context.nrt.incref(builder, result, args[0])
        return args[0]
    return result(value), codegen


class InputShapeError(ShapeError):
    """An input array of the wrong shape (raised by the compiled entry)."""

    def __init__(self, k, *details):
        if details:  # (name, wanted shape text, actual shape) from the machine code
            name, want, got = details
            k = (f"input {k} ({name!r}) must have shape {want}, got {tuple(got)}; "
                 "pass an array of that shape (None: any size)")
        super().__init__(k)   # one argument: the message (so that it pickles)
