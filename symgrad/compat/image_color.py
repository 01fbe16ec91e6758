"""``tf.image``'s colour-space ops: ``rgb_to_hsv``, ``hsv_to_rgb`` and what data
augmentation builds on them, ``adjust_saturation`` and ``adjust_hue``.

HSV as TF defines it, all channels in [0, 1]: v = max(r, g, b), s = (v - min) / v (0 for
black), and the hue a sixth of a turn per sector, ``(g - b) / (v - min)`` where red is
the largest, ``2 + (b - r) / ...`` where green is, ``4 + (r - g) / ...`` where blue is,
divided by 6 and taken mod 1 (0 for greys).  ``adjust_saturation`` multiplies s by the
factor and clips it to [0, 1]; ``adjust_hue`` turns h by ``delta`` (mod 1); both go to HSV
and back (TF's fused kernels compute the same, up to float rounding).  Integer images
are converted to float first and back after, as TF does.

Sits in ``compat``; imports ``tracing``, ``compat.image`` and ``compat.tensor``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     hsv = tf.image.rgb_to_hsv(tf.constant([[0.2, 0.4, 0.8]]))
...     print(tf.Session().run(hsv).astype(float).round(4).tolist())
[[0.6111, 0.75, 0.8]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from .image import convert_image_dtype
from .tensor import as_tensor_keeping_dtype

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "adjust_hue"]


def _channels(images, what):
    x = as_tensor_keeping_dtype(images)
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ShapeError(f"tf.image.{what}: the last axis must hold 3 channels, got shape "
                         f"{x.shape}")
    return x, [x[..., i] for i in range(3)]


def rgb_to_hsv(images, name=None):
    """``tf.image.rgb_to_hsv`` of float images in [0, 1] (module docstring)."""
    x, (r, g, b) = _channels(images, "rgb_to_hsv")
    v = _t.maximum(_t.maximum(r, g), b)
    spread = v - _t.minimum(_t.minimum(r, g), b)
    zero = _t.zeros_like(v)
    s = _t.where(_t.greater(v, 0.0), spread / v, zero)
    safe = _t.where(_t.greater(spread, 0.0), spread, _t.ones_like(spread))
    sector = _t.where(_t.equal(v, r), (g - b) / safe,
                      _t.where(_t.equal(v, g), 2.0 + (b - r) / safe, 4.0 + (r - g) / safe))
    h = _t.where(_t.greater(spread, 0.0), sector / 6.0, zero)
    h = h - _t.floor(h)   # (mod 1: red's negative sector wraps round)
    return _t.stack([h, s, v], axis=-1, name=name)


def hsv_to_rgb(images, name=None):
    """``tf.image.hsv_to_rgb``: channel n is ``v - v s clip(2 - |t - 2|, 0, 1)`` with
    ``t = (6h + n) mod 6``, n = 5, 3, 1 for r, g, b (the piecewise-linear hexcone)."""
    x, (h, s, v) = _channels(images, "hsv_to_rgb")
    out = []
    for k in (5.0, 3.0, 1.0):
        t = 6.0 * h + k
        t = t - 6.0 * _t.floor(t / 6.0)
        ramp = _t.clip_by_value(2.0 - _t.abs(t - 2.0), 0.0, 1.0)
        out.append(v * (1.0 - s * ramp))
    return _t.stack(out, axis=-1, name=name)


def _in_float(image, change, name):
    """``change`` applied to the float form of ``image`` (TF converts integer images)."""
    x = as_tensor_keeping_dtype(image)
    if x.dtype.kind == "f":
        return _t.identity(change(x), name=name) if name else change(x)
    return convert_image_dtype(change(convert_image_dtype(x, np.float32)), x.dtype,
                               saturate=True, name=name)


def adjust_saturation(image, saturation_factor, name=None):
    """``tf.image.adjust_saturation``: s times the factor, clipped to [0, 1]."""
    def change(x):
        h, s, v = _t.unstack(rgb_to_hsv(x), axis=-1)
        s = _t.clip_by_value(s * _t.cast(saturation_factor, x.dtype), 0.0, 1.0)
        return hsv_to_rgb(_t.stack([h, s, v], axis=-1))
    return _in_float(image, change, name)


def adjust_hue(image, delta, name=None):
    """``tf.image.adjust_hue``: the hue turned by ``delta`` in [-1, 1] (mod 1)."""
    def change(x):
        h, s, v = _t.unstack(rgb_to_hsv(x), axis=-1)
        h = h + _t.cast(delta, x.dtype)
        h = h - _t.floor(h)
        return hsv_to_rgb(_t.stack([h, s, v], axis=-1))
    return _in_float(image, change, name)
