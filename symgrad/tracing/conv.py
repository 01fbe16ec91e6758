"""Convolutions and pooling (``tf.nn.conv1d/conv2d/max_pool/avg_pool``) from primitives.

A convolution is an im2col gather (the ``index`` primitive: every window's
elements, read from the padded input at a static, affine table) followed by a
contraction with the filters (``einsum``).  Their derivative rules give TF's
gradients (the gather's adjoint is a scatter-add); the compiled path reads the
windows in place.  When the height or width is known only at run time (a Dim) no
table can be written: ``conv_sizes`` reads the same windows with one strided slice
per tap.  Layouts: NHWC/NWC (TF's default) and NCHW/NCW (transposed).

SEMANTICS (TF's behaviour):

- ``padding="SAME"``: output size ceil(n / stride), the padding split with the
  smaller half before; ``"VALID"``: windows inside the input only; conv2d also takes
  TF's explicit ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` (zeros, then VALID).
- ``max_pool``: padded positions never win; the gradient of each window goes to
  the *first* maximal element (TF's MaxPoolGrad), not shared among ties.
- ``avg_pool`` with SAME divides by the number of real (unpadded) elements.

>>> with Graph().as_default():
...     x = constant(np.arange(16.0).reshape(1, 4, 4, 1))
...     max_pool(x, 2, 2, "VALID").numpy().reshape(2, 2).tolist()
[[5.0, 7.0], [13.0, 15.0]]
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import ShapeError
from ..graph import Dim
from ..ops.sizes import sizes_of
from ..ops import apply, literal
from ..ops.base import filled
from . import conv_sizes
from .arrays import static_value
from .pads import pad
from .arguments import publish
from .kernel_notes import note
from .functions import (_lift, equal, reduce_max, reduce_min, reduce_sum, reshape, transpose,
                        where)
from .math_ops import named
from .tensor import Graph, constant  # noqa: F401  (doctests)

__all__ = ["conv1d", "conv2d", "conv2d_transpose", "max_pool", "avg_pool", "max_pool2d",
           "avg_pool2d"]


def _spatial(value, what, n=2, channels_first=False):
    """An int or a list (n spatial entries, or n + 2 with batch and channel: in NCHW
    order, the channel second, when ``channels_first``) as a tuple."""
    v = [int(d) for d in np.atleast_1d(static_value(value, what))]
    if len(v) == 1:
        return tuple(v) * n
    if len(v) == n:
        return tuple(v)
    if len(v) == n + 2:
        return tuple(v[2:] if channels_first else v[1:-1])
    raise ShapeError(f"{what}: {v} needs 1, {n} or {n + 2} entries")


# TF's kernels' run-time refusals of window entries other than 1 on the batch or
# channel axis: (message, whether it is TF's UnimplementedError)
_REFUSALS = {
    "strides": ("Current implementation does not yet support strides in the batch and "
                "depth dimensions.", True),
    "dilations": ("Current implementation does not yet support dilations in the batch and "
                  "depth dimensions.", False),
    "batch": ("Pooling is not yet supported on the batch dimension.", True),
    "depth": ("Pooling across depth is not supported by symgrad; pool over height and "
              "width (ksize [1, h, w, 1]).", True)}


def _refused(out, x, channels_first, **windows):
    """``out``, noted (kernel_notes' ``"refused"``) with TF's refusal when a window
    argument (4 entries) asks for a batch or channel entry other than 1; ``windows``:
    the refusal's kind -> the arguments it reads (``batch``/``depth``: one axis)."""
    for kind, values in windows.items():
        outer = []
        for value in values:
            v = [int(d) for d in np.atleast_1d(static_value(value, kind))]
            if len(v) == 4:
                outer += [v[0]] * (kind != "depth") + [v[1] if channels_first else v[3]] * \
                    (kind != "batch")
        if any(d != 1 for d in outer):
            message, unimplemented = _REFUSALS[kind]
            note(out, "refused", [x], named=out, message=message, unimplemented=unimplemented)
    return out


def _geometry(size, k, stride, dilation, padding):
    """(output size, padding before, padding after) along one axis."""
    span = (k - 1) * dilation + 1
    if padding == "VALID":
        if size < span:
            raise ShapeError(f"VALID padding: a window of {span} does not fit an axis of {size}")
        return (size - span) // stride + 1, 0, 0
    if padding != "SAME":
        raise ValueError(f"padding={padding!r}: use 'SAME' or 'VALID'")
    out = math.ceil(size / stride)
    total = max((out - 1) * stride + span - size, 0)
    return out, total // 2, total - total // 2


def _window_index(shape, ksize, strides, dilations, padding):
    """For NHWC ``shape``: the index of every window's elements in the padded input,
    laid out (N, OH, OW, C, KH*KW), and the padding (top, bottom, left, right).  The
    batch axis is a whole slice, so N may be known only at run time ([None, 28, 28, 1])."""
    n, h, w, c = shape   # (height and width known: a Dim takes conv_sizes' way)
    (oh, top, bottom), (ow, left, right) = (
        _geometry(s, k, st, d, padding) for s, k, st, d in zip((h, w), ksize, strides, dilations))
    kh, kw = ksize
    k = np.arange(kh * kw)
    rows = np.arange(oh)[:, None] * strides[0] + (k // kw)[None, :] * dilations[0]
    cols = np.arange(ow)[:, None] * strides[1] + (k % kw)[None, :] * dilations[1]
    index = (slice(None), rows.reshape(oh, 1, 1, kh * kw), cols.reshape(1, ow, 1, kh * kw),
             np.arange(c).reshape(1, 1, c, 1))
    return index, (top, bottom, left, right)


def _windows(x, ksize, strides, dilations, padding, fill):
    """The windows of NHWC ``x`` as (N, OH, OW, C, KH*KW), and TF's padding (top,
    bottom, left, right)."""
    if any(isinstance(d, Dim) for d in x.shape[1:3]):   # sizes known at run time
        return conv_sizes.windows(x, ksize, strides, dilations, padding, fill)
    index, (top, bottom, left, right) = _window_index(x.shape, ksize, strides, dilations, padding)
    xp = pad(x, [[0, 0], [top, bottom], [left, right], [0, 0]], constant_values=fill) \
        if top or bottom or left or right else x
    return apply("index", [xp], index=index), (top, bottom, left, right)


def _explicit(x, padding, channels_first):
    """TF's explicit padding (``[[0, 0], [top, bottom], [left, right], [0, 0]]`` in the
    data format's order) as zeros around NHWC ``x`` and ``"VALID"``; a string passes."""
    if isinstance(padding, str):
        return x, padding
    rows = static_value(padding, "conv2d(padding)").astype(np.int64).reshape(-1, 2)
    spatial = [2, 3] if channels_first else [1, 2]
    if rows.shape != (4, 2) or (rows < 0).any() or \
            rows[[d for d in range(4) if d not in spatial]].any():
        raise ValueError(f"conv2d(padding={rows.tolist()}): explicit padding is 4 pairs "
                         f"[before, after] >= 0, zero for the batch and channel axes")
    return pad(x, [[0, 0]] + rows[spatial].tolist() + [[0, 0]]), "VALID"


def _nhwc(x, data_format):
    channels_first = str(data_format or "NHWC").upper().startswith("NC")
    return (transpose(x, (0, 2, 3, 1)) if channels_first else x), channels_first


def _back(y, channels_first, name):
    return transpose(y, (0, 3, 1, 2), name=name) if channels_first else named(y, name)


def conv2d(input=None, filters=None, strides=None, padding=None, use_cudnn_on_gpu=True,
           data_format="NHWC", dilations=1, name=None, filter=None):
    """2-D convolution (cross-correlation, as TF) of ``input`` [N, H, W, C] with
    ``filters`` [KH, KW, C, O]; ``strides``/``dilations`` an int or a list.

    >>> with Graph().as_default():
    ...     x = constant(np.ones((1, 3, 3, 1)))
    ...     conv2d(x, np.ones((2, 2, 1, 1)), 1, "SAME").numpy()[0, :, :, 0].tolist()
    [[4.0, 4.0, 2.0], [4.0, 4.0, 2.0], [2.0, 2.0, 1.0]]
    """
    filters = filter if filters is None else filters
    x, f = _lift([input, filters])
    if x.ndim != 4 or f.ndim != 4:
        raise ShapeError(f"conv2d: needs input [N, H, W, C] and filters [KH, KW, C, O], got "
                         f"{x.shape} and {f.shape}")
    x, channels_first = _nhwc(x, data_format)
    if f.shape[2] != x.shape[3]:
        raise ShapeError(f"conv2d: filters {f.shape} expect {f.shape[2]} input channels, the "
                         f"input has {x.shape[3]}")
    x, padding = _explicit(x, padding, channels_first)
    patches, _ = _windows(x, f.shape[:2], _spatial(strides, "conv2d(strides)", 2, channels_first),
                          _spatial(dilations, "conv2d(dilations)", 2, channels_first), padding, 0)
    taps = reshape(f, (f.shape[0] * f.shape[1],) + f.shape[2:])
    y = apply("einsum", [patches, taps], subscripts="nhwck,kco->nhwo")
    return _refused(_back(y, channels_first, name), x, channels_first, strides=[strides],
                    dilations=[dilations])


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NHWC", name=None, input=None, filters=None, dilations=1):
    """The adjoint of ``conv2d`` with respect to its input (a "deconvolution"): ``value``
    [N, OH, OW, O] spread through ``filter`` [KH, KW, C, O] into ``output_shape``
    [N, H, W, C]; each window's contributions are scatter-added (the im2col gather's
    adjoint), then the padding is cut off."""
    value = input if value is None else value
    filters = filter if filters is None else filters
    y, f = _lift([value, filters])
    y, channels_first = _nhwc(y, data_format)
    shape = sizes_of(output_shape)   # the batch may be tf.shape(x)[0], known at run time
    if shape is None or len(shape) != 4:
        shape = tuple(int(d) for d in static_value(output_shape,
                                                   "conv2d_transpose(output_shape)"))
    if isinstance(shape[0], Dim) or isinstance(y.shape[0], Dim):
        shape = (y.shape[0],) + shape[1:]   # a run-time batch: the value's own
    if channels_first:
        shape = (shape[0], shape[2], shape[3], shape[1])
    strides, dilations = (_spatial(strides, "conv2d_transpose(strides)", 2, channels_first),
                          _spatial(dilations, "conv2d_transpose(dilations)", 2, channels_first))
    taps = reshape(f, (f.shape[0] * f.shape[1],) + f.shape[2:])
    if any(isinstance(d, Dim) for d in shape[1:3]):   # a height or width known at run time
        parts = apply("einsum", [y, taps], subscripts="nhwo,kco->nhwck")
        out = conv_sizes.spread(parts, shape, f.shape[:2], strides, dilations, padding)
        return _back(out, channels_first, name)
    index, (top, bottom, left, right) = _window_index(shape, f.shape[:2], strides, dilations,
                                                      padding)
    expected = (shape[0],) + np.broadcast_shapes(*[i.shape for i in index[1:]])[:2] + (
        f.shape[3],)
    if y.shape != expected:
        raise ShapeError(f"conv2d_transpose: value of shape {y.shape} does not fit "
                         f"output_shape {shape} (conv2d of it gives {expected})")
    parts = apply("einsum", [y, taps], subscripts="nhwo,kco->nhwck")
    padded = (shape[0], shape[1] + top + bottom, shape[2] + left + right, shape[3])
    full = apply("index_add", [parts], shape=padded, index=index)
    out = full[:, top:top + shape[1], left:left + shape[2], :] if top or bottom or left or \
        right else full
    return _back(out, channels_first, name)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format="NWC", name=None, input=None, dilations=1):
    """1-D convolution of [N, W, C] with filters [K, C, O] (conv2d with height 1)."""
    x, f = _lift([input if value is None else value, filters])
    channels_first = str(data_format or "NWC").upper().startswith("NC")
    if channels_first:
        x = transpose(x, (0, 2, 1))
    x4 = reshape(x, (x.shape[0], 1) + x.shape[1:])
    f4 = reshape(f, (1,) + f.shape)
    (s,), (d,) = (_spatial(stride, "conv1d(stride)", 1, channels_first),
                  _spatial(dilations, "conv1d", 1, channels_first))
    y = conv2d(x4, f4, (1, s), padding, dilations=(1, d))
    y = reshape(y, (y.shape[0],) + y.shape[2:])
    return transpose(y, (0, 2, 1), name=name) if channels_first else named(y, name)


def max_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC",
             name=None, input=None):
    """Maximum over each window of [N, H, W, C]; the gradient goes to the first maximum."""
    (x,) = _lift([input if value is None else value])
    x, channels_first = _nhwc(x, data_format)
    patches, _ = _windows(x, _spatial(ksize, "max_pool(ksize)", 2, channels_first),
                          _spatial(strides, "max_pool(strides)", 2, channels_first), (1, 1),
                          padding, -np.inf)
    k = patches.shape[-1]
    # the window's positions in the patches' precision (float64 ones made every mask
    # and choice of a float32 network float64, at twice the memory traffic)
    iota = literal(x.graph, np.arange(k, dtype=np.result_type(patches.dtype, np.float32)))
    hit = equal(patches, reduce_max(patches, -1, keepdims=True))
    first = reduce_min(where(hit, iota, float(k)), -1, keepdims=True)
    chosen = where(equal(iota, first), patches, 0.0)
    return _refused(_back(reduce_sum(chosen, -1), channels_first, name), x, channels_first,
                    batch=[ksize, strides], depth=[ksize, strides])


