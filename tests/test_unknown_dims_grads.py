"""Gradients along an axis of unknown size: one graph, checked at two sizes.

Oracle: central finite differences of ⟨u, f(X)⟩ at each fed size.
"""
import numpy as np
import pytest

import symgrad as sg


def finite_difference(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_concat_along_an_unknown_axis_with_one_input_of_unknown_size(where, rng):
    X = sg.placeholder(sg.float64, shape=(None, 3), name="X")
    A = sg.Variable(rng.normal(size=(2, 3)), name="A")
    B = sg.Variable(rng.normal(size=(1, 3)), name="B")
    parts = {"first": [X, A, B], "middle": [A, X, B], "last": [A, B, X]}[where]
    c = sg.concat(parts, axis=0)
    assert c.shape == (None, 3)
    w = sg.placeholder(sg.float64, shape=(None, 3), name="w")     # weights, fed per size
    loss = sg.reduce_sum(sg.sin(c) * w)
    gX, gA, gB = sg.gradients(loss, [X, A, B])
    for n in (1, 4):                                              # one graph, two sizes
        x, u = rng.normal(size=(n, 3)), rng.normal(size=(n + 3, 3))

        def value(xv, av=A.value, bv=B.value):
            return sg.evaluate(loss, {X: xv, A: av, B: bv, w: u})
        got = sg.evaluate([gX, gA, gB], {X: x, w: u})
        np.testing.assert_allclose(got[0], finite_difference(value, x), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[1], finite_difference(lambda a: value(x, av=a), A.value),
                                   rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(got[2], finite_difference(lambda b: value(x, bv=b), B.value),
                                   rtol=1e-6, atol=1e-8)


def test_concat_of_two_unknown_sizes_says_which_sizes_it_needs():
    X = sg.placeholder(sg.float64, shape=(None, 3), name="X")
    Y = sg.placeholder(sg.float64, shape=(None, 3), name="Y")
    c = sg.concat([X, Y], axis=0)
    with pytest.raises(sg.ShapeError, match="two or more inputs have unknown sizes"):
        sg.gradients(sg.reduce_sum(c), X)
