"""Teaching control flow: which branch ran, how many iterations, adjoints per iteration.

For ``explain``: one :class:`~symgrad.teach.explain.Row` per control node of a
gradient computation (``render`` turns them into prose):

- ``cond``: the value of pred and the branch that ran;
- ``while_loop`` (forward): the trip count of this run and the loop's recurrence
  with its body's closed form;
- ``while_vjp`` (the reverse sweep of a loop): the trip count and the adjoints of
  the float loop vars, a_k = d(seeded sum of ys)/d x_k, for the last iterate
  (the seed) and the first few iterations, by running the body's vjp backwards.

For ``draw``: the sub-graphs (branches, loop condition and body) of a node.

Imports the control package (its interpreter), the graph and the analysis helpers.
"""
from __future__ import annotations

import numpy as np

from ..control.describe import loop_lines
from ..control.ops import NUMERIC, iterate
from ..errors import SymgradError
from ..forms.symbolic import leaf_symbols, literal_array
from ..graph import ancestors
from . import analysis

FIRST_ITERATIONS = 3  # per-iteration adjoints shown for k = 0 .. FIRST_ITERATIONS - 1


def functions(node):
    """The sub-graph functions of a control node, with a label each ([] for other ops)."""
    a = node.attrs
    if node.opdef.kind != "control":
        return []
    if "branches" in a:
        return [("true branch", a["branches"][0]), ("false branch", a["branches"][1])]
    out = [("loop condition", a["cond"]), ("loop body", a["body"])]
    return out + ([("body's vjp", a["vjp"])] if "vjp" in a else [])


def adjoint_steps(node, inputs, first=FIRST_ITERATIONS):
    """Trip count T and {k: [adjoint of each float loop var at iterate k]} of a while_vjp.

    k = T is the seed; k < ``first`` are the first iterations, computed like the
    evaluator does: the body's vjp applied backwards over the stored iterates.
    """
    a = node.attrs
    n, body = a["n"], a["body"]
    m = len(body.params) - n
    state, caps, adjoint = list(inputs[:n]), list(inputs[n:n + m]), list(inputs[n + m:])
    states, _ = iterate(NUMERIC, a["cond"], body, state, caps, a["maximum_iterations"])
    trips = len(states) - 1
    steps = {trips: adjoint}
    for k in range(trips - 1, -1, -1):
        adjoint = a["vjp"].run(states[k] + caps + adjoint)[:len(adjoint)]
        if k < first:
            steps[k] = adjoint
    return trips, steps


def _recurrence(node):
    inputs = [literal_array(x) if analysis.is_literal(x) else leaf_symbols(x)
              for x in node.inputs]
    try:
        return loop_lines(node, inputs)
    except SymgradError:
        return None


def control_rows(sweep, values, row):
    """Rows describing every control node of the forward graph and of the reverse sweep."""
    forward = ancestors(sweep.ys + sweep.xs)
    backward = [n for n in ancestors([g for g in sweep.adjoints.values()]) if n not in
                set(forward)]
    rows = []
    for node in forward + backward:
        if node.opdef.kind != "control" or any(x not in values for x in node.inputs):
            continue
        inputs = [values[x] for x in node.inputs]
        if "branches" in node.attrs:
            rows.append(row(kind="cond", node=node, taken=bool(np.asarray(inputs[0]))))
        elif "vjp" in node.attrs:
            trips, steps = adjoint_steps(node, inputs)
            names = [p.name for p in node.attrs["body"].params[:node.attrs["n"]] if p.is_float]
            rows.append(row(kind="loop_vjp", node=node, trips=trips, steps=steps, names=names))
        else:
            trips = int(np.asarray(values[node])[-1]) if node in values else None
            rows.append(row(kind="loop", node=node, trips=trips, lines=_recurrence(node)))
    return rows
