"""The control-flow ops of the registry: ``argument``, ``cond``, ``while_loop``, ``while_vjp``.

Each carries its sub-graphs as :class:`~symgrad.control.function.Function` attrs and
returns its outputs packed in one float64 vector (``function.unpack`` gives them
back).  Evaluation runs the sub-graphs with the reference evaluator (numeric) or
the closed-form expansion (symbolic) through one loop written once
(:class:`Interpreter`).  Derivative rules build more graph, so the reverse sweep
treats these ops like any other:

- ``cond``'s cotangent is a ``cond`` over the branches' vector-Jacobian products:
  only the branch taken contributes, captured tensors of the other branch get
  zeros, ``pred`` gets none;
- ``while_loop``'s cotangent is a ``while_vjp``: it runs the loop forward storing
  every iterate, then the body's vjp backwards over them, summing the captured
  tensors' cotangents over iterations;
- ``while_vjp``'s own cotangent (second order) is the vjp of a *tangent* loop that
  carries (x, ẋ) forward -- ⟨g, J·v⟩ differentiated, v being the incoming
  cotangent -- plus that tangent's final value for the seed.  Both are while
  loops again, so any order works.

Imports differentiate (derivatives of sub-graphs) and the layers below it.
"""
from __future__ import annotations

import numpy as np
import sympy

from ..differentiate import gradients
from ..errors import NoClosedFormError, SymgradError
from ..ops import REGISTRY, Op, apply, literal
from ..ops.base import filled, register, zeros_like
from ..ops.draws import loop_step
from .describe import recurrence
from .function import Function, layout, pack, pack_values, packed_size, unpack, unpack_values


class DataDependentLoop(SymgradError, ValueError):
    """Internal: a loop whose trip count depends on symbols (becomes NoClosedFormError)."""


def _leaf_impl(*arrays, **attrs):
    raise RuntimeError("arguments of a sub-graph are fed by their control op")


register(Op("argument", kind="leaf", shape=lambda in_shapes, **a: (), impl=_leaf_impl,
            grad=lambda node, g: [], doc="a parameter of a cond branch or loop body"))


def _packed_shape(in_shapes, layout, **attrs):
    return (packed_size(layout),)


def _float64(dtypes, **attrs):
    return np.dtype(np.float64)


# -- one interpreter, two value domains ------------------------------------------------
class Interpreter:
    """Numbers: runs sub-graphs with the reference evaluator."""

    def run(self, function, args):
        return function.run(args)

    def test(self, guard, value):
        """``guard and value`` as a Python bool (the loop stops at the first False)."""
        return guard and bool(np.asarray(value))

    def select(self, guard, new, old):
        return new

    def add(self, a, b):
        return np.asarray(a) + np.asarray(b)

    def accumulate(self, total, step):
        """``total + step`` where ``total`` is the caller's own running sum: added in
        place when that gives the same array (an LSTM's kernel gradient, summed over
        the time steps, allocated a new 400 x 800 array at each step)."""
        step = np.asarray(step)
        if type(total) is np.ndarray and total.flags.writeable and \
                np.result_type(total, step) == total.dtype and \
                np.broadcast_shapes(total.shape, step.shape) == total.shape:
            return np.add(total, step, out=total)
        return self.add(total, step)


class SymbolicInterpreter(Interpreter):
    """SymPy object arrays: a condition on symbols guards each step with a Piecewise."""

    def run(self, function, args):
        return function.expand(args)

    def test(self, guard, value):
        value = np.asarray(value, dtype=object)[()]
        value = sympy.true if value is True or value is np.True_ else \
            sympy.false if value is False or value is np.False_ else value
        out = sympy.And(guard, value)
        return True if out is sympy.true else False if out is sympy.false else out

    def select(self, guard, new, old):
        if guard is True:
            return new
        pick = np.frompyfunc(lambda a, b: sympy.Piecewise((a, guard), (b, True)), 2, 1)
        return [np.asarray(pick(np.asarray(a, dtype=object), np.asarray(b, dtype=object)),
                           dtype=object) for a, b in zip(new, old)]

    def add(self, a, b):
        return np.asarray(a, dtype=object) + np.asarray(b, dtype=object)

    def accumulate(self, total, step):
        return self.add(total, step)


NUMERIC, SYMBOLIC = Interpreter(), SymbolicInterpreter()


