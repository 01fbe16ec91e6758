"""TF1's ``tf.data.Dataset`` over values in memory.

A dataset here is a Python pipeline: its elements are nested tuples and dicts of
numpy values, made one at a time when an iterator (``compat.iterators``) asks for
the next.  As in ``tf.data``, a list is one tensor, not a structure
(``from_tensor_slices([1.0, 2.0])`` has two scalar elements), and Python numbers
take TF's dtypes (float32, int32) while numpy arrays keep theirs.

Tensors a dataset is made from (``from_tensor_slices(x)`` with ``x`` a placeholder,
fed when the iterator's initializer runs) are its *captured* tensors: the session
reads them once per initialization.  The functions of ``map``, ``filter`` and
``flat_map`` are traced once, as TF traces them, on placeholders of one element,
in the dataset's graph (under a name scope), and evaluated element by element by the
reference evaluator; a random op inside one draws anew for every element.  Shuffles
follow TF's algorithm (a buffer of ``buffer_size`` elements, a random one taken and
replaced by the next); their order is reproducible with ``seed=`` or
``tf.set_random_seed``, not equal to TF's, whose random stream differs.

The transformations live in mixins: ``dataset_batches`` (batch, padded_batch, unbatch,
window), ``dataset_order`` (shuffle, repeat, take, skip, shard, cache); the traced
functions in ``dataset_functions``.

Sits in ``compat``; imports the tracing layer, ``compat.elements``, ``compat.iterators``
and those three modules.

>>> import numpy as np
>>> ds = Dataset.from_tensor_slices((np.arange(5.0), np.arange(5))).batch(2)
>>> [s.as_list() for s in ds.output_shapes]
[[None], [None]]
>>> [tuple(a.tolist() for a in e) for e in ds.elements()]
[([0.0, 1.0], [0, 1]), ([2.0, 3.0], [2, 3]), ([4.0], [4])]
"""
from __future__ import annotations

import itertools
import os

import numpy as np

from .. import tracing as _t
from ..dims import is_static
from ..graph import Node
from . import errors
from . import initializers as _init
from .dataset_batches import Batching, Count, nodes_of
from .dataset_functions import Traced
from .dataset_order import Ordering
from .elements import Run, Spec, Specified, declared_spec, fits_declared, spec_of
from .iterators import Iterator
from .nest import flatten, flatten_up_to, map_structure, pack
from .variables import tf_dtype

AUTOTUNE = -1
_KEYS = itertools.count(1)
_END = object()


