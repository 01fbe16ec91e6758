"""TF1's dataset iterators: ``get_next()`` tensors that a session fills with the next
element, once per ``Session.run``.

``get_next()`` gives placeholders of the element's dtypes and shapes (a size that
varies, such as a batch's first, is known when values arrive), registered in the
graph's TF1 state.  When a run needs one of them and the feed_dict does not give it,
the session asks :func:`elements_for` for the iterator's next element; every tensor
of one ``get_next()`` sees the same element in a run, as in TF, and each
``get_next()`` call is its own op that advances the iterator.  Past the end,
``tf.errors.OutOfRangeError``; before an initializable iterator's initializer has
run in that session, ``tf.errors.FailedPreconditionError``.  Iterators keep their
position per session, as TF's resources do.

Kinds, as TF1's guide names them: one-shot (``make_one_shot_iterator``),
initializable (``make_initializable_iterator``, whose ``initializer`` reads the
dataset's placeholders from that run's feed_dict), reinitializable
(``Iterator.from_structure`` + ``make_initializer(dataset)``) and feedable
(``Iterator.from_string_handle`` with a ``tf.string`` placeholder fed
``sess.run(iterator.string_handle())``).

Sits in ``compat``; imports ``compat.elements`` and ``compat.state``.
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

from . import errors
from . import initializers as _init
from ..ops.base import REGISTRY
from ..tracing import get_default_graph
from ..values import fits
from .elements import Run, Specified, declared_spec, fits_declared, placeholder_for
from .nest import flatten, pack
from .state import Operation, state_of
from .tensor import as_tf1

STRING = np.dtype(object)   # tf.string: only iterator handles are strings here
_HANDLES = {}               # handle bytes -> iterator (weak values below)
_NUMBERS = itertools.count()


def string_placeholder(shape, name=None):
    """``tf.placeholder(tf.string, ...)``: only an iterator handle can be fed to it (the
    session passes its value to the iterators; no op computes on strings here)."""
    if shape is not None and tuple(shape) != ():
        raise ValueError("tf.string placeholders are iterator handles here: shape=[] only")
    graph = get_default_graph()
    return as_tf1(graph.add_node(REGISTRY["placeholder"], (), {}, (), STRING,
                                 name=name or "Placeholder"))


def split_handles(feed_dict):
    """(the numeric feeds, the handle feeds as bytes) of a session's ``feed_dict``."""
    handles = {k: v for k, v in feed_dict.items() if getattr(k, "dtype", None) == STRING}
    if not handles:
        return feed_dict, {}
    for k, v in handles.items():
        if not isinstance(v, (bytes, str)):
            raise errors.InvalidArgumentError(
                None, None, f"feed_dict: {k.name!r} takes an iterator handle (the bytes "
                f"sess.run(iterator.string_handle()) gives), got {type(v).__name__}")
    return ({k: v for k, v in feed_dict.items() if k not in handles},
            {k: v.encode() if isinstance(v, str) else v for k, v in handles.items()})


class Iterator(Specified):
    """``tf.data.Iterator``: ``get_next()``, ``initializer``, ``make_initializer``."""

    def __init__(self, spec, graph, one_shot=None, handle=None):
        if any(s.dtype is None for s in flatten(spec)):
            raise TypeError("the elements of this dataset are datasets (window's): read "
                            "them with flat_map, e.g. ds.flat_map(lambda w: w.batch(size))")
        self._spec, self.graph = spec, graph
        self._one_shot, self._handle_tensor = one_shot, handle
        self._initializer = None
        self.handle = f"iterator-{next(_NUMBERS)}".encode()
        _HANDLES[self.handle] = weakref.ref(self)

    @classmethod
    def one_shot(cls, dataset):
        graph = get_default_graph()
        unfed = [n for n in dataset.captured() if n.is_leaf and n.value is None]
        if unfed:
            raise ValueError(
                f"Failed to create a one-shot iterator: the dataset is made from placeholder "
                f"{unfed[0].op_name!r}; use dataset.make_initializable_iterator() and run its "
                "initializer with a feed_dict")
        return cls(dataset.spec, graph, one_shot=dataset)

    @classmethod
    def initializable(cls, dataset):
        it = cls(dataset.spec, get_default_graph())
        it._initializer = it.make_initializer(dataset, name="MakeIterator")
        return it

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """An iterator for any dataset of this structure (``make_initializer`` picks it)."""
        return Iterator(declared_spec(output_types, output_shapes), get_default_graph())

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that reads from the iterator whose ``string_handle()`` value is fed
        to ``string_handle`` (a ``tf.placeholder(tf.string, shape=[])``)."""
        if getattr(string_handle, "dtype", None) != STRING:
            raise TypeError("from_string_handle: `string_handle` must be a "
                            "tf.placeholder(tf.string, shape=[]) fed with the value of "
                            "sess.run(iterator.string_handle())")
        return Iterator(declared_spec(output_types, output_shapes), get_default_graph(),
                        handle=string_handle)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer (a one-shot iterator "
                             "starts by itself; use make_initializer(dataset) for one made "
                             "with from_structure)")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """The operation that starts this iterator over ``dataset`` (from the beginning,
        each time it runs); the dataset's placeholders are read from its run's feeds."""
        ours, theirs = flatten(self._spec), flatten(dataset.spec)
        if len(ours) != len(theirs) or any(a.dtype != b.dtype or
                                          not fits_declared(b.shape, a.shape)
                                          for a, b in zip(ours, theirs)):
            raise TypeError(f"Expected output types {self.output_types} and shapes "
                            f"{self.output_shapes}, but got a dataset of types "
                            f"{dataset.output_types} and shapes {dataset.output_shapes}")
        captured = dataset.captured()

        def start(values, session):
            _begin(session, self, dataset, dict(zip(captured, values)))
        return Operation(name or "make_initializer", inputs=captured, effect=start,
                         graph=self.graph)

    def get_next(self, name=None):
        """The next element's tensors (a structure like the dataset's elements)."""
        with self.graph.name_scope(name or "IteratorGetNext"):
            outs = [placeholder_for(self.graph, s, f"component_{i}")
                    for i, s in enumerate(flatten(self._spec))]
        slot = _Slot(self, outs)
        slots = state_of(self.graph).next_slots
        for p in outs:
            slots[p] = slot
        return pack(self._spec, outs)

    def string_handle(self, name=None):
        """What to feed a ``from_string_handle`` iterator's handle to read from this one."""
        return Operation(name or "IteratorToStringHandle", graph=self.graph,
                         result=lambda values: self.handle)



