"""The path functions of ``tf.gfile`` (TF1's names) and ``tf.io.gfile`` (TF2's) on local
files, raising TF's errors where TF raises them (the file object is ``compat.gfile``).

- Paths are local: a ``file://`` prefix is dropped; any other scheme (``gs://``,
  ``hdfs://``, ``s3://``) raises TF's ``UnimplementedError`` for a scheme it lacks,
  with advice: symgrad reads local files only.
- ``GFile`` (``Open``, ``FastGFile``) opens lazily, as TF's does: a missing file
  raises ``NotFoundError`` at the first read, not at ``GFile(path)``.  Positions
  (``tell``, ``seek``, ``read(n)``) count bytes; text modes decode UTF-8 and write
  ``str`` or ``bytes`` alike, with no newline translation.  Differs from TF: the
  ``+`` modes keep Python's meaning (``r+`` does not truncate, ``w+`` reads back
  what it wrote); TF truncates at the first write and reads its own writes late.
- OS errors become TF's classes: a missing path ``NotFoundError``, a directory
  where a file is needed ``FailedPreconditionError``, an existing target of
  ``Copy``/``Rename`` without ``overwrite=True`` ``AlreadyExistsError``, no
  permission ``PermissionDeniedError``.

Sits in ``compat``; imports the standard library and ``compat.errors``.

>>> import os, tempfile
>>> import symgrad.compat.v1 as tf
>>> path = os.path.join(tempfile.mkdtemp(), "notes.txt")
>>> with tf.gfile.GFile(path, "w") as f:
...     f.write("first\\nsecond\\n")
>>> with tf.gfile.GFile(path) as f:
...     print(list(f))
['first\\n', 'second\\n']
>>> tf.gfile.Remove(path); tf.gfile.Exists(path)
False
"""
from __future__ import annotations

import collections
import errno
import glob as _glob
import os
import shutil

from . import errors

_SCHEME_ADVICE = ("symgrad's tf.gfile reads and writes local paths only; copy the files "
                  "to a local directory first (e.g. gsutil cp / hdfs dfs -get)")


def local_path(path):
    """``path`` (str, bytes or os.PathLike) as a local str; ``file://`` is dropped and any
    other scheme raises TF's UnimplementedError."""
    if isinstance(path, bytes):
        path = path.decode()
    path = os.fspath(path)
    if not isinstance(path, str):
        raise TypeError(f"gfile: a path must be a str, bytes or os.PathLike, got {path!r}")
    scheme, sep, rest = path.partition("://")
    if not sep or "/" in scheme:
        return path
    if scheme == "file":
        return rest
    raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}' not "
                                    f"implemented (file: '{path}'); {_SCHEME_ADVICE}")


def tf_error(exc, path):
    """The TF exception for the OSError ``exc`` raised on ``path``."""
    if isinstance(exc, FileNotFoundError):
        return errors.NotFoundError(None, None, f"{path}; No such file or directory")
    if isinstance(exc, IsADirectoryError):
        return errors.FailedPreconditionError(None, None, f"{path}; Is a directory")
    if isinstance(exc, NotADirectoryError) or exc.errno == errno.ENOTDIR:
        return errors.FailedPreconditionError(None, None, f"{path} is not a directory")
    if isinstance(exc, FileExistsError):
        return errors.AlreadyExistsError(None, None, "file already exists")
    if isinstance(exc, PermissionError):
        return errors.PermissionDeniedError(None, None, f"{path}; Permission denied")
    return errors.UnknownError(None, None, f"{path}; {exc.strerror or exc}")


def exists(path):
    """``tf.gfile.Exists``: True for an existing file or directory."""
    return os.path.exists(local_path(path))


def isdir(path):
    """``tf.gfile.IsDirectory``: True for an existing directory."""
    return os.path.isdir(local_path(path))


def makedirs(path):
    """``tf.gfile.MakeDirs``: the directory and its missing parents; nothing if it exists.

    Raises:
        tf.errors.FailedPreconditionError: the path or a parent is a file.
    """
    p = local_path(path)
    for part in _ancestors(p):
        if os.path.exists(part) and not os.path.isdir(part):
            raise errors.FailedPreconditionError(None, None, f"{part} is not a directory")
    try:
        os.makedirs(p, exist_ok=True)
    except OSError as exc:
        raise tf_error(exc, p) from None


