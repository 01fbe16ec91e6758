"""Shipping compiled evaluators: ``sg.load(path)`` restores what ``f.save(path)`` wrote.

A new process that loads a saved evaluator (or unpickles one, e.g. a dask worker)
imports numpy, Numba and the runtime pieces of symgrad only: no SymPy, no tracing,
no lowering.  The generated module goes through the disk cache's checks
(``lower.cache``: written into the user's private cache, imported only if the file
holds exactly the saved text), so Numba loads its machine code from the cache when
this machine compiled it before; otherwise Numba compiles it (and says so when that
takes a while).

Kinds: a fixed-shape or size-generic :class:`~symgrad.evaluator.Evaluator` (sparse
outputs included); a :class:`~symgrad.evaluator.ControlEvaluator` with static shapes
(its kernels and drivers load from the cache: ``lower.control.rebuild``); and a :class:`~symgrad.lower.persize.PerSize` (graphs
compiled once per combination of sizes), saved with the sizes it has compiled and
loaded as a :class:`SavedSizes`.

Imports evaluator, progress, errors, ``lower.saved`` and ``lower.sizes``.
"""
from __future__ import annotations

import os
from typing import Any

from . import progress
from .evaluator import from_spec
from .errors import SavedFileError, ShapeError
from .lower.saved import read
from .lower.sizes import SavedSizes  # noqa: F401  (sg.load's result for per-size graphs)


def load(path: Any) -> Any:
    """The evaluator saved at ``path`` by ``f.save(path)``, ready to call.

    Args:
        path: a file written by ``Evaluator.save`` (or ``PerSize.save``).
    Returns:
        an :class:`~symgrad.evaluator.Evaluator` (``f(...)``, ``f.batched``, ``f.jit``,
        pickling, dask), or a :class:`SavedSizes` for a graph compiled per size.
    Raises:
        SavedFileError: the file is not a saved evaluator, is damaged, or was written
            by a different version of symgrad's compiler.
        FileNotFoundError: there is no file at ``path``.
    """
    spec = read(path)
    with progress.task(f"loading the evaluator saved in {os.fspath(path)!r}") as work:
        work.stage("importing its module (Numba compiles it when its machine code is not in "
                   "this machine's cache)")
        try:
            return restore(spec)
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            if isinstance(exc, ShapeError):
                raise
            raise SavedFileError(f"{os.fspath(path)!r} is damaged (its description does not "
                                 f"fit this version: {exc!r})") from None


def restore(spec: dict) -> Any:
    """The evaluator described by ``spec`` (see ``Evaluator._spec``)."""
    return from_spec(spec)
