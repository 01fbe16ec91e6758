"""``tf.keras.models.clone_model``: a model of the same layers with weights of its own.

keras-rl and TF1 DQN code make the target network this way
(``target = clone_model(model); target.set_weights(model.get_weights())``).  Each layer
is copied with its settings and without weights (``keras_layers.unbuilt_copy``, its
name kept, as keras's ``from_config`` keeps it); the copies make new variables when
called, under names the graph makes unique (``dense_2/kernel``), initialised by the
same initializers, so the clone does not share the original's values.

- a ``Sequential``: the copies in order, on a new input placeholder when the original
  had an input shape;
- a functional ``Model``: its layer calls replayed on copies (a layer called twice is
  one copy called twice), on new ``Input`` placeholders (named as the original's input
  layers) or on ``input_tensors``.

``clone_function(layer)`` replaces the copy of each layer.  A subclassed model has no
layer graph to replay: TF's ValueError.

Sits in ``compat``; imports ``keras_models``, ``keras_graph``, ``keras_layers`` and
``keras_backend``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))], name="q")
...     t = tf.keras.models.clone_model(m)
...     t.name, [w.name for w in t.weights]
('q', ['dense_1/kernel:0', 'dense_1/bias:0'])
"""
from __future__ import annotations

from . import keras_backend as K
from .keras_graph import mapped
from .keras_layers import flat, unbuilt_copy
from .keras_models import Input, InputLayer, Model, Sequential

__all__ = ["clone_model"]


def clone_model(model, input_tensors=None, clone_function=None):
    """A copy of ``model`` with new weights (module docstring).

    Raises:
        ValueError: ``model`` is a subclassed model (no layer graph to copy).
    """
    copy = clone_function or (lambda layer: unbuilt_copy(layer, layer.name))
    if isinstance(model, Sequential):
        return _sequential(model, input_tensors, copy)
    if "_ordered" not in model.__dict__:
        raise ValueError(f"clone_model: {model.name!r} is a subclassed model, which has no "
                         "layer graph to copy; make a new instance of its class instead")
    return _functional(model, input_tensors, copy)


def _sequential(model, input_tensors, copy):
    layers = [copy(layer) for layer in model.layers]
    if input_tensors is None:
        return Sequential(layers, name=model.name)
    clone = Sequential(name=model.name)
    clone.add(InputLayer(input_tensor=flat(input_tensors)[0]))
    for layer in layers:
        clone.add(layer)
    return clone


def _functional(model, input_tensors, copy):
    inputs = flat(input_tensors) if input_tensors is not None else [
        Input(batch_shape=tuple(x.get_shape().as_list()), dtype=x.dtype,
              name=getattr(K.state().inputs.get(id(x)), "name", None)) for x in model.inputs]
    made = {id(a): b for a, b in zip(model.inputs, inputs)}
    copies = {}
    for out, layer, layer_inputs, args, kwargs in model._steps:
        twin = copies.setdefault(id(layer), copy(layer))
        again = twin(mapped(layer_inputs, made), *[mapped(a, made) for a in args],
                     **{k: mapped(v, made) for k, v in kwargs.items()})
        made.update((id(old), new) for old, new in zip(flat(out), flat(again)))
    outputs = [made[id(o)] for o in model.outputs]
    nested = model._nested
    return Model(inputs if nested[0] else inputs[0], outputs if nested[1] else outputs[0],
                 name=model.name)
