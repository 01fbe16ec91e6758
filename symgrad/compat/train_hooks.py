"""More of ``tf.train``'s hooks and helpers: ``SecondOrStepTimer``, ``SummarySaverHook``,
``GlobalStepWaiterHook`` and ``assert_global_step``.

- ``SecondOrStepTimer(every_secs=None, every_steps=None)`` (exactly one): triggers for
  the first step it is asked about, then once ``every_steps`` steps (or ``every_secs``
  seconds) have passed since it last triggered, never twice for one step;
  ``update_last_triggered_step(step)`` returns the seconds and steps since the last
  trigger (None, None the first time).  Custom hooks build on it.
- ``SummarySaverHook(save_steps=None, save_secs=None, output_dir=None,
  summary_writer=None, scaffold=None, summary_op=None)``: adds the summary op (exactly
  one of ``summary_op`` and ``scaffold``, whose ``summary_op`` or else
  ``tf.summary.merge_all()`` is used) to the runs the timer picks and writes its
  value at the global step to an event file in ``output_dir``.
- ``GlobalStepWaiterHook(wait_until_step)``: lets workers wait for the chief; symgrad
  runs one process, so there is nothing to wait for and it returns at once.
- ``assert_global_step(t)``: t must be a scalar integer tensor or variable.

Sits in ``compat``; imports ``monitored``, ``summary`` and ``variables``.

>>> import symgrad.compat.v1 as tf
>>> timer = tf.train.SecondOrStepTimer(every_steps=10)
>>> [timer.should_trigger_for_step(s) for s in (0, 5)]
[True, True]
"""
from __future__ import annotations

import time

import numpy as np

from ..graph import Node
from .monitored import SessionRunArgs, SessionRunHook
from .summary import FileWriter, merge_all
from .variables import get_global_step

__all__ = ["SecondOrStepTimer", "SummarySaverHook", "GlobalStepWaiterHook",
           "assert_global_step"]


class SecondOrStepTimer:
    """Triggers every ``every_secs`` seconds or every ``every_steps`` steps."""

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("SecondOrStepTimer: give exactly one of every_secs and "
                             "every_steps")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self):
        self._last_step, self._last_time = None, None

    def should_trigger_for_step(self, step):
        """Whether ``step`` is due (the first step asked about always is)."""
        if self._last_step is None:
            return True
        if step == self._last_step:
            return False
        if self._every_secs is not None:
            return time.time() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step):
        """Record a trigger at ``step``: (seconds, steps) since the last, or (None, None)."""
        now = time.time()
        since = (None, None) if self._last_time is None else \
            (now - self._last_time, step - self._last_step)
        self._last_step, self._last_time = step, now
        return since

    def last_triggered_step(self):
        return self._last_step


class SummarySaverHook(SessionRunHook):
    """Writes the summaries every ``save_steps`` steps (or ``save_secs``) to
    ``output_dir`` (or ``summary_writer``)."""

    def __init__(self, save_steps=None, save_secs=None, output_dir=None, summary_writer=None,
                 scaffold=None, summary_op=None):
        if (summary_op is None) == (scaffold is None):
            raise ValueError("SummarySaverHook: exactly one of scaffold or summary_op must be "
                             "provided (summary_op=tf.summary.merge_all(), for instance)")
        if output_dir is None and summary_writer is None:
            raise ValueError("SummarySaverHook: give output_dir or summary_writer")
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._dir, self._writer, self._op = output_dir, summary_writer, summary_op
        self._scaffold, self._due = scaffold, False

    def begin(self):
        if self._op is None:
            self._op = getattr(self._scaffold, "summary_op", None) or merge_all()
        if self._writer is None:
            self._writer = FileWriter(self._dir)
        self._step = get_global_step()
        if self._step is None:
            raise RuntimeError("SummarySaverHook needs a global step: "
                               "tf.train.get_or_create_global_step()")
        self._next = None

    def before_run(self, run_context):
        if self._next is None:
            self._next = int(run_context.session.run(self._step))
        self._due = self._op is not None and self._timer.should_trigger_for_step(self._next)
        return SessionRunArgs({"step": self._step, "summary": self._op} if self._due
                              else {"step": self._step})

    def after_run(self, run_context, run_values):
        results = run_values.results
        step = int(results["step"])
        if self._due:
            self._timer.update_last_triggered_step(step)
            self._writer.add_summary(results["summary"], step)
        self._next = step + 1

    def end(self, session=None):
        self._writer.flush()


class GlobalStepWaiterHook(SessionRunHook):
    """Waits until the global step reaches ``wait_until_step``: with one process there
    are no other workers to advance it, so it does not wait."""

    def __init__(self, wait_until_step):
        self._wait_until_step = int(wait_until_step)


def assert_global_step(global_step_tensor):
    """Check that ``global_step_tensor`` is a scalar integer tensor (or variable).

    Raises:
        TypeError: it is not a tensor, not an integer, or not a scalar.
    """
    t = getattr(global_step_tensor, "as_graph_tensor", lambda: global_step_tensor)()
    if not isinstance(t, Node) and not hasattr(t, "dtype"):
        raise TypeError(f"Existing \"global_step\" must be a Variable or Tensor: "
                        f"{global_step_tensor!r}")
    if np.dtype(t.dtype).kind not in "iu":
        raise TypeError(f"Existing \"global_step\" does not have integer type: {t.dtype}")
    if tuple(t.shape) != ():
        raise TypeError(f"Existing \"global_step\" is not scalar: {tuple(t.shape)}")
