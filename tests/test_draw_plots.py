"""Gradient-field plots: grid values against analytic gradients; the picture itself needs
matplotlib (skipped without it)."""
import numpy as np
import pytest

import symgrad as sg
from symgrad.teach import descent_path, field_values


def _rosenbrock():
    x = sg.Variable(0.0, name="x")
    y = sg.Variable(0.0, name="y")
    return (1 - x) ** 2 + 10 * (y - x ** 2) ** 2, x, y


def test_field_values_match_the_analytic_gradient():
    f, x, y = _rosenbrock()
    X, Y, F, GX, GY = field_values(f, x, y, (-2, 2), (-1, 3), n=7)
    np.testing.assert_allclose(F, (1 - X) ** 2 + 10 * (Y - X ** 2) ** 2)
    np.testing.assert_allclose(GX, -2 * (1 - X) - 40 * X * (Y - X ** 2))
    np.testing.assert_allclose(GY, 20 * (Y - X ** 2))


def test_non_elementwise_graphs_are_evaluated_point_by_point():
    x = sg.Variable(0.0, name="x")
    y = sg.Variable(0.0, name="y")
    v = sg.stack([x, y])                        # not elementwise: no grid replay
    f = sg.reduce_sum(v * v) + x * y
    X, Y, F, GX, GY = field_values(f, x, y, n=4)
    np.testing.assert_allclose(F, X ** 2 + Y ** 2 + X * Y)
    np.testing.assert_allclose(GX, 2 * X + Y)
    np.testing.assert_allclose(GY, 2 * Y + X)


def test_other_placeholders_come_from_the_feed():
    x = sg.Variable(0.0, name="x")
    y = sg.Variable(0.0, name="y")
    k = sg.placeholder(name="k")
    X, Y, F, GX, GY = field_values(k * x * y, x, y, n=3, feed_dict={k: 3.0})
    np.testing.assert_allclose(GX, 3 * Y)
    with pytest.raises(ValueError, match="'k' needs a value"):
        field_values(k * x * y, x, y, n=3)


def test_descent_path_decreases_f():
    f, x, y = _rosenbrock()
    p = descent_path(f, x, y, (-1.0, 1.0), learning_rate=0.01, steps=50)
    assert p.shape == (51, 2)
    values = [float(sg.evaluate(f, {x: a, y: b})) for a, b in p]
    assert values[-1] < values[0] and all(np.diff(values) <= 1e-12)


def test_gradient_field_picture(tmp_path):
    pytest.importorskip("matplotlib")
    f, x, y = _rosenbrock()
    path = descent_path(f, x, y, (-1.5, 2.0), 0.01, 40)
    ax = sg.gradient_field(f, x, y, (-2, 2), (-1, 3), n=15, path=path,
                           filename=tmp_path / "field.png")
    assert (tmp_path / "field.png").read_bytes()[:4] == b"\x89PNG"
    assert ax.get_xlabel() == "x" and len(ax.lines) == 1
