"""TF1 math names the eighth probe found missing, composed from symgrad's ops: inverse
hyperbolics (``asinh``, ``acosh``, ``atanh``), ``xlogy``, ``multiply_no_nan``,
``polyval``, ``logical_xor``, ``scalar_mul``, ``reduce_euclidean_norm``,
``linalg.matvec``, ``nn.normalize_moments``, ``nn.weighted_moments``,
``clip_by_average_norm``, ``unravel_index``, ``shape_n``, ``nn.compute_average_loss``.

Each is the formula TF documents; where a branch would give NaN or lose precision
the other side is taken with ``where`` (``asinh`` of a negative number is ``-asinh(-x)``;
``xlogy`` is 0 where x is 0), and symgrad's ``where`` passes no NaN back from the side
not taken, so the gradients are TF's.

Sits in ``compat``; imports the tracing functions and ``compat.custom``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant([0.0, 2.0])
...     print([round(float(v), 4) for v in tf.Session().run(tf.math.xlogy(x, x))])
[0.0, 1.3863]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.arrays import static_value
from .custom import with_gradient

__all__ = ["asinh", "acosh", "atanh", "xlogy", "multiply_no_nan", "polyval", "logical_xor",
           "scalar_mul", "reduce_euclidean_norm", "matvec", "normalize_moments",
           "weighted_moments", "clip_by_average_norm", "unravel_index", "shape_n",
           "compute_average_loss"]


def _float(x):
    return _t.as_tensor(x) if not isinstance(x, (int, float)) else _t.constant(np.float32(x))


def asinh(x, name=None):
    """``log(x + sqrt(x^2 + 1))``, by odd symmetry for x < 0 (no cancellation)."""
    x = _float(x)
    pos = _t.log(_t.abs(x) + _t.sqrt(x * x + 1.0))
    return _t.where(x < 0, -pos, pos, name=name)


def acosh(x, name=None):
    """``log(x + sqrt(x^2 - 1))`` (NaN below 1, as TF)."""
    x = _float(x)
    return _t.log(x + _t.sqrt(x * x - 1.0), name=name)


def atanh(x, name=None):
    """``(log1p(x) - log1p(-x)) / 2``."""
    x = _float(x)
    return _t.mul(_t.log1p(x) - _t.log1p(-x), 0.5, name=name)


def xlogy(x, y, name=None):
    """``x * log(y)``, 0 where x is 0 (even where y is 0)."""
    x, y = _float(x), _float(y)
    return _t.where(_t.equal(x, 0.0), _t.zeros_like(x * y), x * _t.log(y), name=name)


def multiply_no_nan(x, y, name=None):
    """``x * y``, 0 where y is 0 (even where x is inf or NaN); TF's gradients: x gets
    ``g * y`` (0 where y is 0), y gets ``x * g`` (0 where g is 0)."""
    x, y = _float(x), _float(y)
    out = _t.where(_t.equal(y, 0.0), _t.zeros_like(x * y), x * y, name=name)

    def grad(g):
        zero = _t.zeros_like(g)
        return [_t.where(_t.equal(y, 0.0), zero, g * y),
                _t.where(_t.equal(g, 0.0), zero, x * g)]
    return with_gradient([x, y], out, grad)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x^(n-1) + ... + coeffs[n-1]`` by Horner's rule (zeros for none)."""
    x = _float(x)
    if not len(coeffs):
        return _t.zeros_like(x, name=name)
    p = _t.zeros_like(x) + coeffs[0]   # (a Python number takes x's dtype)
    for c in coeffs[1:]:
        p = p * x + c
    return _t.identity(p, name=name)


def logical_xor(x, y, name=None):
    return _t.logical_and(_t.logical_or(x, y), _t.logical_not(_t.logical_and(x, y)),
                          name=name)


def scalar_mul(scalar, x, name=None):
    return _t.mul(scalar, x, name=name)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    x = _t.as_tensor(input_tensor)
    return _t.sqrt(_t.reduce_sum(x * x, axis=axis, keepdims=keepdims), name=name)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """``tf.linalg.matvec``: ``a @ b`` for a vector (or batch of vectors) ``b``."""
    out = _t.matmul(a, _t.expand_dims(b, -1), transpose_a=transpose_a or adjoint_a)
    return _t.squeeze(out, [-1], name=name)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics (``tf.nn.sufficient_statistics``)."""
    divisor = 1.0 / _float(counts)
    shifted = mean_ss * divisor
    mean = shifted + shift if shift is not None else shifted
    return _t.identity(mean), _t.identity(variance_ss * divisor - shifted * shifted)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """Frequency-weighted mean and variance of ``x`` over ``axes`` (TF's formulas)."""
    keep = bool(keepdims if keepdims is not None else keep_dims)
    x, w = _float(x), _float(frequency_weights)
    total = _t.reduce_sum(w * x, axis=axes, keepdims=True)
    divisor = 1.0 / _t.reduce_sum(w + _t.zeros_like(x), axis=axes, keepdims=True)
    mean = total * divisor
    variance = _t.reduce_sum(w * _t.square(x - mean), axis=axes, keepdims=True) * divisor
    if not keep:
        axes = [axes] if isinstance(axes, int) else list(axes)
        mean, variance = _t.squeeze(mean, axes), _t.squeeze(variance, axes)
    return mean, variance


def clip_by_average_norm(t, clip_norm, name=None):
    """``t * clip_norm / max(l2norm(t) / size(t), clip_norm)`` (TF's formula)."""
    t = _t.as_tensor(t)
    inv = _t.rsqrt(_t.reduce_sum(t * t))
    n = float(np.prod(t.shape))
    return _t.identity(t * clip_norm * _t.minimum(inv * n, 1.0 / clip_norm), name=name)


def unravel_index(indices, dims, name=None):
    """Coordinates of flat ``indices`` in an array of shape ``dims``: shape
    ``[len(dims)] + indices.shape``."""
    flat = _t.as_tensor(indices)
    dims = [int(d) for d in np.asarray(static_value(dims, "unravel_index(dims)")).reshape(-1)]
    coords, rest = [], flat
    for size in reversed(dims):
        coords.append(_t.floormod(rest, size))
        rest = rest // size
    return _t.stack(coords[::-1], axis=0, name=name)


def shape_n(input, out_type=np.int32, name=None):  # noqa: A002
    return [_t.shape(x, out_type=out_type) for x in input]


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(loss * weight) / global_batch_size`` (default: the batch's size)."""
    loss = _float(per_example_loss)
    if sample_weight is not None:
        loss = loss * sample_weight
    size = global_batch_size if global_batch_size is not None else \
        _t.cast(_t.shape(loss)[0], loss.dtype)
    return _t.reduce_sum(loss) / size
