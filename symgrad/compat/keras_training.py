"""Keras's training loop in a TF1 graph: ``Model.compile``, ``fit``, ``evaluate``,
``train_on_batch``, ``test_on_batch``, ``predict_on_batch``, as graph-mode Keras
(``tf.compat.v1`` with v2 behaviour disabled) runs them.

``compile(optimizer, loss, metrics)`` builds, once, the targets, loss, metrics and
training operation (``compat.keras_compile``); the learning phase is fed True while
training.  ``fit`` runs it batch after batch in
``tf.keras.backend.get_session()``; an epoch's ``loss`` and metrics are the means over
its samples of the values each batch had before its update (Keras's), the ``val_``
ones come from ``evaluate`` after the epoch.  ``shuffle=True`` shuffles each epoch's
order with ``np.random.shuffle``, as Keras does.  Metric names are graph-mode Keras's:
``"accuracy"`` is ``acc`` (binary, sparse or categorical by the loss and the output),
``"mae"`` is ``mean_absolute_error``.

``sample_weight`` and ``class_weight`` weigh the loss as Keras does
(``compat.keras_weights``; the metrics stay unweighted).  Not supported (a clear
error): datasets and generators as ``x``, keras metric objects.

Sits in ``compat``; imports the keras modules and ``compat.session``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> with tf.Graph().as_default():
...     model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,),
...                                                        kernel_initializer="zeros")])
...     model.compile(tf.keras.optimizers.SGD(0.1), "mse")
...     h = model.fit(np.ones((4, 2)), np.ones(4), batch_size=4, epochs=2, verbose=0)
...     [round(v, 4) for v in h.history["loss"]]
[1.0, 0.16]
"""
from __future__ import annotations

import numpy as np

from ..graph import Node
from . import keras_backend as K
from . import keras_callbacks as _callbacks
from . import keras_optimizers as _optimizers
from .keras_compile import build
from .keras_weights import with_weights
from .session import initialized_anywhere

def _arrays(data, tensors, what):
    """``data`` (an array, a list, or a dict by name) as one array per tensor."""
    if data is None and not tensors:   # (no targets: the model's losses are add_loss's)
        return []
    if data is None:
        raise ValueError(f"{what}: give the numpy data")
    if hasattr(data, "make_one_shot_iterator") or hasattr(data, "__next__"):
        raise ValueError(f"{what}: datasets and generators are not supported; pass numpy "
                         "arrays (or run the dataset's batches with sess.run and "
                         "train_on_batch)")
    if isinstance(data, dict):   # by input name, or by output layer name for targets
        names = [t.name.split(":")[0].split("/")[0] for t in tensors]
        names = [n[:-len("_target")] if n.endswith("_target") else n for n in names]
        missing = [n for n in names if n not in data]
        if missing:
            raise ValueError(f"{what}: no data for {missing}; the dict's keys are "
                             f"{sorted(data)}, the model's names {names}")
        data = [data[n] for n in names]
    arrays = [np.asarray(a) for a in (data if isinstance(data, (list, tuple)) else [data])]
    if len(arrays) != len(tensors):
        raise ValueError(f"{what}: the model takes {len(tensors)} arrays, got {len(arrays)}")
    return [a[:, None] if a.ndim == 1 and t.ndim == 2 else a for a, t in zip(arrays, tensors)]


def _count(arrays):
    sizes = {len(a) for a in arrays}
    if len(sizes) != 1:
        raise ValueError(f"the input and target arrays hold different numbers of samples: "
                         f"{sorted(sizes)}; give one row per sample in each")
    return sizes.pop()