class Dataset(Batching, Ordering, Specified):
    """``tf.data.Dataset``: make one with ``from_tensor_slices``, ``from_tensors``,
    ``range``, ``zip`` or ``from_generator``; transform with ``map``, ``filter``,
    ``batch``, ``shuffle``, ``repeat`` ... ; read through an iterator."""

    def __init__(self, spec, parents=(), captured=(), elements=None):
        self._spec, self._parents, self._own = spec, tuple(parents), list(captured)
        self._make = elements
        self.key = next(_KEYS)

    @property
    def spec(self):
        return self._spec

    def _derived(self, spec, captured=(), elements=None):
        """A dataset made from this one (a transformation's result)."""
        return Dataset(spec, [self], captured, elements)

    def captured(self):
        """The graph tensors the elements are made from, this dataset's and its inputs'."""
        found = [c for p in self._parents for c in p.captured()] + self._own
        return list(dict.fromkeys(found))

    def elements(self, run=None):
        """The elements, one pass (a ``Run`` gives the captured tensors' values; without
        one there must be none, and shuffles draw from the graph-level stream)."""
        if run is None:
            if self.captured():
                raise ValueError("this dataset is made from tensors: read it through an "
                                 "iterator in a session")
            run = Run({}, _init.rng().integers(1 << 62))
        return self._make(run)

    def make_one_shot_iterator(self):
        return Iterator.one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        return Iterator.initializable(self)

    def __iter__(self):
        raise TypeError("a tf.data.Dataset is iterated through an iterator in graph mode "
                        "(TF1): it = dataset.make_one_shot_iterator(); x = it.get_next(); "
                        "then sess.run(x) until tf.errors.OutOfRangeError")

    # -- sources
    @staticmethod
    def from_tensor_slices(tensors):
        """Elements are the slices of ``tensors`` along their first axis."""
        structure = _leaves_of(tensors, "from_tensor_slices")
        leaves = flatten(structure)
        specs = []
        for leaf in leaves:
            spec = spec_of(leaf)
            if spec.shape is not None and not spec.shape:
                raise ValueError("from_tensor_slices: every component needs at least one "
                                 "axis to slice, got a scalar")
            specs.append(Spec(spec.dtype, None if spec.shape is None else spec.shape[1:]))
        firsts = {s for s in (_first_size(v) for v in leaves) if s is not None}
        if len(firsts) > 1:
            raise ValueError(f"from_tensor_slices: the components have different first "
                             f"sizes {sorted(firsts)}; they must all have the same")

        def elements(run):
            arrays = [run.values[v] if isinstance(v, Node) else v for v in leaves]
            sizes = {len(a) for a in arrays}
            if len(sizes) > 1:
                raise errors.InvalidArgumentError(
                    None, None, f"from_tensor_slices: the components' first sizes differ at "
                    f"run time: {sorted(sizes)}")
            for i in range(sizes.pop()):
                yield pack(structure, [a[i] for a in arrays])
        return Dataset(pack(structure, specs), captured=nodes_of(leaves), elements=elements)

    @staticmethod
    def from_tensors(tensors):
        """One element: ``tensors`` whole."""
        structure = _leaves_of(tensors, "from_tensors")
        leaves = flatten(structure)

        def elements(run):
            yield pack(structure, [run.values[v] if isinstance(v, Node) else v
                                   for v in leaves])
        return Dataset(pack(structure, [spec_of(v) for v in leaves]),
                       captured=nodes_of(leaves), elements=elements)

    @staticmethod
    def range(*args, output_type=np.int64):
        """``range(stop)``, ``range(start, stop[, step])`` as Python's, of int64."""
        bounds = [Count(a, "range") for a in args]
        dtype = np.dtype(output_type)

        def elements(run):
            return (dtype.type(i) for i in range(*(b(run) for b in bounds)))
        return Dataset(Spec(dtype, ()), captured=[c for b in bounds for c in b.captured],
                       elements=elements)

    @staticmethod
    def zip(datasets):
        """Elements are structures (like ``datasets``) of the datasets' elements, until
        the shortest ends."""
        parts = flatten(datasets)
        if not parts or not all(isinstance(d, Dataset) for d in parts):
            raise TypeError("Dataset.zip takes a tuple (or dict) of datasets")

        def elements(run):
            for items in zip(*(d.elements(run) for d in parts)):
                yield pack(datasets, items)
        return Dataset(pack(datasets, [d.spec for d in parts]), parts, elements=elements)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """Elements are what ``generator(*args)`` yields, anew at each pass, converted to
        ``output_types`` and checked against ``output_shapes``."""
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be callable (a function "
                            "returning a fresh generator), got "
                            f"{type(generator).__name__}")
        declared = declared_spec(output_types, output_shapes)
        specs = flatten(declared)

        def elements(run):
            for item in generator(*(args or ())):
                try:
                    values = flatten_up_to(output_types, item)
                except (ValueError, TypeError, KeyError):
                    raise errors.InvalidArgumentError(
                        None, None, f"`generator` yielded {item!r}, which does not have the "
                        f"structure of output_types {output_types!r}") from None
                yield pack(output_types, [_conform(v, s) for v, s in zip(values, specs)])
        return Dataset(declared, elements=elements)

    # -- transformations
    def map(self, map_func, num_parallel_calls=None):
        """Elements ``map_func(*element)`` (``map_func(element)`` for a non-tuple one)."""
        fn = Traced(map_func, self._spec, "map", self)
        spec = map_structure(spec_of, fn.outputs)

        def elements(run):
            for e in self.elements(run):
                yield fn(run, e)
        return Dataset(spec, [self], fn.captured, elements)

    def filter(self, predicate):
        """The elements for which ``predicate`` is true (a scalar bool)."""
        fn = Traced(predicate, self._spec, "filter", self)
        out = flatten(fn.outputs)
        if len(out) != 1 or out[0].dtype != np.bool_ or out[0].shape != ():
            raise ValueError("filter: `predicate` must return a scalar boolean tensor")

        def elements(run):
            return (e for e in self.elements(run) if bool(fn(run, e)))
        return Dataset(self._spec, [self], fn.captured, elements)

    def flat_map(self, map_func):
        """The elements of the datasets ``map_func`` makes of each element, in turn."""
        fn = Traced(map_func, self._spec, "flat_map", self, datasets=True)
        inner = fn.outputs

        def elements(run):
            for e in self.elements(run):
                yield from fn.dataset_elements(run, e)
        return Dataset(inner.spec, [self], fn.captured, elements)

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """The datasets ``map_func`` makes of ``cycle_length`` elements at a time, read
        ``block_length`` values from each in turn (TF's order; AUTOTUNE: one per CPU)."""
        fn = Traced(map_func, self._spec, "interleave", self, datasets=True)
        inner = fn.outputs
        cycle = (os.cpu_count() or 1) if cycle_length in (None, AUTOTUNE) else \
            int(cycle_length)
        block = int(block_length)

        def elements(run):
            source, open_, at, taken, ended = iter(self.elements(run)), [None] * cycle, 0, 0, False
            while not ended or any(o is not None for o in open_):
                if open_[at] is not None:
                    value = next(open_[at], _END)
                    if value is not _END:
                        yield value
                        taken += 1
                        if taken < block:
                            continue
                    else:
                        open_[at] = None
                    at, taken = (at + 1) % cycle, 0
                elif not ended:
                    e = next(source, _END)
                    if e is _END:
                        ended = True
                    else:
                        open_[at] = iter(fn.dataset_elements(run, e))
                else:
                    at, taken = (at + 1) % cycle, 0
        return Dataset(inner.spec, [self], fn.captured, elements)

    def concatenate(self, dataset):
        """This dataset's elements, then ``dataset``'s (same structure and dtypes)."""
        mine, theirs = flatten(self._spec), flatten(dataset.spec)
        if len(mine) != len(theirs) or any(a.dtype != b.dtype for a, b in zip(mine, theirs)):
            raise TypeError("concatenate: the datasets' elements must have the same "
                            f"structure and dtypes: {self.output_types} and "
                            f"{dataset.output_types}")
        spec = pack(self._spec, [Spec(a.dtype, _common_shape(a.shape, b.shape))
                                 for a, b in zip(mine, theirs)])
        return Dataset(spec, [self, dataset], elements=lambda run: itertools.chain(
            self.elements(run), dataset.elements(run)))

    def enumerate(self, start=0):
        """Elements ``(i, element)`` with an int64 counter from ``start``."""
        return Dataset((Spec(np.int64, ()), self._spec), [self], elements=lambda run: (
            (np.int64(i), e) for i, e in enumerate(self.elements(run), int(start))))

    def prefetch(self, buffer_size):
        """The same elements (prefetching is about speed, which this pipeline has not)."""
        return self

    def apply(self, transformation_func):
        """``transformation_func(self)``."""
        return transformation_func(self)

    def with_options(self, options):
        return self

    def __repr__(self):
        return f"<Dataset shapes: {self.output_shapes}, types: {self.output_types}>"


