"""Tensors of unknown rank: calls recorded now, made when values arrive.

TF1's ``tf.placeholder(tf.float32)`` (no shape) takes a value of *any* shape, and
one graph serves ``{a: 3}`` and ``{a: [1, 3]}``.  Ops need ranks to be built
(which axes a sum runs over, how a gradient un-broadcasts), so a call that meets a
tensor of unknown rank -- an op function, an operator, ``gradients`` -- is
recorded instead: a *deferred* node holds the call and its arguments.  When values
arrive (``evaluate``, ``Session.run``), :func:`resolve` gives each such placeholder
the fed value's shape and makes the recorded calls again, in order, on real
tensors; the result is cached per combination of fed shapes.  Deferred tensors
have ``shape`` None (unknown rank).

Imports the graph and ``ops.base``.

>>> import symgrad as sg
>>> with sg.Graph().as_default() as g:
...     a = any_shape_placeholder(g, np.float64, "a")
...     b = a * 2 + 1
...     b.shape is None, sg.evaluate(b, {a: [1.0, 3.0]}).tolist(), sg.evaluate(b, {a: 2.0})
(True, [3.0, 7.0], np.float64(5.0))
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..errors import FeedError
from ..graph import Node
from .base import REGISTRY, Op, promote
from .fastpaths import per_order
from .python import call_outputs, runs_python


def _no_impl(*arrays, **attrs):
    raise RuntimeError("a deferred call is made by resolve(), never evaluated directly")


DEFERRED = Op("deferred", kind="special", shape=lambda in_shapes, **attrs: None,
              impl=_no_impl, grad=None, doc="a call recorded until the ranks are known")


def any_shape_placeholder(graph, dtype, name):
    """A placeholder that takes a value of any shape (TF1's ``placeholder(dtype)``)."""
    return graph.add_node(REGISTRY["placeholder"], (), {"any_shape": True}, None, dtype,
                          name=name)


def scalar_by_contract(value):
    """``value`` for an argument that is a scalar by contract (dropout's keep
    probability, a layer's ``training`` flag).  A TF1 ``placeholder(dtype)`` of any
    shape is narrowed to shape () here, so what is built on it keeps known ranks
    (``tf.layers.dense`` after ``tf.nn.dropout(h, keep_prob)`` needs h's last size);
    it then takes scalars only, as the contract says.  TF leaves the placeholder's
    shape unknown and sets the result's shape instead."""
    if isinstance(value, Node) and value.shape is None and value.attrs.get("any_shape"):
        value.shape = ()
        value.attrs = {k: v for k, v in value.attrs.items() if k != "any_shape"}
    return value


def unknown_rank(value):
    """True for a tensor of unknown rank (an any-shape placeholder or a deferred call)."""
    return isinstance(value, Node) and value.shape is None


def tensors_in(structure):
    """The nodes inside nested lists/tuples/dicts (and keyword dicts), in order."""
    out, stack = [], [structure]
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, (list, tuple)):
            stack.extend(reversed(item))
    return list(dict.fromkeys(out))


def meets_unknown_rank(values):
    """Whether a tensor of unknown rank is among ``values`` (or nested inside them)."""
    for v in values:
        if isinstance(v, Node):
            if v.shape is None:
                return True
        elif isinstance(v, (list, tuple)):
            if meets_unknown_rank(v):
                return True
        elif isinstance(v, dict) and meets_unknown_rank(v.values()):
            return True
    return False


class Call:
    """A recorded call ``fn(*args, **kwargs)``; made again with tensors substituted."""

    def __init__(self, fn, args, kwargs):
        self.fn, self.args, self.kwargs = fn, args, kwargs

    def make(self, mapping, memo):
        if id(self) not in memo:
            args = _substitute(self.args, mapping)
            kwargs = _substitute(self.kwargs, mapping)
            memo[id(self)] = self.fn(*args, **kwargs)
        return memo[id(self)]

    def __repr__(self):
        return f"<deferred {getattr(self.fn, '__name__', 'call')}>"


