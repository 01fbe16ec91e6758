"""Closed forms: expand a tensor into SymPy and simplify it under a budget.

Strategies:
- ``"none"``: the raw expansion (SymPy's automatic evaluation only).
- ``"auto"`` (default): cheap canonicalisation on every element; elements of at
  most ``MEDIUM_OPS`` distinct operations get cheap structural passes
  (``factor_terms``, ``powsimp``), elements of at most ``SMALL_OPS`` also the
  targeted passes (``together``, ``factor``, ``expand``, ``cancel``, ``trigsimp``
  on small trig parts).  SymPy's passes cannot be interrupted, so each pass is
  *estimated* before it runs (``forms.budget``: size measured on the DAG, since a
  gradient's tree repeats shared parts millions of times, and for the passes that
  expand or factor, the expansion work including function arguments) and runs only
  if the estimate fits the element's share of the budget.  ``sympy.simplify``
  itself is never called: its time grows steeply with size (measured 0.7-1.4 s at
  24-37 ops, 13 s at 75; ``benchmarks/closed_forms.py``), while the targeted passes
  give forms at most as large on the 38-derivative table in less time.
- ``"full"``: the same passes plus ``sympy.simplify`` on every element, whatever
  its size (unbounded time).

Whatever the strategy, a rewrite is kept only when it is not larger
(``count_ops``), so a stronger pass never reads worse.  Polynomials print
expanded (``3*a**2 + 16*a``, not ``a*(3*a + 16)``): the textbook derivative of a
polynomial is a polynomial.

Imports the graph-level expansion (``symbolic``) and nothing above it.

>>> from symgrad import tracing as t
>>> with t.Graph().as_default():
...     x = t.Variable(2.0, name="x")
...     elementwise_form(x * x + x * x)
2*x**2
"""
from __future__ import annotations

import time

import numpy as np
import sympy

from .. import progress
from ..errors import ArgumentError
from ..graph import Node
from .budget import Budget, terms_and_degree, estimate
from .symbolic import expand, leaf_symbols

STRATEGIES = ("none", "auto", "full")
SMALL_OPS = 40          # targeted passes (cancel, factor, trigsimp) up to this many ops
TRIG_OPS = 16           # trigsimp is tried only on trig parts up to this many
EXPAND_TERMS = 200      # expanding passes only when the expansion stays this small
MEDIUM_OPS = 400        # cheap structural passes are tried only up to this many
BUDGET_SECONDS = 2.0    # time "auto" may spend on stronger passes per call


def size(expr):
    """The operation count SymPy's own simplify minimises (0 for non-SymPy values)."""
    return sympy.count_ops(expr, visual=False) if isinstance(expr, sympy.Basic) else 0


def dag_size(expr, limit):
    """Distinct compound subexpressions of ``expr``, counting stops past ``limit``.

    ``count_ops`` walks the tree, and a derivative's tree repeats shared parts
    (a 2-layer net's gradient: 4.5 million tree operations over a few thousand
    distinct ones), so gates measure the DAG, in time bounded by ``limit``.
    """
    seen, stack = set(), [expr]
    while stack and len(seen) <= limit:
        e = stack.pop()
        if e.args and e not in seen:
            seen.add(e)
            stack.extend(e.args)
    return len(seen)


def tree_nodes(expr):
    """Nodes of ``expr``'s tree (shared parts counted each time), in time linear in its DAG."""
    sizes, stack = {}, [expr]
    while stack:
        e = stack[-1]
        todo = [a for a in e.args if a not in sizes]
        if todo:
            stack.extend(todo)
            continue
        stack.pop()
        sizes[e] = 1 + sum(sizes[a] for a in e.args)
    return sizes[expr]


FOLD_PIECEWISE = 4   # distinct Piecewise parts, at most, folded into one (2^k branches)


def _canonical(expr):
    if expr.has(sympy.Piecewise) and \
            len(expr.atoms(sympy.Piecewise)) <= FOLD_PIECEWISE:   # (sum(v**p)'s d/dp: k)
        expr = sympy.piecewise_fold(expr)
    return expr


def _is_polynomial(expr):
    syms = expr.free_symbols
    return bool(syms) and not expr.has(sympy.Function) and expr.is_polynomial(*syms)


def _smallest(expr, candidates):
    """The first of ``expr, *candidates`` with the fewest operations (ties keep the earlier)."""
    best, best_size = expr, size(expr)
    for c in candidates:
        s = size(c)
        if s < best_size:
            best, best_size = c, s
    return best


_TRIG = (sympy.sin, sympy.cos, sympy.tan, sympy.sinh, sympy.cosh, sympy.tanh)


