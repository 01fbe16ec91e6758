"""``tf.keras.activations``, ``initializers``, ``regularizers``, ``losses`` and
``metrics`` (as functions) as TF1's keras has them (``tf.compat.v1.keras``), and their
``get`` by name.

- Initializers: TF1 keras's defaults — ``RandomNormal``/``TruncatedNormal`` have
  stddev 0.05, ``RandomUniform`` is in [-0.05, 0.05), ``VarianceScaling`` draws a
  truncated normal over fan_in; the distributions are TF's, not its random stream.
- Regularizers: ``l2(c)(w)`` is ``c * sum(w ** 2)`` (no 1/2, unlike ``tf.nn.l2_loss``).
- Losses: one value per sample (the mean over the last axis where TF takes it);
  on probabilities they clip to [epsilon, 1 - epsilon].  As TF's graph mode does,
  when ``y_pred`` is the output of a softmax (sigmoid) op the loss is computed from
  that op's input as logits, so saturated outputs keep their gradient.  The classes
  (``CategoricalCrossentropy()(y_true, y_pred)``) return the mean over the samples.

Sits in ``compat``; imports ``tracing`` and ``compat``'s initializers, tensor,
keras_backend.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     loss = mean_squared_error(tf.constant([[1.0, 2.0]]), tf.constant([[1.0, 4.0]]))
...     print(loss.numpy())
[2.]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from ..tracing import nn as _nn
from . import initializers as _init
from .keras_backend import epsilon
from .tensor import constant
from .variables import tf_dtype


# -- activations --------------------------------------------------------------------------

def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """``max(x, 0)``; ``alpha * (x - threshold)`` below ``threshold``, capped at
    ``max_value``."""
    x = _t.as_tensor(x)
    if alpha == 0 and threshold == 0:
        out = _nn.relu(x)
    else:
        out = _t.where(x > threshold, x, alpha * (x - threshold))
    return out if max_value is None else _t.minimum(out, max_value)


def hard_sigmoid(x):
    """``clip(0.2 x + 0.5, 0, 1)`` (keras's)."""
    return _t.clip_by_value(0.2 * _t.as_tensor(x) + 0.5, 0.0, 1.0)


def linear(x):
    return x


ACTIVATIONS = {
    "relu": relu, "linear": linear, "sigmoid": _nn.sigmoid, "tanh": _nn.tanh,
    "softmax": lambda x, axis=-1: _nn.softmax(x, axis=axis),
    "elu": lambda x, alpha=1.0: _nn.elu(x) if alpha == 1 else _t.where(
        x > 0, x, alpha * (_t.exp(x) - 1)),
    "selu": _nn.selu, "softplus": _nn.softplus, "softsign": _nn.softsign,
    "exponential": _t.exp, "hard_sigmoid": hard_sigmoid, "swish": _nn.swish,
}


def get_activation(identifier):
    """``tf.keras.activations.get``: a function from a name, a function or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in ACTIVATIONS:
        return ACTIVATIONS[identifier]
    raise ValueError(f"Unknown activation function: {identifier!r}; use one of "
                     f"{sorted(ACTIVATIONS)} or a function")


# -- initializers (TF1 keras's defaults) -------------------------------------------------

class RandomNormal(_init.RandomNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=np.float32):
        super().__init__(mean, stddev, seed, dtype)


class RandomUniform(_init.RandomUniform):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=np.float32):
        super().__init__(minval, maxval, seed, dtype)


class TruncatedNormal(_init.TruncatedNormal):
    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=np.float32):
        super().__init__(mean, stddev, seed, dtype)


def _scaling(scale, mode, distribution):
    def make(seed=None, dtype=np.float32):
        return _init.VarianceScaling(scale, mode, distribution, seed, dtype)
    return make


INITIALIZERS = {
    "Zeros": _init.Zeros, "Ones": _init.Ones, "Constant": _init.Constant,
    "RandomNormal": RandomNormal, "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal, "VarianceScaling": _init.VarianceScaling,
    "Orthogonal": _init.Orthogonal, "Identity": _init.Identity,
    "GlorotUniform": _scaling(1.0, "fan_avg", "uniform"),
    "GlorotNormal": _scaling(1.0, "fan_avg", "truncated_normal"),
    "HeNormal": _scaling(2.0, "fan_in", "truncated_normal"),
    "HeUniform": _scaling(2.0, "fan_in", "uniform"),
    "LecunNormal": _scaling(1.0, "fan_in", "truncated_normal"),
    "LecunUniform": _scaling(1.0, "fan_in", "uniform"),
}
INITIALIZERS.update({
    "zeros": _init.Zeros, "ones": _init.Ones, "constant": _init.Constant,
    "random_normal": RandomNormal, "normal": RandomNormal, "random_uniform": RandomUniform,
    "uniform": RandomUniform, "truncated_normal": TruncatedNormal,
    "variance_scaling": _init.VarianceScaling, "orthogonal": _init.Orthogonal,
    "identity": _init.Identity, "glorot_uniform": INITIALIZERS["GlorotUniform"],
    "glorot_normal": INITIALIZERS["GlorotNormal"], "he_normal": INITIALIZERS["HeNormal"],
    "he_uniform": INITIALIZERS["HeUniform"], "lecun_normal": INITIALIZERS["LecunNormal"],
    "lecun_uniform": INITIALIZERS["LecunUniform"]})


def get_initializer(identifier):
    """``tf.keras.initializers.get``: an initializer from a name, a class, an
    initializer or a function ``f(shape, dtype=...)``."""
    if isinstance(identifier, str):
        if identifier not in INITIALIZERS:
            raise ValueError(f"Unknown initializer: {identifier!r}; use one of "
                             f"{sorted(k for k in INITIALIZERS if k[0].islower())}")
        return INITIALIZERS[identifier]()
    if isinstance(identifier, type) and issubclass(identifier, _init.Initializer):
        return identifier()
    if identifier is None or callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}")


def initial_value(initializer, shape, dtype, what):
    """The numpy value ``initializer`` gives a weight of ``shape`` and ``dtype``."""
    shape = tuple(int(d) for d in shape)
    if isinstance(initializer, _init.Initializer):
        return initializer.array(shape, dtype)
    made = initializer(shape, dtype=dtype)
    value = np.asarray(made.value if isinstance(made, Node) else made, dtype=dtype)
    if value.shape != shape:
        raise ValueError(f"{what}: the initializer gave shape {value.shape}, not {shape}")
    return value


# -- regularizers ------------------------------------------------------------------------

class L1L2:
    """``tf.keras.regularizers.L1L2(l1, l2)``: ``l1 * sum(|w|) + l2 * sum(w ** 2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        terms = ([self.l1 * _t.reduce_sum(_t.abs(x))] if self.l1 else []) + \
            ([self.l2 * _t.reduce_sum(_t.square(x))] if self.l2 else [])
        if not terms:
            return constant(np.zeros((), dtype=x.dtype))
        return terms[0] + terms[1] if len(terms) == 2 else terms[0]


def l1(l=0.01):  # noqa: E741  (keras's argument name)
    return L1L2(l1=l)


def l2(l=0.01):  # noqa: E741
    return L1L2(l2=l)


def l1_l2(l1=0.01, l2=0.01):
    return L1L2(l1=l1, l2=l2)


def get_regularizer(identifier):
    if identifier is None or callable(identifier):
        return identifier
    table = {"l1": l1, "l2": l2, "l1_l2": l1_l2}
    if identifier in table:
        return table[identifier]()
    raise ValueError(f"Unknown regularizer: {identifier!r}; use 'l1', 'l2', 'l1_l2' or "
                     "tf.keras.regularizers.l2(0.01)")


# -- losses ------------------------------------------------------------------------------

def _pair(y_true, y_pred):
    y_pred = _t.as_tensor(y_pred) if isinstance(y_pred, Node) else \
        constant(y_pred, tf_dtype(y_pred, None))
    y_true = y_true if isinstance(y_true, Node) else constant(np.asarray(y_true,
                                                                         y_pred.dtype))
    return _t.cast(y_true, y_pred.dtype) if y_true.dtype != y_pred.dtype else y_true, y_pred


def _logits_of(y_pred, op):
    """The input of ``y_pred`` when it is the output of ``op`` (keras reads it as logits)."""
    return y_pred.inputs[0] if y_pred.opdef.name == op and len(y_pred.inputs) == 1 else None


def _clipped(p):
    return _t.clip_by_value(p, epsilon(), 1.0 - epsilon())


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """``-sum(y_true * log(y_pred))`` over ``axis``, one value per sample."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        k = _t.cast(_t.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / k
    logits = y_pred if from_logits else _logits_of(y_pred, "softmax")
    if logits is not None:
        return _t.reduce_sum(-y_true * _nn.log_softmax(logits, axis=axis), axis=axis)
    p = y_pred / _t.reduce_sum(y_pred, axis=axis, keepdims=True)
    return -_t.reduce_sum(y_true * _t.log(_clipped(p)), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, axis=-1):
    """``-log(y_pred[y_true])``: integer labels, one value per sample."""
    y_pred = _t.as_tensor(y_pred)
    labels = y_true if isinstance(y_true, Node) else constant(np.asarray(y_true, np.int64))
    labels = _t.cast(labels, np.int64)
    if labels.ndim == y_pred.ndim:   # (labels of shape [N, 1], as keras allows)
        labels = _t.squeeze(labels, [-1])
    logits = y_pred if from_logits else _logits_of(y_pred, "softmax")
    if logits is None:
        logits = _t.log(_clipped(y_pred))
    return _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The mean over the last axis of ``-(y log p + (1 - y) log(1 - p))``."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return _t.reduce_mean(binary_crossentropy_elements(y_true, y_pred, from_logits), axis=axis)


def binary_crossentropy_elements(target, output, from_logits=False):
    """``K.binary_crossentropy``: ``-(y log p + (1 - y) log(1 - p))`` per element."""
    target, output = _pair(target, output)
    logits = output if from_logits else _logits_of(output, "sigmoid")
    if logits is not None:
        return _nn.sigmoid_cross_entropy_with_logits(labels=target, logits=logits)
    p, eps = _clipped(output), epsilon()
    return -(target * _t.log(p + eps) + (1.0 - target) * _t.log(1.0 - p + eps))


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return _t.reduce_mean(_t.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return _t.reduce_mean(_t.abs(y_pred - y_true), axis=-1)


def hinge(y_true, y_pred):
    """``mean(max(1 - y_true * y_pred, 0))``; labels 0/1 become -1/1 (keras's)."""
    y_true, y_pred = _pair(y_true, y_pred)
    y_true = _t.where(_t.equal(y_true, 0.0), y_true - 1.0, y_true)
    return _t.reduce_mean(_t.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    t, p = _clipped(y_true), _clipped(y_pred)
    return _t.reduce_sum(t * _t.log(t / p), axis=-1)


LOSSES = {"categorical_crossentropy": categorical_crossentropy,
          "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
          "binary_crossentropy": binary_crossentropy, "mean_squared_error": mean_squared_error,
          "mse": mean_squared_error, "MSE": mean_squared_error,
          "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
          "MAE": mean_absolute_error, "hinge": hinge, "kl_divergence": kl_divergence,
          "kld": kl_divergence, "KLD": kl_divergence,
          "kullback_leibler_divergence": kl_divergence}


class Loss:
    """A loss object: ``loss(y_true, y_pred, sample_weight=None)`` is the mean over the
    samples of the per-sample losses (times ``sample_weight``), keras's
    ``SUM_OVER_BATCH_SIZE``; ``reduction="sum"`` sums, ``"none"`` keeps them."""

    function = None

    def __init__(self, reduction="auto", name=None, **options):
        if reduction not in ("auto", "sum_over_batch_size", "sum", "none"):
            raise ValueError(f"{type(self).__name__}: reduction={reduction!r}; use 'auto', "
                             "'sum_over_batch_size', 'sum' or 'none'")
        self.reduction, self.name, self.options = reduction, name, options

    def __call__(self, y_true, y_pred, sample_weight=None):
        each = type(self).function(y_true, y_pred, **self.options)
        if sample_weight is not None:
            each = each * _t.cast(_t.as_tensor(sample_weight), each.dtype)
        if self.reduction == "none":
            return each
        total = _t.reduce_sum(each)
        if self.reduction == "sum":
            return total
        return total / _t.cast(_t.size(each), each.dtype)


def _loss_class(name, function):
    return type(name, (Loss,), {"function": staticmethod(function),
                                "__doc__": f"``tf.keras.losses.{name}`` (class :class:`Loss`)."})


LOSS_CLASSES = {n: _loss_class(n, f) for n, f in (
    ("CategoricalCrossentropy", categorical_crossentropy),
    ("SparseCategoricalCrossentropy", sparse_categorical_crossentropy),
    ("BinaryCrossentropy", binary_crossentropy), ("MeanSquaredError", mean_squared_error),
    ("MeanAbsoluteError", mean_absolute_error), ("Hinge", hinge),
    ("KLDivergence", kl_divergence))}


def get_loss(identifier):
    if callable(identifier):
        return identifier
    if identifier in LOSSES:
        return LOSSES[identifier]
    raise ValueError(f"Unknown loss function: {identifier!r}; use one of {sorted(LOSSES)}")


# -- metrics as functions (the metric objects are not supported) ---------------------------

def categorical_accuracy(y_true, y_pred):
    """1.0 where the arg max of ``y_pred`` is that of the one-hot ``y_true``, per sample."""
    y_true, y_pred = _pair(y_true, y_pred)
    hit = _t.equal(_t.argmax(y_true, axis=-1), _t.argmax(y_pred, axis=-1))
    return _t.cast(hit, y_pred.dtype)


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the arg max of ``y_pred`` is the integer label ``y_true``, per sample."""
    y_pred = _t.as_tensor(y_pred)
    labels = y_true if isinstance(y_true, Node) else constant(np.asarray(y_true, np.int64))
    if labels.ndim == y_pred.ndim:
        labels = _t.squeeze(labels, [-1])
    hit = _t.equal(_t.cast(labels, y_pred.dtype), _t.cast(_t.argmax(y_pred, axis=-1),
                                                          y_pred.dtype))
    return _t.cast(hit, y_pred.dtype)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """The mean over the last axis of 1.0 where ``y_pred > threshold`` matches ``y_true``."""
    y_true, y_pred = _pair(y_true, y_pred)
    guess = _t.cast(y_pred > threshold, y_pred.dtype)
    return _t.reduce_mean(_t.cast(_t.equal(y_true, guess), y_pred.dtype), axis=-1)


METRICS = {"categorical_accuracy": categorical_accuracy,
           "sparse_categorical_accuracy": sparse_categorical_accuracy,
           "binary_accuracy": binary_accuracy, **{n: LOSSES[n] for n in (
               "mean_squared_error", "mse", "mean_absolute_error", "mae",
               "categorical_crossentropy", "sparse_categorical_crossentropy",
               "binary_crossentropy")}}