class Training:
    """``compile``, ``fit``, ``evaluate`` and the ``*_on_batch`` methods of tf.keras.Model."""

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                **kwargs):
        """Build the loss, metrics and training op (graph-mode Keras)."""
        if sample_weight_mode not in (None, "temporal"):
            raise ValueError(f"compile(sample_weight_mode={sample_weight_mode!r}): give None "
                             "(a weight per sample) or 'temporal' (per sample and step)")
        for given, name in ((weighted_metrics, "weighted_metrics"),
                            (target_tensors, "target_tensors")):
            if given is not None:
                raise ValueError(f"compile({name}=...) is not supported")
        self._one("outputs")   # (a model built on inputs: Input(...) or input_shape=)
        self.optimizer = _optimizers.get(optimizer)
        self.loss = loss
        with self.outputs[0].graph.as_default():
            self._compiled = build(self, self.optimizer, loss, metrics, loss_weights,
                                   sample_weight_mode == "temporal")
        self.stop_training = False

    @property
    def metrics_names(self):
        return list(self._compiled_or_raise("metrics_names").names)

    def _compiled_or_raise(self, what):
        found = self.__dict__.get("_compiled")
        if found is None:
            raise RuntimeError(f"Model.{what}: you must compile the model before training "
                               "or testing it: model.compile(optimizer, loss)")
        return found

    def _session(self):
        session = K.get_session()
        for v in self._compiled.optimizer.variables():
            if v not in session._initialized and not initialized_anywhere(v):
                session.run(v.initializer)
        return session

    def _run(self, xs, ys, training):
        """One batch: ``[loss, metrics...]``, the values before the update when
        ``training``; the metrics are Keras's running means (``_running``)."""
        c = self._compiled
        feed = dict(zip(self.inputs, xs))
        feed.update(zip(c.targets + c.sample_weights, ys))
        phase = K.learning_phase()
        if isinstance(phase, Node):
            feed[phase] = bool(training)
        # (the stateful layers' states move with every batch, trained or not)
        fetches = [c.loss] + c.values + ([c.train_op] if training else self.state_updates)
        found = self._session().run(fetches, feed)
        return [np.float32(found[0])] + self._running(found[1:1 + len(c.values)], len(xs[0]))

    def _running(self, means, n):
        """Graph-mode Keras's metrics are stateful means: each result counts every batch
        since the last reset (a fit epoch, evaluate and *_on_batch reset before or after:
        see the callers), so train_on_batch right after evaluate includes evaluate's."""
        total, count = self.__dict__.get("_metric_state") or (0.0, 0)
        total = total + np.asarray(means, np.float32) * np.float32(n)
        self._metric_state = (total, count + n)
        return list(total / np.float32(count + n)) if len(means) else []

    def reset_metrics(self):
        self._metric_state = None

    def _loop(self, xs, ys, batch_size, training, order=None, on_batch=None):
        """The epoch's values: the sample mean of the batch losses, the metrics' running
        means after the last batch (reset first)."""
        n = _count(xs + ys)
        order = np.arange(n) if order is None else order
        self.reset_metrics()
        loss, values = np.float32(0.0), []
        for index, start in enumerate(range(0, n, batch_size)):
            rows = order[start:start + batch_size]
            if on_batch is not None:
                on_batch("begin", index, {"batch": index, "size": len(rows)})
            values = self._run([a[rows] for a in xs], [a[rows] for a in ys], training)
            loss = loss + values[0] * np.float32(len(rows))
            if on_batch is not None:
                on_batch("end", index, dict(zip(self._compiled.names, values),
                                            batch=index, size=len(rows)))
        return [loss / np.float32(n)] + values[1:]

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose=1, callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, **kwargs):
        """Train for ``epochs`` over ``x``, ``y`` in batches; returns the ``History``."""
        c = self._compiled_or_raise("fit")
        if steps_per_epoch:
            raise ValueError("fit(steps_per_epoch=...) is not supported: it belongs to "
                             "datasets and generators; pass numpy arrays")
        xs = _arrays(x, self.inputs, "fit(x)")
        ys = with_weights(c, _arrays(y, c.targets, "fit(y)"), sample_weight, class_weight)
        val = _validation(xs, ys, validation_split, validation_data, self, c)
        if validation_split:
            split = int(_count(xs + ys) * (1.0 - validation_split))
            xs, ys = [a[:split] for a in xs], [a[:split] for a in ys]
        self.history = _callbacks.History()
        hooks = _Hooks(list(callbacks or []) + [self.history], self,   # (Keras: History last)
                       dict(epochs=epochs, samples=_count(xs + ys), verbose=verbose))
        batch = int(batch_size or 32)
        self.stop_training = False
        if verbose:   # (graph-mode Keras's first line)
            print(f"Train on {_count(xs + ys)} samples" + (
                f", validate on {_count(val[0] + val[1])} samples" if val is not None else ""))
        hooks.call("on_train_begin", {})
        for epoch in range(initial_epoch, epochs):
            hooks.call("on_epoch_begin", epoch, {})
            order = np.arange(_count(xs + ys))
            if shuffle:
                np.random.shuffle(order)   # (Keras's own call: np.random.seed repeats it)
            means = self._loop(xs, ys, batch, True, order, hooks.batch)
            logs = {k: float(v) for k, v in zip(c.names, means)}
            if val is not None:
                found = self._loop(val[0], val[1], batch, False)
                logs.update({"val_" + k: float(v) for k, v in zip(c.names, found)})
            _report(verbose, epoch, epochs, _count(xs + ys), logs)
            hooks.call("on_epoch_end", epoch, logs)
            if self.stop_training:
                break
        hooks.call("on_train_end", {})
        return self.history

    def evaluate(self, x=None, y=None, batch_size=None, verbose=1, sample_weight=None,
                 steps=None, callbacks=None, **kwargs):
        """``[loss, metrics...]`` over the data (the loss alone without metrics)."""
        c = self._compiled_or_raise("evaluate")
        ys = with_weights(c, _arrays(y, c.targets, "evaluate(y)"), sample_weight,
                          what="evaluate")
        found = self._loop(_arrays(x, self.inputs, "evaluate(x)"), ys, int(batch_size or 32),
                           False)
        return found if len(found) > 1 else found[0]

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       reset_metrics=True):
        """One update on the batch; ``[loss, metrics...]`` before it."""
        c = self._compiled_or_raise("train_on_batch")
        ys = with_weights(c, _arrays(y, c.targets, "train_on_batch(y)"), sample_weight,
                          class_weight, "train_on_batch")
        found = self._run(_arrays(x, self.inputs, "train_on_batch(x)"), ys, True)
        if reset_metrics:
            self.reset_metrics()
        return found if len(found) > 1 else found[0]

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True):
        c = self._compiled_or_raise("test_on_batch")
        ys = with_weights(c, _arrays(y, c.targets, "test_on_batch(y)"), sample_weight,
                          what="test_on_batch")
        found = self._run(_arrays(x, self.inputs, "test_on_batch(x)"), ys, False)
        if reset_metrics:
            self.reset_metrics()
        return found if len(found) > 1 else found[0]

    def predict_on_batch(self, x):
        xs = list(x) if isinstance(x, (list, tuple)) else [x]
        return self.predict(x, batch_size=max(1, len(xs[0])))