def _substitute(value, mapping):
    if isinstance(value, Node):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        items = [_substitute(v, mapping) for v in value]
        return items if isinstance(value, list) else tuple(items)
    return value


def defer(fn, args, kwargs, count=None, name=None):
    """Record ``fn(*args, **kwargs)``: one deferred node, or ``count`` of them (one per
    entry of the list ``fn`` returns), of the dtype ``result_dtype`` gives."""
    inputs = tensors_in((args, kwargs))
    open_ = [t for t in inputs if unknown_rank(t)]
    if _RESOLVING and all(t in _RESOLVING[-1] for t in open_):
        # a call made again by resolve() that meets, through a closure, a tensor of
        # unknown rank resolve has made already (a cond branch reading a shapeless
        # placeholder): made at once on the made tensor
        return Call(fn, args, kwargs).make(_RESOLVING[-1], {})
    graph, cls = _innermost(inputs), getattr(type(open_[0]), "derived_class", None)
    call = Call(fn, args, kwargs)
    dtype = result_dtype(fn, args, kwargs, inputs)
    name = name or getattr(fn, "__name__", "deferred").strip("_") or "deferred"
    if count is None:
        return graph.add_node(DEFERRED, inputs, {"call": call, "index": None}, None, dtype,
                              name=name, cls=cls)
    return [graph.add_node(DEFERRED, inputs, {"call": call, "index": i}, None, dtype,
                           name=name, cls=cls) for i in range(count)]


def _innermost(nodes):
    """The graph of ``nodes`` nested deepest (a branch being traced reads outer tensors:
    the recorded call belongs to the branch, which captures them)."""
    def depth(graph):
        k = 0
        while graph.outer is not None:
            graph, k = graph.outer, k + 1
        return k
    return max((n.graph for n in nodes), key=depth)


# the mappings of the resolve() calls under way (innermost last)
_RESOLVING: list = []


def resolved(value):
    """``value`` (nested) with the tensors of unknown rank that the resolve() under way
    has made replaced by what it made (a function re-run by resolve returning a
    shapeless placeholder it closes over); unchanged outside resolve()."""
    return _substitute(value, _RESOLVING[-1]) if _RESOLVING else value


# parameters that name a function's result dtype (tf.cast's dtype, tf.shape's out_type,
# tf.argmax's output_type); their defaults count (tf.shape gives int32 unless told)
_DTYPE_PARAMETERS = ("dtype", "out_type", "output_type")
# functions with a boolean result that are not one elementwise op of the registry
_BOOLEAN = frozenset("is_nan is_inf is_finite reduce_any reduce_all in_top_k".split())


def result_dtype(fn, args, kwargs, inputs):
    """The dtype a recorded call will have: the op's dtype rule (operators, the op
    functions), a dtype the call names or defaults to, booleans for the tests; else
    the promoted dtype of its tensors (floats first).  A wrong guess would show later:
    ``tf.cond`` refuses a predicate that is not boolean, ``x.dtype`` misleads."""
    label = getattr(fn, "__name__", "")   # (a partial or a callable object has none)
    if label == "apply" and args and isinstance(args[0], (Op, str)):   # ops.apply
        op, operands = REGISTRY[args[0]] if isinstance(args[0], str) else args[0], args[1]
        applied = _applied_dtype(op, operands, kwargs)
        if applied is not None:
            return applied
    else:
        op, operands = REGISTRY.get(label), args
    named = _named_dtype(fn, args, kwargs)
    if named is not None:
        return named
    if label in _BOOLEAN:
        return np.dtype(bool)
    nodes = [t.dtype for t in tensors_in(operands)]
    if op is not None and op.kind == "elementwise" and nodes:
        try:
            return np.dtype(op.dtype_rule(nodes + [nodes[0]] * (op.nargs - len(nodes))))
        except Exception:  # noqa: BLE001 (the call itself will say what is wrong)
            pass
    floats = [t.dtype for t in inputs if t.dtype.kind == "f"]
    return promote(floats) if floats else promote([t.dtype for t in inputs])


