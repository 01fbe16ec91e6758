"""Feedback on long work: a task that runs longer than ~2 s says what it is doing.

Messages go to the ``"symgrad"`` logger at level WARNING, so with no logging
configured Python prints them on stderr; silence them with
``logging.getLogger("symgrad").setLevel(logging.ERROR)`` (or route them like any
other library's log records).  Nothing is printed for work that ends sooner.

>>> import time
>>> with task("an example", after=10.0) as t:
...     t.stage("one step")
>>> t.elapsed < 10.0
True
"""
from __future__ import annotations

import logging
import threading
import time

LOGGER = logging.getLogger("symgrad")
AFTER = 2.0  # seconds of silence before a task reports
REPEAT = 1.0  # seconds between two progress lines of one task
HEARTBEAT = 5.0  # seconds without a line (one LLVM pass can run for many) before a task
                 # says it is still at its stage

_local = threading.local()


class _Task:
    def __init__(self, what, after):
        self.what, self.after = what, after
        self.start = time.perf_counter()
        self.current, self.announced, self.last = "starting", False, 0.0
        self.closed = False
        self.lock = threading.Lock()
        self.timer = threading.Timer(after, self._announce)
        self.timer.daemon = True

    @property
    def elapsed(self):
        return time.perf_counter() - self.start

    def _announce(self):
        with self.lock:
            if self.closed:
                return
            if not self.announced:
                self.announced, self.last = True, time.perf_counter()
                LOGGER.warning("symgrad: %s is taking a while (%.1f s so far): %s",
                               self.what, self.elapsed, self.current)
        self._next_beat()

    def _next_beat(self):
        with self.lock:
            if not self.closed:
                self.timer = threading.Timer(HEARTBEAT, self._beat)
                self.timer.daemon = True
                self.timer.start()

    def _beat(self):
        """Say the task is still at its stage when no line came for HEARTBEAT seconds
        (the thread runs while the worker is inside LLVM, which releases the GIL)."""
        with self.lock:
            quiet = not self.closed and time.perf_counter() - self.last >= 0.9 * HEARTBEAT
            if quiet:
                self.last = time.perf_counter()
        if quiet:
            LOGGER.warning("symgrad: %s: still %s (%.1f s)", self.what, self.current,
                           self.elapsed)
        self._next_beat()

    def close(self):
        """Stop the task's timers (the block is over)."""
        with self.lock:
            self.closed = True
            self.timer.cancel()

    def stage(self, text):
        """Record the current stage; once the task has announced itself, report it
        (at most one line every REPEAT seconds)."""
        with self.lock:
            self.current = text
            due = self.announced and time.perf_counter() - self.last >= REPEAT
            if due:
                self.last = time.perf_counter()
        if due:
            LOGGER.warning("symgrad: %s: %s (%.1f s)", self.what, text, self.elapsed)


def task(what, after=None):
    """Context manager for a piece of long work; ``.stage(text)`` says how far it got."""
    return _Context(what, AFTER if after is None else after)


class _Context:
    def __init__(self, what, after):
        self.what, self.after = what, after

    def __enter__(self):
        self.task = _Task(self.what, self.after)
        self.outer = getattr(_local, "task", None)
        _local.task = self.task
        self.task.timer.start()
        return self.task

    def __exit__(self, *exc):
        self.task.close()
        _local.task = self.outer
        if self.task.announced:
            LOGGER.warning("symgrad: %s done in %.1f s", self.what, self.task.elapsed)
        return False


def stage(text):
    """Report ``text`` as the stage of the innermost running task (no task: nothing)."""
    current = getattr(_local, "task", None)
    if current is not None:
        current.stage(text)
