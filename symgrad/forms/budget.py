"""Time budgets for closed forms: every pass is estimated before it runs.

SymPy's passes cannot be interrupted, so a budget is enforced *before* a pass:
:meth:`Budget.allows` compares the pass's estimated cost with what is left (and
with the share of one element, so every element of an array gets the same
treatment whatever its position: symmetric entries print the same way).  A pass
that would not fit is not run, and the budget records it.

Estimates are linear in the size with per-pass rates measured on random
derivatives (``python benchmarks/closed_forms.py``, table "pass cost"; the rates
are about 3x the measured medians), and, for the passes that expand or factor
polynomials, in the *expansion work*: terms times degree of every polynomial part,
function arguments included -- ``exp((x + y)**20)`` has 3 operations but
``factor`` expands the exponent and took 74 s and 1 GB.

Imports only SymPy.

>>> x, y = sympy.symbols("x y")
>>> expansion_work(sympy.exp((x + y) ** 20)) > 400
True
>>> Budget(2.0).allows("factor", estimate("factor", sympy.exp((x + y) ** 20)))
False
"""
from __future__ import annotations

import math
import time

import sympy

# Seconds per unit of size (tree operations, or expansion work for the expanding ones).
RATE = {"factor_terms": 1e-3, "powsimp": 2e-3, "together": 1e-3, "factor": 10e-3,
        "expand": 2e-3, "cancel": 8e-3, "piecewise_fold": 1e-3, "simplify": 50e-3}
EXPANDING = ("factor", "expand", "cancel", "together")
TRIG_RATE, TRIG_POWER = 0.3e-3, 2.7     # trigsimp: 0.02 s at 5 ops, 1.7 s at 25 (measured)
CAP = 10 ** 9


class Budget:
    """Seconds that passes may take, shared by the elements of one closed form.

    Attributes:
        seconds: the whole budget.
        share: seconds one element may use (``seconds`` until :meth:`split`).
        skipped: ``{pass name: count}`` of passes not run because they would not fit.
    """

    def __init__(self, seconds):
        self.seconds = float(seconds)
        self.share = self.seconds
        self.deadline = time.monotonic() + self.seconds
        self.skipped = {}

    def split(self, parts):
        """Give each of ``parts`` elements an equal share of what is left."""
        self.share = self.left() / max(1, parts)

    def left(self):
        return max(0.0, self.deadline - time.monotonic())

    def allows(self, name, cost):
        """True when a pass estimated at ``cost`` seconds fits the share and what is left."""
        if cost <= min(self.share, self.left()):
            return True
        self.skipped[name] = self.skipped.get(name, 0) + 1
        return False


def terms_and_degree(expr, memo):
    """(expanded term count, total degree) of ``expr`` seen as a polynomial in its atoms."""
    if expr in memo:
        return memo[expr]
    if isinstance(expr, sympy.Add):
        parts = [terms_and_degree(a, memo) for a in expr.args]
        out = (min(CAP, sum(t for t, _ in parts)), max(d for _, d in parts))
    elif isinstance(expr, sympy.Mul):
        parts = [terms_and_degree(a, memo) for a in expr.args]
        out = (min(CAP, math.prod(t for t, _ in parts)), sum(d for _, d in parts))
    elif isinstance(expr, sympy.Pow) and expr.exp.is_Integer and expr.exp > 1:
        t, d = terms_and_degree(expr.base, memo)
        k = int(expr.exp)
        terms = math.comb(k + t - 1, t - 1) if t < 64 and k < 10 ** 4 else CAP
        out = (min(CAP, terms), min(CAP, k * max(d, 1)))
    else:
        out = (1, 0 if expr.is_Number else 1)
    memo[expr] = out
    return out


def expansion_work(expr):
    """Terms times degree of ``expr`` and of every function argument inside it (capped).

    A small expression can expand enormously: d/dx (x + y + z + w)**30 has 6
    operations and 5,456 expanded terms.
    """
    if not isinstance(expr, sympy.Basic):
        return 0
    memo, seen, stack = {}, set(), [expr]
    t, d = terms_and_degree(expr, memo)
    work = t * max(d, 1)
    while stack and work < CAP:      # the DAG, not the tree: shared parts count once
        e = stack.pop()
        for a in e.args:
            if a in seen or not a.args:
                continue
            seen.add(a)
            stack.append(a)
            if isinstance(e, sympy.Function):
                t, d = terms_and_degree(a, memo)
                work += t * max(d, 1)
    return min(work, CAP)


def estimate(name, expr, size=None):
    """Estimated seconds of pass ``name`` on ``expr`` (``size``: its operation count)."""
    n = sympy.count_ops(expr, visual=False) if size is None else size
    if name == "trigsimp":
        return TRIG_RATE * max(n, 1) ** TRIG_POWER
    if name in EXPANDING:
        n = max(n, expansion_work(expr))
    return RATE[name] * n
