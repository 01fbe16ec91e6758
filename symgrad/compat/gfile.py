"""``tf.gfile`` (and ``tf.io.gfile``'s lower-case names) on the local file system: what
tensorflow/models scripts do with ``FLAGS.train_dir`` and their data files.

``GFile(name, mode)`` opens lazily, at the first read or write, as TF's does (a file
opened for writing and closed unwritten is not created); text modes give ``str``,
``"b"`` modes ``bytes``.  Errors are TF's classes with TF's messages:
``NotFoundError("<path>; No such file or directory")``, ``AlreadyExistsError`` from
``Copy``/``Rename`` without ``overwrite``, ``FailedPreconditionError`` where a path is
not a directory.  Paths with a scheme (``gs://``, ``hdfs://``, ``s3://``) need TF's file
systems: an ``UnimplementedError`` says to copy the data locally.

Imports the standard library and ``compat.errors``.

>>> import os, tempfile, symgrad.compat.v1 as tf
>>> d = os.path.join(tempfile.mkdtemp(), "train")
>>> tf.gfile.Exists(d), tf.gfile.MakeDirs(d), tf.gfile.ListDirectory(d)
(False, None, [])
"""
from __future__ import annotations

import collections
import glob as _glob
import os
import shutil

from . import errors

_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _local(path):
    path = os.fspath(path)
    if "://" in str(path) and not str(path).startswith("file://"):
        raise errors.UnimplementedError(
            None, None, f"File system scheme '{str(path).split('://')[0]}' not implemented "
            f"(file: '{path}'): symgrad reads local files; copy the data to a local path")
    return path[len("file://"):] if str(path).startswith("file://") else path


def _not_found(path):
    return errors.NotFoundError(None, None, f"{path}; No such file or directory")


class GFile:
    """``tf.gfile.GFile(name, mode="r")`` (``Open``, ``FastGFile``): a file object."""

    def __init__(self, name, mode="r"):
        if mode.replace("b", "") not in _MODES:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self.name, self.mode, self._file = _local(name), mode, None

    def _opened(self):
        if self._file is None:
            try:
                self._file = open(self.name, self.mode)
            except FileNotFoundError:
                raise _not_found(self.name) from None
            except IsADirectoryError:
                raise errors.FailedPreconditionError(
                    None, None, f"{self.name}; Is a directory") from None
        return self._file

    def read(self, n=-1):
        return self._opened().read(n)

    def readline(self):
        return self._opened().readline()

    def readlines(self):
        return self._opened().readlines()

    def write(self, data):
        self._opened().write(data)

    def seek(self, offset=None, whence=0, position=None):
        self._opened().seek(position if offset is None else offset, whence)

    def tell(self):
        return self._opened().tell()

    def size(self):
        return Stat(self.name).length

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def __iter__(self):
        return iter(self._opened())

    def __next__(self):
        return next(self._opened())

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


Open = FastGFile = GFile
FileStatistics = collections.namedtuple("FileStatistics", ["length", "mtime_nsec",
                                                           "is_directory"])


def Exists(filename):  # noqa: N802  (TF's names)
    return os.path.exists(_local(filename)) if filename else False


def IsDirectory(dirname):  # noqa: N802
    return os.path.isdir(_local(dirname))


def MakeDirs(dirname):  # noqa: N802
    """Make ``dirname`` and its parents (nothing if it exists)."""
    path = _local(dirname)
    try:
        os.makedirs(path, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise errors.FailedPreconditionError(
            None, None, f"{_existing_file_above(path)} is not a directory") from None


def _existing_file_above(path):
    while path and not os.path.exists(path):
        path = os.path.dirname(path)
    return path


def MkDir(dirname):  # noqa: N802
    path = _local(dirname)
    try:
        os.mkdir(path)
    except FileExistsError:
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists") from None
    except FileNotFoundError:
        raise _not_found(path) from None


def ListDirectory(dirname):  # noqa: N802
    path = _local(dirname)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


def Glob(filename):  # noqa: N802
    return _glob.glob(_local(filename))


def Remove(filename):  # noqa: N802
    path = _local(filename)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def DeleteRecursively(dirname):  # noqa: N802
    path = _local(dirname)
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    if os.path.isdir(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def Copy(oldpath, newpath, overwrite=False):  # noqa: N802
    src, dst = _local(oldpath), _local(newpath)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        shutil.copyfile(src, dst)
    except FileNotFoundError:
        raise _not_found(src) from None


def Rename(oldname, newname, overwrite=False):  # noqa: N802
    src, dst = _local(oldname), _local(newname)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(src, dst)
    except FileNotFoundError:
        raise _not_found(src) from None


def Stat(filename):  # noqa: N802
    path = _local(filename)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def Walk(top, in_order=True):  # noqa: N802
    """``(dirname, subdirectories, files)`` for ``top`` and below, parents first unless
    ``in_order`` is False."""
    for entry in os.walk(_local(top), topdown=in_order):
        yield entry


# tf.io.gfile's names (TF2 style, also in compat.v1)
IO_NAMES = dict(GFile=GFile, exists=Exists, isdir=IsDirectory, makedirs=MakeDirs,
                mkdir=MkDir, listdir=ListDirectory, glob=Glob, remove=Remove,
                rmtree=DeleteRecursively, copy=Copy, rename=Rename, stat=Stat, walk=Walk)
NAMES = dict(GFile=GFile, Open=Open, FastGFile=FastGFile, Exists=Exists,
             IsDirectory=IsDirectory, MakeDirs=MakeDirs, MkDir=MkDir,
             ListDirectory=ListDirectory, Glob=Glob, Remove=Remove,
             DeleteRecursively=DeleteRecursively, Copy=Copy, Rename=Rename, Stat=Stat,
             Walk=Walk)
