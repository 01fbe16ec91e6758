"""A graph compiled once per combination of sizes, as saved or pickled: the evaluators
of the sizes compiled so far (``lower.persize.PerSize`` writes them; ``sg.load`` and
unpickling give a :class:`SavedSizes`).  Light: numpy, ``symgrad.errors`` and the
argument checks (``lower.arguments``) only, so a process that loads one imports no
SymPy.

>>> SavedSizes([], ("leaf",), ["x"], None)
<symgrad.SavedSizes inputs=(x) sizes=0>
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ShapeError
from .arguments import check_count


class SavedSizes:
    """A graph compiled once per combination of sizes (``PerSize``), as saved: it
    answers the input shapes it had compiled, and says so for any other."""

    def __init__(self, evaluators, tree, names, build_tree):
        # build_tree(tree, iterator of values) -> the outputs in their structure
        self.evaluators = dict(evaluators)   # input shapes -> evaluator (flat outputs)
        self._tree, self.input_names, self._build_tree = tree, names, build_tree

    def evaluator(self, shapes):
        """The evaluator for inputs of ``shapes`` (ShapeError if it was not saved)."""
        found = self.evaluators.get(tuple(tuple(s) for s in shapes))
        if found is None:
            have = "; ".join(", ".join(str(s) for s in k) for k in self.evaluators)
            raise ShapeError(f"this saved evaluator was compiled for input shapes {have}, "
                             f"not {', '.join(str(tuple(s)) for s in shapes)}; call the "
                             "evaluator at these sizes before saving it, or compile again")
        return found

    # as an Evaluator's: each size is built at its first call, before it answers
    # (nothing runs in the background), so the evaluator is always ready
    ready = True

    def wait(self, timeout: float | None = None) -> "Any":
        """Return self (as ``Evaluator.wait``): there is nothing to wait for."""
        return self

    def __call__(self, *args: Any) -> Any:
        self._check_count(args, "the compiled function")
        f = self.evaluator([np.shape(a) for a in args])
        return self._build_tree(self._tree, iter(f(*args)))

    def batched(self, *values: Any, parallel: bool = False, out: Any = None) -> Any:
        self._check_count(values, "batched")
        ranks = [len(next(iter(self.evaluators))[k]) for k in range(len(values))]
        f = self.evaluator([np.shape(v)[np.ndim(v) - r:] if r else () for v, r in
                            zip(values, ranks)])
        return self._build_tree(self._tree, iter(f.batched(*values, parallel=parallel, out=out)))

    def _check_count(self, values, what):
        check_count(values, self.input_names, what)

    def save(self, path: Any) -> None:
        """Write it again (``sg.load`` gives the same sizes back)."""
        from .saved import write
        write(path, self._spec())
        for f in self.evaluators.values():
            f._prebuild()

    def _spec(self) -> dict:
        from .saved import encode_tree
        return {"kind": "sizes", "tree": encode_tree(self._tree), "names": self.input_names,
                "evaluators": [(k, f._spec()) for k, f in self.evaluators.items()]}

    def __repr__(self):
        return (f"<symgrad.SavedSizes inputs=({', '.join(self.input_names)}) "
                f"sizes={len(self.evaluators)}>")
