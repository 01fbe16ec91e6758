"""The graph IR: :class:`Graph` and :class:`Node`.

A node is one tensor-level operation with a single output: its op (an entry of
the registry in ``symgrad.ops``), its input nodes, static attributes, and its
static shape and dtype.  Nodes are immutable once made and can only refer to
nodes made before them, so creation order is a topological order; every pass
walks nodes by ``id`` instead of recursing (a 10,000-node chain is fine).

Shapes are tuples of ints and :class:`Dim` objects: a ``Dim`` is a size known only
when values arrive (a ``None`` in a placeholder's shape, as in TF's ``[None, 3]``);
``Dim`` and the shape helpers live in ``dims`` (re-exported here).

Imports only ``symgrad.errors`` and ``symgrad.dims`` (SymPy only when a size expression
is built, see ``dims``);
the op registry and every stage import this.

>>> g = Graph()
>>> g.unique_name("add"), g.unique_name("add")
('add', 'add_1')
"""
from __future__ import annotations

from typing import Sequence

import contextlib
import operator
import re

import numpy as np

from .errors import FeedError, GraphError
from .dims import (Dim, concrete_attrs, concrete_shape, dim_expr, has_dims,  # noqa: F401
                   is_static, make_dim, same_up_to_unknown, shape_size, shape_symbols,
                   shape_text)


def size_symbol_name(node_name, axis, count):
    """The name of the size symbol of a placeholder's unknown ``axis`` (``count`` of them)."""
    base = re.sub(r"\W", "_", node_name)
    return f"n_{base}" if count == 1 else f"n_{base}_{axis}"


def _normal_shape(shape):
    """``shape`` as a tuple of ints and Dims; memoised for shapes of ints (every traced
    node asks, and a graph meets few distinct shapes)."""
    try:
        return _SHAPES[shape]
    except (KeyError, TypeError):   # new, or a list
        out = tuple(d if isinstance(d, Dim) else int(d) for d in shape)
        if type(shape) is tuple and len(_SHAPES) < 4096 and \
                not any(isinstance(d, Dim) for d in out):
            _SHAPES[shape] = out
        return out


_SHAPES: dict = {}


