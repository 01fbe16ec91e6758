"""Large closed forms printed the way a long derivation is written: shared parts named.

Above ``CSE_OPS`` operations (tree count) a form prints as its reduced
expression(s) followed by ``where t1 = ..., t2 = ...``.  Sizes are measured on
the expression DAG, never by walking the tree (a gradient's tree repeats shared
parts millions of times).  Up to ``CSE_MAX_NODES`` distinct subexpressions the
names come from ``sympy.cse`` (measured 0.3 s at 2,500 nodes;
``benchmarks/closed_forms.py``); above it, every subexpression used twice is
named in one linear pass, so printing stays within the budget at any size.

Imports only SymPy.

>>> import sympy
>>> x = sympy.Symbol("x")
>>> e = sympy.sin(x + 1) * sympy.exp(sympy.sin(x + 1))
>>> print(shared_text([e], str, min_ops=0))
t1*exp(t1)
  where
    t1 = sin(x + 1)
"""
from __future__ import annotations

import sympy

CSE_OPS = 80            # tree operations above which a form prints with named parts
CSE_MAX_NODES = 5000    # distinct subexpressions up to which sympy.cse is used
CSE_MAX_DEPTH = 60      # and nesting depth (sympy.cse recurses once per level)


def _postorder(exprs):
    """Distinct compound subexpressions, children before parents, and use counts."""
    order, uses, stack = [], {}, [(e, False) for e in reversed(exprs)]
    while stack:
        e, done = stack.pop()
        if done:
            order.append(e)
            continue
        if not e.args:
            continue
        uses[e] = uses.get(e, 0) + 1
        if uses[e] == 1:
            stack.append((e, True))
            stack.extend((a, False) for a in reversed(e.args))
    return order, uses


def tree_size(exprs):
    """Operations the printed tree would have (shared parts counted each time), via the DAG."""
    order, _ = _postorder(exprs)
    sizes = {}
    for e in order:
        sizes[e] = 1 + sum(sizes.get(a, 0) for a in e.args)
    return sum(sizes.get(e, 0) for e in exprs)


def _depth(order):
    """Nesting depth of the expressions whose postorder is ``order`` (linear in the DAG)."""
    depth = {}
    for e in order:
        depth[e] = 1 + max((depth.get(a, 0) for a in e.args), default=0)
    return max(depth.values(), default=0)


def _linear_names(exprs):
    # Every compound subexpression used twice or more gets a name, innermost first.
    order, uses = _postorder(exprs)
    names, repl = sympy.numbered_symbols("t", start=1), {}
    pairs = []
    for e in order:
        if uses[e] > 1 and not isinstance(e, (sympy.Tuple,)) and e not in exprs:
            rebuilt = e.xreplace(repl) if repl else e
            sym = next(names)
            pairs.append((sym, rebuilt))
            repl[e] = sym
    return pairs, [e.xreplace(repl) for e in exprs]


def shared(exprs):
    """(replacements, reduced expressions): ``sympy.cse`` or the linear naming by size.

    A function applied elementwise to a matrix (``Applied(Lambda(d, sin(d)), X)``) is
    named whole or not at all: its body is written in a bound variable, and naming a
    part of it (``sin(d)``, used by two such functions) would take the part out of
    reach of its variable (SymPy then fails to rebuild the function).
    """
    exprs = [sympy.sympify(e) for e in exprs]
    order, _ = _postorder(exprs)
    hidden = _stand_ins(order)
    if hidden:
        exprs = [e.xreplace(hidden) for e in exprs]
        order, _ = _postorder(exprs)
    if len(order) <= CSE_MAX_NODES and _depth(order) <= CSE_MAX_DEPTH:
        pairs, reduced = sympy.cse(exprs, symbols=sympy.numbered_symbols("t", start=1),
                                   order="none")
    else:
        pairs, reduced = _linear_names(exprs)
    if not hidden:
        return pairs, reduced
    back = {v: k for k, v in hidden.items()}
    return [(s, v.xreplace(back)) for s, v in pairs], [e.xreplace(back) for e in reduced]


def _stand_ins(order):
    """``{node: atom}`` for the nodes among ``order`` that apply a ``Lambda``: a
    matrix symbol of the node's shape (a symbol for a scalar) named for no leaf."""
    out = {}
    for e in order:
        if any(isinstance(a, sympy.Lambda) for a in e.args):
            name = f"_applied{len(out)}"
            shape = getattr(e, "shape", None)
            out[e] = sympy.MatrixSymbol(name, *shape) if shape else sympy.Dummy(name)
    return out


def shared_text(exprs, printer, min_ops=CSE_OPS, sep="\n"):
    """``exprs`` printed with ``printer``; above ``min_ops`` with named shared parts.

    Args:
        exprs: SymPy expressions (the elements of one or more closed forms).
        printer: a function expression -> text.
        min_ops: tree operations below which no names are introduced.
        sep: separator between the printed expressions.
    Returns:
        the text, ending with a ``where`` block when names were introduced.
    """
    exprs = [sympy.sympify(e) for e in exprs]
    if tree_size(exprs) <= min_ops:
        return sep.join(printer(e) for e in exprs)
    pairs, reduced = shared(exprs)
    text = sep.join(printer(e) for e in reduced)
    if not pairs:
        return text
    lines = [f"    {printer(s)} = {printer(v)}" for s, v in pairs]
    return text + "\n  where\n" + "\n".join(lines)
