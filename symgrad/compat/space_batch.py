"""``tf.space_to_batch_nd``/``batch_to_space_nd`` (and TF1's 4-D ``space_to_batch``/
``batch_to_space`` with a square block), ``tf.required_space_to_batch_paddings``:
blocks of the spatial axes moved into the batch and back — a pad, a reshape, a
transpose and a reshape (their gradients those of these ops).

For M spatial axes and block shape b: the padded input [B, s1, ..., sM, rest] becomes
[b1 ... bM * B, s1/b1, ..., sM/bM, rest], the block offsets outermost (TF's order).

Sits in ``compat``; imports ``tracing``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     x = tf.constant(np.arange(4.0).reshape(1, 2, 2, 1))
...     print(tf.Session().run(tf.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])).ravel())
[0. 1. 2. 3.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..tracing.arrays import static_value

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "space_to_batch", "batch_to_space",
           "required_space_to_batch_paddings"]


def _ints(value, what):
    return np.asarray(static_value(value, what)).astype(np.int64)


def _blocks(x, block_shape, pairs, what):
    block = _ints(block_shape, f"{what}(block_shape)").reshape(-1)
    pairs = _ints(pairs, f"{what}(paddings/crops)").reshape(-1, 2)
    m = len(block)
    if pairs.shape[0] != m or x.ndim < m + 1 or (block < 1).any() or (pairs < 0).any():
        raise ValueError(f"{what}: block_shape {block.tolist()} and paddings/crops "
                         f"{pairs.tolist()} must have one positive block and one "
                         f"non-negative pair per spatial axis of the input {x.shape}")
    return [int(b) for b in block], pairs.tolist(), m


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002
    """Blocks of the (padded) spatial axes moved into the batch."""
    x = _t.functions._lift([input])[0]
    block, pads, m = _blocks(x, block_shape, paddings, "space_to_batch_nd")
    x = _t.pad(x, [[0, 0]] + pads + [[0, 0]] * (x.ndim - 1 - m))
    sizes = [int(d) for d in x.shape[1:m + 1]]
    if any(s % b for s, b in zip(sizes, block)):
        raise ValueError(f"space_to_batch_nd: the padded spatial sizes {sizes} must be "
                         f"multiples of block_shape {block}")
    rest = [int(d) for d in x.shape[m + 1:]]
    split = [-1] + [v for s, b in zip(sizes, block) for v in (s // b, b)] + rest
    y = _t.reshape(x, split)
    order = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = _t.transpose(y, order)
    return _t.reshape(y, [-1] + [s // b for s, b in zip(sizes, block)] + rest, name=name)


def batch_to_space_nd(input, block_shape, crops, name=None):  # noqa: A002
    """The inverse of ``space_to_batch_nd``, then ``crops`` cut from each spatial axis."""
    x = _t.functions._lift([input])[0]
    block, crops, m = _blocks(x, block_shape, crops, "batch_to_space_nd")
    sizes = [int(d) for d in x.shape[1:m + 1]]
    rest = [int(d) for d in x.shape[m + 1:]]
    if any(lo < 0 or hi < 0 or lo + hi > s * b for (lo, hi), s, b in zip(crops, sizes, block)):
        raise ValueError(f"batch_to_space_nd: crops {crops} must be >= 0 and fit the spatial "
                         f"sizes {[s * b for s, b in zip(sizes, block)]} of the blocks")
    y = _t.reshape(x, block + [-1] + sizes + rest)
    order = [m] + [v for i in range(m) for v in (m + 1 + i, i)] + \
        list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = _t.reshape(_t.transpose(y, order), [-1] + [s * b for s, b in zip(sizes, block)] + rest)
    cut = tuple(slice(lo, s * b - hi) for (lo, hi), s, b in zip(crops, sizes, block))
    return _t.identity(y[(slice(None),) + cut], name=name)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D form: a square ``block_size`` over height and width."""
    size = block_size if block_size is not None else block_shape
    return space_to_batch_nd(input, [int(size)] * 2, paddings, name=name)


def batch_to_space(input, crops, block_size=None, name=None, block_shape=None):  # noqa: A002
    """TF1's 4-D form of ``batch_to_space_nd``."""
    size = block_size if block_size is not None else block_shape
    return batch_to_space_nd(input, [int(size)] * 2, crops, name=name)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None,
                                     name=None):
    """``(paddings, crops)`` (int32) making the padded sizes multiples of the blocks:
    ``base_paddings`` plus what the end needs, and that extra as crops."""
    sizes = _ints(input_shape, "required_space_to_batch_paddings(input_shape)").reshape(-1)
    block = _ints(block_shape, "required_space_to_batch_paddings(block_shape)").reshape(-1)
    base = np.zeros((len(block), 2), np.int64) if base_paddings is None else \
        _ints(base_paddings, "required_space_to_batch_paddings(base_paddings)").reshape(-1, 2)
    full = sizes + base[:, 0] + base[:, 1]
    extra = (block - full % block) % block
    pads = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], 1).astype(np.int32)
    return _t.constant(pads), _t.constant(crops)