def _run(passes, expr, budget, strategy):
    """Results of the passes that fit the budget ("full": all of them), in order."""
    out, n = [], size(expr)
    for name in passes:   # SymPy functions by name, looked up when run
        if strategy == "full" or budget.allows(name, estimate(name, expr, n)):
            try:
                out.append(getattr(sympy, name)(expr))
            except (TypeError, ValueError, AttributeError, NotImplementedError):
                # a pass SymPy cannot apply (factor_terms on a sum mixing matrix and
                # scalar symbols: "Mix of Matrix and Scalar symbols") offers nothing
                continue
    return out


# Structural rewrites whose cost grows about linearly with the expression.
CHEAP = ("factor_terms", "powsimp")
# The parts of sympy.simplify that pay off on derivatives (rational normal forms,
# factoring, expansion), without its slow general search: measured about 2x faster
# than sympy.simplify on the identity table.  Each runs only if its estimate fits.
TARGETED = ("together", "factor", "expand", "cancel")


def expanded_terms(expr, cap=10**6):
    """An estimate of the number of terms ``expand`` would produce at the top level (capped)."""
    return min(cap, terms_and_degree(expr, {})[0])


def _targeted_passes(expr, budget, strategy):
    out = _run(TARGETED, expr, budget, strategy)
    if expr.has(*_TRIG):
        out.append(_trig_part_simplified(expr, budget, strategy))
    return out


def _trig_part_simplified(expr, budget, strategy):
    # trigsimp costs ~0.02 s at 5 ops but 1.7 s at 25 (measured): in a sum, only the
    # terms holding trig/hyperbolic functions go through it, and only when few.
    terms = expr.args if isinstance(expr, sympy.Add) else (expr,)
    trig = [t for t in terms if t.has(*_TRIG)]
    part = sympy.Add(*trig)
    n = size(part)
    if n > TRIG_OPS or expanded_terms(part) > EXPAND_TERMS or \
            not (strategy == "full" or budget.allows("trigsimp", estimate("trigsimp", part, n))):
        return expr
    rest = [t for t in terms if not t.has(*_TRIG)]
    return sympy.Add(_trigsimp_atomic(part), *rest)


def _trigsimp_atomic(expr):
    """trigsimp with compound function arguments held as symbols.

    trigsimp expands sin/cos of sums (sin(m0 + ... + m15) did not finish in two
    minutes); the identities a derivative needs (sin**2 + cos**2 = 1,
    2*sin*cos = sin(2 u)) hold for any argument u, so u is abstracted first.
    """
    args = {}
    for f in expr.atoms(*_TRIG):
        (u,) = f.args
        if not (u.is_Symbol or u.is_Number) and u not in args:
            args[u] = sympy.Dummy("u", real=True)
    simplified = sympy.trigsimp(expr.xreplace(args))
    return simplified.xreplace({d: u for u, d in args.items()})


def _coefficient_inside(expr):
    """``(1 - 2*x)*e/2`` as ``(1/2 - x)*e``: a numeric coefficient absorbed by a sum factor."""
    coeff, rest = expr.as_coeff_Mul()
    if coeff == 1 or not isinstance(rest, sympy.Mul):
        return expr
    sums = [f for f in rest.args if isinstance(f, sympy.Add)]
    if len(sums) != 1:
        return expr
    others = [f for f in rest.args if f is not sums[0]]
    return sympy.Mul(sympy.expand_mul(coeff * sums[0]), *others)


def _polynomial(expr, budget, strategy):
    # Expanded unless expanding makes it larger ((x + 1)**9 stays).
    if expanded_terms(expr) > EXPAND_TERMS or not (
            strategy == "full" or budget.allows("expand", estimate("expand", expr))):
        return expr
    expanded = sympy.expand(expr)
    return expanded if size(expanded) <= size(expr) else expr


