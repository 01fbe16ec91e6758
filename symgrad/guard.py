"""Bounded work for the command line: run one request under a time and a memory limit.

A closed form can blow up (``exp((x+y)**256)`` wants gigabytes), and no check made
before the work starts can see every such case.  So :func:`run_limited` runs the
request in a forked child process: the child lowers its address-space limit
(``RLIMIT_AS``) to what it uses now plus ``memory_mb``, and the parent kills it when
``seconds`` have passed.  The child's output is relayed through pipes, so the caller
sees it on ``sys.stdout``/``sys.stderr`` as if the work ran in-process.  Whatever
stops the child -- the timeout, ``MemoryError``, or a signal from a library that
aborts when memory runs out -- becomes one line ``symgrad: error: ...`` and exit
code 2.

Without ``fork`` (Windows) the request runs in-process with no limits.

Imports only the standard library.

>>> run_limited(lambda: print("hello") or 0, seconds=10, memory_mb=512)
hello
0
"""
from __future__ import annotations

import os
import select
import signal
import sys
import time
import warnings

MAX_SECONDS = 24 * 3600
MAX_MEMORY_MB = 1024 * 1024


def _address_space():
    """Bytes of address space this process uses now (``VmSize``), or None if unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _limit_memory(memory_mb):
    import resource
    if not memory_mb:
        return
    base = _address_space()
    if base is None:  # no /proc (macOS): the peak resident size is a lower bound
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    limit = base + memory_mb * 2 ** 20
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _child(work, memory_mb, out_w, err_w):
    """In the forked child: point stdout/stderr at the pipes, limit memory, work, exit."""
    code = 1
    try:
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        sys.stdout = os.fdopen(1, "w", encoding="utf-8", errors="backslashreplace",
                               closefd=False)
        sys.stderr = os.fdopen(2, "w", encoding="utf-8", errors="backslashreplace",
                               closefd=False)
        _limit_memory(memory_mb)
        try:
            code = work()
        except MemoryError:
            print(f"symgrad: error: the request needs more than its memory limit "
                  f"({memory_mb} MB, --memory): the expression is too large; simplify it "
                  "or raise --memory", file=sys.stderr)
            code = 2
    except BaseException as exc:  # noqa: BLE001 -- the child must always exit here
        print(f"symgrad: error: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code if isinstance(code, int) else 1)


def _relay(pid, fds, deadline):
    """Copy the child's output to sys.stdout/err until it closes them or time is up."""
    streams = {fds[0]: sys.stdout, fds[1]: sys.stderr}
    while streams:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            return False
        ready, _, _ = select.select(list(streams), [], [], left)
        for fd in ready:
            data = os.read(fd, 65536)
            if data:
                streams[fd].write(data.decode("utf-8", errors="replace"))
                streams[fd].flush()
            else:
                del streams[fd]
    return True


def run_limited(work, seconds, memory_mb):
    """``work()`` (returning an exit code) under ``seconds`` and ``memory_mb`` limits.

    Args:
        work: the request; prints its results and returns the exit code.
        seconds: wall-clock limit (0: none).
        memory_mb: extra memory the request may use, in megabytes (0: none).
    Returns:
        the exit code: ``work``'s, or 2 with a one-line error when a limit stopped it.
    """
    if not hasattr(os, "fork"):
        return work()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    with warnings.catch_warnings():  # Python 3.12+ warns about fork with threads alive:
        warnings.simplefilter("ignore", DeprecationWarning)  # the child runs no thread's work
        pid = os.fork()
    if pid == 0:
        os.close(out_r)
        os.close(err_r)
        _child(work, memory_mb, out_w, err_w)
    os.close(out_w)
    os.close(err_w)
    try:
        finished = _relay(pid, (out_r, err_r), time.monotonic() + seconds if seconds else None)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        status = os.waitpid(pid, 0)[1]
    finally:
        os.close(out_r)
        os.close(err_r)
    return _verdict(finished, status, seconds, memory_mb)


def _verdict(finished, status, seconds, memory_mb):
    if not finished:
        print(f"symgrad: error: gave up after {seconds} s (--timeout): the expression is too "
              "large for closed forms; simplify it or raise --timeout", file=sys.stderr)
        return 2
    if os.WIFSIGNALED(status):
        name = signal.Signals(os.WTERMSIG(status)).name
        print(f"symgrad: error: the request was stopped by {name}, most likely for using "
              f"more than its memory limit ({memory_mb} MB, --memory); simplify the "
              "expression or raise --memory", file=sys.stderr)
        return 2
    return os.WEXITSTATUS(status)
