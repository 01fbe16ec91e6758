"""Where the compile cache lives, whether it can be trusted, and keeping it small.

Trust model.  A cached module is Python that symgrad imports, and Numba's index
files beside it (``__pycache__/*.nbi``, ``*.nbc``) are pickles Numba loads: whoever
can write the cache directory can run code in every process that uses it.  So,
like SSH, pip and Python's own caches, symgrad uses a directory only if it is owned
by the current user and not writable by group or others (the same for its
``index`` and ``__pycache__`` subdirectories); it creates them with mode 0700.  A
directory that fails the test is refused with a :class:`CacheWarning` and the
process compiles into a fresh private temporary directory instead, removed at
exit.  Inside a trusted directory ``lower.cache`` adds two more checks: a module
is imported only if its text is exactly what this process lowered, and an index
entry (graph -> module) counts only if it carries an HMAC made with a per-user
secret (``secret``, mode 0600) that no one else can read.  On Windows there are no
POSIX owners and modes: there the directory is assumed private.

The directory is ``$SYMGRAD_CACHE_DIR`` if set, else the user cache directory
(``$XDG_CACHE_HOME/symgrad``, ``~/.cache/symgrad``, ``~/Library/Caches/symgrad``
on macOS, ``%LOCALAPPDATA%\\symgrad\\Cache`` on Windows); if it cannot be created,
``$TMPDIR/symgrad-cache-<uid>`` (with the same checks).  A trusted directory that
is read-only (a warm cache shipped read-only) is read; new entries then go to the
private directory.  The cache holds at most ``$SYMGRAD_CACHE_MAX_MB`` megabytes
(default 256): beyond that the least recently used modules are deleted.

Imports only the standard library.

>>> problem(private_dir()) is None
True
"""
from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile
import warnings

SUBDIRS = ("index", "__pycache__")
DEFAULT_MAX_MB = 256


class CacheWarning(UserWarning):
    """The configured cache directory is not used (see the module's trust model)."""


def configured_dir():
    """The cache directory the environment asks for (not created, not checked)."""
    path = os.environ.get("SYMGRAD_CACHE_DIR")
    if path:
        return os.path.abspath(os.path.expanduser(path))
    if sys.platform == "win32":
        root = os.environ.get("LOCALAPPDATA", os.path.expanduser("~"))
        return os.path.join(root, "symgrad", "Cache")
    if sys.platform == "darwin":
        return os.path.expanduser("~/Library/Caches/symgrad")
    root = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(root, "symgrad")


def _uid():
    return os.getuid() if hasattr(os, "getuid") else None


def _unsafe(path, st):
    """Why a directory with stat ``st`` is unsafe, or None."""
    if not stat.S_ISDIR(st.st_mode):
        return f"{path} is not a directory"
    uid = _uid()
    if uid is not None and st.st_uid != uid:
        return f"{path} is owned by uid {st.st_uid}, not by you (uid {uid})"
    if uid is not None and st.st_mode & 0o022:
        who = " and ".join(w for w, bit in (("group", 0o020), ("others", 0o002))
                           if st.st_mode & bit)
        return f"{path} is writable by {who} (mode {stat.S_IMODE(st.st_mode):03o})"
    return None


def problem(path):
    """Why ``path`` cannot hold a trusted cache, or None if only this user can write it."""
    try:
        link = os.lstat(path)
        if stat.S_ISLNK(link.st_mode) and _uid() not in (None, 0, link.st_uid):
            return f"{path} is a symbolic link owned by uid {link.st_uid}"
        reason = _unsafe(path, os.stat(path))
        for sub in SUBDIRS:
            full = os.path.join(path, sub)
            if reason is None and os.path.lexists(full):
                reason = _unsafe(full, os.lstat(full))
    except FileNotFoundError:
        return GONE
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}"
    return reason


# what ``problem`` says of a directory removed while it was being checked (a concurrent
# ``rm -rf``): not a threat, and no permission of the user's would fix it
GONE = "it was removed while being checked"


def make_private(path):
    """Create ``path`` (and its subdirectories) with mode 0700 where missing."""
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    for d in [path] + [os.path.join(path, s) for s in SUBDIRS]:
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass


def writable(path):
    """True if a file can really be created in ``path`` (os.access can be wrong)."""
    try:
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


_PRIVATE = []
_WARNED = set()


def private_dir():
    """This process's private directory (0700, removed at exit), made on first use."""
    if _PRIVATE and os.path.isdir(_PRIVATE[-1]):
        return _PRIVATE[-1]
    path = tempfile.mkdtemp(prefix="symgrad-")
    make_private(path)
    if not _PRIVATE:
        atexit.register(remove_private_dirs)
    _PRIVATE.append(path)
    return path


def remove_private_dirs():
    """Delete the private directories this process made (also runs at exit)."""
    while _PRIVATE:
        shutil.rmtree(_PRIVATE.pop(), ignore_errors=True)


