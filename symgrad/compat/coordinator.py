"""``tf.train.Coordinator`` and ``tf.train.start_queue_runners``, which TF1 training
loops keep around their steps even when their input comes from ``tf.data``:

    coord = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coord)
    try:
        while not coord.should_stop():
            sess.run(train_op)
    except tf.errors.OutOfRangeError:
        ...
    finally:
        coord.request_stop()
    coord.join(threads)

The coordinator is TF's: a stop flag threads share, the first exception passed to
``request_stop`` kept and raised again by ``join``.  A symgrad graph has no queue
runners (TF's queue producers are refused with what to use instead: ``runtime``), so
``start_queue_runners`` starts none and returns an empty list.

Sits in ``compat``; imports ``compat.errors``.

>>> import symgrad.compat.v1 as tf
>>> coord = tf.train.Coordinator()
>>> coord.should_stop(), coord.request_stop(), coord.should_stop()
(False, None, True)
"""
from __future__ import annotations

import contextlib
import sys
import threading

from .errors import OutOfRangeError

__all__ = ["Coordinator", "start_queue_runners"]


class Coordinator:
    """``tf.train.Coordinator(clean_stop_exception_types=None)``: a shared stop flag."""

    def __init__(self, clean_stop_exception_types=None):
        self._clean = tuple(clean_stop_exception_types if clean_stop_exception_types
                            is not None else (OutOfRangeError,))   # (TF's default)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._exc_info = None
        self._threads = []

    def should_stop(self):
        return self._stop.is_set()

    def request_stop(self, ex=None):
        """Ask every thread to stop; an exception (or ``sys.exc_info()`` triple) that is
        not a clean stop is kept for ``join`` to raise."""
        with self._lock:
            if ex is not None and self._exc_info is None:
                info = ex if isinstance(ex, tuple) else (type(ex), ex, ex.__traceback__)
                if not issubclass(info[0], self._clean):
                    self._exc_info = info
            self._stop.set()

    def clear_stop(self):
        with self._lock:
            self._exc_info = None
            self._stop.clear()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """``with coord.stop_on_exception():`` an exception inside requests the stop."""
        try:
            yield
        except BaseException:   # noqa: B902  (TF's: any exception stops the threads)
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        return self._stop.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._threads.append(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Wait for ``threads`` (and the registered ones), then raise the exception a
        ``request_stop`` reported, if any."""
        for thread in list(threads or []) + self._threads:
            thread.join(stop_grace_period_secs)
        self._threads = []
        self.raise_requested_exception()

    def raise_requested_exception(self):
        with self._lock:
            info, self._exc_info = self._exc_info, None
        if info is not None:
            raise info[1].with_traceback(info[2])

    @property
    def joined(self):
        return not self._threads


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection="queue_runners"):
    """``tf.train.start_queue_runners``: the threads started, none in symgrad (a graph
    here has no queue runners; ``tf.data`` iterators need no threads)."""
    return []