def _validation(xs, ys, split, data, model, compiled):
    """The validation arrays: ``validation_data``, or the last ``split`` of the data."""
    if data is not None:
        if len(data) not in (2, 3):
            raise ValueError("fit(validation_data=...): give (x_val, y_val) or (x_val, y_val, "
                             "val_sample_weights)")
        ys = _arrays(data[1], compiled.targets, "validation_data y")
        return (_arrays(data[0], model.inputs, "validation_data x"),
                with_weights(compiled, ys, data[2] if len(data) == 3 else None,
                             what="validation_data"))
    if not split:
        return None
    if not 0.0 < split < 1.0:
        raise ValueError(f"fit(validation_split={split}): give a fraction in (0, 1)")
    at = int(_count(xs + ys) * (1.0 - split))
    return [a[at:] for a in xs], [a[at:] for a in ys]


def _report(verbose, epoch, epochs, n, logs):
    """Keras's end-of-epoch lines (without its progress bar's steps and timings)."""
    if verbose:
        print(f"Epoch {epoch + 1}/{epochs}")
        values = " - ".join(f"{k}: {v:.4f}" for k, v in logs.items())
        print(f"{n}/{n} [==============================] - {values}")


class _Hooks:
    """The callbacks of one ``fit``, called in order."""

    def __init__(self, callbacks, model, params):
        self.callbacks = callbacks
        for cb in callbacks:
            cb.set_model(model)
            cb.set_params(params)

    def call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def batch(self, when, index, logs):
        self.call(f"on_train_batch_{when}", index, logs)


__all__ = ["Training"]