def _ancestors(path):
    """``path`` and its parents, the outermost first."""
    parts, head = [], os.path.normpath(path)
    while head and head not in parts:
        parts.append(head)
        head = os.path.dirname(head)
    return parts[::-1]


def mkdir(path):
    """``tf.gfile.MkDir``: one directory (its parent must exist); nothing if it exists."""
    p = local_path(path)
    if os.path.isdir(p):
        return
    try:
        os.mkdir(p)
    except OSError as exc:
        raise tf_error(exc, p) from None


def listdir(path):
    """``tf.gfile.ListDirectory``: the names in a directory (not ``.``/``..``), in the
    file system's order, as TF's.

    Raises:
        tf.errors.NotFoundError: ``path`` is not an existing directory.
    """
    p = local_path(path)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, f"Could not find directory {p}")
    return os.listdir(p)


def glob(pattern):
    """``tf.gfile.Glob``: the paths matching ``pattern`` (``*``, ``?``, ``[...]``), a list."""
    if isinstance(pattern, (list, tuple)):
        return [found for one in pattern for found in glob(one)]
    return sorted(_glob.glob(local_path(pattern)))


def remove(path):
    """``tf.gfile.Remove``: delete a file (a directory raises FailedPreconditionError)."""
    p = local_path(path)
    try:
        if os.path.isdir(p):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", p)
        os.remove(p)
    except OSError as exc:
        raise tf_error(exc, p) from None


def rmtree(path):
    """``tf.gfile.DeleteRecursively``: a directory and everything under it (or a file)."""
    p = local_path(path)
    if not os.path.lexists(p):
        raise errors.NotFoundError(None, None, f"{p} not found")
    try:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
    except OSError as exc:
        raise tf_error(exc, p) from None


def _check_target(src, dst, overwrite):
    if not os.path.exists(src):
        raise errors.NotFoundError(None, None, f"{src}; No such file or directory")
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")


def copy(oldpath, newpath, overwrite=False):
    """``tf.gfile.Copy``: copy a file; an existing ``newpath`` raises AlreadyExistsError
    unless ``overwrite``."""
    src, dst = local_path(oldpath), local_path(newpath)
    _check_target(src, dst, overwrite)
    try:
        shutil.copyfile(src, dst)
    except OSError as exc:
        raise tf_error(exc, src if isinstance(exc, IsADirectoryError) else dst) from None


def rename(oldname, newname, overwrite=False):
    """``tf.gfile.Rename``: move a file or directory; an existing ``newname`` raises
    AlreadyExistsError unless ``overwrite``."""
    src, dst = local_path(oldname), local_path(newname)
    _check_target(src, dst, overwrite)
    try:
        os.replace(src, dst)
    except OSError as exc:
        raise tf_error(exc, dst) from None


FileStatistics = collections.namedtuple("FileStatistics",
                                        ["length", "mtime_nsec", "is_directory"])


def stat(path):
    """``tf.gfile.Stat``: ``length`` (bytes), ``mtime_nsec`` (whole seconds, as TF's local
    file system reports) and ``is_directory``."""
    p = local_path(path)
    try:
        st = os.stat(p)
    except OSError as exc:
        raise tf_error(exc, p) from None
    return FileStatistics(st.st_size, int(st.st_mtime) * 10**9, os.path.isdir(p))


def walk(top, topdown=True, onerror=None):
    """``tf.io.gfile.walk``: ``(dirname, subdirs, files)`` for ``top`` and each directory
    under it; top-down unless ``topdown=False``; nothing for a missing ``top`` (TF
    passes the NotFoundError to ``onerror`` when given).  Pruning ``subdirs`` in place
    (top-down) skips them, as with ``os.walk``."""
    top = local_path(top)
    try:
        names = listdir(top)
    except errors.NotFoundError as exc:
        if onerror is not None:
            onerror(exc)
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in subdirs]
    if topdown:
        yield top, subdirs, files
    for sub in subdirs:
        yield from walk(os.path.join(top, sub), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def Walk(top, in_order=True):  # noqa: N802  (TF1's name)
    """``tf.gfile.Walk``: :func:`walk` with TF1's ``in_order`` (top-down)."""
    return walk(top, topdown=in_order)
