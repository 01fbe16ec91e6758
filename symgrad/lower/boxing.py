"""Results in the structure the outputs were given, built by the compiled entry itself.

The kernel entry (a generated module's ``jit``) computes a tuple of the non-None
outputs.  Called from Python, Numba *boxes* that tuple into Python objects; a
:class:`Structured` result is the same tuple in machine code (same data model),
but boxes straight into the caller's structure -- a bare value, nested lists and
tuples, ``None`` for unconnected gradients, dicts with string keys -- so that
``f(x)`` needs no Python code between the caller and the kernel.  Inside
``@njit`` code (``f.jit``) :func:`as_tuple` turns it back into the plain tuple.

A sparse result (``("csr", shape, digest)``) boxes into a ``scipy.sparse.csr_matrix``:
its values, and copies of the layout's index arrays (numpy copies of private
templates, constants of the function, made per result) handed to ``values.csr_result``.  Trees with dicts of
other keys are not *boxable*: their entry returns the tuple and the evaluator
rebuilds in Python.

Also :class:`InputShapeError`, which the entry raises for an array of the wrong shape.

Imports numba, ``errors`` and ``values`` (the sparse result's factory).
"""
from __future__ import annotations

import functools

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.extending import box, intrinsic, register_model

from ..errors import ShapeError
from .structure import boxable, flatten  # noqa: F401  (re-exported)


class Structured(types.Type):
    """A tuple of outputs that boxes into the structure ``tree``; ``tables`` holds the
    index arrays of its sparse results (named by digest, which is in ``tree``)."""

    def __init__(self, tree, tuple_type, tables=None):
        self.tree, self.tuple_type, self.tables = tree, tuple_type, tables or {}
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
    out = _box_tree(typ.tree, typ, val, members, c)
    if not typ.tables:
        return out
    result = cgutils.alloca_once_value(c.builder, out)   # NULL if a sparse result failed
    with c.builder.if_then(cgutils.is_not_null(c.builder, c.pyapi.err_occurred()),
                           likely=False):
        c.pyapi.decref(out)
        c.builder.store(c.pyapi.get_null_object(), result)
    return c.builder.load(result)


def _box_tree(tree, typ, val, members, c):
    kind, tuple_type = tree[0], typ.tuple_type
    if kind == "leaf":
        k = next(members)
        return c.box(tuple_type[k], c.builder.extract_value(val, k))
    if kind == "csr":
        k = next(members)
        data = c.box(tuple_type[k], c.builder.extract_value(val, k))
        return _box_csr(tree, typ.tables[tree[2]], data, c)
    if kind == "none":
        return c.pyapi.make_none()
    if kind == "dict":
        result = c.pyapi.dict_new(len(tree[1]))
        for key, sub in zip(tree[1], tree[2][1]):
            item = _box_tree(sub, typ, val, members, c)
            c.pyapi.dict_setitem_string(result, key, item)
            c.pyapi.decref(item)
        return result
    items = [_box_tree(sub, typ, val, members, c) for sub in tree[1]]
    if kind == "tuple":
        result = c.pyapi.tuple_new(len(items))
        for k, item in enumerate(items):
            c.pyapi.tuple_setitem(result, k, item)   # steals the reference
        return result
    result = c.pyapi.list_new(c.context.get_constant(types.intp, len(items)))
    for k, item in enumerate(items):
        c.pyapi.list_setitem(result, c.context.get_constant(types.intp, k), item)  # steals
    return result


