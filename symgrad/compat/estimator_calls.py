"""How an Estimator calls the user's functions, as TF 1.x calls them.

- ``input_fn`` gets ``mode``, ``params`` and ``config`` if its signature names them;
  it returns a ``tf.data.Dataset`` (read through a one-shot iterator in the graph
  being built), a ``(features, labels)`` pair, or features alone.
- ``model_fn`` gets ``features`` and, as its signature names them, ``labels``,
  ``mode``, ``params`` and ``config``; it must return an ``EstimatorSpec``.
- ``warm_start_fn`` starts chosen variables from another model's checkpoint
  (``warm_start_from``) when ``model_dir`` has none yet.
- ``StopAfterNRunsHook`` ends an evaluation after ``n`` batches; ``SaverHook`` saves
  checkpoints when TF's estimator saves them (at the first step, every
  ``save_steps`` steps of the global step, or ``save_secs``, and at the end).

Sits in ``compat``; imports ``compat.datasets``, ``iterators``, ``monitored``,
``estimator_spec`` and ``tf_logging``.
"""
from __future__ import annotations

import functools
import inspect
import os
import re
import time

from . import tf_logging as logging
from .datasets import Dataset
from .estimator_spec import EstimatorSpec, WarmStartSettings
from .iterators import Iterator
from .monitored import SessionRunArgs, SessionRunHook
from .runtime import Saver, latest_checkpoint
from .variables import trainable_variables

MODEL_FN_ARGS = {"features", "labels", "mode", "params", "config"}


def arg_names(fn):
    """The names of ``fn``'s arguments (through ``functools.partial`` and callable
    objects), less those a partial already binds; TF's ``fn_args``."""
    bound = set()
    while isinstance(fn, functools.partial):
        bound |= set(fn.keywords or ())
        fn = fn.func
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) else getattr(
        fn, "__call__", fn)
    names = [n for n, p in inspect.signature(target).parameters.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    return [n for n in names if n not in bound]


def verify_model_fn(model_fn, params):
    """TF's checks of a ``model_fn``'s arguments when an Estimator is made."""
    if not callable(model_fn):
        raise TypeError(f"Estimator: model_fn must be a function, got {model_fn!r}")
    args = set(arg_names(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but "
                         f"params ({params}) is passed to Estimator.")
    unexpected = sorted(args - MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: "
                         f"{unexpected}")


def call_input_fn(input_fn, mode, params, config):
    """``(features, labels)`` from ``input_fn`` called in the graph being built."""
    if not callable(input_fn):
        raise TypeError(f"input_fn must be a function that returns the inputs, got "
                        f"{type(input_fn).__name__}; wrap the data: "
                        "input_fn=lambda: (features, labels)")
    names = arg_names(input_fn)
    given = {"mode": mode, "params": params, "config": config}
    result = input_fn(**{k: v for k, v in given.items() if k in names})
    if isinstance(result, Dataset):
        result = Iterator.one_shot(result).get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1]
    return result, None


def call_model_fn(model_fn, features, labels, mode, params, config):
    """The ``EstimatorSpec`` of ``model_fn`` in ``mode``."""
    names = arg_names(model_fn)
    kwargs = {}
    if "labels" in names:
        kwargs["labels"] = labels
    elif labels is not None:
        raise ValueError("model_fn does not take labels, but input_fn returns labels.")
    for key, value in (("mode", mode), ("params", params), ("config", config)):
        if key in names:
            kwargs[key] = value
    logging.info("Calling model_fn.")
    spec = model_fn(features=features, **kwargs)
    logging.info("Done calling model_fn.")
    if not isinstance(spec, EstimatorSpec):
        raise ValueError("model_fn should return an EstimatorSpec.")
    return spec


def checked_hooks(hooks):
    """``hooks`` as a list, each a ``tf.train.SessionRunHook`` (TF's check)."""
    hooks = list(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {hook}")
    return hooks


class StopAfterNRunsHook(SessionRunHook):
    """Requests a stop after ``n`` runs (an evaluation's ``steps``)."""

    def __init__(self, n):
        self._n, self._runs = n, 0

    def after_run(self, run_context, run_values):
        self._runs += 1
        if self._n is not None and self._runs >= self._n:
            run_context.request_stop()


class CheckpointSaverListener:
    """``tf.estimator.CheckpointSaverListener``: called around each checkpoint that
    training saves; ``after_save`` returning True asks training to stop."""

    def begin(self):
        pass

    def before_save(self, session, global_step_value):
        pass

    def after_save(self, session, global_step_value):
        pass

    def end(self, session, global_step_value):
        pass


class SaverHook(SessionRunHook):
    """Saves ``saver``'s checkpoint ``directory/model.ckpt-<global step>`` when the
    session starts, once the global step has moved ``save_steps`` on (or ``save_secs``
    passed) since the last save, and at the end (TF's ``CheckpointSaverHook`` timing),
    calling the ``listeners`` around each save."""

    def __init__(self, directory, saver, step, save_steps=None, save_secs=None,
                 listeners=()):
        self._prefix, self._saver, self._step = f"{directory}/model.ckpt", saver, step
        self._steps, self._secs, self._listeners = save_steps, save_secs, list(listeners)
        self._saved_at, self._time = None, None

    def begin(self):
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session, coord):
        self._save(session, int(session.run(self._step)))

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results)   # (the step variable, read after the run)
        due = (self._steps and step >= self._saved_at + self._steps) or (
            self._secs and time.time() - self._time >= self._secs)
        if due and self._save(run_context.session, step):
            run_context.request_stop()

    def end(self, session):
        step = int(session.run(self._step))
        if step != self._saved_at:
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _save(self, session, step):
        """Save at ``step``; whether a listener asked to stop."""
        for listener in self._listeners:
            listener.before_save(session, step)
        logging.info("Saving checkpoints for %d into %s.", step, self._prefix)
        self._saver.save(session, self._prefix, global_step=step)
        self._saved_at, self._time = step, time.time()
        return any([bool(listener.after_save(session, step)) for listener in self._listeners])


