"""``tf.train.Supervisor`` and ``tf.train.basic_train_loop``: TF 1.0's training loop
helper, still in many programs::

    sv = tf.train.Supervisor(logdir=d)
    with sv.managed_session() as sess:
        while not sv.should_stop():
            sess.run(train_op)

``managed_session`` makes a session that restores the latest checkpoint of ``logdir``
or else runs ``init_op`` (the global variables' initializer by default, with
``init_feed_dict``) and ``init_fn(sess)``, then ``local_init_op``; on leaving the block
the chief saves a checkpoint of ``logdir`` (at the global step) unless
``save_model_secs`` is 0 (TF's checkpoint service off), and the coordinator stops.  ``OutOfRangeError`` (a dataset's end) leaving the block is a clean stop, as in
TF.  symgrad differs: TF's background services (a checkpoint every
``save_model_secs``, summaries every ``save_summaries_secs``) are threads; symgrad runs
none, so checkpoints are written when the block ends (and whenever the program calls
``sv.saver.save``) and summaries when it calls ``sv.summary_computed``.

Sits in ``compat``; imports ``session``, ``runtime`` (Saver, checkpoints),
``coordinator``, ``summary`` and ``variables``.
"""
from __future__ import annotations

import contextlib
import os

from . import errors
from .coordinator import Coordinator
from .runtime import Saver, latest_checkpoint
from .session import Session
from .summary import FileWriter, merge_all
from .variables import get_global_step, global_variables_initializer, \
    local_variables_initializer

__all__ = ["Supervisor", "basic_train_loop"]


class Supervisor:
    """A session maker with checkpoint recovery and a coordinator (module docstring)."""

    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=0, is_chief=True, init_op=0, init_feed_dict=None,
                 local_init_op=0, logdir=None, summary_op=0, saver=0, global_step=0,
                 save_summaries_secs=120, save_model_secs=600, recovery_wait_secs=30,
                 stop_grace_secs=120, checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=0, init_fn=None, local_init_run_options=None):
        default = self.USE_DEFAULT
        self.is_chief, self._logdir, self._basename = is_chief, logdir, checkpoint_basename
        self.init_op = global_variables_initializer() if init_op is default else init_op
        self.local_init_op = local_variables_initializer() if local_init_op is default \
            else local_init_op
        self.init_feed_dict, self.init_fn = init_feed_dict, init_fn
        self.saver = (Saver() if logdir else None) if saver is default else saver
        self.global_step = get_global_step() if global_step is default else global_step
        self.summary_op = merge_all() if summary_op is default else summary_op
        self.summary_writer = (FileWriter(logdir) if logdir else None) \
            if summary_writer is default else summary_writer
        self.coord, self._save_secs = Coordinator(), save_model_secs
        self.save_path = os.path.join(logdir, checkpoint_basename) if logdir else None

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """A session restored from ``logdir``'s latest checkpoint, or initialized."""
        sess = Session(config=config)
        path = latest_checkpoint(self._logdir) if self._logdir else None
        if path and self.saver is not None:
            if self.init_op is not None:   # variables the checkpoint lacks get their values
                sess.run(self.init_op, feed_dict=self.init_feed_dict)
            self.saver.restore(sess, path)
        else:
            if self.init_op is not None:
                sess.run(self.init_op, feed_dict=self.init_feed_dict)
            if self.init_fn is not None:
                self.init_fn(sess)
        if self.local_init_op is not None:
            sess.run(self.local_init_op)
        return sess

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """The session for a ``with`` block (module docstring)."""
        sess = self.prepare_or_wait_for_session(master, config)
        try:
            yield sess
        except (errors.OutOfRangeError, StopIteration) as e:
            self.coord.request_stop(e)
        finally:
            try:
                if self.is_chief and self.saver is not None and self.save_path and \
                        self._save_secs:
                    self._save(sess)
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                sess.close()

    def _save(self, sess):
        step = None if self.global_step is None else int(sess.run(self.global_step))
        self.saver.save(sess, self.save_path, global_step=step)

    def should_stop(self):
        return self.coord.should_stop()

    def request_stop(self, ex=None):
        self.coord.request_stop(ex)

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        self.coord.request_stop()
        if close_summary_writer and self.summary_writer is not None:
            self.summary_writer.flush()

    def summary_computed(self, sess, summary, global_step=None):
        """Write ``summary`` (what running a summary op gave) at ``global_step`` (the
        global step's value by default)."""
        if self.summary_writer is None:
            raise RuntimeError("Supervisor.summary_computed: this supervisor has no summary "
                               "writer; give it a logdir or summary_writer")
        if global_step is None and self.global_step is not None:
            global_step = int(sess.run(self.global_step))
        self.summary_writer.add_summary(summary, global_step)

    def start_queue_runners(self, sess, queue_runners=None):
        return []   # (symgrad has no queues)

    @property
    def session_manager(self):
        return self


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """``train_step_fn(sess, *args, **kwargs)`` until the supervisor should stop."""
    with supervisor.managed_session(master) as sess:
        while not supervisor.should_stop():
            train_step_fn(sess, *(args or ()), **(kwargs or {}))