def simplify_expr(expr, strategy="auto", budget=None):
    """Simplify one SymPy expression with ``strategy`` (see the module docstring).

    Args:
        expr: a SymPy expression (other values pass through).
        strategy: ``"none"``, ``"auto"`` or ``"full"``.
        budget: a :class:`~symgrad.forms.budget.Budget` (default: ``BUDGET_SECONDS``);
            under "auto" a pass runs only if its estimated cost fits it.
    Returns:
        an expression equal to ``expr`` and not larger.

    >>> x = sympy.Symbol("x", real=True)
    >>> simplify_expr(sympy.sin(x)**2 + sympy.cos(x)**2 + x)
    x + 1
    """
    if strategy == "none" or not isinstance(expr, sympy.Expr):
        return expr
    if strategy == "auto" and (dag_size(expr, MEDIUM_OPS) > MEDIUM_OPS
                               or tree_nodes(expr) > 4 * MEDIUM_OPS):
        return expr      # count_ops and every pass walk the tree: 2^depth for a chain
    budget = Budget(BUDGET_SECONDS) if budget is None else budget
    expr = _canonical(expr)
    if _is_polynomial(expr):
        return _polynomial(expr, budget, strategy)
    n = size(expr)
    if strategy == "auto" and n > MEDIUM_OPS:
        return expr
    candidates = _run(CHEAP, expr, budget, strategy)
    if strategy == "full" or n <= SMALL_OPS:
        candidates += _targeted_passes(expr, budget, strategy)
    if strategy == "full":
        candidates.append(sympy.simplify(expr))
    best = _smallest(expr, candidates)
    return _smallest(best, [_coefficient_inside(best)])


def simplify_array(values, strategy="auto", budget=BUDGET_SECONDS):
    """Simplify every element of an object array within one time budget.

    Equal elements are simplified once (a gradient of ``sum(X)`` is one ``1``), and
    every distinct element gets the same share of the budget, so the passes an
    element receives depend on its size, not on its position.
    """
    budget = budget if isinstance(budget, Budget) else Budget(budget)
    items = [sympy.sympify(values[idx]) for idx in np.ndindex(values.shape)]
    distinct = list(dict.fromkeys(items))
    budget.split(len(distinct))
    done = {e: simplify_expr(e, strategy, budget) for e in distinct}
    out = np.empty(len(items), dtype=object)
    out[:] = [done[e] for e in items]
    out = out.reshape(values.shape)
    if out.ndim == 2 and out.shape[0] == out.shape[1] and strategy != "none":
        _mirror(out, budget)
    return out


def _mirror(out, budget):
    """Entries equal across the diagonal (a Hessian's) print the same way (see
    :func:`mirror_pairs`)."""
    pairs = [((i, j), (j, i)) for i, j in zip(*np.triu_indices(out.shape[0], 1))
             if out[i, j] != out[j, i]]
    mirror_pairs(out, pairs, budget)


def mirror_pairs(items, pairs, budget):
    """Each pair ``(p, q)`` of places in ``items`` whose forms are equal gets the smaller
    form in both places.

    Equality is proven (``expand(a - b) == 0``, when its estimate fits a share of a
    budget as large as the call's, so the outcome depends on sizes, not on the time
    the passes before took), never guessed; unproven pairs keep their own forms.
    """
    budget = Budget(budget.seconds if isinstance(budget, Budget) else budget)
    pairs = [(p, q) for p, q in pairs
             if isinstance(items[p], sympy.Expr) and isinstance(items[q], sympy.Expr)]
    budget.split(len(pairs))
    for p, q in pairs:
        a, b = items[p], items[q]
        diff = a - b
        if budget.allows("expand", estimate("expand", diff)) and sympy.expand(diff) == 0:
            items[p] = items[q] = _smallest(a, [b])


def to_sympy(values):
    """A 0-d object array as a SymPy expression, anything else as a SymPy Array."""
    if values.ndim == 0:
        return sympy.sympify(values[()])
    return sympy.ImmutableDenseNDimArray(values.tolist(), values.shape)


def check_strategy(simplify):
    """Raise ArgumentError unless ``simplify`` is one of :data:`STRATEGIES`."""
    if simplify not in STRATEGIES:
        raise ArgumentError(f"simplify={simplify!r} is not one of {STRATEGIES}; use 'auto' "
                            "(budgeted), 'none' (raw expansion) or 'full' (unbounded)")


def elementwise_form(t, simplify="auto", keep=(), budget=BUDGET_SECONDS, deadline=None):
    """The elementwise closed form of tensor ``t``: SymPy expression or N-d array.

    The work behind ``closed_form(..., form="elementwise")`` (see ``forms.closed``);
    ``deadline`` stops the expansion (``forms.elided.SlowExpansion``), and the
    stronger simplification passes get at most the time left before it.
    """
    check_strategy(simplify)
    if t is None:
        return None
    if not isinstance(t, Node):
        raise TypeError(f"closed_form takes a tensor of the graph, not {type(t).__name__}")
    with progress.task(f"the closed form of {t.name!r} {tuple(t.shape)}"):
        (values,) = expand([t], {k: leaf_symbols(k) for k in keep}, deadline=deadline)
        if deadline is not None:
            budget = max(0.0, min(budget, deadline - time.monotonic()))
        progress.stage(f"simplifying {values.size:,} entries")
        return to_sympy(simplify_array(values, simplify, budget))
