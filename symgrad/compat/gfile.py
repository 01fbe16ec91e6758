"""``tf.gfile.GFile`` (``tf.io.gfile.GFile``, ``Open``, ``FastGFile``): a lazily opened
local file with TF's modes, byte positions and errors (see ``compat.gfile_paths``).

``GFILE`` and ``IO_GFILE`` are the namespaces' contents (``tf.gfile``, ``tf.io.gfile``).

Sits in ``compat``; imports the standard library, ``compat.errors`` and ``gfile_paths``.

>>> import os, tempfile
>>> from symgrad.compat.gfile import GFile
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> with GFile(path, "w") as f:
...     f.write(b"hello")
>>> f = GFile(path); f.read(2), f.tell(), f.read(), f.size()
('he', 2, 'llo', 5)
"""
from __future__ import annotations

import os

from . import errors
from . import gfile_paths as _gfile

# TF's modes; the Python mode each opens (always binary: positions count bytes)
_MODES = {"r": "rb", "w": "wb", "a": "ab", "r+": "r+b", "w+": "w+b", "a+": "a+b"}


class GFile:
    """``tf.gfile.GFile(name, mode="r")``: read, write, readline(s), iteration over lines,
    seek/tell/size, flush/close, and ``with``."""

    def __init__(self, name, mode="r"):
        base = str(mode).replace("b", "", 1)
        if base not in _MODES or str(mode).count("b") > 1:
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+' (with an "
                f"optional 'b'); got mode={mode!r}")
        self.name, self.mode = name, mode
        self._path = _gfile.local_path(name)
        self._binary, self._base, self._file = "b" in str(mode), base, None

    def _open(self, for_reading):
        if for_reading and self._base in ("w", "a"):
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if not for_reading and self._base == "r":
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        if self._file is None:
            try:
                self._file = open(self._path, _MODES[self._base])
            except OSError as exc:
                raise _gfile.tf_error(exc, self._path) from None
        return self._file

    def _text(self, data):
        return data if self._binary else data.decode("utf-8")

    def read(self, n=-1):
        """``n`` bytes (all that remain by default): str in text mode, bytes in ``"rb"``."""
        return self._text(self._open(True).read(-1 if n is None else n))

    def readline(self):
        """The next line with its ``\\n`` (empty at the end)."""
        return self._text(self._open(True).readline())

    def readlines(self):
        """The remaining lines, a list."""
        return [self._text(line) for line in self._open(True).readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Append ``file_content`` (str or bytes, in any mode) to what this file writes."""
        if isinstance(file_content, str):
            file_content = file_content.encode("utf-8")
        if not isinstance(file_content, (bytes, bytearray)):
            raise TypeError(f"Expected binary or unicode string, got {file_content!r}")
        self._open(False).write(file_content)

    def tell(self):
        """The position, in bytes."""
        return self._open(self._base != "w" and self._base != "a").tell()

    def seek(self, offset=None, whence=0, position=None):
        """Move to ``offset`` (TF1's ``position``) bytes from the start (``whence`` 0), the
        current position (1) or the end (2)."""
        if (offset is None) == (position is None):
            raise TypeError("seek: give offset (or TF1's position), exactly one of them")
        self._open(True).seek(offset if position is None else position, whence)

    def seekable(self):
        return True

    def size(self):
        """The file's length in bytes."""
        self.flush()
        return _gfile.stat(self._path).length

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        """Write out what is buffered and release the file (a later read opens it again,
        from the start, as TF's does)."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def __repr__(self):
        return f"<tf.gfile.GFile {self.name!r} mode={self.mode!r}>"


GFILE = dict(Exists=_gfile.exists, IsDirectory=_gfile.isdir, MakeDirs=_gfile.makedirs,
             MkDir=_gfile.mkdir, ListDirectory=_gfile.listdir, Glob=_gfile.glob,
             Remove=_gfile.remove, DeleteRecursively=_gfile.rmtree, Copy=_gfile.copy,
             Rename=_gfile.rename, Stat=_gfile.stat, Walk=_gfile.Walk, GFile=GFile,
             Open=GFile, FastGFile=GFile)
IO_GFILE = dict(GFile=GFile, join=os.path.join, **{n: getattr(_gfile, n) for n in (
    "exists", "isdir", "makedirs", "mkdir", "listdir", "glob", "remove", "rmtree", "copy",
    "rename", "stat", "walk")})
