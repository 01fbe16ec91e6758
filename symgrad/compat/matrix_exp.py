"""``tf.linalg.expm``: the matrix exponential by scaling and squaring with Padé
approximants (Higham, "The scaling and squaring method for the matrix exponential
revisited", SIAM J. Matrix Anal. Appl. 26, 2005), the method TF uses.

For each matrix A of the batch, with ``l1`` its 1-norm (the largest column sum of
|A|): the Padé approximant r_m(A) = (V - U)⁻¹ (V + U) of the lowest degree m whose
bound θ_m exceeds l1 (float64: m = 3, 5, 7, 9; float32: 3, 5); else the highest
degree (float64 13, float32 7) of A / 2^s, s = max(floor(log2(l1 / θ_max)), 0),
squared s times.  U holds the odd terms (A times a polynomial in A²), V the even
ones.  Every degree is computed and the right one selected, and the squarings are a
``while_loop`` to the batch's largest s, each matrix squared while its own count
lasts -- so the derivative is the derivative of this computation, as TF's is.

Sits in ``compat``; imports ``tracing`` and ``control`` (the loop).

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     e = expm(tf.constant([[0.0, 1.0], [-1.0, 0.0]], tf.float64))
...     print(tf.Session().run(e).round(6))
[[ 0.540302  0.841471]
 [-0.841471  0.540302]]
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from .control import while_loop

__all__ = ["expm"]

# Padé coefficients b_0..b_m of exp (Higham 2005, table 2.3)
_PADE = {
    3: [120.0, 60.0, 12.0, 1.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0, 1.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
         1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
         33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0],
}
# the bounds θ_m on the 1-norm below which degree m is accurate to the unit roundoff
_THETAS = {
    np.dtype(np.float64): ([(3, 1.495585217958292e-2), (5, 2.539398330063230e-1),
                            (7, 9.504178996162932e-1), (9, 2.097847961257068e0)],
                           (13, 5.371920351148152e0)),
    np.dtype(np.float32): ([(3, 4.258730016922831e-1), (5, 1.880152677804762e0)],
                           (7, 3.925724783138660e0)),
}


def _pade(a, powers, eye, m):
    """(U, V) of the degree-m approximant at ``a`` (``powers``: {2: A², 4: A⁴, ...})."""
    b = _PADE[m]

    def poly(coeffs, ks):   # Σ coeffs[k] A^k over the even k listed
        out = coeffs[0] * eye
        for k in ks:
            out = out + coeffs[k] * powers[k]
        return out
    if m == 13:   # A⁶ factored out of the high terms (Higham's evaluation)
        a6 = powers[6]
        u_inner = _t.matmul(a6, b[13] * a6 + b[11] * powers[4] + b[9] * powers[2]) + \
            b[7] * a6 + b[5] * powers[4] + b[3] * powers[2] + b[1] * eye
        v = _t.matmul(a6, b[12] * a6 + b[10] * powers[4] + b[8] * powers[2]) + \
            b[6] * a6 + b[4] * powers[4] + b[2] * powers[2] + b[0] * eye
        return _t.matmul(a, u_inner), v
    evens = list(range(2, m, 2))   # (m is odd: up to m - 1)
    u = _t.matmul(a, poly({k: b[k + 1] for k in [0] + evens}, evens))
    return u, poly({k: b[k] for k in [0] + evens}, evens)


def _powers(a, top):
    """{2: A², 4: A⁴, ...} up to A^top (top even)."""
    out = {2: _t.matmul(a, a)}
    for k in range(4, top + 1, 2):
        out[k] = _t.matmul(out[k - 2], out[2])
    return out


def expm(input, name=None):  # noqa: A002
    """The matrix exponential of each square matrix (module docstring)."""
    a = _t.as_tensor(input)
    if a.dtype not in _THETAS:
        raise ValueError(f"tf.linalg.expm: matrices of dtype {a.dtype.name} are not "
                         "supported (float32 or float64)")
    if a.ndim < 2 or not isinstance(a.shape[-1], int) or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"tf.linalg.expm: input must be square matrices of known size "
                         f"[..., M, M], got shape {a.shape}")
    n, dtype = a.shape[-1], a.dtype
    if n == 0:
        return a
    eye = _t.constant(np.eye(n, dtype=dtype))
    l1 = _t.reduce_max(_t.reduce_sum(_t.abs(a), axis=-2), axis=-1)[..., None, None]
    low, (top, theta) = _THETAS[dtype]
    squarings = _t.maximum(_t.floor(_t.log(l1 / theta) / math.log(2.0)), 0.0)
    scaled = a / _t.pow(_t.constant(np.asarray(2.0, dtype)), squarings)
    powers = _powers(a, max(m for m, _ in low) - 1)
    u, v = _pade(scaled, _powers(scaled, 6 if top == 13 else top - 1), eye, top)
    for m, bound in reversed(low):   # the lowest degree whose bound exceeds l1 wins
        um, vm = _pade(a, powers, eye, m)
        below = _t.less(l1, bound)
        u, v = _t.where(below, um, u), _t.where(below, vm, v)
    result = _t.linalg.solve(v - u, u + v)
    finite = _t.is_finite(_t.reduce_max(l1))
    result = _t.where(finite, result, _t.zeros_like(result) + np.asarray(np.nan, dtype))
    most = _t.reduce_max(squarings)

    def body(i, r):
        return i + 1.0, _t.where(_t.less(i, squarings), _t.matmul(r, r), r)
    _, result = while_loop(lambda i, r: _t.logical_and(finite, _t.less(i, most)), body,
                           [_t.constant(np.asarray(0.0, dtype)), result])
    return _t.identity(result, name=name) if name else result
