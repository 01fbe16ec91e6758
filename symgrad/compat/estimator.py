"""``tf.estimator.Estimator``: TF 1.x's train / evaluate / predict around a ``model_fn``.

Each call builds a fresh graph (``input_fn``, then ``model_fn`` in the call's mode),
runs it in a monitored session and keeps the state in ``model_dir`` as TF does:
training restores the latest checkpoint there (or initialises), steps until the input
ends, ``steps`` more steps are done or the global step reaches ``max_steps``, and
saves a checkpoint (TF's format, see ``tf.train.Saver``) every
``save_checkpoints_steps`` or ``_secs`` and at the end; evaluation and prediction
restore the latest checkpoint (or initialise, with a log line, when there is none).
``evaluate`` runs the metrics' update ops over the input (or ``steps`` batches) and
returns their values, with ``loss`` (the mean of the batches' losses) and
``global_step``; ``predict`` yields one dict (or array) per example.  Training logs
``loss = ..., step = ...`` every ``log_step_count_steps`` steps on ``tf.logging``.

Sits in ``compat``; imports ``compat.monitored``, ``runtime``, ``metrics``,
``variables``, ``initializers``, ``estimator_spec`` and ``estimator_calls``.

>>> import numpy as np, symgrad.compat.v1 as tf
>>> def model_fn(features, labels, mode):
...     w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
...     loss = tf.reduce_mean((features * w - labels) ** 2)
...     step = tf.train.GradientDescentOptimizer(0.1).minimize(
...         loss, global_step=tf.train.get_global_step())
...     return tf.estimator.EstimatorSpec(mode, predictions=features * w, loss=loss,
...                                       train_op=step)
>>> est = tf.estimator.Estimator(model_fn)
>>> x = np.array([1.0, 2.0], np.float32)
>>> _ = est.train(lambda: (tf.constant(x), tf.constant(2 * x)), steps=20)
>>> round(float(est.get_variable_value("w")), 3), int(est.get_variable_value("global_step"))
(2.0, 20)
"""
from __future__ import annotations

import copy
import os
import tempfile

import numpy as np

from .. import tracing as _t
from . import metrics as _metrics
from . import tf_logging as logging
from .estimator_calls import (SaverHook, StopAfterNRunsHook, arg_names, call_input_fn,
                              call_model_fn, checked_hooks, dict_to_str, loss_and_step,
                              verify_model_fn, warm_start_fn, warm_start_settings)
from .estimator_spec import ModeKeys, RunConfig
from .estimator_summaries import training_hooks, write_evaluation
from .initializers import set_random_seed
from .monitored import (ChiefSessionCreator, FinalOpsHook,
                        LoggingTensorHook, MonitoredSession, NanTensorHook, Scaffold,
                        StopAtStepHook)
from .runtime import (Saver, get_checkpoint_state, latest_checkpoint, list_variables,
                      load_variable)
from .variables import create_global_step


