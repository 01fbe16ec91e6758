"""Compiled evaluators built once per combination of sizes: the fallback for graphs
with unknown sizes (or ranks) that the size-generic lowering does not cover.

Each call reads the sizes from its arguments and uses (or builds, with the
compiler's ``build``) the evaluator of the graph specialised to them
(``evaluate.specialize``; tensors of unknown rank are made first,
``ops.deferred.resolve``).

Imports errors, graph, evaluate, ops and ``lower.arguments`` (and the evaluators, when it
pickles).

>>> PerSize.__name__
'PerSize'
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentError, ShapeError
from ..evaluate import bind_dims, fits, needed, specialize
from ..graph import shape_text
from .arguments import check_count
from ..ops.deferred import resolve


class PerSize:
    """A graph with unknown sizes compiled once per combination of sizes met.

    The fallback for graphs the size-generic lowering does not cover: each call
    reads the sizes from its arguments and uses (or builds) the evaluator of the
    graph specialised to them.
    """

    def __init__(self, nodes, tree, inputs, build, build_tree):
        # build(list of nodes, inputs) -> evaluator returning a list of values;
        # build_tree(tree, iterator of values) -> the outputs in the structure given
        self._nodes, self._tree, self._inputs, self._build = nodes, tree, inputs, build
        self._build_tree = build_tree
        self.input_names = [x.name for x in inputs]
        self.evaluators = {}

    def evaluator(self, arrays):
        """The compiled evaluator for the sizes of ``arrays`` (one per input)."""
        for k, (x, a) in enumerate(zip(self._inputs, arrays)):
            if not fits(np.shape(a), x.shape):
                raise ShapeError(f"input {k} ({x.name!r}) must have shape "
                                 f"{shape_text(x.shape)}, got {np.shape(a)}")
        bindings = bind_dims(dict(zip(self._inputs, arrays)))
        key = tuple(sorted((str(s), int(v)) for s, v in bindings.items())) + tuple(
            np.shape(a) for x, a in zip(self._inputs, arrays) if x.shape is None)
        if key not in self.evaluators:
            nodes, inputs = self._nodes, self._inputs
            ranks = resolve(needed(nodes, set(inputs)), dict(zip(inputs, arrays)))
            if ranks:  # tensors of unknown rank, made at these shapes (ops.deferred)
                nodes = [ranks.get(n, n) for n in nodes]
                inputs = [ranks.get(x, x) for x in inputs]
            mapping = specialize(nodes + inputs, bindings)
            self.evaluators[key] = self._build([mapping[n] for n in nodes],
                                               [mapping[x] for x in inputs])
        return self.evaluators[key]

    # as an Evaluator's: each size is built at its first call, before it answers
    # (nothing runs in the background), so the evaluator is always ready
    ready = True

    def wait(self, timeout: float | None = None) -> "Any":
        """Return self (as ``Evaluator.wait``): there is nothing to wait for."""
        return self

    def __call__(self, *args):
        check_count(args, self.input_names, "the compiled function")
        return self._build_tree(self._tree, iter(self.evaluator(args)(*args)))

    def batched(self, *values, parallel=False, out=None):
        cores = [np.shape(v)[np.ndim(v) - x.ndim:] for v, x in zip(values, self._inputs)]
        f = self.evaluator([np.empty(c) for c in cores])
        return self._build_tree(self._tree, iter(f.batched(*values, parallel=parallel, out=out)))

    def save(self, path):
        """Write the evaluators compiled so far (one per combination of sizes) to ``path``;
        ``sg.load(path)`` answers those sizes in any process (no SymPy, no re-tracing)."""
        from .saved import write
        write(path, self._spec())
        for f in self.evaluators.values():
            f._prebuild()

    def __reduce__(self):
        # pickles (dask) as it saves: the evaluators of the sizes compiled so far, light
        # (``lower.sizes.SavedSizes``: no graph, no SymPy in the process that unpickles)
        from ..evaluator import from_spec
        return (from_spec, (self._spec(),))

    def _spec(self):
        from .saved import encode_tree
        if not self.evaluators:
            raise ArgumentError("save: nothing is compiled yet (a graph with unknown sizes "
                                "compiles once per combination of sizes): call it at the "
                                "sizes you need, then save")
        return {"kind": "sizes", "tree": encode_tree(self._tree), "names": self.input_names,
                "evaluators": [(tuple(tuple(int(d) for d in s) for _, _, s in f._inputs),
                                f._spec()) for f in self.evaluators.values()]}

    def __repr__(self):
        return (f"<symgrad.PerSize inputs=({', '.join(self.input_names)}) "
                f"sizes compiled={len(self.evaluators)}>")
