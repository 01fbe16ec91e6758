"""``tf.keras.layers.Layer``: a layer object called on tensors in a TF1 graph.

As in TF1 keras, each call opens a name scope named after the layer (``dense``,
``dense_1``...; a second call of the same layer gets ``dense_1`` as a name scope, as
TF's name scopes are made unique), and the first call builds the weights there:
``dense/kernel:0``, ``dense/bias:0``, inside any enclosing name or variable scope
(``foo/dense/kernel:0``).  The weights are plain variables in GLOBAL_VARIABLES (and
TRAINABLE_VARIABLES), so ``tf.global_variables_initializer()`` and ``tf.train``
optimizers take them; calling the layer again shares them.

What TF1 keras keeps on the layer and not in collections: ``layer.losses`` (the
regularizers' terms; REGULARIZATION_LOSSES stays empty) and ``layer.updates`` (the
batch normalization's moving averages; UPDATE_OPS stays empty).  A weight's
constraint is applied by ``tf.train`` optimizers after each step, as TF's do.
``weights=[...]`` sets
the values when the layer is built (in ``tf.keras.backend.get_session()``); as in
TF1, running ``tf.global_variables_initializer()`` afterwards puts the initializer's
values back (assign them after it, or pass ``tf.keras.initializers.Constant(matrix)``).
As in TF1 keras, a layer made with ``trainable=False`` has no ``trainable_weights``
and no ``updates``, but its weights are still in TRAINABLE_VARIABLES: freeze it with
``minimize(loss, var_list=model.trainable_weights)``.  A layer takes the dtype of
the first input it is called on (float64 in, float64 weights), as TF1 keras does.

Keras masks (``Masking``, ``Embedding(mask_zero=True)``) travel with the tensors
(``K.mask_of``): a call whose ``call`` takes ``mask`` gets its input's; the output's
is ``compute_mask``'s for a layer that ``supports_masking`` (or defines
``compute_mask``), and none otherwise -- TF1 keras drops a mask silently where a layer
does not support it.  ``ChannelsLast`` is the base of the image layers that also take
``data_format="channels_first"``.

Sits in ``compat``; imports ``tracing``, ``compat``'s keras_backend, keras_objects,
tensor and variables.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     layer = tf.keras.layers.Dense(3)
...     y = layer(tf.zeros([2, 4]))
...     print(y.shape, [w.name for w in layer.weights])
(2, 3) ['dense/kernel:0', 'dense/bias:0']
"""
from __future__ import annotations

import copy
import inspect

import numpy as np

from .. import tracing as _t
from ..graph import Node
from . import keras_backend as K
from . import keras_objects as _objects
from .keras_constraints import get_constraint
from .tensor import TensorShape, constant, tf_dtype_arg
from .variables import Variable, tf_dtype

_BASE_ARGS = ("trainable", "name", "dtype", "input_shape", "input_dim", "batch_input_shape",
              "batch_size", "weights", "activity_regularizer", "dynamic", "autocast")


