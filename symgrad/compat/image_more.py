"""Colour spaces, gamma, padded resizing and patch extraction of ``tf.image``.

- ``rgb_to_yuv``/``yuv_to_rgb``: Y = 0.299 R + 0.587 G + 0.114 B, U = 0.492111 (B - Y),
  V = 0.877283 (R - Y) (the analogue-TV scalings); the inverse is that matrix's.
- ``rgb_to_yiq``/``yiq_to_rgb``: YUV with the (U, V) plane turned by 33°:
  I = V cos 33° - U sin 33°, Q = V sin 33° + U cos 33° (Q's red weight the published
  0.2115, as TF's); the inverses are the exact matrices' inverses (so YIQ's round
  trip is off by ~5e-5, as TF's).
- ``adjust_gamma(image, gamma, gain)``: ``gain * image ** gamma`` (integer images on
  their dtype's scale, returned in their dtype).
- ``resize_image_with_pad``: resized to fit inside the target keeping the aspect ratio,
  then zero-padded around (centred).
- ``extract_image_patches``/``extract_patches``: each window [KH, KW, C] flattened into
  the depth axis (rates: the dilation).

Sits in ``compat``; imports ``tracing`` and ``image``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     print(abs(tf.Session().run(tf.image.rgb_to_yuv([1.0, 1.0, 1.0]))).round(6))
[1. 0. 0.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.conv import _spatial, _windows
from .image import convert_image_dtype, pad_to_bounding_box, resize_images

__all__ = ["rgb_to_yuv", "yuv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "adjust_gamma",
           "resize_image_with_pad", "extract_image_patches", "extract_patches"]


def _yuv_rows():
    y = np.array([0.299, 0.587, 0.114])
    u = 0.492111 * (np.array([0.0, 0.0, 1.0]) - y)
    v = 0.877283 * (np.array([1.0, 0.0, 0.0]) - y)
    return y, u, v


def _yiq_rows():
    y, u, v = _yuv_rows()
    turn = np.deg2rad(33.0)
    return y, v * np.cos(turn) - u * np.sin(turn), v * np.sin(turn) + u * np.cos(turn)


_TO_YUV = np.stack(_yuv_rows())     # rows: output channels, columns: R, G, B
_FROM_YIQ = np.linalg.inv(np.stack(_yiq_rows()))
_TO_YIQ = np.stack(_yiq_rows())
_TO_YIQ[2, 0] = 0.2115   # the published 4-digit weight, which TF keeps (the turn: 0.21154)


def _mix(images, matrix, what):
    x = _t.functions._lift([images])[0]
    if x.ndim < 1 or x.shape[-1] != 3:
        raise ValueError(f"tf.image.{what}: the last axis must hold 3 channels, got shape "
                         f"{x.shape}")
    if x.dtype.kind != "f":
        raise TypeError(f"tf.image.{what}: images must be floats (convert_image_dtype "
                        f"first), got {x.dtype}")
    return _t.tensordot(x, matrix.T.astype(x.dtype), axes=1)


def rgb_to_yuv(images):
    """RGB (floats) to YUV."""
    return _mix(images, _TO_YUV, "rgb_to_yuv")


def yuv_to_rgb(images):
    """YUV to RGB."""
    return _mix(images, np.linalg.inv(_TO_YUV), "yuv_to_rgb")


def rgb_to_yiq(images):
    """RGB (floats) to YIQ."""
    return _mix(images, _TO_YIQ, "rgb_to_yiq")


def yiq_to_rgb(images):
    """YIQ to RGB."""
    return _mix(images, _FROM_YIQ, "yiq_to_rgb")


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma`` (module docstring)."""
    x = _t.functions._lift([image])[0]
    if isinstance(gamma, (int, float)) and gamma < 0:
        raise ValueError(f"tf.image.adjust_gamma: gamma must be non-negative, got {gamma}")
    if x.dtype.kind == "f":
        return gain * x ** gamma
    flt = convert_image_dtype(x, np.float32)   # [0, 1], and back with TF's rounding
    return convert_image_dtype(gain * flt ** gamma, x.dtype, saturate=True)


def resize_image_with_pad(image, target_height, target_width, method="bilinear",
                          align_corners=False):
    """Resized to fit [target_height, target_width] with its aspect ratio, then padded."""
    x = _t.functions._lift([image])[0]
    h, w = int(x.shape[-3]), int(x.shape[-2])
    th, tw = int(target_height), int(target_width)
    if th <= 0 or tw <= 0:
        raise ValueError(f"tf.image.resize_image_with_pad: target sizes must be positive, "
                         f"got {th}x{tw}")
    ratio = max(w / tw, h / th)
    rh, rw = int(np.floor(h / ratio)), int(np.floor(w / ratio))
    resized = resize_images(x, [rh, rw], method=method, align_corners=align_corners)
    # the offsets centre the unrounded size (h / ratio), as TF's
    top, left = int(np.floor((th - h / ratio) / 2)), int(np.floor((tw - w / ratio) / 2))
    return pad_to_bounding_box(resized, max(top, 0), max(left, 0), th, tw)


def extract_image_patches(images, ksizes=None, strides=None, rates=None, padding=None,
                          name=None, sizes=None):
    """[N, OH, OW, KH * KW * C]: each window's entries, row by row, channels innermost."""
    x = _t.functions._lift([images])[0]
    if x.ndim != 4:
        raise ValueError(f"tf.image.extract_patches: images must be [N, H, W, C], got "
                         f"{x.shape}")
    k = _spatial(ksizes if sizes is None else sizes, "extract_patches(sizes)")
    patches, _ = _windows(x, k, _spatial(strides, "extract_patches(strides)"),
                          _spatial(rates, "extract_patches(rates)"), padding, 0)
    n, oh, ow, c, taps = patches.shape
    return _t.reshape(_t.transpose(patches, (0, 1, 2, 4, 3)), [-1, oh, ow, taps * c],
                      name=name)


def extract_patches(images, sizes, strides, rates, padding, name=None):
    """TF2's name of :func:`extract_image_patches`."""
    return extract_image_patches(images, sizes, strides, rates, padding, name=name)