def iterate(interp, cond, body, state, caps, maximum_iterations):
    """The plain iterates u_0 .. u_T (u_{k+1} = body(u_k)) and the guard of each step
    (True, or a condition on symbols): step k runs where its guard holds.

    A loop whose condition depends on symbols unrolls to maximum_iterations guarded
    steps; without a cap it has no finite closed form (DataDependentLoop).  Where
    guard k holds, every guard before it held too, so the loop's state there is u_k:
    conditions and the body read u_k, never the piecewise state of :func:`final`
    (whose conditions nested inside conditions made a 3-step loop's closed form take
    14 s to print, and each further step several times longer).  Numbers: every
    guard is True, and u_k is the state.
    """
    plain, guards, guard = [list(state)], [], True
    while maximum_iterations is None or len(guards) < maximum_iterations:
        guard = interp.test(guard, interp.run(cond, plain[-1] + caps)[0])
        if guard is False:
            break
        if guard is not True and maximum_iterations is None:
            raise DataDependentLoop(
                f"its condition {guard} depends on symbols, so the trip count is unknown "
                "(give maximum_iterations for a piecewise closed form, or evaluate at values)")
        with loop_step(len(guards)):   # (a session's draws: new ones at every step)
            plain.append(interp.run(body, plain[-1] + caps))
        guards.append(guard)
    return plain, guards


def final(interp, plain, guards):
    """The loop's last state: x_{k+1} = u_{k+1} where guard k holds, else x_k."""
    state = plain[0]
    for u, guard in zip(plain[1:], guards):
        state = interp.select(guard, u, state)
    return state


def _trip_count(interp, guards):
    return sum((1 if g is True else sympy.Piecewise((1, g), (0, True)) for g in guards), 0)


# -- cond ---------------------------------------------------------------------------------
def _cond_eval(interp, pred, caps, branches):
    sides = [interp.run(b, caps) for b in branches]
    taken = interp.test(True, pred)
    if taken is True or taken is False:
        return pack_values(sides[0] if taken else sides[1])
    return pack_values(interp.select(taken, *sides))


def _cond_impl(pred, *caps, branches, layout):
    taken = NUMERIC.test(True, pred)  # only the branch taken runs
    return pack_values(NUMERIC.run(branches[0] if taken else branches[1], list(caps)))


def _cond_symbolic(node, pred, *caps):
    return _cond_eval(SYMBOLIC, pred, list(caps), node.attrs["branches"])


def vjp(function, wrt):
    """The vector-Jacobian product of ``function`` as a Function (built once, cached).

    Params: the function's params, then one seed per float output.  Outputs: the
    cotangent of each param listed in ``wrt`` (zeros where none flows).  Also
    returns which of them the body connects (structurally).
    """
    key = ("vjp", tuple(wrt))
    if key not in function.derived:
        sub = function.graph
        outs = [o for o in function.outputs if o.is_float]
        seeds = [sub.argument(o.shape, o.dtype, "seed") for o in outs]
        xs = [function.params[i] for i in wrt]
        with sub.as_default():
            raw = gradients(outs, xs, grad_ys=seeds) if outs and xs else [None] * len(xs)
            cots = [g if g is not None else zeros_like(x) for g, x in zip(raw, xs)]
        made = Function(sub, function.params + seeds, cots, f"vjp of {function.label}")
        function.derived[key] = (made, [g is not None for g in raw])
    return function.derived[key]


def _cond_grad(node, g):
    pred, caps = node.inputs[0], list(node.inputs[1:])
    spec = node.attrs["layout"]
    parts = unpack(g, spec)
    seeds = [p for p, (_, dt) in zip(parts, spec) if np.dtype(dt).kind == "f"]
    wrt = [i for i, c in enumerate(caps) if c.is_float]
    branches = tuple(vjp(b, wrt)[0] for b in node.attrs["branches"])
    # TF: a tensor captured by either branch gets zeros (not None) when the branch
    # that uses it is not taken, so every float capture is connected.
    out = apply("cond", [pred] + caps + seeds, branches=branches,
                layout=layout([caps[i] for i in wrt]), name="cond_grad")
    cots = iter(unpack(out, out.attrs["layout"]))
    return [None] + [next(cots) if c.is_float else None for c in caps]


register(Op("cond", kind="control", shape=_packed_shape, dtype=_float64, impl=_cond_impl,
            symbolic=_cond_symbolic, grad=_cond_grad,
            doc="the outputs of true_fn where pred holds, else of false_fn (packed)"))