class Layer:
    """``tf.keras.layers.Layer``: subclass it with ``build(input_shape)`` (making weights
    with ``add_weight``) and ``call(inputs)``."""
    supports_masking = False   # (TF1 keras: a layer that does not drops the mask)

    def __init__(self, trainable=True, name=None, dtype=None, **kwargs):
        unknown = [k for k in kwargs if k not in _BASE_ARGS]
        if unknown:
            raise TypeError(f"{type(self).__name__}: keyword argument not understood: "
                            f"{unknown[0]!r}")
        self.name = name or K.unique_object_name(K.snake_case(type(self).__name__))
        self.trainable, self.dtype, self.built = trainable, tf_dtype_arg(dtype), False
        self._weights, self._losses, self._updates, self._calls = [], [], [], []
        self._activity_losses = []
        self._initial_weights = kwargs.get("weights")
        self.activity_regularizer = _objects.get_regularizer(
            kwargs.get("activity_regularizer"))
        self.batch_input_shape = _batch_input_shape(kwargs)

    # -- calling -----------------------------------------------------------------------
    def __call__(self, inputs, *args, **kwargs):
        inputs = _tensors(inputs)
        if "training" in kwargs and not takes_argument(self.call, "training"):
            kwargs.pop("training")   # (keras drops it for layers without a training mode)
        mask = kwargs.get("mask", _input_masks(inputs))
        # (the mask keras finds itself is not recorded as an input of the call)
        given = {k: v for k, v in kwargs.items() if k != "mask"}
        if mask is not None and takes_argument(self.call, "mask"):
            given["mask"] = mask
        graph = _t.get_default_graph()
        with graph.name_scope(self.name):
            if not self.built:
                first = flat(inputs)[0]
                if self.dtype is None and first.dtype.kind == "f":   # (TF1: the input's)
                    self.dtype = first.dtype
                self.build(_shapes(inputs, self.name))
                self.built = True
                if self._initial_weights is not None:
                    self._set_initial(self._initial_weights)
            out = self.call(inputs, *args, **given)
            if self.activity_regularizer is not None:
                self._activity_loss(out)
            self._keep_masks(inputs, mask, out)
        self._calls.append((inputs, out))
        record = (out, self, inputs, args, kwargs)   # (each output tensor finds its call)
        K.state().calls.update((id(t), record) for t in flat(out))
        return out

    def build(self, input_shape):
        """Make the weights (``add_weight``) for inputs of ``input_shape``."""

    def call(self, inputs, **kwargs):
        return inputs

    def compute_mask(self, inputs, mask=None):
        """The mask of the output: the input's for a layer that ``supports_masking``."""
        if not self.supports_masking:
            if any(m is not None for m in flat(mask)):
                raise TypeError(f"Layer {self.name} does not support masking, but was "
                                f"passed an input_mask: {mask}")
            return None
        return mask

    def _keep_masks(self, inputs, mask, out):
        """TF1 keras's masks of the outputs: those they have already (a model's, made by
        the layers inside), else ``compute_mask``'s if the layer supports masking or
        defines it, else none."""
        outs = flat(out)
        if all(K.mask_of(t) is not None for t in outs):
            return
        own = self.supports_masking or type(self).compute_mask is not Layer.compute_mask
        masks = self.compute_mask(inputs, mask) if own else None
        masks = list(masks) if isinstance(masks, (list, tuple)) else [masks] * len(outs)
        for tensor, found in zip(outs, masks):
            K.set_mask(tensor, found)

    def add_weight(self, name, shape, dtype=None, initializer=None, regularizer=None,
                   trainable=True, constraint=None, **kwargs):
        """A new weight ``<layer scope>/name`` of ``shape``, initialised as
        ``initializer`` says (glorot_uniform for floats, zeros otherwise, as TF)."""
        dtype = np.dtype(tf_dtype_arg(dtype) or self.dtype or K.floatx())
        initializer = _objects.get_initializer(initializer) or \
            _objects.get_initializer("glorot_uniform" if dtype.kind == "f" else "zeros")
        value = _objects.initial_value(initializer, shape, dtype, f"{self.name}.{name}")
        # TF1 keras: a layer made with trainable=False still puts its weights in
        # TRAINABLE_VARIABLES; only layer.trainable_weights leaves them out
        weight = Variable(value, name=name, trainable=bool(trainable),
                          constraint=get_constraint(constraint))
        K.track_variable(weight)
        self._weights.append(weight)
        regularizer = _objects.get_regularizer(regularizer)
        if regularizer is not None:
            with weight.graph.absolute_scope(f"{weight.op_name}/Regularizer"):
                self._losses.append(regularizer(weight))
        return weight

    def add_loss(self, losses, inputs=None):
        self._losses.extend(losses if isinstance(losses, (list, tuple)) else [losses])

    def add_update(self, updates, inputs=None):
        self._updates.extend(updates if isinstance(updates, (list, tuple)) else [updates])

    def _activity_loss(self, out):
        # keras's: the regularizer of the output divided by the batch size
        batch = _t.cast(_t.shape(out)[0], out.dtype)
        with _t.get_default_graph().name_scope("ActivityRegularizer"):
            self._activity_losses.append(self.activity_regularizer(out) / batch)

    # -- what users read ---------------------------------------------------------------
    def _sublayers(self):
        return []

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        own = [w for w in self._weights if w.trainable]
        return own + [w for layer in self._sublayers() for w in layer.trainable_weights]

    @property
    def non_trainable_weights(self):
        every = self._weights + [w for layer in self._sublayers() for w in layer.weights]
        kept = {id(w) for w in self.trainable_weights}
        return [w for w in distinct(every) if id(w) not in kept]

    @property
    def weights(self):
        """Trainable weights first, then the others (keras's order)."""
        return distinct(self.trainable_weights + self.non_trainable_weights)

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    @property
    def losses(self):
        """The activity regularizers' terms, then the weights' (TF1 keras's order)."""
        own = self._activity_losses + self._losses
        return own + [x for layer in self._sublayers() for x in layer.losses]

    @property
    def updates(self):
        if not self.trainable:   # (TF1 keras: a frozen layer reports no updates)
            return []
        return self._updates + [u for layer in self._sublayers() for u in layer.updates]

    def get_weights(self):
        """The weights' values (numpy), read in ``tf.keras.backend.get_session()``."""
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        """Assign numpy values to the weights, in ``get_session()``."""
        mine = self.weights
        if len(weights) != len(mine):
            raise ValueError(f"set_weights: layer {self.name!r} has {len(mine)} weights "
                             f"({[w.name for w in mine]}), got {len(weights)} values")
        K.batch_set_value(list(zip(mine, weights)))

    def _set_initial(self, weights):
        # the weights= argument, as TF1 keras applies it: set_weights when built, in
        # get_session(); so an initializer run later (tf.global_variables_initializer)
        # puts the initializer's values back, as in TF
        self.set_weights(weights)

    def count_params(self):
        return int(sum(np.prod(w.shape, dtype=np.int64) for w in self.weights))

    def _only_call(self, what):
        if not self._calls:
            raise AttributeError(f"The layer {self.name!r} has never been called and thus "
                                 f"has no defined {what}.")
        if len(self._calls) > 1:
            raise AttributeError(f"Layer {self.name!r} has multiple inbound nodes, hence the "
                                 f"notion of \"layer {what}\" is ill-defined.")
        return self._calls[0]

    def _call_shape(self, at, what):
        """The static shape of every call's input (``at`` 0) or output (1), if one."""
        if not self._calls:
            self._only_call(what)
        shapes = [static_shapes(call[at]) for call in self._calls]
        if any(shape != shapes[0] for shape in shapes):
            raise AttributeError(f"The layer {self.name!r} has multiple inbound nodes, with "
                                 f"different {what}s: {shapes}")
        return shapes[0]

    input = property(lambda self: self._only_call("input")[0])
    output = property(lambda self: self._only_call("output")[1])
    input_shape = property(lambda self: self._call_shape(0, "input shape"))
    output_shape = property(lambda self: self._call_shape(1, "output shape"))

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r}>"


