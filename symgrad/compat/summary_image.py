"""``tf.summary.image``: a batch of images written as PNGs in a Summary's ``image`` values.

``tf.summary.image(name, images, max_outputs=3)`` is an operation like ``scalar``
(``compat.summary``): running it gives a serialized ``Summary`` with one
``Summary.Value`` per image of the first ``max_outputs`` of the batch, tagged
``name/image/0``, ``name/image/1``, ... (``name/image`` when ``max_outputs`` is 1), as
TensorBoard's images tab reads them.  ``images`` is ``[batch, height, width, channels]``
with 1 (grey), 3 (RGB) or 4 (RGBA) channels.  uint8 images are written as they are;
float images are brought to 0..255 per image as TF's kernel does: without negative
values scaled so that the largest is 255, else centred on 128 with the largest
magnitude at 1 or 255 (``* 127 / max|x| + 128``), in float32 and truncated to uint8;
a pixel with a non-finite channel is written red (TF's ``bad_color``).  The PNG is
encoded here (zlib, no filter), so the bytes differ from TF's; the pixels do not.

Imports numpy, zlib and ``compat.summary``.

>>> _to_uint8(np.array([[[0.1], [0.5]], [[1.0], [0.3]]], np.float32))[..., 0].tolist()
[[25, 127], [255, 76]]
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

from ..errors import ArgumentError
from .protobuf import encode_varint
from .protobuf import key as _key
from .summary import _bytes, _summary_op

_COLOR_TYPES = {1: 0, 3: 2, 4: 6}   # channels -> PNG colour type (grey, RGB, RGBA)
_BAD_COLOR = np.array([255, 0, 0, 255], np.uint8)


def _to_uint8(image):
    """One [height, width, channels] image as TF's ImageSummary makes it uint8."""
    if image.dtype.kind in "ui":   # (uint8 in TF; an integer tensor here may be wider)
        return image.astype(np.uint8)
    x = image.astype(np.float32)
    finite = np.isfinite(x).all(axis=-1)
    seen = x[finite]
    low = seen.min() if seen.size else np.float32(np.inf)
    high = seen.max() if seen.size else np.float32(-np.inf)
    if low < 0:
        top = max(abs(low), abs(high))
        scale, offset = (np.float32(0) if top < 1e-6 else np.float32(127) / np.float32(top),
                         np.float32(128))
    else:
        scale = np.float32(0) if high < 1e-6 else np.float32(255) / np.float32(high)
        offset = np.float32(0)
    with np.errstate(invalid="ignore"):
        out = (x * scale + offset).astype(np.uint8)
    out[~finite] = _BAD_COLOR[:x.shape[-1]]
    return out


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png(pixels):
    """The PNG file of a uint8 [height, width, channels] array."""
    height, width, channels = pixels.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    rows = b"".join(b"\x00" + row.tobytes() for row in np.ascontiguousarray(pixels))
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows)) + _chunk(b"IEND", b""))


def _varint(field, value):
    return _key(field, 0) + encode_varint(int(value))


def _image_value(tag, pixels):
    """A ``Summary.Value`` (field 1 tag) holding a ``Summary.Image`` (field 4): height,
    width, colorspace and the encoded image."""
    height, width, channels = pixels.shape
    body = (_varint(1, height) + _varint(2, width) + _varint(3, channels)
            + _bytes(4, png(pixels)))
    return _bytes(1, _bytes(1, tag) + _bytes(4, body))


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """``tf.summary.image``: running it gives a Summary holding the first
    ``max_outputs`` images of the batch as PNGs (see the module docstring)."""
    shape = getattr(tensor, "shape", None)
    if shape is not None and (len(shape) != 4 or (
            isinstance(shape[-1], int) and shape[-1] not in _COLOR_TYPES)):
        raise ArgumentError(f"tf.summary.image({name!r}): the tensor must be [batch, "
                            f"height, width, channels] with 1, 3 or 4 channels, got shape "
                            f"{tuple(shape)}; reshape it (tf.reshape(x, [-1, 28, 28, 1]))")
    max_outputs = int(max_outputs)

    def encode(tag, batch):
        batch = np.asarray(batch)
        if batch.ndim != 4 or batch.shape[-1] not in _COLOR_TYPES:
            raise ArgumentError(f"tf.summary.image({name!r}): images of shape "
                                f"{batch.shape}; need [batch, height, width, 1, 3 or 4]")
        count = min(max_outputs, batch.shape[0])
        tags = [f"{tag}/image"] if max_outputs == 1 else \
            [f"{tag}/image/{i}" for i in range(count)]
        return b"".join(_image_value(t, _to_uint8(batch[i])) for i, t in enumerate(tags[:count]))
    return _summary_op(name, tensor, collections, encode, family)
