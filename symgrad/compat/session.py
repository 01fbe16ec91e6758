"""TF1's ``Session``, operations (initializers, train steps) and fetch handling.

``Session.run(fetches, feed_dict)`` accepts tensors, operations and nested
lists/tuples/dicts of them, like TF1, and returns numpy values in the same
structure (operations give ``None``).  Fetching ``None`` (an unconnected
gradient) raises TF's TypeError, followed by the explanation of why that
gradient is ``None``.

Lists, tuples and dicts that ``run`` returns print their numpy scalars as
TF1-era numpy did (``[3.0, 1.0]``; numpy 2 would show ``[np.float32(3.0), ...]``);
they are ordinary ``list``/``tuple``/``dict`` subclasses otherwise.  What a run
fetches and feeds, and those structures, are ``compat.fetches``'.

Sits on top of the pipeline with ``teach``; nothing below imports it.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     a = sg.constant(2.0, name="a")
...     with Session() as sess:
...         print(sess.run([a, a * a]))
[2.0, 4.0]
"""
from __future__ import annotations

import collections
import contextlib
import sys
import weakref

import numpy as np

from ..errors import FeedError, MatrixError, ShapeError
from ..evaluate import check_feed, needed
from ..evaluate import run as run_nodes
from ..ops.deferred import resolve
from ..ops.draws import Executions, run_number
from ..graph import Dim
from ..tracing import get_default_graph
from . import errors
from .iterators import elements_for, split_handles
from .fetches import (_check_graph, _collect, _expand_feeds, _export, _rebuild, _resolve,
                      _tf1_structure)
from .kernel_checks import checks_in, in_bodies, verify
from .names import feed_by_name
from .printing import summary
from .session_values import acting, held_elsewhere
from .variable_value import stored
from .state import DEFAULT_SESSIONS, state_of
from .variables import Variable


OPEN_SESSIONS = weakref.WeakSet()   # every session alive (keras_backend asks them)


def initialized_anywhere(variable):
    """True when some live session has initialised ``variable`` (its value on the graph
    is then one a program set, not to be reset)."""
    return any(variable in s._initialized for s in list(OPEN_SESSIONS) if not s._closed)


_PARTIAL_RUN = ("Session.partial_run_setup / partial_run: partial runs are not supported "
                "in symgrad; fetch everything in one sess.run with all the feeds, or run the "
                "first part, then feed its values (feed_dict={intermediate: value}) to the next")


