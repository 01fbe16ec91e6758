"""``tf.image``: the image ops TF1 tutorials use, from primitives, with TF's formulas.

Images are [height, width, channels] or batches [batch, height, width, channels]:

- flips, ``transpose_image``, ``rot90``; ``random_flip_left_right``/``up_down`` flip each
  image where a number drawn at each ``Session.run`` is below 1/2;
- ``per_image_standardization``: ``(x - mean) / max(stddev, 1/sqrt(N))`` per image;
- ``rgb_to_grayscale`` (weights 0.2989, 0.5870, 0.1140), ``grayscale_to_rgb``;
- ``total_variation``: the sum of absolute differences of neighbouring pixels (one
  value per image of a batch);
- ``adjust_brightness`` (``x + delta``), ``adjust_contrast`` (``(x - mean) * factor +
  mean``, the mean per channel);
- ``resize_images``/``resize`` (and ``resize_bilinear``, float32 as TF's, and
  ``resize_nearest_neighbor`` of a batch) to a known size, with TF1's sampling
  (source pixel ``y * in / out``; ``align_corners``: ``y * (in - 1) / (out - 1)``;
  ``half_pixel_centers``: ``(y + 1/2) * in / out``, less 1/2 for bilinear);
  ``crop_to_bounding_box`` (offsets may be tensors, pix2pix's random crop: rows and
  columns are then gathered), ``pad_to_bounding_box``, ``central_crop``;
- ``convert_image_dtype`` from integers to floats (``x / max``), between floats, from
  floats to integers (``x * (max + 0.5)`` truncated) and between integers (TF's scaling);
  a numpy uint8 image stays uint8 (the core would widen it to int64).

Colour spaces and saturation/hue are in ``compat.image_color``, the random distortions
of input pipelines in ``compat.image_augment``.

Gradients flow through all of them (resizing is a fixed linear map).

Imports the tracing functions, ``compat.slice_at`` (windows at run-time offsets),
``compat.distributions`` (numbers drawn per run), ``compat.errors`` and
``compat.tensor``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     img = tf.constant([[[0.0], [1.0]], [[2.0], [3.0]]])
...     tf.Session().run(tf.image.total_variation(img)).item()
6.0
"""
from __future__ import annotations

import math

import numpy as np

from .. import tracing as _t
from ..errors import ArgumentError, ShapeError
from ..tracing.arrays import static_value
from .distributions import drawn
from .errors import InvalidArgumentError
from . import image_resize as _resize
from .slice_at import computed, window
from .tensor import as_tensor_keeping_dtype


def _image(x, what):
    x = as_tensor_keeping_dtype(x)
    if x.ndim not in (3, 4):
        raise ShapeError(f"tf.image.{what}: an image [height, width, channels] or a batch "
                         f"[batch, height, width, channels], got shape {x.shape}")
    return x, x.ndim - 3   # (the tensor, the axis of height)


def flip_left_right(image):
    x, h = _image(image, "flip_left_right")
    return _t.reverse(x, [h + 1])


def flip_up_down(image):
    x, h = _image(image, "flip_up_down")
    return _t.reverse(x, [h])


def transpose_image(image):
    x, h = _image(image, "transpose_image")
    return _t.transpose(x, (0, 2, 1, 3) if h else (1, 0, 2))


transpose = transpose_image


def rot90(image, k=1, name=None):
    """Rotate counter-clockwise by ``k`` quarter turns."""
    x = image
    for _ in range(int(k) % 4):
        x = flip_up_down(transpose_image(x))
    return _t.identity(_t.as_tensor(x), name=name) if int(k) % 4 == 0 else x


def _random_flip(image, seed, flip, what):
    x, h = _image(image, what)
    shape = (x.shape[0],) + (1,) * 3 if h else ()
    coin = drawn(shape, "uniform", seed)
    return _t.where(_t.less(coin, 0.5), flip(x), x)


