"""The registry's machinery: :class:`Op`, ``register``, ``apply`` and rule helpers.

An op is a primitive with
- a *shape rule* and a *dtype rule* (static, from the input shapes/dtypes),
- a numeric implementation over numpy arrays (the reference evaluator's),
- a symbolic implementation over numpy object arrays of SymPy expressions
  (the closed forms'; structural ops share one generic implementation),
- a *derivative rule* ``grad(node, g) -> [input cotangent node or None, ...]``
  that builds more graph, so gradients of gradients need nothing special,
- a one-line explanation and examples that drive the registry tests.

Rules build nodes through :func:`apply` by op name, so op modules never import
each other.  Imports ``symgrad.graph`` and ``symgrad.errors`` only.

>>> from symgrad.ops import REGISTRY
>>> REGISTRY["reduce_sum"].kind
'reduce'
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentTypeError, DtypeError, GraphError, NotATensorError, ShapeError
from ..graph import Node, is_static
from ..values import cast_value  # noqa: F401  (re-exported)
from .broadcasting import (broadcast_shapes, check_broadcast,  # noqa: F401
                           normalize_axis)  # (re-exported: rules import them from here)

REGISTRY: dict = {}


class Example:
    """An input recipe for the registry tests.

    ``args`` holds, per input, a shape (random floats drawn from ``domain``) or a
    concrete array (used as given).  ``attrs`` are passed to the op.
    """

    def __init__(self, *args, domain=(-2.0, 2.0), **attrs):
        self.args = args
        self.domain = domain
        self.attrs = attrs

    def __repr__(self):
        shapes = [a if isinstance(a, tuple) else np.asarray(a).shape for a in self.args]
        return f"Example{tuple(shapes)}{self.attrs or ''}"


class Op:
    """One primitive of the registry.

    Args:
        name: registry key, also the default node name.
        kind: ``leaf``, ``elementwise``, ``structural`` (moves elements), ``reduce``,
            ``contract`` (matmul, einsum) or ``special``.
        shape: ``shape(in_shapes, **attrs) -> tuple``.
        impl: numeric rule ``impl(*arrays, **attrs) -> ndarray``.
        symbolic: ``symbolic(node, *arrays)`` over object arrays of SymPy expressions;
            defaults to ``impl`` (structural ops are written generically over dtypes).
        grad: derivative rule ``grad(node, g) -> list``; ``None`` means the op has
            none (a gradient that must pass through it raises LookupError).
        dtype: ``dtype(in_dtypes, **attrs) -> np.dtype``; defaults to numpy promotion.
        doc: one line for explanations.
        examples: :class:`Example` list for the registry-driven tests.
        merge: optional ``merge(nodes) -> nodes``: when a reverse sweep sums several
            cotangents made by this op, it may fuse them into fewer nodes (point
            scatters into one scatter), keeping the sum linear in the graph size.
        selects: True when every output element is a copy of one input element (a
            linear map whose matrix holds one 1 per row: reshape, transpose, copies
            along axes, slices and gathers); Hessians are taken after such maps
            (``symgrad.frontier``).
        blocks: True when no gradient ever passes through the op (stop_gradient), or
            ``blocks(node) -> bool`` where that depends on the node (a Python call
            without a gradient); the structural connectivity of ``gradients`` over
            unknown ranks reads it.
    """

    nargs = -1   # any number of inputs (elementwise ops say how many they take)

    def __init__(self, name, *, kind, shape, impl, symbolic=None, grad=None, dtype=None,
                 doc="", examples=(), merge=None, selects=False, blocks=False):
        self.name = name
        self.kind = kind
        self.shape_rule = shape
        self.impl = impl
        self.symbolic = symbolic or (lambda node, *arrays: impl(*arrays, **node.attrs))
        self.grad = grad
        self.dtype_rule = dtype or promote
        self.doc = doc
        self.examples = list(examples)
        self.merge = merge
        self.selects = selects
        self.blocks = blocks

    def prepared(self, dtypes, attrs):
        """``impl`` for inputs of ``dtypes`` with these attributes, as a function of the
        arrays alone (the reference evaluator keeps it per node and size; ops whose
        ``impl`` looks things up per call do those lookups once here)."""
        impl = self.impl
        return (lambda *arrays: impl(*arrays, **attrs)) if attrs else impl

    def __repr__(self):
        return f"<Op {self.name}>"


def register(op):
    """Add ``op`` to the registry and return it."""
    if op.name in REGISTRY:
        raise ValueError(f"op {op.name!r} registered twice")
    REGISTRY[op.name] = op
    return op


def promote(dtypes, **attrs):
    """numpy's promotion of the input dtypes (float64 if there are none)."""
    key = tuple(dtypes)
    out = _PROMOTED.get(key)
    if out is None:  # every traced node asks: np.result_type costs microseconds
        out = _PROMOTED[key] = np.result_type(*key) if key else np.dtype(np.float64)
    return out


_PROMOTED: dict = {}


