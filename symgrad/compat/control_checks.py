"""TF's checks on what the functions of control flow return (``compat.control``).

``tf.cond``'s branches, ``tf.map_fn``'s and ``tf.scan``'s fn must return the structure
TF expects (``nest.assert_same_structure``: a ValueError for another nesting, a TypeError
for a list where a tuple is expected); Python numbers they return become float32/int32
tensors, as every TF1 constant does.  ``recorded`` keeps a while_loop body's first
result, whose structure the loop returns.

Sits in ``compat``; imports the tracing layer, ``compat.nest`` and ``compat.variables``
(``tf_dtype``: TF's dtypes of Python numbers).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     tf.cond(tf.placeholder(tf.bool, []), lambda: 1.0, lambda: 0.0).dtype.name
'float32'
"""
from __future__ import annotations

import numpy as np

from ..control.function import flatten
from ..graph import Node
from ..tracing import constant
from .nest import structure_mismatch
from .tensor_shape import TensorShape, as_shape
from .variables import tf_dtype


def tf_tensor(value):
    """TF1's conversion of a Python number: float32 for floats, int32 for ints."""
    if isinstance(value, (Node, np.ndarray, np.generic)) or value is None:
        return value
    return constant(value, dtype=tf_dtype(value, None))


def recorded(fn):
    """``fn``, keeping its first result in ``.made`` (the structure the loop returns)."""
    if not callable(fn):
        return fn   # (while_loop refuses it, naming the argument)

    def call(*args):
        out = fn(*args)
        if not call.made:
            call.made.append(out)
        return out
    call.made = []
    return call


def structured(fn, what, expected, named, numbers_typed=False):
    """``fn``, checking that it returns the structure of ``expected`` (TF's
    ``nest.assert_same_structure``: ValueError for another nesting, TypeError for a
    list where a tuple is expected or the reverse).  ``numbers_typed``: Python numbers
    fn returns take the dtype ``expected`` has there (map_fn writes them into arrays of
    its dtype, or of elems')."""
    if fn is None or not callable(fn):
        return fn

    def checked(*args):
        out = fn(*args)
        _same_structure(expected, out, lambda detail: (
            f"{what}'s fn returned {outline(out)}, but its {named} is {outline(expected)}: "
            f"{detail}. fn must return the structure of its {named}" + (
                " (pass dtype= giving fn's output structure)" if named == "elems" else "")))
        return _typed_like(out, expected) if numbers_typed else out
    return checked


def _typed_like(out, expected):
    """``out`` (of ``expected``'s structure) with each Python number a constant of the
    dtype of ``expected``'s leaf there (a dtype, or a tensor's or array's dtype)."""
    leaves, rebuild = flatten(out)
    kinds = flatten(expected)[0]
    return rebuild([constant(v, dtype=getattr(k, "dtype", k)) if _is_number(v) else v
                    for v, k in zip(leaves, kinds)])


def _is_number(v):
    return isinstance(v, (bool, int, float)) and not isinstance(v, Node)


def _same_structure(expected, out, explain):
    """TF's error (``nest.assert_same_structure``'s class and first line) when ``out``
    does not nest as ``expected``; ``explain(detail)`` says where and what to do."""
    problem = structure_mismatch(expected, out)
    if problem is not None:
        kind, detail = problem
        raise kind("The two structures don't have the same nested structure.\n\n" +
                   explain(detail))


def outline(structure):
    """``structure`` with each leaf shown as ``.`` (TF's outline of a structure)."""
    if isinstance(structure, dict):
        return "{" + ", ".join(f"{k!r}: {outline(v)}" for k, v in structure.items()) + "}"
    if isinstance(structure, (list, tuple)):
        inner = ", ".join(outline(v) for v in structure)
        return f"[{inner}]" if isinstance(structure, list) else \
            f"({inner},)" if len(structure) == 1 else f"({inner})"
    return "."


def tf_branches(true_fn, false_fn):
    """``cond``'s branches, returning TF1 tensors for Python numbers and checked against
    each other as TF checks them (the false branch against the latest true one)."""
    if not (callable(true_fn) and callable(false_fn)):
        return true_fn, false_fn    # (cond refuses them, naming the argument)
    latest = []

    def true_branch():
        out = tf_outputs(true_fn())
        latest[:] = [out]
        return out

    def false_branch():
        out = tf_outputs(false_fn())
        if latest:
            _same_structure(latest[0], out, lambda detail: (
                f"cond's true_fn returned {outline(latest[0])} and its false_fn "
                f"{outline(out)}: {detail}. Both branches must return one structure"))
        return out
    return true_branch, false_branch


def tf_outputs(out):
    """``out`` with its Python numbers as TF1 constants (float32, int32)."""
    if out is None or isinstance(out, Node):
        return out
    flat, rebuild = flatten(out)
    return rebuild([v if v is None or isinstance(v, Node) or not
                    isinstance(v, (int, float, np.number, np.bool_)) else tf_tensor(v)
                    for v in flat])


def check_shape_invariants(loop_vars, invariants):
    """TF's ValueError where ``tf.while_loop``'s ``shape_invariants`` do not nest as the
    loop vars do, or an invariant names a size its loop var does not enter with (an
    invariant may only forget sizes: ``[None, 2]`` for a ``(2, 2)`` var)."""
    if invariants is None:
        return
    for var, inv in _paired(loop_vars, invariants):
        if inv is None or not isinstance(var, Node) or var.shape is None:
            continue
        wanted = as_shape(inv)
        if wanted.ndims is None:
            continue
        sizes = [d if isinstance(d, int) else None for d in var.shape]
        fits = len(wanted) == len(sizes) and all(
            w is None or w == s for w, s in zip(wanted.as_list(), sizes))
        if not fits:
            raise ValueError(f"The shape invariant specified for {var.name} is not compatible "
                             "with the initial shape of the loop variable. It enters the loop "
                             f"with shape {TensorShape(var.shape)}, but the specified shape "
                             f"invariant is {wanted}.")


def _paired(loop_vars, invariants):
    """(loop var, its invariant) at each leaf of ``loop_vars`` (an invariant is a leaf
    where its loop var is: a TensorShape is a tuple, but not a structure here)."""
    if isinstance(loop_vars, dict) or isinstance(loop_vars, (list, tuple)) and \
            not isinstance(loop_vars, TensorShape):
        keys = sorted(loop_vars) if isinstance(loop_vars, dict) else range(len(loop_vars))
        if type(invariants) is TensorShape or not isinstance(invariants, (list, tuple, dict)) \
                or len(invariants) != len(loop_vars):
            raise ValueError("The two structures don't have the same nested structure: "
                             f"shape_invariants {invariants!r} against loop_vars "
                             f"{outline(loop_vars)}; give one shape per loop variable")
        return [pair for k in keys for pair in _paired(loop_vars[k], invariants[k])]
    return [(loop_vars, invariants)]
