"""What ``Model.compile`` builds in the graph (``compat.keras_training`` runs it): a
target placeholder per output (``(None, 1)`` for sparse labels, as Keras's), the loss
-- the batch mean of ``loss(y_true, y_pred)`` per output (times the sample weights fed
to ``<output>_sample_weights``: Keras's sum over the batch size), times
``loss_weights``, plus the layers' regularization losses -- the metrics' batch means under graph-mode Keras's
names (``"accuracy"``: ``acc``, binary, sparse or categorical by the loss and the
output; ``"mae"``: ``mean_absolute_error``; a second output's prefixed ``cls_acc``)
and the training op (the optimizer's step grouped with the layers' updates).

Sits in ``compat``; imports the tracing functions, ``compat.keras_backend``,
``compat.keras_objects``, ``compat.tensor`` and ``compat.variables``.

>>> import symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,),
...                                                        activation="softmax")])
...     built = build(model, tf.keras.optimizers.SGD(), "sparse_categorical_crossentropy",
...                   ["accuracy"], None)
...     built.names, built.targets[0].shape.as_list()
(['loss', 'acc'], [None, 1])
"""
from __future__ import annotations

from .. import tracing as _t
from . import keras_backend as K
from . import keras_objects as _objects
from .tensor import as_tf1
from .variables import group

_METRIC_NAMES = {"mae": "mean_absolute_error", "mse": "mean_squared_error",
                 "acc": "acc", "accuracy": "acc"}


class Compiled:
    """What ``compile`` built: placeholders, the loss, the metrics, the training op."""

    def __init__(self, targets, loss, names, values, train_op, optimizer):
        self.targets, self.loss, self.names, self.values = targets, loss, names, values
        self.train_op, self.optimizer = train_op, optimizer


def _accuracy_for(loss_fn, output):
    """Keras's choice for ``"accuracy"``: by the loss, else by the output's last size."""
    name = getattr(loss_fn, "__name__", "")
    if name == "sparse_categorical_crossentropy":
        return _objects.sparse_categorical_accuracy
    if name == "binary_crossentropy" or output.shape[-1] == 1:
        return _objects.binary_accuracy
    return _objects.categorical_accuracy


def _metric(identifier, loss_fn, output):
    """(history name, function) of one entry of ``metrics``."""
    if isinstance(identifier, str):
        if identifier in ("acc", "accuracy"):
            return "acc", _accuracy_for(loss_fn, output)
        if identifier not in _objects.METRICS:
            raise ValueError(f"compile(metrics=[{identifier!r}]): unknown metric; use one of "
                             f"{sorted(_objects.METRICS) + ['accuracy']} or a function "
                             "metric(y_true, y_pred)")
        return _METRIC_NAMES.get(identifier, identifier), _objects.METRICS[identifier]
    if callable(identifier) and not hasattr(identifier, "update_state"):
        return identifier.__name__, identifier
    raise ValueError(f"compile(metrics=[{identifier!r}]): keras metric objects are not "
                     "supported; pass the metric's name ('accuracy', 'mae') or a function "
                     "metric(y_true, y_pred)")


def output_names(outputs):
    """The outputs' layer names, made unique as TF1 keras does (two outputs of one
    nested model: ``model``, ``model_1``), for ``model_1_loss`` and ``model_1_target``."""
    taken, counts, names = set(), {}, []
    for out in outputs:
        base = proposal = out.name.split("/")[0]
        while proposal in taken:
            counts[base] = counts.get(base, 1)
            proposal = f"{base}_{counts[base]}"
            counts[base] += 1
        taken.add(proposal)
        names.append(proposal)
    return names


def _per_output(value, outputs, what):
    """``value`` (one for all, a list, or a dict by output layer name) as a list."""
    if isinstance(value, dict):
        names = output_names(outputs)
        return [value.get(n) for n in names]
    if isinstance(value, (list, tuple)) and what != "metrics":
        if len(value) != len(outputs):
            raise ValueError(f"compile({what}=...): {len(value)} entries for "
                             f"{len(outputs)} outputs")
        return list(value)
    return [value] * len(outputs)


def _batch_mean(values, mask=None):
    """The mean of a metric's values (over the steps the output's mask keeps)."""
    if not values.ndim:
        return values
    if mask is None:
        return _t.reduce_mean(values)
    kept = _t.cast(mask, values.dtype)
    return _t.reduce_sum(values * kept) / _t.reduce_sum(kept)


