"""Forward mode through control flow: the ``jvp`` rules of ``cond``, ``while_loop``, ``while_vjp``.

``symgrad.forward`` transposes an op's grad rule when the op has no ``jvp`` rule,
which needs the rule to be structurally linear in the cotangent; the loops' rules
are linear in value but start loops at the cotangent, so they get rules of their own:

- ``cond``: a ``cond`` over the branches' tangent functions (only the branch taken);
- ``while_loop``: the tangent loop, carrying (x, ẋ) forward; its final ẋ;
- ``while_vjp`` (a loop's gradient, so this is forward-over-reverse): linear in the
  seeds, so the seeds' tangents give another ``while_vjp``; the tangents of the
  initial vars and captures give ∇⟨s, J·(ẋ₀, ċ)⟩, the vjp of the tangent loop with
  seed (0, s) (second derivatives are symmetric).

Imports the control ops and the packing helpers.
"""
from __future__ import annotations

import numpy as np

from ..ops import REGISTRY, apply, literal
from ..ops.base import filled, zeros_like
from .function import Function, pack, unpack
from .ops import _while_grad, jvp, while_node


def _float_tangents(nodes, tangents):
    return [t if t is not None else zeros_like(x) for x, t in zip(nodes, tangents) if x.is_float]


def _packed(node, parts):
    """A tangent of a packed node: ``parts`` for the float slots, zeros for the others."""
    it, out = iter(parts), []
    for shape, dt in node.attrs["layout"]:
        out.append(next(it) if np.dtype(dt).kind == "f" else
                   filled(node.graph, 0, shape, np.float64))
    return pack(out, node.graph)


def _cond_jvp(node, tangents):
    pred, caps = node.inputs[0], list(node.inputs[1:])
    spec = node.attrs["layout"]
    branches = []
    for b in node.attrs["branches"]:
        f = jvp(b, 0)  # params: caps, tangents of float caps; outputs: outs, float tangents
        branches.append(Function(f.graph, f.params, f.outputs[len(b.outputs):], f.label))
    floats = [(s, d) for s, d in spec if np.dtype(d).kind == "f"]
    out = apply("cond", [pred] + caps + _float_tangents(caps, tangents[1:]),
                branches=tuple(branches), layout=tuple(floats), name="cond_jvp")
    return _packed(node, unpack(out, out.attrs["layout"]))


def _tangent_loop(node, state, caps, t_state, t_caps, name):
    a = node.attrs
    cond, body, n = a["cond"], a["body"], a["n"]
    extra = [cond.graph.argument(x.shape, x.dtype, "tangent")
             for x in [x for x in state if x.is_float] + [c for c in caps if c.is_float]]
    nf = len(t_state)
    cond2 = cond.with_params(cond.params[:n] + extra[:nf] + cond.params[n:] + extra[nf:])
    return while_node(state + t_state + caps + t_caps, cond2, jvp(body, n), n + nf,
                      a["maximum_iterations"], name=name)


def _while_jvp(node, tangents):
    n = node.attrs["n"]
    state, caps = list(node.inputs[:n]), list(node.inputs[n:])
    t_state = _float_tangents(state, tangents[:n])
    loop = _tangent_loop(node, state, caps, t_state, _float_tangents(caps, tangents[n:]),
                         "while_jvp")
    finals = unpack(loop, loop.attrs["layout"])
    return _packed(node, finals[n:n + len(t_state)])


def _while_vjp_jvp(node, tangents):
    a = node.attrs
    n, m = a["n"], len(a["body"].params) - a["n"]
    state, caps, seeds = (list(node.inputs[:n]), list(node.inputs[n:n + m]),
                          list(node.inputs[n + m:]))
    loop = _tangent_loop(node, state, caps, _float_tangents(state, tangents[:n]),
                         _float_tangents(caps, tangents[n:n + m]), "while_vjp_jvp")
    zeros = [zeros_like(x, np.float64) for x in state]
    back = _while_grad(loop, pack(zeros + seeds + [literal(node.graph, np.zeros(()))],
                                  node.graph))
    nf = len(seeds)
    wrt = [i for i, x in enumerate(state) if x.is_float] + \
        [n + nf + j for j, c in enumerate(caps) if c.is_float]
    parts = [back[i] if back[i] is not None else zeros_like(loop.inputs[i]) for i in wrt]
    total = pack(parts, node.graph)
    t_seeds = tangents[n + m:]
    if any(t is not None for t in t_seeds):  # linear in the seeds
        again = apply("while_vjp", state + caps + _float_tangents(seeds, t_seeds),
                      **node.attrs, name="while_vjp_jvp")
        total = apply("add", [total, again])
    return total


REGISTRY["cond"].jvp = _cond_jvp
REGISTRY["while_loop"].jvp = _while_jvp
REGISTRY["while_vjp"].jvp = _while_vjp_jvp
