"""``tf.keras.callbacks`` for ``Model.fit`` (``compat.keras_training``): ``Callback``,
``History``, ``LambdaCallback``, ``EarlyStopping``, ``TerminateOnNaN``,
``LearningRateScheduler``.

``fit`` calls ``on_train_begin``, then per epoch ``on_epoch_begin``, per batch
``on_batch_begin``/``on_batch_end`` (also as ``on_train_batch_*``) with the batch's
``loss`` and metrics in ``logs``, and ``on_epoch_end`` with the epoch's (and the
``val_`` ones), then ``on_train_end``.  Setting ``model.stop_training = True`` ends
training after the epoch.

Sits in ``compat``; imports the keras backend.

>>> h = History()
>>> h.on_epoch_end(0, {"loss": 0.5}); h.history
{'loss': [0.5]}
"""
from __future__ import annotations

import numpy as np

from . import keras_backend as K

__all__ = ["Callback", "History", "LambdaCallback", "EarlyStopping", "TerminateOnNaN",
           "LearningRateScheduler"]


class Callback:
    """The base: every hook does nothing; ``model`` and ``params`` are set by ``fit``."""

    def __init__(self):
        self.model, self.params = None, {}

    def set_model(self, model):
        self.model = model

    def set_params(self, params):
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs)


class History(Callback):
    """``history[name]``: one value per epoch; ``epoch``: the epochs run."""

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = getattr(self, "history", {})

    def on_epoch_end(self, epoch, logs=None):
        self.__dict__.setdefault("epoch", []).append(epoch)
        for k, v in (logs or {}).items():
            self.__dict__.setdefault("history", {}).setdefault(k, []).append(v)


class LambdaCallback(Callback):
    """``LambdaCallback(on_epoch_end=lambda epoch, logs: ..., ...)``."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None,
                 on_batch_end=None, on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        given = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_batch_begin=on_batch_begin, on_batch_end=on_batch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end, **kwargs)
        for hook, fn in given.items():
            if fn is not None:
                setattr(self, hook, fn)


class EarlyStopping(Callback):
    """Stop when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs;
    ``restore_best_weights`` sets the best epoch's weights back."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping(mode={mode!r}): use 'auto', 'min' or 'max'")
        self.monitor, self.patience, self.baseline = monitor, patience, baseline
        self.restore_best_weights = restore_best_weights
        maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self._sign = 1.0 if maximize else -1.0
        self.min_delta = abs(min_delta) * self._sign
        self.stopped_epoch, self.wait, self.best_weights = 0, 0, None

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_weights = 0, 0, None
        self.best = self.baseline if self.baseline is not None else -np.inf * self._sign

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            return   # (Keras warns that the monitored quantity is missing)
        if self._sign * (current - self.min_delta - self.best) > 0:
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)


class TerminateOnNaN(Callback):
    """Stop training when a batch's loss is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class LearningRateScheduler(Callback):
    """``LearningRateScheduler(schedule)``: the optimizer's rate set to
    ``schedule(epoch)`` (or ``schedule(epoch, lr)``) at each epoch's start."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule

    def on_epoch_begin(self, epoch, logs=None):
        rate = self.model.optimizer.lr
        try:
            new = self.schedule(epoch, float(K.get_value(rate)))
        except TypeError:   # (the one-argument form, schedule(epoch))
            new = self.schedule(epoch)
        K.set_value(rate, float(new))

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:   # (Keras logs the rate: history["lr"])
            logs["lr"] = float(K.get_value(self.model.optimizer.lr))
