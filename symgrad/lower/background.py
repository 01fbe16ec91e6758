"""Machine code built out of the caller's way: evaluators that answer at once.

``sg.compile`` returns an evaluator whose calls the cheap tier (``lower.plan``:
numpy over the graph) answers while one background thread runs the usual build
(lowering, Numba, the disk cache).  When the build is done the evaluator's state
*is replaced* by the built ``Evaluator``'s (its class and attributes), so calls
after the swap take exactly the compiled path, without a wrapper.

- ``f.ready``: whether the machine code is in; ``f.wait(timeout=None)`` blocks
  until it is and returns ``f`` (it raises the build's error if the build failed).
- Anything that needs the machine code (``f.jit``, ``f.gufunc``, ``f.module``,
  pickling, saving, ...) waits for it first; ``f.batched`` has a cheap tier too
  (``lower.plan_batched``, wired in ``evaluator.PendingEvaluator``).
- A failed build is logged once on the ``"symgrad"`` logger; calls stay on the
  cheap tier (correct, slower) and ``f.wait()`` / ``f.jit`` raise ``CompileError``.
- ``compile(..., wait=True)``, or ``SYMGRAD_WAIT=1`` in the environment, builds
  before returning, as before.

A build starts after the first call returns (or ``wait()``, or 50 ms plus 10 us
per step of the plan), so the first answer does not share the interpreter with it.  Numba holds the GIL for most
of a build (its typing and lowering passes are
Python; LLVM's passes run in ctypes calls that release it), so a caller that keeps
the interpreter busy slows the build down, never the other way round.

Imports ``symgrad.errors`` and ``symgrad.progress`` only.
"""
from __future__ import annotations

import _thread
import atexit
import os
import queue
import sys
import threading
import weakref

from ..errors import CompileError
from ..progress import LOGGER

_QUEUE: queue.SimpleQueue = queue.SimpleQueue()
_WORKER: list[int] = []   # the worker thread's id, once started
_LOCK = threading.Lock()
_PENDING: weakref.WeakSet = weakref.WeakSet()   # not built yet (re-queued after a fork)
GRACE = 0.05   # seconds a build waits for the first call (or wait()) before it starts,
STEP_GRACE = 1e-5   # plus this per step of the plan (a large graph's first call is longer)


def waits(wait):
    """Whether ``compile`` builds before returning: ``wait``, else ``$SYMGRAD_WAIT``."""
    if wait is None:
        return os.environ.get("SYMGRAD_WAIT", "").strip() not in ("", "0")
    return bool(wait)


class Pending:
    """Mixed in before ``Evaluator``: the state of an evaluator still being built.

    ``__init__`` takes the plan (``plan(checked args) -> tuple of outputs``), the
    attributes the argument checks need, and ``build() -> Evaluator``.
    """

    ready = False

    def __init__(self, plan, checks, build, batched=None):
        # checks: input_names, _inputs, _outputs, _int_inputs, _tree, _rebuild;
        # batched: () -> the cheap tier of ``batched`` (``lower.plan_batched``), or None
        self.__dict__.update(checks)
        self._tier_plan, self._tier_build = plan, build
        self._tier_grace = GRACE + STEP_GRACE * len(getattr(plan, "steps", ()))
        self._tier_batched = _once(batched) if batched is not None else None
        self._tier_done, self._tier_error = threading.Event(), None
        self._tier_go = threading.Event()   # set: the build may start now
        _submit(self)

    def __call__(self, *args):
        plan = self.__dict__.get("_tier_plan")
        if plan is None:   # swapped in between: the compiled path
            return type(self).__call__(self, *args)
        try:
            return self._rebuild(plan(self._coerce(args)))
        finally:
            self._tier_go.set()

    def wait(self, timeout=None):
        """Block until the machine code is in (at most ``timeout`` s); return self.

        Raises:
            TimeoutError: not built within ``timeout`` seconds.
            CompileError: the build failed (the cause is chained).
        """
        self._tier_go.set()
        if not self._tier_done.wait(timeout):
            raise TimeoutError(f"the machine code was not built within {timeout} s; "
                               "calls are answered by numpy meanwhile (f.ready says when)")
        error = self.__dict__.get("_tier_error")
        if error is not None:
            raise CompileError(f"building the machine code failed: {error}; calls are "
                               "answered by numpy (slower)") from error
        return self

    @property
    def error(self):
        """The exception the background build raised, or None."""
        return self._tier_error

    def __getattr__(self, name):
        # only attributes the built evaluator has (jit, module, gufunc state...) get here
        if name.startswith("__") or name.startswith("_tier"):
            raise AttributeError(name)
        self.wait()
        if isinstance(self, Pending):   # done without a swap: nothing more to wait for
            raise AttributeError(name)
        return getattr(self, name)

    def batched(self, *values, parallel=False, out=None):
        return self.wait().batched(*values, parallel=parallel, out=out)

    def __reduce__(self):
        return self.wait().__reduce__()

    def __repr__(self):
        state = "build failed" if self._tier_error else "building machine code"
        return f"<symgrad.Evaluator inputs=({', '.join(self.input_names)}) {state}>"