def random_flip_left_right(image, seed=None):
    return _random_flip(image, seed, flip_left_right, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    return _random_flip(image, seed, flip_up_down, "random_flip_up_down")


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` over each image's N values (float32
    for integer images, as TF)."""
    x, h = _image(image, "per_image_standardization")
    if x.dtype.kind != "f":
        x = _t.cast(x, np.float32)
    axes = [h, h + 1, h + 2]
    n = int(np.prod([x.shape[a] for a in axes]))
    mean = _t.reduce_mean(x, axes, keepdims=True)
    std = _t.sqrt(_t.reduce_mean(_t.square(x - mean), axes, keepdims=True))
    return (x - mean) / _t.maximum(std, np.asarray(1.0 / math.sqrt(n), x.dtype))


def rgb_to_grayscale(images, name=None):
    """TF's weighted sum of the channels; integer pixels go through
    ``convert_image_dtype`` to float32 and back, as in TF (uint8 results round to the
    nearest level, x * 255.5 truncated, rather than truncate)."""
    x = _t.as_tensor(images)
    flt = x if x.is_float else convert_image_dtype(x, np.float32)
    weights = np.asarray([0.2989, 0.5870, 0.1140], dtype=flt.dtype)
    gray = _t.reduce_sum(flt * weights, -1, keepdims=True)
    return convert_image_dtype(gray, x.dtype, name=name) if not x.is_float else \
        _t.identity(gray, name=name)


def grayscale_to_rgb(images, name=None):
    x = _t.as_tensor(images)
    return _t.tile(x, [1] * (x.ndim - 1) + [3], name=name)


def total_variation(images, name=None):
    """The sum of |differences| of vertically and horizontally neighbouring pixels: a
    number for an image, one per image for a batch."""
    x, h = _image(images, "total_variation")
    lead = (slice(None),) * h
    down = x[lead + (slice(1, None),)] - x[lead + (slice(None, -1),)]
    right = x[lead + (slice(None), slice(1, None))] - x[lead + (slice(None), slice(None, -1))]
    axes = [h, h + 1, h + 2]
    return _t.add(_t.reduce_sum(_t.abs(down), axes), _t.reduce_sum(_t.abs(right), axes),
                  name=name)


def adjust_brightness(image, delta):
    return _t.as_tensor(image) + delta


def adjust_contrast(images, contrast_factor):
    x, h = _image(images, "adjust_contrast")
    mean = _t.reduce_mean(x, [h, h + 1], keepdims=True)
    return (x - mean) * contrast_factor + mean


class ResizeMethod:
    """``tf.image.ResizeMethod``."""
    BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA = 0, 1, 2, 3


def _sampling(n_in, n_out, align_corners, nearest, half_pixel=False):
    """(source index pairs, weights) of one axis: TF1's legacy sampling (source ``y *
    in / out``; ``align_corners``: ``y * (in - 1) / (out - 1)``, nearest rounding halves
    up; ``half_pixel``: ``(y + 1/2) * in / out``, less 1/2 for bilinear)."""
    scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
    src = (np.arange(n_out) + (0.5 if half_pixel else 0.0)) * scale
    if nearest:
        idx = np.minimum(np.floor(src + 0.5) if align_corners else np.floor(src), n_in - 1)
        return idx.astype(np.int64), idx.astype(np.int64), np.zeros(n_out)
    if half_pixel:
        src = src - 0.5
    low = np.floor(src)
    lo = np.maximum(low, 0).astype(np.int64)
    return lo, np.minimum(np.ceil(src), n_in - 1).astype(np.int64), src - low


def _along(x, axis, lo, hi, frac):
    """Linear interpolation of ``x`` along ``axis`` between rows ``lo`` and ``hi``."""
    index = (slice(None),) * axis
    a, b = x[index + (lo,)], x[index + (hi,)]
    if not frac.any():
        return a
    w = np.asarray(frac, dtype=x.dtype).reshape((-1,) + (1,) * (x.ndim - axis - 1))
    return a + (b - a) * w


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None, half_pixel_centers=False):
    """Resize to ``size`` = (height, width), known when the graph is built (float32
    results for integer images, as TF)."""
    x, h = _image(images, "resize_images")
    kinds = {ResizeMethod.BILINEAR: "bilinear", ResizeMethod.NEAREST_NEIGHBOR: "nearest",
             ResizeMethod.BICUBIC: "bicubic", ResizeMethod.AREA: "area"}
    method = kinds.get(method, method)
    if method not in ("bilinear", "nearest", "bicubic", "area"):
        raise ArgumentError(f"tf.image.resize_images: method {method!r}; symgrad has "
                            f"BILINEAR, NEAREST_NEIGHBOR, BICUBIC and AREA")
    if align_corners and half_pixel_centers:
        raise InvalidArgumentError(None, None, "If half_pixel_centers is True, "
                                               "align_corners must be False.")
    out_h, out_w = (int(v) for v in static_value(size, "resize_images(size)").reshape(-1))
    if preserve_aspect_ratio:
        out_h, out_w = _resize.aspect_size(x.shape[h], x.shape[h + 1], out_h, out_w)
    if method in ("bicubic", "area"):
        if half_pixel_centers:
            raise ArgumentError(f"tf.image: {method} resizing with half_pixel_centers=True "
                                f"is not supported (TF1's legacy sampling is)")
        build = _resize.bicubic_matrix if method == "bicubic" else _resize.area_matrix
        x = x if x.dtype == np.float32 else _t.cast(x, np.float32)
        for axis, n_out in ((h, out_h), (h + 1, out_w)):
            x = _resize.along_axis(x, axis, build(x.shape[axis], n_out, align_corners))
        return _t.identity(x, name=name) if name else x
    nearest = method == "nearest"
    if not nearest and x.dtype.kind != "f":
        x = _t.cast(x, np.float32)
    for axis, n_out in ((h, out_h), (h + 1, out_w)):
        x = _along(x, axis, *_sampling(x.shape[axis], n_out, align_corners, nearest,
                                       half_pixel_centers))
    return _t.identity(x, name=name) if name else x


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """``tf.image.resize_bilinear``: a batch [batch, height, width, channels] resized
    bilinearly (float32, whatever the input's dtype, as TF)."""
    x = _batch(images, "resize_bilinear")
    if x.dtype != np.float32:
        x = _t.cast(x, np.float32)
    return resize_images(x, size, ResizeMethod.BILINEAR, align_corners,
                         name=name or "ResizeBilinear", half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """``tf.image.resize_nearest_neighbor``: a batch resized to the nearest pixels (the
    input's dtype)."""
    return resize_images(_batch(images, "resize_nearest_neighbor"), size,
                         ResizeMethod.NEAREST_NEIGHBOR, align_corners,
                         name=name or "ResizeNearestNeighbor",
                         half_pixel_centers=half_pixel_centers)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """``tf.image.resize_bicubic``: a batch resized with TF1's bicubic kernel (float32)."""
    return resize_images(_batch(images, "resize_bicubic"), size, ResizeMethod.BICUBIC,
                         align_corners, name=name or "ResizeBicubic",
                         half_pixel_centers=half_pixel_centers)


def resize_area(images, size, align_corners=False, name=None):
    """``tf.image.resize_area``: a batch resized by area averaging (float32)."""
    return resize_images(_batch(images, "resize_area"), size, ResizeMethod.AREA,
                         align_corners, name=name or "ResizeArea")


def _batch(images, what):
    x = _t.as_tensor(images)
    if x.ndim != 4:
        raise ShapeError(f"tf.image.{what}: Shape must be rank 4 but is rank {x.ndim}: a "
                         f"batch [batch, height, width, channels], got shape {x.shape}")
    return x


resize = resize_images


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x, h = _image(image, "crop_to_bounding_box")
    lead = (slice(None),) * h
    th, tw = int(target_height), int(target_width)
    if not computed([offset_height, offset_width]):
        oh, ow = int(offset_height), int(offset_width)
        _check_box(x.shape[h:h + 2], oh, ow, th, tw)
        return x[lead + (slice(oh, oh + th), slice(ow, ow + tw))]
    # offsets computed at run time: the rows offset + 0 .. th - 1, then the columns
    return window(window(x, h, offset_height, th), h + 1, offset_width, tw)


def _check_box(size, oh, ow, th, tw):
    """TF's ValueErrors for a box that does not fit in the image (a size known only at
    run time is not checked: a slice past the end keeps what there is)."""
    height, width = size
    for ok, what in [(ow >= 0, "offset_width must be >= 0."),
                     (oh >= 0, "offset_height must be >= 0."),
                     (tw > 0, "target_width must be > 0."),
                     (th > 0, "target_height must be > 0."),
                     (not isinstance(width, int) or width >= tw + ow,
                      "width must be >= target + offset."),
                     (not isinstance(height, int) or height >= th + oh,
                      "height must be >= target + offset.")]:
        if not ok:
            raise ShapeError(f"crop_to_bounding_box: {what} (image {height}x{width}, "
                             f"offset ({oh}, {ow}), target ({th}, {tw}))")


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    x, h = _image(image, "pad_to_bounding_box")
    oh, ow = int(offset_height), int(offset_width)
    bottom, right = int(target_height) - oh - x.shape[h], int(target_width) - ow - x.shape[h + 1]
    if min(oh, ow, bottom, right) < 0:
        raise ShapeError("pad_to_bounding_box: the target box must contain the image")
    return _t.pad(x, [[0, 0]] * h + [[oh, bottom], [ow, right], [0, 0]])


def central_crop(image, central_fraction):
    """The central part, ``central_fraction`` of each side (TF's rounding)."""
    x, h = _image(image, "central_crop")
    f = float(central_fraction)
    if not 0.0 < f <= 1.0:
        raise ArgumentError("central_crop: central_fraction must be in (0, 1]")
    starts = [int((x.shape[a] - x.shape[a] * f) / 2) for a in (h, h + 1)]
    return crop_to_bounding_box(x, starts[0], starts[1], x.shape[h] - 2 * starts[0],
                                x.shape[h + 1] - 2 * starts[1])


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """TF's conversions: integers to floats in [0, 1] (``x / max``), floats to another
    float type, floats in [0, 1] to integers (``x * (max + 0.5)``, truncated; clipped to
    the type's range first when ``saturate``), integers to integers by scaling with the
    ratio of the types' maxima (TF's bit shifts, a multiply or an integer division)."""
    x = as_tensor_keeping_dtype(image)
    source, target = x.dtype, np.dtype(dtype)
    if target.kind not in "fiu" or source.kind not in "fiu":
        raise ArgumentError(f"tf.image.convert_image_dtype: converts between float and "
                            f"integer types, not {source} to {target}")
    if target == source:
        return _t.identity(x, name=name) if name else x
    if target.kind == "f":
        if source.kind in "iu":   # (uint8 pixels are 0..255; TF multiplies by 1 / max,
            # which differs from dividing by max in the last bit for half of them)
            return _t.cast(x, target) * np.asarray(1.0 / np.iinfo(source).max, target)
        return _t.cast(x, target, name=name)
    top = np.iinfo(target).max
    if source.kind == "f":
        scaled = x * np.asarray(top + 0.5, source)
        if saturate:
            info = np.iinfo(target)
            scaled = _t.clip_by_value(scaled, np.asarray(info.min, source), np.asarray(top, source))
        return _t.cast(scaled, target, name=name)
    ratio = (int(np.iinfo(source).max) + 1) // (int(top) + 1)
    if ratio >= 1:   # a wider source: drop its low bits (integer division, TF's shift)
        return _t.cast(_t.floordiv(x, np.asarray(max(ratio, 1), source)), target, name=name)
    up = (int(top) + 1) // (int(np.iinfo(source).max) + 1)
    return _t.cast(x, target) * np.asarray(up, target)
