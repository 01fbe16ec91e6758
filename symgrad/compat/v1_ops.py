"""The op breadth of ``compat.v1``: ``tf.nn``, ``tf.linalg``, ``tf.math`` and TF1's old
top-level names (``tf.matrix_inverse``, ``tf.diag``, ``tf.to_float``...).

Every function here is a symgrad op from ``tracing`` (one place per op); this
module only gives them TF1's signatures and defaults:

- ``tf.nn.softmax_cross_entropy_with_logits`` (TF1) stops the labels' gradient,
  ``..._v2`` passes it (``-log_softmax(logits)``); the TF1 functions take keyword
  arguments only (``labels=``, ``logits=``), as TF1 enforced with ``_sentinel``.
- ``tf.range``/``tf.eye``/``tf.linspace`` default to int32/float32 like TF.
- ``tf.nn.dropout(x, keep_prob)`` (TF1) and ``rate=`` (TF2); the mask comes from
  ``tf.set_random_seed``/``seed`` and is drawn anew at each ``Session.run``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.nn.softmax_cross_entropy_with_logits(labels=[[0.0, 1.0]], logits=[[0.0, 0.0]])
...     with tf.Session() as sess:
...         print(sess.run(y))
[0.6931472]
"""
from __future__ import annotations


import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..tracing import arrays as _arrays
from . import distributions as _distributions
from . import errors as _errors
from . import more_ops as _more_ops
from . import rnn as _rnn
from . import rnn_wrappers as _rnn_wrappers
from . import rows as _rows
from ..ops.deferred import deferrable, scalar_by_contract
from .runtime import namespace
from .tensor import tf1_results
from ..tracing import linalg as _linalg
from .norms import norm
from ..tracing import math_ops as _math_ops
from ..tracing import nn as _nn
from ..tracing.arrays import *  # noqa: F401,F403  (tf.gather, tf.one_hot, tf.tile, ...)
from ..tracing import selection as _selection
from ..tracing.math_ops import *  # noqa: F401,F403  (tf.argmax, tf.clip_by_value, ...)
from ..tracing.selection import *  # noqa: F401,F403  (tf.scatter_nd, tf.segment_sum, ...)
from .one_hot import one_hot  # noqa: E402  (after the star imports: TF1's dtype rules)


def _keywords_only(fn_name, sentinel):
    if sentinel is not None:
        raise ValueError(f"Only call `{fn_name}` with named arguments (labels=..., "
                         "logits=..., ...)")


def _float_logits(labels, logits):
    """Python lists become float32 tensors (TF1's conversion of float literals)."""
    def conv(v):
        if isinstance(v, _t.Tensor):
            return v
        arr = np.asarray(v)
        return _t.constant(arr.astype(np.float32) if arr.dtype == np.float64 else arr)
    return conv(labels), conv(logits)


def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """The TF2 function: the labels receive the gradient ``-log_softmax(logits)``."""
    labels, logits = _float_logits(labels, logits)
    axis = -1 if axis is None and dim is None else (dim if axis is None else axis)
    return _nn.softmax_cross_entropy_with_logits(labels, logits, axis=axis, name=name)


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """TF1's deprecated function: like ``_v2`` but no gradient flows into the labels."""
    _keywords_only("softmax_cross_entropy_with_logits", _sentinel)
    labels, logits = _float_logits(labels, logits)
    axis = dim if axis is None else axis
    return _nn.softmax_cross_entropy_with_logits(_t.stop_gradient(labels), logits, axis=axis,
                                                 name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Cross entropy with integer class labels (keyword arguments only, as TF1)."""
    _keywords_only("sparse_softmax_cross_entropy_with_logits", _sentinel)
    if not isinstance(labels, _t.Tensor):
        labels = _t.constant(np.asarray(labels, dtype=np.int32))
    return _nn.sparse_softmax_cross_entropy_with_logits(labels, _float_logits(0, logits)[1],
                                                        name=name)


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None):
    """The logistic loss, elementwise (keyword arguments only, as TF1)."""
    _keywords_only("sigmoid_cross_entropy_with_logits", _sentinel)
    labels, logits = _float_logits(labels, logits)
    return _nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name=name)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """TF1's signature (``targets`` is the old name of ``labels``)."""
    labels, logits = _float_logits(targets if labels is None else labels, logits)
    return _nn.weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=name)