def _box_csr(tree, arrays, data, c):
    """The layout's ``values.CsrMaker`` result for ``data`` (a new reference; steals
    ``data``), the index arrays fresh copies of ``arrays`` (:func:`_fresh_copy`).  Once the
    maker has checked a first result (``maker.fast``), the matrix is made here: an
    empty object of the class and a copy of the checked state plus the three arrays
    as its ``__dict__``; no Python code runs."""
    from ..values import csr_maker
    pyapi, builder = c.pyapi, c.builder
    boxed = [data] + [_fresh_copy(arrays[j], c) for j in (1, 0)]  # data, indices, indptr
    const = c.env_manager.add_const   # (constants of the function: borrowed references)
    maker = c.env_manager.read_const(const(csr_maker(tree[1], tree[2])))
    fast = pyapi.object_getattr(maker, c.env_manager.read_const(const("fast")))
    out = cgutils.alloca_once_value(builder, pyapi.get_null_object())
    made = functools.reduce(builder.and_, [cgutils.is_not_null(builder, a) for a in boxed])
    with builder.if_then(made, likely=True):   # (else NULL: no memory, the error is set)
        with builder.if_else(builder.icmp_unsigned("==", fast, pyapi.borrow_none())) as (
                slow, quick):
            with slow:
                builder.store(pyapi.call_function_objargs(maker, boxed), out)
            with quick:
                with builder.if_then(cgutils.is_not_null(builder, fast)):
                    builder.store(_assemble(fast, boxed, c), out)
    for obj in [fast] + boxed:
        pyapi.decref(obj)
    return builder.load(out)


def _assemble(fast, arrays, c):
    """A new ``cls`` object with ``__dict__`` a copy of ``state`` plus data, indices and
    indptr (``fast`` is ``(cls, state)``); NULL with the error set if anything fails.
    The object is made by ``PyType_GenericNew`` (``cls``'s allocator: what
    ``object.__new__(cls)`` does for a class that is not abstract, without a call
    through Python's argument handling)."""
    pyapi, builder = c.pyapi, c.builder
    cls, state = pyapi.tuple_getitem(fast, 0), pyapi.tuple_getitem(fast, 1)
    generic_new = pyapi._get_function(
        ir.FunctionType(pyapi.pyobj, [pyapi.pyobj] * 3), name="PyType_GenericNew")
    obj = builder.call(generic_new, [cls, pyapi.get_null_object(), pyapi.get_null_object()])
    copy = pyapi._get_function(ir.FunctionType(pyapi.pyobj, [pyapi.pyobj]), name="PyDict_Copy")
    fields = builder.call(copy, [state])
    out = cgutils.alloca_once_value(builder, pyapi.get_null_object())
    both = builder.and_(cgutils.is_not_null(builder, obj), cgutils.is_not_null(builder, fields))
    with builder.if_then(both, likely=True):
        for name, value in zip(("data", "indices", "indptr"), arrays):
            pyapi.dict_setitem(fields, c.env_manager.read_const(c.env_manager.add_const(name)),
                               value)
        key = c.env_manager.read_const(c.env_manager.add_const("__dict__"))
        failed = builder.icmp_signed("!=", pyapi.object_setattr(obj, key, fields),
                                     ir.Constant(ir.IntType(32), 0))
        builder.store(builder.select(failed, pyapi.get_null_object(), obj), out)
    with builder.if_then(cgutils.is_null(builder, builder.load(out))):
        pyapi.decref(obj)   # (NULL-safe)
    pyapi.decref(fields)
    return builder.load(out)


def _fresh_copy(array, c):
    """A new numpy array equal to ``array`` (1-d): ``copy()`` of a private template,
    a constant of the function that nothing else reaches.  numpy's own array is
    cheaper to make and to free than one over Numba's memory (its MemInfo object,
    argument tuple and base): ~0.1 us less per index array.  NULL with the error set
    if it fails."""
    pyapi = c.pyapi
    copy = c.env_manager.read_const(c.env_manager.add_const(np.array(array).copy))
    call = pyapi._get_function(ir.FunctionType(pyapi.pyobj, [pyapi.pyobj]),
                               name="PyObject_CallNoArgs")
    return c.builder.call(call, [copy])


def final_typing(tree, tuple_type, tables=None):
    """``(signature, codegen)`` of a module's ``_final``: the outputs tuple as returned."""
    result = Structured(tree, tuple_type, tables) if tree is not None else tuple_type

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
