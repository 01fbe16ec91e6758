"""Optimizer updates written into the arrays they replace, where nothing else holds them.

A training step's update makes new arrays at every operation of its formula (Adam:
a dozen of the variable's size) and then copied the result into the variable.  For
the 3136 x 1024 layer of TF's Deep MNIST network each of them is 13 MB, allocated
and page-faulted anew.  Here the arrays of a variable and its slots are changed in
place when only their holder references them (CPython's reference count: a value
fetched by the user, or read earlier in the run, is copied first and keeps what it
held), and a formula runs its operations in a scratch array.  The operations, their
order and their dtypes are those of the formula as written, so the results are bit
for bit the same.

Imports numpy only.

>>> class Holder:
...     def __init__(self, value):
...         self.value = value
>>> h = Holder(np.zeros(3))
>>> a = writable(h); a += 1.0
>>> h.value.tolist(), a is h.value
([1.0, 1.0, 1.0], True)
"""
from __future__ import annotations

import sys

import numpy as np


def sole_owner(holder):
    """Whether ``holder.value`` is a writable array that only ``holder`` references
    (CPython's count: the attribute, the local name and the call's argument), and if it
    is a view (a compat variable's ``CallableValue``), whether it is the whole of a base
    only it references.  A 50,000 x 128 table was copied at every sparse step, which
    cost most of a word2vec step."""
    value = holder.value
    if not isinstance(value, np.ndarray) or not value.flags.writeable or \
            sys.getrefcount(value) != 3:
        return False
    base = value.base
    if base is None:
        return value.flags.owndata
    return type(base) is np.ndarray and base.flags.owndata and base.flags.writeable and \
        base.shape == value.shape and base.flags.c_contiguous and \
        value.flags.c_contiguous and sys.getrefcount(base) == 3


def writable(holder):
    """``holder.value``, to change in place: the array itself when nothing else holds
    it (:func:`sole_owner`), else a copy put in its place (a value read earlier in the
    same run, or any other holder, keeps what it read)."""
    if not sole_owner(holder):
        holder.value = np.array(holder.value, copy=True)
    return holder.value


def fresh(value, dtype):
    """Whether ``value`` can become a variable's value as it is: a plain array of
    ``dtype`` owning its writable memory (an update's result), so no copy is made.  An
    array someone else also holds stays safe: in-place writes go through
    :func:`writable`, which copies an array held twice."""
    return type(value) is np.ndarray and value.dtype == dtype and value.flags.owndata and \
        value.flags.writeable


def plain(var, g, *slots):
    """Whether a dense update may run in place: the gradient, the variable and the
    slots' values are arrays of one dtype and shape, not 0-d (mixed precisions and
    broadcasts keep the formula as written, with numpy's promotions; scalars cost
    nothing to copy)."""
    arrays = (var, g) + tuple(s.value for s in slots)
    return all(isinstance(a, np.ndarray) for a in arrays) and g.ndim > 0 and \
        len({(a.dtype, a.shape) for a in arrays}) == 1


def adam(var, g, m_slot, v_slot, lr_t, beta1, beta2, epsilon):
    """ApplyAdam in place: m += (g - m)(1 - beta1); v += (g^2 - v)(1 - beta2); the new
    value var - lr_t * m / (sqrt(v) + epsilon), in a new array (the scalars are 0-d
    arrays of var's dtype, so every operation keeps that dtype)."""
    m, v = writable(m_slot), writable(v_slot)
    t = np.subtract(g, m, out=np.empty(g.shape, g.dtype))   # (plain: a slot is a subclass)
    t *= 1 - beta1
    m += t
    np.multiply(g, g, out=t)
    t -= v
    t *= 1 - beta2
    v += t
    np.multiply(lr_t, m, out=t)
    s = np.sqrt(v)
    s += epsilon
    t /= s
    return np.subtract(var, t, out=t)