def _warn(path, reason, action):
    if (path, reason) not in _WARNED:
        _WARNED.add((path, reason))
        warnings.warn(f"symgrad: not using the compile cache {path}: {reason}; {action}",
                      CacheWarning, stacklevel=4)


class Location:
    """Where the cache is read (``read``) and written (``write``); ``note`` says why."""

    def __init__(self, read, write, note="private"):
        self.read, self.write, self.note = read, write, note

    def __repr__(self):
        return f"Location(read={self.read!r}, write={self.write!r}, note={self.note!r})"


def _check(path):
    """``(usable, reason)``: ``path`` is made if missing, then checked."""
    if os.path.lexists(path):
        reason = problem(path)  # before making anything inside it
        if reason is not None and reason != GONE:
            return False, reason
    try:
        make_private(path)
    except OSError:
        return False, None  # cannot be created: not a threat, just unusable
    reason = problem(path)
    if reason == GONE or (reason is not None and not os.path.lexists(path)):
        return False, None  # deleted meanwhile (a concurrent rm -rf): unusable for now
    return reason is None, reason


def locate(directory=None):
    """The :class:`Location` to use: ``directory`` or the configured one, checked.

    A configured directory that cannot be created gives way to the per-user
    ``$TMPDIR/symgrad-cache-<uid>``; an unsafe one is refused with a warning (once
    per process) for :func:`private_dir`; a trusted read-only one is read, and
    written to the private directory.
    """
    path = directory or configured_dir()
    usable, reason = _check(path)
    if not usable and reason is None and directory is None:
        path = _fallback_dir()
        usable, reason = _check(path)
    if usable:
        if writable(path):
            return Location(path, path, "trusted")
        return Location(path, private_dir(), "read-only: new entries go to a private "
                                             "temporary directory")
    if reason is not None:
        fix = "" if "owned by" in reason or "link" in reason else f"chmod 700 {path}, or "
        _warn(path, reason, f"fix: {fix}set SYMGRAD_CACHE_DIR to a directory of your own")
    private = private_dir()
    return Location(private, private, f"refused: {reason or 'cannot be created'}")


def _fallback_dir():
    user = _uid() if _uid() is not None else "user"
    return os.path.join(tempfile.gettempdir(), f"symgrad-cache-{user}")


def _files(path):
    """(size, mtime, full path) of every file in the cache directory and its subdirectories."""
    out = []
    for d in [path] + [os.path.join(path, s) for s in SUBDIRS]:
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    out.append((st.st_size, st.st_mtime, e.path))
            except OSError:
                pass
    return out


def max_bytes():
    """The size cap: ``$SYMGRAD_CACHE_MAX_MB`` megabytes (default 256)."""
    try:
        return int(float(os.environ.get("SYMGRAD_CACHE_MAX_MB", DEFAULT_MAX_MB)) * 2 ** 20)
    except ValueError:
        return DEFAULT_MAX_MB * 2 ** 20


def usage(path):
    """``{"modules": n, "index": n, "bytes": total}`` of the cache in ``path``."""
    files = _files(path)
    return {"modules": sum(os.path.dirname(f) == path and _is_module(f) for _, _, f in files),
            "index": sum(os.path.basename(os.path.dirname(f)) == "index" for _, _, f in files),
            "bytes": sum(size for size, _, _ in files)}


def _is_module(path):
    name = os.path.basename(path)
    return name.startswith("symgrad_") and name.endswith(".py")


def _stem(path):
    return os.path.basename(path).split(".")[0]


def evict(path, keep=(), limit=None):
    """Delete the least recently used modules (with their machine code) while the cache
    is over ``limit`` bytes (default :func:`max_bytes`); never the stems in ``keep``.

    Returns the number of modules deleted; index entries used no later than the
    last module deleted go too (the others just miss, and are replaced, next time).
    """
    limit = max_bytes() if limit is None else limit
    files = _files(path)
    total = sum(size for size, _, _ in files)
    if total <= limit:
        return 0
    by_stem = {}
    for size, _, f in files:
        by_stem.setdefault(_stem(f), []).append((size, f))
    modules = sorted((mtime, f) for _, mtime, f in files
                     if os.path.dirname(f) == path and _is_module(f) and _stem(f) not in keep)
    deleted, cutoff = 0, None
    for mtime, module in modules:
        if total <= limit * 0.8:  # some room, so the next compiles do not evict again
            break
        for size, f in by_stem.get(_stem(module), []):
            total -= _unlink(f) and size
        deleted, cutoff = deleted + 1, mtime
    for _, mtime, f in files:
        if cutoff is not None and mtime <= cutoff and \
                os.path.basename(os.path.dirname(f)) == "index":
            _unlink(f)
    return deleted


def _unlink(path):
    try:
        os.unlink(path)
        return True
    except OSError:
        return False


def clear(path):
    """Delete every cache file in ``path`` (a trusted cache); returns (files, bytes)."""
    files = _files(path)
    removed = [(size, f) for size, _, f in files if _unlink(f)]
    return len(removed), sum(size for size, _ in removed)
