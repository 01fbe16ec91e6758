"""``tf.keras`` for TF1 graph-mode programs: what they use inside a ``tf.Session``.

Layers called on tensors (``keras_layers``, ``keras_core``, ``keras_merge``,
``keras_rnn``, ``keras_cells``, ``keras_wrappers``, ``keras_more_layers``,
``keras_local``),
``Sequential``/``Model`` called on tensors
(``keras_models``), ``activations``, ``initializers``, ``regularizers``, ``losses``,
``metrics`` as functions (``keras_objects``), ``constraints`` (``keras_constraints``),
``backend`` (``keras_backend``, ``K.rnn`` and the ``K.*`` ops below), ``utils.to_categorical``
and ``preprocessing.sequence.pad_sequences``, the training loop (``compile``, ``fit``:
``keras_training``, ``optimizers``, ``callbacks``); ``from symgrad.compat.v1.keras.layers
import Dense`` imports too.  Everything else of ``tf.keras`` (``datasets``,
``CuDNNLSTM``, saving models...) raises an
AttributeError (an ImportError when imported) that names it and says what to use
(``runtime.MISSING``).

Sits in ``compat``; imports numpy, ``tracing`` and ``compat``'s keras modules and
runtime.

>>> import symgrad.compat.v1 as tf
>>> tf.keras.utils.to_categorical([0, 2], 3).tolist()
[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..differentiate import gradients as _gradients
from ..tracing import nn as _nn
from . import keras_backend as K
from . import keras_constraints as _constraints
from . import keras_cells as _cells
from . import keras_core as _core
from . import keras_conv_more as _conv_more
from . import keras_conv_rnn as _conv_rnn
from . import keras_local as _local
from . import keras_merge as _merge
from . import keras_more_layers as _more
from . import keras_text as _text
from . import keras_rnn as _keras_rnn
from . import keras_wrappers as _wrappers
from . import keras_backend_ops as _backend_ops
from .keras_backend_rnn import rnn as _keras_rnn_loop
from . import keras_callbacks as _keras_callbacks
from . import keras_optimizers as _keras_optimizers
from . import keras_optimizers_more as _optimizers_more
from . import rows as _rows
from . import keras_objects as _objects
from .keras_layers import Layer
from .keras_clone import clone_model
from .keras_models import Input, InputLayer, Model, Sequential
from .keras_models import placeholder as _placeholder
from .runtime import MISSING, missing, namespace
from .v1_ops import _no_bool
from .tensor import constant

_RNN = ("of keras's recurrent layers symgrad has SimpleRNN, LSTM, GRU, Bidirectional and "
        "RNN with SimpleRNNCell, LSTMCell, GRUCell or StackedRNNCells; for the CuDNN "
        "layers' formulas use LSTM(recurrent_activation='sigmoid') or "
        "GRU(reset_after=True, recurrent_activation='sigmoid')")
MISSING.update({
    "keras": "of tf.keras, symgrad has the layers called on tensors inside a tf.Session "
             "(tf.keras.layers.Dense, Conv2D, ...), Sequential and Model called on tensors, "
             "activations, initializers, regularizers, losses, metrics as functions, "
             "backend, utils.to_categorical, optimizers, callbacks and Model.compile/fit; "
             "write the rest with tf.* ops and tf.layers",
    "keras.datasets": "downloading datasets is not supported; load the arrays with numpy "
                      "(np.load) and feed them",
    "keras.applications": "pretrained models (and their downloaded weights) are not "
                          "supported; build the network with tf.keras.layers",
    "keras.preprocessing": "of keras preprocessing symgrad has sequence.pad_sequences and text's "
                           "Tokenizer; "
                           "prepare other arrays with numpy (and tf.image for images) "
                           "and feed them",
    "keras.models.load_model": "keras model files are not supported; rebuild the model in "
                               "code and restore its variables with tf.train.Saver",
    "keras.metrics": "of tf.keras.metrics symgrad has the functions (categorical_accuracy, "
                     "sparse_categorical_accuracy, binary_accuracy and the losses), not the "
                     "metric objects; use tf.metrics (tf.metrics.accuracy, tf.metrics.mean)",
})
MISSING["keras.optimizers.Ftrl"] = (
    "of tf.keras.optimizers symgrad has SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax and "
    "Nadam (Keras's formulas); use one of them or tf.train.FtrlOptimizer in Model.compile")
for _name in ("ModelCheckpoint", "TensorBoard", "CSVLogger", "ReduceLROnPlateau",
              "ProgbarLogger", "RemoteMonitor", "BackupAndRestore"):
    MISSING["keras.callbacks." + _name] = (
        "of tf.keras.callbacks symgrad has Callback, History, LambdaCallback, EarlyStopping, "
        "TerminateOnNaN and LearningRateScheduler; do the rest in a LambdaCallback "
        "(on_epoch_end=...), e.g. tf.train.Saver(model.weights).save(K.get_session(), path)")
for _name in ("CuDNNLSTM", "CuDNNGRU"):
    MISSING["keras.layers." + _name] = _RNN


def to_categorical(y, num_classes=None, dtype="float32"):
    """``tf.keras.utils.to_categorical``: one-hot rows for integer labels (numpy)."""
    y = np.asarray(y, dtype=np.int64)
    if y.ndim > 1 and y.shape[-1] == 1:
        y = y[..., 0]
    n = int(y.max()) + 1 if num_classes is None else int(num_classes)
    if y.size and (y.min() < 0 or y.max() >= n):
        raise ValueError(f"to_categorical: labels must be in [0, {n}), got {y.min()}..{y.max()}")
    return np.eye(n, dtype=dtype)[y]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """``tf.keras.preprocessing.sequence.pad_sequences``: the sequences as rows of one
    numpy array of ``maxlen`` columns (default: the longest), cut and padded with
    ``value`` at the start ("pre") or end ("post")."""
    for what, given in (("padding", padding), ("truncating", truncating)):
        if given not in ("pre", "post"):
            raise ValueError(f"pad_sequences: {what}={given!r}; use 'pre' or 'post'")
    rows = [list(s) for s in sequences]
    width = max((len(r) for r in rows), default=0) if maxlen is None else int(maxlen)
    out = np.full((len(rows), width), value, dtype=dtype)
    for i, row in enumerate(rows):
        kept = (row[-width:] if truncating == "pre" else row[:width]) if width else []
        if kept:
            where = slice(width - len(kept), width) if padding == "pre" else \
                slice(0, len(kept))
            out[i, where] = kept
    return out


def _reducer(reduce):
    def keras_form(x, axis=None, keepdims=False):
        x = _t.as_tensor(x)
        if x.dtype == np.bool_:
            if reduce is not _t.reduce_mean:
                _no_bool(reduce.__name__, x)
            x = _t.cast(x, K.floatx())   # (K.mean of booleans: the fraction of True)
        return reduce(x, axis=axis, keepdims=keepdims)
    return keras_form


def _concatenate(tensors, axis=-1):
    return _t.concat(list(tensors), axis=axis)


def _std(x, axis=None, keepdims=False):
    return _t.sqrt(_var(x, axis, keepdims))


def _var(x, axis=None, keepdims=False):
    mean = _t.reduce_mean(x, axis=axis, keepdims=True)
    return _t.reduce_mean(_t.square(x - mean), axis=axis, keepdims=keepdims)


def _in_train_phase(x, alt, training=None):
    """``K.in_train_phase``: ``x`` when training (the learning phase by default), else
    ``alt`` (either may be a function giving the tensor)."""
    training = K.training_value(training)
    x, alt = (v() if callable(v) else v for v in (x, alt))
    if isinstance(training, bool):
        return x if training else alt
    return _t.where(training, x, alt)


def _dot(x, y):
    return _t.tensordot(x, y, axes=1) if _t.as_tensor(x).ndim > 2 else _t.matmul(x, y)


BACKEND_OPS = dict(
    mean=_reducer(_t.reduce_mean), sum=_reducer(_t.reduce_sum), max=_reducer(_t.reduce_max),
    min=_reducer(_t.reduce_min), prod=_reducer(_t.reduce_prod), std=_std, var=_var,
    square=_t.square, sqrt=_t.sqrt, exp=_t.exp, log=_t.log, abs=_t.abs, sign=_t.sign,
    pow=lambda x, a: _t.pow(x, a), clip=lambda x, lo, hi: _t.clip_by_value(x, lo, hi),
    maximum=_t.maximum, minimum=_t.minimum, equal=_t.equal, greater=_t.greater,
    less=_t.less, cast=lambda x, dtype: _t.cast(x, dtype), reshape=_t.reshape,
    concatenate=_concatenate, stack=lambda x, axis=0: _t.stack(list(x), axis=axis),
    expand_dims=lambda x, axis=-1: _t.expand_dims(x, axis),
    squeeze=lambda x, axis: _t.squeeze(x, [axis]),
    flatten=lambda x: _t.reshape(x, (-1,)),
    batch_flatten=lambda x: _t.reshape(x, (-1, int(np.prod(_t.as_tensor(x).shape[1:])))),
    transpose=_t.transpose, permute_dimensions=lambda x, pattern: _t.transpose(x, pattern),
    dot=_dot, shape=lambda x: _t.shape(x), ndim=lambda x: _t.as_tensor(x).ndim,
    argmax=lambda x, axis=-1: _t.argmax(x, axis=axis),
    argmin=lambda x, axis=-1: _t.argmin(x, axis=axis),
    zeros_like=_t.zeros_like, ones_like=_t.ones_like,
    constant=lambda value, dtype=None, shape=None, name=None: constant(
        value, dtype or K.floatx(), shape, name),
    softmax=lambda x, axis=-1: _nn.softmax(x, axis=axis), relu=_objects.relu,
    sigmoid=_nn.sigmoid, tanh=_nn.tanh, elu=_objects.ACTIVATIONS["elu"],
    softplus=_nn.softplus, softsign=_nn.softsign, hard_sigmoid=_objects.hard_sigmoid,
    categorical_crossentropy=_objects.categorical_crossentropy,
    sparse_categorical_crossentropy=_objects.sparse_categorical_crossentropy,
    binary_crossentropy=_objects.binary_crossentropy_elements,
    gradients=lambda loss, variables: _rows.gradients(_gradients, loss, variables, None,
                                                      "gradients", False, None, None,
                                                      "none", True),
    stop_gradient=_t.stop_gradient,
    l2_normalize=lambda x, axis=None: _nn.l2_normalize(x, axis=axis),
    dtype=lambda x: np.dtype(x.dtype).name, tile=_t.tile, gather=_rows.gather,
    one_hot=lambda indices, num_classes: _t.one_hot(indices, num_classes),
    # (keras's zeros and ones are variables, which an initializer or get_session sets)
    zeros=lambda shape, dtype=None, name=None: K.variable(np.zeros(shape), dtype, name),
    ones=lambda shape, dtype=None, name=None: K.variable(np.ones(shape), dtype, name),
    in_train_phase=_in_train_phase,
    in_test_phase=lambda x, alt, training=None: _in_train_phase(alt, x, training),
)
backend = namespace("keras.backend", **BACKEND_OPS, **_backend_ops.BACKEND_MORE, **{n: getattr(K, n) for n in (
    "get_session", "set_session", "clear_session", "learning_phase", "set_learning_phase",
    "epsilon", "set_epsilon", "floatx", "set_floatx", "image_data_format",
    "set_image_data_format", "get_value",
    "set_value", "batch_get_value", "batch_set_value", "int_shape", "cast_to_floatx",
    "variable", "function", "get_uid", "reset_uids")},
    eval=K.get_value, count_params=lambda x: int(np.prod(_t.as_tensor(x).shape)),
    placeholder=_placeholder, rnn=_keras_rnn_loop)

layers = namespace("keras.layers", Layer=Layer, InputLayer=InputLayer, Input=Input,
                   **{n: getattr(m, n) for m in (_core, _merge, _keras_rnn, _wrappers,
                                                    _more, _conv_more, _conv_rnn, _cells,
                                                    _local)
                      for n in m.__all__})
activations = namespace("keras.activations", get=_objects.get_activation,
                        **_objects.ACTIVATIONS)
initializers = namespace("keras.initializers", get=_objects.get_initializer,
                         **_objects.INITIALIZERS)
constraints = namespace("keras.constraints", get=_constraints.get_constraint,
                        **_constraints.CONSTRAINTS)
regularizers = namespace("keras.regularizers", l1=_objects.l1, l2=_objects.l2,
                         l1_l2=_objects.l1_l2, L1L2=_objects.L1L2, L1=_objects.l1,
                         L2=_objects.l2, get=_objects.get_regularizer)
losses = namespace("keras.losses", get=_objects.get_loss, Loss=_objects.Loss,
                   **_objects.LOSSES, **_objects.LOSS_CLASSES)
metrics = namespace("keras.metrics", **_objects.METRICS)
models = namespace("keras.models", Sequential=Sequential, Model=Model,
                   clone_model=clone_model)
utils = namespace("keras.utils", to_categorical=to_categorical)
_keras_optimizers.register([getattr(_optimizers_more, n) for n in _optimizers_more.__all__])
optimizers = namespace("keras.optimizers", **{n: getattr(m, n)
                                              for m in (_keras_optimizers, _optimizers_more)
                                              for n in m.__all__})
callbacks = namespace("keras.callbacks", **{n: getattr(_keras_callbacks, n)
                                            for n in _keras_callbacks.__all__})
preprocessing = namespace("keras.preprocessing", sequence=namespace(
    "keras.preprocessing.sequence", pad_sequences=pad_sequences), text=namespace(
    "keras.preprocessing.text", **{n: getattr(_text, n) for n in _text.__all__}))
keras = namespace("keras", layers=layers, activations=activations,
                  initializers=initializers, regularizers=regularizers,
                  constraints=constraints, losses=losses,
                  metrics=metrics, backend=backend, models=models, utils=utils,
                  preprocessing=preprocessing, optimizers=optimizers, callbacks=callbacks,
                  Sequential=Sequential, Model=Model, Input=Input)


def submodules(prefix):
    """``{prefix.keras: keras, prefix.keras.layers: layers, ...}``: entries for
    ``sys.modules`` so that ``from <prefix>.keras.layers import Dense`` imports (TF1
    scripts write ``from tensorflow.keras.layers import Dense``).  They get an empty
    ``__path__`` so that importing a name they lack asks :class:`MissingFinder`."""
    found, todo = {}, [(f"{prefix}.keras", keras)]
    while todo:   # (tf.keras and the namespaces inside it, at any depth)
        path, space = todo.pop()
        found[path] = space
        todo += [(f"{path}.{name}", value) for name, value in vars(space).items()
                 if isinstance(value, type(keras).__mro__[1])]
    for name, value in found.items():
        value.__path__, value.__name__, value.__spec__ = [], name, None
    return found


class MissingFinder:
    """A ``sys.meta_path`` finder: importing a ``tf.keras`` name symgrad lacks
    (``from <prefix>.keras.optimizers import Adam``) raises the ImportError that
    names it and says what to use (``runtime.MISSING``), not "No module named"."""

    def __init__(self, prefix):
        self.prefix = prefix + "."

    def find_spec(self, fullname, path=None, target=None):
        if fullname.startswith(self.prefix + "keras."):
            raise ImportError(str(missing(fullname[len(self.prefix):])), name=fullname)
        return None
