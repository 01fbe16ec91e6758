"""TF1's monitored sessions and session-run hooks: ``tf.train.MonitoredTrainingSession``.

The guide's training loop::

    with tf.train.MonitoredTrainingSession(checkpoint_dir=d, hooks=[...]) as sess:
        while not sess.should_stop():
            sess.run(train_op)

A monitored session is a ``Session`` that initializes the variables when it is made
(or restores the latest checkpoint of ``checkpoint_dir``), calls its hooks around
every ``run`` (``before_run`` may add fetches and feeds, ``after_run`` sees their
values and may ``request_stop``), stops when asked to or when a dataset ends (an
``OutOfRangeError`` leaving the ``with`` block is swallowed, as TF swallows it), and
calls the hooks' ``end`` on a clean exit.  With a ``checkpoint_dir`` it saves a
checkpoint (TF's format, see ``Saver``) every ``save_checkpoint_steps``
and at the end.  The graph is not finalized: ops may still be added.

Sits in ``compat``; imports ``compat.session``, ``compat.runtime`` and
``compat.variables``.
"""
from __future__ import annotations

import collections
import time

import numpy as np

from . import errors
from .runtime import Saver, latest_checkpoint, logging
from .session import Session
from .variables import get_global_step, global_variables_initializer, \
    local_variables_initializer


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook's ``before_run`` adds to a run: fetches, and feeds."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


SessionRunValues = collections.namedtuple("SessionRunValues",
                                          ["results", "options", "run_metadata"])


class SessionRunContext:
    """The run a hook is called around: ``original_args``, ``session``, ``request_stop()``."""

    def __init__(self, original_args, session):
        self.original_args, self.session = original_args, session
        self.stop_requested = False

    def request_stop(self):
        self.stop_requested = True


