"""The disk cache: generated modules in a directory, keyed by hashes of their text
and of symgrad's lowering code.

``lookup(graph_key)`` finds the module text a graph lowered to before (an index
from a hash of the graph to the module key), so a cache hit skips the lowering.
``load_module(text)`` writes ``symgrad_<key>.py`` (once) and imports it; Numba's
own ``cache=True`` then keeps the machine code beside it in ``__pycache__``, so a
second process loads instead of compiling.  The key hashes the module text, the
Numba, llvmlite, Python and symgrad versions.

Safety: a file is written to a temporary name and moved into place with
``os.replace`` (concurrent writers never leave a half-written file); its first
line is a SHA-256 of the rest, checked before import, so a corrupted or
truncated file is rewritten, never loaded; if Numba's cached machine code for it
fails to load, that cache is deleted and the module compiled again.

The directory is ``$SYMGRAD_CACHE_DIR`` if set, else the user cache directory
(``$XDG_CACHE_HOME/symgrad``, ``~/.cache/symgrad``, ``~/Library/Caches/symgrad`` on
macOS, ``%LOCALAPPDATA%\\symgrad\\Cache`` on Windows).

Imports only the standard library, numba and llvmlite.

>>> len(module_key("x = 1"))
32
"""
from __future__ import annotations

import functools
import glob
import hashlib
import importlib.util
import os
import sys
import tempfile

from ..version import __version__

_PREFIX = "# symgrad-checksum: "


def cache_dir():
    """The cache directory (created if missing)."""
    path = os.environ.get("SYMGRAD_CACHE_DIR")
    if not path:
        if sys.platform == "win32":
            root = os.environ.get("LOCALAPPDATA", os.path.expanduser("~"))
            path = os.path.join(root, "symgrad", "Cache")
        elif sys.platform == "darwin":
            path = os.path.expanduser("~/Library/Caches/symgrad")
        else:
            root = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
            path = os.path.join(root, "symgrad")
    try:
        os.makedirs(path, exist_ok=True)
        if os.access(path, os.W_OK):
            return path
    except OSError:
        pass
    # An unwritable cache location still compiles: fall back to a per-user temp dir.
    user = os.getuid() if hasattr(os, "getuid") else "user"
    path = os.path.join(tempfile.gettempdir(), f"symgrad-cache-{user}")
    os.makedirs(path, exist_ok=True)
    return path


@functools.lru_cache(maxsize=1)
def code_version():
    """A hash of the code that turns graphs into machine code (``ops/`` and ``lower/``).

    Part of every key, so a changed lowering or emitter never reuses old modules or
    machine code (the module text alone does not show a change in the emitter).
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256()
    for sub in ("ops", "lower"):
        for name in sorted(os.listdir(os.path.join(root, sub))):
            if name.endswith(".py"):
                with open(os.path.join(root, sub, name), "rb") as fh:
                    digest.update(name.encode() + fh.read())
    return digest.hexdigest()


def module_key(text):
    """The cache key of a module text (hex, 32 characters)."""
    import llvmlite  # here, so that importing symgrad does not import numba
    import numba
    versions = (f"{numba.__version__}|{llvmlite.__version__}|{sys.version_info[:3]}|"
                f"{__version__}|{code_version()}")
    return hashlib.sha256((versions + "\n" + text).encode()).hexdigest()[:32]


def _checksum(body):
    return hashlib.sha256(body.encode()).hexdigest()


def _is_valid(path):
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
            rest = fh.read()
    except (OSError, UnicodeDecodeError):
        return False
    return first.startswith(_PREFIX) and first[len(_PREFIX):].strip() == _checksum(rest)


def write_module(path, text):
    """Write ``text`` with its checksum line to ``path`` atomically."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp_", suffix=".py")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"{_PREFIX}{_checksum(text)}\n{text}")
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _index_path(graph_key, directory=None):
    return os.path.join(directory or cache_dir(), "index", graph_key[:32])


def lookup(graph_key, directory=None):
    """The module text remembered for ``graph_key``, or None (also if its file is damaged)."""
    try:
        with open(_index_path(graph_key, directory), encoding="ascii") as fh:
            key = fh.read().strip()
    except OSError:
        return None
    path = os.path.join(directory or cache_dir(), f"symgrad_{key}.py")
    if len(key) != 32 or not _is_valid(path):
        return None
    with open(path, encoding="utf-8") as fh:
        fh.readline()
        text = fh.read()
    return text if module_key(text) == key else None


def remember(graph_key, text, directory=None):
    """Record that ``graph_key`` lowers to the module ``text`` (atomic, like modules)."""
    path = _index_path(graph_key, directory)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp_")
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(module_key(text))
    os.replace(tmp, path)


def _clear_numba_cache(directory, name):
    for f in glob.glob(os.path.join(directory, "__pycache__", f"{name}.*")):
        try:
            os.unlink(f)
        except OSError:
            pass


def load_module(text, directory=None):
    """Import the module for ``text`` from the cache directory, writing it if needed.

    Args:
        text: the module source.
        directory: where to keep it (default :func:`cache_dir`).
    Returns:
        the imported module (reused if this process imported it already).
    """
    key = module_key(text)
    name = f"symgrad_{key}"
    if name in sys.modules:
        return sys.modules[name]
    directory = directory or cache_dir()
    path = os.path.join(directory, name + ".py")
    if not _is_valid(path):
        _clear_numba_cache(directory, name)
        write_module(path, text)
    try:
        return _import(name, path)
    except Exception:
        # Numba's cached machine code may be damaged: drop it and compile afresh.
        _clear_numba_cache(directory, name)
        if not _is_valid(path):
            write_module(path, text)
        return _import(name, path)


def _import(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba's cache locator needs the module registered
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module
