"""Batching rules of the control ops: a Jacobian or Hessian through ``cond`` and loops
as one sweep over a batch of seeds (``ops.batching``), not one copy per seed.

A seed reaches a loop through its tangents and cotangents, never through what decides
the control flow: ``pred`` and a loop's condition read the primal values, which no
seed changes.  So the batched op is the same op over batched sub-graphs:

- a sub-graph :class:`Function` is rebuilt with some parameters batched (a leading
  seed axis) by the same rules, on its own graph (:func:`batched_function`);
- a loop variable whose new value depends on a batched one is batched too (its
  initial value broadcast), until that settles; so is a ``while_vjp``'s adjoint;
- an output batched in one branch of a ``cond`` is broadcast in the other;
- the packed result ``(size, packed)`` is rebuilt from the batched op's packed vector,
  unbatched parts broadcast.

A condition or ``pred`` that reads a batched value has no batched form here (each
seed could stop at another step): ``batch_node`` then unrolls the op seed by seed.

Imports the control ops' helpers and ``ops.batching``.
"""
from __future__ import annotations

from ..graph import shape_size
from ..ops import REGISTRY, F, apply
from ..ops.batching import batched_nodes, spread
from .function import Function, layout
from .ops import while_node


def batched_function(function, which, size):
    """``(function with the params at indices ``which`` batched, one flag per output:
    batched or not)``, built once per (which, size) on the function's own graph."""
    key = ("batched", frozenset(which), size)
    if key not in function.derived:
        sub = function.graph
        with sub.as_default():
            params = [sub.argument((size,) + tuple(p.shape), p.dtype, "batched")
                      if i in which else p for i, p in enumerate(function.params)]
            new = batched_nodes(function.outputs, {p: q for p, q in zip(function.params, params)
                                                    if q is not p}, size)
        outputs = [new.get(o, o) for o in function.outputs]
        made = Function(sub, params, outputs, f"batched {function.label}",
                        function.structure, function.explicit)
        function.derived[key] = (made, [o in new for o in function.outputs])
    return function.derived[key]


def _with_outputs_batched(function, flags, wanted, size):
    """``function`` whose outputs at the indices ``wanted`` are batched (spread where
    ``flags`` says they are not yet)."""
    if all(flags[i] for i in wanted):
        return function
    with function.graph.as_default():
        outputs = [spread(o, size) if i in wanted and not flags[i] else o
                   for i, o in enumerate(function.outputs)]
    return Function(function.graph, function.params, outputs, function.label,
                    function.structure, function.explicit)


def _settled_loop(body, n, which, size):
    """(batched body, the batched indices): loop variables join ``which`` while the
    body makes their new value from batched ones."""
    while True:
        made, flags = batched_function(body, which, size)
        grown = which | {i for i in range(n) if flags[i]}
        if grown == which:
            return _with_outputs_batched(made, flags, {i for i in which if i < n}, size), which
        which = grown


def _unbatched_condition(function, which, size):
    """The condition over batched params, or None when it reads a batched value."""
    made, flags = batched_function(function, which, size)
    return None if any(flags) else made


def _inputs(inputs, batched, which, size):
    return [x if b or i not in which else spread(x, size)
            for i, (x, b) in enumerate(zip(inputs, batched))]


def _rows(packed, spec, flags, size):
    """The batched op's packed vector as ``(size, packed size of spec)``: each part of
    ``spec`` sliced from it (``flags``: stored with the seed axis) and spread if not."""
    parts, start = [], 0
    for (shape, _), flag in zip(spec, flags):
        count = shape_size(shape) * (size if flag else 1)
        part = apply("index", [packed], index=(slice(start, start + count),))
        start += count
        if flag:
            parts.append(F.reshape(part, shape=(size, shape_size(shape))))
        else:
            parts.append(spread(part, size))
    return parts[0] if len(parts) == 1 else F.concat(*parts, axis=1)


def _cond_batch(node, inputs, batched, size):
    if batched[0]:
        return None   # pred per seed: unrolled
    which = {i - 1 for i, b in enumerate(batched) if b}
    made = [batched_function(b, which, size) for b in node.attrs["branches"]]
    flags = [any(f[k] for _, f in made) for k in range(len(made[0][1]))]
    wanted = {k for k, f in enumerate(flags) if f}
    branches = tuple(_with_outputs_batched(b, f, wanted, size) for b, f in made)
    out = apply("cond", list(inputs), branches=branches, layout=layout(branches[0].outputs),
                name="cond_batched")
    return _rows(out, node.attrs["layout"], flags, size)


def _while_batch(node, inputs, batched, size):
    a = node.attrs
    n = a["n"]
    body, which = _settled_loop(a["body"], n, {i for i, b in enumerate(batched) if b}, size)
    cond = _unbatched_condition(a["cond"], which, size)
    if cond is None:
        return None
    out = while_node(_inputs(inputs, batched, which, size), cond, body, n,
                     a["maximum_iterations"], a["back_prop"], name="while_batched")
    return _rows(out, a["layout"], [i in which for i in range(n)] + [False], size)


def _while_vjp_batch(node, inputs, batched, size):
    a = node.attrs
    n, m = a["n"], len(a["body"].params) - a["n"]
    nf = len(inputs) - n - m
    body, which = _settled_loop(a["body"], n, {i for i in range(n + m) if batched[i]}, size)
    cond = _unbatched_condition(a["cond"], which, size)
    if cond is None:
        return None
    # the adjoint (the vjp's params after the body's) is batched where its seed is, or
    # where a step makes it from batched values
    adjoint = {n + m + k for k in range(nf) if batched[n + m + k]}
    while True:
        vjp, flags = batched_function(a["vjp"], which | adjoint, size)
        grown = adjoint | {n + m + k for k in range(nf) if flags[k]}
        if grown == adjoint:
            break
        adjoint = grown
    vjp = _with_outputs_batched(vjp, flags, {k - n - m for k in adjoint}, size)
    totals = [bool(f) for f in flags[nf:]]
    which = which | adjoint
    new_inputs = _inputs(inputs, batched, which, size)
    spec = a["layout"]
    new_spec = layout(new_inputs[n + m:]) + tuple(
        ((size,) + tuple(shape) if flag else tuple(shape), dt)
        for (shape, dt), flag in zip(spec[nf:], totals))
    out = apply("while_vjp", new_inputs, cond=cond, body=body, vjp=vjp, n=n,
                maximum_iterations=a["maximum_iterations"], layout=new_spec,
                name="while_vjp_batched")
    return _rows(out, spec, [n + m + k in adjoint for k in range(nf)] + totals, size)


REGISTRY["cond"].batch = _cond_batch
REGISTRY["while_loop"].batch = _while_batch
REGISTRY["while_vjp"].batch = _while_vjp_batch