class SessionRunHook:
    """``tf.train.SessionRunHook``: override what you need."""

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class StopAtStepHook(SessionRunHook):
    """Stops after ``num_steps`` more steps, or once the global step reaches ``last_step``."""

    def __init__(self, num_steps=None, last_step=None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        self._num_steps, self._last_step = num_steps, last_step

    def begin(self):
        self._step = get_global_step()
        if self._step is None:
            raise RuntimeError("Global step should be created to use StopAtStepHook: "
                               "tf.train.get_or_create_global_step() and pass it to "
                               "minimize(..., global_step=...)")

    def after_create_session(self, session, coord):
        if self._num_steps is not None:
            self._last_step = int(session.run(self._step)) + self._num_steps

    def before_run(self, run_context):
        return SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 >= self._last_step:
            if run_context.session.run(self._step) >= self._last_step:
                run_context.request_stop()


class LoggingTensorHook(SessionRunHook):
    """Logs ``tensors`` (a dict tag -> tensor, or a list) on ``tf.logging.info`` every
    ``every_n_iter`` runs (or ``every_n_secs``), and at the end with ``at_end``."""

    def __init__(self, tensors, every_n_iter=None, every_n_secs=None, at_end=False,
                 formatter=None):
        if every_n_iter is None and every_n_secs is None and not at_end:
            raise ValueError("either at_end and/or exactly one of every_n_iter and "
                             "every_n_secs must be provided")
        if not isinstance(tensors, dict):
            tensors = {getattr(t, "name", str(t)): t for t in tensors}
        # a name without ":0" is its operation's one output here, as TF's hooks read it
        # ("softmax_tensor"; sess.run of the bare name would give the op's None)
        tensors = {tag: f"{t}:0" if isinstance(t, str) and ":" not in t else t
                   for tag, t in tensors.items()}
        self._tensors, self._every, self._secs = tensors, every_n_iter, every_n_secs
        self._at_end, self._formatter = at_end, formatter
        self._iter, self._last = 0, None

    def _due(self):
        if self._every is not None:
            return self._iter % self._every == 0
        return self._secs is not None and (self._last is None or
                                           time.time() - self._last >= self._secs)

    def before_run(self, run_context):
        self._logging = self._due()
        return SessionRunArgs(self._tensors) if self._logging else None

    def after_run(self, run_context, run_values):
        if self._logging:
            self._log(run_values.results)
            self._last = time.time()
        self._iter += 1

    def end(self, session):
        if self._at_end:
            self._log(session.run(self._tensors))

    def _log(self, values):
        if self._formatter is not None:
            logging.info(self._formatter(values))
        else:
            logging.info(", ".join(f"{tag} = {values[tag]}" for tag in self._tensors))


class NanLossDuringTrainingError(RuntimeError):
    def __str__(self):
        return "NaN loss during training."


class NanTensorHook(SessionRunHook):
    """Raises ``NanLossDuringTrainingError`` (or requests a stop) when ``loss_tensor``
    is NaN after a run."""

    def __init__(self, loss_tensor, fail_on_nan_loss=True):
        self._loss, self._fail = loss_tensor, fail_on_nan_loss

    def before_run(self, run_context):
        return SessionRunArgs(self._loss)

    def after_run(self, run_context, run_values):
        if np.isnan(run_values.results):
            if self._fail:
                raise NanLossDuringTrainingError
            logging.error("Model diverged with loss = NaN.")
            run_context.request_stop()


class CheckpointSaverHook(SessionRunHook):
    """Saves the variables in ``checkpoint_dir`` every ``save_steps`` runs (or
    ``save_secs``), after the first run, and at the end."""

    def __init__(self, checkpoint_dir, save_secs=None, save_steps=None, saver=None,
                 checkpoint_basename="model.ckpt", scaffold=None, listeners=None):
        self._dir, self._secs, self._steps = checkpoint_dir, save_secs, save_steps
        self._saver, self._base = saver, checkpoint_basename
        self._runs, self._last = 0, None

    def begin(self):
        self._saver = self._saver or Saver()
        self._step = get_global_step()

    def after_run(self, run_context, run_values):
        self._runs += 1
        due = (self._steps is not None and (self._runs - 1) % self._steps == 0) or (
            self._secs is not None and (self._last is None or
                                        time.time() - self._last >= self._secs))
        if due:
            self._save(run_context.session)

    def end(self, session):
        self._save(session)

    def _save(self, session):
        step = None if self._step is None else int(session.run(self._step))
        self._saver.save(session, f"{self._dir}/{self._base}", global_step=step)
        self._last = time.time()


class FinalOpsHook(SessionRunHook):
    """Runs ``final_ops`` at the end; their values are ``final_ops_values``."""

    def __init__(self, final_ops, final_ops_feed_dict=None):
        self._ops, self._feed, self.final_ops_values = final_ops, final_ops_feed_dict, None

    def end(self, session):
        if self._ops is not None:
            self.final_ops_values = session.run(self._ops, feed_dict=self._feed)


class FeedFnHook(SessionRunHook):
    """Adds ``feed_fn()``'s feeds to every run."""

    def __init__(self, feed_fn):
        self._feed_fn = feed_fn

    def before_run(self, run_context):
        return SessionRunArgs(fetches=None, feed_dict=self._feed_fn())


class StepCounterHook(SessionRunHook):
    """Counts steps per second (TF writes them as a summary; here it keeps them as
    ``steps_per_sec``)."""

    def __init__(self, every_n_steps=100, every_n_secs=None, output_dir=None,
                 summary_writer=None):
        self._every, self.steps_per_sec, self._count, self._start = every_n_steps, None, 0, None

    def after_run(self, run_context, run_values):
        now, self._count = time.time(), self._count + 1
        if self._start is None:
            self._start = now
        elif self._every and self._count % self._every == 0:
            self.steps_per_sec = self._every / max(now - self._start, 1e-9)
            self._start = now


class Scaffold:
    """``tf.train.Scaffold``: the init op (global and local variables' initializers by
    default), its feeds, an ``init_fn(scaffold, session)`` and the saver."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        self.init_op, self.init_feed_dict, self.init_fn = init_op, init_feed_dict, init_fn
        self.local_init_op, self.saver = local_init_op, saver

    def finalize(self):
        return self


class ChiefSessionCreator:
    """Makes the session of a monitored session: initialized, or restored from the
    latest checkpoint of ``checkpoint_dir`` (or ``checkpoint_filename_with_path``)."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._scaffold = scaffold or Scaffold()
        self._dir, self._path = checkpoint_dir, checkpoint_filename_with_path

    def create_session(self):
        scaffold, sess = self._scaffold, Session()
        sess.run(scaffold.init_op or global_variables_initializer(),
                 feed_dict=scaffold.init_feed_dict)
        sess.run(scaffold.local_init_op or local_variables_initializer())
        path = self._path or (latest_checkpoint(self._dir) if self._dir else None)
        if path:
            (scaffold.saver or Saver()).restore(sess, path)
        elif scaffold.init_fn is not None:
            scaffold.init_fn(scaffold, sess)
        return sess


class MonitoredSession:
    """``tf.train.MonitoredSession``: a session with hooks that knows when to stop."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        self._hooks = list(hooks or [])
        for hook in self._hooks:
            hook.begin()
        self._sess = (session_creator or ChiefSessionCreator()).create_session()
        self.graph = self._sess.graph
        for hook in self._hooks:
            hook.after_create_session(self._sess, None)
        self._stop, self._closed = False, False

    def __enter__(self):
        self._sess.__enter__()
        return self

    def __exit__(self, kind, value, tb):
        swallowed = kind is not None and issubclass(kind, (errors.OutOfRangeError,
                                                           StopIteration))
        try:
            if kind is None or swallowed:
                for hook in self._hooks:
                    hook.end(self._sess)
        finally:
            self._sess.__exit__(None, None, None)
            self._closed = True
        return swallowed

    def should_stop(self):
        return self._stop or self._closed

    def close(self):
        self.__exit__(None, None, None)

    def raw_session(self):
        return self._sess

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """``Session.run`` with the hooks' fetches and feeds added; their values go to
        their ``after_run``."""
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict, options), self._sess)
        extra, feeds = {}, dict(feed_dict or {})
        for hook in self._hooks:
            args = hook.before_run(context)
            if args is not None:
                if args.fetches is not None:
                    extra[hook] = args.fetches
                for key, value in (args.feed_dict or {}).items():
                    if key in feeds:
                        raise RuntimeError(f"Same tensor is fed by a SessionRunHook and "
                                           f"user. Conflict(s): {key}")
                    feeds[key] = value
        try:
            results = self._sess.run([fetches, list(extra.values())], feed_dict=feeds)
        except (errors.OutOfRangeError, StopIteration):
            self._stop = True
            raise
        for hook in self._hooks:
            hook.after_run(context, SessionRunValues(
                results=results[1][list(extra).index(hook)] if hook in extra else None,
                options=options, run_metadata=run_metadata))
        self._stop = self._stop or context.stop_requested
        return results[0]


class SingularMonitoredSession(MonitoredSession):
    """``tf.train.SingularMonitoredSession``: one process, chief, with a scaffold."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None,
                 checkpoint_dir=None, stop_grace_period_secs=120,
                 checkpoint_filename_with_path=None):
        super().__init__(ChiefSessionCreator(scaffold, master, config, checkpoint_dir,
                                             checkpoint_filename_with_path), hooks)


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None,  # noqa: N802
                             scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=None, save_summaries_steps=None,
                             save_summaries_secs=None, config=None, stop_grace_period_secs=120,
                             log_step_count_steps=100, max_wait_secs=7200,
                             save_checkpoint_steps=None, summary_dir=None):
    """``tf.train.MonitoredTrainingSession``: a monitored session that initializes or
    restores from ``checkpoint_dir`` and saves checkpoints there (every
    ``save_checkpoint_steps`` runs, or ``save_checkpoint_secs``, default 600 s, and at
    the end)."""
    all_hooks = list(hooks or []) + list(chief_only_hooks or [])
    if checkpoint_dir:
        secs = save_checkpoint_secs if save_checkpoint_secs or save_checkpoint_steps else 600
        all_hooks.append(CheckpointSaverHook(checkpoint_dir, save_secs=secs if
                                             not save_checkpoint_steps else None,
                                             save_steps=save_checkpoint_steps,
                                             saver=scaffold.saver if scaffold else None))
    creator = ChiefSessionCreator(scaffold, master, config, checkpoint_dir)
    return MonitoredSession(creator, all_hooks)
