"""Control flow described in words and formulas: the recurrence of a loop.

A loop whose trip count depends on symbols has no finite closed form; what it
*has* is a recurrence, x_0 = init, x_(k+1) = body(x_k) while cond(x_k), with the
body's closed form.  ``loop_lines`` gives that recurrence (the printers show it
in place of a closed form, the teaching layer in ``explain``).

Imports numpy and sympy only (the Functions come with the nodes).
"""
from __future__ import annotations

import numpy as np
import sympy


def _symbols(name, shape):
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        out[idx] = sympy.Symbol(name + (f"[{','.join(map(str, idx))}]" if idx else ""),
                                real=True)
    return out


def _show(value):
    value = np.asarray(value, dtype=object)
    return str(value[()]) if value.ndim == 0 else str(sympy.Array(value.tolist()))


def loop_lines(node, values):
    """The recurrence of the loop of ``node`` (a while_loop or while_vjp) as text lines.

    ``values``: the node's inputs as SymPy object arrays (or anything printable).
    """
    a = node.attrs
    cond, body, n = a["cond"], a["body"], a["n"]
    names = [p.name for p in body.params[:n]]
    now = [_symbols(f"{v}_k", p.shape) for v, p in zip(names, body.params[:n])]
    caps = list(values[n:n + len(body.params) - n])
    step = body.expand(now + caps)
    lines = [f"{v}_0 = {_show(x)}" for v, x in zip(names, values[:n])]
    lines.append(f"while {_show(cond.expand(now + caps)[0])}:")
    lines += [f"  {v}_(k+1) = {_show(x)}" for v, x in zip(names, step)]
    return lines


def recurrence(node, values, why, what="the value"):
    """Why the loop of ``node`` has no finite closed form, and its recurrence."""
    return "\n".join([f"{what} of loop {node.name!r} has no finite closed form: {why}",
                      "  the recurrence, k = 0, 1, ...:"]
                     + ["    " + line for line in loop_lines(node, values)])
