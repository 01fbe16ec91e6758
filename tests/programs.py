"""Random TF-style programs for property tests, drawn with hypothesis.

A program is built step by step from the public ``sg.*`` functions: every step
picks a builder that fits the shapes at hand (broadcasting, reductions, matmul,
indexing, where, maximum/minimum, stop_gradient, concat/stack, softmax, ...).
Some steps instead call a public function wrongly (a tensor too many or too few,
``axis=True``, ``keepdims=2``, ...) and check that it raises ``ArgumentTypeError``
without adding to the graph (``Program.wrong_calls`` lists them).
Inputs of ops with a restricted domain are first mapped into it (``log`` sees
``softplus(u) + 0.5``), so values stay finite.  ``Program.code`` is the program as
readable Python, which hypothesis prints for a failing (shrunk) example.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import symgrad as sg

SHAPES = [(), (2,), (3,), (2, 3)]


class Program:
    """A drawn program: its graph, leaves, intermediate nodes, ys, xs, seeds, code."""

    def __init__(self, graph):
        self.graph = graph
        self.leaves, self.nodes, self.lines = [], [], []
        self.ys, self.xs, self.grad_ys = [], [], None
        self.wrong_calls = []      # wrong-arity/kind calls drawn (each checked to raise)

    def add(self, node, text):
        self.nodes.append(node)
        self.lines.append(f"{node.name} = {text}")
        return node

    @property
    def code(self):
        return "\n".join(self.lines + [f"ys = {[y.name for y in self.ys]}",
                                       f"xs = {[x.name for x in self.xs]}"])

    def __repr__(self):
        return "Program:\n" + self.code


def _positive(t):
    return sg.softplus(t) + 0.5


def _unary(draw, p, t):
    choice = draw(st.sampled_from([
        "sin", "cos", "tanh", "sigmoid", "softplus", "atan", "square", "neg", "abs", "relu",
        "erf", "log", "sqrt", "reciprocal", "exp", "log1p", "stop_gradient", "sinh"]))
    if choice in ("log", "sqrt", "reciprocal", "log1p"):
        return p.add(getattr(sg, choice)(_positive(t)), f"{choice}(softplus({t.name}) + 0.5)")
    if choice in ("exp", "sinh"):
        return p.add(getattr(sg, choice)(sg.tanh(t)), f"{choice}(tanh({t.name}))")
    return p.add(getattr(sg, choice)(t), f"{choice}({t.name})")


def _broadcastable(a, b):
    try:
        np.broadcast_shapes(a.shape, b.shape)
        return True
    except ValueError:
        return False


def _binary(draw, p, a, b):
    if not _broadcastable(a, b):
        return None
    choice = draw(st.sampled_from(["add", "sub", "mul", "div", "maximum", "minimum", "pow",
                                   "where"]))
    if choice == "div":
        return p.add(a / (b * b + 1.0), f"{a.name} / ({b.name}**2 + 1)")
    if choice == "pow":
        return p.add(_positive(a) ** sg.tanh(b), f"(softplus({a.name}) + 0.5) ** tanh({b.name})")
    if choice == "where":
        return p.add(sg.where(a > b, a * b, a - b),
                     f"where({a.name} > {b.name}, {a.name}*{b.name}, {a.name} - {b.name})")
    ops = {"add": "+", "sub": "-", "mul": "*"}
    if choice in ops:
        return p.add(getattr(sg, choice)(a, b), f"{a.name} {ops[choice]} {b.name}")
    return p.add(getattr(sg, choice)(a, b), f"{choice}({a.name}, {b.name})")


def _structural(draw, p, t):
    if t.ndim == 0:
        return p.add(sg.stack([t, 2.0 * t, t * t]), f"stack([{t.name}, 2*{t.name}, {t.name}**2])")
    choice = draw(st.sampled_from(["reduce_sum", "reduce_mean", "reduce_max", "reduce_min",
                                   "reduce_prod", "index", "transpose", "reshape", "concat",
                                   "softmax", "logsumexp", "matmul", "tile"]))
    axis = draw(st.sampled_from([None] + list(range(t.ndim))))
    if choice.startswith("reduce_"):
        return p.add(getattr(sg, choice)(t, axis=axis), f"{choice}({t.name}, axis={axis})")
    if choice == "index":
        return p.add(t[0] if t.ndim == 1 else t[:, 1:], f"{t.name}[{'0' if t.ndim == 1 else ':, 1:'}]")
    if choice == "transpose":
        return p.add(sg.transpose(t), f"transpose({t.name})")
    if choice == "reshape":
        return p.add(sg.reshape(t, (-1,)), f"reshape({t.name}, (-1,))")
    if choice == "concat":
        return p.add(sg.concat([t, sg.sin(t)], axis=0), f"concat([{t.name}, sin({t.name})], 0)")
    if choice == "softmax":
        return p.add(sg.softmax(t), f"softmax({t.name})")
    if choice == "logsumexp":
        return p.add(sg.reduce_logsumexp(t, axis=axis), f"logsumexp({t.name}, axis={axis})")
    if choice == "tile":
        return p.add(sg.broadcast_to(t, (2,) + t.shape), f"broadcast_to({t.name}, (2,) + shape)")
    other = np.linspace(-1.0, 1.0, t.shape[-1] * 2).reshape(t.shape[-1], 2)
    return p.add(t @ other, f"{t.name} @ W{other.shape}")


_WRONG_CALLS = {
    # kind of mistake: (function names it applies to, how to call them wrongly)
    "one tensor too many": (["sin", "exp", "log", "tanh", "sigmoid", "relu", "neg", "abs",
                             "trace", "softmax", "transpose", "stop_gradient"],
                            lambda f, a, b: f(a, b)),
    "two tensors too many": (["add", "sub", "mul", "div", "maximum", "pow", "less"],
                             lambda f, a, b: f(a, b, a)),
    "a missing tensor": (["add", "mul", "maximum", "where"], lambda f, a, b: f(a)),
    "axis=True": (["reduce_sum", "reduce_max", "reduce_mean", "reduce_logsumexp", "softmax"],
                  lambda f, a, b: f(a, axis=True)),
    "axis=0.5": (["reduce_sum", "reduce_prod", "reduce_min", "logsumexp"],
                 lambda f, a, b: f(a, axis=0.5)),
    "axis=tensor": (["reduce_sum", "reduce_mean"], lambda f, a, b: f(a, b)),
    "keepdims=2": (["reduce_sum", "reduce_max", "reduce_mean", "logsumexp", "norm"],
                   lambda f, a, b: f(a, keepdims=2)),
    "positional keepdims=0": (["reduce_sum", "logsumexp"], lambda f, a, b: f(a, None, 0)),
    "an unknown keyword": (["sin", "reduce_sum", "matmul"], lambda f, a, b: f(a, b, foo=1)),
}


def _wrong_call(draw, p, a, b):
    """A wrong-arity or wrong-kind call: it must raise ArgumentTypeError and add no node."""
    kind = draw(st.sampled_from(sorted(_WRONG_CALLS)))
    names, call = _WRONG_CALLS[kind]
    fname = draw(st.sampled_from(names))
    size = len(p.graph)
    try:
        call(getattr(sg, fname), a, b)
    except sg.ArgumentTypeError as exc:
        assert fname in str(exc), (kind, fname, str(exc))
    else:
        raise AssertionError(f"sg.{fname} with {kind} ({a.name}, {b.name}) did not raise")
    assert len(p.graph) == size, f"sg.{fname} with {kind} added nodes before raising"
    p.wrong_calls.append(f"{fname}: {kind}")


CONTROL = ("cond", "while", "while_data", "map_fn")


def _control(draw, p, a, b, kinds):
    """cond on a reduction, a loop with a constant trip count, a data-dependent one, or
    map_fn over the rows of a (fn's body batched over them)."""
    other = b if _broadcastable(a, b) and np.broadcast_shapes(a.shape, b.shape) == a.shape \
        else a
    choice = draw(st.sampled_from(kinds))
    if choice == "cond":
        return p.add(sg.cond(sg.reduce_sum(a) > 0.3, lambda: a * other, lambda: sg.sin(a) - other),
                     f"cond(reduce_sum({a.name}) > 0.3, lambda: {a.name} * {other.name}, "
                     f"lambda: sin({a.name}) - {other.name})")
    c = sg.reduce_mean(b)
    if choice == "map_fn":
        rows, text = (a, a.name) if a.ndim else \
            (sg.stack([a, a * a]), f"stack([{a.name}, {a.name}**2])")
        out = sg.map_fn(lambda r: sg.tanh(r) * c + sg.reduce_sum(r * r), rows)
        return p.add(out, f"map_fn(lambda r: tanh(r) * reduce_mean({b.name}) + reduce_sum(r * r), "
                          f"{text})")
    if choice == "while":
        trips = draw(st.integers(0, 3))
        out = sg.while_loop(lambda k, v: k < trips,
                            lambda k, v: (k + 1, sg.sin(v) * 0.8 + c * v), [0, a])[1]
        return p.add(out, f"while_loop(lambda k, v: k < {trips}, lambda k, v: (k + 1, "
                          f"sin(v) * 0.8 + reduce_mean({b.name}) * v), [0, {a.name}])[1]")
    cap = draw(st.integers(1, 2))
    out = sg.while_loop(lambda v: sg.reduce_sum(v) < 1.5, lambda v: v * 1.2 + 0.3 * sg.tanh(c),
                        a, maximum_iterations=cap)
    return p.add(out, f"while_loop(lambda v: reduce_sum(v) < 1.5, lambda v: v * 1.2 + 0.3 * "
                      f"tanh(reduce_mean({b.name})), {a.name}, maximum_iterations={cap})")


@st.composite
def programs(draw, max_steps=8, max_leaves=3, control=CONTROL):
    """A random :class:`Program` in a fresh graph, with ys, xs and grad_ys drawn.

    ``control``: the control flow steps that may be drawn (``CONTROL``; ``()`` for none).
    """
    graph = sg.Graph()
    p = Program(graph)
    with graph.as_default():
        for k in range(draw(st.integers(1, max_leaves))):
            shape = draw(st.sampled_from(SHAPES))
            value = draw(st.lists(st.floats(-2.0, 2.0, allow_nan=False),
                                  min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
            leaf = sg.Variable(np.array(value, dtype=float).reshape(shape), name=f"v{k}")
            p.leaves.append(leaf)
            p.lines.append(f"v{k} = Variable({np.array(value).reshape(shape).tolist()})")
        pool = list(p.leaves)
        for _ in range(draw(st.integers(2, max_steps))):
            kind = draw(st.sampled_from(["unary", "binary", "structural", "wrong call"]
                                        + ["control"] * bool(control)))
            a = draw(st.one_of(st.sampled_from(pool[-2:]), st.sampled_from(pool)))
            if kind == "wrong call":
                out = _wrong_call(draw, p, a, draw(st.sampled_from(pool)))
            elif kind == "unary":
                out = _unary(draw, p, a)
            elif kind == "control":
                out = _control(draw, p, a, draw(st.sampled_from(pool)), control)
            elif kind == "binary":
                out = _binary(draw, p, a, draw(st.sampled_from(pool)))
            else:
                out = _structural(draw, p, a)
            if out is not None:
                pool.append(out)
        candidates = p.nodes or p.leaves
        p.ys = [candidates[-1]] + draw(st.lists(st.sampled_from(candidates), max_size=1))
        extra = draw(st.lists(st.sampled_from(p.nodes), max_size=1)) if p.nodes else []
        p.xs = list(p.leaves) + [n for n in extra if n.is_float]
        if draw(st.booleans()):
            p.grad_ys = [np.array(draw(st.lists(st.floats(-2.0, 2.0, allow_nan=False),
                                                min_size=y.size, max_size=y.size)),
                                  dtype=float).reshape(y.shape) for y in p.ys]
    return p


def sine_chain(x, steps):
    """The fixed chain f <- sin(f) * f + x[k] over the first ``steps`` entries of x (the
    benchmarks' chain workloads): a long 0-d reverse sweep."""
    f = x[0]
    for k in range(1, steps):
        f = sg.sin(f) * f + x[k]
    return f