def float_result(dtypes, **attrs):
    """Promotion, but integers and booleans become float64 (sin, exp, division)."""
    out = promote(dtypes)
    return out if out.kind == "f" else np.dtype(np.float64)


def common_graph(values, what="inputs"):
    """The graph new nodes on ``values`` go into; GraphError if they are from two graphs.

    Tensors of an enclosing graph may meet tensors of a sub-graph (a cond branch or
    loop body uses outer tensors): the innermost graph wins, or the sub-graph being
    traced right now (``Graph.innermost``), which captures what it needs.
    """
    graph = None
    for v in values:  # the common case first: every tensor of one plain graph
        if isinstance(v, Node):
            if graph is None:
                graph = v.graph
            elif v.graph is not graph:
                return _innermost_graph(values, what)
    if graph is None or (graph.tracing is None and not graph.sealed):
        return graph
    return _innermost_graph(values, what)


def _innermost_graph(values, what):
    graph = None
    for v in values:
        if isinstance(v, Node):
            if graph is None or graph.encloses(v.graph):
                graph = v.graph  # the innermost: a loop body's op may use outer tensors
            elif not v.graph.encloses(graph):
                raise GraphError(
                    f"{what} mix tensors from two different graphs ({v.name!r} is from "
                    "another one); build every tensor of one computation in the same graph")
    if graph is None:
        return None
    graph = graph.innermost()
    if graph.sealed:
        raise GraphError(
            f"{what} include a tensor made inside a cond branch or a loop body, which "
            "cannot be used outside it: return it from the function instead")
    return graph


def check_value(value, what="value"):
    """Turn ``value`` into a numpy array of a supported dtype or raise DtypeError."""
    try:
        arr = np.asarray(value)
    except ValueError as exc:   # ragged lists: rows of different lengths have no shape
        raise ShapeError(f"{what} cannot be converted to an array: {exc}; give every row "
                         "the same length (pad it)") from None
    except Exception as exc:  # objects numpy cannot read as numbers
        raise DtypeError(f"{what} cannot be converted to a numeric array: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise DtypeError(
            f"{what} has dtype {arr.dtype}; symgrad tensors are real (float, int or bool): "
            "pass real numbers, e.g. np.real(z) or float(v)")
    if arr.dtype.kind == "u":
        arr = arr.astype(np.int64)
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)
    return arr


def literal(graph, value, dtype=None):
    """A constant node for a Python/numpy value met inside an expression."""
    arr = check_value(value, "a constant in the expression")
    if dtype is not None:
        arr = arr.astype(dtype)
    return graph.add_node(REGISTRY["const"], (), {"literal": True}, arr.shape, arr.dtype,
                          name="Const", value=arr)


def as_node(value, graph, like=None):
    """``value`` if it is a node, else a literal constant (weakly typed like ``like``).

    A Python scalar (or a list of them) next to a tensor takes the tensor's float
    dtype, as in TF (``2 * x`` and ``w * [1.0, 3.0]`` stay float32 when x and w are);
    next to a TF1 tensor (``compat.v1``), numpy numbers do too.
    """
    if isinstance(value, Node):
        return value
    if hasattr(value, "as_graph_tensor"):   # a TF1 assign's result (compat.state)
        return value.as_graph_tensor()
    kinds = _python_number_types(value) if like is not None else None
    if kinds and (like.dtype.kind == "f" or (like.dtype.kind in "iu" and kinds <= {int})):
        return literal(graph, value, like.dtype)
    tf1 = like is not None and like.derived_class is not None
    if tf1 and kinds and like.dtype.kind in "iu" and float in kinds:
        # TF converts a Python number to the tensor's dtype, and a float to an integer
        # dtype it refuses (symgrad alone promotes to float)
        raise TypeError(f"Expected {like.dtype.name}, but got {value!r} of type 'float': "
                        f"a Python float next to an integer tensor; cast the tensor first "
                        f"(tf.cast(x, tf.float32))")
    if tf1 and isinstance(value, (np.ndarray, np.generic)) and \
            value.dtype.kind in ("iuf" if like.dtype.kind in "iuf" else ""):
        # a TF1 program's numpy numbers take the tensor's dtype, as TF converts them
        # (``tf.ones([3]) / np.sqrt(3.0)`` stays float32; next to an int32 tensor a
        # numpy float is truncated to int32)
        return literal(graph, value, like.dtype)
    return literal(graph, value)


def _python_number_types(value):
    """The types of a Python number or of a (nested) non-empty list or tuple of them;
    None for anything else (numpy values keep their dtype)."""
    if isinstance(value, (list, tuple)):
        found = set()
        for v in value:
            kinds = _python_number_types(v)
            if not kinds:
                return None
            found |= kinds
        return found or None
    if isinstance(value, (bool, int, float)) and not isinstance(value, np.generic):
        return {type(value)}
    return None


