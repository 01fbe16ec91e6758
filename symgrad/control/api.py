"""``sg.cond``, ``sg.while_loop``, ``sg.map_fn``, ``sg.scan``: TF's functional control flow.

The Python functions are traced once into sub-graphs (``control.function``); the
control op owning them runs them at evaluation.  ``scan`` is a while loop over a
row counter (rows read and written with one-hot masks), so its gradients are the
loop's; so is ``map_fn`` when fn cannot be applied to all rows at once
(``control.vectorize``).

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.Variable(3.0, name="x")
...     i, s = while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * x), [0, 1.0])
...     float(s.numpy()), [float(g.numpy()) for g in sg.gradients(s, x)]
(81.0, [108.0])
"""
from __future__ import annotations

import inspect

import numpy as np

from ..errors import ArgumentError, ArgumentTypeError, BranchDtypeError, DtypeError, \
    ShapeError
from ..graph import Dim, Node, is_static, same_up_to_unknown
from ..ops import apply, as_node, common_graph, literal
from ..ops.base import filled
from ..ops.deferred import meets_unknown_rank
from ..tracing import get_default_graph
from ..tracing.arrays import iota_of
from .function import bind_captures, captured, flatten, layout, trace, unpack
from .ops import while_node
from .python_rows import python_rows
from .shapeless import check_made_inside, record, resolving, scalar_predicate
from .vectorize import map_rows

__all__ = ["cond", "while_loop", "map_fn", "scan"]


def _graph(values):
    return common_graph([v for v in values if isinstance(v, Node)]) or \
        get_default_graph().innermost()


_KEEP_SHAPES = ("symgrad keeps shapes static (shape_invariants with unknown dimensions are "
                "not supported): keep every shape")


def _check_outputs(what, got, want, keep=_KEEP_SHAPES):
    """Outputs ``got`` (a Function's, fixed in place) must match nodes ``want`` in
    number, shape and dtype; a size known only at run time may come from another
    placeholder (``mask * h`` takes the mask's): it is relabelled as ``want``'s, the
    sizes compared when values arrive."""
    if len(got) != len(want):
        raise ArgumentError(f"{what} returned {len(got)} tensors but {len(want)} are needed; "
                            "return the same structure")
    for k, (g, w) in enumerate(zip(got, want)):
        if g.shape is None and w.shape is not None:   # (TF's message; a tf.py_func result)
            raise ShapeError(f"Input tensor {w.name!r} enters the loop with shape {w.shape}, "
                             f"but has shape <unknown> after one iteration ({what}, output "
                             f"{k}); give it a shape in the body with set_shape")
        if g.shape != w.shape and same_up_to_unknown(g.shape, w.shape) and \
                not is_static(g.shape) and not is_static(w.shape):
            with g.graph.as_default():
                got[k] = g = apply("reshape", [g], shape=tuple(w.shape))
        if g.shape != w.shape:
            raise ShapeError(f"{what}: output {k} has shape {g.shape} but {w.shape} is needed "
                             f"({w.name!r}); {keep}")
        if g.dtype != w.dtype:
            raise DtypeError(f"{what}: output {k} has dtype {g.dtype} but {w.dtype} is needed "
                             f"({w.name!r}); cast it with sg.cast(..., {w.dtype.name!r})")


def _check_branch_dtypes(true_outputs, false_outputs):
    """TF's ValueError for branches of one structure whose dtypes differ."""
    ts, fs = [o.dtype.name for o in true_outputs], [o.dtype.name for o in false_outputs]
    if len(ts) == len(fs) and ts != fs:
        raise BranchDtypeError("Outputs of 'true_fn' and 'false_fn' must have the same "
                               f"type(s). Received {', '.join(ts)} from 'true_fn' and "
                               f"{', '.join(fs)} from 'false_fn'. Cast one branch's "
                               "result (tf.cast) so that both agree")


def _typed(fn, like):
    """``fn`` whose Python-number results take the dtypes of the nodes ``like``."""
    def wrapped(*args):
        flat, structure = flatten(fn(*args))
        if len(flat) == len(like):
            flat = [v if isinstance(v, Node) or v is None else
                    literal(get_default_graph(), v, like[k].dtype) for k, v in enumerate(flat)]
        return structure(flat)
    return wrapped


