"""What TF1 keeps per graph besides the tensors: operations, collections, control
dependencies, the variable store and scopes.

An :class:`Operation` is a graph operation that does something when a session
runs it: it reads its ``inputs`` (one consistent snapshot), then its ``effect``
changes variables.  ``control_inputs`` are operations that run first.  An
assign-like operation also has a ``value`` (the variable), which a fetch returns
after the effect, as ``sess.run(tf.assign(v, 1.0))`` returns the new value.

Tensors made inside ``tf.control_dependencies(ops)`` remember ``ops``; fetching
them (or anything computed from them) runs ``ops`` first.

Sits in ``compat``; imports the graph layer only.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default() as g:
...     state_of(g).collection("losses")
[]
"""
from __future__ import annotations

import contextlib
import weakref

from ..graph import Node


class Operation:
    """A TF1 operation without an output tensor (or whose output is a variable's value).

    Args:
        name: the op's name (unique in the graph's state).
        inputs: tensors whose values ``effect`` receives, read in one snapshot.
        effect: ``effect(values, session)`` run by ``Session.run``; None for a pure group.
        control_inputs: operations to run before this one.
        value: a tensor a fetch of this operation returns (after the effect), or None.
        result: ``result(values)``, what a fetch returns computed from the input values
            (a summary's serialized protocol buffer), or None.
        type: TF's op type (``Assign``, ``AssignAdd``, ``AssignSub``; ``NoOp`` for groups).
    """

    def __init__(self, name, inputs=(), effect=None, control_inputs=(), value=None,
                 graph=None, result=None, type="NoOp"):
        self.graph, self.type = graph, type
        self.inputs = list(inputs)
        self.effect = effect
        self.value = value
        self.result = result
        self._tensor = None   # the value as a tensor (as_graph_tensor), made on demand
        state = state_of(graph) if graph is not None else None
        extra = list(state.control_stack[-1]) if state and state.control_stack else []
        self.control_inputs = list(control_inputs) + extra
        if state and "/" not in name and hasattr(graph, "scoped"):
            name = graph.scoped(name)   # inside the open name scopes, as TF names ops
        self.name = state.unique(name) if state else name
        if state:
            state.operations[self.name] = self

    def run(self, feed_dict=None, session=None):
        """TF1's ``op.run()``: run this operation in ``session`` (default: a new one)."""
        (session or default_session(self.graph)).run(self, feed_dict)

    @property
    def op(self):
        """TF1's ``tf.assign(v, x).op``: the operation itself; for an assign (which is
        its tensor too) a view of it that a fetch gives None for, as TF's Operation
        (``sess.run(tf.assign(v, 1.0).op)`` is None, ``sess.run(tf.assign(v, 1.0))``
        the new value)."""
        if self.value is None and self.result is None:
            return self
        view = self.__dict__.get("_op_view")
        if view is None:
            view = self.__dict__["_op_view"] = OperationView(self)
        return view

    def as_graph_tensor(self):
        """An assign's result as a tensor, as TF1 returns it: the variable's value read
        after this operation runs (``tf.assign_add(step, 1) * 2``, ``tf.reduce_sum(op)``);
        made once."""
        if self.value is None:
            raise TypeError(f"{self.name!r} is an operation without a value; fetch it with "
                            "sess.run, or use the tensors it reads")
        if self._tensor is None:   # TF registers no gradient for Assign: none flows back
            from ..tracing import stop_gradient
            with state_of(self.value.graph).control_dependencies([self]):
                self._tensor = stop_gradient(self.value, name=f"{self.name}/value")
        return self._tensor

    def eval(self, feed_dict=None, session=None):
        """TF1's ``t.eval()`` of an assign: runs it and gives the new value."""
        return (session or default_session(self.graph)).run(self, feed_dict)

    @property
    def dtype(self):
        return self._valued("dtype").dtype

    @property
    def shape(self):
        return self._valued("shape").shape

    def get_shape(self):
        return self._valued("get_shape").get_shape()

    def _valued(self, attribute):
        """The value's tensor; an AttributeError for an operation without a value, as
        TF's Operation has no ``attribute`` (so ``hasattr(op, "dtype")`` is False)."""
        if self.value is None:
            raise AttributeError(f"{self.name!r} is an operation without a value, so it has "
                                 f"no {attribute}; fetch it with sess.run, or use the "
                                 "tensors it reads")
        return self.as_graph_tensor()

    def __repr__(self):
        return f"<tf.Operation {self.name!r}>"


def _through_value(name):
    """Operation.<name>: the operator applied to the assign's result tensor."""
    def method(self, *args):
        return getattr(self.as_graph_tensor(), name)(*args)
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__neg__", "__getitem__",
              "__lt__", "__le__", "__gt__", "__ge__", "__matmul__", "__rmatmul__"):
    setattr(Operation, _name, _through_value(_name))


