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

Imports evaluator, progress, errors and ``lower.saved``.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import progress
from .evaluator import _build, from_spec
from .errors import ArgumentError, SavedFileError, ShapeError
from .lower.saved import decode_tree, read


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
    if spec["kind"] == "sizes":
        return SavedSizes([(tuple(tuple(s) for s in shapes), restore(sub))
                           for shapes, sub in spec["evaluators"]],
                          decode_tree(spec["tree"]), list(spec["names"]))
    return from_spec(spec)


class SavedSizes:
    """A graph compiled once per combination of sizes (``PerSize``), as saved: it
    answers the input shapes it had compiled, and says so for any other."""

    def __init__(self, evaluators, tree, names):
        self.evaluators = dict(evaluators)   # input shapes -> evaluator (flat outputs)
        self._tree, self.input_names = tree, names

    def evaluator(self, shapes):
        """The evaluator for inputs of ``shapes`` (ShapeError if it was not saved)."""
        found = self.evaluators.get(tuple(tuple(s) for s in shapes))
        if found is None:
            have = "; ".join(", ".join(str(s) for s in k) for k in self.evaluators)
            raise ShapeError(f"this saved evaluator was compiled for input shapes {have}, "
                             f"not {', '.join(str(tuple(s)) for s in shapes)}; call the "
                             "evaluator at these sizes before saving it, or compile again")
        return found

    def __call__(self, *args: Any) -> Any:
        self._check_count(args, "the compiled function")
        f = self.evaluator([np.shape(a) for a in args])
        return _build(self._tree, iter(f(*args)))

    def batched(self, *values: Any, parallel: bool = False) -> Any:
        self._check_count(values, "batched")
        ranks = [len(next(iter(self.evaluators))[k]) for k in range(len(values))]
        f = self.evaluator([np.shape(v)[np.ndim(v) - r:] if r else () for v, r in
                            zip(values, ranks)])
        return _build(self._tree, iter(f.batched(*values, parallel=parallel)))

    def _check_count(self, values, what):
        if len(values) != len(self.input_names):
            raise ArgumentError(f"{what} takes {len(self.input_names)} inputs "
                                f"({', '.join(self.input_names)}), got {len(values)}")

    def save(self, path: Any) -> None:
        """Write it again (``sg.load`` gives the same sizes back)."""
        from .lower import saved
        saved.write(path, self._spec())

    def _spec(self) -> dict:
        from .lower.saved import encode_tree
        return {"kind": "sizes", "tree": encode_tree(self._tree), "names": self.input_names,
                "evaluators": [(k, f._spec()) for k, f in self.evaluators.items()]}

    def __repr__(self):
        return (f"<symgrad.SavedSizes inputs=({', '.join(self.input_names)}) "
                f"sizes={len(self.evaluators)}>")
