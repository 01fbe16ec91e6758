"""``tf.keras.Input``, ``tf.keras.Model`` and ``tf.keras.Sequential`` called on tensors
of a TF1 graph.

- ``Input(shape=(4,))`` is a placeholder of shape (None, 4) named ``input_1``...
- ``Model(inputs, outputs)`` remembers the layer calls that lead from the inputs to
  the outputs; ``model(x)`` calls those layers again on ``x`` (sharing their
  weights) inside a name scope named after the model.  A TF op between two layers is
  not a layer call: wrap it in ``tf.keras.layers.Lambda``.
- ``Sequential([...])`` applies its layers in order; with ``input_shape=`` on the
  first layer it is built at once on an input placeholder (``dense_input``).
- A subclass of ``Model`` with a ``call`` method works as a layer whose weights are
  those of the layers it holds as attributes.
- ``predict(x)`` runs the outputs in ``tf.keras.backend.get_session()``, the
  learning phase False; ``compile``, ``fit``, ``evaluate`` and the ``*_on_batch``
  methods come from ``compat.keras_training``.

Sits in ``compat``; imports ``tracing`` and ``compat``'s keras modules and tensor.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
...     y = model(tf.zeros([2, 4]))
...     print(y.shape, [w.name for w in model.trainable_weights][:2])
(2, 1) ['sequential/dense/kernel:0', 'sequential/dense/bias:0']
"""
from __future__ import annotations

import numpy as np

from .. import tracing as _t
from ..graph import Node
from . import keras_backend as K
from . import keras_summary as _summary
from .keras_training import Training
from .keras_layers import Layer, distinct, flat, static_shapes, takes_argument
from .keras_graph import (by_depth, chain, check_input, connections, mapped,
                          shape_or_multiple, steps_between)
from .tensor import as_tf1, tf_dtype_arg

REFUSED = {
    "fit_generator": "pass numpy arrays to fit, or run each batch with train_on_batch",
    "evaluate_generator": "pass numpy arrays to evaluate, or test_on_batch on each batch",
    "predict_generator": "sess.run(model(x)) on each batch",
    "save": "save the variables with tf.train.Saver(model.weights)",
    "save_weights": "save the variables with tf.train.Saver(model.weights)",
    "load_weights": "restore the variables with tf.train.Saver(model.weights).restore",
    "to_json": "keras model files are not supported; rebuild the model in code",
    "to_yaml": "keras model files are not supported; rebuild the model in code",
}


