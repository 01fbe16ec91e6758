"""Sub-graphs as functions: what cond branches and loop bodies are traced into.

A :class:`SubGraph` is a graph nested inside another.  An op inside it that uses a
tensor of an enclosing graph *captures* that tensor: the sub-graph gets an
``argument`` leaf standing for it, and the control op owning the sub-graph takes
the outer tensor as an input (TF's functional control flow).  A :class:`Function`
is a sub-graph with chosen parameters and outputs; one sub-graph serves several
functions (a loop body, its reverse-mode derivative and its forward-mode
derivative are all built on the body's graph, as more graph).

Several outputs travel through one node *packed*: the control op's value is one
float64 vector holding every output raveled (integers and booleans are exact in
float64), and :func:`unpack` slices, reshapes and casts it back.  So the graph
keeps one output per node and the reverse sweep needs no special case: the
slices' gradients scatter back into the packed vector, and casts to integers cut
the gradient of loop counters, as TF's rules say.

Imports the graph, the op registry, the evaluator, the closed-form expansion and
tracing.

>>> import symgrad as sg
>>> with sg.Graph().as_default() as g:
...     x = sg.constant(2.0, name="x")
...     f = trace(g, "body", lambda v: v * x, [((), np.dtype(float))])
...     [p.name for p in f.params], [float(v) for v in f.run([3.0, 2.0])]
(['arg', 'x'], [6.0])
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..errors import ShapeError
from ..evaluate import needed, run, specialize
from ..graph import Node, shape_size
from ..ops import REGISTRY, apply, literal
from ..forms.symbolic import expand
from ..tracing import Graph, as_tensor


class SubGraph(Graph):
    """A graph nested in ``outer`` (``role``: "cond_true", "body", ...) that captures."""

    def __init__(self, outer, role):
        super().__init__()
        self.outer = outer
        self.role = role
        self.captures = {}  # tensor of ``outer`` -> its argument leaf here

    def capture(self, node):
        if node.graph is not self.outer:
            node = self.outer.capture(node)  # from further out: capture it level by level
        arg = self.captures.get(node)
        if arg is None:
            arg = self.argument(node.shape, node.dtype, node.name.split("/")[-1])
            self.captures[node] = arg
        return arg

    @contextlib.contextmanager
    def as_default(self):
        """Build in this sub-graph inside the block (it is sealed otherwise)."""
        sealed, self.sealed = self.sealed, False
        try:
            with super().as_default():
                yield self
        finally:
            self.sealed = sealed

    def argument(self, shape, dtype, name="arg"):
        """A new parameter leaf of this sub-graph."""
        return self.add_node(REGISTRY["argument"], (), {}, shape, dtype, name=name)

    def __repr__(self):
        return f"<SubGraph {self.role} with {len(self.nodes)} nodes>"


@contextlib.contextmanager
def tracing_into(sub):
    """Inside the block, ops on tensors of ``sub.outer`` are built in ``sub``."""
    previous = sub.outer.tracing
    sub.outer.tracing = sub
    try:
        with sub.as_default():
            yield sub
    finally:
        sub.outer.tracing = previous


# What a front end checks on the values a sub-graph computes (compat's Session raises
# TF's run-time errors in loop bodies and branches too: compat.kernel_checks); the
# numbers themselves are not changed, and nothing is observed when the list is empty.
OBSERVERS: list = []


class Function:
    """``outputs`` of ``graph`` as a function of ``params`` (run, expanded, derived).

    ``derived`` caches functions built from this one (its vjp and jvp), so a loop
    differentiated twice builds its derivative graph once.
    """

    def __init__(self, graph, params, outputs, label, structure=None, explicit=None):
        self.graph, self.label = graph, label
        self.params, self.outputs = list(params), list(outputs)
        self.structure = structure  # rebuilds the nesting of the traced fn's result
        self.explicit = len(self.params) if explicit is None else explicit  # not captures
        self.derived = {}
        self._order = None

    def run(self, args):
        """Numeric outputs (reference evaluator) for numpy ``args``; each of
        :data:`OBSERVERS` then sees the values (``observer(order, values, feeds)``)."""
        feeds = {p: np.asarray(a, dtype=p.dtype) for p, a in zip(self.params, args)}
        if self._order is None:
            self._order = needed(self.outputs, feeds)
        values = run(self.outputs, feeds, self._order)
        for observer in list(OBSERVERS):
            observer(self._order, values, feeds)
        return [values[o] for o in self.outputs]

    def expand(self, args):
        """SymPy object arrays of the outputs, with ``args`` substituted for the params."""
        subs = {p: np.asarray(a, dtype=object).reshape(p.shape) for p, a in zip(self.params, args)}
        return expand(self.outputs, substitute=subs)

    def specialize(self, bindings, outer, memo):
        """This function with every unknown size at its value (``bindings``), its
        graph rebuilt as a sub-graph of ``outer`` (once per function: ``memo``)."""
        if self not in memo:
            sub = SubGraph(outer, self.graph.role)
            with sub.as_default():
                mapping = specialize(self.outputs + self.params, bindings, sub, memo)
            sub.sealed = True
            memo[self] = Function(sub, [mapping[p] for p in self.params],
                                  [mapping[o] for o in self.outputs], self.label,
                                  self.structure, self.explicit)
        return memo[self]

    def with_params(self, params):
        """The same outputs over another parameter list (extra params unused)."""
        return Function(self.graph, params, self.outputs, self.label, self.structure,
                        self.explicit)

    def __repr__(self):
        return f"<Function {self.label}: {len(self.params)} params -> {len(self.outputs)} outputs>"


def flatten(structure):
    """Leaves of a nested list/tuple/dict (anything else is a leaf) and a rebuilder; a
    dict's values are taken in the order of its sorted keys, as TF's ``nest`` does, and
    rebuilt in the dict's own order."""
    if isinstance(structure, dict):
        keys = sorted(structure)
        flat, rebuild_values = flatten([structure[k] for k in keys])

        def rebuild_dict(values):   # (in the dict's own key order, as TF rebuilds it)
            found = dict(zip(keys, rebuild_values(values)))
            return type(structure)((k, found[k]) for k in structure)
        return flat, rebuild_dict
    if isinstance(structure, (list, tuple)):
        parts = [flatten(s) for s in structure]
        flat = [leaf for items, _ in parts for leaf in items]

        def rebuild(values):
            out, start = [], 0
            for items, sub in parts:
                out.append(sub(values[start:start + len(items)]))
                start += len(items)
            return out if isinstance(structure, list) else type(structure)(out) \
                if type(structure) is tuple else type(structure)(*out)
        return flat, rebuild
    return [structure], lambda values: values[0]


