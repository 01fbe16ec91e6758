"""Compiled evaluators: :class:`Evaluator` (one module of machine code),
:class:`PendingEvaluator` (answered by numpy until its machine code is built) and
:class:`ControlEvaluator` (kernels joined by drivers), and ``from_spec`` restoring
any of them from what ``save``/pickling wrote.  ``sg.compile`` (``compiler``) makes
them.

Imports numpy, errors, graph, values and the light parts of lower (cache, entry,
module, batches): unpickling or loading an evaluator never imports SymPy.

>>> Evaluator.ready, PendingEvaluator.__mro__[1].__name__
(True, 'Pending')
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import gcfreeze
from .chunked import batched_dask, is_dask
from .errors import ArgumentError, FeedError, ShapeError
from .graph import Dim, concrete_shape, is_static
from .values import bind_dims, cast_value, fits
from .lower import background
from .lower import cache as lower_cache
from .lower import batches
from .lower.lean_batch import Lean
from .lower.arguments import SizesDisagree, call_checked, check_count, coerce, real_array
from .lower.entry import checked_jit
from .lower.fastcall import entry_dispatcher, with_call
from .lower.module import extra_dims
from .lower.structure import native
from .sparse_batch import SparseBatch


def _rebuilder(tree):
    """A fast function rebuilding the output structure from the jit's tuple."""
    if tree == ("leaf",):
        return lambda out: out[0]
    if tree[0] in ("list", "tuple") and all(t == ("leaf",) for t in tree[1]):
        return list if tree[0] == "list" else (lambda out: out)
    if tree[0] == "wrap":   # a sparse result alone
        return lambda out, wrap=tree[1].wrap: wrap(out[0])
    if tree[0] in ("list", "tuple") and all(t[0] in ("leaf", "wrap") for t in tree[1]):
        return _flat_with_sparse(tree)

    def rebuild(out):
        it = iter(out)
        return _build(tree, it)
    return rebuild


def _flat_with_sparse(tree):
    """[f, g, H] with H sparse: each sparse position wraps its values, no tree walk."""
    wraps = tuple((k, t[1].wrap) for k, t in enumerate(tree[1]) if t[0] == "wrap")
    as_tuple = tree[0] == "tuple"

    def rebuild(out):
        items = list(out)
        for k, wrap in wraps:
            items[k] = wrap(items[k])
        return tuple(items) if as_tuple else items
    return rebuild


def _batch_rebuilder(tree):
    """As :func:`_rebuilder` for the outputs of ``batched``: a sparse result becomes a
    :class:`~symgrad.sparse_batch.SparseBatch` of its values ``batch + (nnz,)``."""
    if "wrap" not in _kinds(tree):
        return _rebuilder(tree)
    return lambda out: _build(tree, iter(out), batch=True)


def _kinds(tree):
    kinds = {tree[0]}
    if tree[0] in ("list", "tuple"):
        for t in tree[1]:
            kinds |= _kinds(t)
    elif tree[0] == "dict":
        kinds |= _kinds(tree[2])
    return kinds


def _build(tree, it, batch=False):
    kind = tree[0]
    if kind == "leaf":
        return next(it)
    if kind == "none":
        return None
    if kind == "wrap":
        return SparseBatch(tree[1], next(it)) if batch else tree[1].wrap(next(it))
    if kind == "dict":
        return dict(zip(tree[1], _build(tree[2], it, batch)))
    items = [_build(t, it, batch) for t in tree[1]]
    return items if kind == "list" else tuple(items)