def avg_pool(value=None, ksize=None, strides=None, padding=None, data_format="NHWC", name=None,
             input=None):
    """Mean over each window of [N, H, W, C] (SAME: over the real elements only)."""
    (x,) = _lift([input if value is None else value])
    x, channels_first = _nhwc(x, data_format)
    window = dict(batch=[ksize, strides], depth=[ksize, strides])
    ksize, strides = (_spatial(ksize, "avg_pool(ksize)", 2, channels_first),
                      _spatial(strides, "avg_pool(strides)", 2, channels_first))
    patches, _ = _windows(x, ksize, strides, (1, 1), padding, 0)
    total = reduce_sum(patches, -1)
    return _refused(_back(total / _real_counts(x, ksize, strides, padding, total.dtype),
                          channels_first, name), x, channels_first, **window)


def _real_counts(x, ksize, strides, padding, dtype):
    """How many real (unpadded) elements each window of NHWC ``x`` holds, as
    (1, OH, OW, 1): a literal when the sizes are known, else the windows' sums of a
    tensor of ones of the run-time height and width."""
    h, w = x.shape[1:3]
    if isinstance(h, Dim) or isinstance(w, Dim):
        ones = filled(x.graph, 1, (1, h, w, 1), dtype)
        return reduce_sum(_windows(ones, ksize, strides, (1, 1), padding, 0)[0], -1)
    (oh, top, bottom), (ow, left, right) = (
        _geometry(n, k, s, 1, padding) for n, k, s in zip((h, w), ksize, strides))
    real = np.pad(np.ones((h, w)), [(top, bottom), (left, right)])
    count = np.array([[real[i * strides[0]:i * strides[0] + ksize[0],
                            j * strides[1]:j * strides[1] + ksize[1]].sum()
                       for j in range(ow)] for i in range(oh)])
    return literal(x.graph, count.reshape(1, oh, ow, 1).astype(dtype))


max_pool2d, avg_pool2d = max_pool, avg_pool


# every public function checks its arity and argument kinds and records calls meeting a
# tensor of unknown rank (tracing.arguments)
publish(globals())
