"""The disk cache: generated modules in a private directory, keyed by hashes of their
text and of symgrad's lowering code.

``lookup(graph_key)`` finds the module text a graph lowered to before (an index
from a hash of the graph to the module key), so a cache hit skips the lowering.
``load_module(text)`` writes ``symgrad_<key>.py`` (once) and imports it; Numba's
own ``cache=True`` then keeps the machine code beside it in ``__pycache__``, so a
second process loads instead of compiling.  The key hashes the module text, the
Numba, llvmlite and Python versions and the hash of symgrad's lowering code
(``code_version``); index entries also vouch for symgrad's version.  (Loading a
module needs neither SymPy nor ``importlib.metadata``: ``shipping.load`` stays light.)

Trust (see ``lower.cachedir`` for the directory checks): a module file is imported
only if its text is *exactly* the text this process lowered; otherwise it is
rewritten (and Numba's files for it deleted) first.  An index entry names a module
key and an HMAC (per-user secret, ``secret`` in the cache directory, mode 0600) of
the graph key, the module key and the module text: a hit counts only if the HMAC
checks, so only this user can vouch for a module this process did not lower.

Self-repair: files are written to a temporary name and moved into place with
``os.replace``; an index entry that cannot be read (not ASCII, a directory, a bad
HMAC) is a miss and is replaced; if importing fails (Numba's machine code is
damaged, the directory was deleted meanwhile) Numba's files are dropped and the
module is written again, into the private directory if the cache itself fails.
A write that fails only loses the cache entry, never the compile.

Imports only the standard library, numba and llvmlite (and ``lower.cachedir``).

>>> len(module_key("x = 1"))
32
"""
from __future__ import annotations

import functools
import glob
import hashlib
import hmac
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import threading

from . import cachedir
from .cachedir import CacheWarning, locate, private_dir  # noqa: F401  (re-exported)

_SECRET_BYTES = 32
_KEY = re.compile("[0-9a-f]{32}")


def cache_dir():
    """The cache directory modules are read from (created, checked; see ``cachedir``)."""
    return locate().read


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
                f"{code_version()}")
    return hashlib.sha256((versions + "\n" + text).encode()).hexdigest()[:32]


# -- the per-user secret and the HMAC of index entries ---------------------------------
def _read_secret(path):
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            data = fh.read(_SECRET_BYTES + 1)
    except OSError:
        return None
    private = not hasattr(os, "getuid") or (st.st_uid == os.getuid() and not st.st_mode & 0o077)
    return data if private and len(data) == _SECRET_BYTES else None


def secret(directory):
    """The secret of the cache in ``directory`` (made, mode 0600, if missing or unsafe)."""
    path = os.path.join(directory, "secret")
    found = _read_secret(path)
    if found is not None:
        return found
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp_")  # mode 0600
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(_SECRET_BYTES))
        if os.path.lexists(path):
            os.replace(tmp, path)  # an unsafe secret is replaced (its entries stop counting)
        else:
            try:
                os.link(tmp, path)  # the first writer wins: concurrent processes agree
            except FileExistsError:
                pass
            os.unlink(tmp)
    except OSError:
        return None  # a read-only cache without a secret: its index is not used
    return _read_secret(path)


def _vouch(key, graph_key, module, text):
    from ..version import __version__  # another symgrad: another graph -> module index
    message = f"{graph_key}\n{module}\n{__version__}\n".encode() + \
        hashlib.sha256(text.encode()).digest()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