class Evaluator:
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
        self._rebuild = _rebuilder(tree)
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

    @functools.cached_property
    def _rebuild_batch(self):
        """The structure of ``batched``'s outputs (sparse results as ``SparseBatch``)."""
        return _batch_rebuilder(self._tree)

    def _finish(self, out):
        return out if self._boxed else self._rebuild(out)

    def _check_count(self, values, what):
        check_count(values, self.input_names, what)

    def _coerce(self, args):
        return coerce(args, self._inputs, self.input_names)

    # -- batches -----------------------------------------------------------------
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

    def batched(self, *values: Any, parallel: bool = False, out: Any = None) -> Any:
        """Evaluate at many points: each value has leading batch axes (or broadcasts).

        Args:
            values: one array per input, shaped ``batch + input.shape``.
            parallel: split the batch over threads (one per core) where that pays:
                each thread runs the batch loop on chunks of the batch (it releases
                the GIL); small or cheap batches run serially, decided from the
                kernel's cost per point, measured once (``lower.batches``).
            out: arrays to write the results into (numpy's ``out=``), one per output in
                order (a lone array for one output): each of the output's dtype and of
                shape ``batch + output.shape`` (a sparse output: ``batch + (nnz,)``,
                its stored values), C-contiguous, writeable, sharing no
                memory with the inputs.  Reusing them saves allocating (and the first
                touch of) new memory on every call.
            Dask arrays give dask arrays (lazy, one batch-loop call per chunk, on any
            dask scheduler: the evaluator pickles to dask.distributed workers).
        Returns:
            the outputs in their structure, each with the batch axes in front (with
            ``out``: those arrays themselves).
        """
        lean = self._lean
        if lean is not None and out is None:
            outs = lean(values, parallel)
            if outs is not None:
                return self._rebuild_batch(outs)
        self._check_count(values, "batched")
        if any(is_dask(v) for v in values):
            return self._rebuild_batch(batched_dask(self, values, out))
        return self._rebuild_batch(self._flat_batched(values, parallel, out))

    def _flat_batched(self, values, parallel=False, out=None):
        """``batched``'s outputs as a flat tuple (a dask chunk's result too)."""
        inputs, outputs, count, args, outs, batch = self._batch_arguments(values, out)
        lean = self._lean
        if lean is not None and out is None and all(args[0::2]):   # no shared input
            flat = lean.serial(args[1::2], count, parallel)   # (converted: _batch's form)
            if flat is not None:
                return self._flat_result(flat, batch, outputs)
        loop = self._loop()
        cost = self._static_cost or self._cost_of(inputs)
        batches.run(lambda work: loop(work, *args, *outs), count, parallel, cost)
        return self._flat_result(outs, batch, outputs, out)

    def _cost_of(self, inputs):
        """The batches' ``Cost`` for these (concrete) core shapes of the inputs."""
        return batches.cost_of(self._costs, tuple(tuple(s) for _, _, s in inputs))

    @functools.cached_property
    def _static_cost(self):
        """``_cost_of`` the static core shapes, made once (None: sizes read per call)."""
        return None if self._sized else self._cost_of(self._inputs)

    @functools.cached_property
    def _lean(self):
        """``lean_batch.Lean``: the common batched call (None: sizes read per call)."""
        if self._sized or not hasattr(self.module, "batch_entry"):
            return None
        from .lower.runtime import NotBatched
        return Lean(self._inputs, self._batch_entry, lambda: self._static_cost, NotBatched)

    @functools.cached_property
    def _fast_path(self):
        """``batches.FastPath`` of the static shapes (None: sizes read per call)."""
        return None if self._sized else batches.FastPath(self._inputs, self._outputs)

    def _batch_arguments(self, values, out=None):
        """``(inputs, outputs, count, args, outs, batch)``: the checked values of a batch
        as the batch loop takes them (``batches.prepare``, writing into ``out`` if
        given), with the core shapes."""
        fast = None if self._fast_path is None else self._fast_path.prepare(values, out)
        if fast is not None:
            return (self._inputs, self._outputs) + fast
        arrays = []
        for k, (value, (_, dtype, shape), name) in enumerate(zip(values, self._inputs,
                                                                self.input_names)):
            what = f"batched: input {k} ({name!r})"
            arr = cast_value(real_array(value, what), dtype, what, ArgumentError)
            if arr.ndim < len(shape) or not fits(arr.shape[arr.ndim - len(shape):], shape):
                raise ShapeError(f"batched: input {k} ({name!r}) must end in shape "
                                 f"{tuple(shape)} after its batch axes, got {arr.shape}")
            arrays.append(arr)
        inputs, outputs = self._core([a.shape[a.ndim - len(s):] for a, (_, _, s) in
                                      zip(arrays, self._inputs)])
        return (inputs, outputs) + batches.prepare(arrays, inputs, outputs, out)

    def _core(self, shapes):
        """``(inputs, outputs)`` with the sizes the inputs' core ``shapes`` give (the
        compiled ones where no size is known only at call time).  Raises ShapeError
        where the shapes give one size two values, or sizes the graph needs equal
        differ (the checks the compiled entry makes: the batch loop does not)."""
        inputs, outputs = self._inputs, self._outputs
        if not self._sized:
            return inputs, outputs
        try:
            bindings = bind_dims({_Shaped(s): _Shaped(shape)
                                  for shape, (_, _, s) in zip(shapes, inputs)})
        except FeedError as e:
            raise ShapeError("batched: " + str(e).removeprefix("feed_dict: ")) from None
        for a, b, message in getattr(self.module, "CHECKS", ()):   # (older modules: none)
            va, vb = concrete_shape((a, b), bindings)
            if va != vb:
                raise SizesDisagree(message, *_named(a, va), *_named(b, vb))
        return ([(n, d, concrete_shape(s, bindings)) for n, d, s in inputs],
                [(d, concrete_shape(s, bindings), r) for d, s, r in outputs])

    def _flat_result(self, outs, batch, outputs, out=None):
        """The loop's flat outputs with the batch axes in front (the caller's ``out``
        arrays themselves, when given)."""
        if out is not None:
            return (out,) if isinstance(out, np.ndarray) else tuple(out)
        if len(batch) == 1:   # (count,) + core already
            return tuple(outs)
        return tuple(o.reshape(batch + tuple(s)) for o, (_, s, _) in zip(outs, outputs))

    def _loop(self):
        """The batch loop (``_loop`` of the module, compiled on first use, cached)."""
        loop = self._gufuncs.get("loop")   # (each batch asks: no closures made then)
        if loop is not None:
            return loop
        return self._module_function("loop", self.module.batch_loop,
                                     lambda runtime: runtime.build_loop(self.module._loop,
                                                                        cache=False))

    def _batch_entry(self):
        """The module's ``_batch`` (compiled on first use, cached)."""
        entry = self._gufuncs.get("batch")
        if entry is not None:
            return entry
        return self._module_function(
            "batch", self.module.batch_entry,
            lambda runtime: runtime.build_batch(self.module._batch, self._inputs, cache=False))

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
        self._tree, self._rebuild = tree, _rebuilder(tree)
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
            if out is None else batches.checked_out(out, self._outputs, batch, zip(
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
        self._rebuild, self.module = _rebuilder(self._tree), None
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
                          decode_tree(spec["tree"]), list(spec["names"]), _build)
    if spec["kind"] != "evaluator":
        raise ValueError(f"unknown kind {spec['kind']!r}")
    directory = lower_cache.private_dir() if spec["private"] else None
    source = spec.get("source")   # files saved before the source went along: rendered
    return Evaluator(spec["module"], decode_tree(spec["tree"]), list(spec["names"]),
                     source if isinstance(source, str) else None, directory)


class _Shaped:
    """Something with a shape (to read sizes without arrays)."""

    def __init__(self, shape):
        self.shape, self.name = tuple(shape), "input"


def _named(size, value):
    return (size.text if isinstance(size, Dim) else "", value)


def _restore(text, tree, names, source, directory):
    return Evaluator(text, tree, names, source, directory)