class Node:
    """One op application in a graph: the IR's only node type.

    Leaves (constants, variables, placeholders) keep their value in ``value``
    (``None`` for placeholders).  ``attrs`` are the op's static parameters.
    """

    __array_priority__ = 1000  # numpy defers ``ndarray * node`` to the node
    requested_name = None      # set by Graph.add_node when the caller named the node
    derived_class = None       # class of the nodes computed from this one (None: the graph's)
    one_hot = None             # ops.onehot.OneHot: the evaluator may leave it uncomputed
    shortcut = None            # ops.fastpaths.Shortcut: another way to the same value

    def __init__(self, graph, node_id, op, inputs, attrs, shape, dtype, name, value=None):
        self.graph = graph
        self.id = node_id
        self.opdef = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        # None: unknown rank (a TF1 placeholder without shape, see ops.deferred)
        self.shape = None if shape is None else _normal_shape(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.name = name
        self.value = value

    # TF1 semantics: tensors hash and compare by identity (``==`` is not elementwise),
    # so they can be dict keys in feed_dict and members of stop_gradients sets.
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other

    @property
    def op_name(self):
        """The name symbols and explanations use (TF1 tensors' ``name`` adds ``:0``)."""
        return self.name

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return shape_size(self.shape)

    @property
    def is_float(self):
        return self.dtype.kind == "f"

    @property
    def is_leaf(self):
        return not self.inputs and self.opdef.kind == "leaf"

    @property
    def op(self):
        """The registry op this node applies (the same as ``opdef``; TF1 tensors give
        TF's operation here instead)."""
        return self.opdef

    def __repr__(self):
        return f"<Node {self.name!r} op={self.opdef.name} shape={self.shape} dtype={self.dtype.name}>"


class Graph:
    """A growing list of nodes plus the names already used in it.

    ``node_class`` is the class of the nodes this graph makes; the tracing layer
    passes its ``Tensor`` (a ``Node`` with operators) so every node a rule makes
    is also usable as a user-facing tensor.
    """

    node_class = Node

    def __init__(self):
        self.nodes: list[Node] = []
        self._names: dict[str, int] = {}
        self._scope: list[str] = []
        self._prefix = ""    # "/".join(self._scope) + "/" (names are made per node)
        self._by_name: dict[str, Node] = {}
        self.outer = None    # the enclosing graph, for a sub-graph (a cond branch, a loop body)
        self.tracing = None  # the sub-graph being traced inside this graph right now
        self.sealed = False  # a traced sub-graph takes new ops only while it is being built
        # batched node -> (node of one seed, seed leaf, batch of seeds) for each output of a
        # batched sweep (seeds.vmap): closed forms read the batch axis as matrix columns
        self.batches: dict = {}
        # dense result of a batched sweep over unit seeds -> an equal node computed from a
        # colouring's compressed seeds (seeds.unit_sweep): what sg.compile computes for it
        self.compressed: dict = {}

    def innermost(self):
        """The graph new nodes go into: this one, or the sub-graph being traced inside it."""
        graph = self
        while graph.tracing is not None:
            graph = graph.tracing
        return graph

    def encloses(self, other):
        """True when ``other`` is this graph or a sub-graph nested (at any depth) inside it."""
        while other is not None and other is not self:
            other = other.outer
        return other is self

    def capture(self, node):
        """The stand-in for ``node`` of an enclosing graph; plain graphs capture nothing."""
        raise GraphError(
            f"tensor {node.name!r} belongs to another graph; build every tensor of one "
            "computation in the same sg.Graph (a tensor made inside a cond branch or a loop "
            "body cannot be used outside it: return it from the function instead)")

    def scoped(self, base):
        """``base`` inside the current name scope (``scope/base``)."""
        return self._prefix + base

    def unique_name(self, base):
        """Return ``base`` inside the current scope, suffixed ``_N`` if taken."""
        full = self._prefix + base   # self.scoped(base)
        count = self._names.get(full)
        if count is None:
            self._names[full] = 1
            return full
        while True:
            candidate = f"{full}_{count}"
            count += 1
            if candidate not in self._names:
                self._names[full] = count
                self._names[candidate] = 1
                return candidate

    def rename(self, node, name):
        """Give ``node`` the name ``name`` (made unique in the current scope), found by it
        and no longer by its old one: a composite names its last node after making it
        (TF names the result)."""
        old = getattr(node, "op_name", node.name)   # (a compat tensor's name ends in :0)
        if self._by_name.get(old) is node:
            del self._by_name[old]
        node.name = self.unique_name(name)
        self._by_name[getattr(node, "op_name", node.name)] = node
        return node

    @contextlib.contextmanager
    def name_scope(self, scope):
        """Prefix names of nodes made inside the block with ``scope/`` (made unique).
        As in TF, a scope ending in ``/`` (one a ``with`` gave before) is re-entered as
        it is, and ``None`` or ``""`` is the top level."""
        if not scope or scope.endswith("/"):
            with self.absolute_scope(scope or "") as path:
                yield path.rstrip("/")
            return
        unique = self.unique_name(scope).split("/")[-1]
        self._set_scope(self._scope + [unique])
        try:
            yield "/".join(self._scope)
        finally:
            self._set_scope(self._scope[:-1])

    @contextlib.contextmanager
    def absolute_scope(self, path):
        """Inside, names are made under ``path`` alone, whatever name scopes are open
        (TF1's variable scopes name their variables this way)."""
        saved = self._scope
        self._set_scope([p for p in path.split("/") if p])
        try:
            yield path
        finally:
            self._set_scope(saved)

    def _set_scope(self, scope):
        self._scope = scope
        self._prefix = "/".join(scope) + "/" if scope else ""

    def add_node(self, op, inputs, attrs, shape, dtype, name=None, value=None, cls=None):
        """Append a node (of ``cls``, default ``node_class``); inputs must be in this graph."""
        for x in inputs:
            if x.graph is not self:
                inputs = [x if x.graph is self else self._captured(x, op) for x in inputs]
                break
        node_name = self.unique_name(name or op.name)
        unknown = [a for a, d in enumerate(shape) if d is None] if shape else None
        if unknown:  # a placeholder's None axes: one size symbol each, named after it
            shape = tuple(Dim.fresh(self._size_name(size_symbol_name(node_name, a, len(unknown))))
                          if d is None else d for a, d in enumerate(shape))
            if "shape" in attrs:
                attrs = dict(attrs, shape=shape)
        # Node.__init__, inlined: every traced and derived node is made here
        node = object.__new__(cls or self.node_class)
        node.graph, node.id, node.opdef, node.inputs, node.attrs = \
            self, len(self.nodes), op, tuple(inputs), attrs
        # None: unknown rank (a TF1 placeholder without shape, see ops.deferred)
        node.shape = None if shape is None else _normal_shape(shape)
        node.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        node.name, node.value = node_name, value
        # the name the caller asked for (``x`` where the graph made it ``x_1``), for
        # printing; None (the class's) for nodes named after their op
        if name is not None:
            node.requested_name = self._prefix + name
        self.nodes.append(node)
        self._by_name[node_name] = node
        return node

    def _size_name(self, name):
        """``name`` for a new size symbol, suffixed ``_2``, ``_3`` ... when another
        placeholder of the graph (or of an enclosing one) has it: ``Placeholder``'s
        second axis and ``Placeholder_1``'s only one would both be ``n_Placeholder_1``,
        and two sizes with one symbol must agree."""
        root = self
        while root.outer is not None:
            root = root.outer
        taken = root.__dict__.setdefault("_size_names", set())
        found, k = name, 1
        while found in taken:
            k += 1
            found = f"{name}_{k}"
        taken.add(found)
        return found

    def get_tensor_by_name(self, name):
        """The node named ``name``; TF's form ``"name:0"`` is accepted too.

        Raises:
            KeyError: no node has that name (the message says so, TF's way).
        """
        base = name[:-2] if name.endswith(":0") else name
        node = self._by_name.get(base)
        if node is None:
            raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. The "
                           f"operation, {base!r}, does not exist in the graph.")
        return node

    def _captured(self, x, op):
        if not x.graph.encloses(self):
            raise GraphError(
                f"input {x.name!r} of op {op.name!r} belongs to another graph; build every "
                "tensor of one computation in the same sg.Graph (a tensor made inside a cond "
                "branch or a loop body cannot be used outside it: return it instead)")
        return self.capture(x)

    def __len__(self):
        return len(self.nodes)

    def __repr__(self):
        return f"<Graph with {len(self.nodes)} nodes>"


