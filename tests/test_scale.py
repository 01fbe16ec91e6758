"""Tracing, differentiation and evaluation are iterative: long chains hit no recursion limit."""

import numpy as np
import pytest

import symgrad as sg


@pytest.mark.parametrize("n", [1000, 10000])
def test_long_chain_traces_differentiates_and_evaluates(n):
    x = sg.Variable(0.1, name="x")
    f = x
    for _ in range(n):
        f = sg.sin(f) * 0.5 + x
    (g,) = sg.gradients(f, x)
    value = sg.evaluate(g)
    # forward-mode reference: d f_k = 0.5 cos(f_{k-1}) d f_{k-1} + 1
    fv, dv = 0.1, 1.0
    for _ in range(n):
        fv, dv = np.sin(fv) * 0.5 + 0.1, 0.5 * np.cos(fv) * dv + 1.0
    assert value == pytest.approx(dv, rel=1e-12)


def _graph_elements(t):
    from symgrad.graph import ancestors
    return sum(n.size for n in ancestors([t]))


def test_gradient_of_an_indexed_chain_stays_linear():
    # x[k] used once per step: the point scatters fuse into one, so the gradient
    # graph holds O(n) elements, not n scatters of n elements each.
    sizes = []
    for n in (100, 400):
        with sg.Graph().as_default():
            x = sg.Variable(np.linspace(0.0, 1.0, n), name="x")
            f = x[0]
            for k in range(1, n):
                f = sg.sin(f) * f + x[k]
            (g,) = sg.gradients(f, x)
            sizes.append(_graph_elements(g))
    assert sizes[1] < 5 * sizes[0]


def test_fused_point_scatters_keep_values():
    X = sg.Variable(np.arange(6.0).reshape(2, 3), name="X")
    y = X[0, 1] * X[1, 2] + X[0, 1] ** 2 + 3 * X[1, 0] + sg.reduce_sum(X[1] * X[0])
    (g,) = sg.gradients(y, X)
    v = np.arange(6.0).reshape(2, 3)
    expected = np.zeros((2, 3))
    expected[0, 1] += v[1, 2] + 2 * v[0, 1]
    expected[1, 2] += v[0, 1]
    expected[1, 0] += 3
    expected[1] += v[0]
    expected[0] += v[1]
    np.testing.assert_allclose(sg.evaluate(g), expected)


def test_ten_thousand_node_chain_compiles_and_matches_the_reference():
    x = sg.placeholder(shape=(), name="x")
    f = x
    for _ in range(3334):  # three ops a step: 10,000 forward nodes
        f = sg.sin(f) * 0.5 + x
    (g,) = sg.gradients(f, x)
    assert len(x.graph) > 20000
    compiled = sg.compile([f, g], [x])
    np.testing.assert_allclose(compiled(0.1), sg.evaluate([f, g], feed_dict={x: 0.1}),
                               rtol=1e-13)
