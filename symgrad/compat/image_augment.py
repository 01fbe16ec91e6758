"""The augmentation of TF1's input pipelines (the CIFAR-10 tutorial's
``cifar10_input.py``): ``tf.random_crop``, ``tf.image.random_brightness``,
``random_contrast``, ``random_saturation``, ``random_hue``, and its evaluation path,
``tf.image.resize_image_with_crop_or_pad``.

- ``random_crop(value, size)``: an offset per axis drawn uniformly from ``0 ..
  value.shape - size`` at each ``Session.run``, then that window (a gather along each
  axis, so the gradient reaches the pixels kept);
- ``random_brightness``/``contrast``/``saturation``/``hue``: ``adjust_*`` with a factor
  drawn uniformly from the given range at each run;
- ``resize_image_with_crop_or_pad``: centred, cropping an axis that is too long and
  padding one that is too short with zeros (TF's offsets: ``(size - target) // 2``
  cropped, ``(target - size) // 2`` padded).

With an op ``seed=`` the numbers are TF's own (its ``random_uniform`` draws: one float32
factor or delta; for the crop one int32 per axis modulo the room left, as TF's
``random_crop`` takes them); without one they come from symgrad's generator
(``tf.set_random_seed`` makes them reproducible): the same distribution, other draws.

Sits in ``compat``; imports ``tracing``, ``compat.image``, ``image_color`` and
``distributions``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     img = tf.reshape(tf.range(16.0), [4, 4, 1])
...     print(tf.image.resize_image_with_crop_or_pad(img, 2, 6)[..., 0].eval(session=tf.Session()))
[[ 0.  4.  5.  6.  7.  0.]
 [ 0.  8.  9. 10. 11.  0.]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..errors import ShapeError
from ..tracing.arrays import static_value
from . import image_color as _color
from .distributions import drawn, scaled_draw, tf_drawn
from .image import _image, adjust_brightness, adjust_contrast, crop_to_bounding_box, \
    pad_to_bounding_box

__all__ = ["random_crop", "random_brightness", "random_contrast", "random_saturation",
           "random_hue", "resize_image_with_crop_or_pad"]


def _uniform(low, high, seed, dtype):
    """One number drawn uniformly from [low, high) at each run, of ``dtype`` (TF draws a
    float32 ``random_uniform([], low, high, seed)``)."""
    return _t.cast(scaled_draw((), "uniform", seed, np.float32, low, high), dtype)


def _tf_offsets(x, size, seed):
    """TF's crop offsets where ``seed`` fixes them: int32 numbers in [0, 2**31 - 1), one
    per axis, modulo ``shape - size + 1``; None without an op seed."""
    numbers = tf_drawn((x.ndim,), "uniform", seed, np.int32, 0, np.iinfo(np.int32).max, None)
    if numbers is None:
        return None
    room = np.asarray([d - s + 1 for s, d in zip(size, x.shape)], np.int32)
    return _t.floormod(numbers, room)


def random_crop(value, size, seed=None, name=None):
    """``tf.random_crop``: a window of ``size`` at an offset drawn at each run."""
    x = _t.as_tensor(value)
    size = [int(s) for s in static_value(size, "random_crop(size)").reshape(-1)]
    if len(size) != x.ndim or any(not isinstance(d, int) or not 0 <= s <= d
                                  for s, d in zip(size, x.shape)):
        raise ShapeError(f"random_crop: size {size} must give each axis of the value's shape "
                         f"{x.shape} a length from 0 to its own (known) size")
    out, offsets = x, _tf_offsets(x, size, seed)
    for axis, (s, d) in enumerate(zip(size, x.shape)):
        if s == d:
            continue
        start = offsets[axis] if offsets is not None else \
            _t.cast(_t.floor(drawn((), "uniform", seed) * (d - s + 1)), np.int32)
        out = _t.gather(out, start + np.arange(s, dtype=np.int32), axis=axis)
    return _t.identity(out, name=name) if name else out


def _check_range(low, high, what):
    if not low < high:
        raise ValueError(f"tf.image.{what}: the lower bound {low} must be below the upper "
                         f"bound {high}")


def random_brightness(image, max_delta, seed=None):
    """``adjust_brightness`` by a delta drawn from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError(f"tf.image.random_brightness: max_delta must be non-negative, got "
                         f"{max_delta}")
    x = _t.as_tensor(image)
    return adjust_brightness(x, _uniform(-max_delta, max_delta, seed, x.dtype))


def random_contrast(image, lower, upper, seed=None):
    """``adjust_contrast`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper, "random_contrast")
    x = _t.as_tensor(image)
    return adjust_contrast(x, _uniform(lower, upper, seed, x.dtype))


def random_saturation(image, lower, upper, seed=None):
    """``adjust_saturation`` by a factor drawn from [lower, upper)."""
    _check_range(lower, upper, "random_saturation")
    return _color.adjust_saturation(image, _uniform(lower, upper, seed, np.float32))


def random_hue(image, max_delta, seed=None):
    """``adjust_hue`` by a delta drawn from [-max_delta, max_delta), max_delta <= 0.5."""
    if not 0 <= max_delta <= 0.5:
        raise ValueError(f"tf.image.random_hue: max_delta must be in [0, 0.5], got {max_delta}")
    return _color.adjust_hue(image, _uniform(-max_delta, max_delta, seed, np.float32))


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centre-crop or zero-pad an image (or a batch) to the target size (docstring)."""
    x, h = _image(image, "resize_image_with_crop_or_pad")
    height, width = x.shape[h], x.shape[h + 1]
    th, tw = int(target_height), int(target_width)
    if th <= 0 or tw <= 0:
        raise ValueError(f"tf.image.resize_image_with_crop_or_pad: the target size must be "
                         f"positive, got {th} x {tw}")
    cropped = crop_to_bounding_box(x, max((height - th) // 2, 0), max((width - tw) // 2, 0),
                                   min(th, height), min(tw, width))
    return pad_to_bounding_box(cropped, max((th - height) // 2, 0), max((tw - width) // 2, 0),
                               th, tw)
