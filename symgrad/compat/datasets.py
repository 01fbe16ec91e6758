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

Sits in ``compat``; imports the tracing layer, ``evaluate``, ``compat.elements`` and
``compat.iterators``.

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
from ..evaluate import needed
from ..evaluate import run as run_nodes
from ..graph import Node
from ..ops.deferred import resolve
from ..ops.draws import run_number
from . import errors
from . import initializers as _init
from .elements import (Run, Spec, Specified, declared_spec, fits_declared, placeholder_for,
                       shape_leaves, spec_of)
from .iterators import Iterator
from .nest import flatten, flatten_up_to, map_structure, pack
from .tensor import as_tf1
from .variables import tf_dtype

AUTOTUNE = -1
_KEYS = itertools.count(1)
_END = object()


class Dataset(Specified):
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
        return Dataset(pack(structure, specs), captured=_nodes(leaves), elements=elements)

    @staticmethod
    def from_tensors(tensors):
        """One element: ``tensors`` whole."""
        structure = _leaves_of(tensors, "from_tensors")
        leaves = flatten(structure)

        def elements(run):
            yield pack(structure, [run.values[v] if isinstance(v, Node) else v
                                   for v in leaves])
        return Dataset(pack(structure, [spec_of(v) for v in leaves]),
                       captured=_nodes(leaves), elements=elements)

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

    def batch(self, batch_size, drop_remainder=False):
        """Elements of ``batch_size`` consecutive elements stacked (the last one smaller
        unless ``drop_remainder``)."""
        n = Count(batch_size, "batch_size", positive=True)
        first = n.static if drop_remainder else None
        spec = map_structure(lambda s: Spec(s.dtype, None if s.shape is None else
                                            (first,) + s.shape), self._spec)

        def elements(run):
            for group in _groups(self.elements(run), n(run), drop_remainder):
                yield pack(self._spec, [_stack(col, i) for i, col in
                                        enumerate(zip(*map(flatten, group)))])
        return Dataset(spec, [self], n.captured, elements)

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False):
        """``batch`` of elements padded to ``padded_shapes`` (a None size: the longest
        in the batch) with ``padding_values`` (zeros)."""
        n = Count(batch_size, "batch_size", positive=True)
        specs = flatten(self._spec)
        shapes = [s.shape for s in specs] if padded_shapes is None else shape_leaves(
            self._spec, padded_shapes)
        pads = [0] * len(specs) if padding_values is None else flatten(padding_values)
        if len(pads) == 1 and len(specs) > 1:
            pads = pads * len(specs)
        out = [Spec(s.dtype, (n.static if drop_remainder else None,) + tuple(
            None if d is None or d == -1 else int(d) for d in shape))
            for s, shape in zip(specs, shapes)]

        def elements(run):
            for group in _groups(self.elements(run), n(run), drop_remainder):
                cols = zip(*map(flatten, group))
                yield pack(self._spec, [_padded(col, shape, run.values.get(pad, pad)
                                                if isinstance(pad, Node) else pad, spec.dtype)
                                        for col, shape, pad, spec in zip(cols, shapes, pads,
                                                                         specs)])
        return Dataset(pack(self._spec, out), [self], n.captured + _nodes(pads), elements)

    def unbatch(self):
        """The rows of each element, one element each."""
        spec = map_structure(lambda s: Spec(s.dtype, None if s.shape is None else
                                            s.shape[1:]), self._spec)

        def elements(run):
            for e in self.elements(run):
                cols = flatten(e)
                for i in range(len(cols[0])):
                    yield pack(self._spec, [c[i] for c in cols])
        return Dataset(spec, [self], elements=elements)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """Elements are windows: of each component a dataset of ``size`` values, taken
        every ``stride`` elements; a window starts every ``shift`` (``size``) elements;
        the last ones are shorter unless ``drop_remainder``.  Read them with
        ``flat_map`` (``lambda w: w.batch(size)``) or ``interleave``."""
        size = Count(size, "size", positive=True).static
        shift = size if shift is None else Count(shift, "shift", positive=True).static
        stride = Count(stride, "stride", positive=True).static
        span = (size - 1) * stride

        def elements(run):
            source, held, start, ended = iter(self.elements(run)), [], 0, False
            for first in itertools.count(0, shift):
                while not ended and start + len(held) <= first + span:
                    try:
                        held.append(next(source))
                    except StopIteration:
                        ended = True
                if start + len(held) <= first:
                    return
                picks = held[first - start:first - start + span + 1:stride]
                if len(picks) < size and drop_remainder:
                    return
                yield pack(self._spec, [_Rows(col) for col in zip(*map(flatten, picks))])
                drop = first + shift - start
                del held[:drop]
                start += drop
        return Dataset(map_structure(WindowSpec, self._spec), [self], elements=elements)

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

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """The elements in random order, drawn from a buffer of ``buffer_size`` (TF's
        algorithm); a new order at each pass unless ``reshuffle_each_iteration=False``."""
        size = Count(buffer_size, "buffer_size", positive=True)

        def elements(run):
            rng, size_now = run.rng(dataset, seed, reshuffle_each_iteration), size(run)
            source, buffer = iter(self.elements(run)), []
            for e in source:
                buffer.append(e)
                if len(buffer) == size_now:
                    break
            for e in source:
                i = int(rng.integers(len(buffer)))
                yield buffer[i]
                buffer[i] = e
            while buffer:
                i = int(rng.integers(len(buffer)))
                buffer[i], buffer[-1] = buffer[-1], buffer[i]
                yield buffer.pop()
        dataset = Dataset(self._spec, [self], size.captured, elements)
        return dataset

    def repeat(self, count=None):
        """The elements ``count`` times over (forever for None or -1)."""
        count = Count(-1 if count is None else count, "count")

        def elements(run):
            times = count(run)
            for _ in itertools.count() if times < 0 else range(times):
                empty = True
                for e in self.elements(run):
                    empty = False
                    yield e
                if empty:
                    return
        return Dataset(self._spec, [self], count.captured, elements)

    def take(self, count):
        """The first ``count`` elements (all for -1)."""
        count = Count(count, "count")

        def elements(run):
            n = count(run)
            return self.elements(run) if n < 0 else itertools.islice(self.elements(run), n)
        return Dataset(self._spec, [self], count.captured, elements)

    def skip(self, count):
        """All but the first ``count`` elements (none for -1)."""
        count = Count(count, "count")

        def elements(run):
            n = count(run)
            return iter(()) if n < 0 else itertools.islice(self.elements(run), n, None)
        return Dataset(self._spec, [self], count.captured, elements)

    def shard(self, num_shards, index):
        """Every ``num_shards``-th element, starting at ``index``."""
        k, i = Count(num_shards, "num_shards", positive=True).static, int(index)
        if not 0 <= i < k:
            raise ValueError(f"shard: index {i} must be in [0, num_shards={k})")
        return Dataset(self._spec, [self], elements=lambda run: itertools.islice(
            self.elements(run), i, None, k))

    def cache(self, filename=""):
        """The first complete pass, remembered and replayed (in memory)."""
        def elements(run):
            stored = run.cached.get(dataset.key)
            if stored is not None:
                yield from stored
                return
            seen = []
            for e in self.elements(run):
                seen.append(e)
                yield e
            run.cached[dataset.key] = seen
        dataset = Dataset(self._spec, [self], elements=elements)
        return dataset

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


