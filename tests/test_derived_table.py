"""The shipped partials (``symgrad.ops.derived``, ``ops/partials.json``) are a cache of
the derivation: the oracle is the derivation itself (``sympy.diff`` of each rule, or
its written convention), run again here for every entry."""
import numpy as np
import pytest
import sympy

import symgrad as sg
from symgrad.graph import format_graph
from symgrad.ops import REGISTRY, derived, elementwise

F8 = np.dtype(np.float64)


def _table():
    derived._TABLE.clear()
    return derived._TABLE.append(derived._load()) or derived._TABLE[0]


def test_every_entry_is_what_the_derivation_gives_now():
    table = _table()
    if not table:   # written under another SymPy: ignored, every op is derived
        assert derived.lookup("sin", ("f",)) is None
        return
    assert len(table) >= 40
    for key, texts in table.items():
        name, kinds = key.split(":")
        op = REGISTRY[name]
        parts, _ = op._derived((F8,) * len(kinds))
        assert texts == [None if p is None else sympy.srepr(sympy.sympify(p)) for p in parts], \
            f"{key}: stale; regenerate with derived.write_table()"
        shipped = derived.lookup(name, tuple(kinds))
        assert [sympy.srepr(p) if p is not None else None for p in shipped] == texts


def test_every_second_order_entry_is_what_the_derivation_gives_now():
    """The generic op's entries: re-derived from the rules (``derive_generic``), and
    the nodes a reverse sweep really builds find theirs (else the table is dead)."""
    table = _table()
    if not table:
        return
    derived._GENERIC.clear()
    shipped = derived._load("generic")
    assert len(shipped) >= 20 and shipped == derived.derive_generic(table), \
        "stale; regenerate with derived.write_table()"
    generic = REGISTRY["elementwise"]
    for key, texts in shipped.items():
        nargs, text = key.split(":", 1)
        expr = eval(text, derived._NAMES)   # noqa: S307 (our file)
        parts, _ = generic._derived((F8,) * int(nargs), expr=expr)
        assert texts == [None if p is None else sympy.srepr(sympy.sympify(p)) for p in parts]
        got = derived.lookup_generic(expr, int(nargs))
        assert [None if p is None else sympy.srepr(p) for p in got] == texts
    with sg.Graph().as_default():
        x = sg.placeholder(shape=(3,), name="x")
        (g,) = sg.gradients(sg.reduce_sum(sg.tanh(x) / x ** 2.0), x)
    exprs = [n.attrs["expr"] for n in g.graph.nodes if n.opdef.name == "elementwise"]
    assert exprs and all(derived.lookup_generic(e, 3) is not None or
                         derived.lookup_generic(e, 2) is not None for e in exprs)


def test_the_table_is_package_data():
    from pathlib import Path
    pyproject = Path(derived.__file__).parents[2] / "pyproject.toml"
    assert '"ops/partials.json"' in pyproject.read_text()   # else wheels lack it: slower


def test_another_sympy_version_ignores_the_table(tmp_path, monkeypatch):
    data = derived.write_table(tmp_path / "partials.json")
    assert data["sympy"] == sympy.__version__ and "tanh:f" in data["partials"]
    stale = tmp_path / "stale.json"
    stale.write_text((tmp_path / "partials.json").read_text().replace(
        f'"sympy": "{sympy.__version__}"', '"sympy": "0.0"'))
    monkeypatch.setattr(derived, "PATH", str(stale))
    derived._TABLE.clear()
    try:
        assert derived.lookup("tanh", ("f",)) is None
    finally:
        derived._TABLE.clear()


def _program():
    with sg.Graph().as_default() as graph:
        x = sg.placeholder(shape=(3,), name="x")
        h = sg.tanh(x) * sg.sigmoid(x) / (1.0 + x ** 2) + sg.sin(x) ** x
        y = sg.reduce_sum(sg.maximum(h, sg.log1p(sg.exp(-x))) + sg.atan2(x, h))
        (g,) = sg.gradients(y, x)
        (hv,) = sg.gradients(sg.reduce_sum(g * x), x)   # second order: generic rules too
        return graph, x, [y, g, hv]


def test_gradients_are_the_same_graph_with_and_without_the_table(monkeypatch):
    def fresh():
        elementwise._PARTIALS.clear()
        elementwise._RULES.clear()
    fresh()
    _table()
    read = []
    lookup = derived.lookup
    monkeypatch.setattr(derived, "lookup", lambda *a: read.append(a[0]) or lookup(*a))
    graph, x, outs = _program()
    with_table = format_graph(outs)
    if derived._TABLE[0]:   # (under another SymPy nothing is read: both graphs derived)
        assert {"tanh", "sigmoid", "div", "pow", "sin", "atan2"} <= set(read)
    point = {x: np.array([0.3, -1.2, 2.0])}
    want = sg.evaluate(outs, point)
    fresh()
    monkeypatch.setattr(derived, "_TABLE", [{}])   # nothing shipped: all derived
    monkeypatch.setattr(derived, "_GENERIC", [{}])
    try:
        graph, x, outs = _program()
        assert format_graph(outs) == with_table
        got = sg.evaluate(outs, {x: point[next(iter(point))]})
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    finally:
        fresh()