# -- while_loop -------------------------------------------------------------------------
def _split(values, n):
    return list(values[:n]), list(values[n:])


def _while_eval(interp, values, cond, body, n, maximum_iterations):
    state, caps = _split(values, n)
    plain, guards = iterate(interp, cond, body, state, caps, maximum_iterations)
    return pack_values(final(interp, plain, guards) + [_trip_count(interp, guards)])


def _while_impl(*values, cond, body, n, maximum_iterations, back_prop, layout):
    return _while_eval(NUMERIC, values, cond, body, n, maximum_iterations)


def _while_symbolic(node, *values):
    a = node.attrs
    try:
        return _while_eval(SYMBOLIC, values, a["cond"], a["body"], a["n"],
                           a["maximum_iterations"])
    except DataDependentLoop as exc:
        raise NoClosedFormError(recurrence(node, values, exc)) from None


def while_node(inputs, cond, body, n, maximum_iterations, back_prop=True, name=None):
    """A ``while_loop`` node: loop vars ``inputs[:n]``, captures ``inputs[n:]``.

    Its packed value is the final loop vars, then the trip count (int64).
    """
    spec = layout(inputs[:n]) + (((), np.dtype(np.int64).str),)
    return apply("while_loop", list(inputs), cond=cond, body=body, n=n,
                 maximum_iterations=maximum_iterations, back_prop=back_prop, layout=spec,
                 name=name)


def _float_indices(nodes):
    return [i for i, x in enumerate(nodes) if x.is_float]


def _while_grad(node, g):
    a = node.attrs
    if not a["back_prop"]:
        return [None] * len(node.inputs)  # back_prop=False: the loop is a constant
    state, caps = _split(node.inputs, a["n"])
    fvars, fcaps = _float_indices(state), _float_indices(caps)
    parts = unpack(g, a["layout"])
    seeds = [parts[i] for i in fvars]
    wrt = fvars + [a["n"] + j for j in fcaps]
    body_vjp, connected = vjp(a["body"], wrt)
    out = apply("while_vjp", list(node.inputs) + seeds, cond=a["cond"], body=a["body"],
                vjp=body_vjp, n=a["n"], maximum_iterations=a["maximum_iterations"],
                layout=layout([node.inputs[i] for i in wrt]), name="while_grad")
    cots = dict(zip(wrt, unpack(out, out.attrs["layout"])))
    # a captured tensor the body never differentiates through is unconnected (None);
    # a float loop var always is connected (after zero iterations x_T = x_0).
    for k, i in enumerate(wrt):
        if i >= a["n"] and not connected[k]:
            cots.pop(i)
    return [cots.get(i) for i in range(len(node.inputs))]


register(Op("while_loop", kind="control", shape=_packed_shape, dtype=_float64,
            impl=_while_impl, symbolic=_while_symbolic, grad=_while_grad,
            doc="repeat body on the loop vars while cond holds (packed: vars, trip count)"))


# -- while_vjp: the reverse sweep over the stored iterates -----------------------------
def _while_vjp_eval(interp, values, cond, body, vjp, n, maximum_iterations, layout):
    m = len(body.params) - n
    state, caps, seeds = list(values[:n]), list(values[n:n + m]), list(values[n + m:])
    plain, guards = iterate(interp, cond, body, state, caps, maximum_iterations)
    zeros = [np.zeros(shape, dt) for shape, dt in layout[len(seeds):]]
    return pack_values(_reverse(interp, plain, guards, caps, vjp, seeds, zeros))


def _while_vjp_impl(*values, cond, body, vjp, n, maximum_iterations, layout):
    return _while_vjp_eval(NUMERIC, values, cond, body, vjp, n, maximum_iterations, layout)


def _while_vjp_symbolic(node, *values):
    a = node.attrs
    try:
        return _while_vjp_eval(SYMBOLIC, values, a["cond"], a["body"], a["vjp"], a["n"],
                               a["maximum_iterations"], a["layout"])
    except DataDependentLoop as exc:
        raise NoClosedFormError(recurrence(node, values, exc, "the gradient") + "\n  (the "
                                "gradient runs the body's vjp backwards over its iterates)") \
            from None