class Traced:
    """A function of one element, traced once on placeholders in the default graph (as
    TF traces a dataset function); called with an element, it evaluates its outputs.
    A window's component (``window``) reaches the function as a dataset."""

    def __init__(self, fn, spec, what, dataset, datasets=False):
        graph = _t.get_default_graph()
        with graph.name_scope(f"{what}_{dataset.key}"):
            self.args = [Window(s.spec) if isinstance(s, WindowSpec) else
                         placeholder_for(graph, s, f"arg{i}") for i, s in enumerate(flatten(spec))]
            given = pack(spec, [a.dataset if isinstance(a, Window) else a for a in self.args])
            out = fn(*given) if type(given) is tuple else fn(given)
        if datasets:
            if not isinstance(out, Dataset):
                raise TypeError(f"{what}: the function must return a Dataset, got "
                                f"{type(out).__name__}")
            self.outputs, inner = out, out.captured()
        else:
            self.outputs = _outputs(out, what)
            inner = flatten(self.outputs)
        self._inner, self._orders = inner, {}
        fed = set(self.args)
        self.captured = [n for n in needed(_nodes(inner), fed) if n.is_leaf and n.value is None
                         and n not in fed]
        self._deferred = any(s.shape is None for s in flatten(spec)
                             if not isinstance(s, WindowSpec)) or any(
            n.shape is None for n in needed(_nodes(inner), fed))   # (a tf.py_func's result)

    def values_for(self, run, element, outputs):
        """{node or window: value} of ``outputs`` for ``element``."""
        feeds, direct = {c: run.values[c] for c in self.captured}, {}
        for arg, v in zip(self.args, flatten(element)):
            if isinstance(arg, Window):
                direct[arg] = v.rows
            else:
                feeds[arg] = np.asarray(v)
        nodes = _nodes(outputs)
        found = {o: direct[o] if o in direct else run.values[o]
                 for o in outputs if not isinstance(o, Node)}
        with run_number(run.seed + next(run.draws)):
            if self._deferred:
                made = resolve(needed(nodes, feeds), feeds, run_nodes)
                mapped = [made.get(o, o) for o in nodes]
                values = run_nodes(mapped, {made.get(k, k): v for k, v in feeds.items()})
                return {**found, **{o: values[m] for o, m in zip(nodes, mapped)}}
            key = tuple(map(id, nodes))
            order = self._orders.get(key)
            if order is None:
                order = self._orders[key] = needed(nodes, feeds)
            return {**found, **run_nodes(nodes, feeds, order)}

    def dataset_elements(self, run, element):
        """The elements of the dataset the function makes of ``element`` (flat_map,
        interleave): its captured tensors evaluated for that element."""
        inner = self.outputs
        values = self.values_for(run, element, inner.captured())
        return inner.elements(Run({**run.values, **values}, next(run.draws)))

    def __call__(self, run, element):
        values = self.values_for(run, element, self._inner)
        return map_structure(lambda o: _export(values[o]), self.outputs)