# -- files -----------------------------------------------------------------------------
def _read_text(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def _write_atomic(path, data):
    """Write ``data`` (str) to ``path`` via a temporary file and ``os.replace``."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp_")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)  # a directory squatting on an index entry's name
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _touch(*paths):
    for p in paths:  # recency for the least-recently-used eviction
        try:
            os.utime(p)
        except OSError:
            pass


def _index_path(directory, graph_key):
    return os.path.join(directory, "index", graph_key[:32])


def lookup(graph_key, directory=None):
    """The module text remembered for ``graph_key``, or None.

    None also for a damaged entry (deleted, so ``remember`` writes it again) and for
    one whose HMAC does not check.
    """
    where = locate(directory)
    for d in dict.fromkeys([where.read, where.write]):
        text = _vouched(d, graph_key)
        if text is not None:
            return text
    return None


def _vouched(directory, graph_key):
    path = _index_path(directory, graph_key)
    if not os.path.lexists(path):
        return None
    entry = _read_text(path) if os.path.isfile(path) else None
    parts = entry.split() if entry else []
    if len(parts) != 2 or not _KEY.fullmatch(parts[0]):
        _discard(path)  # not text, a directory, an old format: remember() rewrites it
        return None
    module = os.path.join(directory, f"symgrad_{parts[0]}.py")
    text, key = _read_text(module), secret(directory)
    if text is None or key is None or module_key(text) != parts[0] or \
            not hmac.compare_digest(parts[1], _vouch(key, graph_key, parts[0], text)):
        return None
    _touch(path, module)
    return text


def _discard(path):
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def remember(graph_key, text, directory=None):
    """Record that ``graph_key`` lowers to the module ``text``; then evict if over the cap.

    Best effort: a cache that cannot be written only misses next time.
    """
    write = locate(directory).write
    key = secret(write)
    if key is None:
        return
    module = module_key(text)
    try:
        _write_atomic(_index_path(write, graph_key),
                      f"{module} {_vouch(key, graph_key, module, text)}\n")
    except OSError:
        return
    cachedir.evict(write, keep={f"symgrad_{module}"})


def _clear_numba_cache(directory, name):
    for f in glob.glob(os.path.join(directory, "__pycache__", f"{name}.*")):
        try:
            os.unlink(f)
        except OSError:
            pass


def _copy_warm(source, target, name):
    """Bring a module and its machine code from a read-only cache into ``target``."""
    try:
        os.makedirs(os.path.join(target, "__pycache__"), mode=0o700, exist_ok=True)
        for f in glob.glob(os.path.join(source, "__pycache__", f"{name}.*")):
            shutil.copyfile(f, os.path.join(target, "__pycache__", os.path.basename(f)))
    except OSError:
        pass


def load_module(text, directory=None):
    """Import the module for ``text`` from the cache directory, writing it if needed.

    Args:
        text: the module source.
        directory: where to keep it (default: the cache directory, see ``cachedir``).
    Returns:
        the imported module (reused if this process imported it already).
    """
    with _LOADING:  # a background build (lower.background) may be importing it right now
        return _load(text, directory)


_LOADING = threading.RLock()


def _load(text, directory):
    name = f"symgrad_{module_key(text)}"
    if name in sys.modules:
        return sys.modules[name]
    where = locate(directory)
    if where.write != where.read and _read_text(os.path.join(where.read, name + ".py")) == text:
        _copy_warm(where.read, where.write, name)
    try:
        return _load_in(where.write, name, text)
    except (OSError, RuntimeError):
        # The directory vanished or failed meanwhile: compile in the private one.
        return _load_in(private_dir(), name, text)


def _load_in(directory, name, text):
    path = os.path.join(directory, name + ".py")
    ensure_file(path, text)
    try:
        module = _import(name, path)
    except (OSError, RuntimeError):
        raise
    except Exception:
        # Numba's cached machine code may be damaged: drop it and compile afresh.
        _clear_numba_cache(directory, name)
        ensure_file(path, text)
        module = _import(name, path)
    _touch(path)
    return module


def ensure_file(path, text):
    """Make the file at ``path`` hold exactly ``text``; Numba's files for a file that held
    something else are deleted (for a missing file they match ``text``, or are stale)."""
    current = _read_text(path)
    if current == text:
        return
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        cachedir.make_private(directory)
        reason = cachedir.problem(directory)
        if reason is not None:
            raise RuntimeError(f"symgrad: cannot rewrite {path}: {reason}")
    if current is not None or os.path.lexists(path):
        _clear_numba_cache(directory, os.path.basename(path)[:-3])
    _write_atomic(path, text)


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
