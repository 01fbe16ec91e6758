"""Operation counts: how much arithmetic the value+gradient code does against the value's.

- symgrad: from the compiler's loop IR (``symgrad.lower.program``): each loop's
  trip count times the arithmetic instructions of its body and reduction (loads
  of arguments and constants and copies count 0).
- sympy: ``sympy.count_ops`` of the cse'd code (replacements plus reduced outputs),
  i.e. what ``lambdify(..., cse=True)`` prints.
- jax: the jaxpr's equations weighted the same way (an elementwise equation its
  output size, a reduction its input size, dot_general 2 m k n, data movement 0).
"""
from __future__ import annotations

import numpy as np


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


MOVES = {"broadcast_in_dim", "reshape", "squeeze", "expand_dims", "slice", "dynamic_slice",
         "gather", "concatenate", "transpose", "convert_element_type", "copy", "copy_p", "pad",
         "iota", "dynamic_update_slice"}


def jaxpr_ops(fn, x):
    """Scalar operations of the jaxpr of ``fn`` at ``x`` (the same weighting as above)."""
    import jax
    return _jaxpr_ops(jax.make_jaxpr(fn)(x).jaxpr)


def _size(var):
    return int(np.prod(getattr(var.aval, "shape", ()), dtype=np.int64))


def _jaxpr_ops(jaxpr):
    total = 0
    for eqn in jaxpr.eqns:
        inner = [p for p in eqn.params.values() if hasattr(p, "eqns") or hasattr(p, "jaxpr")]
        name = eqn.primitive.name
        if inner:
            total += sum(_jaxpr_ops(p.jaxpr if hasattr(p, "jaxpr") else p) for p in inner)
        elif name in MOVES:
            continue
        elif name.startswith("reduce") or name == "scatter-add" or name == "scatter_add":
            total += _size(eqn.invars[-1] if name.startswith("scatter") else eqn.invars[0])
        elif name == "dot_general":
            (contract, _), _ = eqn.params["dimension_numbers"]
            k = int(np.prod([eqn.invars[0].aval.shape[d] for d in contract], dtype=np.int64))
            total += 2 * _size(eqn.outvars[0]) * max(k, 1)
        else:
            total += sum(_size(v) for v in eqn.outvars)
    return total
