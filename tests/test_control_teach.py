"""explain and draw on control flow: branch taken, iteration counts, per-iteration adjoints,
a cluster per sub-graph."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.teach.dot import dot_available


def _program():
    x = sg.Variable(1.1, name="x")
    # 1.1 -> 3.3 -> 7.7 -> 16.5: three iterations
    _, y = sg.while_loop(lambda i, y: y < 10.0, lambda i, y: (i + 1, y * 2.0 + x), [0, x])
    z = sg.cond(x > 0, lambda: y * x, lambda: y)
    return x, z


def test_explain_shows_branch_iterations_recurrence_and_adjoints_per_iteration():
    x, z = _program()
    e = sg.explain(z, x)
    kinds = {r.kind: r for r in e.control}
    assert kinds["cond"].taken is True
    assert kinds["loop"].trips == 3
    assert "  y_(k+1) = x + 2*y_k" in kinds["loop"].lines
    steps = kinds["loop_vjp"].steps
    # a_T = dz/dy_T = x; each step back multiplies by dy_(k+1)/dy_k = 2
    assert sorted(steps) == [0, 1, 2, 3]
    for k in range(4):
        assert float(steps[k][0]) == pytest.approx(1.1 * 2 ** (3 - k))
    text = str(e)
    assert "the loop ran 3 iterations" in text and "only the true branch ran" in text
    assert "k = 0: y: 8.8" in text
    assert float(e.results[0].value) == pytest.approx(sg.evaluate(sg.gradients(z, x)[0]))


def test_draw_has_a_cluster_per_branch_and_loop_function():
    x, z = _program()
    source = sg.draw(z, x).source
    for label in ("loop condition of while", "loop body of while", "true branch of cond",
                  "false branch of cond"):
        assert f'label="{label}"' in source
    assert source.count("subgraph cluster_") == 4
    if dot_available():
        assert sg.draw(z, x).render("svg").startswith(b"<?xml")


def test_explain_of_a_constant_trip_loop_gives_the_closed_form():
    x = sg.Variable(0.5, name="x")
    _, s, _ = sg.while_loop(lambda k, s, t: k < 3, lambda k, s, t: (k + 1, s + t, t * x),
                            [0, 0.0, 1.0])
    e = sg.explain(s, x)
    assert str(e.results[0].form) == "2*x + 1"
    assert np.isclose(float(e.results[0].value), 2.0)