class InputLayer(Layer):
    """``tf.keras.layers.InputLayer``: the layer of a ``tf.keras.Input`` placeholder
    (first in a functional model's ``layers``; leading a ``Sequential``)."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, batch_input_shape=None, **kwargs):
        if sparse:
            raise ValueError("tf.keras.Input(sparse=True): sparse inputs are not "
                             "supported; feed a dense array")
        super().__init__(name=name or K.unique_object_name("input", zero_based=False),
                         dtype=dtype)
        if input_tensor is None:
            if batch_input_shape is None:
                if input_shape is None:
                    raise ValueError("tf.keras.Input: give shape= (without the batch "
                                     "axis), e.g. tf.keras.Input(shape=(784,))")
                batch_input_shape = (batch_size,) + tuple(input_shape)
            dtype = np.dtype(tf_dtype_arg(dtype) or K.floatx())
            input_tensor = as_tf1(_t.placeholder(dtype, tuple(batch_input_shape),
                                                 name=self.name))
        self.tensor = input_tensor
        self._calls = [(input_tensor, input_tensor)]
        K.state().inputs[id(input_tensor)] = self


InputLayer.output_shape = property(   # (TF1 keras's: a list of one shape)
    lambda self: [K.int_shape(self.tensor)])


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False,  # noqa: N802
          tensor=None, batch_shape=None, **kwargs):
    """``tf.keras.Input``: a placeholder of shape ``(batch_size,) + shape`` (or the given
    ``tensor``), named ``input_1``, ``input_2``..."""
    return InputLayer(shape, batch_size, dtype, tensor, sparse, name, batch_shape).tensor


def placeholder(shape=None, ndim=None, dtype=None, name=None):
    """``K.placeholder``: a plain placeholder, named ``Placeholder`` (``_1``...) as TF's,
    not ``input_1`` (so the next ``Input`` is still ``input_1``: neural_style_transfer.py
    makes one before its model's ``Input(tensor=...)``); a model may still start from it."""
    shape = tuple(shape) if shape is not None else (None,) * int(ndim)
    dtype = np.dtype(tf_dtype_arg(dtype) or K.floatx())
    tensor = as_tf1(_t.placeholder(dtype, shape, name=name or "Placeholder"))
    return InputLayer(input_tensor=tensor, name=tensor.name.split(":")[0]).tensor


class Model(Training, Layer):
    """``tf.keras.Model(inputs, outputs)`` (functional) or a subclass with ``call``."""

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        self._held = []
        super().__init__(**kwargs)
        self.inputs = self.outputs = None
        self._steps = []
        if inputs is not None or outputs is not None:
            self._functional(inputs, outputs)

    def __setattr__(self, name, value):   # layers held as attributes (subclassed models)
        if name not in ("_list", "_steps", "_ordered"):
            self.__dict__.setdefault("_held", []).extend(_layers_in(value))
        super().__setattr__(name, value)

    def _functional(self, inputs, outputs):
        self._nested = (isinstance(inputs, (list, tuple)), isinstance(outputs, (list, tuple)))
        self.inputs = list(inputs) if self._nested[0] else [inputs]
        self.outputs = list(outputs) if self._nested[1] else [outputs]
        self._steps = steps_between(self.inputs, self.outputs)
        self._ordered = by_depth(self.inputs, self.outputs, self._steps)
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        if self.__dict__.get("inputs") is None and type(self).call is Model.call:
            raise ValueError(f"Model {self.name!r} has no inputs and outputs and no call "
                             "method; build it as tf.keras.Model(inputs=..., outputs=...)")
        if self.__dict__.get("inputs"):
            given = inputs if isinstance(inputs, (list, tuple)) else [inputs]
            for i, (want, got) in enumerate(zip(self.inputs, given)):
                check_input(self.name, i, want, got)
        return super().__call__(inputs, *args, **kwargs)

    def call(self, inputs, training=None):
        given = list(inputs) if self._nested[0] else [inputs]
        if len(given) != len(self.inputs):
            raise ValueError(f"Model {self.name!r} takes {len(self.inputs)} inputs, got "
                             f"{len(given)}")
        made = {id(a): b for a, b in zip(self.inputs, given)}
        for out, layer, layer_inputs, args, kwargs in self._steps:
            if training is not None and "training" not in kwargs and _takes_training(layer):
                kwargs = dict(kwargs, training=training)
            args = [mapped(a, made) for a in args]   # (initial_state=: tensors too)
            kwargs = {k: mapped(v, made) for k, v in kwargs.items()}
            again = layer(mapped(layer_inputs, made), *args, **kwargs)
            made.update((id(old), new) for old, new in zip(flat(out), flat(again)))
        found = [made[id(o)] for o in self.outputs]
        return found if self._nested[1] else found[0]

    def _sublayers(self):
        # (keras's order, that of model.layers, which get_weights and set_weights keep)
        layers = list(self.__dict__.get("_ordered", [step[1] for step in self._steps]))
        return distinct(layers + list(self.__dict__.get("_held", [])))

    @property
    def layers(self):
        """The model's layers; a functional model's as keras orders them (by depth from
        the outputs, the deepest first: its InputLayers lead)."""
        if "_ordered" in self.__dict__:
            return list(self._ordered)
        return self._sublayers()

    @property
    def weights(self):
        """Each layer's weights in turn (keras's order for models)."""
        found = self._weights + [w for layer in self._sublayers() for w in layer.weights]
        return distinct(found)

    variables = weights

    @property
    def state_updates(self):
        """The assignments of the stateful recurrent layers' final states."""
        return [u for layer in self._stateful() for u in layer.updates]

    def reset_states(self):
        """Zeros into every stateful layer's states."""
        for layer in self._stateful():
            layer.reset_states()

    def _stateful(self):
        inner = [x for layer in self._sublayers() for x in
                 (layer._stateful() if isinstance(layer, Model) else [layer])]
        return [layer for layer in inner if getattr(layer, "stateful", False)]

    def get_layer(self, name=None, index=None):
        if index is not None:
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name!r}; the model has "
                         f"{[x.name for x in self.layers]}")

    input = property(lambda self: self._one("inputs"))
    output = property(lambda self: self._one("outputs"))

    def _one(self, which):
        found = self.__dict__.get(which)
        if not found:
            raise AttributeError(f"Model {self.name!r} has no {which} (it was not built on "
                                 "tf.keras.Input tensors or given an input_shape)")
        return found[0] if len(found) == 1 else found

    def predict(self, x, batch_size=32, verbose=0, steps=None, **kwargs):
        """The outputs for numpy inputs ``x``, run in batches in ``get_session()``."""
        self._one("inputs")
        xs = list(x) if isinstance(x, (list, tuple)) else [x]
        n = len(xs[0])
        phase = K.learning_phase()
        parts = []
        for start in range(0, n, int(batch_size)):
            feed = {t: np.asarray(v)[start:start + int(batch_size)] for t, v in
                    zip(self.inputs, xs)}
            if isinstance(phase, Node):
                feed[phase] = False
            parts.append(K.get_session().run(self.outputs + self.state_updates,
                                             feed)[:len(self.outputs)])
        found = [np.concatenate([p[i] for p in parts]) for i in range(len(self.outputs))]
        return found if len(found) > 1 else found[0]

    def summary(self, print_fn=print, **kwargs):
        """Keras's table of the layers, their output shapes and parameter counts (and
        their inputs, for a functional model that is not one chain of layers)."""
        if "_ordered" not in self.__dict__:   # (Sequential, subclassed)
            rows = [(kind(layer), layer, shape_or_multiple(layer), [])
                    for layer in self.layers]
            return _summary.summary(self, rows, False, print_fn)
        rows = [(kind(layer), layer, shape_or_multiple(layer),
                 connections(layer, self._steps)) for layer in self.layers]
        _summary.summary(self, rows, not chain(self), print_fn)

    output_shape = property(lambda self: static_shapes(self._one("outputs")))
    input_shape = property(lambda self: static_shapes(self._one("inputs")))

    def __getattr__(self, name):
        if name in ("input", "output", "input_shape", "output_shape"):
            raise AttributeError(f"Model {self.name!r} has no {name} (it was not built on "
                                 "tf.keras.Input tensors or given an input_shape)")
        if name in REFUSED:
            raise AttributeError(f"tf.keras.Model.{name} is not supported in symgrad: "
                                 f"{REFUSED[name]}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")