def _leaves_of(tensors, what):
    """``tensors`` with lists made arrays (one tensor each, as tf.data takes them) and
    numbers arrays of TF's dtypes; tensors stay."""
    def leaf(v):
        if isinstance(v, Node):
            if v.shape is None:
                raise ValueError(f"{what}: a tensor of unknown rank cannot be sliced; give "
                                 "the placeholder a shape")
            return v
        if isinstance(v, list) and any(isinstance(x, Node) for x in flatten(v)):
            return _t.stack(v)
        value = np.array(v, dtype=tf_dtype(v, None))
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{what}: {value.dtype} values are not supported (numbers "
                            "only); encode strings as integer ids with numpy first")
        return value

    if isinstance(tensors, list):
        return leaf(tensors)
    return _map_tuples(leaf, tensors)


def _map_tuples(fn, structure):
    """``map_structure`` where lists are leaves."""
    if isinstance(structure, dict):
        return {k: _map_tuples(fn, v) for k, v in structure.items()}
    if isinstance(structure, tuple):
        items = [_map_tuples(fn, v) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    return fn(structure)


def _first_size(v):
    shape = v.shape
    if shape is None or not shape or not is_static(shape[:1]):
        return None
    return int(shape[0])


def _conform(value, spec):
    value = np.asarray(value, dtype=spec.dtype)
    if not fits_declared(value.shape, spec.shape):
        raise errors.InvalidArgumentError(
            None, None, f"`generator` yielded an element of shape {list(value.shape)} where "
            f"an element of shape {list(spec.shape)} was expected")
    return value


def _common_shape(a, b):
    if a is None or b is None or len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))