class OperationView(Operation):
    """An assign's ``.op``: the same operation (name, inputs, effect, control inputs:
    read from ``origin``), without a value, so a fetch of it gives None."""

    value = result = None

    def __init__(self, origin):   # (Operation's __init__ would register a new op)
        self.__dict__["origin"] = origin

    def __getattr__(self, name):
        return getattr(self.__dict__["origin"], name)

    def __setattr__(self, name, value):
        setattr(self.origin, name, value)

    @property
    def op(self):
        return self


def origin_of(op):
    """The operation that runs for ``op`` (an assign's ``.op`` view runs the assign)."""
    return op.origin if isinstance(op, OperationView) else op


class GraphState:
    """Per-graph TF1 state, created on first use by :func:`state_of`."""

    def __init__(self, graph):
        self.graph_ref = weakref.ref(graph)
        self.collections = {}
        self.control_stack = []        # lists of operations (tf.control_dependencies)
        self.control_of = {}           # node id -> operations that must run first
        self.variables = {}            # get_variable's store: full name -> variable
        self.var_scopes = []           # VariableScope stack
        self.op_names = {}
        self.operations = {}           # name -> Operation
        self.prints = {}               # tf.Print's tensor -> what it prints (compat.session)
        self.next_slots = {}           # get_next's placeholder -> its op (compat.iterators)
        self.overrides = {}            # gradient_override_map: op type -> gradient name
        self.scope_counts = {}         # variable scope name -> times opened (compat.scopes)

    def collection(self, key):
        return list(self.collections.get(key, []))

    def add_to_collection(self, key, value):
        self.collections.setdefault(key, []).append(value)

    def unique(self, name):
        count = self.op_names.get(name, 0)
        self.op_names[name] = count + 1
        return name if count == 0 else f"{name}_{count}"

    @contextlib.contextmanager
    def control_dependencies(self, ops):
        """Nodes made inside depend on ``ops``; ``None`` clears the outer dependencies."""
        graph = self.graph_ref()
        outer = self.control_stack[-1] if self.control_stack else []
        current = [] if ops is None else outer + [_as_operation(o) for o in ops]
        self.control_stack.append(current)
        start = len(graph.nodes)
        try:
            yield None
        finally:
            self.control_stack.pop()
            if current:   # (not variables: reading one runs nothing else, as in TF)
                for node in graph.nodes[start:]:
                    if node.inputs or node.opdef.name != "variable":
                        self.control_of.setdefault(node.id, []).extend(current)


def _as_operation(value):
    """An Operation, or a tensor (whose control dependencies then apply): TF accepts both."""
    if isinstance(value, Operation):
        return origin_of(value)
    if isinstance(value, Node):
        return Operation(f"{value.op_name}/read", inputs=[value], graph=None)
    raise TypeError(f"control_inputs must be operations or tensors, got {value!r}")


_STATES = weakref.WeakKeyDictionary()
DEFAULT_SESSIONS = []      # the sessions of enclosing ``with tf.Session():`` blocks


def default_session(graph=None):
    """The innermost ``with tf.Session() as sess:`` (``tf.get_default_session()``); with
    ``graph``, the innermost one running that graph."""
    found = [s for s in DEFAULT_SESSIONS if graph is None or s.graph is graph]
    if found:
        return found[-1]
    raise ValueError("Cannot execute operation using `run()`: No default session is "
                     "registered. Use `with sess.as_default():` or pass an explicit session "
                     "to `run(session=sess)`")


def state_of(graph):
    """The TF1 state of ``graph`` (made on first use)."""
    state = _STATES.get(graph)
    if state is None:
        state = _STATES[graph] = GraphState(graph)
    return state


def check_initializer_outside(initializer, name):
    """TF's ValueError for a variable whose initial value is a tensor made inside a loop
    body or cond branch (it would be computed once, outside, from values that exist
    only inside)."""
    inside = isinstance(initializer, Node) and initializer.graph.outer is not None
    if inside:
        raise ValueError(f"Initializer for variable {name}/ is from inside a control-flow "
                         "construct, such as a loop or conditional. When creating a "
                         "variable inside a loop or conditional, use a lambda as the "
                         "initializer.")


@contextlib.contextmanager
def outermost_scope(graph):
    """Make a variable in the outermost graph, under the name scope open in ``graph``:
    TF lifts a variable made while a loop body or cond branch is traced out of the
    control flow, so a cell first called in a ``tf.while_loop`` body has its weights in
    ``tf.global_variables()``, and a body traced again finds the same ones."""
    root = graph
    while root.outer is not None:
        root = root.outer
    if root is graph:
        yield graph
        return
    with root.as_default(), root.absolute_scope(graph.scoped("")):
        yield root