def _reverse(interp, states, guards, caps, vjp, seeds, zeros):
    """a_T = seeds; a_k = (df/dx)ᵀ a_{k+1}; captured cotangents summed over the steps
    (``states``: the plain iterates, which step k reads where its guard holds)."""
    adjoint = list(seeds)
    total = [np.array(z, copy=True) if type(z) is np.ndarray else z for z in zeros]  # (ours)
    for k, state, guard in zip(range(len(guards) - 1, -1, -1), reversed(states[:-1]),
                               reversed(guards)):
        with loop_step(k):   # step k's draws, as the forward sweep made them
            out = interp.run(vjp, state + caps + adjoint)
        adjoint = interp.select(guard, out[:len(adjoint)], adjoint)
        step = interp.select(guard, out[len(adjoint):], zeros)
        total = [interp.accumulate(t, s) for t, s in zip(total, step)]
    return adjoint + total


def jvp(function, n):
    """The body carrying tangents, as a Function (built once on the body's graph).

    Params: loop vars, their tangents (float vars), captures, their tangents (float
    captures).  Outputs: the body's outputs, then the tangents of its float outputs.
    J·t is d/du ⟨(∂f)ᵀu, t⟩ (the derivative of a vjp, linear in u, at u = 1).
    """
    key = ("jvp", n)
    if key not in function.derived:
        sub = function.graph
        state, caps = function.params[:n], function.params[n:]
        xs = [p for p in state if p.is_float] + [p for p in caps if p.is_float]
        outs = [o for o in function.outputs if o.is_float]
        with sub.as_default():
            us = [filled(sub, 1, o.shape, o.dtype) for o in outs]
            ts = [sub.argument(x.shape, x.dtype, "tangent") for x in xs]
            tangents = _jv(outs, xs, us, ts, sub)
        nf = sum(p.is_float for p in state)
        params = state + ts[:nf] + caps + ts[nf:]
        function.derived[key] = Function(sub, params, function.outputs + tangents,
                                         f"jvp of {function.label}")
    return function.derived[key]


def _jv(outs, xs, us, ts, sub):
    vs = gradients(outs, xs, grad_ys=us, unconnected_gradients="zero") if outs and xs else []
    terms = [apply("reduce_sum", [apply("mul", [v, t])], axis=tuple(range(v.ndim)),
                   keepdims=False) for v, t in zip(vs, ts)]
    zeros = [zeros_like(u) for u in us]
    if not terms:
        return zeros
    total = terms[0]
    for t in terms[1:]:
        total = apply("add", [total, t])
    return [g if g is not None else z
            for g, z in zip(gradients(total, us), zeros)]


def _while_vjp_grad(node, h):
    a = node.attrs
    cond, body, n = a["cond"], a["body"], a["n"]
    m = len(body.params) - n
    state, caps, seeds = (list(node.inputs[:n]), list(node.inputs[n:n + m]),
                          list(node.inputs[n + m:]))
    nf = len(seeds)
    parts = unpack(h, a["layout"])
    tangent_args = [cond.graph.argument(x.shape, x.dtype, "tangent")
                    for x in [x for x in state if x.is_float] + [c for c in caps if c.is_float]]
    cond2 = cond.with_params(cond.params[:n] + tangent_args[:nf] + cond.params[n:]
                             + tangent_args[nf:])
    # ⟨h, (a_0, c̄)⟩ = ⟨seeds, ẋ_T⟩ for the tangent loop started at ẋ_0 = h's a-part with
    # captured tangents h's c-part: its final tangent is the seeds' cotangent, and its
    # vjp with seed (0, seeds) gives the cotangents of the initial vars and captures.
    tangent_loop = while_node(state + parts[:nf] + caps + parts[nf:], cond2, jvp(body, n),
                              n + nf, a["maximum_iterations"], name="while_tangent")
    finals = unpack(tangent_loop, tangent_loop.attrs["layout"])
    zeros = [zeros_like(x, np.dtype(np.float64)) for x in state]
    seed = pack(zeros + seeds + [literal(node.graph, np.zeros(()))], node.graph)
    back = _while_grad(tangent_loop, seed)
    return back[:n] + back[n + nf:n + nf + m] + finals[n:n + nf]


register(Op("while_vjp", kind="control", shape=_packed_shape, dtype=_float64,
            impl=_while_vjp_impl, symbolic=_while_vjp_symbolic, grad=_while_vjp_grad,
            doc="the vjp of a while_loop: forward storing iterates, then the body's vjp "
                "backwards (packed: loop var cotangents, captured tensors' cotangents)"))