def trace(outer, role, fn, specs, names=None):
    """Trace ``fn`` on new parameters of ``specs`` [(shape, dtype)] into a sub-graph.

    Returns a :class:`Function` whose params are the explicit parameters followed by
    the captured outer tensors (``function.graph.captures``) and whose outputs are
    ``fn``'s results flattened; ``function.structure`` rebuilds the nesting.
    """
    sub = SubGraph(outer, role)
    with tracing_into(sub):
        params = [sub.argument(shape, dtype, (names or {}).get(i, "arg"))
                  for i, (shape, dtype) in enumerate(specs)]
        result = fn(*params)
        flat, structure = flatten(result)
        outputs = [_as_inner(sub, v, role) for v in flat]
    sub.sealed = True
    return Function(sub, params + list(sub.captures.values()), outputs, role, structure,
                    len(params))


def _as_inner(sub, value, role):
    if value is None:
        raise ShapeError(f"the {role} function returned None; return tensors (or numbers)")
    if isinstance(value, Node):
        return value if value.graph is sub else sub.capture(value)
    return as_tensor(value)


def captured(functions):
    """The outer tensors captured by any of ``functions``, each once, in first-use order."""
    out = []
    for f in functions:
        out.extend(x for x in f.graph.captures if x not in out)
    return out


def bind_captures(function, outer_tensors):
    """``function`` with params: its explicit ones, then one per tensor of ``outer_tensors``."""
    sub = function.graph
    with sub.as_default():
        extra = [sub.capture(x) for x in outer_tensors]
    return function.with_params(function.params[:function.explicit] + extra)


def layout(nodes):
    """The packed layout of ``nodes``: ((shape, dtype str), ...)."""
    return tuple((tuple(n.shape), n.dtype.str) for n in nodes)


def packed_size(spec):
    """The length of the packed vector of ``spec``: an int, or a Dim when some size
    is known only at run time."""
    return sum((shape_size(shape) for shape, _ in spec), 0)


def pack_values(values):
    """Numeric or object arrays as one flat vector (float64 for numbers)."""
    arrays = [np.asarray(v) for v in values]
    if any(a.dtype == object for a in arrays):
        return np.concatenate([np.ravel(a).astype(object) for a in arrays] or [np.empty(0, object)])
    return np.concatenate([np.ravel(a).astype(np.float64) for a in arrays] or [np.empty(0)])


def unpack_values(flat, spec):
    """Inverse of :func:`pack_values` for numeric vectors."""
    out, start = [], 0
    for shape, dtype in spec:
        size = int(np.prod(shape, dtype=np.int64))
        part = np.asarray(flat[start:start + size]).reshape(shape)
        out.append(part if part.dtype == object else part.astype(dtype))
        start += size
    return out


def unpack(packed, spec):
    """Graph nodes for the parts of a packed node: slice, reshape, cast back."""
    out, start = [], 0
    for shape, dtype in spec:
        size = shape_size(shape)
        part = apply("index", [packed], index=(slice(start, start + size),))
        if tuple(shape) != (size,):
            part = apply("reshape", [part], shape=tuple(shape))
        if np.dtype(dtype) != packed.dtype:
            part = apply("cast", [part], dtype=np.dtype(dtype).name)
        out.append(part)
        start += size
    return out


def pack(nodes, graph):
    """One float64 vector node holding ``nodes`` raveled (literal zeros for None)."""
    parts = []
    for n in nodes:
        if n.dtype != np.float64:
            n = apply("cast", [n], dtype="float64")
        parts.append(apply("reshape", [n], shape=(n.size,)) if n.shape != (n.size,) else n)
    if not parts:
        return literal(graph, np.zeros(0))
    return parts[0] if len(parts) == 1 else apply("concat", parts, axis=0)
