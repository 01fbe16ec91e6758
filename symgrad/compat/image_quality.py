"""Image quality and edge measures of ``tf.image``: ``psnr``, ``ssim``,
``ssim_multiscale``, ``sobel_edges`` and ``image_gradients``, written from their published definitions.

- ``psnr(a, b, max_val)``: ``10 log10(max_val² / mse)``, the mean square error over each
  image's last three axes.
- ``ssim(a, b, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)``: Wang et
  al.'s structural similarity with a Gaussian window (normalised to sum 1), VALID
  windows, ``c1 = (k1 max_val)²``, ``c2 = (k2 max_val)²``; luminance times
  contrast-structure, averaged over the window positions, then over the channels.
- ``ssim_multiscale``: the contrast-structure terms of the first scales and the SSIM of
  the last (images halved by 2x2 means between scales), raised to ``power_factors``
  (Wang et al.'s five by default) and multiplied.
- ``sobel_edges(images)``: [..., C, 2] holding the vertical then horizontal Sobel
  responses, the image padded by reflection so the size stays.
- ``image_gradients(images)``: ``(dy, dx)``, forward differences, 0 in the last row
  (dy) and column (dx).

Sits in ``compat``; imports ``tracing``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     a = tf.constant([[[0.0], [1.0]], [[1.0], [0.0]]])
...     print(round(float(tf.Session().run(tf.image.psnr(a, a * 0.5, 1.0))), 4))
9.0309
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..ops import literal
from .more_ops import depthwise_conv2d

__all__ = ["psnr", "ssim", "ssim_multiscale", "sobel_edges", "image_gradients"]


def _pair(a, b, what):
    a, b = _t.functions._lift([a]), _t.functions._lift([b])
    a, b = a[0], b[0]
    if a.ndim < 3 or b.ndim < 3:
        raise ValueError(f"tf.image.{what}: images must be [..., height, width, channels], "
                         f"got shapes {a.shape} and {b.shape}")
    if a.dtype.kind != "f":
        a, b = _t.cast(a, np.float32), _t.cast(b, np.float32)
    return a, _t.cast(b, a.dtype) if b.dtype != a.dtype else b


def psnr(a, b, max_val, name=None):
    """Peak signal-to-noise ratio of each pair of images, in dB."""
    a, b = _pair(a, b, "psnr")
    mse = _t.reduce_mean(_t.squared_difference(a, b), [-3, -2, -1])
    max_val = _t.cast(max_val, a.dtype)
    return _t.subtract(20.0 / float(np.log(10.0)) * _t.log(max_val),
                       10.0 / float(np.log(10.0)) * _t.log(mse), name=name)


def _gaussian(size, sigma, dtype):
    coords = np.arange(size, dtype=np.float64) - (size - 1) / 2.0
    g = np.exp(-(coords[:, None] ** 2 + coords[None, :] ** 2) / (2.0 * sigma ** 2))
    return (g / g.sum()).astype(dtype)


def _blur(x, window):
    """Each channel of [N, H, W, C] averaged under ``window`` (VALID positions)."""
    c = int(x.shape[-1])
    taps = literal(x.graph, np.tile(window[:, :, None, None], (1, 1, c, 1)))
    return depthwise_conv2d(x, taps, [1, 1, 1, 1], "VALID")


def _as_batch(x):
    lead = x.shape[:-3]
    return _t.reshape(x, [-1] + [int(d) for d in x.shape[-3:]]), lead


def _ssim_parts(x, y, max_val, window, k1, k2):
    """Per image and channel of [N, H, W, C]: the maps luminance x contrast-structure and
    contrast-structure, over the VALID window positions."""
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mx, my = _blur(x, window), _blur(y, window)
    mean_product, mean_squares = mx * my, mx * mx + my * my
    luminance = (2.0 * mean_product + c1) / (mean_squares + c1)
    # 2 cov(x, y) and var x + var y, as E[xy] - E[x]E[y] and E[x² + y²] - E[x]² - E[y]²
    cov2 = 2.0 * (_blur(x * y, window) - mean_product)
    var_sum = _blur(x * x + y * y, window) - mean_squares
    cs = (cov2 + c2) / (var_sum + c2)
    return luminance * cs, cs


def _checked(a, b, filter_size, what, halvings=0):
    h, w = int(a.shape[-3]), int(a.shape[-2])
    small_h, small_w = h, w
    for _ in range(halvings):   # (an odd side is padded, then halved)
        small_h, small_w = -(-small_h // 2), -(-small_w // 2)
    if small_h < filter_size or small_w < filter_size:
        raise ValueError(f"tf.image.{what}: the images ({h}x{w}) are too small: after "
                         f"{halvings} halvings they are {small_h}x{small_w}, less than "
                         f"filter_size={filter_size} on a side")


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         return_index_map=False):
    """Structural similarity of each pair of images (module docstring)."""
    a, b = _pair(img1, img2, "ssim")
    _checked(a, b, filter_size, "ssim")
    max_val = _t.cast(max_val, a.dtype)
    (x, lead), (y, _) = _as_batch(a), _as_batch(b)
    window = _gaussian(int(filter_size), float(filter_sigma), a.dtype)
    index_map, _ = _ssim_parts(x, y, max_val, window, k1, k2)
    if return_index_map:
        return _t.reshape(_t.reduce_mean(index_map, -1), list(lead) + list(index_map.shape[1:3]))
    per_image = _t.reduce_mean(index_map, [1, 2, 3])
    return _t.reshape(per_image, list(lead)) if lead else per_image[0]


_MS_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)   # Wang et al. 2003, TF's default


def _halved(x):
    """2x2 means (an odd side first padded by repeating its last row/column)."""
    h, w = int(x.shape[1]), int(x.shape[2])
    if h % 2 or w % 2:
        x = _t.pad(x, [[0, 0], [0, h % 2], [0, w % 2], [0, 0]], mode="SYMMETRIC")
    return _t.nn.avg_pool(x, (2, 2), (2, 2), "VALID")


def ssim_multiscale(img1, img2, max_val, power_factors=_MS_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Multi-scale SSIM: the contrast-structure terms of the first scales and the SSIM of
    the last (each a mean over positions, negatives clipped to 0), raised to
    ``power_factors`` and multiplied, then averaged over the channels; between scales
    the images are halved by 2x2 means."""
    a, b = _pair(img1, img2, "ssim_multiscale")
    scales = len(power_factors)
    _checked(a, b, filter_size, "ssim_multiscale", scales - 1)
    max_val = _t.cast(max_val, a.dtype)
    (x, lead), (y, _) = _as_batch(a), _as_batch(b)
    window = _gaussian(int(filter_size), float(filter_sigma), a.dtype)
    terms = []
    for k in range(scales):
        if k:
            x, y = _halved(x), _halved(y)
        index_map, cs = _ssim_parts(x, y, max_val, window, k1, k2)
        last = k == scales - 1
        terms.append(_t.relu(_t.reduce_mean(index_map if last else cs, [1, 2])))
    product = None
    for term, p in zip(terms, power_factors):
        factor = term ** float(p)
        product = factor if product is None else product * factor
    per_image = _t.reduce_mean(product, -1)
    return _t.reshape(per_image, list(lead)) if lead else per_image[0]


def sobel_edges(image):
    """[N, H, W, C, 2]: the Sobel responses (vertical, horizontal) of each channel."""
    x = _t.functions._lift([image])[0]
    if x.ndim != 4:
        raise ValueError(f"tf.image.sobel_edges: image must be [N, H, W, C], got {x.shape}")
    if x.dtype.kind != "f":
        x = _t.cast(x, np.float32)
    dy = np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]], x.dtype)
    padded = _t.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    return _t.stack([_blur(padded, dy), _blur(padded, dy.T)], axis=-1)


def image_gradients(image):
    """``(dy, dx)`` of [N, H, W, C]: ``x[i+1] - x[i]`` along height and width, 0 at the
    far edge."""
    x = _t.functions._lift([image])[0]
    if x.ndim != 4:
        raise ValueError(f"tf.image.image_gradients: image must be [N, H, W, C], got "
                         f"{x.shape}")
    dy = _t.pad(x[:, 1:] - x[:, :-1], [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = _t.pad(x[:, :, 1:] - x[:, :, :-1], [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx
