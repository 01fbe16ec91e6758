"""``sg.nn``: activations, losses on logits, normalisation, dropout, embeddings.

The activations with kinks are registry primitives (``ops.activations``); the
rest is composed from primitives, written as TF writes them, so the gradients are
TF's.  Convolutions and pooling live in ``tracing.conv`` and are re-exported here.

SEMANTICS (TF's behaviour, kept here):

- ``softmax_cross_entropy_with_logits(labels, logits)`` is
  ``-sum(labels * log_softmax(logits))`` along ``axis``: its gradient is
  ``softmax(logits) - labels`` for labels that sum to 1 (TF's fused kernel returns
  that difference for any labels; symgrad returns the true derivative
  ``sum(labels) * softmax - labels``: they differ only for labels that are not a
  distribution).  The labels get the gradient ``-log_softmax(logits)`` (TF2 and
  ``compat.v1``'s ``_v2``; ``compat.v1``'s v1 function stops it, as TF1 did).
- ``sparse_softmax_cross_entropy_with_logits``: integer labels, no gradient for
  them; a label outside ``[0, classes)`` selects nothing (loss = logsumexp) where
  TF's CPU kernel raises.
- ``sigmoid_cross_entropy_with_logits`` = ``softplus(x) - x * z``, TF's stable
  formula ``max(x, 0) - x * z + log(1 + exp(-|x|))`` in closed form; gradient
  ``sigmoid(x) - z``.
- ``dropout``: the mask is drawn once, when the op is created, from ``seed`` (in
  ``compat.v1`` sessions, anew at each run); kept entries are scaled by ``1/keep``.
  Its numbers cannot match TF's random stream.  Over a size known only at run time
  the numbers are made when the size arrives, from a key fixed at creation, and are
  the ones the known size would have drawn.

>>> with Graph().as_default():
...     logits = constant([[2.0, 1.0, 0.1]])
...     labels = constant([[1.0, 0.0, 0.0]])
...     loss = softmax_cross_entropy_with_logits(labels=labels, logits=logits)
...     round(float(loss.numpy()[0]), 4)
0.417
"""
from __future__ import annotations

import numpy as np

from ..errors import DtypeError, ShapeError
from ..graph import is_static, same_up_to_unknown
from ..graph import Dim, Node
from ..ops import apply, literal, normalize_axis
from ..ops.base import filled
from ..ops.sizes import sizes_of
from ..ops.deferred import defer, scalar_by_contract
from ..ops.draws import draw_like, drawn_numbers, new_key
from .arrays import gather, known_now, one_hot, static_value
from .kernel_notes import note
from .conv import (avg_pool, avg_pool2d, conv1d, conv2d, conv2d_transpose,  # noqa: F401
                   max_pool, max_pool2d)
from .arguments import publish
from .functions import (_lift, abs, cast, concat, exp, less, log1p, logsumexp, maximum,  # noqa: F401
                        mul, neg, reduce_mean, reduce_sum, relu, reshape, sigmoid, softmax,
                        softplus, square, stop_gradient, tanh, where)
from .math_ops import clip_by_norm, named, rsqrt, squared_difference
from .selection import in_top_k, top_k  # noqa: F401
from .tensor import Graph, constant  # noqa: F401  (doctests)

__all__ = ["relu", "relu6", "elu", "selu", "leaky_relu", "softsign", "sigmoid", "tanh",
           "softplus", "softmax", "log_softmax", "bias_add", "l2_loss", "l2_normalize",
           "moments", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits", "sigmoid_cross_entropy_with_logits",
           "weighted_cross_entropy_with_logits", "dropout", "embedding_lookup",
           "conv1d", "conv2d", "conv2d_transpose", "max_pool", "avg_pool", "max_pool2d",
           "avg_pool2d", "swish",
           "silu", "batch_normalization", "atrous_conv2d", "top_k", "in_top_k"]


def relu6(features, name=None):
    """min(max(x, 0), 6); gradient 1 where 0 < x < 6 (TF)."""
    return apply("relu6", _lift([features]), name=name)


def elu(features, name=None):
    """x where x >= 0, exp(x) - 1 below."""
    return apply("elu", _lift([features]), name=name)


def selu(features, name=None):
    """scale * (x where x >= 0, alpha * (exp(x) - 1) below), TF's alpha and scale."""
    return apply("selu", _lift([features]), name=name)


def leaky_relu(features, alpha=0.2, name=None):
    """x where x > 0, alpha * x elsewhere (alpha 0.2 by default, as TF)."""
    return apply("leaky_relu", _lift([features]), alpha=float(alpha), name=name)


def softsign(features, name=None):
    """x / (1 + |x|)."""
    (x,) = _lift([features])
    return named(x / (1 + abs(x)), name)


def swish(features, beta=1.0, name=None):
    """x * sigmoid(beta * x) (also ``silu``)."""
    (x,) = _lift([features])
    return mul(x, sigmoid(beta * x if beta != 1.0 else x), name=name)


silu = swish


def log_softmax(logits, axis=None, name=None):
    """logits - logsumexp(logits) along ``axis`` (the last by default)."""
    (x,) = _lift([logits])
    axis = -1 if axis is None else axis
    return named(x - logsumexp(x, axis=axis, keepdims=True), name)


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with ``bias`` along the channel axis (last, or 1 for NC..)."""
    x, b = _lift([value, bias])
    if b.ndim != 1:
        raise ShapeError(f"bias_add(bias): needs a vector, got shape {b.shape}")
    if data_format and str(data_format).upper().startswith("NC"):
        b = reshape(b, (b.shape[0],) + (1,) * (x.ndim - 2))
    return named(x + b, name)


def l2_loss(t, name=None):
    """sum(t ** 2) / 2 of a float tensor (TF's kernel takes no integers)."""
    (x,) = _lift([t])
    if not x.is_float:
        raise TypeError(f"l2_loss: Value passed to parameter 't' has DataType {x.dtype} not in "
                        "list of allowed values: float16, bfloat16, float32, float64; cast it "
                        "first (tf.cast(t, tf.float32))")
    return named(reduce_sum(square(x)) / 2, name)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2), epsilon)) along ``axis`` (TF's formula)."""
    (x,) = _lift([x])
    axis = dim if axis is None else axis
    square_sum = reduce_sum(square(x), axis, keepdims=True)
    return named(x * rsqrt(maximum(square_sum, epsilon)), name)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """``(mean, variance)`` over ``axes`` (TF: the variance stops the mean's gradient),
    named as TF names them (``moments/Squeeze:0``, ``moments/Squeeze_1:0``; with
    ``keepdims`` ``moments/mean:0``, ``moments/variance:0``): a moving average of them
    (``tf.train.ExponentialMovingAverage``) names its variables, and so its checkpoint
    entries, after them."""
    (x,) = _lift([x])
    with x.graph.name_scope(name or "moments"):
        mean = reduce_mean(x, axes, keepdims=True, name="mean")
        var = reduce_mean(squared_difference(x, stop_gradient(mean)), axes, keepdims=True,
                          name="variance")
        if not keepdims:
            axes = normalize_axis(axes, x.ndim, "moments")
            kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
            mean, var = reshape(mean, kept, name="Squeeze"), reshape(var, kept, name="Squeeze")
    return mean, var


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None, dim=None):
    """-sum(labels * log_softmax(logits)) along ``axis``: one loss per example.

    >>> with Graph().as_default():
    ...     x = constant([[0.0, 0.0]])
    ...     bool(softmax_cross_entropy_with_logits([[0.5, 0.5]], x).numpy()[0] == np.log(2))
    True
    """
    axis = dim if dim is not None else axis
    logits, labels = _lift([logits, labels])
    return neg(reduce_sum(labels * log_softmax(logits, axis), axis), name=name)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """The cross entropy with integer class ``labels`` (shape ``logits.shape[:-1]``)."""
    logits, labels = _lift([logits, labels])
    if labels.dtype.kind not in "iu":   # (TF's TypeError: its kernel takes int32/int64)
        raise DtypeError(f"sparse_softmax_cross_entropy_with_logits(labels): needs integer "
                         f"class indices, got {labels.dtype}; cast them (tf.cast(labels, "
                         f"tf.int32))")
    if logits.ndim == 0:
        raise ShapeError("sparse_softmax_cross_entropy_with_logits: logits cannot be a "
                         "scalar; give them a last axis of classes")
    if not same_up_to_unknown(labels.shape, logits.shape[:-1]):   # TF: None fits any size
        raise ShapeError(f"sparse_softmax_cross_entropy_with_logits: labels of shape "
                         f"{labels.shape} must have the shape of logits without the last axis "
                         f"{logits.shape[:-1]}")
    hot = one_hot(labels, logits.shape[-1], dtype=logits.dtype)
    out = neg(reduce_sum(hot * log_softmax(logits), -1), name=name)
    for node in (hot, out):   # TF's kernel refuses a label outside [0, classes)
        note(node, "labels", [labels, logits], named=out)
    return out


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """softplus(x) - x * z elementwise: the logistic loss of logits x and labels z."""
    if labels is None or logits is None:
        raise ValueError("sigmoid_cross_entropy_with_logits: pass both labels= and logits=")
    x, z = _lift([logits, labels])
    # TF checks the shapes known when the graph is built (None fits any size); a tensor
    # of unknown rank passes, and the elementwise ops then broadcast the fed values (the
    # logistic regression of "Learning TensorFlow": labels placeholder(shape=None) of
    # shape (200,) against logits (1, 200)), so this function meets unknown ranks itself
    if x.shape is not None and z.shape is not None and not same_up_to_unknown(x.shape,
                                                                               z.shape):
        raise ShapeError(f"sigmoid_cross_entropy_with_logits: logits {x.shape} and labels "
                         f"{z.shape} must have the same shape")
    return named(softplus(x) - x * z, name)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """TF's ``(1 - z) * x + (1 + (pos_weight - 1) * z) * (log1p(exp(-|x|)) + relu(-x))``:
    softplus(-x) written as TF writes it, so that the gradient at x = 0 is TF's (abs and
    relu pass 0 there: 1 - z, where softplus would give (1 - z) - (1 + (w - 1) z) / 2)."""
    x, z, w = _lift([logits, labels, pos_weight])
    softplus_neg = log1p(exp(neg(abs(x)))) + relu(neg(x))
    return named((1 - z) * x + (1 + (w - 1) * z) * softplus_neg, name)


def mask_shape(x, noise_shape):
    """dropout's ``noise_shape`` as a shape: ints, None for x's size there (Keras's
    SpatialDropout), or a size of x read in the graph (``tf.shape(x)[0]``)."""
    if len(noise_shape) != len(x.shape):
        raise ShapeError(f"dropout(noise_shape={list(noise_shape)!r}): needs one size per "
                         f"axis of x, whose shape is {x.shape}")
    shape = []
    for axis, d in enumerate(noise_shape):
        found = sizes_of(d) if isinstance(d, Node) and d.shape == () else [d]
        size = x.shape[axis] if d is None else found[0] if found and len(found) == 1 else None
        if isinstance(size, Dim) and size != x.shape[axis]:
            size = None   # (a size known at run time, but not x's on this axis)
        if not isinstance(size, (int, np.integer, Dim)):
            raise ShapeError(f"dropout(noise_shape={list(noise_shape)!r}): give each size as "
                             "a number, None or a size of x (leave noise_shape out for a mask "
                             "of x's shape)")
        shape.append(size if isinstance(size, Dim) else int(size))
        if isinstance(x.shape[axis], (int, np.integer)) and shape[-1] not in (1, x.shape[axis]):
            raise ShapeError(f"dropout(noise_shape={list(noise_shape)!r}): each size must be "
                             f"1 or x's ({x.shape})")
    return tuple(shape)


