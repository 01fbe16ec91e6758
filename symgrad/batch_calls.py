"""``f.batched`` of a compiled evaluator, and the structure of an evaluator's outputs.

:class:`BatchCalls` is mixed into ``evaluator.Evaluator``: the common call
(``lower.lean_batch``, the module's ``_batch``), the general path's checks and
conversions (``lower.batches``), the threads' batch loop, dask arrays
(``chunked``).  ``rebuilder`` and ``batch_rebuilder`` make the fast functions that
turn the kernel's flat tuple into the outputs' structure (sparse results wrapped).

Imports numpy, errors, graph, values, sparse_batch, chunked and the light parts of
lower (batches, lean_batch, arguments): never SymPy.

>>> build_tree(("dict", ["f", "g"], ("tuple", [("leaf",), ("leaf",)])), iter([1.0, 2.0]))
{'f': 1.0, 'g': 2.0}
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .chunked import batched_dask, is_dask
from .errors import ArgumentError, FeedError, ShapeError
from .graph import Dim, concrete_shape
from .lower import batch_args, batches
from .lower.arguments import SizesDisagree, real_array
from .lower.lean_batch import Lean
from .sparse_batch import SparseBatch
from .values import bind_dims, cast_value, fits


def rebuilder(tree):
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
        return build_tree(tree, it)
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


def batch_rebuilder(tree):
    """As :func:`rebuilder` for the outputs of ``batched``: a sparse result becomes a
    :class:`~symgrad.sparse_batch.SparseBatch` of its values ``batch + (nnz,)``."""
    if "wrap" not in _kinds(tree):
        return rebuilder(tree)
    return lambda out: build_tree(tree, iter(out), batch=True)


def _kinds(tree):
    kinds = {tree[0]}
    if tree[0] in ("list", "tuple"):
        for t in tree[1]:
            kinds |= _kinds(t)
    elif tree[0] == "dict":
        kinds |= _kinds(tree[2])
    return kinds


def build_tree(tree, it, batch=False):
    """The outputs' structure ``tree`` filled from the iterator ``it`` of flat outputs."""
    kind = tree[0]
    if kind == "leaf":
        return next(it)
    if kind == "none":
        return None
    if kind == "wrap":
        return SparseBatch(tree[1], next(it)) if batch else tree[1].wrap(next(it))
    if kind == "dict":
        return dict(zip(tree[1], build_tree(tree[2], it, batch)))
    items = [build_tree(t, it, batch) for t in tree[1]]
    return items if kind == "list" else tuple(items)


class BatchCalls:
    """``batched`` and what it needs, for :class:`~symgrad.evaluator.Evaluator`."""

    @functools.cached_property
    def _rebuild_batch(self):
        """The structure of ``batched``'s outputs (sparse results as ``SparseBatch``)."""
        return batch_rebuilder(self._tree)

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
        if lean is None:
            common = False
        elif lean.one is not None and len(values) == 1:   # one input: tested inline (a
            # loop over zip cost ~0.2 us, a sixth of 100 Rosenbrock points)
            v, (dtype, ndim) = values[0], lean.one
            # (flags.carray: C-contiguous, aligned and writeable, in one attribute)
            common = type(v) is np.ndarray and v.dtype is dtype and v.ndim == ndim and \
                v.flags.carray
        else:
            common = len(values) == len(lean.want) and _common_form(values, lean.want)
        if common:
            if out is None:
                outs = lean.serial(values, len(values[0]), parallel)
                if outs is not None:
                    return self._rebuild_batch(outs)
            elif lean.build_into is not None:
                arrays = (out,) if type(out) is np.ndarray else out
                if _common_out(arrays, lean.outputs) and lean.serial(
                        values + tuple(arrays), len(values[0]), parallel,
                        into=True) is not None:
                    return self._rebuild_batch(tuple(arrays))
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
        into = self._batch_into_entry if hasattr(self.module, "batch_into_entry") else None
        return Lean(self._inputs, self._batch_entry, lambda: self._static_cost, NotBatched,
                    len(self._outputs), into)

    @functools.cached_property
    def _fast_path(self):
        """``batch_args.FastPath`` of the static shapes (None: sizes read per call)."""
        return None if self._sized else batch_args.FastPath(self._inputs, self._outputs)

    def _batch_arguments(self, values, out=None):
        """``(inputs, outputs, count, args, outs, batch)``: the checked values of a batch
        as the batch loop takes them (``batch_args.prepare``, writing into ``out`` if
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
        return (inputs, outputs) + batch_args.prepare(arrays, inputs, outputs, out)

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
        """The module's ``_batch`` (compiled on first use, cached; ``Lean`` keeps it,
        so this is asked once per evaluator, not per batch)."""
        return self._module_function(
            "batch", self.module.batch_entry,
            lambda runtime: runtime.build_batch(self.module._batch, self._inputs, cache=False))

    def _batch_into_entry(self):
        """The module's ``_batch_into`` (``out=``'s common call; compiled on first use)."""
        return self._module_function(
            "batch_into", self.module.batch_into_entry,
            lambda runtime: runtime.build_batch_into(self.module._batch_into, self._inputs,
                                                     self._outputs, cache=False))


def _common_form(values, want):
    """Whether ``values`` are in the form ``_batch`` takes (``Lean.want``: per input
    the dtype and number of axes, C-contiguous and writeable)."""
    for v, (dtype, ndim) in zip(values, want):
        if type(v) is not np.ndarray or v.dtype is not dtype or v.ndim != ndim or \
                not v.flags.carray:
            return False
    return True


def _common_out(arrays, count):
    """Whether ``out=`` (a tuple or list) holds one numpy array per output: then
    ``_batch_into`` is asked, whose signature refuses other dtypes, numbers of axes,
    layouts and read-only arrays (Numba's TypeError: the general path then says what
    is wrong) and whose code checks shapes and overlaps.  Asking costs ~20 µs only
    when it refuses, which no correct call meets."""
    if type(arrays) not in (tuple, list) or len(arrays) != count:
        return False
    for o in arrays:
        if type(o) is not np.ndarray:
            return False
    return True


class _Shaped:
    """Something with a shape (to read sizes without arrays)."""

    def __init__(self, shape):
        self.shape, self.name = tuple(shape), "input"


def _named(size, value):
    return (size.text if isinstance(size, Dim) else "", value)