def _weighted_mean(values, weights, mask=None):
    """Keras's SUM_OVER_BATCH_SIZE: ``sum(loss * sample weight) / number of losses``
    (the weights, one per sample, fed as ones when none are given).  Where the output
    has a keras mask, a masked loss weighs 0 and a kept one ``size / kept`` (keras's
    ``apply_valid_mask``), so the result is the mean over the kept steps."""
    if not values.ndim:
        return values
    w = weights if weights.ndim == values.ndim else \
        _t.reshape(weights, [-1] + [1] * (values.ndim - 1))   # (temporal: [batch, time])
    size = _t.cast(_t.size(values), values.dtype)
    w = _t.cast(w, values.dtype)
    if mask is not None:
        kept = _t.cast(mask, values.dtype)
        w = w * kept * (_t.cast(_t.size(kept), values.dtype) / _t.reduce_sum(kept))
    return _t.reduce_sum(values * w) / size


def relevant_updates(model):
    """The updates the training step runs (TF1 keras's: those of calls on this model's
    inputs, and the unconditional ones).  ``model.updates`` holds every call's: a
    Sequential built on its own input then called inside a GAN's generator made updates
    that read a placeholder this model never feeds."""
    wanted = {id(x) for x in model.inputs}
    return [u for u in model.updates if _belongs(u, wanted, K.state().inputs)]


def _belongs(update, wanted, keras_inputs):
    """Whether ``update`` depends on one of the tensors ``wanted`` (ids), or on no keras
    input at all (an unconditional update)."""
    seen, stack, saw_input = set(), [update], False
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if id(node) in wanted:
            return True
        saw_input = saw_input or id(node) in keras_inputs
        stack.extend(getattr(node, "inputs", ()))
    return not saw_input


def build(model, optimizer, loss, metrics, loss_weights, temporal=False):
    """The graph of ``compile``: targets, total loss, metric means, training op.  An
    output whose loss is None (``compile(loss=None)`` with ``model.add_loss``, as
    Keras's variational autoencoder) gets no target, no loss and no metrics.  With
    ``temporal`` (``sample_weight_mode="temporal"``) the sample weights are fed per
    sample and step, [batch, time]."""
    outputs = model.outputs
    losses = [None if l is None else _objects.get_loss(l)
              for l in _per_output(loss, outputs, "loss")]
    weights = _per_output(loss_weights, outputs, "loss_weights") if loss_weights \
        is not None else [1.0] * len(outputs)
    asked = _per_output(metrics or [], outputs, "metrics")
    layers = output_names(outputs)
    prefixes = [name + "_" if len(outputs) > 1 else "" for name in layers]
    kept = [(out, loss_fn, w, prefix, entry, layer) for out, loss_fn, w, prefix, entry, layer
            in zip(outputs, losses, weights, prefixes, asked, layers) if loss_fn is not None]
    targets, sample_weights, parts, names, values = [], [], [], ["loss"], []
    for out, loss_fn, w, prefix, _, layer in kept:
        sparse = getattr(loss_fn, "__name__", "") == "sparse_categorical_crossentropy"
        shape = (None,) * (out.ndim - 1) + ((1,) if sparse else (None,))  # (Keras's targets)
        target = as_tf1(_t.placeholder(out.dtype, shape, name=layer + "_target"))
        targets.append(target)
        sample_weights.append(as_tf1(_t.placeholder(
            out.dtype, (None, None) if temporal else (None,), name=layer + "_sample_weights")))
        parts.append(_weighted_mean(loss_fn(target, out), sample_weights[-1],
                                    K.mask_of(out)) * w)
        if len(outputs) > 1:
            names.append(prefix + "loss")
            values.append(parts[-1] / w if w else parts[-1])
    for (out, loss_fn, _, prefix, entry, _), target in zip(kept, targets):
        for identifier in (entry if isinstance(entry, (list, tuple)) else [entry]):
            name, fn = _metric(identifier, loss_fn, out)
            names.append(prefix + name)
            values.append(_batch_mean(fn(target, out), K.mask_of(out)))
    terms = parts + list(model.losses)   # (Keras: total_loss += ...)
    if not terms:
        raise ValueError("compile(loss=...): give the loss ('mse', "
                         "'sparse_categorical_crossentropy', a function, ...), or add one "
                         "to the model with model.add_loss(tensor) before compile")
    total = terms[0]
    for part in terms[1:]:
        total = total + part
    step = optimizer.minimize(total, var_list=model.trainable_weights)
    updates = relevant_updates(model)
    train_op = group(step, *updates) if updates else step
    found = Compiled(targets, total, names, values, train_op, optimizer)
    found.sample_weights, found.temporal = sample_weights, temporal
    found.sparse = [
        getattr(f, "__name__", "") == "sparse_categorical_crossentropy" for f in losses
        if f is not None]
    return found


__all__ = ["Compiled", "build"]
