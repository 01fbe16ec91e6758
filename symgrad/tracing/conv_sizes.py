"""Windows of inputs whose spatial sizes are known only at run time (Dims).

``conv`` reads every window of an input of known height and width with one static
gather (an index table); a table cannot be written for a size that is a Dim
(``tf.placeholder(tf.float32, [None, None, None, 3])``: fully convolutional nets,
style transfer, text CNNs over sequences of any length).  Here the same patches
(N, OH, OW, C, KH*KW) are one strided read per tap, each a slice whose bounds are
size expressions, so the derivative rules of slicing and padding serve unchanged:

- the input is padded by TF's amounts (for SAME with a stride, the amount before
  depends on the size modulo the stride: a Dim), and beyond them to a multiple of
  the stride, L * s positions;
- it is viewed as (N, L_h, s_h, L_w, s_w, C); the tap at offset o = a * s + b reads
  blocks a .. a + OH - 1 of phase b: a step-1 slice with a Dim bound and an index.

Output sizes are TF's: SAME ceil(n / s); VALID floor((n - span) / s) + 1, 0 when the
window just does not fit (TF's empty result); a smaller input makes a size negative,
refused when the sizes arrive (``dims.concrete_shape``, the compiled entry's checks).

Imports errors, the graph's Dims, ``ops`` and tracing's functions.
"""
from __future__ import annotations

import sympy

from ..errors import ShapeError
from ..graph import Dim, dim_expr, make_dim, shape_text
from ..ops import apply
from ..ops.base import filled
from .functions import concat, reshape, stack

__all__ = []


def geometry(size, k, stride, dilation, padding):
    """(output size, padding before, padding after) along one axis of a size that may
    be a Dim: ints where they are known, else Dims (size expressions)."""
    span = (k - 1) * dilation + 1
    n = dim_expr(size)
    if padding == "VALID":
        if not isinstance(size, Dim) and size < span:   # (TF refuses it when building)
            raise ShapeError(f"VALID padding: a window of {span} does not fit an axis of "
                             f"{size}")
        return make_dim(sympy.floor((n - span) / stride) + 1), 0, 0
    if padding != "SAME":
        raise ValueError(f"padding={padding!r}: use 'SAME' or 'VALID'")
    out = sympy.ceiling(n / stride)
    total = sympy.Max((out - 1) * stride + span - n, 0)
    before = sympy.floor(total / 2)
    return make_dim(out), make_dim(before), make_dim(total - before)


def _pad_axis(x, axis, before, after, fill):
    """``x`` with ``before``/``after`` (ints or Dims) entries of ``fill`` on ``axis``."""
    parts = []
    for width in (before, after):
        if isinstance(width, Dim) or width:
            shape = x.shape[:axis] + (width,) + x.shape[axis + 1:]
            parts.append(filled(x.graph, fill, shape, x.dtype))
        else:
            parts.append(None)
    if parts == [None, None]:
        return x
    return concat([p for p in (parts[0], x, parts[1]) if p is not None], axis)


