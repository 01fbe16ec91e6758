"""``tf.keras.constraints``: ``NonNeg``, ``MaxNorm``, ``UnitNorm``, ``MinMaxNorm`` (and
their snake-case names), functions of a weight that give the weight projected.

A weight made with one (``Dense(..., kernel_constraint=...)``, like
``tf.Variable(..., constraint=...)``) is set to ``constraint(weight)`` by the
``tf.train`` optimizers after each step, as TF1's optimizers do (``compat.train``).

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras_backend.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(NonNeg()(tf.constant([-1.0, 2.0])).numpy().tolist())   # (-0.0, as TF)
[-0.0, 2.0]
"""
from __future__ import annotations

from .. import tracing as _t
from .keras_backend import epsilon


def _norms(w, axis):
    return _t.sqrt(_t.reduce_sum(_t.square(w), axis=axis, keepdims=True))


class NonNeg:
    """``w`` with its negative entries set to 0."""

    def __call__(self, w):
        return w * _t.cast(w >= 0.0, w.dtype)


class MaxNorm:
    """``w`` rescaled where the norm along ``axis`` exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        return w * (_t.clip_by_value(norms, 0.0, self.max_value) / (epsilon() + norms))


class UnitNorm:
    """``w`` divided by its norm along ``axis``."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (epsilon() + _norms(w, self.axis))


class MinMaxNorm:
    """Norms along ``axis`` moved (by ``rate``) into [min_value, max_value]."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = self.rate * _t.clip_by_value(norms, self.min_value, self.max_value) + \
            (1 - self.rate) * norms
        return w * (desired / (epsilon() + norms))


CONSTRAINTS = {"NonNeg": NonNeg, "MaxNorm": MaxNorm, "UnitNorm": UnitNorm,
               "MinMaxNorm": MinMaxNorm, "non_neg": NonNeg, "max_norm": MaxNorm,
               "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}


def get_constraint(identifier):
    """``tf.keras.constraints.get``: a constraint from a name, a callable or None."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    if identifier in CONSTRAINTS:
        return CONSTRAINTS[identifier]()
    raise ValueError(f"Unknown constraint: {identifier!r}; use one of "
                     f"{sorted(k for k in CONSTRAINTS if k.islower())} or a function")