class WindowSpec:
    """A component of ``window``'s elements: a dataset of ``spec``'s values."""

    def __init__(self, spec):
        self.spec, self.dtype, self.shape = spec, None, None


class Window:
    """A window's component inside a dataset function: ``dataset`` yields its values."""

    def __init__(self, spec):
        self.dataset = Dataset(spec, captured=[self],
                               elements=lambda run: iter(run.values[self]))


class _Rows:
    """The values of one window's component (a leaf of the element's structure)."""

    def __init__(self, rows):
        self.rows = list(rows)


def _export(value):
    value = np.asarray(value)
    return value[()] if value.ndim == 0 else value


def _outputs(out, what):
    """A function's result as a structure of tensors (lists become tuples, numbers
    tensors of TF's dtypes)."""
    if isinstance(out, list):
        out = tuple(out)
    if isinstance(out, Dataset):
        raise TypeError(f"{what}: the function returned a Dataset; use flat_map")

    def tensor(v):
        if isinstance(v, Node):
            return v
        if callable(getattr(v, "as_graph_tensor", None)):
            return v.as_graph_tensor()
        value = np.asarray(v, dtype=tf_dtype(v, None))
        if value.dtype.kind not in "biuf":
            raise TypeError(f"{what}: the function returned {v!r}; return tensors or numbers")
        return as_tf1(_t.constant(value, dtype=value.dtype))
    return map_structure(tensor, out)


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


def _nodes(leaves):
    return [v for v in leaves if isinstance(v, Node)]


def _first_size(v):
    shape = v.shape
    if shape is None or not shape or not is_static(shape[:1]):
        return None
    return int(shape[0])


class Count:
    """A transformation's count: an int, or a scalar tensor read when the iterator
    starts (``batch(batch_size_placeholder)``); ``static`` is the int or None."""

    def __init__(self, value, what, positive=False):
        self.what, self.positive = what, positive
        self.node = value if isinstance(value, Node) else None
        self.captured = [] if self.node is None else [self.node]
        self.static = None if self.node is not None else self._checked(value)

    def _checked(self, value):
        n = int(value)
        if self.positive and n <= 0:
            raise ValueError(f"{self.what} must be positive, got {n}")
        return n

    def __call__(self, run):
        if self.node is None:
            return self.static
        try:
            return self._checked(run.values[self.node])
        except ValueError as e:
            raise errors.InvalidArgumentError(None, None, str(e)) from None


def _groups(elements, n, drop_remainder):
    it = iter(elements)
    while True:
        group = list(itertools.islice(it, n))
        if not group or (drop_remainder and len(group) < n):
            return
        yield group


def _stack(column, component):
    first = np.shape(column[0])
    for k, v in enumerate(column):
        if np.shape(v) != first:
            raise errors.InvalidArgumentError(
                None, None, f"Cannot batch tensors with different shapes in component "
                f"{component}. First element had shape {list(first)} and element {k} had "
                f"shape {list(np.shape(v))}; use padded_batch to pad them")
    return np.stack(column)


def _padded(column, shape, pad, dtype):
    rank = np.ndim(column[0])
    if shape is None:
        shape = (None,) * rank
    if len(shape) != rank:
        raise ValueError(f"padded_batch: padded shape {list(shape)} has rank {len(shape)}, "
                         f"the component has rank {rank}")
    longest = np.max([np.shape(v) for v in column], axis=0) if rank else ()
    target = tuple(int(m) if d is None or d == -1 else int(d) for d, m in zip(shape, longest))
    out = np.full((len(column),) + target, pad, dtype=dtype)
    for k, v in enumerate(column):
        if any(a > b for a, b in zip(np.shape(v), target)):
            raise errors.InvalidArgumentError(
                None, None, f"padded_batch: an element of shape {list(np.shape(v))} is "
                f"larger than the padded shape {list(target)}")
        out[(k,) + tuple(slice(0, a) for a in np.shape(v))] = v
    return out


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
