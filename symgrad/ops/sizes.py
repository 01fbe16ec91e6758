"""Sizes read from a shape argument: ``tf.shape(x)[0]`` is the Dim it stands for.

TF1 programs pass run-time sizes back as shapes: ``tf.reshape(h, [tf.shape(x)[0], -1])``,
``tf.zeros([batch, 10])``, ``tf.random_normal(tf.shape(mu))``.  :func:`sizes_of` reads
such an argument -- numbers, Dims, and tensors made from constants and sizes
(``dim_size``) through casts, moves (indexing, stacking, reshapes), ``+ - *``, exact
quotients ``//``, remainders ``%`` of ints and the product of a shape (``tf.size(x)``)
-- as a tuple of ints and Dims, without evaluating anything.  Ops take part by attribute: ``size_of``
(a size), ``keeps_sizes`` (a value-preserving cast), and structural ops whose every
element is a copy (``selects``), applied to object arrays of sizes.

Imports numpy, the graph and ``ops.base``.
"""
from __future__ import annotations

import numpy as np

from ..graph import Dim, Node, dim_expr, make_dim
from .base import REGISTRY


def sizes_of(value):
    """``value`` as a tuple of ints and Dims, or None when some entry is not a size
    known now (a fed or computed tensor)."""
    if isinstance(value, Node):
        found = _read(value)
        return None if found is None else tuple(_size(v) for v in found.reshape(-1))
    if not isinstance(value, (list, tuple)):
        value = np.asarray(value, dtype=object).reshape(-1) if not isinstance(value, Dim) \
            else [value]
    out = []
    for v in value:
        if isinstance(v, Node):
            found = _read(v)
            if found is None or found.size != 1:
                return None
            v = found.reshape(-1)[0]
        out.append(_size(v))
    return tuple(out)


def _size(v):
    return v if isinstance(v, Dim) else int(v)


def _read(node):
    """An object array of ints and Dims for ``node``'s value, or None."""
    op = node.opdef
    if not node.inputs:
        if op.name != "const" or node.value is None:
            return None
        value = np.asarray(node.value)
        if value.dtype.kind not in "iuf" or not np.all(value == np.round(value)):
            return None
        return value.astype(np.int64).astype(object)
    if getattr(op, "size_of", None) is not None:
        out = np.empty((), dtype=object)
        out[()] = op.size_of(node.inputs[0].shape, **node.attrs)
        return out
    if getattr(op, "keeps_sizes", False):
        return _read(node.inputs[0])
    if op.name in _ARITHMETIC and len(node.inputs) == 2:   # tf.shape(x)[1] - 1
        a, b = (_read(x) for x in node.inputs)
        if a is None or b is None:
            return None
        combine = np.frompyfunc(lambda u, v: _arithmetic(op.name, u, v), 2, 1)
        return np.asarray(combine(a, b), dtype=object)
    if op.name in ("floordiv", "floormod") and len(node.inputs) == 2:   # shape(q)[0] // n
        a, b = (_read(x) for x in node.inputs)
        if a is None or b is None:
            return None
        part = _quotient if op.name == "floordiv" else _remainder
        out = np.asarray(np.frompyfunc(part, 2, 1)(a, b), dtype=object)
        return None if any(v is None for v in out.reshape(-1)) else out
    if op.name == "reduce_prod" and not node.attrs.get("keepdims"):   # tf.size(x)
        part = _read(node.inputs[0])
        if part is None or part.ndim != 1:
            return None
        total = 1
        for v in part:
            total = _arithmetic("mul", total, v)
        out = np.empty((), dtype=object)
        out[()] = total
        return out
    if op.kind == "structural" and op.selects:
        parts = [_read(x) for x in node.inputs]
        if any(p is None for p in parts):
            return None
        return np.asarray(op.impl(*parts, **node.attrs), dtype=object)
    return None


_ARITHMETIC = {"add": lambda u, v: u + v, "sub": lambda u, v: u - v,
               "mul": lambda u, v: u * v}


def _arithmetic(name, u, v):
    if not isinstance(u, Dim) and not isinstance(v, Dim):
        return _ARITHMETIC[name](int(u), int(v))
    return make_dim(_ARITHMETIC[name](dim_expr(u), dim_expr(v)))


def _quotient(u, v):
    """``u // v`` when it is a size known now: of ints, or of Dims whose ratio is a
    polynomial with integer coefficients (Kyubyong's transformer tiles its key masks
    ``tf.shape(inputs)[0] // tf.shape(key_masks)[0]`` times, (2*N) // N: 2); else None."""
    if not isinstance(u, Dim) and not isinstance(v, Dim):
        return int(u) // int(v) if int(v) else None
    import sympy
    ratio = sympy.cancel(dim_expr(u) / dim_expr(v))
    if not ratio.free_symbols:
        return int(ratio) if ratio.is_Integer else None
    exact = ratio.is_polynomial() and all(
        c.is_Integer for c in sympy.Poly(ratio, *ratio.free_symbols).coeffs())
    return make_dim(ratio) if exact else None


def _remainder(u, v):
    """``u % v`` of ints (a static length's padding); None for Dims."""
    if isinstance(u, Dim) or isinstance(v, Dim) or not int(v):
        return None
    return int(u) % int(v)


REGISTRY["cast"].keeps_sizes = True

__all__ = ["sizes_of"]