def ancestors(outputs):
    """All nodes the ``outputs`` depend on (themselves included), in topological order."""
    seen = set()
    stack = [n for n in outputs if n is not None]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(node.inputs)
    return sorted(seen, key=_BY_ID)


_BY_ID = operator.attrgetter("id")


def consumers(nodes):
    """Map each node to the list of nodes among ``nodes`` that use it as input."""
    users = {n: {} for n in nodes}  # dicts: ordered, and membership is O(1) by identity
    for n in nodes:
        for x in n.inputs:
            if x in users:
                users[x][n] = None
    return {n: list(u) for n, u in users.items()}


def format_graph(outputs: Node | Sequence[Node]) -> str:
    """A readable listing of the IR below ``outputs``, one node a line.

    >>> from symgrad import tracing as t
    >>> with t.Graph().as_default():
    ...     x = t.Variable(2.0, name="x")
    ...     print(format_graph([x * x]))
    x = variable(trainable=True) : () float64
    mul = mul(x, x) : () float64
    """
    lines = []
    for node in ancestors(outputs):
        parts = [x.name for x in node.inputs]
        parts += [f"{k}={shape_text(v) if k == 'shape' and has_dims(v) else repr(v)}"
                  for k, v in node.attrs.items() if k != "expr"]
        if "expr" in node.attrs:
            parts.append(f"expr={node.attrs['expr']}")
        lines.append(f"{node.name} = {node.opdef.name}({', '.join(parts)}) : "
                     f"{shape_text(node.shape)} {node.dtype.name}")
    return "\n".join(lines)