def _check_callable(*named, what, hint):
    """A TypeError naming the first of ``named`` [(argument, value)] that is not
    callable (TF's: "'true_fn' must be callable.")."""
    for argument, value in named:
        if not callable(value):
            raise ArgumentTypeError(f"{what}: '{argument}' must be callable ({hint}), got "
                                    f"{type(value).__name__} {value!r:.60}")


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` where ``pred`` holds, else ``false_fn()``; only the branch taken runs.

    Gradients flow only through the branch taken; tensors used only by the other
    branch get zeros (TF), ``pred`` gets none.  A Python bool ``pred`` just calls
    the branch (TF 2).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     x = sg.Variable(-2.0, name="x")
    ...     y = cond(x > 0, lambda: x ** 2, lambda: -x)
    ...     float(y.numpy()), float(sg.gradients(y, x)[0].numpy())
    (2.0, -1.0)
    """
    _check_callable(("true_fn", true_fn), ("false_fn", false_fn), what="cond(pred, true_fn, "
                    "false_fn)", hint="a function taking no arguments, e.g. lambda: x * 2")
    if isinstance(pred, (bool, np.bool_)):
        return true_fn() if pred else false_fn()
    if isinstance(pred, Node) and pred.shape is None and pred.dtype.kind == "b":
        return _recorded_cond(pred, true_fn, false_fn, name)
    if isinstance(pred, Node) and pred.dtype.kind == "b" and pred.shape != ():
        raise ShapeError(f"cond(pred): needs a scalar boolean tensor, got one of shape "
                         f"{pred.shape} ({pred.name!r}); reduce it first (sg.reduce_all, "
                         "sg.reduce_any), or choose per element with sg.where")
    if not isinstance(pred, Node) or pred.dtype.kind != "b" or pred.shape != ():
        raise DtypeError(f"cond(pred): needs a scalar boolean tensor, got {pred!r}; "
                         "compare first, e.g. sg.cond(x > 0, f, g) (sg.where chooses per element)")
    graph = _graph([pred])
    t = trace(graph, "cond_true", true_fn, [])
    if any(o.shape is None for o in t.outputs):
        return _recorded_cond(pred, true_fn, false_fn, name, t)
    f = trace(graph, "cond_false", _typed(false_fn, t.outputs), [])
    if any(o.shape is None for o in f.outputs):
        return _recorded_cond(pred, true_fn, false_fn, name, t)
    check_made_inside("cond's branch", [t, f])
    _check_branch_dtypes(t.outputs, f.outputs)
    _check_outputs("cond's false_fn", f.outputs, t.outputs, "symgrad keeps shapes static, "
                   "so both branches must return tensors of one shape (TF would give the "
                   "result an unknown size)")
    caps = captured([t, f])
    t, f = bind_captures(t, caps), bind_captures(f, caps)
    node = apply("cond", [pred] + caps, branches=(t, f), layout=layout(t.outputs),
                 name=name or "cond")
    return t.structure(unpack(node, node.attrs["layout"]))


def _recorded_cond(pred, true_fn, false_fn, name, traced=None):
    """``cond`` over tensors of unknown rank (TF1's shapeless placeholders: a predicate
    computed from them, or a branch returning one), made when their values arrive;
    ``traced``: the true branch, when traced already."""
    graph = _graph([pred])
    probes = [traced or trace(graph, "cond_probe", true_fn, []),
              trace(graph, "cond_probe", false_fn, [])]
    check_made_inside("cond's branch", probes, [pred])
    check = scalar_predicate if pred.shape is None else (lambda p: p)
    return record(lambda p: cond(check(p), resolving(true_fn), resolving(false_fn), name),
                  [pred], probes, probes[0], name or "cond")


def _iterations(maximum_iterations):
    if maximum_iterations is None:
        return None
    value = maximum_iterations
    if isinstance(value, Node):
        if value.value is None or value.inputs:
            raise ArgumentError("maximum_iterations must be known when the loop is built: "
                                "pass a Python int or a constant")
        value = value.value
    if np.ndim(value) != 0 or int(value) != value or int(value) < 0:
        raise ArgumentError(f"maximum_iterations={maximum_iterations!r}: pass an int >= 0")
    return int(value)


def _var_names(body, inits):
    """Loop var names for closed forms: the body's own parameter names when it has them."""
    try:
        params = list(inspect.signature(body).parameters.values())
    except (TypeError, ValueError):
        params = []
    if len(params) == len(inits) and all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params):
        return {k: p.name for k, p in enumerate(params)}
    return {k: v.name.split("/")[-1] for k, v in enumerate(inits)}


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None,
               return_same_structure=True):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``; like ``tf.while_loop``.

    Args:
        cond, body: callables taking the loop vars; cond returns a scalar bool tensor,
            body the new loop vars (same structure, shapes and dtypes).
        loop_vars: a tensor, number or (nested) list/tuple of them.
        maximum_iterations: an int capping the trip count.
        back_prop: False makes the loop a constant for gradients.
        shape_invariants, parallel_iterations, swap_memory: accepted; shapes must stay fixed.
        return_same_structure: False returns a lone loop var unwrapped (TF 1's default).
    Returns:
        the final loop vars, in the structure of ``loop_vars``.

    Gradients run backwards over the stored iterates; tensors the body captures get
    the sum over iterations; integer loop vars carry none.
    """
    _check_callable(("cond", cond), ("body", body), what="while_loop(cond, body, loop_vars)",
                    hint="a function of the loop vars, e.g. lambda i, x: i < 10")
    flat, structure = flatten(loop_vars)
    graph = _graph(flat)
    inits = [as_node(v, graph) for v in flat]
    single = not isinstance(loop_vars, (list, tuple))

    def call(fn):
        return lambda *args: fn(structure(list(args))) if single else fn(*structure(list(args)))
    specs = [(v.shape, v.dtype) for v in inits]
    names = _var_names(body, inits)
    c = trace(graph, "while_cond", call(cond), specs, names)
    b = trace(graph, "while_body", _typed(call(body), inits), specs, names)
    caps = captured([c, b])
    if any(v.shape is None for v in inits + caps):
        # TF1's shapeless placeholders among the loop vars or read by cond or body
        return record(lambda *vs: while_loop(
            resolving(cond), resolving(body), structure(list(vs)), back_prop=back_prop,
            maximum_iterations=maximum_iterations, name=name), inits, [c, b], b,
            name or "while", structure, single and not return_same_structure)
    if len(c.outputs) != 1 or c.outputs[0].dtype.kind != "b" or c.outputs[0].shape != ():
        raise DtypeError("while_loop's cond must return one scalar boolean tensor, e.g. "
                         "lambda i, x: i < 10")
    _check_outputs("while_loop's body", b.outputs, inits)
    c, b = bind_captures(c, caps), bind_captures(b, caps)
    node = while_node(inits + caps, c, b, len(inits), _iterations(maximum_iterations),
                      back_prop=bool(back_prop), name=name or "while")
    outs = unpack(node, node.attrs["layout"])[:len(inits)]
    if not return_same_structure and len(outs) == 1:
        return outs[0]
    return structure(outs)


def _rows(elems, what):
    flat, structure = flatten(elems)
    graph = _graph(flat)
    nodes = [as_node(e, graph) for e in flat]
    if not nodes or any(e.ndim == 0 for e in nodes):
        raise ShapeError(f"{what}(elems): needs tensors of rank >= 1 (it runs over axis 0)")
    n = nodes[0].shape[0]
    # another unknown length is relabelled as the first's (compared when values arrive)
    nodes = [apply("reshape", [e], shape=(n,) + tuple(e.shape[1:]))
             if isinstance(n, Dim) and isinstance(e.shape[0], Dim) and e.shape[0] != n else e
             for e in nodes]
    if any(e.shape[0] != n for e in nodes):
        raise ShapeError(f"{what}(elems): every tensor needs the same length along axis 0, "
                         f"got {[e.shape[0] for e in nodes]}")
    return nodes, structure, n, graph


def _mask(i, n, ndim):
    """Row i of an (n, ...) tensor as a boolean mask broadcasting over the other axes."""
    rows = apply("reshape", [iota_of(i.graph, n, i.dtype)], shape=(n,) + (1,) * (ndim - 1))
    return apply("equal", [rows, i])


def _count(nodes, n):
    """The number of rows as a loop bound: n, or read when values arrive (a Dim)."""
    if not isinstance(n, Dim):
        return n
    return apply("cast", [apply("dim_size", [nodes[0]], axis=(0,))], dtype="int64")


def _read(elems, i):
    zero = literal(i.graph, np.zeros((), elems.dtype))
    picked = apply("where", [_mask(i, elems.shape[0], elems.ndim), elems, zero])
    return apply("reduce_sum", [picked], axis=(0,), keepdims=False)


def write_row(stack, i, value):
    """``stack`` with row ``i`` (a scalar integer tensor) set to ``value`` (a one-hot
    ``where``: map_fn's and scan's stacks, ``tf.TensorArray``'s writes)."""
    if not isinstance(value, Node):
        value = literal(i.graph, np.asarray(value, stack.dtype))
    row = apply("reshape", [value], shape=(1,) + value.shape)
    return apply("where", [_mask(i, stack.shape[0], stack.ndim), row, stack])


def _stacks(graph, specs, n):
    return [filled(graph, 0, (n,) + tuple(shape), dtype) for shape, dtype in specs]


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None, vectorize=True):
    """``stack([fn(row) for row in elems])`` (like ``tf.map_fn``).

    ``elems`` may be a tensor or a (nested) tuple of tensors of one length; fn's
    results are stacked along a new axis 0.  dtype, parallel_iterations, swap_memory,
    infer_shape and fn_output_signature are accepted (the result's dtype is fn's).

    fn is traced once on one row.  When its ops have batching rules, the result is
    fn's body over all rows at once (``control.vectorize``: O(n) per run, plain ops
    for gradients and closed forms); otherwise, or with ``vectorize=False``, a while
    loop over the rows (each read and written with a one-hot mask: O(n²)).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     m = sg.constant([[1.0, 2.0], [3.0, 4.0]])
    ...     map_fn(lambda r: sg.reduce_sum(r * r), m).numpy().tolist()
    [5.0, 25.0]
    """
    if meets_unknown_rank([elems]):   # TF1's shapeless placeholders: made when values arrive
        flat, structure = flatten(elems)
        graph = _graph(flat)
        nodes = [as_node(e, graph) for e in flat]
        probe = trace(graph, "map_fn_probe", lambda *rows: fn(structure(list(rows))),
                      [(None, e.dtype) for e in nodes])
        return record(lambda *es: map_fn(resolving(fn), structure(list(es)), back_prop=back_prop,
                                         name=name, vectorize=vectorize),
                      nodes, [probe], probe, name or "map")
    nodes, structure, n, graph = _rows(elems, "map_fn")
    probe = trace(graph, "map_fn_probe", lambda *rows: fn(structure(list(rows))),
                  [(e.shape[1:], e.dtype) for e in nodes])
    if any(o.shape is None for o in probe.outputs):   # (tf.py_func results, made inside)
        made = python_rows(probe, nodes, name or "map")
        if made is not None:
            return probe.structure(made)
    check_made_inside("map_fn's fn", [probe])
    outs = map_rows(probe, nodes, graph, back_prop, name or "map") if vectorize else None
    if outs is None:
        outs = _map_loop(fn, probe, nodes, structure, n, graph, back_prop, name)
    return probe.structure(outs)


def _map_loop(fn, probe, nodes, structure, n, graph, back_prop, name):
    """map_fn's results as a while loop writing row i of each stack at step i."""
    specs = [(o.shape, o.dtype) for o in probe.outputs]

    def body(i, *stacks):
        out, _ = flatten(fn(structure([_read(e, i) for e in nodes])))
        return [i + 1] + [write_row(s, i, o) for s, o in zip(stacks, out)]
    zero, count = literal(graph, np.int64(0)), _count(nodes, n)
    result = while_loop(lambda i, *stacks: i < count, body, [zero] + _stacks(graph, specs, n),
                        back_prop=back_prop, name=name or "map")
    return list(result[1:])


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """Cumulative ``acc = fn(acc, row)`` over the rows of ``elems``, stacked (``tf.scan``).

    Without ``initializer`` the first row is the first accumulator (and output).

    >>> import symgrad as sg
    >>> with sg.Graph().as_default():
    ...     v = sg.constant([1.0, 2.0, 3.0, 4.0])
    ...     scan(lambda acc, x: acc + x, v).numpy().tolist()
    [1.0, 3.0, 6.0, 10.0]
    """
    if reverse:
        raise ArgumentError("scan(reverse=True) is not supported; reverse elems first "
                            "(sg.reverse or elems[::-1])")
    nodes, structure, n, graph = _rows(elems, "scan")
    if initializer is None:
        start, (init, acc_structure) = 1, ([e[0] for e in nodes], structure)
    else:
        start, (init, acc_structure) = 0, flatten(initializer)
    init = [as_node(a, graph) for a in init]
    stacks = _stacks(graph, [(a.shape, a.dtype) for a in init], n)
    if start:
        first = literal(graph, np.int64(0))
        stacks = [write_row(s, first, a) for s, a in zip(stacks, init)]
    k = len(init)

    def body(i, *state):
        accs, stacks = list(state[:k]), list(state[k:])
        new, _ = flatten(fn(acc_structure(accs), structure([_read(e, i) for e in nodes])))
        new = [v if isinstance(v, Node) else literal(i.graph, np.asarray(v, a.dtype))
               for v, a in zip(new, accs)]
        _check_outputs("scan's fn", new, accs, "fn must return the shape of the accumulator "
                       "(the initializer, or elems' first row without one), as TF's scan "
                       "requires (TF: Inconsistent shapes)")
        return [i + 1] + new + [write_row(s, i, v) for s, v in zip(stacks, new)]
    count = _count(nodes, n)
    result = while_loop(lambda i, *state: i < count, body,
                        [literal(graph, np.int64(start))] + init + stacks,
                        back_prop=back_prop, name=name or "scan")
    return acc_structure(result[1 + k:])