# seed -> numpy Generator; compat.v1 installs the one tf.set_random_seed controls
RNG_SOURCE = [np.random.default_rng]


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """TF1's ``dropout(x, keep_prob)`` (or ``rate=``): a mask drawn anew at each
    ``Session.run``, from TF's seed (TF's own mask with an op seed)."""
    if rate is not None or keep_prob is not None:
        # a keep_prob placeholder of any shape is a scalar by contract: narrowed before
        # 1 - keep_prob is built, so the result keeps x's shape (a second seeded dropout
        # on it needs that shape to draw TF's mask)
        rate, keep_prob = scalar_by_contract(rate), scalar_by_contract(keep_prob)
        tf_rate = rate if rate is not None else _t.subtract(1.0, keep_prob) if isinstance(
            keep_prob, Node) else 1.0 - float(keep_prob)
        seeded = _distributions.seeded_dropout(x, tf_rate, noise_shape, seed, name)
        if seeded is not None:
            return seeded
    return _nn.dropout(x, rate=rate, keep_prob=keep_prob, noise_shape=noise_shape,
                       name=name, rng=RNG_SOURCE[0](seed), per_run=True)


def _softmax_axis(logits, axis, dim):
    """The axis of a (log_)softmax: ``dim``, TF1's name, or the last; one outside the
    rank is TF's InvalidArgumentError, raised when the graph is built."""
    axis = -1 if axis is None and dim is None else dim if axis is None else axis
    _floats_only("nn.softmax", logits)
    rank = getattr(logits, "ndim", None) if isinstance(logits, Node) else np.ndim(logits)
    if rank is not None and isinstance(axis, (int, np.integer)) and not -rank <= axis < rank:
        raise _errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the "
                        f"number of dimensions in the input. Received: dim={axis}")
    return axis


def log_softmax(logits, axis=None, name=None, dim=None):
    return _nn.log_softmax(logits, axis=_softmax_axis(logits, axis, dim), name=name)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    return _nn.l2_normalize(x, axis=dim if axis is None else axis, epsilon=epsilon, name=name)


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """``tf.nn.moments`` with TF1's ``keep_dims`` (the old name of ``keepdims``)."""
    keep = keep_dims if keepdims is None else keepdims
    return _nn.moments(x, axes, shift=shift, keepdims=bool(keep), name=name)


def softmax(logits, axis=None, name=None, dim=None):
    """``tf.nn.softmax`` with TF1's ``dim`` (the last axis by default)."""
    return _t.softmax(logits, _softmax_axis(logits, axis, dim), name=name)


_NN_V1 = {f.__name__: f for f in (softmax,
    softmax_cross_entropy_with_logits, softmax_cross_entropy_with_logits_v2,
    sparse_softmax_cross_entropy_with_logits, sigmoid_cross_entropy_with_logits,
    weighted_cross_entropy_with_logits, dropout, log_softmax, l2_normalize, moments)}
CELLS = {n: getattr(_rnn, n) for n in ("RNNCell", "BasicRNNCell", "BasicLSTMCell", "LSTMCell",
                                        "GRUCell", "MultiRNNCell", "DropoutWrapper",
                                        "LSTMStateTuple")}
CELLS.update({n: getattr(_rnn_wrappers, n) for n in _rnn_wrappers.__all__})
RNNS = {n: getattr(_rnn, n) for n in ("dynamic_rnn", "static_rnn", "bidirectional_dynamic_rnn",
                                      "static_bidirectional_rnn")}
reverse_sequence = _rnn.reverse_sequence
nn = namespace("nn", **{**{n: getattr(_nn, n) for n in _nn.__all__}, **_NN_V1, **RNNS},
               rnn_cell=namespace("nn.rnn_cell", **CELLS))


def _tf1_reduction(fn):
    """TF1's reduction signature: ``reduction_indices`` and ``keep_dims`` are the old names
    of ``axis`` and ``keepdims`` (the MNIST tutorial's ``reduction_indices=[1]``)."""
    def reduce(input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None,
               keep_dims=None):
        if axis is not None and reduction_indices is not None:
            raise ValueError(f"{fn.__name__}: pass axis or reduction_indices, not both")
        axis = reduction_indices if axis is None else axis
        keep = keep_dims if keepdims is None else keepdims
        if fn.__name__ not in ("reduce_any", "reduce_all"):
            _no_bool(fn.__name__, input_tensor)
        if fn.__name__ == "reduce_logsumexp":
            _floats_only("reduce_logsumexp", input_tensor)
        return fn(input_tensor, axis=axis, keepdims=bool(keep), name=name)
    reduce.__name__, reduce.__doc__ = fn.__name__, fn.__doc__
    return reduce


def _no_bool(what, value):
    """TF's TypeError for a bool tensor given to an arithmetic reduction (its kernels take
    numbers only); symgrad would otherwise reduce True/False with logic, not counts."""
    if isinstance(value, Node) and value.dtype == np.bool_:
        raise TypeError(f"tf.{what}: {value.name!r} is a bool tensor, which TF does not "
                        f"reduce arithmetically; cast it first: tf.{what}(tf.cast(x, "
                        "tf.float32)) (a mean of the cast booleans is the fraction of True), "
                        "or use tf.reduce_any / tf.reduce_all")


