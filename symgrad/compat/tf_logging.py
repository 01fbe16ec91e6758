"""``tf.logging``: Python's logger named ``tensorflow``, set up as TF1 sets it up.

On first use, when the root logger has no handlers, the logger gets a handler writing
``INFO:tensorflow:message`` lines (Python's ``BASIC_FORMAT``) to stderr, or to stdout
at level INFO in an interactive session, as TF does; otherwise messages go to the
application's handlers.  ``set_verbosity`` / ``get_verbosity`` set and read its level;
``log_every_n`` and ``log_first_n`` count per call site.

Imports the standard library only.
"""
from __future__ import annotations

import collections
import logging as _logging
import sys

DEBUG, INFO, WARN, ERROR, FATAL = (_logging.DEBUG, _logging.INFO, _logging.WARNING,
                                   _logging.ERROR, _logging.CRITICAL)
_LOGGER = _logging.getLogger("tensorflow")
_SETUP = []
_COUNTS = collections.Counter()


def get_logger():
    """The ``tensorflow`` logger, given TF's handler the first time (module docstring)."""
    if not _SETUP:
        _SETUP.append(True)
        if not _logging.getLogger().handlers:
            interactive = hasattr(sys, "ps1") or bool(sys.flags.interactive)
            if interactive:
                _LOGGER.setLevel(INFO)
            handler = _logging.StreamHandler(sys.stdout if interactive else sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            _LOGGER.addHandler(handler)
    return _LOGGER


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    log(DEBUG, msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    log(INFO, msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    log(WARN, msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    log(ERROR, msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    log(FATAL, msg, *args, **kwargs)


warn = warning


def vlog(level, msg, *args, **kwargs):
    log(level, msg, *args, **kwargs)


def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


def _site():
    frame = sys._getframe(2)   # the caller of log_every_n / log_first_n
    return frame.f_code.co_filename, frame.f_lineno


def log_every_n(level, msg, n, *args):
    """Log at the 1st, (n+1)th, (2n+1)th ... call from this line."""
    site = _site()
    log_if(level, msg, _COUNTS[site] % int(n) == 0, *args)
    _COUNTS[site] += 1


def log_first_n(level, msg, n, *args):
    """Log the first ``n`` calls from this line."""
    site = _site()
    log_if(level, msg, _COUNTS[site] < int(n), *args)
    _COUNTS[site] += 1


def set_verbosity(v):
    get_logger().setLevel(v)


def get_verbosity():
    return get_logger().getEffectiveLevel()


def flush():
    for handler in get_logger().handlers:
        handler.flush()