class Sequential(Model):
    """``tf.keras.Sequential(layers)``: the layers applied one after another."""

    def __init__(self, layers=None, name=None):
        super().__init__(name=name)
        self._list = []
        for layer in layers or []:
            self.add(layer)

    def add(self, layer):
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add: {layer!r} is not a tf.keras layer")
        if isinstance(layer, InputLayer):
            if self._list:
                raise ValueError("Sequential.add: an InputLayer must come first")
            self.inputs = self.outputs = [layer.tensor]
            return
        self._list.append(layer)
        if self.outputs:
            self.outputs = [layer(self.outputs[0])]
        elif len(self._list) == 1 and layer.batch_input_shape is not None:
            placeholder = Input(batch_shape=layer.batch_input_shape,
                                name=f"{layer.name}_input", dtype=layer.dtype)
            self.inputs, self.outputs = [placeholder], [layer(placeholder)]

    def pop(self):
        if not self._list:
            raise TypeError("There are no layers in the model.")
        self._list.pop()
        self.inputs = self.outputs = None

    def call(self, inputs, training=None):
        for layer in self._list:
            if training is not None and _takes_training(layer):
                inputs = layer(inputs, training=training)
            else:
                inputs = layer(inputs)
        return inputs

    def _sublayers(self):
        return list(self._list)

    @property
    def layers(self):
        return list(self._list)


def kind(layer):
    """The class name keras prints: a model built from inputs and outputs is TF's
    ``Functional``."""
    if type(layer) is Model and "_ordered" in layer.__dict__:
        return "Functional"
    return type(layer).__name__


def _layers_in(value):
    """The layers an attribute holds: itself, or those in a list or tuple."""
    if isinstance(value, Layer):
        return [value]
    if isinstance(value, (list, tuple)):
        return [x for x in value if isinstance(x, Layer)]
    return []


def _takes_training(layer):
    return takes_argument(layer.call, "training")