def _floats_only(what, value):
    """TF's TypeError for an integer tensor given to an op whose kernels take floats
    (softmax, logsumexp)."""
    if isinstance(value, Node) and value.dtype.kind in "iu":
        raise TypeError(f"tf.{what}: {value.name!r} is a {value.dtype.name} tensor; TF's "
                        f"kernel takes floats only: cast it first (tf.cast(x, tf.float32))")


_REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
               "reduce_logsumexp", "reduce_any", "reduce_all", "reduce_variance", "reduce_std"]
globals().update({n: _tf1_reduction(getattr(_t, n)) for n in _REDUCTIONS})


def expand_dims(input, axis=None, name=None, dim=None):
    """``tf.expand_dims`` with TF1's ``dim``."""
    return _t.expand_dims(input, dim if axis is None else axis, name=name)




def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """``tf.squeeze`` with TF1's ``squeeze_dims``."""
    return _t.squeeze(input, squeeze_dims if axis is None else axis, name=name)


_RANGE_TYPES = [np.dtype(t) for t in (np.int32, np.int64, np.float16, np.float32, np.float64)]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``tf.range``: int32 for Python ints, float32 for Python floats, and as TF the
    widest of the arguments' types, tensors cast to it (Transformer-XL's
    ``tf.range(klen - 1, -1, -1.0)`` of an int32 ``klen`` is float32)."""
    args = [v for v in (start, limit, delta) if v is not None]
    if dtype is None:
        found = [v.dtype if isinstance(v, _t.Tensor) else np.dtype(
            np.float32 if np.asarray(v).dtype.kind == "f" else np.int32) for v in args]
        dtype = max(found, key=lambda t: _RANGE_TYPES.index(t) if t in _RANGE_TYPES else -1)
    cast = [_t.cast(v, dtype) if isinstance(v, _t.Tensor) and v.dtype != np.dtype(dtype)
            else v for v in (start, limit, delta)]
    return _arrays.range(*cast, dtype=dtype, name=name)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=np.float32, name=None):
    """``tf.eye``: float32 by default (TF)."""
    return _arrays.eye(num_rows, num_columns, batch_shape, dtype=dtype, name=name)


def linspace(start, stop, num, name=None, axis=0):
    """``tf.linspace`` of Python floats is float32 (TF)."""
    start, stop = (np.float32(v) if isinstance(v, float) else v for v in (start, stop))
    return _arrays.linspace(start, stop, num, name=name, axis=axis)


lin_space = linspace


def _cast_to(dtype, fn_name):
    def fn(x, name=fn_name):
        return _t.cast(x, dtype, name=None if name == fn_name else name)
    fn.__name__ = fn_name
    return fn


to_float = _cast_to(np.float32, "ToFloat")
to_double = _cast_to(np.float64, "ToDouble")
to_int32 = _cast_to(np.int32, "ToInt32")
to_int64 = _cast_to(np.int64, "ToInt64")

# TF1's old top-level names of linear algebra
matrix_transpose = _linalg.matrix_transpose
diag = _linalg.tensor_diag
diag_part = _linalg.tensor_diag_part
trace = _linalg.trace
matrix_inverse = _linalg.inv
matrix_determinant = _linalg.det
log_matrix_determinant = _linalg.slogdet
cholesky = _linalg.cholesky
self_adjoint_eig = _linalg.eigh
self_adjoint_eigvals = _linalg.eigvalsh
svd = _linalg.svd
qr = _linalg.qr
matrix_solve = _linalg.solve
matrix_triangular_solve = _linalg.triangular_solve
cholesky_solve = _linalg.cholesky_solve
matrix_band_part = _linalg.band_part
matrix_diag = _linalg.diag
matrix_diag_part = _linalg.diag_part
linalg = namespace("linalg", **{**{n: getattr(_linalg, n) for n in _linalg.__all__},
                                  "eye": eye, "norm": norm})
math = namespace("math", **{**vars(_t.math), "log_softmax": log_softmax,
                                **{n: globals()[n] for n in _REDUCTIONS}})
unstack = _arrays.unstack
unpack = _arrays.unstack


@deferrable()
def where(condition, x=None, y=None, name=None):
    """TF1's ``tf.where(condition, x, y)``: a condition of rank 1 under x and y of higher
    rank picks whole rows (TF2's ``where_v2`` broadcasts it against the last axis
    instead); otherwise x and y where it holds, elementwise.  With the condition alone,
    the positions of its true entries, int64 ``[k, rank]`` (k known from the values)."""
    if x is None and y is None:
        return _arrays.nonzero(condition, name=name)
    if x is None or y is None:
        raise ValueError("tf.where: give both x and y (or neither)")
    (c,), (a, b) = _t.functions._lift([condition]), _t.functions._lift([x, y])
    if c.ndim == 1 and max(a.ndim, b.ndim) > 1:
        c = _t.reshape(c, (c.shape[0],) + (1,) * (max(a.ndim, b.ndim) - 1))
    return _t.where(c, a, b, name=name)


@deferrable()
def where_v2(condition, x=None, y=None, name=None):
    """TF2's ``where``: x and y broadcast against the condition; the positions of its
    true entries without them."""
    if x is None and y is None:
        return _arrays.nonzero(condition, name=name)
    return _t.where(condition, x, y, name=name)


dynamic_partition = _arrays.dynamic_partition


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """``tf.space_to_depth``: each block_size x block_size patch of an NHWC batch moved
    into the channels (rows of the patch first, then columns, then channels)."""
    x, b, (h, w, c) = _blocks(input, block_size, data_format, "space_to_depth")
    if h % b or w % b:
        raise ValueError(f"space_to_depth: height {h} and width {w} must be multiples of "
                         f"block_size {b}")
    t = _t.reshape(x, [-1, h // b, b, w // b, b, c])
    return _t.reshape(_t.transpose(t, [0, 1, 3, 2, 4, 5]), [-1, h // b, w // b, b * b * c],
                      name=name)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002
    """``tf.depth_to_space``: space_to_depth's inverse."""
    x, b, (h, w, c) = _blocks(input, block_size, data_format, "depth_to_space")
    if c % (b * b):
        raise ValueError(f"depth_to_space: {c} channels are not a multiple of "
                         f"block_size**2 = {b * b}")
    t = _t.reshape(x, [-1, h, w, b, b, c // (b * b)])
    return _t.reshape(_t.transpose(t, [0, 1, 3, 2, 4, 5]), [-1, h * b, w * b, c // (b * b)],
                      name=name)


nn.space_to_depth, nn.depth_to_space = space_to_depth, depth_to_space   # (tf.nn's too)

# lookups that record their rows, for TF's IndexedSlices gradients (compat.rows)
gather = tf1_results(_rows.gather)
nn.embedding_lookup = tf1_results(_rows.embedding_lookup)

# ops built from primitives (more_ops): TF1's old names and what tf.nn/tf.linalg add
arg_max, arg_min = _more_ops.arg_max, _more_ops.arg_min
matrix_set_diag, unique = _more_ops.matrix_set_diag, _more_ops.unique
unique_with_counts = _more_ops.unique_with_counts
for _name in ("zero_fraction", "lrn", "local_response_normalization", "depthwise_conv2d",
              "separable_conv2d"):
    setattr(nn, _name, tf1_results(getattr(_more_ops, _name)))
linalg.set_diag = tf1_results(_more_ops.set_diag)
linalg.LinearOperatorLowerTriangular = _more_ops.LinearOperatorLowerTriangular


def _blocks(input, block_size, data_format, what):  # noqa: A002
    x = _t.as_tensor(input)
    if data_format != "NHWC" or x.ndim != 4:
        raise ValueError(f"{what}: an NHWC batch of rank 4 is supported, got shape {x.shape} "
                         f"({data_format})")
    if any(not isinstance(d, int) for d in x.shape[1:]):
        raise ValueError(f"{what}: height, width and channels must be known; got {x.shape}")
    b = int(block_size)
    if b < 2:
        raise ValueError(f"{what}: block_size must be at least 2, got {b}")
    return x, b, tuple(int(d) for d in x.shape[1:])

__all__ = (list(_arrays.__all__) + list(_math_ops.__all__) + list(_linalg.TOP_LEVEL) +
           list(_selection.__all__) + _REDUCTIONS + ["expand_dims", "squeeze", "norm"] + [
    "nn", "linalg", "math", "range", "eye", "one_hot", "linspace", "lin_space", "to_float",
    "to_double",
    "to_int32", "to_int64", "matrix_transpose", "diag", "diag_part", "trace", "unstack",
    "unpack", "matrix_inverse", "matrix_determinant", "log_matrix_determinant", "cholesky",
    "self_adjoint_eig", "self_adjoint_eigvals", "svd", "qr",
    "matrix_solve", "matrix_triangular_solve", "cholesky_solve", "matrix_band_part",
    "matrix_diag", "matrix_diag_part", "where", "where_v2", "reverse_sequence",
    "dynamic_partition", "space_to_depth", "depth_to_space", "arg_max", "arg_min",
    "matrix_set_diag", "unique", "unique_with_counts"])