def dropout(x, rate=None, noise_shape=None, seed=None, name=None, keep_prob=None, rng=None,
            per_run=False):
    """Zero entries with probability ``rate`` (or keep them with ``keep_prob``) and scale
    the kept ones by ``1/keep``; the mask's numbers are fixed once, now (module
    docstring).  ``rate``/``keep_prob`` may be a tensor fed at run time (TF1's
    ``keep_prob = tf.placeholder(tf.float32)``, 0.5 to train and 1.0 to evaluate): an
    entry is kept where its number is below the fed keep probability.  An x with an
    unknown size (``[None, d]``) gets its numbers when its size arrives
    (``ops.draws``): row i has the same numbers in every batch, the ones a known size
    would have had.  ``per_run`` (compat.v1's dropout) makes them a ``random_draw``
    whatever the size, so each ``Session.run`` draws a new mask, as TF does."""
    (x,) = _lift([x])
    given, what = (rate, "rate") if rate is not None else (keep_prob, "keep_prob")
    if given is None:
        raise ValueError("dropout: pass rate= (or TF1's keep_prob=), the probability of "
                         "dropping (keeping) each entry")
    shape = x.shape if noise_shape is None or x.shape is None else mask_shape(x, noise_shape)
    given = scalar_by_contract(given)  # (TF1's keep_prob = tf.placeholder(tf.float32))
    fed = not known_now(given)         # a tensor fed when the graph runs
    keep = given if fed else float(static_value(given, f"dropout({what})"))
    if rate is not None:
        keep = 1.0 - keep
    if not fed and not 0.0 < keep <= 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1) (got rate={rate!r}, "
                         f"keep_prob={keep_prob!r})")
    key = new_key(rng or np.random.default_rng(seed))
    if x.shape is None:   # x of unknown rank (TF1's placeholder(tf.float32)): made later,
        # when values arrive, with this key (ops.deferred)
        return defer(dropout, (x,), dict(rate=rate, noise_shape=noise_shape, name=name,
                                          keep_prob=keep_prob,
                                          rng=np.random.default_rng(key), per_run=per_run),
                     name=name or "dropout")
    dtype = x.dtype if x.is_float else np.float64
    if per_run or not is_static(shape):   # made when the size is known (or per run)
        # (numbers of the noise shape, shared along its axes of size 1)
        drawn = draw_like(x if shape == x.shape else filled(x.graph, 0, shape, dtype), key)
        drawn = drawn if dtype == drawn.dtype else cast(drawn, dtype)
    elif fed:
        drawn = literal(x.graph, drawn_numbers(shape, key).astype(dtype))
    else:
        mask = (drawn_numbers(shape, key) < keep).astype(dtype) / keep
        return mul(x, literal(x.graph, mask), name=name)
    scale = 1.0 / keep if fed else literal(x.graph, np.asarray(1.0 / keep, dtype))
    scale = scale if scale.dtype == dtype else cast(scale, dtype)
    return named(x * where(less(drawn, keep), scale, literal(x.graph, np.zeros((), dtype))),
                 name)


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True,
                     max_norm=None):
    """Rows of ``params`` at ``ids``; ``params`` may be a list of shards ('mod' or 'div').

    >>> with Graph().as_default():
    ...     shards = [constant([[0.0], [2.0]]), constant([[1.0]])]
    ...     embedding_lookup(shards, [2, 1]).numpy().tolist()
    [[2.0], [1.0]]
    """
    table = _whole_table(params, partition_strategy)
    if max_norm is None:
        return gather(table, ids, name=name)
    return clip_rows(gather(table, ids), table.ndim - 1, max_norm, name)


def clip_rows(rows, row_rank, max_norm, name=None):
    """Looked-up ``rows`` (each of rank ``row_rank``) scaled down to norm ``max_norm``
    where longer: TF's ``embedding_lookup(max_norm=...)``, the norm taken over each
    row's own axes."""
    axes = list(range(rows.ndim - row_rank, rows.ndim))
    return clip_by_norm(rows, max_norm, axes=axes, name=name)


def table_shards(params):
    """The shards of an embedding table as given: a TF1 PartitionedVariable's parts, a
    list's items, or the table alone."""
    if hasattr(params, "_get_variable_list"):
        return params._get_variable_list()
    return list(params) if isinstance(params, (list, tuple)) else [params]


def _whole_table(params, strategy):
    shards = _lift(table_shards(params))
    if len(shards) == 1:
        return shards[0]
    joined = concat(shards, 0)
    if strategy == "div":
        return joined
    if strategy != "mod":
        raise ValueError(f"embedding_lookup(partition_strategy={strategy!r}): use 'mod' or 'div'")
    # id r lives in shard r % P at row r // P; list the joined rows in id order
    starts = np.cumsum([0] + [s.shape[0] for s in shards])
    total, count = int(starts[-1]), len(shards)
    order = [int(starts[r % count] + r // count) for r in range(total)]
    return apply("index", [joined], index=(np.array(order, dtype=np.int64),))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + epsilon) + offset`` (offset/scale may be None)."""
    x, m, v = _lift([x, mean, variance])
    inv = rsqrt(v + variance_epsilon)
    if scale is not None:
        inv = inv * scale
    out = x * inv + ((offset - m * inv) if offset is not None else neg(m * inv))
    return named(out, name)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """conv2d with dilation ``rate`` (positive) and stride 1."""
    if not isinstance(rate, Node) and int(rate) < 1:
        raise ValueError(f"atrous_conv2d: rate must be a positive integer, got {rate}")
    return conv2d(value, filters, 1, padding, dilations=rate, name=name)


# every public function checks its arity and argument kinds and records calls meeting a
# tensor of unknown rank (tracing.arguments)
publish(globals(), counts={"moments": 2, "top_k": 2},
        own=("dropout", "sigmoid_cross_entropy_with_logits"))
