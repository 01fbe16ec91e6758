"""Operation counts: how much arithmetic the value+gradient code does against the value's.

- symgrad: from the compiler's loop IR (``symgrad.lower.program``): each loop's
  trip count times the arithmetic instructions of its body and reduction (loads
  of arguments and constants and copies count 0).  ``graph_ops`` is the same idea
  on the graph (a node weighted by its size), kept for comparison.
- sympy: ``sympy.count_ops`` of the cse'd code (replacements plus reduced outputs),
  i.e. what ``lambdify(..., cse=True)`` prints.
- jax: the number of equations in the jaxpr (tensor-level, like graph nodes).
"""
from __future__ import annotations

import numpy as np


def _elementwise_ops(node, cache):
    import sympy
    key = (node.op.name, str(node.attrs.get("expr", "")), tuple(x.dtype.str for x in node.inputs))
    if key not in cache:
        expr = node.attrs.get("expr")
        if expr is None:
            expr, _ = node.op.expr([x.dtype for x in node.inputs], **node.attrs)
        cache[key] = max(1, int(sympy.count_ops(expr)))
    return cache[key]


def node_ops(node, cache):
    """Scalar operations one node performs (see the module docstring)."""
    kind = node.op.kind
    if kind == "elementwise":
        return node.size * _elementwise_ops(node, cache)
    if kind == "reduce":
        return node.inputs[0].size
    if kind == "special":
        return 4 * node.inputs[0].size
    if kind == "contract":
        sizes = [x.size for x in node.inputs]
        inner = int(np.sqrt(max(1, sizes[0] * sizes[1] / max(node.size, 1))))
        return 2 * node.size * max(inner, 1)
    if node.op.name == "index_add":
        return node.inputs[0].size
    return 0


def graph_ops(outputs):
    """Total scalar operations needed for ``outputs`` (a list of symgrad tensors)."""
    from symgrad.graph import ancestors
    cache = {}
    return sum(node_ops(n, cache) for n in ancestors([o for o in outputs if o is not None]))


def program_ops(outputs, inputs):
    """Scalar arithmetic instructions the compiled kernel of ``outputs`` executes."""
    from symgrad.lower.program import lower_graph
    program = lower_graph([o for o in outputs if o is not None], inputs)
    total = 0
    for loop in program.stmts:
        trips = int(np.prod(loop.dims, dtype=np.int64))
        body = _arith(loop.body) + (_arith(loop.reduce[0]) if loop.reduce else 0)
        total += trips * body
    return total


def _arith(body):
    return sum(1 for instr in body if instr[0] not in ("arg", "const", "id"))


def sympy_ops(exprs):
    """``count_ops`` of the cse'd form of ``exprs`` (what lambdify with cse=True prints)."""
    import sympy
    replacements, reduced = sympy.cse(list(exprs))
    return int(sum(sympy.count_ops(rhs) for _, rhs in replacements)
               + sum(sympy.count_ops(e) for e in reduced))


def jaxpr_eqns(fn, x):
    """Number of equations in the jaxpr of ``fn`` at ``x`` (nested jaxprs included)."""
    import jax
    return _count_eqns(jax.make_jaxpr(fn)(x).jaxpr)


def _count_eqns(jaxpr):
    total = 0
    for eqn in jaxpr.eqns:
        inner = [p for p in eqn.params.values() if hasattr(p, "eqns") or hasattr(p, "jaxpr")]
        if inner:
            for p in inner:
                total += _count_eqns(p.jaxpr if hasattr(p, "jaxpr") else p)
        else:
            total += 1
    return total
