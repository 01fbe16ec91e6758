"""Compiled evaluators: :class:`Evaluator` (one module of machine code),
:class:`PendingEvaluator` (answered by numpy until its machine code is built) and
:class:`ControlEvaluator` (kernels joined by drivers), and ``from_spec`` restoring
any of them from what ``save``/pickling wrote.  ``sg.compile`` (``compiler``) makes
them.

``batched`` comes from ``batch_calls.BatchCalls``.  Imports numpy, errors, graph,
batch_calls and the light parts of lower (cache, entry, module, batches): unpickling
or loading an evaluator never imports SymPy.

>>> Evaluator.ready, PendingEvaluator.__mro__[1].__name__
(True, 'Pending')
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import gcfreeze
from .batch_calls import BatchCalls, build_tree, rebuilder
from .chunked import is_dask
from .errors import ArgumentError, ShapeError
from .graph import is_static
from .lower import background
from .lower import cache as lower_cache
from .lower import batch_args, batches
from .lower.arguments import call_checked, check_count, coerce
from .lower.entry import checked_jit
from .lower.fastcall import entry_dispatcher, with_call
from .lower.module import extra_dims
from .lower.structure import native


class Evaluator(BatchCalls):
    """A compiled graph: call it, batch it, use ``jit`` from Numba, pickle it."""

    ready = True   # the machine code is in (see PendingEvaluator)

    def __init__(self, text: str, tree: tuple, names: list[str], source: Any,
                 directory: str | None = None) -> None:
        # ``source``: the text, the Program to render on first access, or None (parse
        # the module's).  ``directory``: where the module lives (None: the cache).
        self._text, self._tree, self.input_names, self._source = text, tree, names, source
        self._directory = directory  # None: the cache; else cache=False (private)
        if directory is not None:  # also when unpickled in another process
            directory = lower_cache.private_dir()
        self._rebuild = rebuilder(tree)
        self._bind(lower_cache.load_module(text, directory))

    def _bind(self, module: Any) -> None:
        """Take ``module``'s machine code: kernel, ``jit``, gufuncs and the call path.

        When the module builds the outputs' structure itself (``TREE``), ``self(...)``
        becomes a Numba dispatcher over the kernel (``lower.fastcall``): no Python code
        runs for arguments that fit the kernel; others take ``_call_checked``.
        """
        self.module = module
        self._kernel = module.jit
        self._inputs, self._outputs = module.INPUTS, module.OUTPUTS
        self.jit = checked_jit(self._kernel, self._inputs, self.input_names, module.TREE)
        # gufuncs live with the module: evaluators unpickled again (a dask task each)
        # reuse them instead of building them anew
        self._gufuncs = module.__dict__.setdefault("_GUFUNCS", {})
        self._costs = module.__dict__.setdefault("_COSTS", {})   # seconds per point
        self._int_inputs = any(np.dtype(d).kind in "iu" for _, d, _ in self._inputs)
        self._sized = not all(is_static(s) for _, _, s in self._inputs) or \
            not all(is_static(s) for _, s, _ in self._outputs)
        self._boxed = module.TREE is not None or native(self._tree)
        if self._boxed:
            slow = functools.partial(call_checked, self._kernel, self._inputs,
                                     self.input_names)
            with_call(self, entry_dispatcher(self._kernel, len(self._inputs), slow))

    def wait(self, timeout: float | None = None) -> Evaluator:
        """Return self: the machine code is built (``PendingEvaluator.wait`` blocks)."""
        return self

    @property
    def error(self) -> BaseException | None:
        """The exception a background build raised (None: the machine code is in)."""
        return None

    @property
    def source(self) -> str:
        """Readable Python for the generated kernel (the machine code comes from LLVM IR)."""
        if not isinstance(self._source, str):
            from .lower.source import render_program
            self._source = render_program(self.program, self.input_names)
        return self._source

    @property
    def program(self) -> Any:
        """The loop IR the kernel was emitted from (``symgrad.lower.ir.Program``)."""
        if self._source is not None and not isinstance(self._source, str):
            return self._source
        return self.module.PROGRAM.program

    @property
    def op_count(self) -> int:
        """Scalar operations in the generated code (static count: a loop body counts
        once; reductions count their combine step; loads, stores and constants are free)."""
        free = ("arg", "const", "id")
        total = 0
        for st in self.program.stmts:
            total += sum(op[0] not in free for op in st.body)
            if st.reduce is not None:
                total += sum(op[0] not in free for op in st.reduce[0])
        return total

    _boxed = False   # whether the kernel returns the outputs' structure (else a tuple)

    def __call__(self, *args: Any) -> Any:
        # evaluators whose module builds the structure replace this (see ``_bind``)
        if self._int_inputs:  # Numba would turn a float nan into an int unchecked
            return self._finish(self._kernel(*self._coerce(args)))
        try:
            return self._finish(self._kernel(*args))
        except (TypeError, ValueError):  # other dtypes, layouts, lists, wrong shapes
            return self._finish(self._kernel(*self._coerce(args)))

    def _finish(self, out):
        return out if self._boxed else self._rebuild(out)

    def _check_count(self, values, what):
        check_count(values, self.input_names, what)

    def _coerce(self, args):
        return coerce(args, self._inputs, self.input_names)

    def _module_function(self, key, cached, uncached):
        """What the module builds on first use (a gufunc, the batch loop), kept under
        ``key``: ``cached()`` with Numba's cache beside the module file, or
        ``uncached(runtime)`` when the cache directory went away for good."""
        if key not in self._gufuncs:
            with gcfreeze.frozen():   # (a build: symgrad.gcfreeze)
                try:  # Numba caches beside the module file: it must still be there
                    lower_cache.ensure_file(self.module.__file__, self._text)
                    self._gufuncs[key] = cached()
                except (OSError, RuntimeError):
                    from .lower import runtime
                    self._gufuncs[key] = uncached(runtime)
        return self._gufuncs[key]

    def _gufunc(self, parallel):
        def uncached(runtime):
            core = self.module._gu_core_parallel if parallel else self.module._gu_core
            return runtime.build_gufunc(core, self._inputs, self._outputs, parallel,
                                        cache=False)
        made = self._module_function(
            parallel, self.module.gufunc_parallel if parallel else self.module.gufunc,
            uncached)
        return getattr(made, "ufunc", made)

    @property
    def gufunc(self) -> Any:
        """The numpy gufunc evaluating one point per batch element (append ``gufunc_extra``)."""
        return self._gufunc(False)

    @property
    def gufunc_parallel(self) -> Any:
        """Like ``gufunc``, compiled for Numba's ``parallel`` target (its own threads).

        ``batched`` runs its own loop (``lower.batches``), not a gufunc: rows of
        C-contiguous arrays go to the kernel in place, and threads split it.
        """
        return self._gufunc(True)

    @property
    def gufunc_extra(self) -> tuple[np.ndarray, ...]:
        """Dummy arrays to append to a direct gufunc call (output sizes no input has)."""
        return tuple(np.zeros(d) for d in extra_dims(self._inputs, self._outputs))

    def save(self, path: Any) -> None:
        """Write this evaluator to the file ``path``; ``sg.load(path)`` restores it in any
        process without SymPy or re-tracing (the file holds code: trust it like a pickle).
        The batch loop and ``batched``'s common call (``_batch``) are built now too, so
        a load on this machine compiles nothing."""
        from .lower import saved
        saved.write(path, self._spec())
        self._prebuild()

    def _prebuild(self) -> None:
        """Build what a load on this machine would otherwise compile: ``_batch`` and the
        batch loop, compiled for its argument types by a batch of no points (sizes known
        only at call time taken as 1: the types do not depend on them)."""
        try:
            _, _, _, args, outs, _ = self._batch_arguments(
                [np.zeros((0,) + tuple(d if isinstance(d, int) else 1 for d in s), dtype)
                 for _, dtype, s in self._inputs])
        except ShapeError:   # sizes that must relate otherwise: built on first use
            return
        self._loop()(batches.work(0, 0), *args, *outs)
        if self._lean is not None:
            self._batch_entry()
            if self._lean.build_into is not None:
                self._batch_into_entry()

    def _spec(self) -> dict:
        from .lower.saved import encode_tree
        # the readable source goes along: a loaded evaluator shows it without SymPy
        return {"kind": "evaluator", "module": self._text, "tree": encode_tree(self._tree),
                "names": list(self.input_names), "private": self._directory is not None,
                "source": self.source}

    def __reduce__(self):
        source = self._source if isinstance(self._source, str) else None  # re-rendered
        return (_restore, (self._text, self._tree, self.input_names, source, self._directory))

    def __repr__(self):
        return (f"<symgrad.Evaluator inputs=({', '.join(self.input_names)}) "
                f"module={self.module.__name__}>")


class PendingEvaluator(background.Pending, Evaluator):
    """An :class:`Evaluator` whose machine code is being built in the background
    (``symgrad.lower.background``): calls are answered by numpy until it becomes
    exactly the built Evaluator."""

    def batched(self, *values: Any, parallel: bool = False, out: Any = None) -> Any:
        """As :meth:`Evaluator.batched`; until the machine code is in, numpy answers
        (``lower.plan_batched``: the graph over a batch axis), serially, into ``out``
        too.  A graph an op's batching rule does not cover, and dask arrays, wait for
        the machine code."""
        tier = self.__dict__.get("_tier_batched")
        if tier is None or any(is_dask(v) for v in values):
            return self.wait().batched(*values, parallel=parallel, out=out)
        from .lower.plan_batched import NoBatchRule
        self._check_count(values, "batched")
        inputs, outputs, count, args, outs, batch = self._batch_arguments(values, out)
        try:
            tier().rows(0, count, list(zip(args[0::2], args[1::2])), outs)
        except NoBatchRule:   # not rebuilt over a batch axis: the machine code answers
            self.__dict__["_tier_batched"] = None
            return self.wait().batched(*values, parallel=parallel, out=out)
        finally:
            self._tier_go.set()
        return self._rebuild_batch(self._flat_result(outs, batch, outputs, out))


class ControlEvaluator(Evaluator):
    """A compiled graph with control flow: straight-line kernels joined by Numba drivers
    (``symgrad.lower.control``).  Calls and ``jit`` as for :class:`Evaluator`;
    ``batched`` evaluates point by point.  With static shapes it saves and pickles
    (the drivers are rebuilt from their description); with unknown sizes it refuses."""

    def __init__(self, outputs, inputs, tree, compile_segment, directory=None):
        # ``compile_segment(outputs, inputs)``: ``sg.compile`` with the caller's options;
        # ``directory``: of the drivers' modules (None: the disk cache)
        from .lower.control import Segments  # (numba: only when something is compiled)
        segments = Segments(outputs, inputs, compile_segment, directory)
        self.input_names = [x.name for x in inputs]
        self._inputs = [(x.name, x.dtype.str, x.shape) for x in inputs]
        self._int_inputs = any(x.dtype.kind in "iu" for x in inputs)
        self._outputs = [(n.dtype.str, n.shape, None) for n in outputs]
        self._tree, self._rebuild = tree, rebuilder(tree)
        self.jit = self._kernel = segments.jit(self._inputs)
        self._source = "\n\n".join(segments.sources)
        self.module = None
        self._drivers = lambda: segments.describe(lambda e: e._spec())  # for save/pickle

    @property
    def program(self):
        raise ArgumentError("a graph with control flow compiles to several kernels joined by "
                            "drivers; read f.source")

    op_count = program  # type: ignore[assignment]

    def batched(self, *values, parallel=False, out=None):
        """Evaluate at many points, one call per point (control flow has no gufunc);
        ``out`` as for :meth:`Evaluator.batched`."""
        check_count(values, self.input_names, "batched")
        arrays = [np.asarray(v, dtype=d) for v, (_, d, _) in zip(values, self._inputs)]
        batch = np.broadcast_shapes(*[a.shape[:a.ndim - len(s)] for a, (_, _, s) in
                                      zip(arrays, self._inputs)])
        full = [np.broadcast_to(a, batch + tuple(s)) for a, (_, _, s) in zip(arrays, self._inputs)]
        outs = [np.empty(batch + tuple(s), dtype=d) for d, s, _ in self._outputs] \
            if out is None else batch_args.checked_out(out, self._outputs, batch, zip(
                self.input_names, arrays))
        for idx in np.ndindex(batch):
            for o, v in zip(outs, self.jit(*self._coerce([a[idx] for a in full]))):
                o[idx] = v
        return self._rebuild_batch(tuple(outs))

    def __reduce__(self):
        return (from_spec, (self._spec(),))

    def _prebuild(self) -> None:
        """The drivers' modules, built into the disk cache now (``save``), so that loading
        on this machine compiles nothing."""
        from_spec(self._spec())

    def _spec(self):
        from .lower.saved import encode_tree
        if not all(is_static(s) for _, _, s in self._inputs) or \
                not all(is_static(s) for _, s, _ in self._outputs):
            raise ArgumentError("save: a graph with control flow and unknown sizes does not "
                                "save (or pickle); compile it again in the other process")
        return {"kind": "control", "tree": encode_tree(self._tree), "names": self.input_names,
                "inputs": [(n, d, tuple(s)) for n, d, s in self._inputs],
                "outputs": [(d, tuple(s)) for d, s, _ in self._outputs],
                "run": self._drivers()}

    @classmethod
    def _restored(cls, spec):
        """The evaluator ``_spec`` described: kernels and drivers from their modules."""
        from .lower.control import driver_lines, rebuild
        from .lower.saved import decode_tree
        self = cls.__new__(cls)
        self.input_names, self._inputs = list(spec["names"]), [tuple(i) for i in spec["inputs"]]
        self._int_inputs = any(np.dtype(d).kind in "iu" for _, d, _ in self._inputs)
        self._outputs = [(d, tuple(s), None) for d, s in spec["outputs"]]
        self._tree = decode_tree(spec["tree"])
        self._rebuild, self.module = rebuilder(self._tree), None
        self.jit = self._kernel = rebuild(spec["run"], lambda s: from_spec(s)._kernel, "run",
                                          self._inputs)
        self._source = "\n\n".join(["# loaded: the drivers (kernels: their modules)"] +
                                    driver_lines(spec["run"]))
        self._drivers = lambda: spec["run"]
        return self

    def __repr__(self):
        return f"<symgrad.ControlEvaluator inputs=({', '.join(self.input_names)})>"


def from_spec(spec: dict) -> Evaluator:
    """The evaluator ``_spec`` described (``sg.load``, unpickling)."""
    from .lower.saved import decode_tree
    if spec["kind"] == "control":
        return ControlEvaluator._restored(spec)
    if spec["kind"] == "sizes":
        from .lower.sizes import SavedSizes
        return SavedSizes([(tuple(tuple(s) for s in shapes), from_spec(sub))
                           for shapes, sub in spec["evaluators"]],
                          decode_tree(spec["tree"]), list(spec["names"]), build_tree)
    if spec["kind"] != "evaluator":
        raise ValueError(f"unknown kind {spec['kind']!r}")
    directory = lower_cache.private_dir() if spec["private"] else None
    source = spec.get("source")   # files saved before the source went along: rendered
    return Evaluator(spec["module"], decode_tree(spec["tree"]), list(spec["names"]),
                     source if isinstance(source, str) else None, directory)


def _restore(text, tree, names, source, directory):
    return Evaluator(text, tree, names, source, directory)
