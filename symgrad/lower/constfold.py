"""Constant folding: values that depend on no input are computed once, when compiling.

A Hessian or Jacobian sweeps a batch of seeds that are constants of the graph (the
unit seeds, a colouring's compression matrix), and its first steps often meet only
other constants: logistic regression's tangent ``X @ seeds`` is the constant ``Xᵀ``,
an MLP's first layer ``inputs @ seeds`` another.  Lowered as they stand, those steps
run on every call (logistic regression with 50 weights: a 200 x 50 x 50 contraction,
half of its Hessian's time).  Here every node the outputs need that depends on no
input of the compiled function (only on constants, Variables and other leaves baked
at their current value, as the lowering bakes them) is a candidate; the ones read by
a node that does depend on an input (or that are outputs themselves) are evaluated
by the reference evaluator and baked as constants instead of being lowered.

Folded only: float64 nodes of known shape with at most :data:`FOLD_MAX` elements
whose value is not one number repeated (a repeated number is a single SSA value in
the lowering already, cheaper than a baked array), never control flow.  Values are
the reference evaluator's (numpy's), equal to the compiled loops' up to rounding.
An elementwise node reading an input only through a power its constant exponent
makes 0 (a Hessian's tangent of ``u**2`` over constant seeds) counts as constant
too (``_independent``).

Imports numpy, graph and evaluate (and SymPy, for the rules' expressions).

>>> import numpy as np
>>> import symgrad as sg
>>> with sg.Graph().as_default():
...     x = sg.placeholder(shape=(2,), name="x")
...     m = sg.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
...     y = x * sg.matmul(m, m)
...     [v.tolist() for v in folded_constants([y], [x]).values()]
[[[7.0, 10.0], [15.0, 22.0]]]
"""
from __future__ import annotations

import numpy as np

from ..evaluate import needed, run
from ..graph import consumers, is_static

# Larger constants are lowered as they stand: a baked array is written into the
# generated module (and its cache entry) in full.
FOLD_MAX = 1 << 16

_F8 = np.dtype(np.float64)


def folded_constants(outputs, inputs, nodes=None):
    """``{node: value}`` for the nodes below ``outputs`` to bake instead of lowering
    (``nodes``: ``needed(outputs, inputs)``, when the caller has it)."""
    fed = set(inputs)
    nodes = needed(outputs, fed) if nodes is None else nodes
    constant = _constant_nodes(nodes, fed)
    if not any(n.inputs for n in constant):
        return {}
    users, outs = consumers(nodes), {id(o) for o in outputs}
    frontier = [n for n in nodes if n in constant and n.inputs and _foldable(n)
                and (id(n) in outs or any(u not in constant for u in users[n]))]
    if not frontier:
        return {}
    out = {}
    for node, value in _values(frontier, constant).items():
        if not (node.shape and _uniform(value)):
            out[node] = value
    return out


def _values(frontier, constant):
    """The frontier's values; a node whose evaluation raises (MatrixError for
    the inverse of a singular constant, where compiled code gives inf/NaN) is left to
    the lowering, so compiling never raises what calling would not.  The inputs an
    ``_independent`` node does not depend on are fed as zeros."""
    feeds = {x: np.zeros(x.shape, x.dtype) for n in constant for x in n.inputs
             if x not in constant}
    try:
        values = run(frontier, feeds)
        return {n: values[n] for n in frontier}
    except Exception:  # (any op's numpy impl) retry one by one, keeping what computes
        values = {}
        for node in frontier:
            try:
                values[node] = run([node], feeds)[node]
            except Exception:
                continue
        return values


def _constant_nodes(nodes, fed):
    """The nodes whose value depends on no fed node (``nodes``: topological order)."""
    constant = set()
    for node in nodes:
        if node in fed or node.opdef.kind == "control" or \
                getattr(node.opdef, "size_of", None) is not None or not is_static(node.shape):
            continue
        if node.inputs:
            if all(x in constant for x in node.inputs) or _independent(node, constant):
                constant.add(node)
        elif node.opdef.kind == "leaf" and node.value is not None:
            constant.add(node)
    return constant


# the values an input of an ``_independent`` node is tried at: IEEE's special cases
_PROBES = (0.0, -0.0, 1.0, -2.5, 1e300, np.inf, -np.inf, np.nan)


def _independent(node, constant):
    """Whether an elementwise node whose other inputs are constant depends on its
    non-constant ones only through terms its 0-d constant inputs make constant: a
    Hessian's tangent of ``u**2``, ``u**(p-2)*p*(p-1)*g*du`` at p = 2, reads u only in
    ``u**0``, so with a constant seed tangent du it is constant.  The rule's
    expression with the 0-d constants substituted must be free of the other inputs,
    and the op's numpy value must be the same, bit for bit, with them at zero and at
    each of ``_PROBES`` (``u*0`` simplifies to 0 in SymPy, not for u = inf)."""
    op = node.opdef
    if op.kind != "elementwise" or not hasattr(op, "expr") or node.dtype != _F8:
        return False
    free = [k for k, x in enumerate(node.inputs) if x not in constant]
    scalars = [k for k, x in enumerate(node.inputs) if x in constant and x.shape == ()]
    if not free or not scalars or all(node.inputs[k].shape == () for k in range(
            len(node.inputs)) if k not in free) or not is_static(node.shape):
        return False   # (a value of scalars alone is uniform: not worth baking)
    try:
        expr, syms = op.expr([x.dtype for x in node.inputs], **node.attrs)
        values = run([node.inputs[k] for k in range(len(node.inputs)) if k not in free], {})
    except Exception:
        return False
    import sympy
    known = {syms[k]: _number(sympy, values[node.inputs[k]]) for k in scalars}
    if expr.xreplace(known).free_symbols & {syms[k] for k in free}:
        return False
    args = [values.get(x) for x in node.inputs]
    with np.errstate(all="ignore"):
        def at(probe):
            full = [np.full(x.shape, probe, x.dtype) if k in free else args[k]
                    for k, x in enumerate(node.inputs)]
            return np.asarray(op.impl(*full, **node.attrs), dtype=np.float64)
        try:
            base = at(0.0)
            return all(np.array_equal(base, at(p), equal_nan=True) and
                       np.array_equal(np.signbit(base), np.signbit(at(p)))
                       for p in _PROBES)
        except Exception:
            return False


def _number(sympy, value):
    v = float(value)
    return sympy.Integer(int(v)) if v.is_integer() and abs(v) < 2 ** 53 else sympy.Float(v)


def _foldable(node):
    return node.dtype == _F8 and int(np.prod(node.shape, dtype=np.int64)) <= FOLD_MAX


def _uniform(value):
    flat = value.reshape(-1)
    return bool(flat.size) and bool(np.all(flat == flat[0]))