class Estimator:
    """``tf.estimator.Estimator(model_fn, model_dir=None, config=None, params=None)``
    (module docstring)."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        self._warm_start = warm_start_settings(warm_start_from)
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of RunConfig, but provided "
                             f"{config}.")
        verify_model_fn(model_fn, params)
        self._model_fn, self._params = model_fn, copy.deepcopy(params or {})
        self._config = config.replace(model_dir=_model_dir(model_dir, config))
        logging.info("Using config: %s", self._config)

    model_dir = property(lambda self: self._config.model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))

    @property
    def model_fn(self):
        """The model function as TF exposes it: ``(features, labels, mode, config)``,
        whatever arguments the user's ``model_fn`` takes."""
        def public_model_fn(features, labels, mode, config):
            return call_model_fn(self._model_fn, features, labels, mode, self.params,
                                 config)
        return public_model_fn

    def latest_checkpoint(self):
        """The path of the last checkpoint in ``model_dir``, or None."""
        return latest_checkpoint(self.model_dir)

    def get_variable_names(self):
        """The names of the variables saved in the latest checkpoint (sorted, as TF)."""
        return [name for name, _ in list_variables(self._checkpoint())]

    def get_variable_value(self, name):
        """The value of variable ``name`` in the latest checkpoint (numpy)."""
        return load_variable(self._checkpoint(), name)

    def _checkpoint(self):
        path = self.latest_checkpoint()
        if not path:
            raise ValueError(f"Could not find trained model in model_dir: "
                             f"{self.model_dir}.")
        return path

    def train(self, input_fn, hooks=None, steps=None, max_steps=None,
              saving_listeners=None):
        """Train until the input ends, ``steps`` more steps, or step ``max_steps``."""
        _check_steps(steps, max_steps)
        if max_steps is not None and _saved_step(self.model_dir) >= max_steps:
            logging.info("Skipping training since max_steps has already saved.")
            return self
        with _t.Graph().as_default():
            spec, step = self._build(input_fn, ModeKeys.TRAIN)
            loss = self._train_loop(spec, step, checked_hooks(hooks), steps, max_steps,
                                    list(saving_listeners or ()))
        logging.info("Loss for final step: %s.", loss)
        return self

    def _build(self, input_fn, mode):
        """The global step and the model's spec in ``mode``, in the default graph."""
        if self._config.tf_random_seed is not None:
            set_random_seed(self._config.tf_random_seed)
        step = create_global_step()
        features, labels = call_input_fn(input_fn, mode, self.params, self.config)
        if mode == ModeKeys.PREDICT:
            labels = None
        spec = call_model_fn(self._model_fn, features, labels, mode, self.params,
                             self.config)
        return spec, step

    def _train_loop(self, spec, step, hooks, steps, max_steps, listeners):
        scaffold = self._scaffold(spec)
        all_hooks = list(spec.training_hooks) + [NanTensorHook(spec.loss)] + hooks
        if self._config.log_step_count_steps:
            all_hooks.append(LoggingTensorHook(
                {"loss": spec.loss, "step": step}, formatter=loss_and_step,
                every_n_iter=self._config.log_step_count_steps))
        if steps is not None or max_steps is not None:
            all_hooks.append(StopAtStepHook(num_steps=steps, last_step=max_steps))
        all_hooks += list(spec.training_chief_hooks) + training_hooks(
            spec.loss, self._config, self.model_dir, scaffold)
        all_hooks += self._saver_hooks(scaffold, step, listeners)
        creator = ChiefSessionCreator(scaffold, checkpoint_dir=self.model_dir)
        loss = None
        with MonitoredSession(creator, all_hooks) as sess:
            while not sess.should_stop():
                _, loss = sess.run([spec.train_op, spec.loss])
        return loss

    def _scaffold(self, spec):
        """The spec's scaffold (or a new one) with this estimator's saver, which knows
        the checkpoints earlier calls kept, and the warm start when there are none."""
        scaffold = spec.scaffold or Scaffold()
        if scaffold.saver is None:
            scaffold.saver = self._saver()
            state = get_checkpoint_state(self.model_dir)
            if state is not None:   # (so keep_checkpoint_max counts earlier calls' too)
                scaffold.saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
        if self._warm_start is not None and not self.latest_checkpoint():
            scaffold.init_fn = warm_start_fn(self._warm_start)
        return scaffold

    def _saver_hooks(self, scaffold, step, listeners):
        config = self._config
        if config.save_checkpoints_steps or config.save_checkpoints_secs:
            return [SaverHook(self.model_dir, scaffold.saver, step,
                              config.save_checkpoints_steps, config.save_checkpoints_secs,
                              listeners)]
        if listeners:
            raise ValueError("There should be a CheckpointSaverHook to use "
                             "saving_listeners. Please set one of the RunConfig."
                             "save_checkpoints_steps or RunConfig.save_checkpoints_secs.")
        return []

    def _saver(self):
        """The saver of a training graph's variables (made after ``model_fn``)."""
        return Saver(max_to_keep=self._config.keep_checkpoint_max)

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """The metrics' values over the input (``steps`` batches at most), with ``loss``
        and ``global_step``, from the latest checkpoint."""
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        path = self._path_for(checkpoint_path, "evaluate")
        with _t.Graph().as_default():
            spec, step = self._build(input_fn, ModeKeys.EVAL)
            updates, values = _metric_ops(spec)
            final = FinalOpsHook(dict(values, global_step=step))
            all_hooks = list(spec.evaluation_hooks) + checked_hooks(hooks) + [
                StopAfterNRunsHook(steps), final]
            creator = ChiefSessionCreator(spec.scaffold,
                                          checkpoint_filename_with_path=path)
            with MonitoredSession(creator, all_hooks) as sess:
                while not sess.should_stop():
                    sess.run(updates)
        results = final.final_ops_values
        logging.info("Saving dict for global step %d: %s", results["global_step"],
                     dict_to_str(results))
        write_evaluation(self.model_dir, name, results)
        return results

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yield the predictions of each example (a dict, or an array when ``model_fn``
        predicts one tensor), or of each batch with ``yield_single_examples=False``."""
        path = self._path_for(checkpoint_path, "predict")
        with _t.Graph().as_default():
            spec, _ = self._build(input_fn, ModeKeys.PREDICT)
            predictions = _chosen(spec.predictions, predict_keys)
            creator = ChiefSessionCreator(spec.scaffold,
                                          checkpoint_filename_with_path=path)
            all_hooks = list(spec.prediction_hooks) + checked_hooks(hooks)
            with MonitoredSession(creator, all_hooks) as sess:
                while not sess.should_stop():
                    values = sess.run(predictions)
                    if not yield_single_examples:
                        yield values
                        continue
                    yield from _examples(values)

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn, *args,
                           **kwargs):
        """Not supported: symgrad writes no SavedModels."""
        raise ValueError("Estimator.export_saved_model: symgrad keeps no serialized graphs "
                         "(SavedModel); serve with Estimator.predict, or rebuild the model "
                         "and restore its variables from model_dir with tf.train.Saver")

    export_savedmodel = export_saved_model

    def _path_for(self, checkpoint_path, what):
        path = checkpoint_path or self.latest_checkpoint()
        if not path:
            logging.info(f"Could not find trained model in model_dir: {self.model_dir}, "
                         f"running initialization to {what}.")
        return path


def _model_dir(model_dir, config):
    """The directory of the checkpoints: given, the config's, or a new temporary one."""
    if model_dir is not None and config.model_dir is not None and \
            os.path.abspath(model_dir) != os.path.abspath(config.model_dir):
        raise ValueError(f"`model_dir` are set both in constructor and `RunConfig`, but "
                         f"with different values. In constructor: '{model_dir}', in "
                         f"`RunConfig`: '{config.model_dir}' ")
    chosen = model_dir if model_dir is not None else config.model_dir
    if chosen is None:
        chosen = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", chosen)
    return str(chosen)


