"""Strong-zero guards on seed tables (``lower.guarded``): a guarded value computed with
the table's one nonzero number in place of the table.  Oracles: the same kernel
without the rewrite, bit for bit (also at inf and NaN inputs), and the reference
evaluator; the Program shows the guards rewritten, and only for tables with one
nonzero number."""
import base64

import numpy as np
import pytest

import symgrad as sg
from symgrad.lower import guarded
from symgrad.lower.ir import Loop, Program
from symgrad.lower.program import lower_graph


def _table(values):
    return ("f8", (len(values),), base64.b64encode(np.array(values, float).tobytes()).decode())


@pytest.mark.parametrize("values, rewritten", [([0.0, 2.0, 0.0, 2.0], True),
                                               ([0.0, 1.0, 2.0, 1.0], False),
                                               ([0.0, 0.0, 0.0, 0.0], False),
                                               ([0.0, np.inf, 0.0, 0.0], False)])
def test_only_tables_with_one_nonzero_number_are_substituted(values, rewritten):
    body = (("arg", 1), ("arg", 0), ("mul", 0, 1), ("call", "sin", 2), ("strong", 1, 3),
            ("add", 4, 0))
    st = Loop((4,), 1, ("buf", 0), ("aff", 0, (1,)),
              [(("const", 0), ("aff", 0, (1,))), (("in", 0), ("aff", 0, (1,)))], body)
    p = Program(consts=[_table(values)], stmts=[st])
    assert guarded.specialize(p) == int(rewritten)
    new = p.stmts[0].body
    if not rewritten:
        assert new == body
        return
    # sin(x * 2) under the guard, from a copy reading the constant; the unguarded
    # use of x and the result (last) are untouched
    assert ("const", float.hex(2.0)) in new and new[-1] == ("add", len(new) - 2, 0)
    assert new[-2][0] == "strong" and new[-2][1] == 1
    copy = new[new[-2][2]]
    assert copy[0] == "call" and new[copy[2]] == ("mul", 0, new.index(("const", float.hex(2.0))))


def _loss(x):
    return sg.reduce_sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2) + \
        sg.reduce_sum(sg.sin(x) * x ** 3)


def test_sparse_hessian_kernels_with_and_without_the_rewrite_agree_bit_for_bit(monkeypatch):
    x = sg.placeholder(shape=(30,), name="x")
    f = _loss(x)
    outputs = [f] + sg.gradients(f, x) + [sg.hessians(f, x, sparse=True)[0].values]
    counted = []
    real = guarded.specialize
    monkeypatch.setattr(guarded, "specialize", lambda p: counted.append(real(p)) or 0)
    lower_graph(outputs, [x])
    assert counted and counted[0] > 0
    monkeypatch.setattr(guarded, "specialize", real)
    on = sg.compile(outputs, [x], cache=False, wait=True)
    monkeypatch.setattr(guarded, "specialize", lambda p: 0)
    off = sg.compile(outputs, [x], cache=False, wait=True)
    rng = np.random.default_rng(3)
    for v in (rng.uniform(-1, 1, 30), np.where(np.arange(30) % 7 == 3, np.inf, 0.5),
              np.where(np.arange(30) % 5 == 1, np.nan, -0.25)):
        for a, b in zip(on(v), off(v)):
            np.testing.assert_array_equal(a, b)
    v = rng.uniform(-1, 1, 30)
    for got, want in zip(on(v), sg.evaluate(outputs, {x: v})):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