def apply(op, inputs, name=None, **attrs):
    """Add a node applying ``op`` (a name or an Op) to ``inputs``.

    Non-node inputs become literal constants.  The shape and dtype come from the
    op's rules, so errors surface here, at trace time, naming the op.
    """
    op = REGISTRY[op] if op.__class__ is str else op
    if op.nargs >= 0 and len(inputs) != op.nargs:
        # An extra array would reach the numpy function as its out= argument.
        raise ArgumentTypeError(f"{op.name} takes {op.nargs} input(s), got {len(inputs)}")
    graph = plain_graph(inputs)   # every traced node asks: the common case inline
    if graph is None:
        return _apply_placed(op, inputs, name, attrs)
    shape = op.shape_rule([n.shape for n in inputs], **attrs)
    dtype = op.dtype_rule([n.dtype for n in inputs], **attrs)
    return graph.add_node(op, inputs, attrs, shape, dtype, name)


def derived_node(op, inputs, attrs, shape, dtype):
    """``apply(op, inputs, **attrs)`` for a node a derivative rule makes from nodes of
    one graph, whose shape and dtype the rule already knows (memoised per rule): the
    arity, the lifting of numbers and the shape and dtype rules are skipped, as they
    cannot fail there.  Anything but the plain case goes through ``apply``."""
    graph = plain_graph(inputs)
    if graph is None:
        return apply(op, inputs, **attrs)
    return graph.add_node(op, inputs, attrs, shape, dtype)


def plain_graph(inputs):
    """The graph of ``inputs`` when they are all nodes of one graph that takes new nodes
    directly (no sub-graph being traced inside it, no TF1 tensor class); else None."""
    graph = None
    for v in inputs:
        if not isinstance(v, Node) or v.derived_class is not None:
            return None
        if graph is None:
            graph = v.graph
        elif v.graph is not graph:
            return None
    if graph is None or graph.tracing is not None or graph.sealed:
        return None
    return graph


def _apply_placed(op, inputs, name, attrs):
    """``apply`` in general: the graph new nodes on ``inputs`` go into, numbers lifted to
    literals (weakly typed like the first float tensor), TF1 tensors' checks and class."""
    graph = common_graph(inputs, "the inputs of " + op.name)
    if graph is None:
        raise NotATensorError(f"{op.name} needs at least one tensor input")
    nodes = [v for v in inputs if isinstance(v, Node)]
    if len(nodes) != len(inputs):
        like = next((v for v in nodes if v.is_float), nodes[0])
        nodes = [as_node(v, graph, like) for v in inputs]
    shape = op.shape_rule([n.shape for n in nodes], **attrs)
    dtype = op.dtype_rule([n.dtype for n in nodes], **attrs)
    # a TF1 tensor's results are TF1 tensors (compat.v1), which check their inputs as TF does
    cls = None
    for n in nodes:
        if n.derived_class is not None:
            cls = n.derived_class
            cls.check_inputs(op, nodes)
            break
    return graph.add_node(op, nodes, attrs, shape, dtype, name=name, cls=cls)


class _Builder:
    """``F.add(a, b)`` is ``apply("add", [a, b])``: terse graph building in rules."""

    def __getattr__(self, name):
        op = REGISTRY.get(name, name)   # the Op itself once registered (a name raises later)

        def build(*inputs, **attrs):
            return apply(op, list(inputs), **attrs)
        build.__name__ = name
        if not name.startswith("__"):
            setattr(self, name, build)   # found at once next time (rules ask per node)
        return build


F = _Builder()


def unbroadcast(g, shape):
    """Sum the cotangent ``g`` over the axes broadcasting added, back to ``shape``.

    d(broadcast x)/dx sums: every copy of an element sends its gradient home.
    """
    if g.shape == tuple(shape):
        return g
    lead = len(g.shape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and g.shape[lead + i] != 1)
    summed = F.reduce_sum(g, axis=axes, keepdims=False) if axes else g
    return summed if summed.shape == tuple(shape) else F.reshape(summed, shape=tuple(shape))


def merge_terms(terms):
    """Let each op fuse the cotangent terms it made (``Op.merge``) before they are summed."""
    by_op = {}
    for t in terms:
        by_op.setdefault(t.opdef, []).append(t)
    out = []
    for op, group in by_op.items():
        out.extend(op.merge(group) if op.merge is not None and len(group) > 1 else group)
    return out


def filled(graph, value, shape, dtype):
    """A tensor of ``shape`` filled with ``value``: a literal when the shape is known,
    else a literal scalar broadcast to the (run-time) shape."""
    # (the dtype given again: literal would widen uint8 to int64 and float16 to float32)
    if is_static(shape):
        return literal(graph, np.full(shape, value, dtype=dtype), dtype)
    return F.broadcast_to(literal(graph, np.array(value, dtype=dtype), dtype),
                          shape=tuple(shape))


def zeros_like(node, dtype=None):
    """A zero tensor shaped like ``node`` (a literal when its shape is known)."""
    return filled(node.graph, 0, node.shape, dtype or node.dtype)


def as_object_array(value):
    """Wrap a SymPy object (or nested result) as a numpy object array."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == object else value.astype(object)
    out = np.empty((), dtype=object)
    out[()] = value
    return out