def _check_steps(steps, max_steps):
    if steps is not None and max_steps is not None:
        raise ValueError("Can not provide both steps and max_steps.")
    if steps is not None and steps <= 0:
        raise ValueError(f"Must specify steps > 0, given: {steps}")
    if max_steps is not None and max_steps <= 0:
        raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")


def _saved_step(model_dir):
    """The global step of ``model_dir``'s latest checkpoint (0 without one)."""
    path = latest_checkpoint(model_dir)
    if not path:
        return 0
    try:
        return int(load_variable(path, "global_step"))
    except (ValueError, KeyError, LookupError):
        return 0


def _metric_ops(spec):
    """The update ops and values of the spec's metrics and of ``loss`` (the mean of the
    batches' losses, which TF adds itself)."""
    metrics = dict(spec.eval_metric_ops)
    if "loss" in metrics:
        raise ValueError('Metric with name "loss" is not allowed, because Estimator '
                         'already defines a default metric with the same name.')
    metrics["loss"] = _metrics.mean(spec.loss)
    return ([pair[1] for pair in metrics.values()],
            {key: pair[0] for key, pair in metrics.items()})


def _chosen(predictions, keys):
    """The predictions of ``keys`` (all of them for None)."""
    if keys is None:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict "
                         "predictions.")
    keys = [keys] if isinstance(keys, str) else list(keys)
    found = {k: v for k, v in predictions.items() if k in keys}
    if not found:
        raise ValueError(f"Expected to run at least one output from "
                         f"{list(predictions)}, provided {keys}.")
    return found


def _examples(values):
    """One example at a time from a batch of predictions (all of one batch length)."""
    leaves = values if isinstance(values, dict) else {None: values}
    lengths = {k: np.shape(v)[0] if np.ndim(v) else None for k, v in leaves.items()}
    batch = next(iter(lengths.values()))
    for key, n in lengths.items():
        if n is None or n != batch:
            raise ValueError(f"Batch length of predictions should be same. {key} has "
                             "different batch length than others.")
    for i in range(batch):
        row = {k: v[i] for k, v in leaves.items()}
        yield row[None] if None in row else row


def train_and_evaluate(estimator, train_spec, eval_spec):
    """``tf.estimator.train_and_evaluate`` in one process: train to
    ``train_spec.max_steps`` (or until its input ends), then evaluate on ``eval_spec``;
    returns ``(metrics, [])`` (no exporters), as TF's local run does.  TF also evaluates
    after checkpoints saved ``throttle_secs`` apart during training; symgrad evaluates
    once, at the end."""
    if not isinstance(estimator, Estimator):
        raise TypeError(f"estimator must be a tf.estimator.Estimator, got "
                        f"{type(estimator).__name__}")
    estimator.train(train_spec.input_fn, hooks=list(train_spec.hooks),
                    max_steps=train_spec.max_steps)
    metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps,
                                 hooks=list(eval_spec.hooks), name=eval_spec.name)
    return metrics, []


_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """``tf.estimator.add_metrics``: a copy of ``estimator`` whose evaluation also
    reports ``metric_fn``'s metrics (a dict of ``(value, update_op)`` pairs; its
    arguments, any of ``features``, ``labels``, ``predictions``, ``config``, are
    passed by name).  TF returns a plain Estimator; symgrad keeps the estimator's
    class, so a premade one still names its classes in ``predict``."""
    unknown = set(arg_names(metric_fn)) - _METRIC_FN_ARGS
    if unknown:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: "
                         f"{sorted(unknown)}")
    model_fn = estimator.model_fn

    def new_model_fn(features, labels, mode, config):
        spec = model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        given = {"features": features, "labels": labels, "predictions": spec.predictions,
                 "config": config}
        added = metric_fn(**{k: given[k] for k in arg_names(metric_fn)})
        return spec._replace(eval_metric_ops=dict(spec.eval_metric_ops, **added))
    extended = copy.copy(estimator)
    extended._model_fn = new_model_fn
    return extended
