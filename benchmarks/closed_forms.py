"""Closed forms: size and time against SymPy, and the budget on large expressions.

Run from the worktree root:  python benchmarks/closed_forms.py [--quick]

Table 1: for each derivative of ``tests/test_closed_forms_table.py``, our
``closed_form`` (graph -> gradient graph -> expansion -> "auto") against
``sympy.simplify(sympy.diff(inlined forward expression))``: operation counts
and wall time of each.
Table 2: ``sympy.simplify`` time against expression size (why "auto" gates at
``SMALL_OPS``).
Table 3: large expressions (thousands of operations): time of ``closed_form``
and of the CSE printing, against the budget.
"""
import os
import statistics
import sys
import time

import numpy as np
import sympy

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import symgrad as sg  # noqa: E402
from symgrad.simplify import BUDGET_SECONDS, SMALL_OPS, size  # noqa: E402
from tests.test_closed_forms_table import CASES, build_case, reference  # noqa: E402


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def timed_fresh(fn, repeat=3):
    """Like :func:`timed`, each run in a fresh graph so leaf names stay as written."""
    best, out = float("inf"), None
    for _ in range(repeat):
        with sg.Graph().as_default():
            t0 = time.perf_counter()
            out = fn()
            best = min(best, time.perf_counter() - t0)
    return out, best


def table_identities():
    print("| derivative of | ours | ops | ms | sympy.simplify(diff) | ops | ms |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for label, build, shape in CASES:
        with sg.Graph().as_default():
            def ours_fn():
                x, y, g, inlined, syms = build_case(build, shape)
                return sg.closed_form(g), inlined, syms
            (ours, inlined, syms), t_ours = timed_fresh(ours_fn)
            ref, t_ref = timed(lambda: reference(inlined, syms))
        first = ours if not shape else ours[0]
        print(f"| {label} | `{first}` | {size(first)} | {t_ours * 1e3:.1f} | "
              f"`{ref.reshape(-1)[0]}` | {size(ref.reshape(-1)[0])} | {t_ref * 1e3:.1f} |")
        ratios.append(t_ref / t_ours)
    print(f"\nsympy time / our time: median {statistics.median(ratios):.1f}x, "
          f"min {min(ratios):.2f}x over {len(ratios)} derivatives\n")


def main():
    table_identities()


if __name__ == "__main__":
    main()
