"""The file of a saved evaluator (``f.save(path)``, read back by ``sg.load``).

Layout: a first line naming the format, a second with the format version and the
SHA-256 of the rest, then one Python literal (read with ``ast.literal_eval``, which
runs no code) describing the evaluator: its kind, the generated module texts, the
output structure, the input names, and the symgrad version and compiler-code hash
that wrote it.  The module texts *are* code: loading imports them (through the
disk cache's checks, ``lower.cache``), so a saved file is to be trusted like a
pickle or a Python module.

A file written by another version of symgrad's compiler is refused (its module may
rely on another runtime); so are files that are not saved evaluators, that are
damaged (checksum), or of a newer format.

Imports errors, values (sparse layouts), version and the cache's code hash.

>>> decode_tree(encode_tree(("list", (("leaf",), ("none",)))))
('list', (('leaf',), ('none',)))
"""
from __future__ import annotations

import ast
import hashlib
import os
import tempfile
from typing import Any

import numpy as np

from ..errors import ArgumentError, SavedFileError
from ..values import SparseLayout
from .cache import code_version

MAGIC = "symgrad saved evaluator"
FORMAT = 1


def encode_tree(tree: tuple) -> tuple:
    """The output structure with sparse layouts as plain data (literal_eval-able)."""
    kind = tree[0]
    if kind == "wrap":
        lay = tree[1]
        return ("wrap", ("csr", tuple(int(d) for d in lay.shape),
                         np.asarray(lay.indptr).tolist(), np.asarray(lay.indices).tolist(),
                         np.asarray(lay.indptr).dtype.str, np.asarray(lay.indices).dtype.str))
    if kind == "dict":
        for key in tree[1]:
            if not _is_literal(key):
                raise ArgumentError(f"save: the output dict key {key!r} cannot be saved; use "
                                    "str, int or float keys")
        return ("dict", tree[1], encode_tree(tree[2]))
    if kind in ("list", "tuple"):
        return (kind, tuple(encode_tree(t) for t in tree[1]))
    return tree


def decode_tree(tree: tuple) -> tuple:
    """The inverse of :func:`encode_tree`."""
    kind = tree[0]
    if kind == "wrap":
        _, shape, indptr, indices, ptype, itype = tree[1]
        return ("wrap", SparseLayout(shape, np.array(indptr, dtype=ptype),
                                     np.array(indices, dtype=itype)))
    if kind == "dict":
        return ("dict", tree[1], decode_tree(tree[2]))
    if kind in ("list", "tuple"):
        return (kind, tuple(decode_tree(t) for t in tree[1]))
    return tree


def _is_literal(value):
    try:
        return ast.literal_eval(repr(value)) == value
    except (ValueError, SyntaxError, TypeError):
        return False


def _version():
    from ..version import __version__   # importlib.metadata: not on the load path
    return __version__


def write(path: Any, spec: dict) -> None:
    """Write ``spec`` (an evaluator's description) to ``path`` (atomically)."""
    path = os.fspath(path)
    payload = repr({"symgrad": _version(), "code": code_version(), **spec})
    digest = hashlib.sha256(payload.encode()).hexdigest()
    folder = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".symgrad_save_")
    except OSError as exc:
        raise ArgumentError(f"save: cannot write {path!r}: {exc.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f"{MAGIC}\nformat {FORMAT} sha256 {digest}\n{payload}")
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def read(path: Any) -> dict:
    """The description saved at ``path``; SavedFileError (naming it) if it is not one
    this symgrad can load."""
    path = os.fspath(path)
    with open(path, "rb") as fh:   # a missing file: the usual FileNotFoundError
        data = fh.read()
    head, _, rest = data.partition(b"\n")
    if head == MAGIC.encode() + b"\r":
        raise SavedFileError(f"{path!r} has Windows line endings (CRLF): a text tool (a git "
                             "checkout with autocrlf, an editor) changed it, so its checksum "
                             "no longer matches; copy the saved file as binary (a .gitattributes "
                             "line '*.sg binary')")
    if head != MAGIC.encode():
        raise SavedFileError(f"{path!r} is not a saved symgrad evaluator (it does not begin "
                             f"with {MAGIC!r}); write one with f.save(path)")
    version, _, payload = rest.partition(b"\n")
    parts = version.split()
    if len(parts) != 4 or parts[0] != b"format" or parts[2] != b"sha256" or \
            not parts[1].isdigit():
        raise SavedFileError(f"{path!r} is damaged (its format line is {version[:80]!r})")
    if int(parts[1]) != FORMAT:
        raise SavedFileError(f"{path!r} has format {int(parts[1])}; this symgrad "
                             f"({_version()}) reads format {FORMAT}: save it again with "
                             "this version")
    if hashlib.sha256(payload).hexdigest().encode() != parts[3]:
        raise SavedFileError(f"{path!r} is damaged (its checksum does not match its "
                             "contents); save the evaluator again")
    try:
        spec = ast.literal_eval(payload.decode("utf-8"))
    except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError):
        raise SavedFileError(f"{path!r} is damaged (its contents do not parse)") from None
    if not isinstance(spec, dict) or "kind" not in spec:
        raise SavedFileError(f"{path!r} is damaged (no evaluator description in it)")
    if spec.get("code") != code_version():   # (same version number: an edited copy)
        raise SavedFileError(
            f"{path!r} was saved by symgrad {spec.get('symgrad')} with other code of its "
            f"compiler (symgrad/ops and symgrad/lower hash to {str(spec.get('code'))[:12]}... "
            f"there, {code_version()[:12]}... in this symgrad {_version()}: another release "
            "or an edited copy); compile the graph again with this symgrad and save it")
    return spec
