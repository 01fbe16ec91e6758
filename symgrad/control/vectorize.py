"""``map_fn`` as one batched body: fn applied to every row at once.

map_fn traces fn once on one row (its probe, a sub-graph).  When every op of that
body that reads the row has a batching rule (``ops.batching``), the body is rebuilt
with the rows' axis as the batch axis and copied into the caller's graph: ordinary
ops, O(n) work per run, whose gradients, Hessians and closed forms need no loop.
Otherwise map_fn stays the while loop of ``control.api``, which runs any fn.  The
loop is kept when the body

- makes a variable or a placeholder (the loop's body keeps them to itself);
- holds an op whose batching rule keeps its value but not its derivative (a custom
  gradient), or a random draw inside a cond or loop of its own;
- would unroll an op row by row: an op without a rule, a rule that does not apply
  (a boolean mask per row), a cond or loop whose condition reads the row.

The last is found by a trial: the body batched over a number of rows known only at
run time (a Dim), which cannot be unrolled, so any op that would be raises.  Random
draws of the body are made per row (``batched_nodes(fresh=True)``): each row gets
its own numbers, as each iteration of TF's map_fn draws anew.

Imports the graph, the op registry and its batching rules, and control functions.

>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     m = sg.constant([[1.0, 2.0], [3.0, 4.0]])
...     y = sg.map_fn(lambda r: sg.reduce_sum(r * r), m)
...     y.opdef.name, y.numpy().tolist()
('reduce_sum', [5.0, 25.0])
"""
from __future__ import annotations

from ..graph import Dim, ancestors
from ..ops import F, apply
from ..ops.batching import batched_nodes, keeps_gradient, spread
from ..tracing.kernel_notes import carry
from .function import Function

__all__ = ["map_rows", "batchable", "rows_function", "inline"]


def map_rows(probe, elems, graph, back_prop=True, name="map"):
    """The outputs of ``probe`` (fn traced on one row of each of ``elems``) for all
    rows at once, built in ``graph``: one node per output, its shape (n,) + the
    output's; None when the body cannot be batched (module docstring)."""
    size = elems[0].shape[0]
    if not batchable(probe, size):
        return None
    body = rows_function(probe, size)
    outer = {arg: x for x, arg in probe.graph.captures.items()}
    args = list(elems) + [outer[p] for p in probe.params[probe.explicit:]]
    with graph.name_scope(name):
        outs = inline(body, args, graph)
        # a new tensor even where fn returns its row (the loop's result is one)
        outs = [F.identity(o) if o in args else o for o in outs]
        if not back_prop:   # the loop's back_prop=False: a constant for gradients
            outs = [F.stop_gradient(o) if o.is_float else o for o in outs]
    return outs


def batchable(probe, size):
    """True when ``probe``'s body can be batched over ``size`` rows without unrolling."""
    if any(_keeps_loop(node, depth, probe) for node, depth in _body_nodes(probe)):
        return False
    trial = size if isinstance(size, Dim) else Dim.fresh("n_map_rows")
    try:
        rows_function(probe, trial)
    except Exception:  # noqa: BLE001 (an op unrolled per row, or a rule that cannot take
        return False   # a run-time size: either way the loop runs this fn)
    return True


def _keeps_loop(node, depth, probe):
    """True for a node of fn's body (``depth`` > 0: inside a cond or loop of its own)
    that the batched body cannot hold."""
    if not keeps_gradient(node.opdef):
        return True
    if depth:
        return getattr(node.opdef, "fresh", None) is not None   # its draw is not per row
    # a leaf other than a constant or a parameter: a variable or placeholder fn made
    return node.opdef.kind == "leaf" and node.opdef.name != "const" and \
        node not in probe.params


def _body_nodes(function, depth=0):
    """(node, depth) for every node ``function``'s outputs need, and for the nodes of
    the sub-graphs of its control ops (depth + 1)."""
    for node in ancestors(function.outputs):
        yield node, depth
        for inner in _functions(node.attrs.values()):
            yield from _body_nodes(inner, depth + 1)


def _functions(values):
    for value in values:
        if isinstance(value, Function):
            yield value
        elif isinstance(value, tuple):
            yield from _functions(value)


def rows_function(probe, size):
    """``probe`` over ``size`` rows, built on its own graph: a Function of (rows of each
    elem, then the captured tensors) whose outputs lead with ``size`` (an output that
    does not depend on the row is broadcast, as the loop writes it into every row)."""
    key = ("rows", size)
    if key not in probe.derived:
        sub, k = probe.graph, probe.explicit
        with sub.as_default():
            rows = [sub.argument((size,) + tuple(p.shape), p.dtype, "rows")
                    for p in probe.params[:k]]
            new = batched_nodes(probe.outputs, dict(zip(probe.params[:k], rows)), size,
                                fresh=True)
            carry(new, batched=set(new))   # (TF's run-time checks, kernel_notes)
            outputs = [new[o] if o in new else spread(o, size) for o in probe.outputs]
        probe.derived[key] = Function(sub, rows + probe.params[k:], outputs,
                                      f"{probe.label} over rows", probe.structure)
    return probe.derived[key]


def inline(function, args, graph):
    """The outputs of ``function`` built in ``graph`` over ``args`` (one per param, in
    ``graph``): each node applied again there, constants copied."""
    copies = dict(zip(function.params, args))
    for node in ancestors(function.outputs):
        if node in copies:
            continue
        if node.inputs:
            copies[node] = apply(node.opdef, [copies[x] for x in node.inputs], **node.attrs)
        else:   # a constant of fn's body (batchable keeps out every other leaf)
            copies[node] = graph.add_node(node.opdef, (), dict(node.attrs), node.shape,
                                          node.dtype, value=node.value)
    carry(copies)
    return [copies[o] for o in function.outputs]