def _layout(size, k, stride, dilation, padding):
    """Along one axis: the output size, TF's padding (before, after) and L, the number
    of blocks of ``stride`` positions the padded axis is cut into."""
    out, before, after = geometry(size, k, stride, dilation, padding)
    span = (k - 1) * dilation + 1
    # one block more than the taps reach when strided, so the padding after is never
    # negative (a VALID window leaves up to stride - 1 positions unread at the end)
    blocks = make_dim(dim_expr(out) + (span - 1) // stride + (1 if stride > 1 else 0))
    return out, (before, after), blocks


def _taps(ksize, strides, dilations, oh, ow):
    """For each tap (row-major): its read of the (N, L_h, s_h, L_w, s_w, C) view."""
    (sh, sw), (dh, dw) = strides, dilations
    for i in range(ksize[0] * ksize[1]):
        (ah, bh), (aw, bw) = divmod(i // ksize[1] * dh, sh), divmod(i % ksize[1] * dw, sw)
        yield (slice(None), slice(ah, make_dim(ah + dim_expr(oh))), bh,
               slice(aw, make_dim(aw + dim_expr(ow))), bw, slice(None))


def windows(x, ksize, strides, dilations, padding, fill):
    """The windows of NHWC ``x`` (height or width a Dim) as (N, OH, OW, C, KH*KW), and
    TF's padding (top, bottom, left, right); taps in row-major order, as ``conv``'s
    table."""
    n, h, w, c = x.shape
    (oh, rows, lh), (ow, cols, lw) = (
        _layout(*args, padding) for args in zip((h, w), ksize, strides, dilations))
    (sh, sw) = strides
    xp = _pad_axis(x, 1, rows[0], make_dim(dim_expr(lh) * sh - dim_expr(h) - dim_expr(rows[0])),
                   fill)
    xp = _pad_axis(xp, 2, cols[0], make_dim(dim_expr(lw) * sw - dim_expr(w) - dim_expr(cols[0])),
                   fill)
    phased = reshape(xp, (n, lh, sh, lw, sw, c))
    taps = [phased[index] for index in _taps(ksize, strides, dilations, oh, ow)]
    return stack(taps, -1), rows + cols


def _as_output(parts, sizes, shape):
    """``parts`` with the output sizes the windows of ``shape`` have: refused when they
    differ for every input, else relabelled one axis at a time (a reshape, whose element
    count is checked when values arrive, so each axis's size is)."""
    for axis, size in zip((1, 2), sizes):
        have = parts.shape[axis]
        if (dim_expr(have) - dim_expr(size)).is_nonzero:
            raise ShapeError(f"conv2d_transpose: the value's size {have} on axis {axis} "
                             f"does not fit output_shape {shape_text(shape)} (conv2d of that "
                             f"shape gives {size} there)")
        if have != size:
            parts = reshape(parts, parts.shape[:axis] + (size,) + parts.shape[axis + 1:])
    return parts


def spread(parts, shape, ksize, strides, dilations, padding):
    """The adjoint of :func:`windows`: ``parts`` (N, OH, OW, C, KH*KW) added into the
    windows of an NHWC tensor of ``shape`` (conv2d_transpose); its output size (OH,
    OW) must be the windows' of ``shape``."""
    n, h, w, c = shape
    (oh, rows, lh), (ow, cols, lw) = (
        _layout(*args, padding) for args in zip((h, w), ksize, strides, dilations))
    (sh, sw) = strides
    parts = _as_output(parts, (oh, ow), shape)
    full = None
    for i, index in enumerate(_taps(ksize, strides, dilations, oh, ow)):
        part = apply("index_add", [parts[..., i]], shape=(n, lh, sh, lw, sw, c), index=index)
        full = part if full is None else full + part
    full = reshape(full, (n, make_dim(dim_expr(lh) * sh), make_dim(dim_expr(lw) * sw), c))
    return full[:, rows[0]:make_dim(dim_expr(rows[0]) + dim_expr(h)),
                cols[0]:make_dim(dim_expr(cols[0]) + dim_expr(w)), :]


def axis_taps(x, axis, k, stride, dilation, padding, fill):
    """Along one ``axis`` of ``x`` (its size an int or a Dim): what each of the ``k``
    taps of a window reads, each with the output size there (the depth of a 3-D
    convolution); and TF's padding (before, after)."""
    out, pads, blocks = _layout(x.shape[axis], k, stride, dilation, padding)
    size = x.shape[axis]
    xp = _pad_axis(x, axis, pads[0],
                   make_dim(dim_expr(blocks) * stride - dim_expr(size) - dim_expr(pads[0])), fill)
    phased = reshape(xp, x.shape[:axis] + (blocks, stride) + x.shape[axis + 1:])
    taps = []
    for i in range(k):
        a, b = divmod(i * dilation, stride)
        index = (slice(None),) * axis + (slice(a, make_dim(a + dim_expr(out))), b)
        taps.append(phased[index])
    return taps, out, pads
