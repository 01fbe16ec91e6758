"""What a TF1 ``model_fn`` returns and what an Estimator is configured with:
``tf.estimator.ModeKeys``, ``EstimatorSpec``, ``RunConfig``, ``TrainSpec`` and
``EvalSpec``.

``EstimatorSpec`` checks what each mode needs, as TF does: training needs ``loss``
and ``train_op``, evaluation ``loss``, prediction ``predictions``.  ``RunConfig``
keeps TF's arguments; of them symgrad uses ``model_dir``, ``tf_random_seed``,
``save_checkpoints_steps``/``secs``, ``keep_checkpoint_max`` and
``log_step_count_steps`` (the rest place work on devices and clusters and change no
value).

Sits in ``compat``; imports only the standard library.

>>> spec = EstimatorSpec(ModeKeys.PREDICT, predictions={"y": 1})
>>> spec.mode, sorted(spec.predictions)
('infer', ['y'])
"""
from __future__ import annotations

import collections


class ModeKeys:
    """``tf.estimator.ModeKeys``: the three modes a ``model_fn`` is called in."""
    TRAIN, EVAL, PREDICT = "train", "eval", "infer"


_SPEC_FIELDS = ["mode", "predictions", "loss", "train_op", "eval_metric_ops",
                "export_outputs", "training_chief_hooks", "training_hooks", "scaffold",
                "evaluation_hooks", "prediction_hooks"]


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """``tf.estimator.EstimatorSpec``: the tensors of one mode of a model."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None,
                eval_metric_ops=None, export_outputs=None, training_chief_hooks=None,
                training_hooks=None, scaffold=None, evaluation_hooks=None,
                prediction_hooks=None):
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"EstimatorSpec: mode must be one of tf.estimator.ModeKeys "
                             f"(TRAIN, EVAL, PREDICT), got {mode!r}")
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError("Missing train_op.")
        if mode != ModeKeys.PREDICT and loss is None:
            raise ValueError("Missing loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions.")
        metrics = dict(eval_metric_ops or {})
        for key, pair in metrics.items():
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"EstimatorSpec: eval_metric_ops[{key!r}] must be a "
                                "(value, update_op) pair such as tf.metrics.accuracy "
                                f"returns, got {type(pair).__name__}")
        return super().__new__(cls, mode, predictions, loss, train_op, metrics,
                               export_outputs, tuple(training_chief_hooks or ()),
                               tuple(training_hooks or ()), scaffold,
                               tuple(evaluation_hooks or ()), tuple(prediction_hooks or ()))


_DEFAULT = object()


class RunConfig:
    """``tf.estimator.RunConfig``: where checkpoints go and how often (TF's defaults:
    every 600 s, the last 5 kept, a loss logged every 100 steps)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_DEFAULT, save_checkpoints_secs=_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None,
                 eval_distribute=None, experimental_distribute=None,
                 experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200, checkpoint_save_graph_def=True):
        steps_given, secs_given = save_checkpoints_steps is not _DEFAULT, \
            save_checkpoints_secs is not _DEFAULT
        steps = None if not steps_given else save_checkpoints_steps
        secs = None if not secs_given else save_checkpoints_secs
        if steps is not None and secs is not None:
            raise ValueError("RunConfig: at most one of save_checkpoints_steps and "
                             "save_checkpoints_secs may be set")
        if not steps_given and not secs_given:
            secs = 600
        self._settings = dict(
            model_dir=model_dir, tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps, save_checkpoints_steps=steps,
            save_checkpoints_secs=secs, session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps, train_distribute=train_distribute,
            device_fn=device_fn, protocol=protocol, eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs,
            checkpoint_save_graph_def=checkpoint_save_graph_def)

    def __getattr__(self, name):
        settings = self.__dict__.get("_settings", {})
        if name in settings:
            return settings[name]
        if name in _CLUSTER:
            return _CLUSTER[name]
        raise AttributeError(f"RunConfig has no attribute {name!r}")

    def replace(self, **kwargs):
        """A copy with ``kwargs`` changed (TF's ``RunConfig.replace``)."""
        unknown = set(kwargs) - set(self._settings)
        if unknown:
            raise ValueError(f"RunConfig.replace: unknown arguments {sorted(unknown)}")
        settings = dict(self._settings, **kwargs)
        for given, other in (("save_checkpoints_steps", "save_checkpoints_secs"),
                             ("save_checkpoints_secs", "save_checkpoints_steps")):
            if kwargs.get(given) is not None and other not in kwargs:
                settings[other] = None   # (one schedule replaces the other, as in TF)
        return RunConfig(**settings)

    def __repr__(self):
        return f"RunConfig({', '.join(f'{k}={v!r}' for k, v in self._settings.items())})"


# one process, the chief: what TF's RunConfig says about the cluster it runs in
_CLUSTER = dict(is_chief=True, master="", num_worker_replicas=1, num_ps_replicas=0,
                task_id=0, task_type="worker", cluster_spec=None, evaluation_master="",
                global_id_in_cluster=0, service=None)


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """``tf.estimator.TrainSpec`` for ``train_and_evaluate``."""

    def __new__(cls, input_fn, max_steps=None, hooks=None):
        if not callable(input_fn):
            raise TypeError(f"TrainSpec: input_fn must be callable, got {input_fn!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"TrainSpec: max_steps must be positive, given {max_steps}")
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs",
        "throttle_secs"])):
    """``tf.estimator.EvalSpec`` for ``train_and_evaluate``."""

    def __new__(cls, input_fn, steps=100, name=None, hooks=None, exporters=None,
                start_delay_secs=120, throttle_secs=600):
        if not callable(input_fn):
            raise TypeError(f"EvalSpec: input_fn must be callable, got {input_fn!r}")
        if steps is not None and steps <= 0:
            raise ValueError(f"EvalSpec: steps must be positive, given {steps}")
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), exporters,
                               start_delay_secs, throttle_secs)


class WarmStartSettings(collections.namedtuple("WarmStartSettings", [
        "ckpt_to_initialize_from", "vars_to_warm_start", "var_name_to_vocab_info",
        "var_name_to_prev_var_name"])):
    """``tf.estimator.WarmStartSettings``: which trainable variables (a regular
    expression, or a list of them) start from which checkpoint (a path or a model
    directory), under which names there (``var_name_to_prev_var_name``)."""

    def __new__(cls, ckpt_to_initialize_from, vars_to_warm_start=".*",
                var_name_to_vocab_info=None, var_name_to_prev_var_name=None):
        if not ckpt_to_initialize_from:
            raise ValueError("Need to specify ckpt_to_initialize_from.")
        if var_name_to_vocab_info:
            raise ValueError("WarmStartSettings: var_name_to_vocab_info (remapping "
                             "vocabularies) is not supported; warm-start with the same "
                             "vocabulary")
        return super().__new__(cls, str(ckpt_to_initialize_from), vars_to_warm_start,
                               None, dict(var_name_to_prev_var_name or {}))
