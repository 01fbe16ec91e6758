"""``tf.norm`` (``tf.linalg.norm``) as TF computes it: vector norms over an axis and
matrix norms over a pair of axes.

- ``axis`` None or an int: the vector norm of order ``'euclidean'``/2, 1, ``np.inf`` or
  any p > 0 (``(Σ|x|^p)^(1/p)``); 'fro' is a matrix norm only (TF's ValueError).
- ``axis`` a pair of distinct axes: ``'fro'``/``'euclidean'`` (Frobenius), 1 (the
  largest column sum of |a|: a sum over ``axis[0]``, then a max over ``axis[1]``),
  ``np.inf`` (the largest row sum: a sum over ``axis[1]``, a max over ``axis[0]``).
  The spectral norm (``ord=2``) needs singular values, which symgrad has not: an error
  says so (it was the Frobenius norm, silently).
- Each reduction keeps its axes and the result is squeezed after unless ``keepdims``,
  so the gradients of max's ties are TF's.

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a = tf.constant([[1.0, -2.0], [3.0, 4.0]])
...     print(tf.Session().run([norm(a, ord=1, axis=[0, 1]), norm(a, ord=np.inf, axis=(0, 1))]))
[6.0, 7.0]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t

__all__ = ["norm"]


def _axes(axis, ndim):
    """(axes as a tuple of non-negative ints or None, whether a matrix norm)."""
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        pair = tuple(int(a) % max(ndim, 1) for a in axis)
        if pair[0] == pair[1]:
            raise ValueError(f"tf.norm: 'axis' must be None, an integer, or a tuple of 2 "
                             f"unique integers, got {axis}")
        return tuple(int(a) for a in axis), True
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise ValueError(f"tf.norm: 'axis' must be None, an integer, or a tuple of 2 unique "
                         f"integers, got {axis}")
    return (None if axis is None else (int(axis),)), False


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None,  # noqa: A002
         keep_dims=None):
    """``tf.norm`` (module docstring); ``keep_dims`` is TF1's name of ``keepdims``."""
    keep = bool(keep_dims if keepdims is None else keepdims)
    x = _t.as_tensor(tensor)
    axes, matrix = _axes(axis, x.ndim)
    if matrix:
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError(f"tf.norm: 'ord' must be a supported matrix norm in "
                             f"['euclidean', 'fro', 1, 2, inf], got {ord}")
        if ord == 2:
            raise ValueError("tf.norm(ord=2) over two axes is the spectral norm (the largest "
                             "singular value): symgrad has no SVD; compute it with "
                             "numpy.linalg.norm(a, 2) outside the graph")
    elif isinstance(ord, str) and ord != "euclidean" or not isinstance(ord, str) and (
            not np.isreal(ord) or ord <= 0):
        raise ValueError(f"tf.norm: 'ord' must be a supported vector norm, got {ord}")
    if ord in ("fro", "euclidean", 2, 2.0):
        out = _t.sqrt(_t.reduce_sum(x * x, axes, keepdims=True))
    else:
        out = _t.abs(x)
        if ord == 1:
            out = _t.reduce_sum(out, None if axes is None else axes[0], keepdims=True)
            if matrix:
                out = _t.reduce_max(out, axes[1], keepdims=True)
        elif ord == np.inf:
            if matrix:
                out = _t.reduce_sum(out, axes[1], keepdims=True)
            out = _t.reduce_max(out, None if axes is None else axes[0], keepdims=True)
        else:
            out = _t.pow(_t.reduce_sum(_t.pow(out, float(ord)), axes, keepdims=True),
                         1.0 / float(ord))
    if not keep:
        out = _t.squeeze(out, axes)
    return _t.identity(out, name=name) if name else out