class ChannelsLast(Layer):
    """A layer computed by ``last`` on channels-last images; with
    ``data_format="channels_first"`` (or ``K.image_data_format()`` so when None) its
    input is transposed to channels last and the result back, as keras's layers take
    [N, C, H, W]."""

    def call(self, inputs):
        if self.data_format != "channels_first":
            return self.last(inputs)
        x = _t.transpose(inputs, [0] + list(range(2, inputs.ndim)) + [1])
        out = self.last(x)
        return _t.transpose(out, [0, out.ndim - 1] + list(range(1, out.ndim - 1)))

    def channels(self, input_shape):
        """The size of the channel axis of ``input_shape``."""
        return known_size(input_shape, 1 if self.data_format == "channels_first" else -1,
                          f"{self.name!r}", "channel")


def image_format(data_format, what):
    """A layer's ``data_format`` (None: ``K.image_data_format()``), checked."""
    found = data_format or K.image_data_format()
    if found not in ("channels_last", "channels_first"):
        raise ValueError(f"{what}: data_format={data_format!r}; use 'channels_last' or "
                         "'channels_first'")
    return found


def unbuilt_copy(layer, name):
    """A copy of ``layer`` named ``name``, with its settings and without weights (built
    again when called)."""
    twin = copy.copy(layer)
    twin.name, twin.built = name, False
    twin._weights, twin._losses, twin._updates, twin._calls = [], [], [], []
    twin._activity_losses = []
    return twin


def _batch_input_shape(kwargs):
    if kwargs.get("batch_input_shape") is not None:
        return tuple(kwargs["batch_input_shape"])
    if kwargs.get("input_shape") is not None:
        return (kwargs.get("batch_size"),) + tuple(kwargs["input_shape"])
    if kwargs.get("input_dim") is not None:
        return (kwargs.get("batch_size"), int(kwargs["input_dim"]))
    return None


def _tensors(inputs):
    """Tensors from tensors, numpy values and Python numbers (floats as float32)."""
    if isinstance(inputs, (list, tuple)):
        return type(inputs)(_tensors(x) for x in inputs)
    if isinstance(inputs, Node):
        return inputs
    return constant(inputs, tf_dtype(inputs, None) if not isinstance(inputs, np.ndarray)
                    or inputs.dtype != np.float64 else np.float32)


def _input_masks(inputs):
    """The keras masks of ``inputs`` (one, or a list for a list), None if none has one."""
    masks = [K.mask_of(x) for x in flat(inputs)]
    if all(m is None for m in masks):
        return None
    return masks if isinstance(inputs, (list, tuple)) else masks[0]


def takes_argument(method, argument):
    try:
        return argument in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return True


def flat(inputs):
    return [y for x in inputs for y in flat(x)] if isinstance(inputs, (list, tuple)) \
        else [inputs]


def _shapes(inputs, layer):
    if isinstance(inputs, (list, tuple)):
        return [_shapes(x, layer) for x in inputs]
    if inputs.shape is None:
        raise ValueError(f"layer {layer!r}: the input {inputs.name!r} has an unknown shape (a "
                         "placeholder made without one); give it a shape, e.g. "
                         "tf.placeholder(tf.float32, [None, 784])")
    return TensorShape(inputs.shape)


def static_shapes(tensors):
    if isinstance(tensors, (list, tuple)):
        return [static_shapes(t) for t in tensors]
    return K.int_shape(tensors)


def distinct(items):
    """``items`` in order, each object once (by identity: weights and layers)."""
    seen, out = set(), []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


def known_size(shape, axis, layer, what):
    """``shape[axis]`` as an int, or a ValueError naming the layer."""
    size = shape[axis]
    if not isinstance(size, int):
        raise ValueError(f"{layer}: the {what} axis of the input (shape {tuple(shape)}) must "
                         "have a known size")
    return int(size)
