"""Formatting the benchmark results: the per-tool table, the symgrad-vs-targets table.

Targets (issue 6): latency <= 1.2x sympy lambdify+njit where it builds and <= hand
@njit; chain50 <= 5 us, chain200 <= 12 us; batched throughput >= the fastest peer;
value+gradient ops <= 3x the value's; derivation of chain200 <= 0.2 s; first
result (derive + the default, answering ``sg.compile`` + first call, issue 15) <=
0.03 s; cold derive+compile until the machine code answers <= 1 s (chain1000 <= 3
s); in a new process, ``sg.load`` of the saved evaluator and its first result <= 0.15 s over the trivial cached @njit baseline (issue
15; re-tracing + compiling from the warm cache is shown beside it).
"""
from __future__ import annotations

from .tools import LABELS

LATENCY_TARGET_US = {"chain50": 5.0, "chain200": 12.0}


def seconds(v):
    return "—" if v is None else f"{v:.3f}" if v < 10 else f"{v:.1f}"


def micro(v):
    return "—" if v is None else f"{v * 1e6:.2f}" if v < 1e-4 else f"{v * 1e6:.0f}"


def rate(v):
    return "—" if v is None else f"{v:.2e}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(r, good, unit=""):
    """``r`` with its unit and ``ok``/``MISS`` against the target ``good``."""
    if r is None:
        return "—"
    return f"{r:.2f}{unit} {'ok' if good(r) else 'MISS'}"


def markdown(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def tool_rows(results):
    """One row per (workload, tool)."""
    rows = []
    for (workload, tool), r in results.items():
        if "error" in r:
            rows.append([workload, LABELS[tool], r["error"]] + ["—"] * 7)
            continue
        tp = r.get("throughput", {})
        ops = r.get("ops")
        rows.append([workload, LABELS[tool], seconds(r["build"]), seconds(r.get("cached")),
                     seconds(r.get("loaded")),
                     micro(r.get("latency")), rate(tp.get("serial")), rate(tp.get("parallel")),
                     "—" if not ops else f"{ops[1] / max(ops[0], 1):.2f} ({ops[0]}→{ops[1]})",
                     r.get("check", "") + (f"; timing: {r['side_error']}" if "side_error" in r
                                           else "")])
    return rows


TOOL_HEADER = ["workload", "tool", "cold build s", "cached rebuild s (over baseline)",
               "sg.load s (over baseline)",
               "latency µs", "batch pts/s", "batch parallel pts/s", "ops v+g / v", "check"]


def _best_peer_rate(results, workload, parallel):
    best = None
    for (w, tool), r in results.items():
        if w != workload or tool == "symgrad" or "error" in r:
            continue
        for label, value in r.get("throughput", {}).items():
            if parallel or label == "serial":
                best = value if best is None else max(best, value)
    return best


def target_rows(results, workloads):
    """One row per workload: symgrad's figures and ratios against the targets."""
    rows = []
    for w in workloads:
        s = results.get((w, "symgrad"))
        if s is None or "error" in s or "latency" not in s:
            reason = (s or {}).get("error") or (s or {}).get("side_error") or "not run"
            rows.append([w, reason] + ["—"] * (len(TARGET_HEADER) - 2))
            continue
        hand, spn = results.get((w, "hand"), {}), results.get((w, "sympy_njit"), {})
        lat_target = LATENCY_TARGET_US.get(w)
        if "latency" not in spn and "error" not in spn:
            spn = {"error": spn.get("side_error", "not run")}
        tp = s["throughput"]
        serial_ratio = ratio(tp.get("serial"), _best_peer_rate(results, w, False))
        best_ratio = ratio(max(tp.values()), _best_peer_rate(results, w, True))
        ops = s.get("ops")
        cold_limit = 3.0 if w == "chain1000" else 1.0
        derive = s.get("derive")
        rows.append([
            w, seconds(derive) + (" ok" if derive <= 0.2 else " MISS") * (w == "chain200"),
            fmt_ratio(s.get("first"), lambda v: v <= 0.03, " s"),
            fmt_ratio(s["build"], lambda v: v <= cold_limit, " s"),
            seconds(s.get("cached")),
            fmt_ratio(s.get("loaded"), lambda v: v <= 0.15, " s") + _light(s),
            micro(s["latency"]) + ("" if lat_target is None else
                                   f" {'ok' if s['latency'] * 1e6 <= lat_target else 'MISS'}"
                                   f" (≤{lat_target:g})"),
            fmt_ratio(ratio(s["latency"], hand.get("latency")), lambda v: v <= 1.0),
            fmt_ratio(ratio(s["latency"], spn.get("latency")), lambda v: v <= 1.2)
            if "error" not in spn else spn["error"],
            fmt_ratio(serial_ratio, lambda v: v >= 1.0), fmt_ratio(best_ratio, lambda v: v >= 1.0),
            fmt_ratio(ratio(ops[1], ops[0]) if ops else None, lambda v: v <= 3.0)])
    return rows


def _light(s):
    """A note when loading imported SymPy (it must not)."""
    return " (imported SymPy)" if s.get("loaded_sympy") else ""


TARGET_HEADER = ["workload", "derive s", "first result s (≤0.03)",
                 "cold s (≤1; chain1000 ≤3)",
                 "re-trace+compile, cached: +s", "sg.load: +s (≤0.15)",
                 "latency µs", "latency ×hand (≤1)", "latency ×sympy+njit (≤1.2)",
                 "batch serial ×best serial peer (≥1)", "batch best ×best peer (≥1)",
                 "ops v+g / v (≤3)"]


def scaling_rows(scaling):
    return [[s["nodes"], s["steps"], seconds(s["trace"]), seconds(s["gradients"]),
             s["gradient_nodes"], s["error"] or "ok"] for s in scaling]


SCALING_HEADER = ["forward nodes", "chain steps", "trace s", "gradients s", "gradient nodes",
                  "recursion (default limit)"]