class _Slot:
    """One ``get_next()`` op: its placeholders draw one element together per run."""

    def __init__(self, iterator, placeholders):
        self.iterator, self.placeholders = iterator, placeholders

    def draw(self, session, feeds):
        iterator = self.iterator
        if iterator._handle_tensor is not None:
            iterator = _by_handle(feeds.get(iterator._handle_tensor), iterator)
        state = _state(session)
        source = state["iterators"].get(iterator)
        if source is None:
            if iterator._one_shot is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been "
                    "initialized. Ensure that you have run the initializer operation for this "
                    "iterator before getting the next element: sess.run(iterator.initializer)")
            dataset = iterator._one_shot
            captured = dataset.captured()
            _begin(session, iterator, dataset, dict(zip(captured, session._read(captured, {}))))
            source = state["iterators"][iterator]
        try:
            element = next(source)
        except StopIteration:
            raise errors.OutOfRangeError(None, None, "End of sequence") from None
        values = flatten(element)
        out = []
        for p, v in zip(self.placeholders, values):
            v = np.asarray(v, dtype=p.dtype)
            if not fits(v.shape, p.shape):
                raise errors.InvalidArgumentError(
                    None, None, f"the dataset's element has shape {list(v.shape)}, the "
                    f"iterator's component {p.op_name!r} expects {list(p.shape)}")
            out.append(v)
        return out


def elements_for(session, run_id, wanted, feeds):
    """{placeholder: value} for the get_next placeholders ``wanted`` in run ``run_id``
    of ``session`` (each get_next op draws once per run)."""
    slots = state_of(session.graph).next_slots
    state = _state(session)
    if state["run"] != run_id:
        state["run"], state["drawn"] = run_id, {}
    found = {}
    for slot in dict.fromkeys(slots[p] for p in wanted):
        values = state["drawn"].get(slot)
        if values is None:
            values = state["drawn"][slot] = slot.draw(session, feeds)
        found.update(zip(slot.placeholders, values))
    return found


_SESSIONS = weakref.WeakKeyDictionary()


def _state(session):
    state = _SESSIONS.get(session)
    if state is None:
        state = _SESSIONS[session] = {"iterators": {}, "run": None, "drawn": {}}
    return state


def _begin(session, iterator, dataset, values):
    run = Run(values, _init.rng().integers(1 << 62))
    _state(session)["iterators"][iterator] = iter(dataset.elements(run))


def _by_handle(handle, reader):
    if handle is None:
        raise errors.InvalidArgumentError(
            None, None, "this iterator reads from the iterator whose handle is fed: pass "
            "feed_dict={handle: sess.run(iterator.string_handle())}")
    ref = _HANDLES.get(handle)
    found = ref() if ref is not None else None
    if found is None:
        raise errors.InvalidArgumentError(None, None, f"no iterator has the handle {handle!r}")
    ours, theirs = flatten(reader._spec), flatten(found._spec)
    if len(ours) != len(theirs) or any(a.dtype != b.dtype for a, b in zip(ours, theirs)):
        raise errors.InvalidArgumentError(
            None, None, "the fed handle's iterator has elements of types "
            f"{found.output_types}; this one expects {reader.output_types}")
    return found


def make_one_shot_iterator(dataset):
    """``tf.compat.v1.data.make_one_shot_iterator(dataset)``."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """``tf.compat.v1.data.make_initializable_iterator(dataset)``."""
    return dataset.make_initializable_iterator()


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