def _once(make):
    """``make`` called on first use only; the same result after."""
    made = []

    def get():
        if not made:
            made.append(make())
        return made[0]
    return get


def _submit(pending):
    _PENDING.add(pending)
    _QUEUE.put(weakref.ref(pending))
    with _LOCK:
        if not _WORKER:
            # _thread, not threading.Thread: Thread.start() waits until the new thread
            # runs, which on a busy machine is milliseconds of the caller's first answer;
            # like a daemon thread, it does not keep the interpreter alive (see _at_exit)
            _WORKER.append(_thread.start_new_thread(_work, ()))


def _work():
    """The background thread: one build at a time, in the order compiled."""
    while True:
        ref = _QUEUE.get()
        pending = ref()
        if pending is None or pending._tier_done.is_set():
            continue
        build, go, grace = pending._tier_build, pending._tier_go, pending._tier_grace
        del pending   # an evaluator dropped while its build runs is not kept alive
        go.wait(grace)   # the caller's first call goes first (it would share the GIL)
        if ref() is None or not _starting():
            continue
        try:
            built, error = build(), None
        except Exception as exc:  # noqa: BLE001  (reported: logged, and raised by wait)
            built, error = None, exc
        finally:
            _stopped()
        pending = ref()
        if pending is not None:
            _finish(pending, built, error)
        del pending, built


# At exit the interpreter waits for the build that is running (Numba and LLVM must not
# meet its teardown: the daemon thread would be frozen inside them); queued builds are
# dropped.  A script that ends at once waits at most as long as wait=True would have.
_STATE = threading.Condition()
_FLAGS = {"running": False, "exiting": False}


def _starting():
    with _STATE:
        if _FLAGS["exiting"]:
            return False
        _FLAGS["running"] = True
        return True


def _stopped():
    with _STATE:
        _FLAGS["running"] = False
        _STATE.notify_all()


@atexit.register
def _at_exit():
    try:
        with _STATE:
            _FLAGS["exiting"] = True
            _STATE.wait_for(lambda: not _FLAGS["running"])
    except KeyboardInterrupt:   # Ctrl-C while waiting: leave now, without the teardown
        sys.stdout.flush()      # the build's thread would meet (and no traceback)
        sys.stderr.write("symgrad: exit interrupted while a compile was running (its "
                         "machine code is not cached)\n")
        sys.stderr.flush()
        os._exit(130)


def _finish(pending, built, error):
    if error is None:
        state = dict(built.__dict__)
        pending.__dict__.update(state)
        pending.__class__ = type(built)    # from now on, exactly the built evaluator
        for name in ("_tier_plan", "_tier_build", "_tier_batched"):
            pending.__dict__.pop(name, None)
    else:
        pending._tier_error = error
        LOGGER.warning("symgrad: building the machine code of a compiled function failed "
                       "(%s: %s); its calls stay on the numpy tier; f.wait() raises the error",
                       type(error).__name__, error)
    _PENDING.discard(pending)
    pending._tier_done.set()


def _after_fork():
    """In a forked child the worker thread is gone: start afresh, re-queue the builds."""
    global _QUEUE, _LOCK, _STATE
    _QUEUE, _LOCK, _STATE = queue.SimpleQueue(), threading.Lock(), threading.Condition()
    _FLAGS["running"] = False
    _WORKER.clear()
    for pending in list(_PENDING):
        _submit(pending)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