def _named_dtype(fn, args, kwargs):
    """The dtype argument of the call (or its default), when fn has one."""
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    bound.apply_defaults()
    for name in _DTYPE_PARAMETERS:
        value = bound.arguments.get(name)
        if value is not None:
            try:
                return np.dtype(getattr(value, "as_numpy_dtype", value))
            except TypeError:
                return None
    return None


def deferrable(count=None, result=None, name=None):
    """Decorate a graph-building function: calls meeting a tensor of unknown rank are
    recorded (``count(args, kwargs)``: how many tensors a list result holds;
    ``result(list)``: the result made of that list, where it is not a list;
    ``name(args, kwargs)``: the node's name when the call gives none, else the
    function's)."""
    def wrap(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if meets_unknown_rank(args) or kwargs and meets_unknown_rank(kwargs.values()):
                n = count(*args, **kwargs) if count is not None else None
                given = kwargs.get("name")   # (tf.square(d, name="loss") is "loss:0")
                label = given if isinstance(given, str) and given else (
                    name(*args, **kwargs) if name is not None else None)
                made = defer(fn, args, kwargs, n, name=label)
                return made if result is None or not isinstance(made, list) else result(made)
            return fn(*args, **kwargs)
        return wrapper
    return wrap


def _applied_dtype(op, inputs, kwargs):
    """The dtype ``ops.apply(op, inputs, **attrs)`` gives, from the op's dtype rule with
    its attributes: a comparison is bool, a cast its target.  None (infer otherwise)
    when a Python number among the inputs could change the promotion, unless the rule
    says bool, or when the rule cannot judge these inputs."""
    attrs = {k: v for k, v in kwargs.items() if k != "name"}
    dtypes = [v.dtype for v in inputs if isinstance(v, Node)]
    try:
        out = np.dtype(op.dtype_rule(dtypes, **attrs))
    except Exception:  # noqa: BLE001 (a rule that needs what only the made call knows)
        return None
    numbers = len(dtypes) < len(inputs)
    return out if out.kind == "b" or not numbers else None


def applied_name(op, inputs, name=None, **attrs):
    """The name of a recorded ``ops.apply``: the op's (``square``), not ``apply``."""
    return op if isinstance(op, str) else getattr(op, "name", None)


def resolve(nodes, feeds, run=None):
    """``{node: real node}`` for the placeholders of unknown rank and the deferred
    calls among ``nodes`` (topological order), at the shapes of the values in
    ``feeds``; cached on the graph per combination of fed shapes.

    A Python call's output of unknown rank (``ops.python``) has its shape when the
    function runs: ``run(nodes, feeds) -> {node: value}`` evaluates its inputs, the
    function is called here (once: the run reads its values, which are added to
    ``feeds`` keyed by the nodes made for them) and what follows is made at the
    shapes it returned (cached per combination of those too).  Without ``run``
    (closed forms) the call is taken as a scalar, like a placeholder in
    :func:`at_scalars`."""
    if not nodes:
        return {}
    # (the nodes of unknown shape, looked for once per order list a session keeps: a
    # training step's thousands of nodes were walked at every run; a shape set since
    # is known, so the few found are asked again)
    open_ = [n for n in per_order(nodes, "_open_nodes", _unknown_shapes) if n.shape is None]
    if not open_:
        return {}
    graph = open_[0].graph
    key = tuple(sorted((p.id, np.shape(v)) for p, v in feeds.items() if p.shape is None))
    made = _Resolution(graph, key, feeds, run)
    _RESOLVING.append(made.mapping)
    try:
        for node in open_:
            made.make(node)
    finally:
        _RESOLVING.pop()
    return made.mapping


def _unknown_shapes(nodes):
    return [n for n in nodes if n.shape is None]


class _Resolution:
    """One resolve(): the cache entry in use (``mapping``, ``memo``), which changes
    when a Python call returns shapes (each combination has its own entry)."""

    def __init__(self, graph, key, feeds, run):
        self.cache = graph.__dict__.setdefault("_resolved", {})
        self.key, self.feeds, self.run, self.called = key, feeds, run, set()
        self.mapping, self.memo = self.cache.setdefault(key, ({}, {}))

    def make(self, node):
        if runs_python(node):
            self.call(node)
        elif node in self.mapping:
            return
        elif "call" not in node.attrs:
            self.placeholder(node)
        else:
            made = node.attrs["call"].make(self.mapping, self.memo)
            index = node.attrs["index"]
            made = made if index is None else made[index]
            if made is None:
                raise FeedError(f"{node.name!r} is None at the shapes fed (nothing connects "
                                "it); it has no value")
            if made.shape is None and runs_python(made):   # (a map_fn made a Python call)
                self.call(made)
                made = self.mapping[made]
            self.mapping[node] = made

    def placeholder(self, node):
        if node not in self.feeds:
            raise FeedError(f"placeholder {node.name!r} (any shape) was not fed; pass "
                            f"feed_dict={{{node.name}: value}}")
        # (named as the placeholder: printed forms show its name)
        self.mapping[node] = node.graph.add_node(node.opdef, (), {}, np.shape(self.feeds[node]),
                                                 node.dtype, name=node.op_name)

    def call(self, node):
        """Run the Python call of ``node`` (every output of it, once), go on in the cache
        entry of the shapes it returned, and feed its values to the nodes made."""
        call = node.attrs["call"]
        if call in self.called:
            return
        self.called.add(call)
        inputs = [self.mapping.get(x, x) for x in node.inputs]
        if self.run is None:   # closed forms (at_scalars): an opaque call per entry
            self.switch(tuple((n.id, ()) for n in call.nodes if n.shape is None))
            for out in call.nodes:
                if out.shape is None and out not in self.mapping:
                    self.mapping[out] = _python_at(out, inputs, ())
            return
        values = self.run(inputs, {self.mapping.get(k, k): v for k, v in self.feeds.items()})
        outs = call_outputs(node, [values[x] for x in inputs])
        self.switch(tuple((n.id, v.shape) for n, v in zip(call.nodes, outs) if n.shape is None))
        for out, value in zip(call.nodes, outs):
            if out.shape is not None:   # (set_shape'd): its value for this run
                self.feeds[out] = value
                continue
            if out not in self.mapping:
                self.mapping[out] = _python_at(out, inputs, value.shape)
            self.feeds[self.mapping[out]] = value

    def switch(self, shapes):
        """Go on in the cache entry of the shapes met so far and ``shapes``."""
        self.key = self.key + shapes
        if self.key not in self.cache:   # what was made before the call stays valid
            self.cache[self.key] = (dict(self.mapping), dict(self.memo))
        self.mapping, self.memo = self.cache[self.key]
        _RESOLVING[-1] = self.mapping


def _python_at(out, inputs, shape):
    """A Python call's output ``out`` made again at ``shape`` on ``inputs``."""
    attrs = dict(out.attrs, declared=tuple(shape))
    return out.graph.add_node(out.opdef, inputs, attrs, tuple(shape), out.dtype,
                              name=getattr(out, "op_name", out.name), cls=type(out))


def at_scalars(node):
    """``node`` (of unknown rank) made with the placeholders of unknown rank it reads
    taken as scalars: its closed form is that of each entry, whatever shapes are fed.
    Raises what the recorded calls raise at scalars (``matmul`` needs matrices)."""
    from ..graph import ancestors
    nodes = ancestors([node])
    feeds = {p: np.zeros((), p.dtype) for p in nodes if p.shape is None and "call" not in p.attrs}
    return resolve(nodes, feeds)[node]


__all__ = ["DEFERRED", "any_shape_placeholder", "scalar_by_contract", "unknown_rank", "defer",
           "deferrable", "applied_name", "resolve", "resolved", "tensors_in",
           "at_scalars"]