def loss_and_step(values):
    """TF's training log line: ``loss = 0.6931472, step = 1``."""
    return f"loss = {values['loss']!s}, step = {values['step']!s}"


def dict_to_str(values):
    """``"a = 1, b = 2"`` in key order, as TF logs an evaluation's results."""
    return ", ".join(f"{k} = {v!s}" for k, v in sorted(values.items())
                     if not isinstance(v, bytes))


def warm_start_settings(warm_start_from):
    """``warm_start_from`` as ``WarmStartSettings`` (a path warm-starts every trainable
    variable, as in TF), or None."""
    if warm_start_from is None or isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    if isinstance(warm_start_from, (str, bytes)) or hasattr(warm_start_from, "__fspath__"):
        return WarmStartSettings(os.fsdecode(warm_start_from))
    raise ValueError(f"warm_start_from must be a string or a WarmStartSettings, instead "
                     f"got {type(warm_start_from)}")


def warm_start_fn(settings):
    """A scaffold ``init_fn`` that sets the chosen trainable variables of the graph
    being built from the settings' checkpoint (run only when ``model_dir`` has none)."""
    path = settings.ckpt_to_initialize_from
    if os.path.isdir(path):
        path = latest_checkpoint(path) or path
    patterns = settings.vars_to_warm_start
    patterns = [] if patterns is None else [patterns] if isinstance(patterns, str) else \
        list(patterns)
    chosen = [v for v in trainable_variables()
              if any(v is p if not isinstance(p, str) else re.match(p, v.op_name)
                     for p in patterns)]
    renamed = settings.var_name_to_prev_var_name
    saver = Saver(var_list={renamed.get(v.op_name, v.op_name): v for v in chosen})
    logging.info("Warm-starting from: %s", path)

    def init_fn(scaffold, session):
        if chosen:
            saver.restore(session, path)
    return init_fn