_CPU = collections.namedtuple("DeviceAttributes", "name device_type memory_limit_bytes")(
    "/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 268435456)


class Session:
    """TF1's ``tf.Session``: runs fetches with a feed_dict.

    Each session holds its own variable values (``session_values``), as TF's do: a
    variable this session has not initialized (or restored, or assigned) raises TF's
    FailedPreconditionError when read, whatever other sessions did, and closing the
    session drops its values.  Evaluation plans (which nodes, in which order) are
    cached per fetches and fed keys, so a training loop does not re-plan per step.
    """

    def __init__(self, target="", graph=None, config=None):
        self.graph = graph or get_default_graph()
        self._closed = False
        self._initialized = weakref.WeakSet()
        self._values = {}   # variable -> its value in this session (session_values)
        OPEN_SESSIONS.add(self)
        self._plans = {}
        self._runs = 0   # random ops draw anew at each run (ops.draws.run_number)
        self._memo = {}   # what this run computed already (``_read``)
        self._executions = Executions()   # (and those with TF's seeds, TF's next numbers)

    def __enter__(self):
        # TF1: ``with tf.Session(graph=g):`` also makes g the default graph, so what the
        # block builds (``tf.global_variables_initializer().run()``) lands in g
        self._graph_context = self.graph.as_default()
        self._graph_context.__enter__()
        DEFAULT_SESSIONS.append(self)
        return self

    def __exit__(self, *exc):
        if self in DEFAULT_SESSIONS:
            DEFAULT_SESSIONS.remove(self)
        context, self._graph_context = getattr(self, "_graph_context", None), None
        if context is not None:
            context.__exit__(*exc)
        self.close()

    def close(self):
        self._closed = True
        self._values.clear()

    @contextlib.contextmanager
    def as_default(self):
        """``with sess.as_default():`` the default session inside the block; unlike
        ``with sess:`` it leaves the session open (TF1; Keras-era code enters it twice)."""
        DEFAULT_SESSIONS.append(self)
        try:
            yield self
        finally:
            for i in range(len(DEFAULT_SESSIONS) - 1, -1, -1):
                if DEFAULT_SESSIONS[i] is self:
                    del DEFAULT_SESSIONS[i]
                    break

    def list_devices(self):
        """TF's ``sess.list_devices()``: the one device here, this process's CPU."""
        return [_CPU]

    def partial_run_setup(self, fetches, feeds=None):
        """Refused: symgrad runs each ``run`` call whole."""
        raise errors.UnimplementedError(None, None, _PARTIAL_RUN)

    def partial_run(self, handle, fetches, feed_dict=None):
        """Refused: symgrad runs each ``run`` call whole."""
        raise errors.UnimplementedError(None, None, _PARTIAL_RUN)

    def mark_initialized(self, variable):
        """Note that ``variable`` has a value in this session; one it does not hold yet
        takes a copy of the value it has where it was last set (another open session's:
        Keras's ``get_session`` adopting what it finds set), else of the graph's."""
        if variable not in self._values:
            value = held_elsewhere(variable, self)
            self._values[variable] = stored(np.array(value), variable)
        self._initialized.add(variable)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Evaluate ``fetches`` (tensors, operations, their names, nested lists/tuples/dicts).

        Operations among the fetches run after every fetched tensor is read, so
        ``sess.run([train_op, loss])`` gives the loss before the step; a fetched
        variable itself is read when the run ends, as TF1's reference variables are
        (``sess.run([train_op, global_step])`` gives the step after the increment).

        Raises:
            TypeError: a None fetch (TF's message, plus why that gradient is None).
            tf.errors.InvalidArgumentError: an unfed placeholder (also an sg.FeedError).
            tf.errors.FailedPreconditionError: a variable read before its initializer ran.
            ValueError: a fed value of the wrong shape.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feed_dict = {feed_by_name(self.graph, k) if isinstance(k, str) else k: v
                     for k, v in (feed_dict or {}).items()}
        feed_dict = _expand_feeds(feed_dict)
        feed_dict, handles = split_handles(feed_dict)
        feeds = check_feed(feed_dict)
        feeds.update(handles)   # (iterator handles: read by compat.iterators alone)
        fetches = _resolve(fetches, self.graph)
        ops, tensors = [], []
        _collect(fetches, ops, tensors, None, self.graph)
        _check_graph(tensors, self.graph)
        outer, self._memo = self._memo, {}
        try:
            with run_number(self._runs, self._executions), acting(self):
                found = self._execute(ops, tensors, feeds)
        finally:
            self._memo = outer
        self._runs += 1
        return _tf1_structure(_rebuild(fetches, found))

    def _execute(self, ops, tensors, feeds):
        # TF computes each tensor once per run: a fetched tensor has the value the
        # operations of this run read (``sess.run([train_op, lr])`` with train_op a
        # tf.group or no_op after the step gives the rate the step used).  So the fetched
        # tensors are read after what *they* wait for, before what the fetched
        # operations wait for, and those operations act last.
        # A fetched variable is TF1's reference to it: read when the run ends, after the
        # fetched operations' updates (``_, step = sess.run([train_op, global_step])``
        # gives the incremented step, as in TF).
        late = [t for t in tensors if t.opdef.name == "variable"]
        tensors = [t for t in tensors if t.opdef.name != "variable"]
        done = set()
        self._run_ops(self._plan(tensors + late, feeds)[1], feeds, done)
        waits = [dep for op in ops for dep in self._waits(op, feeds) if dep not in done]
        inputs = [x for op in ops for x in op.inputs]
        if waits:
            found = dict(zip(map(id, tensors), self._read(tensors, feeds)))
            self._run_ops(waits, feeds, done)
            values = self._read(inputs, feeds)
        else:   # (one read: what both need is computed once, sess.run([train, loss]))
            values = self._read(tensors + inputs, feeds)
            found = dict(zip(map(id, tensors), values[:len(tensors)]))
            values = values[len(tensors):]
        starts = np.cumsum([0] + [len(op.inputs) for op in ops])
        for k in self._acting_order(ops, feeds):
            op, inputs = ops[k], values[starts[k]:starts[k + 1]]
            if op.result is not None:
                found[id(op)] = op.result(inputs)
            if op not in done:
                done.add(op)
                if op.effect is not None:
                    op.effect(inputs, self)
        for op in ops:
            if op.value is not None:
                found[id(op)] = self._read([op.value], feeds)[0]
        found.update(zip(map(id, late), self._read(late, feeds)))
        return found

    def _acting_order(self, ops, feeds):
        """The fetched operations act in the order TF's executor finishes them: those
        whose inputs take less computing first (``sess.run([D_solver, D_loss, clip_D])``
        of WGAN clips the critic's weights before the step lands, as TF does, rather than
        overwriting the step with weights clipped before it); ties keep fetch order."""
        return sorted(range(len(ops)), key=lambda k: len(self._plan(ops[k].inputs, feeds)[0]))

    def _waits(self, op, feeds):
        """The operations ``op`` runs after: its control inputs and those of the tensors
        it reads."""
        return op.control_inputs + self._plan(op.inputs, feeds)[1]

    def _run_ops(self, ops, feeds, done):
        """Run ``ops`` and what they wait for, in waves: the operations whose waits are
        over read their inputs in one snapshot, then act.  So, as in TF1, every tensor
        is computed once per ``run``: in ``tf.group(tf.assign(a, a_new), tf.assign(b,
        b_new))`` b_new reads ``a`` before the first assign, not after it."""
        pending, seen, waits = [], set(), {}

        def visit(op):
            if op in done or op in seen:
                return
            seen.add(op)
            waits[op] = self._waits(op, feeds)
            for dep in waits[op]:
                visit(dep)
            pending.append(op)
        for op in ops:
            visit(op)
        while pending:
            ready = [op for op in pending if all(d in done for d in waits[op])]
            values, at = self._read([x for op in ready for x in op.inputs], feeds), 0
            for op in ready:
                if op.effect is not None:
                    op.effect(values[at:at + len(op.inputs)], self)
                at += len(op.inputs)
                done.add(op)
            pending = [op for op in pending if op not in done]

    def _plan(self, reads, feeds):
        """(nodes in order, operations they wait for, variables, placeholders, what TF's
        kernels check among the nodes: kernel_checks, whether loops or branches run
        sub-graphs), cached."""
        key = (tuple(map(id, reads)), frozenset(map(id, feeds)))
        plan = self._plans.get(key)
        if plan is None:
            order = needed(reads, feeds)
            control = state_of(self.graph).control_of
            deps = [op for n in order for op in control.get(n.id, ())]
            variables = [n for n in order if isinstance(n, Variable) and n not in feeds]
            unfed = [n for n in order if n.is_leaf and n.value is None and n not in feeds]
            unfed += _sized_by(order, state_of(self.graph).next_slots, feeds, unfed)
            bodies = any(n.opdef.kind == "control" for n in order)   # (loops, branches)
            plan = self._plans[key] = (order, list(dict.fromkeys(deps)), variables, unfed,
                                       checks_in(order), bodies)
        return plan

    def _read(self, reads, feeds):
        # TF runs each op once per ``run``: a tensor an earlier read of this run computed
        # keeps that value (the 6_lstm notebook's loss, read after the assigns it waits
        # for, uses the outputs those assigns saved, not outputs recomputed from the
        # saved state they wrote).  Variables are read anew: TF1's reads of a reference
        # variable happen when the op reading it runs.
        if not reads:
            return []
        if self._memo:
            feeds = {**self._memo, **feeds}
        slots = state_of(self.graph).next_slots
        if slots:   # get_next's tensors: the iterators' next elements, once per run
            wanted = [p for p in self._plan(reads, feeds)[3] if p in slots]
            if wanted:
                feeds = {**feeds, **elements_for(self, self._runs, wanted, feeds)}
        try:   # (a Python call's values join the feeds of this run: a copy)
            feeds = dict(feeds)
            made = resolve(self._plan(reads, feeds)[0], feeds, run_nodes)
        except ShapeError as exc:   # calls recorded over unknown ranks that do not fit
            if isinstance(exc, errors.OpError):
                raise
            raise errors.RunShapeError(None, None, str(exc)) from None
        except FeedError as exc:   # a placeholder of any shape not fed: TF's error class
            if isinstance(exc, errors.OpError):
                raise
            raise errors.UnfedPlaceholderError(None, None, str(exc)) from None
        if made:  # tensors of unknown rank, made at the fed shapes (ops.deferred)
            reads = [made.get(r, r) for r in reads]
            feeds = {made.get(k, k): v for k, v in feeds.items()}
        order, _, variables, unfed, checks, bodies = self._plan(reads, feeds)
        for v in variables:
            if v not in self._initialized:
                raise errors.FailedPreconditionError(
                    None, None, f"Attempting to use uninitialized value {v.op_name}: run "
                    "sess.run(tf.global_variables_initializer()) (or the variable's "
                    "initializer) in this session first")
        if unfed:
            p = unfed[0]
            raise errors.UnfedPlaceholderError(
                None, None, f"You must feed a value for placeholder tensor {p.op_name!r} with "
                f"dtype {p.dtype.name} and shape {list(p.shape)}: placeholder {p.name!r} was "
                f"not fed; pass feed_dict={{{p.name}: value}}")
        try:
            with in_bodies() if bodies else contextlib.nullcontext():   # (their checks)
                values = run_nodes(reads, feeds, order)   # (the nodes needed, once)
        except ShapeError as exc:   # sizes that do not fit once values arrive: TF's error
            if isinstance(exc, errors.OpError):
                raise
            raise errors.RunShapeError(None, None, str(exc)) from None
        except MatrixError as exc:   # a singular matrix inverted: TF's error class
            if isinstance(exc, errors.OpError):
                raise
            raise errors.MatrixRunError(None, None, str(exc)) from None
        if checks:   # (what TF's kernels refuse: an index out of range, x // 0)
            verify(checks, values, feeds)
        self._memo.update((n, v) for n, v in values.items()
                          if n.inputs and n not in feeds and not isinstance(n, Variable))
        prints = state_of(self.graph).prints
        if prints:
            for node in [n for n in prints if n in values]:
                _print(prints[node], values, feeds)
        return [_export(values[r]) for r in reads]


class InteractiveSession(Session):
    """``tf.InteractiveSession()``: a session that is the default one from its creation."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        DEFAULT_SESSIONS.append(self)

    def close(self):
        if self in DEFAULT_SESSIONS:
            DEFAULT_SESSIONS.remove(self)
        super().close()


def _print(spec, values, feeds):
    """What a ``tf.Print`` evaluated in this run prints (to stderr, as TF's kernel):
    the message, then the first ``summarize`` entries of each data tensor."""
    data, message, limit, summarize = spec
    if limit is not None:
        if limit[0] <= 0:
            return
        limit[0] -= 1
    missing = [d for d in data if d not in values]
    if missing:   # data the fetched tensors do not need: computed in the same run
        values = {**values, **run_nodes(missing, feeds)}
    # TF's SummarizeValue: 6 (or 9) significant digits, booleans as 1 and 0, rows of a
    # matrix in brackets
    parts = [f"[{summary(values[d], summarize)}]" for d in data]
    print(f"{message}{''.join(parts)}", file=sys.stderr)


def _sized_by(order, slots, feeds, unfed):
    """The iterators' next elements whose unknown sizes nodes of ``order`` have without
    reading their values (``tf.ones_like(batch)``, ``tf.shape(batch)``): TF reads the
    batch for them, so the run takes it."""
    sizes = {d.symbol for n in order if n.shape for d in n.shape if isinstance(d, Dim)}
    return [p for p in slots if p not in feeds and p not in unfed and p.shape and
            any(isinstance(d, Dim) and d.symbol in sizes for d in p.shape)]
